"""The flag latency: how long after a clock's deadline the ``timeout`` event reaches the players.

``count`` real-time games (base 30 s, the shortest allowed) on a real server, each watched by one
player's socket; their clocks are started a few milliseconds apart, so the deadlines spread over
about ``spread`` seconds and the scheduler meets them one by one rather than all at once. For each
game, the latency is the time from its deadline (the server's ``clock.deadline``, epoch ms, on the
same machine's clock) to the moment its socket received the ``result`` event. Figures, never
pass/fail.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import websockets

from tests.load.load import percentile, setup_games
from tests.support.gameplay import MovePicker
from tests.support.server import LiveServer

BASE = 30


async def flag_latency(
    server: LiveServer, count: int, spread: float, slug: str, options: dict[str, Any], seed: int
) -> dict[str, Any]:
    """Start ``count`` clocks, wait for every flag; the latencies' figures (ms)."""
    control = {"kind": "realtime", "base": BASE, "increment": 0}
    all_games, cookies = await setup_games(server, count, slug, options, seed, control)
    latencies: list[float] = []
    done = asyncio.Event()

    async def watch(game: Any, ready: asyncio.Event) -> None:
        url = f"{server.ws_url}/ws/games/{game.id}"
        async with websockets.connect(
            url, additional_headers={"Cookie": cookies[game.id][0]}
        ) as ws:
            ready.set()
            deadline = None
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), BASE * 4))
                state = message.get("state") or {}
                clock = state.get("clock")
                if clock and clock.get("deadline"):
                    deadline = clock["deadline"]
                if message.get("type") == "event" and message.get("kind") == "result":
                    assert message["data"]["reason"] == "timeout", message
                    assert deadline is not None
                    latencies.append(time.time() * 1000 - deadline)
                    if len(latencies) == count:
                        done.set()
                    return

    async def start(game: Any, client: httpx.AsyncClient) -> None:
        """Both first moves: the clock of the seat to move then runs."""
        picker = MovePicker(slug, options, seed)
        for ply in range(2):
            version = (await client.get(f"/api/games/{game.id}")).json()["version"]
            seat = picker.to_move()
            assert seat is not None
            answer = await client.post(
                f"/api/games/{game.id}/moves",
                json={"move": picker.pick(), "version": version, "msg_id": f"f{ply}"},
                headers={"Cookie": cookies[game.id][seat - 1]},
            )
            answer.raise_for_status()
            picker.play(answer.json()["move"])

    watchers = []
    for game in all_games:
        ready = asyncio.Event()
        watchers.append(asyncio.create_task(watch(game, ready)))
        await ready.wait()
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        gap = spread / max(count, 1)
        for game in all_games:
            await start(game, client)
            await asyncio.sleep(gap)
    await asyncio.wait_for(done.wait(), BASE * 4)
    await asyncio.gather(*watchers)
    return {
        "games": count,
        "p50_ms": percentile(latencies, 0.50),
        "p99_ms": percentile(latencies, 0.99),
        "max_ms": max(latencies),
        "min_ms": min(latencies),
    }
