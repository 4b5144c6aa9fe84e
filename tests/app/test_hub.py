"""The pub/sub interface on both backends, and two server processes sharing one game via Redis."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

import pytest

from app.runtime.hub import Hub, MemoryHub, RedisHub, Subscription
from tests.support.gameplay import MovePicker, quick_game, start_game
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
