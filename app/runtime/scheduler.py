"""Work the server does on its own timer, on the app's clock (so tests can drive it)."""

from __future__ import annotations

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
        await clock.sleep(seconds)
