"""Coalesce bursts of changes: per key, run an action at most once per interval of the app's clock.

Used for the spectator count of a game: 800 watchers joining one game would otherwise send every
watcher a count per join (800 x 800 / 2 messages); through a :class:`Throttle` each watcher gets at
most one count per second, and always the last one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from app.domain.clock import Clock

log = logging.getLogger("hexmoot")


class Throttle:
    """``poke(key)`` runs ``action(key)`` at once if it has not run for ``interval`` seconds, else
    once at the end of that interval (the trailing edge: the last change always goes out).

    One task per key with something pending, gone once the key is quiet for an interval, so idle
    keys cost nothing. The action reads the current state itself (a count), so skipped pokes lose
    nothing. A failing action is logged; the next poke runs it again.
    """

    def __init__(
        self, clock: Clock, interval: float, action: Callable[[str], Awaitable[object]]
    ) -> None:
        self._clock = clock
        self._interval = interval
        self._action = action
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._dirty: set[str] = set()

    def poke(self, key: str) -> None:
        """Note that ``key`` changed."""
        if key in self._tasks:
            self._dirty.add(key)
        else:
            self._tasks[key] = asyncio.create_task(self._run(key))

    async def _run(self, key: str) -> None:
        try:
            while True:
                self._dirty.discard(key)  # a poke from now on is seen by the next round
                try:
                    await self._action(key)
                except Exception:
                    log.exception("a throttled update of %r failed", key)
                await self._clock.sleep(self._interval)
                if key not in self._dirty:
                    return
        finally:
            self._tasks.pop(key, None)
            self._dirty.discard(key)

    async def close(self) -> None:
        """Cancel every pending run."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
