"""The async SQLAlchemy engine: aiosqlite by default (WAL, foreign keys on), asyncpg for PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)


def normalise_url(url: str) -> str:
    """Pick the async driver: ``postgresql://`` becomes ``postgresql+asyncpg://``."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+asyncpg://" + url[len(prefix) :]
    if url.startswith("sqlite://") and not url.startswith("sqlite+aiosqlite://"):
        return "sqlite+aiosqlite://" + url[len("sqlite://") :]
    return url


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    # FULL: a commit is on disk before it returns, so an acknowledged move survives a power cut
    # too, not only a killed process (NORMAL would). The fsync runs in the writer thread.
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def make_engine(url: str, timeout: float | None = None) -> AsyncEngine:
    """An engine for ``url``; for SQLite the database directory is created and pragmas set.
    ``timeout`` (PostgreSQL): the seconds a connect or a statement may take before it fails
    (asyncpg's ``TimeoutError``, which :func:`app.repository.outage.database_unavailable` knows);
    None, no limit."""
    url = normalise_url(url)
    parsed = make_url(url)
    kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        kwargs["connect_args"] = {"timeout": 10}
        # A fixed pool: overflow connections would be opened and closed under load, and each
        # aiosqlite connection is a new thread plus the pragmas.
        kwargs.update(pool_size=32, max_overflow=0, pool_timeout=30)
    else:
        # pool_pre_ping: a pooled connection is tested (one round trip) before each checkout, so
        # the connections that died with a restarted server are replaced unseen instead of failing
        # the first requests after it is back (issue 27). It costs about 0.4 ms a checkout on
        # loopback (tests/deploy/test_postgres_outage.py prints it); retrying a failed transaction
        # instead would put a retry around every write, which only msg_id makes safe.
        # No PgBouncer: 30 connections per process at most (README, "Production").
        kwargs.update(pool_size=10, max_overflow=20, pool_pre_ping=True)
        if timeout is not None:
            # Not the wait for a pooled connection: under load that is the queue, not silence,
            # and it stays the pool's 30 s (a silent server frees its connections as each of
            # their statements times out).
            kwargs["connect_args"] = {"timeout": timeout, "command_timeout": timeout}
    engine = create_async_engine(url, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded objects usable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)


async def read_one_snapshot(session: AsyncSession) -> None:
    """Make every later read of ``session`` (until it ends) see the database at one instant.

    Call it first, before the session has run anything. Without it each SELECT sees the commits
    made before it ran, so a game row and its events read one after the other can disagree (the
    row before a move, its events after it). PostgreSQL: a REPEATABLE READ transaction. SQLite:
    the driver opens no transaction for a SELECT, so an explicit deferred ``BEGIN``; in WAL mode
    the first read then fixes the snapshot and no writer is ever blocked.
    """
    if session.get_bind().dialect.name == "sqlite":
        await session.execute(text("BEGIN"))
    else:
        await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
