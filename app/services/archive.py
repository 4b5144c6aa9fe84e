"""The archive: finished public games, filtered, sorted and paged, their final positions for mini
boards, and imported records."""

from __future__ import annotations

import json
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

from app.domain.archive import archive_columns
from app.domain.results import result_key
from app.domain.timecontrol import Clocks, TimeControl, TimeControlError
from app.errors import AppError, ErrorCode, excerpt
from app.identity import name_key, validate_name
from app.identity.usernames import username_key
from app.repository import accounts, reads
from app.repository import archive as archived
from app.repository.bots import BOT_PLAYER_IDS
from app.repository.writes import EventRow, NewGame
from app.runtime.hub import encode
from app.runtime.rules import RecordError, can_draw, has_pie, title
from app.schemas.outgoing import ArchiveEntryJson, ArchivePlayerJson, Stored
from app.schemas.responses import ImportedOut
from app.services.core import Core, Visitor, players_json, seat_ids
from app.services.explorer import explored
from app.services.reading import export_line
from app.services.stats import counting

#: The most JSON one archive page holds past its first game: 100 games of today's few hundred
#: bytes each fit; a page of games holding more stops early, with a cursor.
ARCHIVE_PAGE_BYTES = 256 * 1024
#: How many finished games' final views the archive keeps in memory: a finished game never
#: changes, so its mini board is replayed once, not at every page that lists it.
BOARDS_CACHED = 2000
#: The most games one ``GET /api/archive/export`` sends (then a cursor to go on from), and how many
#: it reads at a time.
EXPORT_MAX = 10_000
EXPORT_PAGE = 100
#: The most games one ``GET /api/archive/boards`` may ask for (an archive page's most).
BOARDS_MAX = 100

#: The bots' player ids: an archive entry says whether one held a seat.
BOTS = frozenset(BOT_PLAYER_IDS)


