"""The socket limits hold for the whole site through its proxy (issue 27): nginx spreads a client's
sockets over the two app processes (least_conn), and the limit counts them together.

Clients connect from addresses of the loopback range of their own (127.0.0.2, ...) and nginx tells
the app processes who they are in ``X-Forwarded-For`` (see tests/deploy/test_cluster.py).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from deploy.cluster import Cluster
from tests.deploy.conftest import ClusterFactory, accepted
from tests.support.patience import PATIENCE
from tests.support.wsclient import TestVisitor

PER_VISITOR = 3
PER_ADDRESS = 4


@pytest.fixture(scope="module")
def cluster(start_cluster: ClusterFactory) -> Iterator[Cluster]:
    env = {
        "WS_MAX_SOCKETS_PER_VISITOR": str(PER_VISITOR),
        "WS_MAX_SOCKETS_PER_IP": str(PER_ADDRESS),
    }
    with start_cluster(env=env) as running:
        yield running


async def live(
    cluster: Cluster, address: str, cookie: str | None = None
) -> tuple[ClientConnection, dict[str, Any]]:
    """A socket to /ws/live through nginx from ``address``, and its first message."""
    url = cluster.url.replace("http", "ws", 1) + "/ws/live"
    headers = {"Cookie": cookie} if cookie else {}
    ws = await websockets.connect(url, additional_headers=headers, local_addr=(address, 0))
    first: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), PATIENCE))
    return ws, first


async def spread_since(cluster: Cluster, before: list[int], total: int) -> list[int]:
    """How many of the last ``total`` /ws/live sockets each process accepted, once the access
    lines of all of them are in the logs."""
    end = asyncio.get_running_loop().time() + PATIENCE
    while sum(spread := [n - b for n, b in zip(accepted(cluster), before, strict=True)]) < total:
        assert asyncio.get_running_loop().time() < end, f"not in the logs in time: {spread}"
        await asyncio.sleep(0.05)
    return spread


async def test_an_addresss_sockets_through_nginx_are_counted_over_both_processes(
    cluster: Cluster,
) -> None:
    """Sockets without a cookie from one address, spread by nginx over both processes: the
    next is refused; another address has its own places."""
    before = accepted(cluster)
    sockets = []
    for _ in range(PER_ADDRESS):
        ws, first = await live(cluster, "127.0.0.2")
        assert first["type"] == "live", first
        sockets.append(ws)
    spread = await spread_since(cluster, before, PER_ADDRESS)
    assert all(spread), spread  # both processes hold some
    ws, first = await live(cluster, "127.0.0.2")
    assert first["type"] == "error" and first["code"] == "too_many_sockets", first
    assert "per address" in first["message"]
    await ws.close()
    other, first = await live(cluster, "127.0.0.3")
    assert first["type"] == "live", first
    for ws in [*sockets, other]:
        await ws.close()


async def test_a_guests_sockets_through_nginx_are_counted_over_both_processes(
    cluster: Cluster,
) -> None:
    visitor = await TestVisitor(cluster.url).start("Ann")
    try:
        before = accepted(cluster)
        sockets = []
        for _ in range(PER_VISITOR):
            ws, first = await live(cluster, "127.0.0.4", visitor.cookie)
            assert first["type"] == "live", first
            sockets.append(ws)
        spread = await spread_since(cluster, before, PER_VISITOR)
        assert all(spread), spread
        ws, first = await live(cluster, "127.0.0.4", visitor.cookie)
        assert first["type"] == "error" and first["code"] == "too_many_sockets", first
        assert "per visitor" in first["message"]
        await ws.close()
        for ws in sockets:
            await ws.close()
    finally:
        await visitor.close()
