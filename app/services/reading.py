"""Reading games: snapshots, catch-ups, the steps of a click, records, the open and live lists, and
the replay of any move list (``POST /api/replay``). Nothing here writes."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.domain import abstractplay
from app.domain.clock import idle_cutoff
from app.domain.ratings import Glicko
from app.domain.timecontrol import TimeControl
from app.errors import AppError, ErrorCode, rule_of
from app.models import Game
from app.repository import players as player_reads
from app.repository import reads
from app.runtime.hub import game_channel
from app.runtime.rules import RecordError, Rules, SeatColours, title
from app.schemas.outgoing import (
    CatchupJson,
    InvitationJson,
    LiveEntryJson,
    LiveListJson,
    OpenGameJson,
    PlayerJson,
    RecordJson,
    SeatRatingJson,
    SnapshotJson,
    StepsJson,
    Stored,
    YouJson,
)
from app.services.core import Core, Owner, Visitor, players_json, seat_ids

REPLAY_FORMAT = "hexmoot-record/1"
#: The most views one ``POST /api/replay`` answer holds, and the most bytes of views: a Jotun size-6
#: view is up to 33 KB, the largest of the catalogue, so a full page stays under about 1 MB.
REPLAY_MAX_VIEWS = 32
REPLAY_MAX_BYTES = 1_000_000


class ReadingService:
    """What players and spectators read about games."""

    def __init__(self, core: Core) -> None:
        self.core = core

    async def steps(
        self, game_id: str, prefix: Sequence[str], visitor: Visitor | None, token: str | None
    ) -> StepsJson:
        """Which tokens may follow ``prefix`` in the current position."""
        core = self.core
        async with core.sessions() as session:
            game = await core.visible(session, game_id, visitor, token)
            position = await core.position(session, game)
        try:
            steps = await core.rules.steps(position.rules, position.state, prefix)
        except ValueError as exc:
            raise AppError(ErrorCode.ILLEGAL_STEPS, str(exc), rule=rule_of(exc)) from exc
        return {
            "version": game.version,
            "prefix": steps["prefix"],
            "next": steps["next"],
            "complete": steps["complete"],
            "move": steps["move"],
            "hints": steps["hints"],
            "prompt": steps["prompt"],
            "changes": steps["changes"],
            "ends": steps["ends"],
        }

    async def snapshot(
        self, game_id: str, visitor: Visitor | None, token: str | None
    ) -> SnapshotJson:
        """Everything a game page needs, at the current version (one snapshot of the database):
        the seats with their accounts, a rated game's ratings, a waiting game's invitation."""
        core = self.core
        async with core.consistent() as session:
            game = await core.visible(session, game_id, visitor, token)
            position = await core.position(session, game)
        owners = await core.owners(seat_ids(game))
        ratings = await self._seat_ratings(game, owners) if game.rated else None
        view = core.view(position)
        players = players_json(game, owners)
        return {
            "version": game.version,
            "game": {
                "id": game.id,
                "game": game.slug,
                "title": position.rules.title,
                "options": game.options,
                "status": game.status,
                "public": game.public,
                "imported": game.imported,
                "imported_by": game.imported_by,
                "rated": game.rated,
                "players": players,
                "ratings": ratings,
                "invitation": _invitation(game, players, view["colours"]),
                "colours": view["colours"],
                "moves": list(position.moves),
                "to_move": game.to_move,
                "result": game.result_json,
                "created_at": game.created_at,
                "last_activity": game.last_activity_at,
                **core.table_json(game),
            },
            "view": view,
            "spectators": await core.hub.presence_count(game_channel(game.id)),
            "you": _you(game, visitor),
        }

    async def _seat_ratings(
        self, game: Game, owners: dict[str, Owner]
    ) -> list[SeatRatingJson | None]:
        """Each seat's current rating in the game (seat 1 first; None for an empty seat): a
        rated game's seats are accounts, and one that never played this game rated has the
        starting rating."""
        accounts = [
            owners.get(pid) if pid is not None else None
            for pid in (game.player1_id, game.player2_id)
        ]
        ids = [owner[0] for owner in accounts if owner is not None]
        async with self.core.sessions() as session:
            found = await player_reads.ratings_in(session, game.slug, ids) if ids else {}
        entries: list[SeatRatingJson | None] = []
        for seat, owner in enumerate(accounts, start=1):
            if owner is None:
                entries.append(None)
                continue
            row = found.get(owner[0])
            rating = (
                Glicko(row.rating, row.deviation, row.volatility) if row is not None else Glicko()
            )
            entries.append(
                {
                    "seat": seat,
                    "account": owner[1],
                    "rating": round(rating.rating),
                    "deviation": round(rating.deviation),
                    "provisional": rating.provisional,
                }
            )
        return entries

    async def catchup(
        self, game_id: str, since: int, visitor: Visitor | None, token: str | None
    ) -> CatchupJson | None:
        """The events after ``since`` and the current state, or None when a snapshot is due.

        The game row, its events and its moves are read in one snapshot of the database, and
        ``version`` is that row's: the socket forwards only later events, so none comes twice.
        """
        core = self.core
        async with core.consistent() as session:
            game = await core.visible(session, game_id, visitor, token)
            if since > game.version or game.version - since > core.settings.ws_resync_gap:
                return None
            events = await reads.events_between(session, game_id, since, game.version)
            position = await core.position(session, game)
        return {
            "since": since,
            "version": game.version,
            "events": [{"version": e.version, "kind": e.kind, "data": e.payload} for e in events],
            "state": core.state_json(game, position),
            "spectators": await core.hub.presence_count(game_channel(game.id)),
            "you": _you(game, visitor),
        }

    async def card(self, game_id: str, visitor: Visitor, token: str | None) -> GameCard:
        """What a link to the game page says of it (its Open Graph tags), if the visitor may see
        the game; ``game_not_found`` otherwise (the game page's 404: one row read, no position)."""
        async with self.core.sessions() as session:
            game = await self.core.visible(session, game_id, visitor, token)
        return game_card(game)

    async def seat_of(self, game_id: str, visitor: Visitor) -> int | None:
        """The visitor's seat in a game, if any."""
        async with self.core.sessions() as session:
            game = await self.core.load(session, game_id)
        return game.seat_of(visitor.id)

    async def record(self, game_id: str, visitor: Visitor | None, token: str | None) -> RecordJson:
        """The game's record (``hexmoot-record/1``)."""
        core = self.core
        async with core.sessions() as session:
            game = await core.visible(session, game_id, visitor, token)
            position = await core.position(session, game)
            clocks = (
                await reads.move_clocks(session, game.id, game.ply_count)
                if game.time_control
                else None
            )
        return record_json(position.rules, game, position.moves, clocks)

    async def abstractplay(
        self, game_id: str, visitor: Visitor | None, token: str | None
    ) -> dict[str, Any]:
        """A finished game as Abstract Play's game record (:mod:`app.domain.abstractplay`);
        ``game_not_over`` for a game not finished (a cancelled one never is)."""
        core = self.core
        async with core.sessions() as session:
            game = await core.visible(session, game_id, visitor, token)
            if game.status != "finished" or game.finished_at is None:
                raise AppError(
                    ErrorCode.GAME_NOT_OVER,
                    "Only a finished game has an Abstract Play record",
                )
            position = await core.position(session, game)
            movers = await reads.move_seats(session, game.id, game.ply_count)
        owners = await core.owners(seat_ids(game))
        seats = {}
        for seat, player_id, name in (
            (1, game.player1_id, game.player1_name),
            (2, game.player2_id, game.player2_name),
        ):
            owned = owners.get(player_id) if player_id else None
            seats[seat] = abstractplay.Seat(name or "", owned[1] if owned else None)
        assert game.result_json is not None  # a finished game has its result
        return abstractplay.record(
            game_id=game.id,
            title=position.rules.title,
            options=position.rules.options,
            rated=game.rated,
            pied=game.pie_taken,
            created_at=game.created_at,
            finished_at=game.finished_at,
            generated_at=core.clock.now(),
            seats=seats,
            result=game.result_json,
            texts=position.moves,
            movers=movers,
        )

    def idle_cutoff(self) -> int:
        """The last-activity stamp before which a game is too idle for the open and live lists."""
        core = self.core
        return idle_cutoff(core.clock.now(), core.settings.live_idle_after)

    async def open_games(
        self, visitor: Visitor | None = None, fresh: bool = False
    ) -> list[OpenGameJson]:
        """Public games waiting for an opponent (``fresh``: only those created within
        ``LIVE_IDLE_AFTER``, as the lobby lists them); ``yours`` marks those ``visitor`` created
        (and sits in). ``GET /api/games/open`` lists them all: the game page finds a public game's
        join token there, however long it has waited."""
        async with self.core.sessions() as session:
            rows = await reads.open_games(session, self.idle_cutoff() if fresh else None)
        owners = await self.core.owners(seat_ids(*rows))
        return [open_entry(g, owners, visitor) for g in rows]

    async def live_games(self) -> list[LiveEntryJson]:
        """Public games in progress that moved within ``LIVE_IDLE_AFTER``, with a view each for a
        mini board."""
        core = self.core
        async with core.sessions() as session:
            rows = await reads.live_games(session, self.idle_cutoff())
            positions = [await core.position(session, g) for g in rows]
        owners = await core.owners(seat_ids(*rows))
        return [core.live_entry(g, p, owners) for g, p in zip(rows, positions, strict=True)]

    async def live_list(self, visitor: Visitor | None) -> LiveListJson:
        """The first message of ``/ws/live`` (and its resync): the live games, the open games, and
        what a client needs to age them by itself (the server's time, the idle cut-off)."""
        return {
            "type": "live",
            "games": await self.live_games(),
            "open": await self.open_games(visitor, fresh=True),
            "now": self.core.clock.now(),
            "idle_after": self.core.settings.live_idle_after,
        }

    async def replay(
        self, game: object, options: object, moves: list[str], first: int, count: int
    ) -> bytes:
        """The views after plies ``first`` .. ``first + count - 1`` of ``moves`` (ply 0: before any
        move), for review: at most ``REPLAY_MAX_VIEWS`` views and ``REPLAY_MAX_BYTES`` of them,
        replayed by the rules runner (a worker, under ``REPLAY_TIMEOUT``); ``next`` is the ply of
        the first view left out. ``invalid_record`` names the first bad ply, as for an import.

        The answer is ``ReplayOut`` already encoded: the worker encoded the views, so the event
        loop only joins texts."""
        total = len(moves) + 1
        if first >= total:
            raise AppError(
                ErrorCode.INVALID_REQUEST,
                f"from must be at most {len(moves)} (the number of moves), not {first}",
                field="from",
            )
        record: dict[str, Any] = {"format": REPLAY_FORMAT, "game": game, "options": options}
        try:
            rules = self.core.rules.record_rules(record)
            page = await self.core.rules.views(
                rules,
                moves,
                first,
                min(count, REPLAY_MAX_VIEWS),
                REPLAY_MAX_BYTES,
                time_limit=self.core.settings.replay_timeout,
            )
        except RecordError as exc:
            raise AppError(ErrorCode.INVALID_RECORD, str(exc), ply=exc.ply) from exc
        head = json.dumps({"from": page.first})[:-1]
        tail = json.dumps({"next": page.next, "total": total})[1:]
        return f'{head}, "views": {page.views_json}, {tail}'.encode()


def open_entry(
    game: Game, owners: Mapping[str, Owner], visitor: Visitor | None = None
) -> OpenGameJson:
    """A game of the open list (``GET /api/games/open``, the live socket's ``open``);
    ``owners``: its seats' accounts (:meth:`Core.owners`)."""
    return {
        "id": game.id,
        "game": game.slug,
        "title": title(game.slug),
        "options": game.options,
        "players": players_json(game, owners),
        "created_at": game.created_at,
        "join_token": game.join_token,
        "rated": bool(game.rated),
        "time": TimeControl.stored(game.time_control).label(),
        "yours": visitor is not None
        and game.creator_id == visitor.id
        and game.seat_of(visitor.id) is not None,
    }


def _you(game: Game, visitor: Visitor | None) -> YouJson:
    """The visitor's seat in ``game`` (None for a spectator) and name."""
    if visitor is None:
        return {"seat": None, "name": None}
    return {"seat": game.seat_of(visitor.id), "name": visitor.name}


def _invitation(
    game: Game, players: list[PlayerJson], colours: SeatColours
) -> InvitationJson | None:
    """What an invitation says while the game waits for its second player: who invites (the
    seated creator, with its account), the seat the joiner will take, and that seat's colour
    (None while the pie rule has not settled colours). None once both seats are taken."""
    if game.status != "waiting":
        return None
    seated = [p for p in players if p["name"] is not None]
    empty = [p["seat"] for p in players if p["name"] is None]
    if len(seated) != 1 or len(empty) != 1:
        return None
    seat = empty[0]
    return {
        "by": seated[0],
        "seat": seat,
        "colour": colours.get("1") if seat == 1 else colours.get("2"),
    }


def record_json(
    rules: Rules[Any, Any],
    game: Game,
    moves: Sequence[str],
    clocks: Sequence[dict[str, int] | None] | None,
) -> RecordJson:
    """A game's ``hexmoot-record/1``: its game and options (as ``rules`` names them today), the
    seats taken, its ``moves``, its stored result (server reasons included), and a timed game's
    control and each ply's ``clocks`` (the mover's seat and time left, None before they ran)."""
    players: list[Stored] = [
        {"seat": seat, "name": name}
        for seat, name in ((1, game.player1_name), (2, game.player2_name))
        if name
    ]
    record: RecordJson = {
        "format": "hexmoot-record/1",
        "game": rules.slug,
        "options": rules.options,
        "players": players,
        "moves": list(moves),
        "result": game.result_json,
    }
    if game.time_control:
        record["time_control"] = game.time_control
        record["clocks"] = list(clocks or [])
    return record


def export_line(
    rules: Rules[Any, Any], game: Game, plies: Sequence[tuple[str, int, int | None]]
) -> dict[str, Any]:
    """A finished game as the export and the dumps write it: its id, when it finished, and its
    record, from its ``plies`` (each one's text, mover's seat and time left after it)."""
    played = plies[: game.ply_count]
    texts = [text for text, _, _ in played]
    clocks = [None if left is None else {"seat": seat, "left": left} for _, seat, left in played]
    record = record_json(rules, game, texts, clocks)
    return {"id": game.id, "finished_at": game.finished_at, "record": record}


@dataclass(frozen=True)
class GameCard:
    """A game as a shared link shows it: ``title`` ("Valaturna: Ann vs Bo") and a sentence."""

    title: str
    description: str
    #: The plies played: the picture of the link shows the position after them.
    ply: int = 0


def game_card(game: Game) -> GameCard:
    """The card of ``game``: its players, and where it stands or how it ended, in words.

    >>> row = Game(slug="valaturna", player1_name="Ann", player2_name="Bo", status="finished",
    ...            result="2", ply_count=41)
    >>> game_card(row)
    GameCard(title='Valaturna: Ann vs Bo', description='Bo beat Ann in 41 plies.', ply=41)
    >>> game_card(Game(slug="jotun", player1_name="Ann", player2_name=None, status="waiting",
    ...                ply_count=0)).description
    'Ann is waiting for an opponent.'
    """
    names = {1: game.player1_name, 2: game.player2_name}
    seated = [name for name in names.values() if name]
    heading = f"{title(game.slug)}: {' vs '.join(seated)}" if seated else title(game.slug)
    plies = f"{game.ply_count} {'ply' if game.ply_count == 1 else 'plies'}"
    if game.status == "waiting":
        description = f"{seated[0] if seated else 'A player'} is waiting for an opponent."
    elif game.status == "active":
        description = f"In play: {plies} so far."
    elif game.result in ("1", "2"):
        winner = int(game.result)
        description = f"{names[winner]} beat {names[3 - winner]} in {plies}."
    elif game.result == "draw":
        description = f"Drawn after {plies}."
    else:
        description = f"Ended without a result after {plies}."
    return GameCard(heading, description, game.ply_count or 0)
