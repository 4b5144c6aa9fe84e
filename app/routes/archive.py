"""The archive's reads (``docs/protocol.md``, "Archive"): the filtered, sorted, paged list, the
final positions of its games for mini boards, and accounts by the start of a username. The import
is in :mod:`app.routes.api`.

Every parameter is checked here, before the database is asked anything: a malformed one, or one
this API does not know, is 422 ``bad_filter`` naming it.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Annotated, Any, get_args

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import StreamingResponse

from app.deps import ServiceDep
from app.errors import AppError, ErrorCode, excerpt
from app.identity import name_key
from app.parsing import natural
from app.repository.archive import SORT_KEYS, ArchiveFilter, Cursor, Sort
from app.runtime.hub import encode
from app.runtime.limiter import rate_limited
from app.runtime.rules import catalogue
from app.schemas import error_responses
from app.schemas.outgoing import ArchiveJson
from app.schemas.responses import ArchiveBoardsOut, ArchiveOut, ArchivePlayersOut
from app.services import installed

router = APIRouter()

# What a game id can be (the database is never asked about anything else, a NUL byte say).
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,16}")
_GUEST = re.compile(r"[0-9a-f]{32}")
_POSITION = re.compile(r"[A-Za-z0-9_-]{16}")  # an explorer position key (games.symmetry)
_TIME = re.compile(
    r"unlimited|realtime|correspondence|realtime:\d{1,6}:\d{1,6}|correspondence:\d{1,3}"
)
#: The filters of ``GET /api/archive`` and ``GET /api/archive/export``.
FILTERS = frozenset(
    {
        "game",
        "options",
        "player",
        "account",
        "guest",
        "opponent",
        "opponent_guest",
        "result",
        "colour",
        "pie",
        "first_move",
        "min_moves",
        "max_moves",
        "from",
        "to",
        "rated",
        "time",
        "imported",
        "bot",
        "position",
    }
)
#: The parameters of ``GET /api/archive``; any other is refused (a typo is no silent "any").
PARAMETERS = FILTERS | {"sort", "limit", "cursor"}
#: The parameters of ``GET /api/archive/export``: the filters and where to start.
EXPORT_PARAMETERS = FILTERS | {"since"}
COLOURS = ("black", "white", "red")
MAX_MOVES = 100_000
YES_NO = {"true": True, "false": False}


def _refuse(field: str, message: str) -> AppError:
    return AppError(ErrorCode.BAD_FILTER, message, field=field)


def _time_filter(name: str, raw: str | None) -> int | None:
    """Epoch milliseconds from ``raw`` (ASCII digits the database can hold, or an ISO date)."""
    if raw is None or raw == "":
        return None
    refusal = _refuse(
        name, f"{name} must be an ISO date or epoch milliseconds (0 to 2^63-1), not {raw[:40]!r}"
    )
    stamp = natural(raw)
    if stamp is not None:
        return stamp
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        raise refusal from None
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)


def encode_cursor(sort: Sort, key: Cursor) -> str:
    """The opaque cursor of an archive position in ``sort``'s order (the newest-first one is
    ``finished_at:id``, as before there were sorts, so its old cursors still work)."""
    values = ":".join(str(v) for v in key)
    text = values if sort == "newest" else f"{sort}:{values}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(raw: str, sort: Sort, field: str | None = None) -> Cursor:
    """The archive position of a cursor of ``sort``; ``bad_cursor`` (naming ``field``, if given)
    if it is not one this server gave for that sort."""
    refusal = AppError(
        ErrorCode.BAD_CURSOR,
        f"{excerpt(raw)} is not a cursor of this archive sorted by {sort}",
        field=field,
    )
    try:
        text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode()
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise refusal from None
    parts = text.split(":")
    if sort != "newest":
        if parts[0] != sort:
            raise refusal
        parts = parts[1:]
    names = SORT_KEYS[sort][0]
    if len(parts) != len(names) or _GAME_ID.fullmatch(parts[-1]) is None:
        raise refusal
    numbers = [natural(p) for p in parts[:-1]]
    if any(n is None for n in numbers):
        raise refusal
    return (*numbers, parts[-1])


def _yes_no(field: str, raw: str | None) -> bool | None:
    if raw is None or raw == "":
        return None
    if raw not in YES_NO:
        raise _refuse(field, f"{field} must be true or false, not {excerpt(raw)}")
    return YES_NO[raw]


def _moves(field: str, raw: str | None) -> int | None:
    if raw is None or raw == "":
        return None
    value = natural(raw)
    if value is None or value > MAX_MOVES:
        raise _refuse(
            field, f"{field} must be a number of moves, 0 to {MAX_MOVES}, not {excerpt(raw)}"
        )
    return value


def _options_key(game: str | None, raw: str) -> str:
    """``raw`` (``size=5,variant=dense``, in any order) as the stored key of one of ``game``'s
    option sets; ``bad_filter`` unless it names a value the catalogue offers for every option."""
    info = next((g for g in catalogue() if g["slug"] == game), None)
    if info is None:
        raise _refuse("options", "an option set needs its game (the game filter)")
    wanted = {o["name"]: [str(c) for c in o["choices"]] for o in info["options"]}
    form = ",".join(f"{name}=<{'|'.join(choices)}>" for name, choices in wanted.items())
    pairs = dict(p.partition("=")[::2] for p in raw.split(",")) if raw else {}
    if set(pairs) != set(wanted) or any(v not in wanted[k] for k, v in pairs.items()):
        raise _refuse("options", f"options of {game} are {form}, not {excerpt(raw)}")
    return ",".join(f"{name}={pairs[name]}" for name in sorted(pairs))


def _text(field: str, raw: str | None, longest: int) -> str | None:
    if raw is None:
        return None
    if not 1 <= len(raw) <= longest or not raw.isprintable():
        raise _refuse(field, f"{field} must be 1 to {longest} printable characters")
    return raw


async def archive_filters(
    request: Request,
    service: ServiceDep,
    game: str | None = None,
    options: str | None = None,
    player: str | None = None,
    account: str | None = None,
    guest: str | None = None,
    opponent: str | None = None,
    opponent_guest: str | None = None,
    result: str | None = None,
    colour: str | None = None,
    pie: str | None = None,
    first_move: str | None = None,
    min_moves: str | None = None,
    max_moves: str | None = None,
    start: Annotated[str | None, Query(alias="from")] = None,
    end: Annotated[str | None, Query(alias="to")] = None,
    rated: str | None = None,
    time: str | None = None,
    imported: str | None = None,
    bot: str | None = None,
    position: str | None = None,
) -> ArchiveFilter:
    """The archive's filters, each checked (``bad_filter`` naming the first at fault); the sort
    is the route's. ``account`` (a username) or ``guest`` (a guest's player id) finds one player
    identity's games, and ``opponent`` or ``opponent_guest`` with it those against another.
    A parameter the route does not take is refused first (a typo is no silent "any")."""
    export = request.url.path == "/api/archive/export"
    _known(request, EXPORT_PARAMETERS if export else PARAMETERS)
    if game is not None and game not in installed():
        raise _refuse("game", f"unknown game {excerpt(game)}")
    if result is not None and result not in ("1", "2", "draw"):
        raise _refuse("result", f"result must be 1, 2 or draw, not {excerpt(result)}")
    if colour is not None and colour not in COLOURS:
        raise _refuse(
            "colour", f"colour must be one of {', '.join(COLOURS)}, not {excerpt(colour)}"
        )
    if pie is not None and pie not in ("taken", "declined"):
        raise _refuse("pie", f"pie must be taken or declined, not {excerpt(pie)}")
    if time is not None and _TIME.fullmatch(time) is None:
        raise _refuse(
            "time",
            "time must be unlimited, realtime, correspondence, realtime:<base s>:<increment s>"
            f" or correspondence:<days>, not {excerpt(time)}",
        )
    if player is not None and not 1 <= len(player.strip()) <= 24:
        raise _refuse("player", "player must be a name of 1 to 24 characters")
    if player is not None and not player.isprintable():
        raise _refuse("player", "player cannot hold control characters")
    for field, value in (("account", account), ("opponent", opponent)):
        if value is not None and not (1 <= len(value) <= 100 and value.isprintable()):
            raise _refuse(field, f"{field} must be a username")
    for field, value in (("guest", guest), ("opponent_guest", opponent_guest)):
        if value is not None and _GUEST.fullmatch(value) is None:
            raise _refuse(field, f"{field} must be a guest's id (32 hex digits)")
    if account is not None and guest is not None:
        raise _refuse("guest", "give account or guest, not both")
    if opponent is not None and opponent_guest is not None:
        raise _refuse("opponent_guest", "give opponent or opponent_guest, not both")
    if (opponent or opponent_guest) and not (account or guest):
        raise _refuse(
            "opponent" if opponent else "opponent_guest",
            "head to head needs the first player too (account or guest)",
        )
    move = _text("first_move", first_move, 200)
    if move is not None and game is None:
        raise _refuse("first_move", "a first move needs its game (the game filter)")
    if position is not None and _POSITION.fullmatch(position) is None:
        raise _refuse(
            "position", f"position must be an explorer position key, not {excerpt(position)}"
        )
    if position is not None and (game is None or options is None):
        raise _refuse("position", "a position needs its game and options (the explorer's)")
    fewest, most = _moves("min_moves", min_moves), _moves("max_moves", max_moves)
    if fewest is not None and most is not None and fewest > most:
        raise _refuse("min_moves", "min_moves is above max_moves; swap them")
    filters = ArchiveFilter(
        player_ids=await service.archiving.identity(account, guest),
        opponent_ids=await service.archiving.identity(opponent, opponent_guest),
        game=game,
        options=_options_key(game, options) if options is not None else None,
        player=name_key(player.strip()) if player else None,
        result=result,
        colour=colour,
        pie_taken=None if pie is None else pie == "taken",
        first_move=move,
        min_length=fewest,
        max_length=most,
        start=_time_filter("from", start),
        end=_time_filter("to", end),
        rated=_yes_no("rated", rated),
        time=time,
        imported=_yes_no("imported", imported),
        bot=_yes_no("bot", bot),
        position=position,
    )
    if filters.start is not None and filters.end is not None and filters.start > filters.end:
        raise _refuse("from", "the from date is after the to date; swap them")
    return filters


Filters = Annotated[ArchiveFilter, Depends(archive_filters)]


def _known(request: Request, parameters: frozenset[str]) -> None:
    """``bad_filter`` naming the first query parameter not in ``parameters``."""
    for name in request.query_params:
        if name not in parameters:
            field = name[:40] if name.isprintable() else excerpt(name)
            raise _refuse(field, f"the archive has no filter {excerpt(name)}")


@router.get("/api/archive", response_model=ArchiveOut, responses=error_responses(422))
async def archive(
    service: ServiceDep,
    filters: Filters,
    sort: str = "newest",
    limit: str = "20",
    cursor: str | None = None,
) -> ArchiveJson:
    """Finished public games, filtered (:func:`archive_filters`), sorted and cursor-paginated."""
    if sort not in get_args(Sort):
        raise _refuse(
            "sort", f"sort must be newest, oldest, longest or shortest, not {excerpt(sort)}"
        )
    size = natural(limit)
    if size is None or not 1 <= size <= 100:
        raise _refuse("limit", f"limit must be 1 to 100, not {excerpt(limit)}")
    filters = replace(filters, sort=sort)  # type: ignore[arg-type]  # checked against Sort above
    after = decode_cursor(cursor, filters.sort) if cursor else None
    entries, last = await service.archiving.archive(filters, after, size)
    return {
        "games": entries,
        "next_cursor": encode_cursor(filters.sort, last) if last else None,
    }


@router.get(
    "/api/archive/export",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"application/x-ndjson": {}},
            "description": "a line per game, oldest first, then a line with the next cursor",
        },
        **error_responses(422, 429),
    },
    dependencies=[Depends(rate_limited("export per visitor", "export per IP"))],
)
async def export(
    service: ServiceDep, filters: Filters, since: str | None = None
) -> StreamingResponse:
    """The finished public games ``filters`` find, as NDJSON, oldest first: each game's record,
    at most ``EXPORT_MAX`` of them, then ``{"next": ...}`` to go on from (docs/protocol.md)."""
    after: Cursor | None = None
    if since is not None:
        ms = natural(since)
        if ms is not None and ms < 2**63:  # epoch ms: the games finished after it
            after = (ms, "~")  # "~" sorts after every character of a game id
        else:
            after = decode_cursor(since, "oldest", field="since")
    games = service.archiving.export(replace(filters, sort="oldest"), after)

    async def lines() -> AsyncIterator[str]:
        last: Cursor | None = None
        async for line, after_it in games:
            yield line
            last = after_it
        # Where to go on from: after the last game sent, else where this export started.
        yield encode({"next": encode_cursor("oldest", last) if last else since}) + "\n"

    return StreamingResponse(
        lines(),
        media_type="application/x-ndjson",
        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
    )


@router.get("/api/archive/boards", response_model=ArchiveBoardsOut, responses=error_responses(422))
async def boards(
    service: ServiceDep, id: Annotated[list[str] | None, Query()] = None
) -> dict[str, Any]:
    """The final position of each game asked (``?id=...&id=...``, 1 to 100), for mini boards."""
    ids = id or []
    if not 1 <= len(ids) <= 100:
        raise _refuse("id", f"ask for 1 to 100 games, not {len(ids)}")
    for game_id in ids:
        if _GAME_ID.fullmatch(game_id) is None:
            raise _refuse("id", f"{excerpt(game_id)} is not a game id")
    return {"boards": await service.archiving.boards(ids)}


@router.get(
    "/api/archive/players", response_model=ArchivePlayersOut, responses=error_responses(422)
)
async def players(service: ServiceDep, prefix: str = "") -> dict[str, Any]:
    """Up to 10 accounts whose username starts with ``prefix`` (1 to 24 characters, any case)."""
    if not 1 <= len(prefix) <= 24 or not prefix.isprintable():
        raise _refuse("prefix", "prefix must be 1 to 24 printable characters")
    return {"players": await service.archiving.players(prefix)}
