"""Work the server does on its own timer, on the app's clock (so tests can drive it)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from app.domain.clock import Clock

log = logging.getLogger("hexmoot")


async def every(clock: Clock, seconds: float, work: Callable[[], Awaitable[object]]) -> None:
    """Run ``work`` now and then every ``seconds`` of ``clock``, until cancelled; a failure is
    logged and the next run still comes (a transient database error must not stop the timer)."""
    while True:
        try:
            await work()
        except Exception:
            log.exception("scheduled %s failed", getattr(work, "__qualname__", work))
        stop_if_cancelled()
        await clock.sleep(seconds)


def stop_if_cancelled() -> None:
    """Raise CancelledError if the current task was asked to stop.

    A loop that catches its work's failures and goes on must call this after each round: a
    library that swallows the CancelledError it was sent (or turns it into another exception the
    loop logs) leaves the task cancelled (``Task.cancelling()``) but running, and whoever awaits
    it after ``cancel()`` (a hub's or an app's shutdown) waits forever. That hung the suite once
    (``RedisHub.close`` behind a presence refresh whose write was timing out)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
