"""The flows of the site, split by what a reader looks for:

- :mod:`.lifecycle`: creating and joining games, naming guests;
- :mod:`.play`: moves, resignation, flags, the end of idle games;
- :mod:`.deadlines`: the deadline scheduler, the site's sign of life, the outage credit;
- :mod:`.table`: offers (draw, takeback, rematch), abort, disconnections, chat;
- :mod:`.reading`: snapshots, catch-ups, steps, records, the open and live lists, replays;
- :mod:`.archive`: the archive and imported records;
- :mod:`.cards`: a game's card, the picture a shared link shows;
- :mod:`.accounts`: signing up, logging in and out, who a request is;
- :mod:`.addresses` and :mod:`.mail`: an account's email address and its verification; recovery
  links and digests;
- :mod:`.mine` and :mod:`.challenges`: a player's own lists ("My games") and direct challenges;
- :mod:`.bots`: the bot accounts, games against the computer, and the drivers of their moves;
- :mod:`.stats`: the statistics page per game and option set, its counters and their rebuild;
- :mod:`.explorer`: the opening explorer's nodes, and what a finishing game adds to it;
- :mod:`.core`: what they share (locks, the position cache, publishing, :meth:`Core.finish`).

Routes and sockets reach them through :class:`GameService` (``ServiceDep``), always by area:
``service.playing.play(...)``, ``service.table.offer(...)``; it holds the services and nothing else.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.domain.clock import Clock
from app.identity.sessions import SessionSigner
from app.mail import Mailer
from app.repository.writer import Writer
from app.runtime.bots import BotPool
from app.runtime.clock import SystemClock
from app.runtime.hub import Hub
from app.runtime.rules import RulesRunner, slugs
from app.services.accounts import AccountService
from app.services.addresses import AddressService
from app.services.archive import ArchiveService
from app.services.bots import BotService
from app.services.cards import CardService
from app.services.challenges import ChallengeService
from app.services.core import Core, Visitor
from app.services.deadlines import DeadlineService
from app.services.dumps import DumpService
from app.services.explorer import ExplorerService
from app.services.lifecycle import CREATION_KEY_PATTERN, CreationKeyed, LifecycleService
from app.services.mail import MailService
from app.services.mine import MineService
from app.services.play import PlayService
from app.services.players import PlayerService
from app.services.reading import ReadingService
from app.services.stats import StatsService
from app.services.table import TableService

__all__ = ["CREATION_KEY_PATTERN", "CreationKeyed", "GameService", "Visitor", "installed"]


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
        bot_pool: BotPool | None = None,
    ) -> None:
        rules = rules or RulesRunner(settings.rules_workers, settings.rules_timeout)
        self.core = Core(sessions, hub, settings, writer, rules, clock or SystemClock())
        self.addresses = AddressService(self.core)
        self.accounts = AccountService(self.core, session_signer, self.addresses)
        self.lifecycle = LifecycleService(self.core)
        self.playing = PlayService(self.core)
        self.deadlines = DeadlineService(self.core, self.playing)
        self.table = TableService(self.core, self.lifecycle)
        self.reading = ReadingService(self.core)
        self.archiving = ArchiveService(self.core)
        self.challenges = ChallengeService(self.core, self.lifecycle)
        self.mine = MineService(self.core, self.challenges)
        self.players = PlayerService(self.core)
        self.stats = StatsService(self.core)
        self.mail = MailService(self.core, Mailer(settings))
        self.explorer = ExplorerService(self.core)
        self.dumps = DumpService(self.core)
        self.cards = CardService(self.core)
        self.bots = BotService(self.core, self.lifecycle, self.playing, self.table, bot_pool)

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

    def close(self) -> None:
        """Stop the rules workers and the bots' workers."""
        self.core.rules.close()
        self.bots.pool.close()
