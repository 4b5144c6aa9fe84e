"""The system clock: the one :class:`app.domain.clock.Clock` that reads the wall clock."""

from __future__ import annotations

import asyncio
import time


class SystemClock:
    """Wall-clock time in epoch milliseconds; sleeps on the event loop."""

    def now(self) -> int:
        """The current time in epoch milliseconds."""
        return int(time.time() * 1000)

    async def sleep(self, seconds: float) -> None:
        """``asyncio.sleep``."""
        await asyncio.sleep(seconds)


class OffsetClock(SystemClock):
    """The system clock plus a number of milliseconds read from a file (0 if it is missing or not
    a number): a test moves a real server process through time by writing the file (settings:
    ``CLOCK_OFFSET_FILE``). Sleeps are real.

    ``frozen`` (``CLOCK_FROZEN``): the clock stands still at the time it was made, plus the file's
    milliseconds, so that only the test moves it. A test of what a player's clock shows then
    reads exact figures, however long the machine takes to draw the page between two moves.
    """

    def __init__(self, path: str, frozen: bool = False) -> None:
        self.path = path
        self.frozen_at = super().now() if frozen else None

    def now(self) -> int:
        try:
            with open(self.path, encoding="ascii") as file:
                offset = int(file.read().strip() or 0)
        except (OSError, ValueError):
            offset = 0
        return (self.frozen_at if self.frozen_at is not None else super().now()) + offset