class ArchiveService:
    """Listing finished games, their final positions, and storing imported games."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self._boards: OrderedDict[str, dict[str, Any]] = OrderedDict()

    async def archive(
        self, filters: archived.ArchiveFilter, after: archived.Cursor | None, limit: int
    ) -> tuple[list[ArchiveEntryJson], archived.Cursor | None]:
        """One archive page and the key of its last game when more follow: at most ``limit``
        games and, after the first, no more than ``ARCHIVE_PAGE_BYTES`` of JSON (a page stops
        early, with a cursor, rather than grow with what the games hold)."""
        async with self.core.sessions() as session:
            rows = list(await archived.archive_page(session, filters, after, limit + 1))
        owners = await self.core.owners(seat_ids(*rows))
        entries: list[ArchiveEntryJson] = []
        size = 0
        for g in rows[:limit]:
            control = TimeControl.stored(g.time_control)
            entry: ArchiveEntryJson = {
                "id": g.id,
                "game": g.slug,
                "title": title(g.slug),
                "options": g.options,
                "players": players_json(g, owners),
                "moves": g.ply_count,
                "result": g.result_json,
                "finished_at": g.finished_at,
                "imported": g.imported,
                "imported_by": g.imported_by,
                "rated": g.rated,
                "time": control.label(),
                "time_key": g.time_key or "unlimited",
                "first_move": g.first_move,
                "pie_taken": g.pie_taken,
                "bot": bool({g.player1_id, g.player2_id} & BOTS),
            }
            size += len(json.dumps(entry, separators=(",", ":"))) + 1
            if entries and size > ARCHIVE_PAGE_BYTES:
                break
            entries.append(entry)
        more = len(entries) < len(rows)
        last = rows[len(entries) - 1] if more and entries else None
        cursor = archived.cursor_of(last, filters.sort) if last is not None else None
        return entries, cursor

    async def export(
        self, filters: archived.ArchiveFilter, after: archived.Cursor | None, most: int = EXPORT_MAX
    ) -> AsyncIterator[tuple[str, archived.Cursor]]:
        """``GET /api/archive/export``'s games: those ``filters`` find after ``after``, in the
        filter's order, at most ``most``; each as its line (``{"id", "finished_at", "record"}``
        and a newline) and the cursor after it. A page of ``EXPORT_PAGE`` games at a time, each
        read in a transaction of its own: memory stays bounded whatever the number of games, and
        no transaction outlives a page."""
        sent = 0
        while sent < most:
            size = min(EXPORT_PAGE, most - sent)
            async with self.core.sessions() as session:
                rows = list(await archived.archive_page(session, filters, after, size))
                plies = await archived.plies_of(session, [g.id for g in rows])
            for g in rows:
                line = export_line(self.core.rules.rules(g.slug, g.options), g, plies[g.id])
                after = archived.cursor_of(g, filters.sort)
                yield encode(line) + "\n", after
            sent += len(rows)
            if len(rows) < size:
                return

    async def boards(self, ids: list[str]) -> dict[str, dict[str, Any] | None]:
        """The final position's view of each finished public game of ``ids`` (None for any
        other id): the mini boards of an archive page. Replayed by the rules runner (a worker for
        the slow games) and kept in a cache of ``BOARDS_CACHED`` games."""
        boards: dict[str, dict[str, Any] | None] = dict.fromkeys(ids)
        missing = [i for i in dict.fromkeys(ids) if i not in self._boards]
        if missing:
            async with self.core.sessions() as session:
                rows = await archived.finished_games(session, missing)
                moves = await archived.moves_of(session, [g.id for g in rows])
            for g in rows:
                rules = self.core.rules.rules(g.slug, g.options)
                state = await self.core.rules.replay(rules, moves[g.id][: g.ply_count])
                self._boards[g.id] = self.core.rules.view(rules, state)
                while len(self._boards) > BOARDS_CACHED:
                    self._boards.popitem(last=False)
        for game_id in boards:
            if game_id in self._boards:
                self._boards.move_to_end(game_id)
                boards[game_id] = self._boards[game_id]
        return boards

    async def players(self, prefix: str, limit: int = 10) -> list[ArchivePlayerJson]:
        """Accounts whose username starts with ``prefix`` (in any case), for the player filter."""
        async with self.core.sessions() as session:
            found = await archived.accounts_by_prefix(session, username_key(prefix), limit)
        return [{"username": a.username, "name": a.display_name} for a in found]

    async def identity(self, username: str | None, guest: str | None) -> tuple[str, ...] | None:
        """The player ids the archive's ``account`` or ``guest`` filter names (None: neither)."""
        if username is None and guest is None:
            return None
        async with self.core.sessions() as session:
            if username is not None:
                account = await accounts.account_by_key(session, username_key(username))
                ids = await accounts.account_player_ids(session, account.id) if account else []
            else:
                assert guest is not None
                player = await reads.get_player(session, guest)
                owner = player.account_id if player is not None else None
                ids = await accounts.account_player_ids(session, owner) if owner else [guest]
        return tuple(ids)

    async def import_record(self, record: object, visitor: Visitor) -> ImportedOut:
        """Store a finished game's record, validated by replay, as an archived game imported by
        ``visitor`` (who must have chosen a name).

        The record is checked field by field first (only the known fields, of their types, texts of
        bounded length), then replayed once by the rules runner (a worker, under
        ``IMPORT_TIMEOUT``), which gives the canonical texts and the seat of every ply. The stored
        result is built from the checked values only, so everything stored can be sent back.
        """
        if visitor.name.startswith("Guest-"):
            raise AppError(
                ErrorCode.NAME_REQUIRED, "choose a name (PUT /api/me) before importing a record"
            )
        _check_record(record)
        assert isinstance(record, dict)
        names = _names(record.get("players", []))
        control, clocks = _record_time(record)
        try:
            rules = self.core.rules.record_rules(record)
            replayed = await self.core.rules.read_record(
                rules, record, time_limit=self.core.settings.import_timeout
            )
        except RecordError as exc:
            raise AppError(ErrorCode.INVALID_RECORD, str(exc), ply=exc.ply) from exc
        result: Stored | None = replayed.outcome
        given = record.get("result")
        agreed = isinstance(given, dict) and given.get("reason") == "agreement"
        if result is None and agreed and not can_draw(rules.slug):
            raise AppError(
                ErrorCode.INVALID_RECORD,
                f"{title(rules.slug)} cannot end in a draw: no game of it ends by agreement",
                ply=None,
                field="result.reason",
            )
        if result is None and isinstance(given, dict):  # a server reason, checked by the replay
            winner = given.get("winner")
            result = {
                "winner": winner,
                "colour": None if winner is None else replayed.colours.get(str(winner)),
                "reason": given["reason"],
                "scores": None,
            }
        if result is None:
            raise AppError(
                ErrorCode.UNFINISHED_RECORD,
                "the moves leave the game open and the record gives no result",
                ply=None,
            )
        plies = len(replayed.moves)
        for ply, (clock, seat) in enumerate(zip(clocks, replayed.seats, strict=False), 1):
            if clock is not None and clock["seat"] != seat:
                raise AppError(
                    ErrorCode.INVALID_RECORD,
                    f"ply {ply}: the clock is seat {clock['seat']}'s, the move seat {seat}'s",
                    ply=ply,
                    field="clocks",
                )
        now = self.core.clock.now()
        game_id = secrets.token_urlsafe(9)
        game = {
            "id": game_id,
            "slug": rules.slug,
            "options": rules.options,
            "public": True,
            "join_token": None,
            "creator_id": None,
            "status": "finished",
            "version": plies + 2,
            "ply_count": plies,
            "to_move": None,
            "player1_name": names.get(1),
            "player2_name": names.get(2),
            "player1_key": name_key(names[1]) if 1 in names else None,
            "player2_key": name_key(names[2]) if 2 in names else None,
            "result": result_key(result),
            "reason": str(result.get("reason")),
            "result_json": dict(result),
            "imported": True,
            "imported_by": visitor.name,
            "time_control": control.to_json() if control.timed else None,
            "clocks": _final_clocks(control, clocks),
            **archive_columns(
                rules.options,
                control.to_json() if control.timed else None,
                replayed.moves,
                result,
                has_pie(rules.slug),
            ),
            "created_at": now,
            "last_activity_at": now,
            "finished_at": now,
        }

        def event(version: int, kind: str, payload: Stored) -> EventRow:
            return {
                "game_id": game_id,
                "version": version,
                "kind": kind,
                "payload": payload,
                "player_id": None,
                "msg_id": None,
                "created_at": now,
            }

        moves: list[Stored] = []
        events = [event(1, "import", {})]
        lefts = [None if c is None else c["left"] for c in clocks] + [None] * (plies - len(clocks))
        for ply, (text, seat) in enumerate(zip(replayed.moves, replayed.seats, strict=True), 1):
            moves.append(
                {
                    "game_id": game_id,
                    "ply": ply,
                    "text": text,
                    "seat": seat,
                    "player_id": None,
                    "created_at": now,
                    "clock_ms": lefts[ply - 1],
                }
            )
            events.append(event(ply + 1, "move", {"ply": ply, "move": text, "seat": seat}))
        events.append(event(plies + 2, "result", dict(result)))
        counted = counting(self.core.rules, rules.slug, rules.options, True, game)  # issue 28
        # Imported games are real games between people: the explorer counts them (issue 28).
        opening = await explored(self.core.rules, rules, game_id, list(replayed.moves), result, now)
        after = (counted,) if opening is None else (counted, opening)
        await self.core.writer.write(NewGame(game, events, moves, after=after))
        return ImportedOut(id=game_id, url=f"/games/{game_id}")


