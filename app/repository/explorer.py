"""The opening explorer's statements (issue 28): the upsert a finishing game adds to its result's
transaction, the reads of one position, and the rebuild's.

A finished game adds one to the counts of every position it reached within the first
:data:`DEPTH` plies and of every continuation it played from them, as
``INSERT ... ON CONFLICT DO UPDATE SET n = n + excluded.n`` on SQLite and PostgreSQL alike: no
read, so two games finishing at once cannot lose a count. A position a game reached twice (a
repetition) counts once for that game, as does a continuation it played twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, delete, func, select, union_all
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ExplorerGame, ExplorerMove, ExplorerPosition, Game, Move

#: How many plies from the start the explorer indexes.
DEPTH = 24
COUNTS = ("games", "first_wins", "second_wins", "draws", "length")


@dataclass(frozen=True)
class Explored:
    """One finished game as the explorer counts it: its position keys (ply 0 first, at most
    ``DEPTH + 1``), the moves between them, and how it ended (``outcome``: 0 or 1, the index of
    the winner's colour; ``"draw"``; None for a win with no colour)."""

    slug: str
    options_key: str
    game_id: str
    finished_at: int
    keys: tuple[str, ...]
    moves: tuple[str, ...]
    length: int
    outcome: int | str | None

    def counts(self) -> dict[str, int]:
        """The counts this game adds to each row it touches."""
        return {
            "games": 1,
            "first_wins": int(self.outcome == 0),
            "second_wins": int(self.outcome == 1),
            "draws": int(self.outcome == "draw"),
            "length": self.length,
        }

    def rows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        """The rows of positions, continuations and games this game adds (each key once)."""
        where = {"slug": self.slug, "options_key": self.options_key}
        counts = self.counts()
        positions: dict[str, dict[str, Any]] = {}
        games: dict[str, dict[str, Any]] = {}
        for ply, key in enumerate(self.keys):
            positions.setdefault(key, {**where, "position": key, **counts})
            games.setdefault(
                key,
                {
                    **where,
                    "position": key,
                    "finished_at": self.finished_at,
                    "game_id": self.game_id,
                    "ply": ply,
                },
            )
        moves: dict[tuple[str, str], dict[str, Any]] = {}
        for ply, text in enumerate(self.moves[: len(self.keys) - 1]):
            parent, child = self.keys[ply], self.keys[ply + 1]
            row = moves.setdefault(
                (parent, child),
                {**where, "position": parent, "child": child, "move": text, **counts},
            )
            row["move"] = min(row["move"], text)
        return list(positions.values()), list(moves.values()), list(games.values())

    def __call__(self, conn: Connection) -> None:
        """Add this game's counts (inside the caller's transaction)."""
        add_counts(conn, [self])


def add_counts(conn: Connection, explored: Sequence[Explored]) -> None:
    """Upsert the counts of ``explored`` (games of any game and option set): summed per row in
    Python first, so one statement never names a row twice."""
    positions: dict[tuple[str, ...], dict[str, Any]] = {}
    moves: dict[tuple[str, ...], dict[str, Any]] = {}
    games: list[dict[str, Any]] = []
    for one in explored:
        p_rows, m_rows, g_rows = one.rows()
        _sum_into(positions, p_rows, ("slug", "options_key", "position"))
        _sum_into(moves, m_rows, ("slug", "options_key", "position", "child"))
        games.extend(g_rows)
    dialect = conn.dialect.name
    if positions:
        conn.execute(_upsert(ExplorerPosition, dialect), list(positions.values()))
    if moves:
        conn.execute(_upsert(ExplorerMove, dialect), list(moves.values()))
    if games:
        conn.execute(_insert_games(dialect), games)


def _sum_into(
    into: dict[tuple[str, ...], dict[str, Any]], rows: list[dict[str, Any]], key: tuple[str, ...]
) -> None:
    for row in rows:
        k = tuple(row[name] for name in key)
        if k in into:
            for name in COUNTS:
                into[k][name] += row[name]
            if "move" in row:
                into[k]["move"] = min(into[k]["move"], row["move"])
        else:
            into[k] = dict(row)


def _upsert(table: type[ExplorerPosition] | type[ExplorerMove], dialect: str) -> Any:
    """``INSERT ... ON CONFLICT (primary key) DO UPDATE SET n = n + excluded.n`` for each count.
    A continuation keeps the least of the texts its games wrote (the same move in different
    orientations), so the rows never depend on the order in which games were counted."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(table)
    columns = table.__table__.c
    keys = [c.name for c in table.__table__.primary_key]
    values: dict[str, Any] = {name: columns[name] + statement.excluded[name] for name in COUNTS}
    if table is ExplorerMove:
        old, new = columns["move"], statement.excluded["move"]
        if dialect == "postgresql":  # in code point order, as Python's min and SQLite's
            values["move"] = func.least(old.collate("C"), new.collate("C"))
        else:
            values["move"] = func.min(old, new)
    return statement.on_conflict_do_update(index_elements=keys, set_=values)


def _insert_games(dialect: str) -> Any:
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(ExplorerGame).on_conflict_do_nothing()


def clear(conn: Connection) -> None:
    """Empty the explorer (the rebuild's first step)."""
    for table in (ExplorerGame, ExplorerMove, ExplorerPosition):
        conn.execute(delete(table))


# --- reads -----------------------------------------------------------------------------------


async def position(
    session: AsyncSession, slug: str, options_key: str, key: str
) -> dict[str, int] | None:
    """The counts of one position, or None if no finished game reached it."""
    row = (await session.execute(position_query(slug, options_key, key))).first()
    return None if row is None else dict(zip(COUNTS, row, strict=True))


def position_query(slug: str, options_key: str, key: str) -> Any:
    """The SELECT of one position's counts (its primary key)."""
    return select(*(getattr(ExplorerPosition, n) for n in COUNTS)).where(
        ExplorerPosition.slug == slug,
        ExplorerPosition.options_key == options_key,
        ExplorerPosition.position == key,
    )


async def children(
    session: AsyncSession, slug: str, options_key: str, key: str, limit: int
) -> list[dict[str, Any]]:
    """The continuations played from one position, most played first (at most ``limit``)."""
    query = children_query(slug, options_key, key, limit)
    return [dict(row._mapping) for row in await session.execute(query)]


def children_query(slug: str, options_key: str, key: str, limit: int) -> Any:
    """The SELECT of a position's continuations: a range of the primary key, sorted by games."""
    return (
        select(ExplorerMove.child, ExplorerMove.move, *(getattr(ExplorerMove, n) for n in COUNTS))
        .where(
            ExplorerMove.slug == slug,
            ExplorerMove.options_key == options_key,
            ExplorerMove.position == key,
        )
        .order_by(ExplorerMove.games.desc(), ExplorerMove.child)
        .limit(limit)
    )


async def recent_games(
    session: AsyncSession, slug: str, options_key: str, wanted: Mapping[str, int]
) -> dict[str, list[dict[str, Any]]]:
    """The newest games that reached each position key of ``wanted`` (as many as it says), with
    their players and result: key -> games. One statement: a UNION ALL of each key's own index
    range, newest first and cut at its number (a window over a position's games would read them
    all)."""
    out: dict[str, list[dict[str, Any]]] = {key: [] for key in wanted}
    if not wanted:
        return out
    for row in await session.execute(recent_query(slug, options_key, wanted)):
        found = dict(row._mapping)
        out[found.pop("position")].append(found)
    for games in out.values():  # each part's order is not the union's: newest first again
        games.sort(key=lambda g: (g["finished_at"], g["game_id"]), reverse=True)
    return out


def recent_query(slug: str, options_key: str, wanted: Mapping[str, int]) -> Any:
    """The UNION ALL of :func:`recent_games`: per key, a range of ``explorer_games``' primary key
    read backwards, joined to ``games`` by its primary key."""
    parts = []
    for key, per_key in wanted.items():
        part = (
            select(
                ExplorerGame.position,
                ExplorerGame.game_id,
                ExplorerGame.ply,
                Game.player1_name,
                Game.player2_name,
                Game.result,
                Game.winner_colour,
                Game.length,
                Game.finished_at,
            )
            .join(Game, Game.id == ExplorerGame.game_id)
            .where(
                ExplorerGame.slug == slug,
                ExplorerGame.options_key == options_key,
                ExplorerGame.position == key,
            )
            .order_by(ExplorerGame.finished_at.desc(), ExplorerGame.game_id.desc())
            .limit(per_key)
            .subquery()
        )
        parts.append(select(part))
    return union_all(*parts)


def reached(slug: str, options_key: str, key: str) -> Any:
    """The archive's ``position`` filter: the condition joining ``games`` to the rows of
    ``explorer_games`` of one position (a game has one row per position it reached, so the join
    adds no row). The archive then reads the date order from ``explorer_games``
    (``app.repository.archive``), so a page newest or oldest first is a range of that position's
    primary key, each game found by its id, whether one game or all of them reached it. (Joined
    on the date too, PostgreSQL would multiply the two equalities' selectivities, expect one row,
    and hash the whole position to sort it.)"""
    return and_(
        ExplorerGame.slug == slug,
        ExplorerGame.options_key == options_key,
        ExplorerGame.position == key,
        ExplorerGame.game_id == Game.id,
    )


# --- the rebuild's reads (synchronous: a command, not the site) ------------------------------


def finished_batch(conn: Connection, after: str, limit: int) -> list[dict[str, Any]]:
    """The next ``limit`` finished public games by id after ``after``: what the explorer counts."""
    query = (
        select(
            Game.id,
            Game.slug,
            Game.options,
            Game.finished_at,
            Game.result_json,
            Game.ply_count,
            Game.length,
        )
        .where(Game.status == "finished", Game.public.is_(True), Game.id > after)
        .order_by(Game.id)
        .limit(limit)
    )
    return [dict(row._mapping) for row in conn.execute(query)]


def opening_moves(conn: Connection, ids: Sequence[str]) -> dict[str, list[str]]:
    """The first ``DEPTH`` moves of each game of ``ids``, in order."""
    query = (
        select(Move.game_id, Move.text)
        .where(Move.game_id.in_(ids), Move.ply <= DEPTH)
        .order_by(Move.game_id, Move.ply)
    )
    out: dict[str, list[str]] = {game_id: [] for game_id in ids}
    for game_id, text in conn.execute(query):
        out[game_id].append(text)
    return out


def total_games(conn: Connection) -> int:
    """How many games the explorer counts at its root positions (for the rebuild's report)."""
    return int(
        conn.execute(
            select(func.count()).select_from(ExplorerGame).where(ExplorerGame.ply == 0)
        ).scalar_one()
    )
