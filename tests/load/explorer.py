"""The opening explorer's figures (issue 28), on SQLite or PostgreSQL: seed N finished games of each
game (24-ply openings drawn from a pool of 40 random 6-ply prefixes, so openings repeat as in real
play), rebuild the explorer from them, print its storage, the archive's position filter on
Valaturna (first page, best of 5) and the uncached node latency through a live server (200 nodes a
game, p50, p99 and max; the first Jotun node starts the rules worker). Figures, never pass or fail.

    python -m tests.load.explorer sqlite 1000
    python -m tests.load.explorer postgres 1000
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

import games
from app.db import make_engine
from app.domain.archive import options_key
from app.explorer import rebuild
from app.models import Game, Move
from app.repository.archive import ArchiveFilter, archive_query
from games.bench import random_game
from tests.support.databases import fresh_database
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import live_server

NOW = 1_795_000_000_000
TABLES = ("explorer_positions", "explorer_moves", "explorer_games")


def lines(rng: random.Random, slug: str, n: int) -> tuple[dict[str, Any], list[list[str]]]:
    """The default options of ``slug`` and ``n`` openings of up to 24 plies."""
    rules = games.get(slug)
    pool = [random_game(rules, rng, max_plies=6)[1] for _ in range(40)]
    out = []
    for _ in range(n):
        moves = list(rng.choice(pool))
        state = rules.initial_state()
        for text in moves:
            state = rules.play(state, text)
        while len(moves) < 24 and rules.to_move(state) is not None:
            move = rules.random_move(state, rng)
            moves.append(rules.format_move(state, move))
            state = rules.apply(state, move)
        out.append(moves)
    return rules.options, out


async def seed(url: str, n: int) -> dict[str, list[list[str]]]:
    """``n`` finished public games of each game, written straight into ``games`` and ``moves``."""
    rng = random.Random(28)
    engine = make_engine(url)
    played = {}
    async with engine.begin() as conn:
        for slug in games.names():
            options, found = lines(rng, slug, n)
            played[slug] = found
            colours = games.rules_class(slug).colours
            rows, moves = [], []
            for i, line in enumerate(found):
                game_id = f"{slug[:3]}{i:09d}"
                winner = rng.choice([1, 2])
                result = {"winner": winner, "colour": colours[winner - 1], "reason": "resignation"}
                rows.append(
                    {
                        "id": game_id,
                        "slug": slug,
                        "options": options,
                        "public": True,
                        "status": "finished",
                        "version": len(line) + 3,
                        "ply_count": len(line) + 20,
                        "length": len(line) + 20,
                        "created_at": NOW,
                        "last_activity_at": NOW,
                        "finished_at": NOW + i,
                        "result": str(winner),
                        "reason": "resignation",
                        "result_json": {**result, "scores": None},
                        "options_key": options_key(options),
                        "player1_name": "A",
                        "player2_name": "B",
                        "imported": True,
                    }
                )
                moves += [
                    {"game_id": game_id, "ply": p, "text": t, "seat": 1, "created_at": NOW}
                    for p, t in enumerate(line, 1)
                ]
            await conn.execute(sa.insert(Game), rows)
            await conn.execute(sa.insert(Move), moves)
    await engine.dispose()
    return played


async def storage(url: str, backend: str) -> dict[str, int]:
    """Bytes (tables and their primary keys) and rows of the explorer's tables."""
    engine = make_engine(url)
    out = {}
    async with engine.connect() as conn:
        if backend == "postgres":
            await conn.execute(sa.text("ANALYZE"))
        for table in TABLES:
            if backend == "postgres":
                size = f"SELECT pg_total_relation_size('{table}')"
            else:
                size = (
                    f"SELECT SUM(pgsize) FROM dbstat WHERE name = '{table}'"
                    f" OR name LIKE 'sqlite_autoindex_{table}%'"
                )
            out[table] = int((await conn.execute(sa.text(size))).scalar_one() or 0)
            count = f"SELECT COUNT(*) FROM {table}"
            out[f"{table} rows"] = int((await conn.execute(sa.text(count))).scalar_one())
    await engine.dispose()
    return out


async def position_filter(url: str, line: list[str]) -> None:
    """The archive's first page for Valaturna positions reached by all games, a pooled prefix,
    one game, and none."""
    rules = games.get("valaturna")
    state = rules.initial_state()
    keys = [rules.position_key(state)]
    for text in line:
        state = rules.play(state, text)
        keys.append(rules.position_key(state))
    cases = [("start", keys[0]), ("ply 3", keys[3]), ("ply 20", keys[20]), ("unreached", "x" * 16)]
    engine = make_engine(url)
    async with engine.connect() as conn:
        for label, key in cases:
            filters = ArchiveFilter(game="valaturna", options="size=7", position=key)
            query = archive_query(filters, None, 21, engine.dialect.name)
            best = float("inf")
            for _ in range(5):
                start = time.perf_counter()
                found = (await conn.execute(query)).all()
                best = min(best, time.perf_counter() - start)
            print(f"archive position filter, {label}: {len(found)} games in {1000 * best:.1f} ms")
    await engine.dispose()


def nodes(url: str, played: dict[str, list[list[str]]]) -> None:
    """Uncached node latency through a live server."""
    rng = random.Random(7)
    env = {**QUOTAS_OFF, "EXPLORER_CACHE_SECONDS": "0"}
    with live_server(url, env) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        for slug, found in played.items():
            times = []
            for _ in range(200):
                line = rng.choice(found)
                ply = rng.choice([0, 0, 1, 2, 3, 4, 6, 8, 12, 24])
                start = time.perf_counter()
                answer = client.get(f"/api/explorer/{slug}", params={"moves": " ".join(line[:ply])})
                times.append(1000 * (time.perf_counter() - start))
                assert answer.status_code == 200, answer.text
            times.sort()
            p99 = times[int(0.99 * len(times)) - 1]
            print(
                f"{slug}: node p50 {statistics.median(times):.1f} ms, p99 {p99:.1f} ms,"
                f" max {times[-1]:.1f} ms"
            )


def main(argv: list[str]) -> None:
    """``BACKEND N``: seed, rebuild, measure."""
    backend, n = argv[0], int(argv[1])
    with tempfile.TemporaryDirectory() as tmp, fresh_database(backend, Path(tmp)) as url:
        start = time.perf_counter()
        played = asyncio.run(seed(url, n))
        print(
            f"seeded {n} games of each of {len(played)} games in {time.perf_counter() - start:.1f} s"
        )
        start = time.perf_counter()
        counted = asyncio.run(rebuild(url))
        took = time.perf_counter() - start
        print(f"rebuild: {counted} games in {took:.1f} s ({1000 * took / counted:.2f} ms a game)")
        sizes = asyncio.run(storage(url, backend))
        total = sum(sizes[t] for t in TABLES)
        print(f"storage: {sizes}: {total / counted:.0f} bytes a game")
        asyncio.run(position_filter(url, played["valaturna"][0]))
        nodes(url, played)


if __name__ == "__main__":
    main(sys.argv[1:])
