"""The outside probe of issue 14 on quotas, repeated against a server with its default limits.

``python -m tests.load.quotas``: a real server on a fresh SQLite database, with the production
defaults (no QUOTAS_OFF). One guest posts 2,000 creations as fast as it can; 300 clients without a
cookie post one each; then 1,500 sockets without a cookie open on one game. Prints what was
accepted and refused. Figures, never pass or fail.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import websockets

from app.config import Settings
from tests.support.databases import fresh_database
from tests.support.gameplay import quick_game
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import live_server

#: The production default of every quota, whatever the test servers default to.
DEFAULTS = {name: str(Settings.model_fields[name.lower()].default) for name in QUOTAS_OFF}


async def probe(base: str, ws_base: str) -> dict[str, Any]:
    slug, options = quick_game()
    body = {"game": slug, "options": options}
    figures: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=base) as guest:
        started = time.perf_counter()
        statuses: Counter[int] = Counter()
        for _ in range(2000):
            answer = await guest.post("/api/games", json=body)
            statuses[answer.status_code] += 1
        figures["one_guest_2000_creates"] = dict(statuses)
        figures["one_guest_seconds"] = round(time.perf_counter() - started, 1)
        figures["last_retry_after"] = answer.headers.get("retry-after")
    statuses = Counter()
    for _ in range(300):
        async with httpx.AsyncClient(base_url=base) as stranger:
            statuses[(await stranger.post("/api/games", json=body)).status_code] += 1
    figures["cookieless_300_creates"] = dict(statuses)
    async with httpx.AsyncClient(base_url=base) as host:
        created = await host.post("/api/games", json=body)
    game_id = created.json().get("id") if created.status_code == 201 else None
    if game_id is None:  # the address's creation rate is spent: wait for it, as a client would
        await asyncio.sleep(int(created.headers.get("retry-after", "60")))
        async with httpx.AsyncClient(base_url=base) as host:
            game_id = (await host.post("/api/games", json=body)).json()["id"]
    sockets, refused = [], 0
    for _ in range(1500):
        ws = await websockets.connect(f"{ws_base}/ws/games/{game_id}")
        if json.loads(await ws.recv())["type"] == "snapshot":
            sockets.append(ws)
        else:
            refused += 1
            await ws.close()
    figures["cookieless_1500_sockets"] = {"accepted": len(sockets), "refused": refused}
    for ws in sockets:
        await ws.close()
    return figures


def main() -> None:
    with (
        tempfile.TemporaryDirectory() as directory,
        fresh_database("sqlite", Path(directory)) as url,
        live_server(url, DEFAULTS) as server,
    ):
        print(json.dumps(asyncio.run(probe(server.url, server.ws_url))))


if __name__ == "__main__":
    main()
