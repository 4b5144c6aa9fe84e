"""The statistics page's counters (``game_stats``, issue 28): the upsert a finished game adds,
the sums a page reads, and the rebuild from the archive.

The upsert is ``INSERT ... ON CONFLICT (key) DO UPDATE SET n = game_stats.n + excluded.n`` on
SQLite and PostgreSQL alike: the database adds, so two games finishing at once in two processes
both count, and no count is ever read to be written back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Game, GameStat

#: A counter's key past its game: (kind, bucket), and how much to add.
Increment = tuple[str, str, int]
_KEY = ("slug", "options_key", "imported", "kind", "bucket")
#: Rows written per INSERT by the rebuild.
REBUILD_BATCH = 1000


def _upsert(dialect: str) -> Any:
    """The dialect's ``INSERT ... ON CONFLICT DO UPDATE SET n = n + excluded.n``."""
    stmt = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(GameStat)
    return stmt.on_conflict_do_update(index_elements=_KEY, set_={"n": GameStat.n + stmt.excluded.n})


@dataclass(frozen=True)
class AddCounters:
    """Add ``increments`` to one game and option set's counters (a change the writer runs, in the
    transaction of the game's result)."""

    slug: str
    options_key: str
    imported: bool
    increments: tuple[Increment, ...]

    def __call__(self, conn: Connection) -> None:
        rows = [
            {
                "slug": self.slug,
                "options_key": self.options_key,
                "imported": self.imported,
                "kind": kind,
                "bucket": bucket,
                "n": n,
            }
            for kind, bucket, n in self.increments
        ]
        if rows:
            conn.execute(_upsert(conn.dialect.name), rows)


async def counters(
    session: AsyncSession, slug: str, options_key: str, imported: bool | None
) -> list[tuple[str, str, int]]:
    """One game and option set's counters as ``(kind, bucket, n)``, summed over played-here and
    imported games (``imported`` None) or of one of them; read by the primary key's prefix."""
    query = select(GameStat.kind, GameStat.bucket, func.sum(GameStat.n)).where(
        GameStat.slug == slug, GameStat.options_key == options_key
    )
    if imported is not None:
        query = query.where(GameStat.imported.is_(imported))
    query = query.group_by(GameStat.kind, GameStat.bucket)
    return [(k, b, int(n)) for k, b, n in (await session.execute(query)).all()]


def all_counters(conn: Connection) -> dict[tuple[str, str, bool, str, str], int]:
    """Every counter by its key (what the rebuild test compares)."""
    g = GameStat
    rows = conn.execute(select(g.slug, g.options_key, g.imported, g.kind, g.bucket, g.n)).all()
    return {(s, o, bool(i), k, b): int(n) for s, o, i, k, b, n in rows}


#: The columns of a finished game the counters read (``app.domain.stats.Finished``).
ARCHIVE_COLUMNS = (
    Game.slug,
    Game.options,
    Game.options_key,
    Game.imported,
    Game.finished_at,
    Game.length,
    Game.first_move,
    Game.pie_taken,
    Game.result,
    Game.reason,
)


# Written on every game the app finishes: a row without them (made by hand, or by a test of an old
# migration) is no finished game of the archive's and is not counted.
_WRITTEN_AT_THE_END = (Game.finished_at, Game.result, Game.length, Game.options_key)


def rebuild(
    conn: Connection,
    count: Callable[[Mapping[str, Any]], Iterable[Increment]],
    batch: int = 10_000,
) -> int:
    """Recompute every counter from the archive (its finished public games) in the caller's
    transaction: delete them all, then insert the sums of ``count`` (a game row's increments,
    ``app.services.stats.increments_of``). The games are read ``batch`` at a time by primary key,
    so memory holds the counters, not the archive. How many games were counted."""
    totals: Counter[tuple[str, str, bool, str, str]] = Counter()
    games = 0
    last = ""
    while True:
        rows = conn.execute(
            select(Game.id, *ARCHIVE_COLUMNS)
            .where(Game.status == "finished", Game.public.is_(True), Game.id > last)
            .where(*(column.is_not(None) for column in _WRITTEN_AT_THE_END))
            .order_by(Game.id)
            .limit(batch)
        ).all()
        for row in rows:
            values: Mapping[str, Any] = dict(row._mapping)
            for kind, bucket, n in count(values):
                totals[
                    values["slug"], values["options_key"], bool(values["imported"]), kind, bucket
                ] += n
        games += len(rows)
        if len(rows) < batch:
            break
        last = rows[-1].id
    conn.execute(delete(GameStat))
    rows_out = [dict(zip((*_KEY, "n"), (*key, n), strict=True)) for key, n in totals.items()]
    for start in range(0, len(rows_out), REBUILD_BATCH):
        conn.execute(insert(GameStat), rows_out[start : start + REBUILD_BATCH])
    return games


def increments_list(counts: Mapping[tuple[str, str], int]) -> tuple[Increment, ...]:
    """``{(kind, bucket): n}`` as the tuples :class:`AddCounters` takes, in a stable order."""
    return tuple((kind, bucket, n) for (kind, bucket), n in sorted(counts.items()))
