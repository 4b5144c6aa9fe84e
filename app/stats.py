"""``python -m app.stats rebuild``: recompute the statistics page's counters (``game_stats``,
issue 28) from the archive, in one transaction, on the database ``DATABASE_URL`` names.

The site keeps the counters itself as games finish; a rebuild is for a database whose counters are
in doubt (restored from a backup, edited by hand) and gives what the incremental path would have.
Running beside the live site is safe: a game finishing meanwhile waits for the rebuild's lock on
the table (PostgreSQL) or for the one writer (SQLite), and then adds to the rebuilt counters.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from app.config import Settings
from app.db import make_engine
from app.services.stats import rebuild


async def _rebuild(url: str) -> tuple[int, float]:
    engine = make_engine(url)
    started = time.perf_counter()
    try:
        async with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                await conn.exec_driver_sql("LOCK TABLE game_stats IN EXCLUSIVE MODE")
            games = await conn.run_sync(rebuild)
    finally:
        await engine.dispose()
    return games, time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m app.stats")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "rebuild", help="recompute every counter of the statistics from the archive"
    )
    parser.parse_args(argv)
    games, seconds = asyncio.run(_rebuild(Settings().database_url))
    print(f"statistics rebuilt from {games} finished public games in {seconds:.2f} s")


if __name__ == "__main__":
    main()
