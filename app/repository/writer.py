"""The one write path: every write of the app is a change that the :class:`Writer` commits.

A change is a function run on the writer's (synchronous) connection inside its transaction, so the
statements of one write go to the database in one hop; :mod:`app.repository.writes` builds them.

On PostgreSQL the changes go through the async engine (asyncpg talks to the server without
threads), and the server runs concurrent changes side by side.

SQLite has one writer at a time, and with ``synchronous=FULL`` every commit waits for the disk. So
SQLite changes are committed in groups: while one group is being written, the changes that arrive
queue up, and the next group takes all of them (up to :data:`GROUP_LIMIT`) into one transaction
with one fsync. Each change runs in its own savepoint, so a failing change (a stale game change) is
rolled back alone and the others still commit; nobody hears of any change of a group before the
group's COMMIT returns. The group runs whole in one thread with a plain ``sqlite3`` connection (one
hop from the event loop per group, not one per statement). As every write of the process comes
through here, no write waits in SQLite's busy handler for another of this process.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from sqlalchemy import Connection, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db import _sqlite_pragmas

GROUP_LIMIT = 128
T = TypeVar("T")
#: A write: statements run on the writer's connection inside its transaction; what it returns is
#: what :meth:`Writer.write` returns.
Change = Callable[[Connection], T]


class Stale(Exception):
    """The game moved on (or another writer took the ply): nothing was written."""


class RowChanged(Exception):
    """The game row is no longer the copy a change was computed from (a process's cached row, see
    :meth:`~app.services.core.Core.cached_row`): nothing was written; compute it again from the
    row as the database has it."""


class Writer:
    """Commits every change of one database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.groups = 0  # the writing transactions run so far (a group of changes each)
        self._executor: ThreadPoolExecutor | None = None
        self._sync: Any = None
        self._queue: list[tuple[Change[Any], asyncio.Future[Any]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._held = False
        if engine.dialect.name == "sqlite":
            url = make_url(str(engine.url.render_as_string(hide_password=False)))
            self._sync = create_engine(url.set(drivername="sqlite+pysqlite"), pool_size=1)
            event.listen(self._sync, "connect", _sqlite_pragmas)
            event.listen(self._sync, "connect", _explicit_transactions)
            event.listen(self._sync, "begin", _begin_immediate)
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")

    async def write(self, change: Change[T]) -> T:
        """Commit ``change`` and return its answer; what it raised if it failed (nothing stored)."""
        if self._executor is None:
            async with self.engine.begin() as conn:
                answer = await conn.run_sync(change)
            self.groups += 1
            return answer
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.append((change, done))
        self._start()
        return await done

    @property
    def queued(self) -> int:
        """The changes waiting for a group (SQLite)."""
        return len(self._queue)

    @asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """Queue every change written inside the block, and commit them as groups once it ends
        (SQLite; elsewhere a change commits at once, as always). A test uses it so that what it
        sends together is grouped together however slowly each write reaches the writer."""
        self._held = True
        try:
            yield
        finally:
            self._held = False
            self._start()

    def _start(self) -> None:
        if self._queue and not self._held and (self._flusher is None or self._flusher.done()):
            self._flusher = asyncio.create_task(self._flush())

    async def _flush(self) -> None:
        """Commit the queue group by group until it is empty (or held: see :meth:`held`)."""
        assert self._executor is not None
        loop = asyncio.get_running_loop()
        while self._queue and not self._held:
            group = self._queue[:GROUP_LIMIT]
            del self._queue[:GROUP_LIMIT]
            changes = [change for change, _ in group]
            try:
                outcomes = await loop.run_in_executor(self._executor, self._commit, changes)
            except Exception as exc:  # the COMMIT itself failed: nothing of the group is stored
                outcomes = [(False, exc)] * len(group)
            self.groups += 1
            for (_, done), (ok, answer) in zip(group, outcomes, strict=True):
                if done.done():
                    continue
                if ok:
                    done.set_result(answer)
                else:
                    done.set_exception(answer)

    def _commit(self, changes: list[Change[Any]]) -> list[tuple[bool, Any]]:
        """One transaction for the group, one savepoint per change (writer thread)."""
        if len(changes) == 1:  # alone, a failed change rolls back the transaction: no savepoint
            try:
                with self._sync.begin() as conn:
                    answer = changes[0](conn)
            except Exception as exc:
                return [(False, exc)]
            return [(True, answer)]
        outcomes: list[tuple[bool, Any]] = []
        with self._sync.begin() as conn:
            for change in changes:
                try:
                    with conn.begin_nested():
                        answer = change(conn)
                except Exception as exc:  # this change alone fails; its savepoint is rolled back
                    outcomes.append((False, exc))
                else:
                    outcomes.append((True, answer))
        return outcomes

    def close(self) -> None:
        """Stop the thread and close the sync engine."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._sync.dispose()


def _explicit_transactions(dbapi_connection: Any, _record: Any) -> None:
    # pysqlite opens transactions behind the application's back and mishandles SAVEPOINT; with
    # its own handling off, SQLAlchemy's BEGIN (below) and savepoints are what SQLite sees.
    dbapi_connection.isolation_level = None


def _begin_immediate(conn: Connection) -> None:
    # Take the write lock at BEGIN: a deferred transaction that upgrades later can fail at once
    # with SQLITE_BUSY instead of waiting for the busy timeout.
    conn.exec_driver_sql("BEGIN IMMEDIATE")
