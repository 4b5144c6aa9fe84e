"""Publish/subscribe behind one interface, so the rest of the app never assumes a single process.

``publish(channel, message)`` sends a JSON message to every subscriber of ``channel`` (in any
process, once a shared backend is used); ``subscribe(channel)`` yields them in publish order.
Presence (who watches a channel) is counted here for the same reason. ``MemoryHub`` serves one
process; :class:`RedisHub` (PUBLISH/SUBSCRIBE, presence in expiring keys) serves several, and
survives Redis going away and coming back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from abc import ABC, abstractmethod
from collections import Counter, deque
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import orjson
from redis.exceptions import RedisError

from app.runtime.scheduler import stop_if_cancelled

if TYPE_CHECKING:
    from redis.asyncio.client import PubSub

QUEUE_LIMIT = 1000
# Queued to every subscription that may have missed messages (its channel was resubscribed after a
# pub/sub outage): the reader catches up from the database. Never sent to a client; no JSON message
# starts with a letter.
RESYNC = "resync"

# Channels whose presence counts are read by one batch of pipelines (see RedisHub.changed_counts).
COUNT_BATCH = 500

# Seconds a Redis command may take while Redis is known to be down (see RedisHub._budget).
OUTAGE_COMMAND_TIMEOUT = 0.25

log = logging.getLogger("hexmoot")


def encode(message: Mapping[str, Any]) -> str:
    """The wire form of a message: compact JSON, by orjson (issue 27: about a seventh of the
    standard library's time for a move's event with its view, and a move encodes a few). What
    ``json.dumps(message, separators=(",", ":"), ensure_ascii=False)`` writes, keys in the same
    order (a float may be spelled otherwise: ``1e-6``), which it falls back to for what orjson
    refuses (an integer past 64 bits, a lone surrogate)."""
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
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

    @abstractmethod
    async def count_changed(self, channel: str, count: int) -> bool:
        """Record ``count`` as the presence count last announced on ``channel`` (by any process);
        whether it differs from the one announced before (True when that is unknown)."""

    @abstractmethod
    async def changed_counts(self, channels: list[str]) -> dict[str, int]:
        """:meth:`count_changed` for many channels at once: the presence count of each of
        ``channels`` that differs from the one last announced on it, recorded as announced
        (none while the backend is unreachable; every one, changed or not, the first time after
        this process's pub/sub came back: it may have missed an announcement)."""

    @abstractmethod
    def local_channels(self) -> list[str]:
        """The channels this process's subscribers listen to."""

    @abstractmethod
    def present_channels(self) -> list[str]:
        """The channels this process has present members on."""

    @property
    def delivering(self) -> bool:
        """Whether a message published now, in any process, reaches this process's subscribers
        (False during an outage of a shared backend, whose subscribers then get :data:`RESYNC`)."""
        return True

    async def start(self) -> None:  # noqa: B027 - optional hook
        """Start background work (a backend also starts it on first use)."""

    async def health(self) -> dict[str, Any] | None:
        """The backend's health for ``/healthz`` (``ok`` first), or None when there is no
        separate service to check."""
        return None

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources."""


class MemoryHub(Hub):
    """The single-process backend."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Subscription]] = {}
        self._presence: dict[str, Counter[str]] = {}
        self._announced: dict[str, int] = {}

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

    async def count_changed(self, channel: str, count: int) -> bool:
        before = self._announced.get(channel)
        if count or channel in self._subscribers:
            self._announced[channel] = count
        else:  # nobody left to tell: forget the channel
            self._announced.pop(channel, None)
        return before != count

    async def changed_counts(self, channels: list[str]) -> dict[str, int]:
        counts = {channel: await self.presence_count(channel) for channel in channels}
        return {c: n for c, n in counts.items() if await self.count_changed(c, n)}

    def local_channels(self) -> list[str]:
        return list(self._subscribers)

    def present_channels(self) -> list[str]:
        return list(self._presence)


def game_channel(game_id: str) -> str:
    """The channel of one game's events."""
    return f"game:{game_id}"


LIVE_CHANNEL = "live"


def player_channel(player_id: str) -> str:
    """The channel of one player's games and challenges: ``mine_changed`` when one changes."""
    return f"player:{player_id}"


class RedisHub(Hub):
    """The several-process backend: Redis PUBLISH/SUBSCRIBE, presence in keys that expire.

    One Redis subscription per process fans messages out to the local subscribers, so a
    thousand sockets on one game cost Redis one subscriber, not a thousand.

    Redis may go away and come back. The listener then reconnects with capped exponential backoff
    and resubscribes every channel that still has local subscribers; each of those subscribers
    gets :data:`RESYNC` once its channel is live again, to catch up from the database. While
    Redis is down, ``publish`` delivers to this process's own subscribers (and never raises: the
    change it announces is committed), ``subscribe`` registers locally at once, and presence
    counts this process's members only. Each failure is logged once per outage, and the recovery.

    Presence: each process keeps its members of a channel in a set of its own that expires after
    ``presence_ttl`` seconds unless the process refreshes it (every ``presence_refresh``), so the
    spectators of a crashed process stop counting; a set per channel names the processes.
    """

    def __init__(
        self,
        url: str,
        prefix: str = "hexmoot:",
        *,
        backoff_min: float = 0.1,
        backoff_max: float = 2.0,
        timeout: float = 2.0,
        subscribe_timeout: float = 5.0,
        presence_ttl: float = 30.0,
        presence_refresh: float = 10.0,
    ) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # Commands get one immediate retry (a pooled connection may predate a Redis restart) and
        # a socket timeout, so an unreachable Redis cannot hold up a move's ack for long.
        self._redis = aioredis.Redis.from_url(
            url,
            decode_responses=True,
            socket_connect_timeout=timeout,
            socket_timeout=timeout,
            retry=Retry(NoBackoff(), 1),
        )
        # The listener's connection reconnects only through the listener, which knows to resync.
        self._listener_redis = aioredis.Redis.from_url(
            url,
            decode_responses=True,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
            health_check_interval=10,
        )
        self._prefix = prefix
        self._timeout = timeout
        self._node = secrets.token_hex(8)  # this process, in presence keys
        self._backoff = (backoff_min, backoff_max)
        self._subscribe_timeout = subscribe_timeout
        self._presence_ttl_ms = max(1, int(presence_ttl * 1000))
        self._presence_refresh = presence_refresh
        self._local: dict[str, set[Subscription]] = {}
        # Channels whose first local subscription waits for Redis to confirm it.
        self._confirming: dict[str, asyncio.Event] = {}
        self._pubsub: PubSub | None = None  # set while the listener is subscribed
        self._listening = asyncio.Event()  # the same, to wait for
        self._present: dict[str, Counter[str]] = {}  # this process's members per channel
        self._tasks: list[asyncio.Task[None]] = []
        self._outage_since: float | None = None
        # Whether the listener has had a connection, and whether counts announced while it had
        # none may have been missed here (see changed_counts).
        self._listened = False
        self._announce_all = False

    # The listener -------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the listener and the presence refresher (also done on first use)."""
        if not self._tasks:
            self._tasks = [
                asyncio.create_task(self._listen()),
                asyncio.create_task(self._refresh_presence()),
            ]

    @property
    def listening(self) -> bool:
        """Whether the listener is subscribed right now."""
        return self._pubsub is not None

    @property
    def delivering(self) -> bool:
        return self.listening and self._outage_since is None

    async def _listen(self) -> None:
        """Receive forever: reconnect with backoff after any failure, never die silently."""
        delay = self._backoff[0]
        while True:
            pubsub = self._listener_redis.pubsub()
            try:
                # A channel of this process's own keeps the connection subscribed when no game is.
                await pubsub.subscribe(f"{self._prefix}hub:{self._node}")
                # From here on subscribe() subscribes new channels itself; the ones before are
                # resubscribed now (no await between the two lines: none can slip between).
                self._pubsub = pubsub
                self._listening.set()
                # Counts another process announced while this one listened to nothing never came
                # here, and will not come again (each is announced once): the next recount
                # announces every count of this process's channels, changed or not.
                self._announce_all = self._listened
                self._listened = True
                channels = [self._prefix + channel for channel in self._local]
                if channels:
                    await pubsub.subscribe(*channels)
                self._recovered()
                delay = self._backoff[0]
                while True:
                    item = await pubsub.get_message(timeout=1.0)
                    if item is not None:
                        self._dispatch(item)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                self._failed("the pub/sub listener", exc)
            except Exception as exc:  # a bug: logged with its traceback, and the listener goes on
                self._failed("the pub/sub listener", exc, unexpected=True)
            finally:
                if self._pubsub is pubsub:
                    self._pubsub = None
                    self._listening.clear()
                # Subscriptions waiting for a confirmation that will not come go on now; their
                # channels are resubscribed on reconnection, with RESYNC.
                for waiting in self._confirming.values():
                    waiting.set()
                self._confirming.clear()
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
            stop_if_cancelled()
            await asyncio.sleep(delay)
            delay = min(delay * 2, self._backoff[1])

    def _dispatch(self, item: Mapping[str, Any]) -> None:
        channel = str(item["channel"])[len(self._prefix) :]
        kind = item.get("type")
        if kind == "message":
            for subscription in self._local.get(channel, ()):
                subscription.push(str(item["data"]))
        elif kind == "subscribe":
            waiting = self._confirming.pop(channel, None)
            if waiting is not None:
                waiting.set()  # a first subscription: its caller reads the database after this
            else:
                # A resubscription (after an outage, or a confirmation that came too late):
                # messages may have been missed before this point, none after it.
                for subscription in self._local.get(channel, ()):
                    subscription.push(RESYNC)

    def _failed(self, where: str, exc: BaseException, unexpected: bool = False) -> None:
        """Log the first failure of an outage; a failure that is no Redis fault (a bug) is logged
        every time, with its traceback."""
        if unexpected:
            log.error("redis: %s failed; retrying", where, exc_info=exc)
            return
        if self._outage_since is not None:
            return
        self._outage_since = time.monotonic()
        log.warning("redis unreachable (%s: %s: %s); retrying", where, type(exc).__name__, exc)

    def _budget(self) -> float:
        """Seconds a command may take: short during a known outage, so that an unreachable Redis
        (a lost host, not a refused connection) delays each ack by a fraction of a second only."""
        return self._timeout if self._outage_since is None else OUTAGE_COMMAND_TIMEOUT

    def _recovered(self) -> None:
        if self._outage_since is not None:
            log.warning("redis reachable again after %.1f s", time.monotonic() - self._outage_since)
            self._outage_since = None

    # Publish and subscribe ------------------------------------------------------------------

    async def publish(self, channel: str, message: Mapping[str, Any]) -> None:
        await self.start()
        text = encode(message)
        try:
            async with asyncio.timeout(self._budget()):
                await self._redis.publish(self._prefix + channel, text)
            self._recovered()
            delivered = self.listening  # Redis brings it back to this process's subscribers
        except (RedisError, OSError) as exc:  # TimeoutError included
            self._failed("publish", exc)
            delivered = False
        if not delivered:
            for subscription in self._local.get(channel, ()):
                subscription.push(text)

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Subscription]:
        await self.start()
        if self._pubsub is None and self._outage_since is None:
            # The listener is starting: give it a moment (a known outage gets none).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._subscribe_timeout):
                    await self._listening.wait()
        subscription = Subscription()
        local = self._local.setdefault(channel, set())
        fresh = not local
        local.add(subscription)
        try:
            pubsub = self._pubsub
            if fresh and pubsub is not None:
                # Wait for Redis to confirm: a message published before that would be lost, while
                # the caller reads its snapshot after subscribing and trusts nothing falls between.
                confirmed = self._confirming.setdefault(channel, asyncio.Event())
                await self._confirm(pubsub, channel, confirmed)
            elif channel in self._confirming:  # another local subscriber is still being confirmed
                await self._confirm(None, channel, self._confirming[channel])
            # Else Redis is down: the listener subscribes the channel when it is back, and the
            # subscription then gets RESYNC.
            yield subscription
        finally:
            local.discard(subscription)
            if not local and self._local.get(channel) is local:
                del self._local[channel]
                self._confirming.pop(channel, None)
                pubsub = self._pubsub
                if pubsub is not None:
                    try:
                        await pubsub.unsubscribe(self._prefix + channel)
                    except (RedisError, OSError) as exc:
                        self._failed("unsubscribe", exc)

    async def _confirm(self, pubsub: PubSub | None, channel: str, confirmed: asyncio.Event) -> None:
        """Subscribe (if ``pubsub``) and wait a bounded time for the confirmation; past that, or if
        Redis fails meanwhile, go on: the late confirmation will send RESYNC."""
        try:
            async with asyncio.timeout(self._subscribe_timeout):
                if pubsub is not None:
                    await pubsub.subscribe(self._prefix + channel)
                await confirmed.wait()
        except (RedisError, OSError) as exc:  # TimeoutError included
            if self._confirming.get(channel) is confirmed:
                del self._confirming[channel]
            self._failed("subscribe", exc)

    # Presence ---------------------------------------------------------------------------------

    # A channel's keys share the hash tag {channel}, so SUNION works on a Redis Cluster too.

    def _nodes_key(self, channel: str) -> str:
        return f"{self._prefix}presence:{{{channel}}}"

    def _members_key(self, channel: str, node: str) -> str:
        return f"{self._prefix}presence:{{{channel}}}:{node}"

    async def presence(self, channel: str, member: str, delta: int) -> int:
        await self.start()
        counter = self._present.setdefault(channel, Counter())
        before = counter[member]
        counter[member] += delta
        after = counter[member]
        if after <= 0:
            del counter[member]
        if not counter:
            del self._present[channel]
        try:
            async with asyncio.timeout(self._budget()):
                if before <= 0 < after:
                    await self._write_presence(channel, [member])
                elif after <= 0 < before:
                    await self._redis.srem(self._members_key(channel, self._node), member)
                return await self._count(channel)
        except (RedisError, OSError) as exc:
            self._failed("presence", exc)
            return len(counter)

    async def presence_count(self, channel: str) -> int:
        try:
            async with asyncio.timeout(self._budget()):
                return await self._count(channel)
        except (RedisError, OSError) as exc:
            self._failed("presence", exc)
            return len(self._present.get(channel, ()))

    async def count_changed(self, channel: str, count: int) -> bool:
        # Kept for three presence lifetimes, renewed by every announcement (and by each process's
        # recount of the channels it serves: app.routes.ws.game.recount_spectators).
        key = self._announced_key(channel)
        try:
            async with asyncio.timeout(self._budget()):
                before = await self._redis.set(key, count, px=self._announced_ttl(), get=True)
        except (RedisError, OSError) as exc:
            self._failed("presence", exc)
            return True
        return before is None or str(before) != str(count)

    async def changed_counts(self, channels: list[str]) -> dict[str, int]:
        changed: dict[str, int] = {}
        everything, self._announce_all = self._announce_all, False
        try:
            for start in range(0, len(channels), COUNT_BATCH):
                async with asyncio.timeout(self._budget()):
                    batch = channels[start : start + COUNT_BATCH]
                    changed |= await self._changed_counts(batch, everything)
        except (RedisError, OSError) as exc:
            self._failed("presence", exc)
            self._announce_all = self._announce_all or everything
        return changed

    async def _changed_counts(self, channels: list[str], everything: bool) -> dict[str, int]:
        """Three round trips for the whole batch (the nodes, their members, the announcements)."""
        async with self._redis.pipeline(transaction=False) as pipe:
            for channel in channels:
                pipe.smembers(self._nodes_key(channel))
            nodes: list[set[str]] = await pipe.execute()
        async with self._redis.pipeline(transaction=False) as pipe:
            for channel, present in zip(channels, nodes, strict=True):
                if present:
                    pipe.sunion([self._members_key(channel, node) for node in sorted(present)])
            unions = iter(await pipe.execute())
        counts = [len(next(unions)) if present else 0 for present in nodes]
        async with self._redis.pipeline(transaction=False) as pipe:
            for channel, count in zip(channels, counts, strict=True):
                pipe.set(self._announced_key(channel), count, px=self._announced_ttl(), get=True)
            before = await pipe.execute()
        return {
            channel: count
            for channel, count, was in zip(channels, counts, before, strict=True)
            if everything or was is None or str(was) != str(count)
        }

    def _announced_key(self, channel: str) -> str:
        return f"{self._nodes_key(channel)}:announced"

    def _announced_ttl(self) -> int:
        return 3 * self._presence_ttl_ms

    def local_channels(self) -> list[str]:
        return list(self._local)

    def present_channels(self) -> list[str]:
        return list(self._present)

    async def _count(self, channel: str) -> int:
        nodes = await self._redis.smembers(self._nodes_key(channel))
        if not nodes:
            return 0
        keys = [self._members_key(channel, str(node)) for node in sorted(nodes)]
        return len(await self._redis.sunion(keys))

    async def _write_presence(self, channel: str, members: list[str]) -> None:
        """Add ``members`` to this process's set for ``channel`` and restart both keys' TTLs."""
        ttl = self._presence_ttl_ms
        mine = self._members_key(channel, self._node)
        nodes = self._nodes_key(channel)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.sadd(mine, *members)
            pipe.pexpire(mine, ttl)
            pipe.sadd(nodes, self._node)
            pipe.pexpire(nodes, ttl)
            await pipe.execute()

    async def _refresh_presence(self) -> None:
        """Keep this process's presence alive (and restore it after Redis lost it)."""
        while True:
            await asyncio.sleep(self._presence_refresh)
            for channel, counter in list(self._present.items()):
                try:
                    async with asyncio.timeout(self._budget()):
                        await self._write_presence(channel, list(counter))
                except (RedisError, OSError) as exc:
                    self._failed("presence refresh", exc)
                    break
                except Exception as exc:  # a bug: logged, and the refresher goes on
                    self._failed("presence refresh", exc, unexpected=True)
                    break
            stop_if_cancelled()

    # Health and shutdown ------------------------------------------------------------------------

    async def health(self) -> dict[str, Any] | None:
        await self.start()
        try:
            async with asyncio.timeout(self._subscribe_timeout):
                answered = bool(await self._redis.ping())
        except (RedisError, OSError):
            answered = False
        return {"ok": answered and self.listening, "listener": self.listening}

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        # This process's spectators leave with it.
        with contextlib.suppress(RedisError, OSError):
            mine = [self._members_key(channel, self._node) for channel in self._present]
            if mine:
                async with asyncio.timeout(self._budget()):
                    await self._redis.delete(*mine)
        await self._redis.aclose()
        await self._listener_redis.aclose()


