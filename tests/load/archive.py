"""The archive benchmark: 1,000,000 finished games seeded (``--archive-games``), each filter's
query plan and page time.

Times two things for every filter: the repository's query alone (the SQL the server runs, through
the async engine) and the whole HTTP request to ``/api/archive`` on a real uvicorn process.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert, text
from sqlalchemy.ext.asyncio import AsyncEngine

import games
from app.db import make_engine, make_sessionmaker
from app.models import Game
from app.repository import ArchiveFilter, archive_page, archive_query
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import LiveServer, live_server

DAY_MS = 86_400_000
#: The servers that time pages and the export: no quotas, and no dumps built meanwhile.
QUIET = {**QUOTAS_OFF, "DUMPS_EVERY": "0"}
START_MS = 1_767_225_600_000  # 2026-01-01


def seed_rows(count: int, seed: int) -> tuple[list[dict[str, Any]], list[str]]:
    """``count`` finished public games over one year, 2,000 player names, seeded."""
    rng = random.Random(seed)
    names = [f"Player{i:04d}" for i in range(2000)]
    slugs = games.names() or ["exxit"]
    rows = []
    for i in range(count):
        one, two = rng.sample(names, 2)
        winner = rng.choice([1, 2, 1, 2, None])
        result = {"winner": winner, "colour": None, "reason": "no-moves", "scores": None}
        finished = START_MS + rng.randrange(365 * DAY_MS)
        rows.append(
            {
                "id": f"s{i:09d}",
                "slug": rng.choice(slugs),
                "options": {},
                "public": True,
                "join_token": None,
                "creator_id": None,
                "status": "finished",
                "version": 40,
                "ply_count": 38,
                "to_move": None,
                "player1_id": None,
                "player2_id": None,
                "player1_name": one,
                "player2_name": two,
                "player1_key": one.lower(),
                "player2_key": two.lower(),
                "result": "draw" if winner is None else str(winner),
                "reason": "no-moves",
                "result_json": result,
                "imported": True,
                "created_at": finished - 3_600_000,
                "last_activity_at": finished,
                "finished_at": finished,
            }
        )
    return rows, names


async def seed(engine: AsyncEngine, count: int, rng_seed: int) -> list[str]:
    """Insert the seeded games; the player names used."""
    rows, names = seed_rows(count, rng_seed)
    async with engine.begin() as conn:
        for start in range(0, len(rows), 5000):
            await conn.execute(insert(Game), rows[start : start + 5000])
    async with engine.begin() as conn:
        await conn.execute(text("ANALYZE"))
    return names


def filters_to_try(names: list[str]) -> list[tuple[str, ArchiveFilter, dict[str, str]]]:
    """(label, repository filter, HTTP query) for each filter and a few combinations."""
    slug = (games.names() or ["exxit"])[0]
    player = names[7]
    start, end = START_MS + 100 * DAY_MS, START_MS + 107 * DAY_MS
    return [
        ("newest", ArchiveFilter(), {}),
        ("game", ArchiveFilter(game=slug), {"game": slug}),
        ("player", ArchiveFilter(player=player.lower()), {"player": player}),
        ("result", ArchiveFilter(result="draw"), {"result": "draw"}),
        ("week", ArchiveFilter(start=start, end=end), {"from": str(start), "to": str(end)}),
        (
            "game+player",
            ArchiveFilter(game=slug, player=player.lower()),
            {"game": slug, "player": player},
        ),
        (
            "game+result+week",
            ArchiveFilter(game=slug, result="1", start=start, end=end),
            {"game": slug, "result": "1", "from": str(start), "to": str(end)},
        ),
    ]


async def query_plan(engine: AsyncEngine, filters: ArchiveFilter) -> list[str]:
    """The database's plan for one archive page."""
    statement = archive_query(filters, None, 21)
    sql = str(statement.compile(engine.sync_engine, compile_kwargs={"literal_binds": True}))
    explain = "EXPLAIN QUERY PLAN " if engine.dialect.name == "sqlite" else "EXPLAIN "
    async with engine.connect() as conn:
        rows = (await conn.execute(text(explain + sql))).all()
    return [str(row[-1]) for row in rows]


