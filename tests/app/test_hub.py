"""The pub/sub interface on both backends, and two server processes sharing one game via Redis."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.routes.ws.transport import forward as _forward
from app.runtime.hub import RESYNC, Hub, MemoryHub, RedisHub, Subscription, encode
from tests.support.gameplay import MovePicker, quick_game, start_game
from tests.support.patience import PATIENCE
from tests.support.redisserver import RedisServer, redis_server
from tests.support.server import live_server
from tests.support.wsclient import TestVisitor

REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture(params=["memory", "redis"])
async def hubs(request: pytest.FixtureRequest) -> AsyncIterator[tuple[Hub, Hub]]:
    """Two hubs as two processes would have them (the same one, in memory)."""
    if request.param == "memory":
        hub = MemoryHub()
        yield hub, hub
        return
    prefix = f"test-{secrets.token_hex(4)}:"
    first, second = RedisHub(REDIS, prefix), RedisHub(REDIS, prefix)
    yield first, second
    await first.close()
    await second.close()


async def next_text(subscription: Subscription) -> str | None:
    return await asyncio.wait_for(subscription.get(), 10)


async def test_messages_reach_every_subscriber_in_order(hubs: tuple[Hub, Hub]) -> None:
    sender, receiver = hubs
    async with (
        receiver.subscribe("game:x") as one,
        receiver.subscribe("game:x") as two,
        sender.subscribe("game:y") as other,
    ):
        # subscribe() returns once the subscription is live: nothing published after it is lost.
        for n in range(5):
            await sender.publish("game:x", {"type": "event", "version": n})
        for subscription in (one, two):
            assert [await next_text(subscription) for _ in range(5)] == [
                f'{{"type":"event","version":{n}}}' for n in range(5)
            ]
        await sender.publish("game:y", {"type": "pong"})
        assert await next_text(other) == '{"type":"pong"}'


async def test_presence_counts_distinct_members_across_hubs(hubs: tuple[Hub, Hub]) -> None:
    first, second = hubs
    assert await first.presence("game:p", "ann", +1) == 1
    assert await second.presence("game:p", "ann", +1) == 1  # a second tab of the same visitor
    assert await second.presence("game:p", "bo", +1) == 2
    assert await first.presence_count("game:p") == 2
    assert await first.presence("game:p", "ann", -1) == 2
    assert await second.presence("game:p", "ann", -1) == 1
    assert await second.presence("game:p", "bo", -1) == 0


async def test_a_slow_subscriber_is_cut_off_not_buffered_forever() -> None:
    hub = MemoryHub()
    async with hub.subscribe("game:z") as subscription:
        for n in range(1001):
            await hub.publish("game:z", {"n": n})
        assert subscription.overflowed
        drained = [await subscription.get() for _ in range(1000)]
        assert drained[0] == '{"n":0}'
        assert await subscription.get() is None  # the socket closes with 4001 and resyncs


async def test_two_processes_share_a_game_through_redis(database_url: str) -> None:
    """A move played on one server process is seen by a spectator of another."""
    env = {"REDIS_URL": REDIS, "REDIS_PREFIX": f"test-{secrets.token_hex(4)}:"}
    with live_server(database_url, env) as one, live_server(database_url, env) as two:
        ann = await TestVisitor(one.url).start("Ann")
        bo = await TestVisitor(two.url).start("Bo")
        watcher = await TestVisitor(two.url).start("Carl")
        try:
            slug, options = quick_game()
            body = await start_game(ann.http, bo.http, slug, options)
            player = await ann.open(body["id"])
            await player.expect("snapshot")
            spectator = await watcher.open(body["id"])
            await spectator.expect("snapshot")
            picker = MovePicker(slug, options, seed=4)
            text = picker.pick()
            await player.send({"type": "move", "move": text, "version": 2, "msg_id": "x"})
            assert (await player.expect("ack"))["version"] == 3
            event = await spectator.expect("event")
            assert event["version"] == 3 and event["data"]["move"] == text
        finally:
            for visitor in (ann, bo, watcher):
                await visitor.close()


# --- Redis outages and presence that expires ------------------------------------------------------


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


async def poll(condition: Callable[[], Awaitable[bool]], deadline: float = PATIENCE) -> None:
    """Wait until ``condition()`` holds, checking every 50 ms; fail after ``deadline`` seconds."""
    end = time.monotonic() + deadline
    while not await condition():
        assert time.monotonic() < end, "the condition did not hold in time"
        await asyncio.sleep(0.05)


FAST = {"backoff_min": 0.05, "backoff_max": 0.2}


async def test_the_hub_survives_a_redis_restart(own_redis: RedisServer) -> None:
    prefix = f"test-{secrets.token_hex(4)}:"
    first, second = RedisHub(own_redis.url, prefix, **FAST), RedisHub(own_redis.url, prefix, **FAST)
    try:
        async with first.subscribe("game:a") as a, second.subscribe("game:a") as b:
            await second.publish("game:a", {"n": 1})
            assert await next_text(a) == '{"n":1}' and await next_text(b) == '{"n":1}'
            assert (await first.health() or {}).get("ok") is True

            own_redis.kill()
            # A publish after a commit never raises; this process's own subscribers still get it.
            await first.publish("game:a", {"n": 2})
            assert await next_text(a) == '{"n":2}'
            await poll(lambda: _unhealthy(first))
            # A new subscription during the outage is given at once, not after a 10 s wait.
            async with asyncio.timeout(3), first.subscribe("game:c") as c:
                pass
            del c

            own_redis.start()
            # Every subscription that may have missed messages is told to resync, in order,
            # once it is live again: everything published after the marker arrives.
            for subscription in (a, b):
                assert await _skip_to_resync(subscription)
            await poll(lambda: _healthy(first))
            await second.publish("game:a", {"n": 3})
            await first.publish("game:a", {"n": 4})
            for subscription in (a, b):
                assert [await next_text(subscription) for _ in range(2)] == ['{"n":3}', '{"n":4}']
    finally:
        await first.close()
        await second.close()


async def test_a_subscription_made_during_an_outage_goes_live_after_it(
    own_redis: RedisServer,
) -> None:
    prefix = f"test-{secrets.token_hex(4)}:"
    first, second = RedisHub(own_redis.url, prefix, **FAST), RedisHub(own_redis.url, prefix, **FAST)
    try:
        async with first.subscribe("game:warm"):
            own_redis.kill()
            await poll(lambda: _unhealthy(first))
            async with first.subscribe("game:new") as fresh:
                own_redis.start()
                assert await _skip_to_resync(fresh)
                await second.publish("game:new", {"n": 5})
                assert await next_text(fresh) == '{"n":5}'
    finally:
        await first.close()
        await second.close()


async def test_presence_of_a_process_that_stopped_refreshing_expires() -> None:
    """A crashed process's spectators stop counting once its keys expire; a live one keeps its."""
    prefix = f"test-{secrets.token_hex(4)}:"
    ttl = {"presence_ttl": 1.0}
    live = RedisHub(REDIS, prefix, presence_refresh=0.2, **ttl)
    crashed = RedisHub(REDIS, prefix, presence_refresh=3600, **ttl)  # it never refreshes
    try:
        # The live process's members come first: were they not refreshed, they would go first.
        assert await live.presence("game:t", "bo", +1) == 1
        assert await live.presence("game:t", "cy", +1) == 2
        assert await crashed.presence("game:t", "ann", +1) == 3

        async def dropped() -> bool:
            return await live.presence_count("game:t") < 3

        await poll(dropped)
        assert await live.presence_count("game:t") == 2
        assert await crashed.presence_count("game:t") == 2
    finally:
        await live.close()
        await crashed.close()


