"""Rate limits that hold across processes: named limits counted by the ``limits`` library.

Each limit has a name ("create per visitor", "import per IP", ...) and a rate from the settings
(``rate_create_per_visitor``, ... in the ``limits`` notation, "20/minute"). The counts live in Redis
(under the app's ``redis_prefix``) when ``REDIS_URL`` is set, so every server process counts the
same requests, and in this process's memory otherwise.

The strategy is the *moving window*: each key keeps the times of its last ``amount`` hits (a Redis
list trimmed to that length), and a hit is allowed when the oldest of them left the window. It is
exact, so no burst of twice the rate fits across a window boundary (as with a fixed window), and
its ``Retry-After`` is exact too: the moment the oldest hit leaves the window. What it costs, one
list entry per allowed hit up to the limit, is small at these rates (tens per minute); the sliding
window counter would keep two counters instead but only approximates the rate, and its reset time
is a guess.

If Redis cannot be reached, each process counts in its own memory meanwhile (issue 27): the limits
hold per process, so a client spreading its requests over N processes gets up to N times the rate
for the outage's length, but none gets more than the rate from one process, and no request is
refused because Redis is away (a count that cannot be read is never taken as full). The outage is
logged once, and Redis is asked again after ``limits_retry_after_outage`` seconds; the counts made
in memory meanwhile are then forgotten.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string
from starlette.requests import HTTPConnection

from app.config import Settings
from app.errors import AppError, ErrorCode

log = logging.getLogger("hexmoot")

#: Every named limit and the setting that holds its rate; "per visitor" limits count the guest id,
#: "per IP" limits the client's address (see :func:`client_key`).
LIMITS: dict[str, str] = {
    "create per visitor": "rate_create_per_visitor",
    "create per IP": "rate_create_per_ip",
    "replay per visitor": "rate_replay_per_visitor",
    "replay per IP": "rate_replay_per_ip",
    "import per visitor": "rate_import_per_visitor",
    "import per IP": "rate_import_per_ip",
    "export per visitor": "rate_export_per_visitor",
    "export per IP": "rate_export_per_ip",
    "card per IP": "rate_card_per_ip",
    "explorer per visitor": "rate_explorer_per_visitor",
    "explorer per IP": "rate_explorer_per_ip",
    "challenge per visitor": "rate_challenge_per_visitor",
    "login per IP": "rate_login_per_ip",
    "login per account": "rate_login_per_account",
    "signup per IP": "rate_signup_per_ip",
    "chat per visitor": "rate_chat_per_visitor",
    "verify per account": "rate_verify_per_account",
}

#: What each limited action is called in a refusal's message.
_ACTIONS = {
    "create": "games created",
    "replay": "replays",
    "import": "imports",
    "export": "exports",
    "card": "pictures of games",
    "challenge": "challenges",
    "login": "login attempts",
    "signup": "sign-ups",
    "chat": "chat lines",
    "verify": "verification mails",
}


def client_key(host: str | None) -> str:
    """The key of a client address: an IPv4 address, or the /64 network of an IPv6 one (a single
    client commonly holds a whole /64, so counting its addresses one by one would not limit it).

    >>> client_key("203.0.113.7"), client_key("2001:db8:1:2:aaaa::1"), client_key(None)
    ('203.0.113.7', '2001:db8:1:2::/64', 'unknown')
    """
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]  # not an address (a test client's name, a Unix socket): as it is
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def parse_rate(text: str) -> list[RateLimitItem]:
    """The rate limit items of ``text`` ("20/minute", several joined by ";"); none if empty."""
    return parse_many(text) if text.strip() else []


class Limiter:
    """Named rate limits, counted in Redis or in memory; see the module's docstring."""

    def __init__(
        self,
        rates: Mapping[str, str],
        redis_url: str | None = None,
        prefix: str = "hexmoot:",
        retry_after_outage: float = 5.0,
    ) -> None:
        self._rates = {name: parse_rate(text) for name, text in rates.items()}
        self._storage: Storage
        self._pool: Any = None
        if redis_url:
            from redis.asyncio import ConnectionPool
            from redis.asyncio.retry import Retry
            from redis.backoff import NoBackoff

            # No retries and short timeouts: while Redis is away, a request is let through at once
            # instead of waiting on redis-py's backoff. The pool is ours, to be closed with the app.
            no_retry = Retry(NoBackoff(), 0)
            self._pool = ConnectionPool.from_url(
                redis_url, socket_connect_timeout=1.0, socket_timeout=1.0, retry=no_retry
            )
            client: dict[str, Any] = {"connection_pool": self._pool, "retry": no_retry}
            storage = storage_from_string(
                f"async+{redis_url}",
                implementation="redispy",
                key_prefix=f"{prefix}limits",
                wrap_exceptions=True,
                **client,
            )
            assert isinstance(storage, Storage)  # an "async+" scheme gives an asyncio storage
            self._storage = storage
        else:
            self._storage = MemoryStorage()
        self._strategy = MovingWindowRateLimiter(self._storage)
        # This process's own counts, used while Redis is away (the same as _strategy without it).
        self._fallback = (
            MovingWindowRateLimiter(MemoryStorage()) if self._pool is not None else self._strategy
        )
        self._retry_after_outage = retry_after_outage
        self._down_until: float | None = None  # time.monotonic() when Redis may be asked again

    @classmethod
    def from_settings(cls, settings: Settings) -> Limiter:
        """The limiter of ``settings``: every named limit, in Redis if a URL is set."""
        return cls(
            {name: getattr(settings, field) for name, field in LIMITS.items()},
            settings.redis_url,
            settings.redis_prefix,
            settings.limits_retry_after_outage,
        )

    async def hit(self, name: str, who: str) -> float | None:
        """Count one request of ``who`` against the limit ``name``: None if it is allowed, else the
        seconds until it would be (a refused request is not counted)."""
        items = self._rates[name]
        if not items:
            return None
        if not self._down():
            try:
                wait = await self._hit(self._strategy, items, name, who)
            except Exception:
                self._outage()
            else:
                if self._down_until is not None:
                    self._down_until = None
                    log.warning("rate limits: their storage answers again; limits apply again")
                return wait
        return await self._hit(self._fallback, items, name, who)

    @staticmethod
    async def _hit(
        strategy: MovingWindowRateLimiter, items: list[RateLimitItem], name: str, who: str
    ) -> float | None:
        for item in items:
            if not await strategy.hit(item, name, who):
                stats = await strategy.get_window_stats(item, name, who)
                return max(stats.reset_time - time.time(), 1.0)
        return None

    async def check(self, *hits: tuple[str, str]) -> None:
        """Count one request against each ``(name, who)``; AppError ``rate_limited`` (429, with
        the seconds to wait as ``Retry-After``) if any limit is reached."""
        for name, who in hits:
            wait = await self.hit(name, who)
            if wait is not None:
                action, _, per = name.partition(" ")
                raise AppError(
                    ErrorCode.RATE_LIMITED,
                    f"too many {_ACTIONS.get(action, action)} {per}: try again in {wait:.0f} s",
                    retry_after=wait,
                )

    async def reachable(self) -> bool:
        """Whether the storage answers now (and, if so, the limits apply again at once)."""
        try:
            ok = await self._storage.check()
        except Exception:
            ok = False
        if ok:
            self._down_until = None
        return ok

    async def close(self) -> None:
        """Close the Redis connections, if any."""
        if self._pool is not None:
            await self._pool.disconnect()

    def _down(self) -> bool:
        return self._down_until is not None and time.monotonic() < self._down_until

    def _outage(self) -> None:
        if self._down_until is None:  # once per outage, not once per request
            log.warning(
                "rate limits: their storage is unreachable; each process counts its own "
                "requests until it answers again",
                exc_info=True,
            )
        self._down_until = time.monotonic() + self._retry_after_outage


def rate_limited(*names: str) -> Callable[[HTTPConnection], Awaitable[None]]:
    """A route dependency counting each request against the limits ``names`` ("... per visitor":
    the guest id; "... per IP": the client address); 429 ``rate_limited`` past one of them."""
    for name in names:
        if name not in LIMITS:
            raise ValueError(f"no limit named {name!r}")

    async def dependency(request: HTTPConnection) -> None:
        limiter: Limiter = request.app.state.limiter
        await limiter.check(*((name, _who(request, name)) for name in names))

    return dependency


def _who(request: HTTPConnection, name: str) -> str:
    if name.endswith(" per IP"):
        return client_key(request.client.host if request.client else None)
    guest_id: Any = request.state.guest_id
    return str(guest_id)
