"""Reconnection through the proxy: how long a player waits to resume when an app process dies
(SIGKILL) or is restarted (a deploy's rolling restart), with nginx in front of N processes.

``count`` started games, each with both players' sockets open through nginx from several loopback
addresses. A socket that drops reopens through nginx at once, with ``since=<its last version>``
(docs/protocol.md, "Reconnecting"), again and again until a process answers; its reconnection time
runs from the moment the process was killed (or asked to stop) to its ``catchup`` arriving. Figures,
never pass/fail.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Callable
from typing import Any

import websockets

from deploy.cluster import Cluster
from tests.load.load import Target, percentile, setup_games

#: How long a failure may take to be recovered from before the run stops waiting, in seconds.
GIVE_UP = 120.0


class Seat:
    """One player's socket, reopened with ``since`` whenever it drops."""

    def __init__(self, target: Target, game_id: str, cookie: str, source: str) -> None:
        self.url = f"{target.ws_url}/ws/games/{game_id}"
        self.cookie = cookie
        self.source = source
        self.version = 0
        self.dropped = asyncio.Event()
        self.resumed_at: float | None = None

    async def _open(self, since: int | None) -> websockets.ClientConnection:
        url = self.url if since is None else f"{self.url}?since={since}"
        return await websockets.connect(
            url,
            additional_headers={"Cookie": self.cookie},
            local_addr=(self.source, 0),
            open_timeout=30,
        )

    async def run(self, opened: asyncio.Event) -> None:
        """Hold the socket open; after a drop, reopen it until one answers with a catch-up."""
        ws = await self._open(None)
        self.version = json.loads(await ws.recv())["version"]
        opened.set()
        while True:
            try:
                async for raw in ws:
                    message = json.loads(raw)
                    if "version" in message:
                        self.version = max(self.version, int(message["version"]))
            except websockets.ConnectionClosed:
                pass
            self.dropped.set()
            while True:
                try:
                    ws = await self._open(self.version)
                    first = json.loads(await ws.recv())
                except (TimeoutError, OSError, websockets.WebSocketException):
                    await asyncio.sleep(0.05)  # nginx is choosing another process
                    continue
                self.resumed_at = time.monotonic()
                self.version = max(self.version, int(first.get("version", self.version)))
                self.dropped.clear()
                break


async def failover_bench(cluster: Cluster, count: int, seed: int) -> list[dict[str, Any]]:
    """A SIGKILL of the first process, then a rolling restart of all; the figures of each."""
    target = Target(
        "cluster",
        cluster.url,
        cluster.url.replace("http", "ws", 1),
        [],
        sources=tuple(f"127.0.0.{n}" for n in range(2, 42)),
    )
    all_games, cookies = await setup_games(target, count, "exxit", {}, seed)
    seats: list[Seat] = []
    tasks: list[asyncio.Task[None]] = []
    for game in all_games:
        for cookie in cookies[game.id]:
            seat = Seat(target, game.id, cookie, target.sources[len(seats) % len(target.sources)])
            opened = asyncio.Event()
            seats.append(seat)
            tasks.append(asyncio.create_task(seat.run(opened)))
            await opened.wait()
    figures = []
    try:
        figures.append(await _measure("SIGKILL of one process", seats, cluster.apps[0].kill))
        cluster.apps[0].restart(GIVE_UP)
        for app in cluster.apps:
            restart = functools.partial(app.restart, GIVE_UP)
            figures.append(await _measure(f"restart of {app.name}", seats, restart))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return figures


async def _measure(label: str, seats: list[Seat], failure: Callable[[], None]) -> dict[str, Any]:
    """Cause ``failure`` (in a thread: a restart waits for the process); the reconnection times
    of the seats it dropped, in ms."""
    for seat in seats:
        seat.resumed_at = None
    began = time.monotonic()
    await asyncio.to_thread(failure)
    # The drops reach the clients through nginx a moment after the failure: look from 1 s on.
    await asyncio.sleep(1.0)
    end = time.monotonic() + GIVE_UP
    while time.monotonic() < end and any(s.dropped.is_set() for s in seats):  # noqa: ASYNC110 - polls many seats, bounded
        await asyncio.sleep(0.05)
    times = [(s.resumed_at - began) * 1000 for s in seats if s.resumed_at is not None]
    return {
        "failure": label,
        "sockets": len(seats),
        "dropped": len(times),
        "still_down": sum(s.dropped.is_set() for s in seats),
        "p50_ms": percentile(times, 0.50),
        "p99_ms": percentile(times, 0.99),
        "max_ms": max(times) if times else float("nan"),
    }
