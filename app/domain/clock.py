"""Time, injected: every part of the server that stamps or waits asks a :class:`Clock`.

The app runs on the system clock (:mod:`app.runtime.clock`); tests run it on a :class:`FakeClock`
that moves only when told to, so a timer (the abandonment sweep, the deadline scheduler) can be
driven through hours in microseconds and without flakiness.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from typing import Protocol


class Clock(Protocol):
    """The time source of the server."""

    def now(self) -> int:
        """The current time in epoch milliseconds."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return after ``seconds`` of this clock's time."""
        ...


def to_ms(seconds: float) -> int:
    """Seconds as whole milliseconds."""
    return int(seconds * 1000)


def idle_cutoff(now: int, idle_after: float) -> int:
    """The last-activity stamp before which a game counts as idle at ``now``."""
    return now - to_ms(idle_after)


class FakeClock:
    """A clock that stands still until :meth:`advance` moves it (and wakes the sleepers due)."""

    def __init__(self, start: int = 1_700_000_000_000) -> None:
        self._now = start
        self._sleepers: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> int:
        """The current fake time in epoch milliseconds."""
        return self._now

    async def sleep(self, seconds: float) -> None:
        """Wait until the clock has been advanced by ``seconds`` (at once if not positive)."""
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        done = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + to_ms(seconds), next(self._order), done))
        await done

    def advance(self, seconds: float) -> None:
        """Move the time on by ``seconds`` and wake every sleeper whose time has come."""
        self._now += to_ms(seconds)
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _due, _order, done = heapq.heappop(self._sleepers)
            if not done.done():
                done.set_result(None)

    @property
    def sleepers(self) -> int:
        """How many sleepers wait (cancelled ones included until they are due)."""
        return len(self._sleepers)
