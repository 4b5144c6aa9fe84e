"""Whether a failure is the database being out of reach, and the one refusal that says so.

A database that refuses connections, restarts, or drops them (PostgreSQL stopped or failing over,
a network cut) surfaces as many exception types: asyncpg's connection errors and the server's
``admin_shutdown`` or ``cannot_connect_now``, the ``OSError`` of a refused connect, SQLAlchemy's
``OperationalError``, ``InterfaceError``, any ``DBAPIError`` that invalidated its connection, and the
pool's ``TimeoutError``. :func:`database_unavailable` recognises them all (following ``__cause__``,
``__context__`` and SQLAlchemy's ``orig``), so the HTTP handlers (``app/web_errors.py``) and the
sockets (``app/routes/ws/transport.py``) answer them alike: :func:`unavailable`, 503 with
``Retry-After``. Nothing was half-applied: a write is one transaction, and a move retried with its
``msg_id`` is answered as a duplicate if its commit did land (docs/protocol.md, "Unavailable").
"""

from __future__ import annotations

import errno

import asyncpg
from sqlalchemy import exc as sa

from app.errors import AppError, ErrorCode

#: Seconds a client should wait before retrying (the ``Retry-After`` of the 503).
RETRY_AFTER = 1
#: The OS errors of a connection that could not be made or was cut (a refused connect that tried
#: several addresses is an ``OSError`` with no errno at all).
_NETWORK_ERRNOS = {
    None,
    errno.ECONNREFUSED,
    errno.ECONNRESET,
    errno.ECONNABORTED,
    errno.EPIPE,
    errno.ETIMEDOUT,
    errno.EHOSTUNREACH,
    errno.ENETUNREACH,
    errno.ENOTCONN,
}


class Unanswered(Exception):
    """The database answered, but too late to vouch for the time meanwhile (it was silent)."""


_OUT_OF_REACH: tuple[type[BaseException], ...] = (
    Unanswered,
    ConnectionError,
    sa.OperationalError,
    sa.InterfaceError,
    sa.TimeoutError,  # no pooled connection came in time
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.OperatorInterventionError,  # admin_shutdown, cannot_connect_now, ...
)


def database_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) says the database could not be reached."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, _OUT_OF_REACH):
            return True
        if isinstance(current, sa.DBAPIError) and current.connection_invalidated:
            return True
        if isinstance(current, OSError) and current.errno in _NETWORK_ERRNOS:
            return True
        orig = current.orig if isinstance(current, sa.DBAPIError) else None
        pending += [current.__cause__, current.__context__, orig]
    return False


def unavailable() -> AppError:
    """The refusal of a request the database's absence stopped: nothing changed, retry later."""
    return AppError(
        ErrorCode.UNAVAILABLE,
        "the database cannot be reached just now: nothing changed, try again in a moment",
        retry_after=RETRY_AFTER,
    )
