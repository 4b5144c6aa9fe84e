"""Playing the computer (issue 29): the bot accounts, games against them, and the drivers that
play their moves.

**A bot is a player.** Each level (Beginner, Easy, Medium, Hard) is an account of its own, marked
by ``accounts.bot`` and made at startup if missing (:meth:`BotService.start_up`), with a rating per
game like anyone's; its password hash is none, so nobody logs into it. A game against a bot is
made as a challenge's is: the person creates it (their quota and rate limits count, and a rated
game needs their account), then the bot joins it with the join token. Its moves, resignation and
pie choice go through :meth:`PlayService.play` and :meth:`PlayService.resign` with the bot's
identity, exactly as a person's over HTTP: checked, charged to its clock, published, archived,
rated. Nothing here writes a game.

**Exactly one process drives a bot game at any moment.** The driver of a game is the process
holding its lease (``leases`` row ``bot:<game id>``, :class:`~app.repository.writes.TakeLease`,
held ``BOT_LEASE`` seconds and renewed at each look while the game lives, and while its search
runs); another process takes the game over once the lease lapses (its holder died). A process
looks at a game (:meth:`BotService.wake`) when one of its events is published (every change of a
bot's game is told on the bot's player channel, ``mine_changed``, through Redis to every
process), and every ``BOT_SWEEP_EVERY`` seconds at every active bot game (after a restart, or a
wake lost in a Redis outage). A look that finds the bot to move asks the bot pool
(:mod:`app.runtime.bots`, worker processes) for its decision and plays it as the version it
looked at, with the message id ``bot-<version>``: a move computed for a position that has moved on
(the person resigned, a takeback, an abort) is refused ``stale_version`` or ``game_over`` and
dropped; and since the decision is seeded by the game and the ply, a second driver (a lease
lapsing in the middle of a search) would send the very same message, which the protocol answers
as a duplicate, never a second move.

**Clocks:** the bot's clock runs while it searches, as anyone's. Its search stops at
``BOT_MOVE_SECONDS``, or sooner in a timed game (a twentieth of its time left), and plays its best
move so far. A search that fails (its worker died or overran) is tried again at the next sweep; a
bot whose search failed :data:`FAILURES_BEFORE_RESIGNING` times at the same move resigns, with
the reason logged (a timed game's clock would flag it first).

**Offers:** the driver answers the opponent's offer as the bot: a draw declined (it plays on), a
takeback and a rematch accepted (it is there to learn against), through ``TableService.answer``.

**Away:** in a real-time game a seat with no open socket is away and may be claimed after its
grace. A bot has no socket: it is present on its seat's channel (``hub.presence``) in the process
that created its game and in each that drives it, until the game ends; a driver killed outright
lets its presence expire (``PRESENCE_TTL``), after the next driver has added its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from app.domain.clock import to_ms
from app.domain.ratings import PROVISIONAL_DEVIATION
from app.domain.timecontrol import Clocks, TimeControl
from app.errors import AppError, ErrorCode
from app.models import Game
from app.repository import bots as store
from app.repository import reads
from app.repository.outage import database_unavailable
from app.repository.writes import TakeLease
from app.runtime.bots import BotFailed, BotPool, levels
from app.runtime.hub import RESYNC, Subscription, player_channel, seat_channel
from app.runtime.rules import title
from app.runtime.scheduler import stop_if_cancelled
from app.schemas.bots import BotGameIn, BotLevelOut, BotOut, BotsOut
from app.schemas.responses import CreatedOut
from app.services.core import Core, Visitor
from app.services.lifecycle import LifecycleService
from app.services.play import PlayService
from app.services.table import TableService

log = logging.getLogger("hexmoot")

#: The bots, weakest first: level, username (the reserved "Hexmoot" prefix: no person can hold
#: it), display name.
BOTS: tuple[tuple[str, str, str], ...] = (
    ("beginner", "Hexmoot-Beginner", "Beginner bot"),
    ("easy", "Hexmoot-Easy", "Easy bot"),
    ("medium", "Hexmoot-Medium", "Medium bot"),
    ("hard", "Hexmoot-Hard", "Hard bot"),
)
#: A bot that failed to decide this many times at one move resigns (an untimed game would wait
#: forever otherwise).
FAILURES_BEFORE_RESIGNING = 3
#: A timed game's search stops after this share of the bot's time left at most.
SHARE_OF_TIME_LEFT = 1 / 20
#: ... but never sooner than this (seconds): the decision must still have a budget.
MIN_SEARCH = 0.05
#: The ``Retry-After`` (seconds) of a visitor over BOT_GAMES_PER_VISITOR: when a game of theirs
#: ends is theirs to decide.
BOT_QUOTA_RETRY = 60.0
#: The refusals that mean "the game moved on meanwhile": the bot's move is dropped.
STALE = frozenset(
    {
        ErrorCode.STALE_VERSION,
        ErrorCode.GAME_OVER,
        ErrorCode.NOT_YOUR_TURN,
        ErrorCode.NOT_STARTED,
        ErrorCode.GAME_NOT_FOUND,
    }
)


@dataclass(frozen=True)
class Bot:
    """One bot account."""

    level: str
    account_id: int
    player_id: str
    username: str
    display_name: str

    @property
    def visitor(self) -> Visitor:
        """The bot as the services see a player acting."""
        return Visitor(self.player_id, self.display_name, self.account_id, self.username)


def _player_id(level: str) -> str:
    """A bot's player id (``store.BOT_PLAYER_IDS``)."""
    return store.BOT_PLAYER_IDS[store.BOT_LEVELS.index(level)]


