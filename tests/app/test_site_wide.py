"""Nothing is per process (issue 27): the socket limits, the spectator count and the abandonment
sweep's owner hold for the whole site, through two real server processes sharing one PostgreSQL
database and one Redis (a prefix of each test's own), as in production (docs/state.md).

The socket limits are small here (4 per guest, 4 per address) so a test opens a few sockets.
A process killed outright (SIGKILL) stops counting once its lease lapses: the test moves the
surviving process's clock past it (``CLOCK_OFFSET_FILE``) rather than waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from app.config import Settings
from app.domain.clock import FakeClock
from app.main import create_app
from app.routes.ws import publish_spectators, recount_spectators
from app.runtime.hub import RedisHub, game_channel, seat_channel
from app.runtime.sockets import RedisSocketLimits, Refusal
from tests.app.conftest import make_settings
from tests.app.test_clocks import BLITZ_1_0, Table, fresh_clock, running
from tests.support.databases import fresh_database
from tests.support.gameplay import quick_game
from tests.support.patience import PATIENCE
from tests.support.redisserver import redis_server
from tests.support.server import LiveServer
from tests.support.wsclient import TestVisitor

REDIS = "redis://127.0.0.1:6379/0"
PER_VISITOR = 4
PER_ADDRESS = 6


@pytest.fixture(scope="module")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fresh_database("postgres", tmp_path_factory.mktemp("sitewide")) as url:
        yield url


@contextlib.contextmanager
def two_processes(
    database_url: str, tmp_path: Path, **env: str
) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two server processes on ``database_url`` and the shared Redis under a new prefix, each
    with a clock offset file of its own (``server.offset_file``)."""
    prefix = f"test-{secrets.token_hex(4)}:"
    servers = []
    try:
        for n in (1, 2):
            offset = tmp_path / f"offset-{n}"
            offset.write_text("0")
            server = LiveServer(
                database_url,
                {
                    "REDIS_URL": REDIS,
                    "REDIS_PREFIX": prefix,
                    "WS_MAX_SOCKETS_PER_VISITOR": str(PER_VISITOR),
                    "WS_MAX_SOCKETS_PER_IP": str(PER_ADDRESS),
                    "CLOCK_OFFSET_FILE": str(offset),
                    **env,
                },
            )
            server.start()
            servers.append(server)
        yield servers[0], servers[1]
    finally:
        for server in servers:
            server.stop()
            server.log_path.unlink(missing_ok=True)


async def connect(server: LiveServer, cookie: str | None = None) -> ClientConnection:
    headers = {"Cookie": cookie} if cookie else {}
    return await websockets.connect(server.ws_url + "/ws/live", additional_headers=headers)


async def first(ws: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), PATIENCE))
    return message


async def accepted(server: LiveServer, cookie: str | None = None) -> ClientConnection:
    """A socket to ``server`` that the server accepted (its first message is the list)."""
    ws = await connect(server, cookie)
    message = await first(ws)
    assert message["type"] == "live", message
    return ws


async def refused(server: LiveServer, cookie: str | None = None) -> str:
    """A socket to ``server`` that the server refused: the refusal's message."""
    async with await connect(server, cookie) as ws:
        message = await first(ws)
        assert message["type"] == "error" and message["code"] == "too_many_sockets", message
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        text: str = message["message"]
        return text


async def eventually_accepted(server: LiveServer, cookie: str | None = None) -> ClientConnection:
    """A socket accepted once the server has counted a closed one out (it sees the close soon
    after the client sends it)."""
    end = asyncio.get_running_loop().time() + PATIENCE
    while True:
        ws = await connect(server, cookie)
        if (await first(ws))["type"] == "live":
            return ws
        await ws.close()
        assert asyncio.get_running_loop().time() < end, "a closed socket never freed its place"
        await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def guest(server: LiveServer, name: str) -> AsyncIterator[TestVisitor]:
    visitor = await TestVisitor(server.url).start(name)
    try:
        yield visitor
    finally:
        await visitor.close()


