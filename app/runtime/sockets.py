"""The socket limits of the whole site: how many websockets one guest, and one client address,
hold open at once, counted over every server process (``WS_MAX_SOCKETS_PER_VISITOR``,
``WS_MAX_SOCKETS_PER_IP``; docs/state.md says why it is built this way).

:class:`SocketLimits` counts this process's sockets in memory: the whole site when there is one
process (no ``REDIS_URL``). :class:`RedisSocketLimits` counts them in Redis too:

- a set per guest and per address holds one member per open socket, ``<node>|<number>``: the
  process (its *node* id) and the socket's number in it;
- a sorted set of the live nodes holds each process's lease, its expiry on the app's clock,
  renewed by every admission and every ``refresh`` seconds.

One script admits a socket: it counts the members of the guest's and the address's sets whose
node's lease runs (removing the others), and adds the socket to both if both are under their
limit, atomically, so two processes cannot both admit the last place. Its cost is one round trip
per socket opened (and one per socket closed), whatever the number of processes; a process's
lease, with the expiry of the sets it holds members of, costs one script call per 1,000 sets
every ``refresh`` seconds, not a command per socket. A process killed outright
(SIGKILL) leaves its members behind: they stop counting once its lease lapses (``lease`` seconds,
by default PRESENCE_TTL, 30 s), and are removed by the next admission that reads them. A process
stopping normally gives its lease up, and its sockets stop counting at once.

While Redis cannot be reached, each process admits against its own sockets only, the limits as
they were before they were site-wide: an outage never refuses everyone. The outage is logged once;
Redis is asked again after ``retry_after`` seconds. Once it answers, the process takes a new node
id and writes every socket it holds under it (the old id's members, which may hold sockets closed
during the outage, count no more): Redis losing its data heals the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from redis.exceptions import RedisError

from app.config import Settings
from app.domain.clock import Clock, to_ms

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("hexmoot")

Per = Literal["visitor", "address"]


@dataclass(frozen=True)
class Refusal:
    """A socket refused: its guest (``visitor``) or its client ``address`` holds its limit."""

    per: Per
    limit: int


@dataclass
class _Held:
    visitor: str
    address: str
    member: str | None = None  # its member in Redis, when written there


class SocketLimits:
    """The limits counted in this process's memory: the whole site when it has one process."""

    def __init__(self, per_visitor: int, per_address: int) -> None:
        self.per_visitor = per_visitor
        self.per_address = per_address
        self._numbers = itertools.count(1)
        self._held: dict[int, _Held] = {}
        self._visitors: Counter[str] = Counter()
        self._addresses: Counter[str] = Counter()

    async def start(self) -> None:
        """Start background work (the Redis lease)."""

    async def close(self) -> None:
        """Give this process's sockets up and release resources."""

    async def admit(self, visitor: str, address: str) -> int | Refusal:
        """Count a new socket of guest ``visitor`` from ``address`` (a :func:`client_key`): its
        number, to :meth:`release` when it closes, or the limit it would pass."""
        refusal = self._local_refusal(visitor, address)
        return refusal if refusal is not None else self._hold(visitor, address)

    async def release(self, number: int) -> None:
        """The socket ``number`` closed: it counts no more."""
        self._drop(number)

    def held(self) -> int:
        """How many sockets this process holds."""
        return len(self._held)

    def _local_refusal(self, visitor: str, address: str) -> Refusal | None:
        if self._visitors[visitor] >= self.per_visitor:
            return Refusal("visitor", self.per_visitor)
        if self._addresses[address] >= self.per_address:
            return Refusal("address", self.per_address)
        return None

    def _hold(
        self, visitor: str, address: str, member: str | None = None, number: int | None = None
    ) -> int:
        number = next(self._numbers) if number is None else number
        self._held[number] = _Held(visitor, address, member)
        self._visitors[visitor] += 1
        self._addresses[address] += 1
        return number

    def _drop(self, number: int) -> _Held | None:
        held = self._held.pop(number, None)
        if held is None:
            return None
        for counter, key in ((self._visitors, held.visitor), (self._addresses, held.address)):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]
        return held


