"""A slow rules call against a live server: does the rest of the server wait for it?

A Jotun game (size 6) is played over HTTP to a position where one origin's moves take a long time to
list (about 0.5 s on this machine). Then one client clicks that origin (``steps``) while another
socket pings every 10 ms; the ping round trips during the click show whether the event loop waited.
Run once with the rules inline (``RULES_WORKERS=0``) and once with the worker process, side by side.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

import games
from games.bench import random_game
from tests.load.load import percentile
from tests.support.databases import fresh_database
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import live_server
from tests.support.wsclient import TestVisitor

SEED, PLY, ORIGIN = 5, 66, "i5"  # found by timing every origin of a seeded size-6 game


async def _position(url: str) -> tuple[str, dict[str, str]]:
    """A started game at the heavy position; its id and the first player's cookie header."""
    rules = games.get("jotun", size=6)
    _states, moves = random_game(rules, random.Random(SEED))
    ann, bo = await TestVisitor(url).start("Ann"), await TestVisitor(url).start("Bo")
    created = (
        await ann.http.post("/api/games", json={"game": "jotun", "options": {"size": 6}, "seat": 1})
    ).json()
    await bo.http.post(f"/api/games/{created['id']}/join", json={"token": created["join_token"]})
    state = rules.initial_state()
    for ply, text in enumerate(moves[:PLY]):
        player = ann if rules.to_move(state) == 1 else bo
        answer = await player.http.post(
            f"/api/games/{created['id']}/moves",
            json={"move": text, "version": ply + 2, "msg_id": f"p{ply}"},
        )
        answer.raise_for_status()
        state = rules.play(state, text)
    headers = {"Cookie": ann.cookie}
    await ann.close()
    await bo.close()
    return created["id"], headers


async def _measure(url: str, ws_url: str) -> dict[str, float]:
    game_id, headers = await _position(url)
    async with websockets.connect(f"{ws_url}/ws/games/{game_id}") as watcher:
        await watcher.recv()  # snapshot
        pings: list[float] = []
        clicking = True

        async def ping() -> None:
            while clicking:
                sent = time.perf_counter()
                await watcher.send('{"type":"ping"}')
                while json.loads(await watcher.recv()).get("type") != "pong":
                    pass
                pings.append((time.perf_counter() - sent) * 1000)
                await asyncio.sleep(0.01)

        pinger = asyncio.create_task(ping())
        await asyncio.sleep(0.2)
        async with httpx.AsyncClient(base_url=url, timeout=120, headers=headers) as client:
            start = time.perf_counter()
            answer = await client.get(f"/api/games/{game_id}/steps", params={"prefix": ORIGIN})
            click = (time.perf_counter() - start) * 1000
        answer.raise_for_status()
        await asyncio.sleep(0.2)
        clicking = False
        await pinger
    return {
        "click_ms": click,
        "ping_p50_ms": statistics.median(pings),
        "ping_p99_ms": percentile(pings, 0.99),
        "ping_max_ms": max(pings),
    }


async def stall_bench(backend: str, directory: Path, repeat: int) -> list[dict[str, Any]]:
    """Alternate inline and worker servers ``repeat`` times; every run's figures."""
    runs: list[dict[str, Any]] = []
    for i in range(repeat):
        for workers in ("0", "1"):
            with (
                fresh_database(backend, directory / f"{i}-{workers}") as db_url,
                live_server(db_url, {**QUOTAS_OFF, "RULES_WORKERS": workers}) as server,
            ):
                figures = await _measure(server.url, server.ws_url)
            runs.append({"rules_workers": int(workers), **figures})
            print(
                f"  rules {'inline' if workers == '0' else 'worker'}: click {figures['click_ms']:.0f}"
                f" ms | pings during it: p50 {figures['ping_p50_ms']:.1f} ms p99 "
                f"{figures['ping_p99_ms']:.1f} ms max {figures['ping_max_ms']:.1f} ms"
            )
    return runs
