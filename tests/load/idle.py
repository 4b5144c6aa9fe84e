"""Idle sockets: the memory one server process holds per open game socket.

``count`` spectator sockets spread over ``games_count`` started games (each receives its snapshot,
then stays open and silent but for a ping every 20 s), from several loopback addresses. The
figure is the server's resident memory (with its children) once they are all open, against the
same process before the first one opened. Figures, never pass/fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
from typing import Any

import psutil
import websockets
from websockets.asyncio.client import ClientConnection

from tests.load.load import Target, setup_games, tree_rss

#: The most sockets a run opens (the load generator holds them all, one file descriptor each).
MAX_SOCKETS = 15_000


async def idle_step(target: Target, count: int, games_count: int, seed: int) -> dict[str, Any]:
    """Open ``count`` sockets on ``target`` and measure its memory; the figures."""
    count = min(count, MAX_SOCKETS)
    all_games, _cookies = await setup_games(target, games_count, "exxit", {}, seed)
    servers = [psutil.Process(pid) for pid in target.pids]
    gc.collect()
    before = tree_rss(servers)
    sockets: list[ClientConnection] = []
    limit = asyncio.Semaphore(100)

    async def one(i: int) -> None:
        game = all_games[i % len(all_games)]
        source = target.sources[i % len(target.sources)]
        async with limit:
            ws = await websockets.connect(
                f"{target.ws_url}/ws/games/{game.id}", local_addr=(source, 0), open_timeout=120
            )
            json.loads(await ws.recv())  # snapshot
            sockets.append(ws)

    try:
        await asyncio.gather(*(one(i) for i in range(count)))
        await asyncio.sleep(2)  # a figure, not a test: let the server settle
        after = tree_rss(servers)
    finally:
        with contextlib.suppress(Exception):
            await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    return {
        "target": target.name,
        "sockets": len(sockets),
        "games": games_count,
        "rss_before_mb": before,
        "rss_after_mb": after,
        "kb_per_socket": (after - before) * 1024 / max(1, len(sockets)),
    }