def _names(players: Any) -> dict[int, str]:
    """The record's player names by seat (at most one a seat), validated as guest names are."""
    names: dict[int, str] = {}
    if not isinstance(players, list) or len(players) > 2:
        raise _refuse("the record's players must be a list of at most two", "players")
    for entry in players:
        if (
            not isinstance(entry, dict)
            or set(entry) - PLAYER_FIELDS
            or type(entry.get("seat")) is not int
            or entry["seat"] not in (1, 2)
            or entry["seat"] in names
        ):
            raise _refuse(
                f"a player must be {{seat: 1|2, name}}, one a seat, not {excerpt(entry)}", "players"
            )
        try:
            names[entry["seat"]] = validate_name(entry.get("name"))
        except AppError as exc:
            raise _refuse(f"player {entry['seat']}: {exc.message}", "players") from exc
    return names


#: The fields of a record (``hexmoot-record/1``) and of its result; any other is refused.
RECORD_FIELDS = frozenset(
    {"format", "game", "options", "players", "moves", "result", "time_control", "clocks"}
)
CLOCK_FIELDS = frozenset({"seat", "left"})
#: The most time a ply's clock may show (ms): far above any time control's reach.
MAX_CLOCK_MS = 10**12
RESULT_FIELDS = frozenset({"winner", "colour", "reason", "scores"})
PLAYER_FIELDS = frozenset({"seat", "name"})
#: The longest text a record may hold in a field other than a name or a move (a reason, a colour,
#: an option's value) and the longest move text; the most moves (as ``POST /api/replay``).
MAX_TEXT = 32
MAX_MOVE_TEXT = 200
MAX_RECORD_PLIES = 2000


def _refuse(message: str, field: str) -> AppError:
    return AppError(ErrorCode.INVALID_RECORD, message, ply=None, field=field)


