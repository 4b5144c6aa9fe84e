"""The writing transaction of a game change, run in one step on either backend.

On PostgreSQL the statements go through the async engine (asyncpg talks to the server without
threads). On SQLite every statement through aiosqlite is a hop to a thread and back, and each hop
waits for the GIL and the event loop; under load the hops of one move add up to tens of
milliseconds. So SQLite writes run whole in one thread with a plain ``sqlite3`` connection: one hop
per change, and the single thread is also the process's one SQLite writer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Connection, create_engine, event, insert, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db import _sqlite_pragmas
from app.models import Event, Game, Move

T = TypeVar("T")


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
    """Runs :class:`Change` transactions for one database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._executor: ThreadPoolExecutor | None = None
        self._sync: Any = None
        if engine.dialect.name == "sqlite":
            url = make_url(str(engine.url.render_as_string(hide_password=False)))
            self._sync = create_engine(url.set(drivername="sqlite+pysqlite"), pool_size=1)
            event.listen(self._sync, "connect", _sqlite_pragmas)
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")

    async def write(self, change: Change) -> None:
        """Commit ``change``; Stale if the game is no longer at its base version."""
        if self._executor is None:
            async with self.engine.begin() as conn:
                try:
                    await conn.run_sync(change.apply)
                except IntegrityError as exc:
                    raise Stale from exc
            return
        await self.run(change.apply)

    async def run(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` in one transaction in the SQLite writer thread."""
        assert self._executor is not None and self._sync is not None
        engine = self._sync

        def job() -> T:
            try:
                with engine.begin() as conn:
                    return work(conn)
            except IntegrityError as exc:
                raise Stale from exc

        return await asyncio.get_running_loop().run_in_executor(self._executor, job)

    def close(self) -> None:
        """Stop the thread and close the sync engine."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._sync.dispose()
