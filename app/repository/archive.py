"""The archive's reads: one page of finished public games under filters and a sort, keyset-paged;
the final moves of a page's games (for their mini boards); accounts by the start of a username.

Every filter has an index on ``games`` that starts with ``status`` and its column and ends with
the date order ``(finished_at, id)`` (``app/models.py``, migration ``3e8a6d2b7c51``), and the
length order has ``ix_games_archive_length``: a page reads its own rows, not the archive.
``tests/app/test_archive_browse.py`` prints and checks each filter's and each sort's plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import ColumnElement, and_, false, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Account, ExplorerGame, Game, Move
from app.repository.bots import BOT_PLAYER_IDS
from app.repository.explorer import reached

Sort = Literal["newest", "oldest", "longest", "shortest"]
#: Each sort's key, all in one direction (True: descending); the cursor holds these values.
SORT_KEYS: dict[Sort, tuple[tuple[str, ...], bool]] = {
    "newest": (("finished_at", "id"), True),
    "oldest": (("finished_at", "id"), False),
    "longest": (("length", "finished_at", "id"), True),
    "shortest": (("length", "finished_at", "id"), False),
}
#: Above every character: the end of a prefix's range in SQLite's binary order.
_LAST_CHARACTER = "\U0010ffff"


@dataclass(frozen=True)
class ArchiveFilter:
    """The archive's filters and its sort; None means "any"."""

    game: str | None = None
    options: str | None = None  # an options_key (with ``game``)
    player: str | None = None  # lowercased; a prefix of either seat's name key
    result: str | None = None  # "1", "2" or "draw"
    colour: str | None = None  # the winner's colour
    start: int | None = None  # finished_at >= start
    end: int | None = None  # finished_at < end
    # A player identity's ids (an account's players, or one guest): either seat is one of them;
    # with ``opponent_ids`` (head to head), the other seat is one of those.
    player_ids: tuple[str, ...] | None = None
    opponent_ids: tuple[str, ...] | None = None
    pie_taken: bool | None = None
    first_move: str | None = None  # with ``game``
    min_length: int | None = None
    max_length: int | None = None
    rated: bool | None = None
    time: str | None = None  # a time_key, or a kind ("realtime") for all of its controls
    imported: bool | None = None
    bot: bool | None = None  # a bot holds a seat (issue 29)
    # An explorer position key (with ``game`` and ``options``): the games that reached it within
    # the explorer's depth (issue 28, position search).
    position: str | None = None
    sort: Sort = "newest"


Cursor = tuple[Any, ...]


def _prefix(column: Any, prefix: str, dialect: str | None) -> ColumnElement[bool]:
    """``column`` starts with ``prefix``: a LIKE (the user's %, _ and ! matched literally),
    answered on PostgreSQL by the pattern indexes, and on SQLite by a range of its binary order
    beside it (SQLite's LIKE ignores case, so it uses no plain index)."""
    literal = prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_")
    like = column.like(literal + "%", escape="!")
    if dialect != "sqlite":
        return like  # type: ignore[no-any-return]
    return and_(column >= prefix, column < prefix + _LAST_CHARACTER, like)


def _dialect(session: AsyncSession) -> str:
    """The name of the session's database dialect (``sqlite``, ``postgresql``)."""
    return session.get_bind().dialect.name


#: With the position filter, the date order's columns are read from ``explorer_games`` (the join
#: makes them equal to the game's): a page newest or oldest first is then a range of that table's
#: primary key, however many games reached the position.
_EXPLORED = {"finished_at": ExplorerGame.finished_at, "id": ExplorerGame.game_id}


def _column(name: str, explored: bool) -> Any:
    """The column of a sort key: the game's, or (``explored``) the explorer row's date order."""
    return _EXPLORED[name] if explored and name in _EXPLORED else getattr(Game, name)


def _after(sort: Sort, cursor: Cursor, explored: bool = False) -> ColumnElement[bool]:
    """The rows after ``cursor`` in ``sort``'s order: a lexicographic comparison of its key."""
    names, descending = SORT_KEYS[sort]
    terms = []
    for i, name in enumerate(names):
        column = _column(name, explored)
        beyond = column < cursor[i] if descending else column > cursor[i]
        equal = [_column(n, explored) == cursor[j] for j, n in enumerate(names[:i])]
        terms.append(and_(*equal, beyond))
    return or_(*terms)


def against_bot(yes: bool) -> ColumnElement[bool]:
    """Games a bot holds a seat of (``yes``), or not: its player ids are fixed
    (``BOT_PLAYER_IDS``), so the players' indexes answer the first."""
    bots = BOT_PLAYER_IDS
    if yes:
        return or_(Game.player1_id.in_(bots), Game.player2_id.in_(bots))
    return and_(
        or_(Game.player1_id.is_(None), Game.player1_id.not_in(bots)),
        or_(Game.player2_id.is_(None), Game.player2_id.not_in(bots)),
    )