def _check_record(record: object) -> None:
    """``invalid_record`` (with ``field``) unless ``record`` has only a record's fields, each of
    its type and of bounded length; whether the moves and the result agree with the rules is the
    replay's to say."""
    if not isinstance(record, dict):
        raise AppError(ErrorCode.INVALID_RECORD, "a record must be a JSON object", ply=None)
    for name in record:
        if name not in RECORD_FIELDS:
            raise _refuse(f"a record has no field {excerpt(name)}", excerpt(name))
    options = record.get("options", {})
    if isinstance(options, dict):
        for name, value in options.items():
            if len(name) > MAX_TEXT or (isinstance(value, str) and len(value) > MAX_TEXT):
                raise _refuse(f"option {excerpt(name)}: too long", "options")
    moves = record.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise _refuse("the record's moves must be a list of texts", "moves")
    if len(moves) > MAX_RECORD_PLIES:
        raise _refuse(f"a record holds at most {MAX_RECORD_PLIES} moves", "moves")
    for ply, text in enumerate(moves, 1):
        if not 1 <= len(text) <= MAX_MOVE_TEXT:
            raise AppError(
                ErrorCode.INVALID_RECORD,
                f"ply {ply}: a move has 1 to {MAX_MOVE_TEXT} characters",
                ply=ply,
                field="moves",
            )
    _check_result(record.get("result"))


def _record_time(record: dict[str, Any]) -> tuple[TimeControl, list[dict[str, int] | None]]:
    """A record's time control (absent or null: unlimited) and each ply's clock, as exported
    (``{"seat", "left"}`` or null per ply, at most one a move; only with a timed control)."""
    try:
        control = TimeControl.parse(record.get("time_control"))
    except TimeControlError as exc:
        raise _refuse(str(exc), exc.field) from exc
    clocks = record.get("clocks")
    if clocks is None:
        return control, []
    if not control.timed:
        raise _refuse("an untimed record has no clocks", "clocks")
    if not isinstance(clocks, list) or len(clocks) > len(record["moves"]):
        raise _refuse("the clocks must be a list of at most one a move", "clocks")
    for ply, clock in enumerate(clocks, 1):
        if clock is None:
            continue
        if (
            not isinstance(clock, dict)
            or set(clock) != CLOCK_FIELDS
            or type(clock["seat"]) is not int
            or clock["seat"] not in (1, 2)
            or type(clock["left"]) is not int
            or not 0 <= clock["left"] <= MAX_CLOCK_MS
        ):
            raise AppError(
                ErrorCode.INVALID_RECORD,
                f"ply {ply}: a clock is {{seat: 1|2, left: ms}} or null, not {excerpt(clock)}",
                ply=ply,
                field="clocks",
            )
    return control, clocks


def _final_clocks(control: TimeControl, clocks: list[dict[str, int] | None]) -> Stored | None:
    """An imported timed game's clocks as they stopped: each seat's time after its last clocked
    ply (its starting time if none)."""
    if not control.timed:
        return None
    start = Clocks.start(control)
    left = list(start.remaining)
    moved = [False, False]
    for clock in clocks:
        if clock is not None:
            left[clock["seat"] - 1] = clock["left"]
            moved[clock["seat"] - 1] = True
    return Clocks((left[0], left[1]), start.quota, (moved[0], moved[1]), False, None).to_json()


def _check_result(result: object) -> None:
    """A record's result: null, or ``{"winner", "reason", "scores", "colour"}`` with a seat or
    null, a short text, the score shape (two ints or two lists of ints) or null, a colour name."""
    if result is None:
        return
    if not isinstance(result, dict):
        raise _refuse(
            f"a record's result must be an object or null, not {excerpt(result)}", "result"
        )
    for name in result:
        if name not in RESULT_FIELDS:
            raise _refuse(f"a result has no field {excerpt(name)}", f"result.{excerpt(name)}")
    winner = result.get("winner")
    if winner is not None and not (type(winner) is int and winner in (1, 2)):
        raise _refuse(f"the winner must be 1, 2 or null, not {excerpt(winner)}", "result.winner")
    reason = result.get("reason")
    if not isinstance(reason, str) or not 1 <= len(reason) <= MAX_TEXT:
        raise _refuse(
            f"the reason must be a text of 1 to {MAX_TEXT} characters, not {excerpt(reason)}",
            "result.reason",
        )
    colour = result.get("colour")
    if colour is not None and not (isinstance(colour, str) and len(colour) <= MAX_TEXT):
        raise _refuse(
            f"the colour must be a short text or null, not {excerpt(colour)}", "result.colour"
        )
    scores = result.get("scores")
    if scores is not None and not (
        isinstance(scores, list) and len(scores) == 2 and all(_is_score(s) for s in scores)
    ):
        raise _refuse(
            f"the scores must be null or two scores (ints or lists of ints), not {excerpt(scores)}",
            "result.scores",
        )


#: The most numbers one seat's score may list: Valaturna's is the height of each of its stacks, up
#: to one a point of its largest board (127).
MAX_SCORE_PARTS = 256


def _is_score(score: object) -> bool:
    def is_int(value: object) -> bool:
        return type(value) is int and abs(value) < 1 << 31

    return is_int(score) or (
        isinstance(score, list) and len(score) <= MAX_SCORE_PARTS and all(is_int(s) for s in score)
    )