async def test_close_returns_though_a_refresh_swallowed_its_cancellation() -> None:
    """A library that swallows the CancelledError sent into it (or turns it into an exception
    the refresher logs) must not leave ``close`` waiting forever for a refresher that goes on
    (it hung the suite once, with the refresh's Redis write timing out on a busy machine)."""
    hub = RedisHub(REDIS, f"test-{secrets.token_hex(4)}:", presence_refresh=0.01)
    writing = asyncio.Event()

    async def swallowing(channel: str, members: list[str]) -> None:
        writing.set()
        # Swallowed: what the refresher sees is a write that returned.
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(3600)

    assert await hub.presence("game:t", "ann", +1) == 1
    hub._write_presence = swallowing  # type: ignore[method-assign]
    await asyncio.wait_for(writing.wait(), PATIENCE)
    # A hang is the failure: the bound only turns it into a quick one.
    await asyncio.wait_for(hub.close(), PATIENCE)


async def _healthy(hub: Hub) -> bool:
    return (await hub.health() or {}).get("ok") is True


async def _unhealthy(hub: Hub) -> bool:
    return not await _healthy(hub)


async def _skip_to_resync(subscription: Subscription) -> bool:
    """Read until the resync marker (messages before it may repeat what the database has)."""
    while True:
        text = await next_text(subscription)
        if text == RESYNC:
            return True
        if text is None:
            return False


class FakeSocket:
    """What ``_forward`` needs of a socket: its version, and the messages it sends."""

    def __init__(self, version: int) -> None:
        self.version = version
        self.sent: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def close(self, code: int) -> None:
        self.sent.append({"closed": code})


async def test_a_socket_catches_up_from_the_database_where_events_may_be_missing() -> None:
    """On RESYNC, and on an event that skips a version, the socket gets a catch-up read at that
    moment; events it already holds are never sent again."""
    reads: list[int] = []
    socket = FakeSocket(version=3)
    database_versions = iter([7, 10])  # the game's version at each catch-up read

    async def resync() -> dict[str, Any]:
        reads.append(socket.version)
        version = next(database_versions)
        return {"type": "catchup", "since": socket.version, "version": version, "events": []}

    subscription = Subscription()
    for text in (
        '{"type":"event","version":4}',
        RESYNC,  # the hub's pub/sub came back: versions 5 to 7 were committed meanwhile
        '{"type":"event","version":6}',  # already in the catch-up: skipped
        '{"type":"event","version":8}',
        '{"type":"event","version":10}',  # 9 is missing: catch up instead
        '{"type":"spectators","count":2}',
    ):
        subscription.push(text)
    forward = asyncio.create_task(_forward(socket, subscription, resync))  # type: ignore[arg-type]

    async def done() -> bool:
        return len(socket.sent) == 5

    await poll(done, deadline=5)
    forward.cancel()
    assert [m.get("version", m["type"]) for m in socket.sent] == [4, 7, 8, 10, "spectators"]
    assert reads == [4, 8]


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),  # lone surrogates included: orjson refuses them, the fallback writes them
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), _JSON, max_size=6))
def test_a_message_is_encoded_as_the_standard_library_encodes_it(message: dict[str, Any]) -> None:
    """orjson writes the sockets' messages (issue 27): what json.dumps wrote, the same keys in the
    same order and the same values (a float may be spelled otherwise: 1e-6 for 1e-06)."""
    standard = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    ours = encode(message)
    assert json.loads(ours, object_pairs_hook=list) == json.loads(standard, object_pairs_hook=list)
    if not any(isinstance(v, float) for v in _leaves(message)):
        assert ours == standard


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for inner in value.values():
            yield from _leaves(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _leaves(inner)
    else:
        yield value