def make_hub(redis_url: str | None, prefix: str = "hexmoot:", **options: float) -> Hub:
    """The hub for this deployment: Redis when a URL is configured (``options`` are
    :class:`RedisHub`'s), else in-memory."""
    return RedisHub(redis_url, prefix, **options) if redis_url else MemoryHub()


def chat_channel(game_id: str, room: str) -> str:
    """The channel of one chat room of a game: ``players`` or ``spectators``."""
    return f"chat:{room}:{game_id}"


def account_channel(account_id: int) -> str:
    """The channel of one account's sessions: :data:`SESSIONS_ENDED` when some of them end."""
    return f"account:{account_id}"


#: Published on an account's channel when some of its sessions end: each socket of the account
#: asks the database whether its own session is among them (see app.routes.ws.transport).
SESSIONS_ENDED: dict[str, Any] = {"type": "sessions_ended"}


def seat_channel(game_id: str, seat: int) -> str:
    """The presence key of one seat of a game: how many of its player's sockets are open."""
    return f"seat:{seat}:{game_id}"


def parse_seat_channel(channel: str) -> tuple[str, int] | None:
    """The game and the seat of a :func:`seat_channel`; None for another channel."""
    kind, _, rest = channel.partition(":")
    seat, _, game_id = rest.partition(":")
    if kind != "seat" or seat not in ("1", "2") or not game_id:
        return None
    return game_id, int(seat)
