"""Publish/subscribe behind one interface, so the rest of the app never assumes a single process.

``publish(channel, message)`` sends a JSON message to every subscriber of ``channel`` (in any
process, once a shared backend is used); ``subscribe(channel)`` yields them in publish order.
Presence (who watches a channel) is counted here for the same reason. ``MemoryHub`` serves one
process; a Redis backend (PUBLISH/SUBSCRIBE and a hash per channel for presence) will implement the
same ``Hub`` interface when the site runs on several processes.
"""

from __future__ import annotations

import asyncio
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
