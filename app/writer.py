"""The writing transaction of a game change, run in one step on either backend.

On PostgreSQL the statements go through the async engine (asyncpg talks to the server without
threads), and the server runs concurrent changes side by side.

SQLite has one writer at a time, and with ``synchronous=FULL`` every commit waits for the disk. So
SQLite changes are committed in groups: while one group is being written, the changes that arrive
queue up, and the next group takes all of them (up to :data:`GROUP_LIMIT`) into one transaction
with one fsync. Each change runs in its own savepoint, so a stale change is rolled back alone and
the others still commit; nobody hears of any change of a group before the group's COMMIT returns.
The group runs whole in one thread with a plain ``sqlite3`` connection (one hop from the event loop
per group, not one per statement), and this process's other writers take the same write slot
(:meth:`Writer.slot`), so they queue in the event loop instead of polling in SQLite's busy handler.
"""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, create_engine, event, insert, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db import _sqlite_pragmas
from app.models import Event, Game, Move

GROUP_LIMIT = 128


class Stale(Exception):
    """The game moved on (or another writer took the ply): nothing was written."""


@dataclass(frozen=True)
class Change:
    """One change of a game: the row's new values if it is still at ``base``, plus new rows."""

    game_id: str
    base: int
    values: dict[str, Any]
    events: list[dict[str, Any]]
    move: dict[str, Any] | None = None

    def apply(self, conn: Connection) -> None:
        """Execute the change on a sync connection inside a transaction; Stale if raced."""
        result = conn.execute(
            update(Game)
            .where(Game.id == self.game_id, Game.version == self.base)
            .values(**self.values)
        )
        if result.rowcount != 1:
            raise Stale
        if self.move is not None:
            conn.execute(insert(Move), [self.move])
        conn.execute(insert(Event), self.events)


class Writer:
    """Commits :class:`Change` transactions for one database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.groups = 0  # the writing transactions run so far (a group of changes each)
        self._executor: ThreadPoolExecutor | None = None
        self._sync: Any = None
        self._slot: asyncio.Lock | None = None
        self._queue: list[tuple[Change, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None
        if engine.dialect.name == "sqlite":
            url = make_url(str(engine.url.render_as_string(hide_password=False)))
            self._sync = create_engine(url.set(drivername="sqlite+pysqlite"), pool_size=1)
            event.listen(self._sync, "connect", _sqlite_pragmas)
            event.listen(self._sync, "connect", _explicit_transactions)
            event.listen(self._sync, "begin", _begin_immediate)
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")
            self._slot = asyncio.Lock()

    def slot(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """Hold this process's write slot (SQLite) for one writing transaction of another kind."""
        return self._slot if self._slot is not None else contextlib.nullcontext()

    async def write(self, change: Change) -> None:
        """Commit ``change``; Stale if the game is no longer at its base version."""
        if self._executor is None:
            async with self.engine.begin() as conn:
                try:
                    await conn.run_sync(change.apply)
                except IntegrityError as exc:
                    raise Stale from exc
            self.groups += 1
            return
        done = asyncio.get_running_loop().create_future()
        self._queue.append((change, done))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await done

    async def _flush(self) -> None:
        """Commit the queue group by group until it is empty."""
        assert self._executor is not None and self._slot is not None
        loop = asyncio.get_running_loop()
        while self._queue:
            async with self._slot:
                group = self._queue[:GROUP_LIMIT]
                del self._queue[:GROUP_LIMIT]
                changes = [change for change, _ in group]
                try:
                    outcomes = await loop.run_in_executor(self._executor, self._commit, changes)
                except Exception as exc:  # the COMMIT itself failed: nothing of the group is stored
                    outcomes = [exc] * len(group)
            self.groups += 1
            for (_, done), outcome in zip(group, outcomes, strict=True):
                if done.done():
                    continue
                if outcome is None:
                    done.set_result(None)
                else:
                    done.set_exception(outcome)

    def _commit(self, changes: list[Change]) -> list[Exception | None]:
        """One transaction for the group, one savepoint per change (writer thread)."""
        if len(changes) == 1:  # alone, a failed change rolls back the transaction: no savepoint
            try:
                with self._sync.begin() as conn:
                    changes[0].apply(conn)
            except (Stale, IntegrityError):
                return [Stale()]
            return [None]
        outcomes: list[Exception | None] = []
        with self._sync.begin() as conn:
            for change in changes:
                try:
                    with conn.begin_nested():
                        change.apply(conn)
                except (Stale, IntegrityError):
                    outcomes.append(Stale())
                except Exception as exc:  # this change alone fails; its savepoint is rolled back
                    outcomes.append(exc)
                else:
                    outcomes.append(None)
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
