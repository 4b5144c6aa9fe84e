"""The flows of the site, split by what a reader looks for:

- :mod:`.lifecycle`: creating and joining games, naming guests;
- :mod:`.play`: moves, resignation, flags, the end of idle games;
- :mod:`.deadlines`: the deadline scheduler, the site's sign of life, the outage credit;
- :mod:`.table`: offers (draw, takeback, rematch), abort, disconnections, chat;
- :mod:`.reading`: snapshots, catch-ups, steps, records, the open and live lists, replays;
- :mod:`.archive`: the archive and imported records;
- :mod:`.accounts`: signing up, logging in and out, who a request is;
- :mod:`.mine` and :mod:`.challenges`: a player's own lists ("My games") and direct challenges;
- :mod:`.core`: what they share (locks, the position cache, publishing, :meth:`Core.finish`).

Routes and sockets call :class:`GameService`, one thin facade over them (``ServiceDep``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.accounts.sessions import SessionSigner
from app.config import Settings
from app.domain.clock import Clock
from app.mail import Mailer
from app.repository.reads import ArchiveFilter
from app.repository.writer import Writer
from app.runtime.clock import SystemClock
from app.runtime.hub import Hub
from app.runtime.rules import RulesRunner, slugs
from app.services.accounts import AccountService
from app.services.archive import ArchiveService
from app.services.challenges import ChallengeService
from app.services.core import Core, Json, Visitor
from app.services.deadlines import DeadlineService
from app.services.lifecycle import LifecycleService
from app.services.mail import MailService
from app.services.mine import MineService
from app.services.play import PlayService
from app.services.players import PlayerService
from app.services.reading import ReadingService
from app.services.table import TableService

__all__ = ["GameService", "Visitor", "installed"]


def installed() -> frozenset[str]:
    """The slugs of the games this process serves."""
    return slugs()


class GameService:
    """One door to every service, as the routes and sockets call them."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        hub: Hub,
        settings: Settings,
        writer: Writer,
        rules: RulesRunner | None = None,
        clock: Clock | None = None,
        session_signer: SessionSigner | None = None,
    ) -> None:
        rules = rules or RulesRunner(settings.rules_workers, settings.rules_timeout)
        self.core = Core(sessions, hub, settings, writer, rules, clock or SystemClock())
        self.accounts = AccountService(self.core, session_signer)
        self.lifecycle = LifecycleService(self.core)
        self.playing = PlayService(self.core)
        self.deadlines = DeadlineService(self.core, self.playing)
        self.table = TableService(self.core, self.lifecycle)
        self.reading = ReadingService(self.core)
        self.archiving = ArchiveService(self.core)
        self.challenges = ChallengeService(self.core, self.lifecycle)
        self.mine = MineService(self.core, self.challenges)
        self.players = PlayerService(self.core)
        self.mail = MailService(self.core, Mailer(settings))

    @property
    def hub(self) -> Hub:
        """The pub/sub hub the services publish on."""
        return self.core.hub

    @property
    def settings(self) -> Settings:
        """The app's settings."""
        return self.core.settings

    @property
    def writer(self) -> Writer:
        """The one write path."""
        return self.core.writer

    @property
    def rules(self) -> RulesRunner:
        """The rules runner."""
        return self.core.rules

    @property
    def clock(self) -> Clock:
        """The app's clock."""
        return self.core.clock

    # lifecycle and guests
    async def visitor(self, guest_id: str) -> Visitor:
        """:meth:`LifecycleService.visitor`."""
        return await self.lifecycle.visitor(guest_id)

    async def rename(self, guest_id: str, raw_name: object) -> Visitor:
        """:meth:`LifecycleService.rename`."""
        return await self.lifecycle.rename(guest_id, raw_name)

    async def create(
        self,
        visitor: Visitor,
        slug: str,
        options: dict[str, Any],
        seat: object,
        public: bool,
        rated: bool = False,
        time_control: object = None,
        takebacks: bool | None = None,
    ) -> Json:
        """:meth:`LifecycleService.create`."""
        return await self.lifecycle.create(
            visitor,
            slug,
            options,
            seat,
            public,
            rated,
            time_control=time_control,
            takebacks=takebacks,
        )

    async def join(self, visitor: Visitor, game_id: str, token: object) -> Json:
        """:meth:`LifecycleService.join`."""
        return await self.lifecycle.join(visitor, game_id, token)

    async def cancel(self, visitor: Visitor, game_id: str) -> Json:
        """:meth:`LifecycleService.cancel`."""
        return await self.lifecycle.cancel(visitor, game_id)

    # play
    async def play(
        self,
        visitor: Visitor,
        game_id: str,
        text: str,
        version: int,
        msg_id: str,
        lag: int = 0,
    ) -> Json:
        """:meth:`PlayService.play`."""
        return await self.playing.play(visitor, game_id, text, version, msg_id, lag)

    async def resign(
        self, visitor: Visitor, game_id: str, version: int | None, msg_id: str
    ) -> Json:
        """:meth:`PlayService.resign`."""
        return await self.playing.resign(visitor, game_id, version, msg_id)

    async def abandon_idle(self, now: int | None = None) -> int:
        """:meth:`PlayService.abandon_idle`."""
        return await self.playing.abandon_idle(now)

    # reading
    async def steps(
        self, game_id: str, prefix: Sequence[str], visitor: Visitor | None, token: str | None
    ) -> Json:
        """:meth:`ReadingService.steps`."""
        return await self.reading.steps(game_id, prefix, visitor, token)

    async def snapshot(self, game_id: str, visitor: Visitor | None, token: str | None) -> Json:
        """:meth:`ReadingService.snapshot`."""
        return await self.reading.snapshot(game_id, visitor, token)

    async def catchup(
        self, game_id: str, since: int, visitor: Visitor | None, token: str | None
    ) -> Json | None:
        """:meth:`ReadingService.catchup`."""
        return await self.reading.catchup(game_id, since, visitor, token)

    async def check_visible(self, game_id: str, visitor: Visitor, token: str | None) -> None:
        """:meth:`ReadingService.check_visible`."""
        await self.reading.check_visible(game_id, visitor, token)

    async def seat_of(self, game_id: str, visitor: Visitor) -> int | None:
        """:meth:`ReadingService.seat_of`."""
        return await self.reading.seat_of(game_id, visitor)

    async def record(self, game_id: str, visitor: Visitor | None, token: str | None) -> Json:
        """:meth:`ReadingService.record`."""
        return await self.reading.record(game_id, visitor, token)

    async def open_games(self, visitor: Visitor | None = None) -> list[Json]:
        """:meth:`ReadingService.open_games`."""
        return await self.reading.open_games(visitor)

    async def live_games(self) -> list[Json]:
        """:meth:`ReadingService.live_games`."""
        return await self.reading.live_games()

    async def live_list(self, visitor: Visitor | None) -> Json:
        """:meth:`ReadingService.live_list`."""
        return await self.reading.live_list(visitor)

    async def replay(
        self, game: object, options: object, moves: list[str], first: int, count: int
    ) -> bytes:
        """:meth:`ReadingService.replay`."""
        return await self.reading.replay(game, options, moves, first, count)

    # archive
    async def archive(
        self, filters: ArchiveFilter, after: tuple[int, str] | None, limit: int
    ) -> tuple[list[Json], tuple[int, str] | None]:
        """:meth:`ArchiveService.archive`."""
        return await self.archiving.archive(filters, after, limit)

    async def import_record(self, record: object, visitor: Visitor) -> Json:
        """:meth:`ArchiveService.import_record`."""
        return await self.archiving.import_record(record, visitor)

    def close(self) -> None:
        """Stop the rules workers."""
        self.core.rules.close()
