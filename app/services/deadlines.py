"""The deadline scheduler: games are flagged on time even when nobody is connected.

Deadlines live in the database (``games.deadline_at``, indexed), so they survive restarts. Exactly
one process runs the scheduler at a time: the one holding the ``deadlines`` lease (a row of
``leases`` taken with a conditional UPDATE, held for ``DEADLINE_LEASE`` seconds and renewed while
its holder lives; another process takes it over once it expires). The holder looks for due games
at least every ``DEADLINE_POLL`` seconds, and sleeps exactly until the next deadline when that is
sooner, so a flag comes within a poll of its deadline. A second flagger could do no harm anyway:
ending a game is version-guarded.

The abandonment sweep (games idle past ``ABANDON_AFTER`` end as abandoned) has an owner the same
way: the holder of the ``abandonment`` lease, renewed at each sweep (every ``ABANDON_CHECK_EVERY``
seconds) and taken over by another process once it lapses (three periods).

Every process also writes a sign of life every ``BEAT_EVERY`` seconds. A process starting after
the site showed none for ``OUTAGE_AFTER`` seconds credits every running clock with the outage
(:class:`~app.repository.writes.CreditOutage`): nobody loses time while the site is down.
"""

from __future__ import annotations

import asyncio
import logging
import secrets

from app.domain.clock import to_ms
from app.repository import reads
from app.repository.writes import Beat, CreditOutage, TakeLease
from app.services.core import Core
from app.services.play import PlayService

log = logging.getLogger("hexmoot")

LEASE = "deadlines"
#: The lease of the abandonment sweep (:meth:`DeadlineService.sweep_abandoned`).
SWEEP_LEASE = "abandonment"
#: The sweep's lease lasts this many of its periods (ABANDON_CHECK_EVERY): renewed at each sweep,
#: it outlives a late one, and another process takes over within three periods of a crash.
SWEEP_PERIODS = 3
#: The shortest sleep between two looks (a deadline due "now" is looked at after this).
MIN_WAIT = 0.005


class DeadlineService:
    """The scheduler loop, the sign of life and the outage credit of one process."""

    def __init__(self, core: Core, playing: PlayService) -> None:
        self.core = core
        self.playing = playing
        self.owner = secrets.token_hex(8)
        self._held_until = 0

    async def start_up(self) -> tuple[int, int]:
        """Credit the clocks if the site was down (before this process serves anything)."""
        settings = self.core.settings
        outage, games = await self.core.writer.write(
            CreditOutage(self.core.clock.now(), to_ms(settings.outage_after))
        )
        if outage:
            log.warning("the site was down for %d ms: %d running clocks credited", outage, games)
        return outage, games

    async def beat(self) -> None:
        """This process is alive."""
        await self.core.writer.write(Beat(self.core.clock.now()))

    async def holds_lease(self) -> bool:
        """Whether this process runs the scheduler now (taking or renewing the lease as due)."""
        settings = self.core.settings
        now = self.core.clock.now()
        ttl = to_ms(settings.deadline_lease)
        if self._held_until - now < ttl // 2:
            held = await self.core.writer.write(TakeLease(LEASE, self.owner, now, ttl))
            self._held_until = now + ttl if held else 0
        return self._held_until > now

    async def sweep_abandoned(self) -> int | None:
        """End the games idle for longer than ABANDON_AFTER, if this process holds the sweep's
        lease (taken or renewed here): one process at a time sweeps, as one flags. How many games
        were ended; None when another process holds the lease."""
        settings = self.core.settings
        now = self.core.clock.now()
        ttl = to_ms(SWEEP_PERIODS * settings.abandon_check_every)
        if not await self.core.writer.write(TakeLease(SWEEP_LEASE, self.owner, now, ttl)):
            return None
        return await self.playing.abandon_idle(now)

    async def tick(self) -> float:
        """One look: flag what is due if this process holds the lease; seconds until the next."""
        settings = self.core.settings
        if not await self.holds_lease():
            return settings.deadline_lease / 3
        looked = self.core.clock.now()
        await self.playing.flag_due(looked)
        async with self.core.sessions() as session:
            upcoming = await reads.next_deadline(session)
        if upcoming is None:
            return settings.deadline_poll
        until = min(settings.deadline_poll, (upcoming - self.core.clock.now()) / 1000)
        if upcoming > looked:  # not due when we looked: sleep until it is (none if it is now)
            return max(0.0, until)
        return max(MIN_WAIT, until)  # due but not flagged (it moved meanwhile): look again soon

    async def run(self) -> None:
        """Look for due deadlines until cancelled; a failure is logged and the loop goes on."""
        while True:
            try:
                wait = await self.tick()
            except Exception:
                log.exception("the deadline scheduler failed")
                wait = self.core.settings.deadline_poll
            if wait > 0:
                await self.core.clock.sleep(wait)
            else:
                await asyncio.sleep(0)  # a deadline fell due while looking: look again now