async def time_queries(engine: AsyncEngine, filters: ArchiveFilter, repeat: int) -> list[float]:
    """Milliseconds per page through the repository, ``repeat`` times (after one warm-up)."""
    sessions = make_sessionmaker(engine)
    out = []
    for i in range(repeat + 1):
        async with sessions() as session:
            t0 = time.perf_counter()
            await archive_page(session, filters, None, 21)
            elapsed = (time.perf_counter() - t0) * 1000
        if i:
            out.append(elapsed)
    return out


async def time_http(server: LiveServer, params: dict[str, str], repeat: int) -> list[float]:
    """Milliseconds per ``GET /api/archive`` on the live server."""
    out = []
    async with httpx.AsyncClient(base_url=server.url) as client:
        await client.get("/api/me")
        for i in range(repeat + 1):
            t0 = time.perf_counter()
            response = await client.get("/api/archive", params=params)
            elapsed = (time.perf_counter() - t0) * 1000
            response.raise_for_status()
            if i:
                out.append(elapsed)
    return out


async def archive_bench(database_url: str, count: int, repeat: int, rng_seed: int) -> None:
    """Seed, then print each filter's plan, query time and HTTP time."""
    engine = make_engine(database_url)
    try:
        t0 = time.perf_counter()
        names = await seed(engine, count, rng_seed)
        print(
            f"archive: seeded {count:,} finished games on {engine.dialect.name} "
            f"in {time.perf_counter() - t0:.1f} s"
        )
        cases = filters_to_try(names)
        with live_server(database_url, QUIET) as server:
            for label, filters, params in cases:
                plan = await query_plan(engine, filters)
                query_ms = await time_queries(engine, filters, repeat)
                http_ms = await time_http(server, params, repeat)
                print(
                    f"  {label:<17} query median {statistics.median(query_ms):6.2f} ms "
                    f"max {max(query_ms):6.2f} ms | HTTP page median "
                    f"{statistics.median(http_ms):6.2f} ms max {max(http_ms):6.2f} ms"
                )
                for line in plan:
                    print(f"      plan: {line}")
        await export_and_dump_bench(database_url, count)
    finally:
        await engine.dispose()


def peak_rss_mb(pid: int) -> float:
    """A process's peak resident memory so far (``VmHWM``), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def export_and_dump_bench(database_url: str, count: int) -> None:
    """The whole archive through the streaming export (10,000 games an answer, ``since`` the
    last line's ``next``), then the monthly dumps built at the start of a process of their own;
    each server's peak memory (VmHWM) against its peak before the work: constant memory means
    the difference does not grow with the number of games."""
    with live_server(database_url, QUIET) as server:
        assert server.process is not None and server.process.pid is not None
        pid = server.process.pid
        before = peak_rss_mb(pid)
        t0 = time.perf_counter()
        exported, answers, since = 0, 0, None
        async with httpx.AsyncClient(base_url=server.url, timeout=600) as client:
            while True:
                params = {"since": since} if since else {}
                in_answer, last = 0, {}
                async with client.stream("GET", "/api/archive/export", params=params) as answer:
                    async for line in answer.aiter_lines():
                        last = json.loads(line)
                        in_answer += "record" in last
                exported += in_answer
                answers += 1
                since = last["next"]
                if in_answer < 10_000:
                    break
        took = time.perf_counter() - t0
        print(
            f"  export: {exported:,} of {count:,} games in {answers} answers, {took:.1f} s "
            f"({exported / took:,.0f} games/s); server peak RSS {before:.0f} MB before, "
            f"{peak_rss_mb(pid):.0f} MB after"
        )
    with tempfile.TemporaryDirectory() as directory:
        env = {**QUOTAS_OFF, "DUMPS_DIR": directory, "DUMPS_EVERY": "86400"}
        t0 = time.perf_counter()
        with live_server(database_url, env) as server:  # the first build runs at its start
            assert server.process is not None and server.process.pid is not None
            index = Path(directory) / "index.json"
            while not index.exists():  # noqa: ASYNC110 - a benchmark waiting for the build's end
                await asyncio.sleep(0.2)
            took = time.perf_counter() - t0
            dumps = json.loads(index.read_text())["dumps"]
            games_dumped = sum(d["games"] for d in dumps)
            size = sum(d["bytes"] for d in dumps)
            print(
                f"  dumps: {len(dumps)} files, {games_dumped:,} games, {size / 1e6:.1f} MB "
                f"gzipped, built in {took:.1f} s from the process's start; its peak RSS "
                f"{peak_rss_mb(server.process.pid):.0f} MB"
            )
