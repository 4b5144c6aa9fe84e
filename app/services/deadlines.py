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
seconds) and taken over by another process once it lapses (three periods). It also forgets the
game creations' ``Idempotency-Key`` kept longer than a day.

Every process also writes a sign of life every ``BEAT_EVERY`` seconds. A process starting after
the site showed none for ``OUTAGE_AFTER`` seconds credits every running clock with the outage
(:class:`~app.repository.writes.Beat`): nobody loses time while the site is down.

The database can also go away while the processes live (issue 27): their signs of life and looks
fail, and nobody can move. The first failure marks the process (``core.outage_suspected``); then
its next sign of life, its next look (before it flags anything) and its next move (before it
charges a clock) first settle the outage, with the same row-locked, idempotent credit
(:meth:`~app.services.core.Core.settle_outage`). So no game is flagged, and no mover charged, for
time the database was away, whichever of them comes first once it is back, in whichever process.
An outage of ``OUTAGE_AFTER`` seconds or less is not credited: see docs/protocol.md, "Unavailable".
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time

from app.domain.clock import to_ms
from app.repository import reads
from app.repository.outage import database_unavailable
from app.repository.writes import Beat, ForgetCreationKeys, TakeLease
from app.services.core import Core
from app.services.lifecycle import CREATION_KEY_KEPT
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
        return await self.core.settle_outage()

    async def beat(self) -> None:
        """This process is alive; the first sign of life after failed ones settles the outage."""
        core = self.core
        try:
            if core.outage_suspected:
                await core.settle_outage()
            else:
                after = to_ms(core.settings.outage_after)
                await core.writer.write(Beat(time.monotonic(), core.clock.now, after))
        except Exception as exc:
            self._failed(exc)
            if not database_unavailable(exc):
                raise

    def _failed(self, exc: Exception) -> None:
        """A sign of life or a look failed: the site may be down; say so once, not every beat."""
        if not self.core.outage_suspected and database_unavailable(exc):
            log.warning(
                "the database is out of reach (%r): clocks are settled once it is back", exc
            )
        self.core.outage_suspected = True

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
        await self.core.writer.write(ForgetCreationKeys(now - CREATION_KEY_KEPT))
        return await self.playing.abandon_idle(now)

    async def tick(self) -> float:
        """One look: flag what is due if this process holds the lease; seconds until the next."""
        settings = self.core.settings
        if self.core.outage_suspected:  # before any flag: the outage costs nobody time
            await self.core.settle_outage()
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
            except Exception as exc:
                if not database_unavailable(exc):
                    log.exception("the deadline scheduler failed")
                self._failed(exc)
                wait = self.core.settings.deadline_poll
            if wait > 0:
                await self.core.clock.sleep(wait)
            else:
                await asyncio.sleep(0)  # a deadline fell due while looking: look again now
