"""The opening explorer's command line: ``python -m app.explorer rebuild`` counts every finished
public game of the archive again, from scratch, into the explorer's tables (issue 28).

The explorer is kept in step as games finish (``Core.finish``); the rebuild is for the games
finished before it existed, or to check it: it writes the very rows the incremental path writes
(``app.repository.explorer``), and ``tests/app/test_explorer.py`` shows the two agree. It runs in
one transaction, so readers see the old counts until it commits; run it while no game finishes
(the site stopped, or quiet), or a game finishing meanwhile may be counted twice.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from app.config import get_settings
from app.db import make_engine
from app.repository import explorer as rows
from app.runtime.rules import RulesRunner
from app.services.explorer import explored

BATCH = 500


async def rebuild(url: str, batch: int = BATCH) -> int:
    """Empty the explorer and count every finished public game of the database at ``url`` into
    it again: how many games were counted."""
    engine = make_engine(url)
    runner = RulesRunner(workers=0)
    counted = 0
    try:
        async with engine.begin() as conn:
            await conn.run_sync(rows.clear)
            after = ""
            while True:
                found = await conn.run_sync(rows.finished_batch, after, batch)
                if not found:
                    break
                counted += await _count(conn, runner, found)
                after = found[-1]["id"]
    finally:
        runner.close()
        await engine.dispose()
    return counted


async def _count(
    conn: AsyncConnection, runner: RulesRunner, found: Sequence[dict[str, Any]]
) -> int:
    openings = await conn.run_sync(rows.opening_moves, [g["id"] for g in found])
    batch = []
    for game in found:
        try:
            rules = runner.rules(game["slug"], game["options"])
        except ValueError:  # a game no longer installed, or options it no longer takes
            continue
        one = await explored(
            runner,
            rules,
            game["id"],
            openings[game["id"]],
            game["result_json"] or {},
            game["finished_at"],
            length=game["length"] if game["length"] is not None else game["ply_count"],
        )
        if one is not None:
            batch.append(one)
    await conn.run_sync(rows.add_counts, batch)
    return len(batch)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``rebuild``)."""
    parser = argparse.ArgumentParser(prog="python -m app.explorer", description=__doc__)
    parser.add_argument("command", choices=["rebuild"])
    parser.add_argument("--database-url", default=None, help="default: DATABASE_URL")
    args = parser.parse_args(argv)
    url = args.database_url or get_settings().database_url
    start = time.perf_counter()
    counted = asyncio.run(rebuild(url))
    print(f"explorer rebuilt: {counted} games in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