# KEYS: the live nodes, the guest's set, the address's set. ARGV: this node, the new member, now
# (ms of the app's clock), the lease (ms), the two limits, the sets' expiry (ms). Returns 0 when
# admitted, 1 or 2 when the guest's or the address's limit is reached, 3 when this node has no
# lease (Redis lost it, or another process saw it lapse): the caller writes its sockets again.
_ADMIT = """
local nodes, node, now = KEYS[1], ARGV[1], tonumber(ARGV[3])
if not redis.call('ZSCORE', nodes, node) then return 3 end
redis.call('ZADD', nodes, now + tonumber(ARGV[4]), node)
local alive = {[node] = true}
local function count(key)
  local n = 0
  for _, member in ipairs(redis.call('SMEMBERS', key)) do
    local owner = string.match(member, '^[^|]+')
    local live = alive[owner]
    if live == nil then
      local expiry = redis.call('ZSCORE', nodes, owner)
      live = (expiry and tonumber(expiry) > now) or false
      alive[owner] = live
    end
    if live then n = n + 1 else redis.call('SREM', key, member) end
  end
  return n
end
if count(KEYS[2]) >= tonumber(ARGV[5]) then return 1 end
if count(KEYS[3]) >= tonumber(ARGV[6]) then return 2 end
for i = 2, 3 do
  redis.call('SADD', KEYS[i], ARGV[2])
  redis.call('PEXPIRE', KEYS[i], ARGV[7])
end
return 0
"""


# KEYS: the live nodes, then sets of this node's sockets. ARGV: this node, now, the lease, the sets'
# expiry. Renews the node's lease (0 if it had none: nothing is written) and the sets' expiry, and
# drops the leases that lapsed a lease ago.
_RENEW = """
local nodes, node, now, lease = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if not redis.call('ZSCORE', nodes, node) then return 0 end
redis.call('ZADD', nodes, now + lease, node)
redis.call('ZREMRANGEBYSCORE', nodes, '-inf', now - lease)
for i = 2, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[4]) end
return 1
"""
#: Sets renewed by one call of the renewal script.
RENEW_BATCH = 1000


