"""Quotas and rate limits (docs/protocol.md, "Quotas and rate limits"), on SQLite and PostgreSQL.

Each test turns on the one limit it is about, small, through the settings (the suite's fixtures
turn every quota off: see tests/support/quotas.py). In-process apps are driven
through httpx; sockets and the cross-process limit through real uvicorn processes and real
websocket clients.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import subprocess
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn
import websockets
from fastapi import FastAPI
from websockets.asyncio.client import ClientConnection

from app.domain.clock import FakeClock
from app.errors import AppError
from app.main import create_app
from app.runtime.limiter import Limiter, client_key
from app.runtime.throttle import Throttle
from tests.app.conftest import make_settings
from tests.support.databases import fresh_database
from tests.support.gameplay import quick_game
from tests.support.server import free_port, live_server
from tests.support.wsclient import TestVisitor

REDIS = "redis://127.0.0.1:6379/0"


@contextlib.asynccontextmanager
async def running(database_url: str, **overrides: Any) -> AsyncIterator[FastAPI]:
    """The app on ``database_url`` with ``overrides`` of the settings, its lifespan running."""
    app = create_app(make_settings(database_url, **overrides))
    async with app.router.lifespan_context(app):
        yield app


@contextlib.asynccontextmanager
async def visitor(app: FastAPI, ip: str = "127.0.0.1") -> AsyncIterator[httpx.AsyncClient]:
    """A new guest of the in-process ``app`` (its own cookie), connecting from ``ip``."""
    transport = httpx.ASGITransport(app=app, client=(ip, 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        assert (await client.get("/api/me")).status_code == 200
        yield client


async def create(client: httpx.AsyncClient, public: bool = True) -> httpx.Response:
    slug, options = quick_game()
    body = {"game": slug, "options": options, "seat": 1, "public": public}
    return await client.post("/api/games", json=body)


def assert_rate_limited(response: httpx.Response, at_most: float) -> int:
    """The answer is 429 ``rate_limited`` with a ``Retry-After`` of 1 to ``at_most`` seconds."""
    assert response.status_code == 429, response.text
    assert response.json()["error"]["code"] == "rate_limited"
    retry_after = int(response.headers["retry-after"])
    assert 1 <= retry_after <= at_most
    return retry_after


async def open_count(client: httpx.AsyncClient, creator: str) -> int:
    """How many public games of ``creator`` the open list shows."""
    games = (await client.get("/api/games/open")).json()["games"]
    return sum(1 for g in games if any(p["name"] == creator for p in g["players"]))


# --- game creation ----------------------------------------------------------------------------


async def test_a_visitor_has_a_few_open_games_at_most(database_url: str) -> None:
    async with (
        running(database_url, open_games_per_visitor=3) as app,
        visitor(app) as ann,
        visitor(app) as bo,
    ):
        await ann.put("/api/me", json={"name": "Ann"})
        made = [await create(ann, public=n % 2 == 0) for n in range(3)]  # private ones count too
        assert [r.status_code for r in made] == [201, 201, 201]
        refused = await create(ann)
        # The oldest open game is cancelled as abandoned after ABANDON_AFTER: the quota frees then.
        assert_rate_limited(refused, at_most=app.state.settings.abandon_after)
        assert "3 games waiting" in refused.json()["error"]["message"]
        assert await open_count(bo, "Ann") == 2  # nothing was created
        assert (await create(bo)).status_code == 201  # the quota is the visitor's own
        # Once an opponent joins one, it is no longer open: the visitor may create again.
        first = made[0].json()
        joined = await bo.post(
            f"/api/games/{first['id']}/join", json={"token": first["join_token"]}
        )
        assert joined.status_code == 200, joined.text
        assert (await create(ann)).status_code == 201
        assert (await create(ann)).status_code == 429


async def test_creations_arriving_together_cannot_pass_the_open_games_quota(
    database_url: str,
) -> None:
    async with running(database_url, open_games_per_visitor=3) as app, visitor(app) as ann:
        await ann.put("/api/me", json={"name": "Cleo"})
        answers = await asyncio.gather(*(create(ann) for _ in range(10)))
        assert sorted(a.status_code for a in answers) == [201] * 3 + [429] * 7
        async with visitor(app) as bo:
            assert await open_count(bo, "Cleo") == 3


async def test_creation_is_rate_limited_per_visitor(database_url: str) -> None:
    async with (
        running(database_url, rate_create_per_visitor="3/minute") as app,
        visitor(app) as ann,
        visitor(app) as bo,
    ):
        assert [(await create(ann)).status_code for _ in range(3)] == [201] * 3
        assert_rate_limited(await create(ann), at_most=60)
        assert (await create(bo)).status_code == 201


async def test_creation_is_rate_limited_per_ip(database_url: str) -> None:
    """Fresh guests from one address (a client that drops its cookie) share its limit."""
    async with running(database_url, rate_create_per_ip="4/minute") as app:
        answers = []
        for _ in range(5):
            async with visitor(app, ip="10.9.8.7") as guest:
                answers.append(await create(guest))
        assert [a.status_code for a in answers[:4]] == [201] * 4
        assert_rate_limited(answers[4], at_most=60)
        async with visitor(app, ip="10.9.8.8") as elsewhere:
            assert (await create(elsewhere)).status_code == 201
        # An IPv6 client holds a whole /64: its addresses share one limit.
        async with visitor(app, ip="2001:db8:1:2::1") as six:
            assert [(await create(six)).status_code for _ in range(4)] == [201] * 4
        async with visitor(app, ip="2001:db8:1:2:ffff::9") as same_net:
            assert (await create(same_net)).status_code == 429


async def test_replay_and_import_are_rate_limited(database_url: str) -> None:
    async with (
        running(
            database_url,
            rate_replay_per_visitor="2/minute",
            rate_import_per_visitor="2/minute",
            rate_import_per_ip="3/minute",
        ) as app,
        visitor(app) as ann,
        visitor(app) as bo,
    ):
        slug, options = quick_game()
        replay = {"game": slug, "options": options, "moves": []}
        assert [(await ann.post("/api/replay", json=replay)).status_code for _ in range(2)] == [
            200,
            200,
        ]
        assert_rate_limited(await ann.post("/api/replay", json=replay), at_most=60)
        assert (await bo.post("/api/replay", json=replay)).status_code == 200
        # Import: every attempt counts, refused ones included (they cost a replay too).
        record = {"format": "nothing"}
        first = [(await ann.post("/api/archive/import", json=record)).status_code for _ in range(2)]
        assert 429 not in first
        assert_rate_limited(await ann.post("/api/archive/import", json=record), at_most=60)
        assert (await bo.post("/api/archive/import", json=record)).status_code != 429
        assert_rate_limited(await bo.post("/api/archive/import", json=record), at_most=60)  # IP


async def test_the_export_is_rate_limited(database_url: str) -> None:
    """Each export reads up to 10,000 games: a few a minute per visitor and per address."""
    async with (
        running(
            database_url, rate_export_per_visitor="2/minute", rate_export_per_ip="3/minute"
        ) as app,
        visitor(app) as ann,
        visitor(app) as bo,
    ):
        first = [(await ann.get("/api/archive/export")).status_code for _ in range(2)]
        assert first == [200, 200]
        assert_rate_limited(await ann.get("/api/archive/export"), at_most=60)
        assert (await bo.get("/api/archive/export")).status_code == 200
        assert_rate_limited(await bo.get("/api/archive/export"), at_most=60)  # the address's


# --- Redis: across processes, and its outage --------------------------------------------------


async def test_the_create_limit_holds_across_processes(database_url: str) -> None:
    """Two server processes sharing one Redis count one visitor's creations together."""
    env = {
        "REDIS_URL": REDIS,
        "REDIS_PREFIX": f"test-{secrets.token_hex(4)}:",
        "RATE_CREATE_PER_VISITOR": "4/minute",
    }
    with live_server(database_url, env) as one, live_server(database_url, env) as two:
        ann = await TestVisitor(one.url).start("Ann")
        try:
            answers = []
            for n in range(6):
                url = (one if n % 2 else two).url + "/api/games"
                slug, options = quick_game()
                answers.append(await ann.http.post(url, json={"game": slug, "options": options}))
            assert [a.status_code for a in answers] == [201, 201, 201, 201, 429, 429]
            assert_rate_limited(answers[4], at_most=60)
        finally:
            await ann.close()


