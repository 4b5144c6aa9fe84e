"""``python -m tests.load.stats [sqlite] [postgres]``: what a statistics answer costs at a million
games (issue 28). Figures, never pass or fail.

A fresh migrated database gets synthetic ``game_stats`` counters for about 900,000 games over
eight option sets and three years (months by colour and result, 400 lengths, six reasons, and
first moves: 61 to 127 for the games with one-cell setups, 3,000 for Harmijan and Valaturna,
whose setups are many), then reads one option set's counters and turns them into figures
(``app.domain.stats.figures``) 30 times each: the answer's work apart from the per-process cache
and the first moves' cells (a cached replay of one ply each). The counters do not grow with the
games, only with the months, lengths and first moves, so this is the cost at any archive size.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import async_sessionmaker

from app.db import make_engine
from app.domain import stats as domain
from app.models import GameStat
from app.repository.stats import counters
from tests.support.databases import fresh_database

#: (game, option set, distinct first moves)
OPTION_SETS = [
    ("jotun", "size=4", 61),
    ("jotun", "size=5", 91),
    ("jotun", "size=6", 127),
    ("sgolte", "size=6,variant=standard", 91),
    ("exxit", "variant=standard", 4),
    ("harmijan", "size=5", 3000),
    ("harmijan", "size=6", 3000),
    ("valaturna", "size=7", 2000),
]
READ = [("jotun", "size=5"), ("harmijan", "size=6")]
RUNS = 30


def synthetic(rng: random.Random) -> list[dict[str, object]]:
    """The counters of the option sets above, played here and imported."""
    rows: list[tuple[str, str, bool, str, str, int]] = []
    for slug, key, firsts in OPTION_SETS:
        for imported in (False, True):
            for year in (2024, 2025, 2026):
                for month in range(1, 13):
                    for colour in ("black", "white", "-"):
                        for result in ("1", "2", "draw"):
                            bucket = f"{year}-{month:02d}|{colour}|{result}"
                            rows.append(
                                (slug, key, imported, "month", bucket, rng.randint(50, 400))
                            )
            for length in range(1, 400):
                rows.append((slug, key, imported, "length", str(length), rng.randint(1, 400)))
            for reason in ("resignation", "timeout", "abandoned", "disconnect", "no-moves"):
                rows.append((slug, key, imported, "reason", reason, rng.randint(100, 20000)))
            for move in range(firsts):
                for result in ("1", "2"):
                    for pie in ("taken", "kept"):
                        bucket = f"{result}|{pie}|m{move}"
                        rows.append((slug, key, imported, "first", bucket, rng.randint(1, 300)))
    names = ("slug", "options_key", "imported", "kind", "bucket", "n")
    return [dict(zip(names, row, strict=True)) for row in rows]


async def measure(backend: str, url: str) -> None:
    """Fill ``url``'s database, then time the reads and print the figures."""
    engine = make_engine(url)
    rows = synthetic(random.Random(1))
    async with engine.begin() as conn:
        for start in range(0, len(rows), 5000):
            await conn.execute(sa.insert(GameStat), rows[start : start + 5000])
        if backend == "postgres":
            await conn.exec_driver_sql("ANALYZE game_stats")
    sessions = async_sessionmaker(engine, expire_on_commit=False)
    async with engine.connect() as conn:
        total = await conn.scalar(sa.text("SELECT sum(n) FROM game_stats WHERE kind = 'reason'"))
    print(f"{backend}: {len(rows)} counter rows for {total} games")
    for slug, key in READ:
        reads, figures = [], []
        for _ in range(RUNS):
            started = time.perf_counter()
            async with sessions() as session:
                got = await counters(session, slug, key, None)
            read = time.perf_counter()
            found = domain.figures(got, ["black", "white"], True)
            reads.append(read - started)
            figures.append(time.perf_counter() - read)
        print(
            f"  {slug} {key}: {len(got)} rows for {found['games']} games;"
            f" read median {statistics.median(reads) * 1000:.1f} ms (min {min(reads) * 1000:.1f},"
            f" max {max(reads) * 1000:.1f}); figures median"
            f" {statistics.median(figures) * 1000:.1f} ms (min {min(figures) * 1000:.1f})"
        )
    query = (
        "SELECT kind, bucket, sum(n) FROM game_stats WHERE slug = 'jotun'"
        " AND options_key = 'size=5' GROUP BY kind, bucket"
    )
    explain = "EXPLAIN QUERY PLAN " if backend == "sqlite" else "EXPLAIN "
    async with engine.connect() as conn:
        plan = [" ".join(str(c) for c in r) for r in await conn.execute(sa.text(explain + query))]
    print("  plan: " + " | ".join(plan))
    await engine.dispose()


def main(argv: list[str]) -> None:
    """Each backend named (default both) on a fresh database of its own."""
    for backend in argv or ["sqlite", "postgres"]:
        with fresh_database(backend, Path(tempfile.mkdtemp(prefix="stats-bench-"))) as url:
            asyncio.run(measure(backend, url))


if __name__ == "__main__":
    main(sys.argv[1:])