def archive_query(
    filters: ArchiveFilter, after: Cursor | None, limit: int, dialect: str | None = None
) -> Any:
    """The SELECT of one archive page in ``filters.sort``'s order, keyset-paged on its key.

    ``dialect`` (``sqlite``, ``postgresql``) picks how a name prefix is matched (:func:`_prefix`).
    """
    query = select(Game).where(Game.status == "finished", Game.public.is_(True))
    f = filters
    if f.game is not None:
        query = query.where(Game.slug == f.game)
    if f.options is not None:
        query = query.where(Game.options_key == f.options)
    if f.first_move is not None:
        query = query.where(Game.first_move == f.first_move)
    if f.result is not None:
        query = query.where(Game.result == f.result)
    if f.colour is not None:
        query = query.where(Game.winner_colour == f.colour)
    if f.player is not None:
        query = query.where(
            or_(
                _prefix(Game.player1_key, f.player, dialect),
                _prefix(Game.player2_key, f.player, dialect),
            )
        )
    if f.player_ids is not None and f.opponent_ids is not None:
        mine, theirs = f.player_ids, f.opponent_ids
        query = query.where(
            or_(
                and_(Game.player1_id.in_(mine), Game.player2_id.in_(theirs)),
                and_(Game.player1_id.in_(theirs), Game.player2_id.in_(mine)),
            )
        )
    elif f.player_ids is not None:
        ids = f.player_ids
        query = query.where(or_(Game.player1_id.in_(ids), Game.player2_id.in_(ids)))
    if f.pie_taken is not None:
        query = query.where(Game.pie_taken == (true() if f.pie_taken else false()))
    if f.min_length is not None:
        query = query.where(Game.length >= f.min_length)
    if f.max_length is not None:
        query = query.where(Game.length <= f.max_length)
    if f.rated is not None:
        query = query.where(Game.rated == (true() if f.rated else false()))
    if f.imported is not None:
        query = query.where(Game.imported == (true() if f.imported else false()))
    if f.bot is not None:
        query = query.where(against_bot(f.bot))
    explored = f.position is not None and f.game is not None and f.options is not None
    if explored:
        assert f.position is not None and f.game is not None and f.options is not None
        query = query.join(ExplorerGame, reached(f.game, f.options, f.position))
    if f.time is not None and ":" not in f.time and f.time != "unlimited":
        # a kind: every control of it, a range of the index (``realtime:`` up to ``realtime;``)
        query = query.where(Game.time_key >= f.time + ":", Game.time_key < f.time + ";")
    elif f.time is not None:
        query = query.where(Game.time_key == f.time)
    if f.start is not None:
        query = query.where(Game.finished_at >= f.start)
    if f.end is not None:
        query = query.where(Game.finished_at < f.end)
    if after is not None:
        query = query.where(_after(f.sort, after, explored))
    names, descending = SORT_KEYS[f.sort]
    columns = [_column(n, explored) for n in names]
    order = [c.desc() if descending else c for c in columns]
    return query.order_by(*order).limit(limit)


async def archive_page(
    session: AsyncSession, filters: ArchiveFilter, after: Cursor | None, limit: int
) -> Sequence[Game]:
    """Up to ``limit`` finished public games matching ``filters``, after the cursor ``after``."""
    result = await session.execute(archive_query(filters, after, limit, _dialect(session)))
    return result.scalars().all()


def cursor_of(game: Game, sort: Sort) -> Cursor:
    """The cursor after ``game`` in ``sort``'s order: the values of its key."""
    return tuple(getattr(game, name) or 0 for name in SORT_KEYS[sort][0])


async def finished_games(session: AsyncSession, ids: Sequence[str]) -> list[Game]:
    """The finished public games among ``ids`` (by primary key)."""
    result = await session.execute(
        select(Game).where(Game.id.in_(ids), Game.status == "finished", Game.public.is_(True))
    )
    return list(result.scalars())


async def moves_of(session: AsyncSession, ids: Sequence[str]) -> dict[str, list[str]]:
    """Each game's move texts in ply order, for the games ``ids`` (the (game, ply) key's index)."""
    result = await session.execute(
        select(Move.game_id, Move.text)
        .where(Move.game_id.in_(ids))
        .order_by(Move.game_id, Move.ply)
    )
    moves: dict[str, list[str]] = {game_id: [] for game_id in ids}
    for game_id, text in result:
        moves[game_id].append(text)
    return moves


async def plies_of(
    session: AsyncSession, ids: Sequence[str]
) -> dict[str, list[tuple[str, int, int | None]]]:
    """Each game's plies in order, for the games ``ids``: the text, the mover's seat and the time
    it had left after it (None where no clock ran)."""
    result = await session.execute(
        select(Move.game_id, Move.text, Move.seat, Move.clock_ms)
        .where(Move.game_id.in_(ids))
        .order_by(Move.game_id, Move.ply)
    )
    plies: dict[str, list[tuple[str, int, int | None]]] = {game_id: [] for game_id in ids}
    for game_id, text, seat, left in result:
        plies[game_id].append((text, seat, left))
    return plies


async def accounts_by_prefix(session: AsyncSession, prefix: str, limit: int) -> list[Account]:
    """Up to ``limit`` accounts whose username key (lowercased) starts with ``prefix``, A to Z."""
    result = await session.execute(
        select(Account)
        .where(_prefix(Account.username_key, prefix, _dialect(session)))
        .order_by(Account.username_key)
        .limit(limit)
    )
    return list(result.scalars())
