"""How many ``spectators`` messages a crowd of watchers joining one game costs.

``python -m tests.load.spectators [--watchers 100]``: a real server on a fresh SQLite database, one
game with its creator's socket open, then N anonymous watchers joining one after the other (each
reading its socket). Once every socket has been sent the final count, and a little longer, the
``spectators`` messages received by all sockets are counted. Figures, never pass or fail.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

from app.identity import COOKIE
from tests.support.databases import fresh_database
from tests.support.gameplay import quick_game
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import live_server


async def measure(base: str, ws_base: str, watchers: int, settle: float) -> dict[str, float]:
    async with httpx.AsyncClient(base_url=base) as http:
        slug, options = quick_game()
        created = (await http.post("/api/games", json={"game": slug, "options": options})).json()
        url = f"{ws_base}/ws/games/{created['id']}"
        cookie = f"{COOKIE}={http.cookies[COOKIE]}"
        counts: list[int] = []  # spectators messages per socket
        last: list[int] = []  # the last count each socket saw

        async def read(ws: ClientConnection, index: int) -> None:
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "spectators":
                    counts[index] += 1
                    last[index] = message["count"]

        sockets, readers = [], []
        started = time.perf_counter()
        for n in range(watchers + 1):
            headers = {"Cookie": cookie} if n == 0 else {}
            ws = await websockets.connect(url, additional_headers=headers)
            json.loads(await ws.recv())  # the snapshot
            counts.append(0)
            last.append(-1)
            sockets.append(ws)
            readers.append(asyncio.create_task(read(ws, n)))
        joined = time.perf_counter() - started
        for _ in range(600):  # until every watcher has the final count (30 s at most)
            if all(c == watchers for c in last[1:]):
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(settle)
        for task in readers:
            task.cancel()
        for ws in sockets:
            await ws.close()
    return {
        "watchers": watchers,
        "join_seconds": round(joined, 2),
        "spectators_messages": sum(counts),
        "per_socket_max": max(counts),
        "final_counts_right": sum(1 for c in last[1:] if c == watchers),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--settle", type=float, default=2.0, help="seconds to wait at the end")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as directory,
        fresh_database("sqlite", Path(directory)) as url,
        live_server(url, QUOTAS_OFF) as server,
    ):
        figures = asyncio.run(measure(server.url, server.ws_url, args.watchers, args.settle))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
