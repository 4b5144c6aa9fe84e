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
