"""Publish/subscribe behind one interface, so the rest of the app never assumes a single process.

``publish(channel, message)`` sends a JSON message to every subscriber of ``channel`` (in any
process, once a shared backend is used); ``subscribe(channel)`` yields them in publish order.
Presence (who watches a channel) is counted here for the same reason. ``MemoryHub`` serves one
process; a Redis backend (PUBLISH/SUBSCRIBE and a hash per channel for presence) will implement the
same ``Hub`` interface when the site runs on several processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from abc import ABC, abstractmethod
from collections import Counter, deque
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

QUEUE_LIMIT = 1000


def encode(message: Mapping[str, Any]) -> str:
    """The wire form of a message: compact JSON."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


class Subscription:
    """The messages of one channel for one subscriber, bounded: a slow reader is cut off."""

    def __init__(self, limit: int = QUEUE_LIMIT) -> None:
        self._items: deque[str] = deque()
        self._ready = asyncio.Event()
        self._limit = limit
        self.overflowed = False

    def push(self, text: str) -> None:
        """Queue ``text``; past the limit, mark the subscription overflowed instead."""
        if self.overflowed:
            return
        if len(self._items) >= self._limit:
            self.overflowed = True
        else:
            self._items.append(text)
        self._ready.set()

    async def get(self) -> str | None:
        """The next message, or None once overflowed and drained (the reader must resync)."""
        while not self._items:
            if self.overflowed:
                return None
            self._ready.clear()
            await self._ready.wait()
        return self._items.popleft()


class Hub(ABC):
    """The pub/sub interface."""

    @abstractmethod
    async def publish(self, channel: str, message: Mapping[str, Any]) -> None:
        """Deliver ``message`` to every current subscriber of ``channel``."""

    @abstractmethod
    def subscribe(self, channel: str) -> Any:
        """An async context manager yielding a :class:`Subscription` to ``channel``."""

    @abstractmethod
    async def presence(self, channel: str, member: str, delta: int) -> int:
        """Add (``delta=1``) or remove (``-1``) one connection of ``member``; distinct members now."""

    @abstractmethod
    async def presence_count(self, channel: str) -> int:
        """How many distinct members are present on ``channel``."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources."""


class MemoryHub(Hub):
    """The single-process backend."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Subscription]] = {}
        self._presence: dict[str, Counter[str]] = {}

    async def publish(self, channel: str, message: Mapping[str, Any]) -> None:
        subscribers = self._subscribers.get(channel)
        if not subscribers:
            return
        text = encode(message)
        for subscription in subscribers:
            subscription.push(text)

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Subscription]:
        subscription = Subscription()
        self._subscribers.setdefault(channel, set()).add(subscription)
        try:
            yield subscription
        finally:
            subscribers = self._subscribers.get(channel)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._subscribers[channel]

    async def presence(self, channel: str, member: str, delta: int) -> int:
        counter = self._presence.setdefault(channel, Counter())
        counter[member] += delta
        if counter[member] <= 0:
            del counter[member]
        if not counter:
            del self._presence[channel]
            return 0
        return len(counter)

    async def presence_count(self, channel: str) -> int:
        return len(self._presence.get(channel, ()))


def game_channel(game_id: str) -> str:
    """The channel of one game's events."""
    return f"game:{game_id}"


LIVE_CHANNEL = "live"


class RedisHub(Hub):
    """The several-process backend: Redis PUBLISH/SUBSCRIBE, presence in one hash per channel.

    One Redis subscription per process fans messages out to the local subscribers, so a
    thousand sockets on one game cost Redis one subscriber, not a thousand.
    """

    def __init__(self, url: str, prefix: str = "hexmoot:") -> None:
        import redis.asyncio as aioredis

        self._redis = aioredis.Redis.from_url(url, decode_responses=True)
        self._pubsub = self._redis.pubsub()
        self._prefix = prefix
        self._local: dict[str, set[Subscription]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._confirmed: dict[str, asyncio.Event] = {}

    async def publish(self, channel: str, message: Mapping[str, Any]) -> None:
        await self._redis.publish(self._prefix + channel, encode(message))

    async def _listen(self) -> None:
        while True:
            if not self._pubsub.subscribed:
                await asyncio.sleep(0.05)
                continue
            item = await self._pubsub.get_message(timeout=1.0)
            if item is None:
                continue
            channel = str(item["channel"])[len(self._prefix) :]
            if item.get("type") == "subscribe" and channel in self._confirmed:
                self._confirmed.pop(channel).set()
            if item.get("type") != "message":
                continue
            for subscription in self._local.get(channel, ()):
                subscription.push(str(item["data"]))

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Subscription]:
        subscription = Subscription()
        local = self._local.setdefault(channel, set())
        fresh = not local
        local.add(subscription)
        if fresh:
            # Wait for Redis to confirm: a message published before that would be lost, while
            # the caller reads its snapshot after subscribing and trusts nothing falls between.
            confirmed = self._confirmed.setdefault(channel, asyncio.Event())
            await self._pubsub.subscribe(self._prefix + channel)
            if self._listener is None:
                self._listener = asyncio.create_task(self._listen())
            await asyncio.wait_for(confirmed.wait(), 10)
        elif channel in self._confirmed:  # another local subscriber is still being confirmed
            await asyncio.wait_for(self._confirmed[channel].wait(), 10)
        try:
            yield subscription
        finally:
            local.discard(subscription)
            if not local:
                del self._local[channel]
                await self._pubsub.unsubscribe(self._prefix + channel)

    async def presence(self, channel: str, member: str, delta: int) -> int:
        key = f"{self._prefix}presence:{channel}"
        if await self._redis.hincrby(key, member, delta) <= 0:
            await self._redis.hdel(key, member)
        return int(await self._redis.hlen(key))

    async def presence_count(self, channel: str) -> int:
        return int(await self._redis.hlen(f"{self._prefix}presence:{channel}"))

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        await self._redis.aclose()


def make_hub(redis_url: str | None, prefix: str = "hexmoot:") -> Hub:
    """The hub for this deployment: Redis when a URL is configured, else in-memory."""
    return RedisHub(redis_url, prefix) if redis_url else MemoryHub()