class RedisSocketLimits(SocketLimits):
    """The limits counted in Redis over every process; see the module's docstring."""

    def __init__(
        self,
        per_visitor: int,
        per_address: int,
        *,
        url: str,
        prefix: str,
        clock: Clock,
        lease: float = 30.0,
        refresh: float = 10.0,
        timeout: float = 2.0,
        retry_after: float = 5.0,
    ) -> None:
        super().__init__(per_visitor, per_address)
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # No retries and short timeouts: while Redis is away a socket opens on the local count.
        self._redis: Redis = aioredis.Redis.from_url(
            url,
            decode_responses=True,
            socket_connect_timeout=timeout,
            socket_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )
        self._script = self._redis.register_script(_ADMIT)
        self._renew = self._redis.register_script(_RENEW)
        # One hash tag for every key, so the script's keys share a slot on a Redis Cluster.
        self._base = f"{prefix}{{sockets}}:"
        self._clock = clock
        self._lease = to_ms(lease)
        self._refresh = refresh
        self._timeout = timeout
        self._retry_after = retry_after
        self._node = secrets.token_hex(8)
        self._stale = True  # Redis may not hold this process's sockets: write them (again)
        self._down_until: float | None = None  # time.monotonic() when to ask Redis again
        self._task: asyncio.Task[None] | None = None

    def _key(self, per: Per, who: str) -> str:
        return f"{self._base}{per}:{who}"

    @property
    def _nodes(self) -> str:
        return f"{self._base}nodes"

    def _expiry(self) -> int:
        """How long (ms of Redis's own clock) a set lives unless a process renews it: three
        leases, so it outlives every socket it counts and only the dead nodes' sets go."""
        return 3 * self._lease

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._keep_lease())

    async def admit(self, visitor: str, address: str) -> int | Refusal:
        if not self._down():
            try:
                async with asyncio.timeout(self._timeout):
                    return await self._admit(visitor, address)
            except (RedisError, OSError) as exc:  # TimeoutError included
                self._failed(exc)
        return await super().admit(visitor, address)  # this process's sockets only

    async def _admit(self, visitor: str, address: str) -> int | Refusal:
        for _ in range(2):
            if self._stale:
                await self._write_all()
            node, number = self._node, next(self._numbers)
            member = f"{node}|{number}"
            keys = [self._nodes, self._key("visitor", visitor), self._key("address", address)]
            args: list[str | int] = [node, member, self._clock.now(), self._lease]
            args += [self.per_visitor, self.per_address, self._expiry()]
            verdict = int(await self._script(keys=keys, args=args))
            self._recovered()
            if verdict == 1:
                return Refusal("visitor", self.per_visitor)
            if verdict == 2:
                return Refusal("address", self.per_address)
            if verdict == 0:
                if node != self._node:  # written under an id given up meanwhile: write again
                    self._stale = True
                return self._hold(visitor, address, member, number)
            self._stale = True  # 3: this node has no lease
        raise RedisError("the sockets' lease could not be written")

    async def release(self, number: int) -> None:
        held = self._drop(number)
        if held is None or held.member is None or self._down():
            return
        try:
            async with asyncio.timeout(self._timeout), self._redis.pipeline(False) as pipe:
                pipe.srem(self._key("visitor", held.visitor), held.member)
                pipe.srem(self._key("address", held.address), held.member)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            self._failed(exc)

    async def _write_all(self) -> None:
        """Take a new node id and write every socket of this process under it; the old id's
        lease ends at once (its members may hold sockets whose close Redis never heard)."""
        old, self._node = self._node, secrets.token_hex(8)
        # Cleared now, not after the write: an admission finishing meanwhile under the old id
        # sets it again (and a failure of this write does too, in _failed).
        self._stale = False
        now = self._clock.now()
        expiry = self._expiry()
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.zrem(self._nodes, old)
            pipe.zadd(self._nodes, {self._node: now + self._lease})
            for number, held in self._held.items():
                held.member = f"{self._node}|{number}"
                for key in (self._key("visitor", held.visitor), self._key("address", held.address)):
                    pipe.sadd(key, held.member)
                    pipe.pexpire(key, expiry)
            await pipe.execute()

    async def renew(self) -> None:
        """Renew this process's lease and its sets' expiry (or write its sockets again, when
        Redis lost them); drop the leases that lapsed long ago. Run every ``refresh`` seconds."""
        if self._stale:
            await self._write_all()
            return
        keys = {self._key("visitor", held.visitor) for held in self._held.values()}
        keys |= {self._key("address", held.address) for held in self._held.values()}
        ordered = sorted(keys)
        # One command per batch of sets, not one per set: 2,000 sockets' sets cost milliseconds.
        for start in range(0, max(1, len(ordered)), RENEW_BATCH):
            args: list[str | int] = [self._node, self._clock.now(), self._lease, self._expiry()]
            batch = ordered[start : start + RENEW_BATCH]
            if not int(await self._renew(keys=[self._nodes, *batch], args=args)):
                # The lease was gone: Redis lost it, or another process saw it lapse.
                await self._write_all()
                return

    async def _keep_lease(self) -> None:
        while True:
            await self._clock.sleep(self._refresh)
            try:
                async with asyncio.timeout(self._timeout):
                    await self.renew()
                self._recovered()
            except (RedisError, OSError) as exc:
                self._failed(exc)
            except Exception:  # a bug: logged, and the lease is kept on (written again)
                self._stale = True
                log.exception("the sockets' lease could not be renewed")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        # This process's sockets stop counting at once.
        with contextlib.suppress(RedisError, OSError):
            async with asyncio.timeout(self._timeout):
                await self._redis.zrem(self._nodes, self._node)
        await self._redis.aclose()

    def _down(self) -> bool:
        return self._down_until is not None and time.monotonic() < self._down_until

    def _failed(self, exc: BaseException) -> None:
        self._stale = True
        if self._down_until is None:
            log.warning(
                "socket limits: Redis is unreachable (%s: %s); each process counts its own "
                "sockets until it answers again",
                type(exc).__name__,
                exc,
            )
        self._down_until = time.monotonic() + self._retry_after

    def _recovered(self) -> None:
        if self._down_until is not None:
            self._down_until = None
            log.warning("socket limits: Redis answers again; the limits are site-wide again")


def make_socket_limits(settings: Settings, clock: Clock) -> SocketLimits:
    """The socket limits of ``settings``: in Redis when ``REDIS_URL`` is set, else this process's."""
    per_visitor, per_address = settings.ws_max_sockets_per_visitor, settings.ws_max_sockets_per_ip
    if not settings.redis_url:
        return SocketLimits(per_visitor, per_address)
    return RedisSocketLimits(
        per_visitor,
        per_address,
        url=settings.redis_url,
        prefix=settings.redis_prefix,
        clock=clock,
        lease=settings.presence_ttl,
        refresh=settings.presence_refresh,
        timeout=settings.redis_timeout,
        retry_after=settings.limits_retry_after_outage,
    )