class BotService:
    """The bots of one process: their accounts, games against them, and the drivers."""

    def __init__(
        self,
        core: Core,
        lifecycle: LifecycleService,
        playing: PlayService,
        table: TableService,
        pool: BotPool | None = None,
    ) -> None:
        self.core = core
        self.lifecycle = lifecycle
        self.playing = playing
        self.table = table
        self.pool = pool or BotPool(core.settings.bot_workers)
        self.owner = secrets.token_hex(8)
        self.bots: dict[str, Bot] = {}
        self._by_player: dict[str, Bot] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._held: dict[str, int] = {}  # game -> until when this process holds its lease
        self._others: dict[str, int] = {}  # game -> until when not to try to take another's lease
        self._present: dict[str, tuple[str, str]] = {}  # game -> (seat channel, bot player)
        self._failures: Counter[tuple[str, int]] = Counter()
        self._closed = False
        #: Moves this process played, and stale ones it dropped (for tests and logs).
        self.played = 0
        self.dropped = 0

    # --- the accounts -----------------------------------------------------------------------

    async def start_up(self) -> None:
        """Make the bot accounts that are missing, and read them."""
        rows = tuple(store.BotRow(lv, user, name, _player_id(lv)) for lv, user, name in BOTS)
        await self.core.writer.write(store.EnsureBots(rows, self.core.clock.now()))
        async with self.core.sessions() as session:
            accounts = await store.bot_accounts(session)
        for account in accounts:
            assert account.bot is not None
            bot = Bot(
                account.bot, account.id, account.player_id, account.username, account.display_name
            )
            self.bots[bot.level] = bot
            self._by_player[bot.player_id] = bot

    def bot_of(self, player_id: str | None) -> Bot | None:
        """The bot that ``player_id`` is, if it is one."""
        return None if player_id is None else self._by_player.get(player_id)

    async def listing(self) -> BotsOut:
        """Every bot, its levels per game and its ratings (``GET /api/bots``, ``/bots``)."""
        async with self.core.sessions() as session:
            ratings = await store.bot_ratings(session, [b.account_id for b in self.bots.values()])
        rated = {(r.account_id, r.slug): r for r in ratings}
        by_level: dict[str, list[BotLevelOut]] = {}
        ids = {b.level: b.account_id for b in self.bots.values()}
        for info in levels():
            rating = rated.get((ids.get(info.level, -1), info.game))
            algorithm: Literal["greedy", "mcts"] = "mcts" if info.algorithm == "mcts" else "greedy"
            by_level.setdefault(info.level, []).append(
                BotLevelOut(
                    game=info.game,
                    title=title(info.game),
                    algorithm=algorithm,
                    simulations=info.simulations,
                    candidates=info.candidates,
                    temperature=info.temperature,
                    rating=None if rating is None else round(rating.rating),
                    provisional=rating is None or rating.deviation > PROVISIONAL_DEVIATION,
                    games=0 if rating is None else rating.games,
                )
            )
        out = []
        for level, _, _ in BOTS:
            bot = self.bots.get(level)
            if bot is None:
                continue
            out.append(
                BotOut(
                    level=bot.level,  # type: ignore[arg-type]  # one of BOTS' levels
                    username=bot.username,
                    display_name=bot.display_name,
                    url=f"/players/{bot.username}",
                    games=by_level.get(level, []),
                )
            )
        return BotsOut(bots=out)

    # --- a game against a bot ---------------------------------------------------------------

    async def create(self, visitor: Visitor, body: BotGameIn) -> CreatedOut:
        """A public game of ``visitor`` against the bot of ``body.level``, started at once; the
        bot moves at once if it moves first. Refused as :meth:`LifecycleService.create` refuses
        (quota, options, a rated game without an account)."""
        bot = self.bots.get(body.level)
        if bot is None:
            raise AppError(
                ErrorCode.BAD_OPTION, f"no bot plays at level {body.level!r}", field="level"
            )
        most = self.core.settings.bot_games_per_visitor
        if most > 0:
            async with self.core.sessions() as session:
                playing = await store.bot_games_of(session, visitor.id)
            if playing >= most:
                raise AppError(
                    ErrorCode.RATE_LIMITED,
                    f"you are playing {playing} games against the computer, the most allowed at"
                    " once: finish or resign one first",
                    retry_after=BOT_QUOTA_RETRY,
                )
        created = await self.lifecycle.create(
            visitor,
            body.game,
            body.options,
            body.seat,
            True,
            body.rated,
            time_control=body.time_control,
        )
        bot_seat = 2 if created.seat == 1 else 1
        if TimeControl.parse(body.time_control).kind == "realtime":
            # Present before it joins, so the real-time game never counts it away.
            await self._be_present(created.id, bot_seat, bot)
        await self.lifecycle.join(bot.visitor, created.id, created.join_token)
        self.wake(created.id)
        return created

    # --- the drivers ------------------------------------------------------------------------

    def wake(self, game_id: str) -> None:
        """Look at a bot game soon (its lease, and the bot's move if it is its turn)."""
        if self._closed:
            return
        if game_id in self._tasks:
            self._again.add(game_id)
            return
        self._tasks[game_id] = asyncio.create_task(self._drive(game_id))

    async def _drive(self, game_id: str) -> None:
        """Look at the game until a look finds nothing more to do."""
        while True:
            self._again.discard(game_id)
            again = False
            try:
                again = await self._look(game_id)
            except asyncio.CancelledError:
                self._tasks.pop(game_id, None)
                raise
            except Exception as exc:
                if not database_unavailable(exc):
                    log.exception("the bot driver of game %s failed", game_id)
            if not again and game_id not in self._again:
                # No await between this check and the end: a wake after it starts a new task.
                self._tasks.pop(game_id, None)
                return

    async def _hold(self, game_id: str) -> bool:
        """Whether this process drives the game now (taking or renewing its lease as due)."""
        now = self.core.clock.now()
        ttl = to_ms(self.core.settings.bot_lease)
        if self._others.get(game_id, 0) > now:
            return False  # another process held it lately: not a write per wake and sweep
        if self._held.get(game_id, 0) - now < ttl // 2:
            name = f"{store.LEASE_PREFIX}{game_id}"
            held = await self.core.writer.write(TakeLease(name, self.owner, now, ttl))
            if held:
                self._held[game_id] = now + ttl
                self._others.pop(game_id, None)
            else:
                # Its holder renews it at half its life: try again after that, so a dead
                # holder's game is taken over within one and a half leases.
                self._held.pop(game_id, None)
                self._others[game_id] = now + ttl // 2
        return self._held.get(game_id, 0) > now

    async def _look(self, game_id: str) -> bool:
        """One look at a bot game: hold its lease, and play the bot's move if it is its turn.
        Whether to look again at once (a move was played or dropped)."""
        core = self.core
        async with core.sessions() as session:
            game = await reads.get_game(session, game_id)
            bot_seat, bot = (0, None) if game is None else self._bot_seat(game)
            if game is not None and bot is not None and _offered_to(game, bot_seat):
                if not await self._hold(game_id):
                    return False
                return await self._answer(game, bot)
            if game is None or game.status != "active":
                await self._ended(game_id)
                return False
            if bot is None:
                return False
            if not await self._hold(game_id):
                return False
            if TimeControl.stored(game.time_control).kind == "realtime":
                await self._be_present(game_id, bot_seat, bot)
            if game.to_move != bot_seat:
                return False
            position = await core.position(session, game)
            moves = list(position.moves)
        version = game.version
        seconds = self._search_seconds(game, bot_seat)
        renewing = asyncio.create_task(self._keep_holding(game_id))
        try:
            decided = await self.pool.decide(
                game.slug, dict(game.options), moves, bot.level, game_id, seconds
            )
        except BotFailed as exc:
            return await self._failed(game, bot, str(exc))
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
        if not await self._hold(game_id):  # lost meanwhile: the new driver plays this move
            return False
        msg_id = f"bot-{version}"
        try:
            if decided.resign:
                log.info("bot %s resigns game %s (value %.2f)", bot.level, game_id, decided.value)
                await self.playing.resign(bot.visitor, game_id, version, msg_id)
            else:
                await self.playing.play(bot.visitor, game_id, decided.text, version, msg_id)
        except AppError as exc:
            if exc.code not in STALE:
                raise
            self.dropped += 1
            return True
        self.played += 1
        return True

    async def _answer(self, game: Game, bot: Bot) -> bool:
        """Answer the opponent's offer: a draw is declined (the bot plays on), a takeback and a
        rematch accepted (the bot is there to learn against). Whether to look again (not after a
        refusal: the next change or sweep looks again, rather than a loop on the same refusal)."""
        assert game.offer is not None
        kind = str(game.offer["kind"])
        try:
            await self.table.answer(bot.visitor, game.id, kind, kind != "draw")
        except AppError as exc:  # answered, withdrawn or moved on meanwhile
            log.info("the %s bot's answer to a %s offer was refused: %s", bot.level, kind, exc)
            return False
        return True

    def _bot_seat(self, game: Game) -> tuple[int, Bot | None]:
        """The seat a bot holds in ``game`` and the bot (the seat to move first, if both are)."""
        seats = [(1, self.bot_of(game.player1_id)), (2, self.bot_of(game.player2_id))]
        seats.sort(key=lambda pair: pair[0] != game.to_move)
        for seat, bot in seats:
            if bot is not None:
                return seat, bot
        return 0, None

    def _search_seconds(self, game: Game, seat: int) -> float:
        """How long the search may run: BOT_MOVE_SECONDS, less in a timed game that is short of
        time (the bot's clock runs meanwhile, as anyone's)."""
        seconds = self.core.settings.bot_move_seconds
        if game.clocks is None or not TimeControl.stored(game.time_control).timed:
            return seconds
        left = Clocks.from_json(game.clocks).left(seat, game.to_move, self.core.clock.now())
        return max(MIN_SEARCH, min(seconds, left / 1000 * SHARE_OF_TIME_LEFT))

    async def _keep_holding(self, game_id: str) -> None:
        """Renew the game's lease while its search runs."""
        while True:
            await self.core.clock.sleep(self.core.settings.bot_lease / 3)
            with contextlib.suppress(Exception):
                await self._hold(game_id)

    async def _failed(self, game: Game, bot: Bot, reason: str) -> bool:
        """A search failed: try again at the next sweep, or resign after too many failures."""
        key = (game.id, game.version)
        self._failures[key] += 1
        log.warning(
            "the %s bot failed to decide in game %s (version %d, try %d): %s",
            bot.level,
            game.id,
            game.version,
            self._failures[key],
            reason,
        )
        if self._failures[key] < FAILURES_BEFORE_RESIGNING:
            return False
        del self._failures[key]
        log.warning("the %s bot resigns game %s: its search kept failing", bot.level, game.id)
        with contextlib.suppress(AppError):
            await self.playing.resign(bot.visitor, game.id, game.version, f"bot-{game.version}")
        return False

    async def _be_present(self, game_id: str, seat: int, bot: Bot) -> None:
        if game_id in self._present:
            return
        channel = seat_channel(game_id, seat)
        self._present[game_id] = (channel, bot.player_id)
        await self.core.hub.presence(channel, bot.player_id, 1)

    async def _ended(self, game_id: str) -> None:
        """The game is over: leave its seat, and forget its lease if this process held it."""
        present = self._present.pop(game_id, None)
        if present is not None:
            await self.core.hub.presence(present[0], present[1], -1)
        self._others.pop(game_id, None)
        if self._held.pop(game_id, None) is not None:
            await self.core.writer.write(store.DropLeases((game_id,)))
        for key in [k for k in self._failures if k[0] == game_id]:
            del self._failures[key]

    async def sweep(self) -> None:
        """Look at every active bot game (``BOT_SWEEP_EVERY``): a restart, or a wake lost, is
        caught up here; leave the games that ended; forget leases their holder left behind.
        Quiet while the database is out of reach (the next sweep after it is back catches up)."""
        try:
            async with self.core.sessions() as session:
                active = await store.bot_games(session, list(self._by_player))
                left = await store.ended_leases(session)
        except Exception as exc:
            if database_unavailable(exc):
                return
            raise
        ids = {game.id for game in active}
        for game_id in ids:
            self.wake(game_id)
        for game_id in [g for g in {*self._present, *self._held, *self._others} if g not in ids]:
            await self._ended(game_id)
        if left:
            await self.core.writer.write(store.DropLeases(tuple(left)))

    async def listen(self) -> None:
        """Wake the games of the bots' player channels as their events are published, on every
        process (Redis); after a gap (an overflow, a Redis outage), sweep. Until cancelled."""
        hub = self.core.hub
        while True:
            try:
                async with contextlib.AsyncExitStack() as stack:
                    subscriptions = [
                        await stack.enter_async_context(hub.subscribe(player_channel(b.player_id)))
                        for b in self.bots.values()
                    ]
                    await asyncio.gather(*(self._follow(s) for s in subscriptions))
            except Exception:  # the sweep still runs; listen again after one of its periods
                log.exception("the bots' wake-ups failed")
            stop_if_cancelled()
            with contextlib.suppress(Exception):
                await self.sweep()
            await self.core.clock.sleep(self.core.settings.bot_sweep_every)

    async def _follow(self, subscription: Subscription) -> None:
        while True:
            text = await subscription.get()
            if text is None:  # overflowed: resubscribe, after a sweep
                return
            if text == RESYNC:
                with contextlib.suppress(Exception):
                    await self.sweep()
                continue
            message: dict[str, Any] = json.loads(text)
            game_id = message.get("game")
            if message.get("type") == "mine_changed" and isinstance(game_id, str):
                self.wake(game_id)

    async def close(self) -> None:
        """Stop the drivers and the workers (a search under way is dropped; another process, or
        this one restarted, plays that move once the lease lapses)."""
        self._closed = True
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.pool.close()


def _offered_to(game: Game, bot_seat: int) -> bool:
    """Whether the opponent has an offer pending for the bot: a draw or a takeback while the game
    is played, a rematch once it is over."""
    offer = game.offer
    if offer is None or offer.get("seat") == bot_seat:
        return False
    if offer.get("kind") == "rematch":
        return game.status == "finished" and game.rematch_id is None
    return game.status == "active"