def _redis_server(port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )


async def test_limits_fall_back_to_each_processs_count_while_redis_is_down(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """No Redis: the process counts in its own memory (issue 27), so the limit holds for what
    reaches this process, and the outage is logged once, not per request. Once Redis is back,
    the limits are counted there again (afresh: Redis never saw the outage's requests)."""
    port = free_port()  # nothing listens there yet
    caplog.set_level(logging.WARNING, logger="hexmoot")
    async with (
        running(
            database_url,
            redis_url=f"redis://127.0.0.1:{port}/0",
            redis_prefix=f"test-{secrets.token_hex(4)}:",
            rate_create_per_visitor="2/minute",
            limits_retry_after_outage=0.0,
        ) as app,
        visitor(app) as ann,
    ):
        assert [(await create(ann)).status_code for _ in range(4)] == [201, 201, 429, 429]
        outage = [r for r in caplog.records if "rate limits" in r.getMessage()]
        assert len(outage) == 1, [r.getMessage() for r in outage]
        server = _redis_server(port)
        try:
            limiter = app.state.limiter
            # Until redis-server accepts connections: a busy machine can take seconds, and
            # going on before would count in the process's memory again (three 429s).
            for _ in range(1200):
                if await limiter.reachable() or server.poll() is not None:
                    break
                await asyncio.sleep(0.05)
            assert server.poll() is None, "redis-server exited (its port was taken?)"
            assert await limiter.reachable(), "redis-server did not answer within a minute"
            answers = [(await create(ann)).status_code for _ in range(3)]
            assert answers == [201, 201, 429]
        finally:
            server.terminate()
            server.wait()


# --- sockets per IP ---------------------------------------------------------------------------


async def test_anonymous_sockets_are_limited_per_ip(database_url: str) -> None:
    """Sockets without a cookie each get a new identity: the per-IP limit still counts them."""
    env = {"WS_MAX_SOCKETS_PER_IP": "3"}
    with live_server(database_url, env) as server:
        ann = await TestVisitor(server.url).start("Ann")
        try:
            slug, options = quick_game()
            game = (
                await ann.http.post("/api/games", json={"game": slug, "options": options})
            ).json()
            url = f"{server.ws_url}/ws/games/{game['id']}"
            accepted = [await websockets.connect(url) for _ in range(3)]
            for ws in accepted:
                assert json.loads(await ws.recv())["type"] == "snapshot"
            async with websockets.connect(url) as refused:
                error = json.loads(await refused.recv())
                assert error["type"] == "error" and error["code"] == "too_many_sockets"
                assert "per address" in error["message"]
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await refused.recv()
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
            async with websockets.connect(server.ws_url + "/ws/live") as live:  # every socket
                assert json.loads(await live.recv())["code"] == "too_many_sockets"
            await accepted.pop().close()
            for _ in range(200):  # the server counts the closed socket out when it sees it go
                async with websockets.connect(url) as again:
                    if json.loads(await again.recv())["type"] == "snapshot":
                        break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("a socket closed never freed its place")
            for ws in accepted:
                await ws.close()
        finally:
            await ann.close()


# --- the spectator count, coalesced -----------------------------------------------------------


@contextlib.asynccontextmanager
async def serving(app: FastAPI) -> AsyncIterator[str]:
    """``app`` served by uvicorn in this event loop (so its fake clock is the test's); the URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    try:
        for _ in range(400):
            if server.started:
                break
            await asyncio.sleep(0.025)
        assert server.started
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


async def spectator_counts(ws: ClientConnection, final: int) -> list[int]:
    """The ``spectators`` counts ``ws`` receives until one says ``final``."""
    counts: list[int] = []
    while not counts or counts[-1] != final:
        message = json.loads(await asyncio.wait_for(ws.recv(), 20))
        if message["type"] == "spectators":
            counts.append(message["count"])
    return counts


async def test_spectator_counts_are_coalesced(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Thirty watchers joining within one second of the app's clock cause at most two
    ``spectators`` messages per socket (the first change at once, then the last count), not one
    per join for every socket."""
    watchers = 30
    clock = FakeClock()
    with fresh_database("sqlite", tmp_path_factory.mktemp("spectators")) as url:
        app = create_app(make_settings(url), clock=clock)
        async with app.router.lifespan_context(app), serving(app) as address:
            ann = await TestVisitor(f"http://{address}").start("Ann")
            try:
                slug, options = quick_game()
                created = await ann.http.post("/api/games", json={"game": slug, "options": options})
                game_id = created.json()["id"]
                url = f"ws://{address}/ws/games/{game_id}"
                player = await websockets.connect(url, additional_headers={"Cookie": ann.cookie})
                assert json.loads(await player.recv())["type"] == "snapshot"
                sockets = []
                for n in range(watchers):
                    ws = await websockets.connect(url)
                    first = json.loads(await ws.recv())
                    assert first["type"] == "snapshot" and first["spectators"] == n + 1
                    sockets.append(ws)
                clock.advance(1.0)  # the trailing edge: the last count goes out
                for ws in [player, *sockets]:
                    counts = await spectator_counts(ws, watchers)
                    assert len(counts) <= 2, counts
                # Leaving is coalesced the same way, and the last count (0) still goes out.
                for ws in sockets:
                    await ws.close()
                channel = f"game:{game_id}"
                for _ in range(400):  # until the server has seen every socket go
                    if await app.state.hub.presence_count(channel) == 0:
                        break
                    await asyncio.sleep(0.05)
                clock.advance(1.0)
                counts = await spectator_counts(player, 0)
                assert len(counts) <= 2, counts
                await player.close()
            finally:
                await ann.close()


# --- the parts, called directly ---------------------------------------------------------------


async def test_the_throttle_runs_at_once_then_once_per_interval_with_the_last_change() -> None:
    clock = FakeClock()
    runs: list[tuple[str, int]] = []
    ran = asyncio.Event()

    async def action(key: str) -> None:
        runs.append((key, clock.now()))
        ran.set()

    throttle = Throttle(clock, 1.0, action)
    start = clock.now()
    throttle.poke("game:a")
    await asyncio.wait_for(ran.wait(), 5)
    for _ in range(50):  # a burst within the interval: nothing more yet
        throttle.poke("game:a")
    throttle.poke("game:b")  # another key is throttled on its own
    for _ in range(20):
        await asyncio.sleep(0)
    assert sorted(runs) == [("game:a", start), ("game:b", start)]
    ran.clear()
    clock.advance(1.0)  # the trailing edge: the burst is one run
    await asyncio.wait_for(ran.wait(), 5)
    assert runs[-1] == ("game:a", start + 1000) and len(runs) == 3
    clock.advance(1.0)  # quiet for an interval: the key's task ends
    for _ in range(20):
        await asyncio.sleep(0)
    assert len(runs) == 3 and not throttle._tasks
    await throttle.close()


async def test_a_failing_throttled_action_is_logged_and_runs_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    calls = 0

    async def action(key: str) -> None:
        nonlocal calls
        calls += 1
        raise ConnectionError("redis is away")

    throttle = Throttle(clock, 1.0, action)
    throttle.poke("k")
    for _ in range(20):
        await asyncio.sleep(0)
    clock.advance(1.0)
    for _ in range(20):
        await asyncio.sleep(0)
    throttle.poke("k")
    for _ in range(20):
        await asyncio.sleep(0)
    assert calls == 2
    assert "a throttled update of 'k' failed" in caplog.text
    await throttle.close()


async def test_the_limiter_counts_per_name_and_key_in_memory() -> None:
    limiter = Limiter({"create per visitor": "2/minute", "create per IP": ""})
    assert [await limiter.hit("create per visitor", "ann") for _ in range(2)] == [None, None]
    wait = await limiter.hit("create per visitor", "ann")
    assert wait is not None and 1 <= wait <= 60
    assert await limiter.hit("create per visitor", "bo") is None
    assert all([await limiter.hit("create per IP", "x") is None for _ in range(100)])  # no limit
    with pytest.raises(AppError) as refused:
        await limiter.check(("create per visitor", "ann"))
    assert refused.value.status == 429 and refused.value.retry_after is not None
    assert "too many games created per visitor" in refused.value.message
    await limiter.close()


def test_client_keys_group_an_ipv6_client_by_its_64() -> None:
    assert client_key("203.0.113.7") == "203.0.113.7"
    assert client_key("::ffff:203.0.113.7") == "203.0.113.7"
    assert client_key("2001:db8:1:2::1") == client_key("2001:db8:1:2:ffff::9")
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key(None) == "unknown"