async def close_all(sockets: list[ClientConnection]) -> None:
    for ws in sockets:
        await ws.close()


# --- the socket limits ------------------------------------------------------------------------


async def test_a_guests_sockets_are_counted_across_processes(
    database_url: str, tmp_path: Path
) -> None:
    """A guest's sockets spread over two processes count together: the next is refused on
    either, and closing one on one process frees a place on the other."""
    with two_processes(database_url, tmp_path, WS_MAX_SOCKETS_PER_IP="1000") as (one, two):
        async with guest(one, "Ann") as ann:
            sockets = [await accepted((one, two)[n % 2], ann.cookie) for n in range(PER_VISITOR)]
            for server in (one, two):
                assert "per visitor" in await refused(server, ann.cookie)
            async with guest(two, "Bo") as bo:  # another guest has places of its own
                await (await accepted(one, bo.cookie)).close()
            await sockets.pop(0).close()  # one of those on the first process
            sockets.append(await eventually_accepted(two, ann.cookie))
            assert "per visitor" in await refused(one, ann.cookie)
            await close_all(sockets)


async def test_an_addresss_sockets_are_counted_across_processes(
    database_url: str, tmp_path: Path
) -> None:
    """Sockets without a cookie are a new guest each: the limit per address holds for them,
    over both processes."""
    with two_processes(database_url, tmp_path) as (one, two):
        sockets = [await accepted((one, two)[n % 2]) for n in range(PER_ADDRESS)]
        for server in (one, two):
            assert "per address" in await refused(server)
        await sockets.pop().close()
        sockets.append(await eventually_accepted(one))
        await close_all(sockets)


async def test_a_killed_processs_sockets_stop_counting_once_its_lease_lapses(
    database_url: str, tmp_path: Path
) -> None:
    """SIGKILL: the process never says its sockets closed. They count until its lease lapses
    (PRESENCE_TTL of the survivor's clock), then no more."""
    with two_processes(database_url, tmp_path, WS_MAX_SOCKETS_PER_IP="1000") as (one, two):
        async with guest(two, "Cleo") as cleo:
            mine = [await accepted((one, two)[n % 2], cleo.cookie) for n in range(PER_VISITOR)]
            one.kill()
            assert "per visitor" in await refused(two, cleo.cookie)  # within the lease
            ttl = Settings().presence_ttl
            (tmp_path / "offset-2").write_text(str(int((ttl + 1) * 1000)))
            # The survivor's own two still count; the killed process's two no longer do.
            mine += [await accepted(two, cleo.cookie) for _ in range(PER_VISITOR // 2)]
            assert "per visitor" in await refused(two, cleo.cookie)
            await close_all(mine)


# --- spectators -------------------------------------------------------------------------------


async def test_spectators_on_both_processes_are_counted_together(
    database_url: str, tmp_path: Path
) -> None:
    with two_processes(database_url, tmp_path) as (one, two):
        async with guest(one, "Dan") as dan:
            slug, options = quick_game()
            created = await dan.http.post("/api/games", json={"game": slug, "options": options})
            path = f"/ws/games/{created.json()['id']}"
            watchers = []
            for n, server in enumerate((one, two, one)):
                ws = await websockets.connect(server.ws_url + path)
                snapshot = await first(ws)
                assert snapshot["type"] == "snapshot" and snapshot["spectators"] == n + 1
                watchers.append(ws)
            for ws in watchers:  # each hears the site's count, whichever process it is on
                while (message := await first(ws))["type"] != "spectators" or message[
                    "count"
                ] != len(watchers):
                    assert message["type"] == "spectators" and message["count"] < len(watchers)
            await close_all(watchers)


# --- the abandonment sweep: one owner ----------------------------------------------------------


async def test_one_process_at_a_time_sweeps_abandoned_games(tmp_path: Path) -> None:
    """Each process's sweeper asks for the sweep's lease; one holds it while it lives, and
    another takes it over once it lapses (as the deadline scheduler's). Two apps on one database
    of the test's own (the fake clocks' time is before the other tests' leases)."""
    clocks = [FakeClock(), FakeClock()]
    async with contextlib.AsyncExitStack() as stack:
        database_url = stack.enter_context(fresh_database("sqlite", tmp_path))
        apps = [create_app(make_settings(database_url), clock=clock) for clock in clocks]
        for app in apps:
            await stack.enter_async_context(app.router.lifespan_context(app))
        sweeps = [app.state.service.deadlines.sweep_abandoned for app in apps]
        swept = [await sweep() for sweep in sweeps]
        assert [n is not None for n in swept].count(True) == 1, swept
        holder = 0 if swept[0] is not None else 1
        other = 1 - holder
        assert await sweeps[holder]() is not None and await sweeps[other]() is None
        # The holder stops sweeping (as if it died): on the other's clock, its lease lapses.
        clocks[other].advance(make_settings(database_url).abandon_check_every * 3 + 1)
        assert await sweeps[other]() is not None
        assert await sweeps[holder]() is None


# --- the socket limits' parts, called directly --------------------------------------------------


def two_limits(url: str, clock: FakeClock, per_visitor: int = 2) -> list[RedisSocketLimits]:
    """Two processes' socket limits on the Redis at ``url`` (a prefix of their own)."""
    prefix = f"test-{secrets.token_hex(4)}:"
    return [
        RedisSocketLimits(per_visitor, 100, url=url, prefix=prefix, clock=clock, retry_after=0.0)
        for _ in range(2)
    ]


async def test_while_redis_is_down_each_process_counts_its_own_sockets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An outage never refuses everyone: each process admits up to the limit on its own sockets
    (the outage logged once). Once Redis is back, empty, each process writes its sockets again at
    its next admission or renewal, and the limit is the site's again; a socket closed during the
    outage, which Redis never heard of, does not count."""
    caplog.set_level(logging.WARNING, logger="hexmoot")
    clock = FakeClock()
    with redis_server() as redis:
        one, two = two_limits(redis.url, clock)
        try:
            held = [await one.admit("ann", "a"), await two.admit("ann", "a")]
            assert all(isinstance(n, int) for n in held)
            assert await one.admit("ann", "a") == Refusal("visitor", 2)
            redis.kill()
            extra = await one.admit("ann", "b")  # one's own: 1 of 2
            assert isinstance(extra, int) and await one.admit("ann", "c") == Refusal("visitor", 2)
            assert isinstance(await two.admit("bo", "d"), int)
            outage = [r for r in caplog.records if "socket limits" in r.getMessage()]
            assert len(outage) == 2, outage  # once per process
            await one.release(extra)  # Redis never hears of it
            redis.start()  # empty: every set and lease is gone
            await one.renew()
            await two.renew()
            # The site's count again: ann holds one socket on each process.
            assert await two.admit("ann", "e") == Refusal("visitor", 2)
            await one.release(held[0])
            assert isinstance(await two.admit("ann", "f"), int)
            assert "Redis answers again" in caplog.text
        finally:
            for limits in (one, two):
                await limits.close()


async def test_a_process_stopping_gives_its_sockets_up_at_once() -> None:
    clock = FakeClock()
    one, two = two_limits(REDIS, clock)
    try:
        assert isinstance(await one.admit("ann", "a"), int)
        assert isinstance(await one.admit("ann", "a"), int)
        assert await two.admit("ann", "a") == Refusal("visitor", 2)
        await one.close()  # a normal stop: its lease ends, without waiting for it to lapse
        assert isinstance(await two.admit("ann", "a"), int)
    finally:
        await two.close()


async def test_a_silent_process_stops_counting_when_its_lease_lapses_and_not_before() -> None:
    """``one`` stops renewing (killed): its sockets count until its lease lapses on ``two``'s
    clock; ``two``'s own sockets count however its clock jumps."""
    clock = FakeClock()
    one, two = two_limits(REDIS, clock, per_visitor=3)
    try:
        for limits in (one, one, two):
            assert isinstance(await limits.admit("ann", "a"), int)
        clock.advance(29.9)
        assert await two.admit("ann", "a") == Refusal("visitor", 3)
        clock.advance(0.2)  # 30.1 s: one's lease has lapsed
        assert isinstance(await two.admit("ann", "a"), int)
        assert isinstance(await two.admit("ann", "a"), int)
        assert await two.admit("ann", "a") == Refusal("visitor", 3)
    finally:
        for limits in (one, two):
            await limits.close()


# --- the spectator count, sent again when it changes by itself ----------------------------------


async def test_a_count_changed_by_a_process_gone_is_sent_again() -> None:
    """A process's spectators stop counting without any leave the others see (it was killed, and
    its presence expired). Each process's recount sends the game's count again then, and only
    when it differs from the count last sent by any process."""
    prefix = f"test-{secrets.token_hex(4)}:"
    alive, gone = RedisHub(REDIS, prefix), RedisHub(REDIS, prefix)
    channel = game_channel(secrets.token_hex(6))
    try:
        async with alive.subscribe(channel) as watching:

            async def sent() -> dict[str, Any]:
                text = await asyncio.wait_for(watching.get(), PATIENCE)
                assert text is not None
                message: dict[str, Any] = json.loads(text)
                return message

            async def nothing_sent() -> None:
                await alive.publish(channel, {"type": "marker"})
                assert await sent() == {"type": "marker"}

            await alive.presence(channel, "ann", +1)
            await gone.presence(channel, "bo", +1)
            await publish_spectators(gone, channel)
            assert await sent() == {"type": "spectators", "count": 2}
            await recount_spectators(alive)  # the count has not changed: nothing is sent
            await nothing_sent()
            await gone.close()  # its spectator counts no more (as once a killed one's expires)
            await recount_spectators(alive)
            assert await sent() == {"type": "spectators", "count": 1}
            await recount_spectators(alive)
            await nothing_sent()
    finally:
        await alive.close()
        await gone.close()


# --- a seated player whose process was killed ---------------------------------------------------


async def test_a_player_whose_sockets_were_on_a_process_gone_is_away(database_url: str) -> None:
    """Ann's only socket was on a process that was killed: nobody saw it close, but once its
    presence expires, the recount of the process holding Bob's socket says Ann away (and Bob may
    claim the game after her grace); back on a socket, she is present again."""
    clock = fresh_clock()
    prefix = f"test-{secrets.token_hex(4)}:"
    overrides = {"redis_url": REDIS, "redis_prefix": prefix, "away_grace": 30}
    gone = RedisHub(REDIS, prefix)
    try:
        async with running(database_url, clock, **overrides) as app:
            table = await Table.start(app, BLITZ_1_0)
            await table.play(2)
            service = app.state.service
            ann_id = (await table.seats[1].get("/api/me")).json()["id"]
            bob_id = (await table.seats[2].get("/api/me")).json()["id"]
            await gone.presence(seat_channel(table.id, 1), ann_id, +1)  # Ann's socket
            await service.table.arrived(table.id, 2, bob_id)  # Bob's, on this process
            await service.table.recount_away()
            assert (await table.snapshot())["game"]["away"] == [None, None]
            await gone.close()  # its presence is gone (as once a killed process's expires)
            await service.table.recount_away()
            away = (await table.snapshot())["game"]["away"]
            assert away == [{"since": clock.now(), "grace": 30_000}, None]
            clock.advance(30)
            claimed = await table.seats[2].post(f"/api/games/{table.id}/claim")
            assert claimed.status_code == 200, claimed.text
            await table.close()
    finally:
        await gone.close()
