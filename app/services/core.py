"""What the services share: per-game locks, the position cache, visibility, writing a game's change,
publishing it, and :meth:`Core.finish`, the one place where a game ends.

Every change of a game runs under that game's lock (one change at a time per game in this process)
and is written by the writer as one transaction that starts with a version-guarded UPDATE of the
game row (:class:`~app.repository.writes.GameChange`). Only after the commit is anything published,
so nobody hears of a move that could still be lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import re
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec, TypedDict, TypeVar, cast

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm.attributes import set_committed_value

from app.config import Settings
from app.db import read_one_snapshot
from app.domain.archive import archive_columns as columns_of
from app.domain.clock import Clock, to_ms
from app.domain.results import Ending, Result, ending_values
from app.domain.timecontrol import Clocks, TimeControl
from app.errors import AppError, ErrorCode, excerpt, not_found
from app.identity.passwords import Passwords
from app.models import Game
from app.repository import accounts, reads
from app.repository.writer import Stale, Writer
from app.repository.writes import (
    Beat,
    EventRow,
    GameChange,
    PlayerName,
    RatedResult,
    Row,
)
from app.runtime.hub import LIVE_CHANNEL, Hub, game_channel, player_channel
from app.runtime.rules import Rules, RulesRunner, View, has_pie
from app.schemas.outgoing import (
    AwayJson,
    ClockJson,
    EventMsgJson,
    LiveEndJson,
    LiveEntryJson,
    LiveUpdateJson,
    MineChangedJson,
    PlayerJson,
    StateJson,
    Stored,
    TableJson,
)
from app.services.explorer import explored
from app.services.stats import counting

log = logging.getLogger("hexmoot")

#: An event a change writes before its last: its kind and payload (a move, a resignation).
Before = tuple[str, Stored]
P = ParamSpec("P")
T = TypeVar("T")

# Changes still running after their caller was cancelled; held so the tasks are not collected.
_running_on: set[asyncio.Task[Any]] = set()


def to_the_end(
    method: Callable[P, Coroutine[Any, Any, T]],
) -> Callable[P, Coroutine[Any, Any, T]]:
    """Run a change to its end even if its caller is cancelled (a socket closed mid-move): a
    change that reaches the database must also reach the subscribers."""

    @functools.wraps(method)
    async def run(*args: P.args, **kwargs: P.kwargs) -> T:
        task = asyncio.ensure_future(method(*args, **kwargs))
        _running_on.add(task)
        task.add_done_callback(_running_on.discard)
        # A result nobody waits for any more is still retrieved, so asyncio does not log it.
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return await asyncio.shield(task)

    return run


@dataclass(frozen=True)
class Position:
    """A game's position at one version: the warm cache entry."""

    version: int
    rules: Rules[Any, Any]
    state: Any
    moves: tuple[str, ...]


@dataclass(frozen=True)
class Visitor:
    """Who is asking: the player id that takes seats, and the name it goes by; with a session,
    also the account (``id`` is then the account's primary player)."""

    id: str
    name: str
    account_id: int | None = None
    username: str | None = None


def stale(current: int, based_on: int | None) -> AppError:
    """The refusal of a message based on an old version (or losing a race)."""
    said = "" if based_on is None else f", not {based_on}"
    return AppError(
        ErrorCode.STALE_VERSION, f"The game is at version {current}{said}", version=current
    )


#: A player id's account (its id and username), or None for a guest.
Owner = tuple[int, str] | None
#: How long the cache keeps that a player has no account (it may sign up, or be attached).
NO_ACCOUNT_FOR = 60.0


def players_json(game: Game, owners: Mapping[str, Owner] | None = None) -> list[PlayerJson]:
    """The seats, the names they were taken with, and the username of each seat's account (null
    for a guest, and for an empty seat)."""
    owners = owners or {}
    seats = ((1, game.player1_id, game.player1_name), (2, game.player2_id, game.player2_name))
    return [
        {"seat": seat, "name": name, "account": _username(owners.get(pid) if pid else None)}
        for seat, pid, name in seats
    ]


def owner(visitor: Visitor) -> Owner:
    """The visitor's account as :meth:`Core.owners` gives it (None for a guest)."""
    if visitor.account_id is None or visitor.username is None:
        return None
    return (visitor.account_id, visitor.username)


def _username(owner: Owner) -> str | None:
    return owner[1] if owner is not None else None


def seat_ids(*games: Game) -> list[str]:
    """The player ids seated in ``games``."""
    return sorted({p for g in games for p in (g.player1_id, g.player2_id) if p is not None})


def abortable(game: Game) -> bool:
    """Whether the game may still be aborted: it runs and not both seats have made a move of play
    (a game from before clocks: fewer than two plies)."""
    if game.status != "active":
        return False
    return not (Clocks.from_json(game.clocks).both_moved if game.clocks else game.ply_count >= 2)


def clock_json(game: Game, now: int) -> ClockJson | None:
    """A timed game's clocks as clients show them: each seat's time at ``now`` (the server's time,
    sent along: clients count down from it, never from their own clock), whether the seat to move
    is being charged, its deadline. None for an unlimited game."""
    control = TimeControl.stored(game.time_control)
    if not control.timed or game.clocks is None:
        return None
    clocks = Clocks.from_json(game.clocks)
    to_move = game.to_move if game.status == "active" else None
    return {
        "control": control.to_json(),
        "label": control.label(),
        "remaining": [clocks.left(1, to_move, now), clocks.left(2, to_move, now)],
        "running": clocks.running and to_move is not None,
        "deadline": clocks.deadline(to_move) if clocks.running else None,
        "now": now,
    }


def stopped(game: Game, now: int) -> Stored | None:
    """The game's clocks stopped at ``now`` (each seat's time then, nothing running)."""
    if game.clocks is None:
        return None
    clocks = Clocks.from_json(game.clocks)
    to_move = game.to_move if game.status == "active" else None
    left = (clocks.left(1, to_move, now), clocks.left(2, to_move, now))
    return Clocks(left, clocks.quota, clocks.moved, False, None).to_json()


class Absence(TypedDict):
    """A seat's absence as the row's ``away`` keeps it: since when (None: present), and the grace
    it had left then (ms)."""

    since: int | None
    grace: int


def away_state(game: Game, grace: float) -> dict[str, Absence]:
    """Each seat's absence, as the row keeps it (a fresh copy)."""
    full = to_ms(grace)
    stored = game.away or {}
    return {
        seat: {
            "since": stored.get(seat, {}).get("since"),
            "grace": stored.get(seat, {}).get("grace", full),
        }
        for seat in ("1", "2")
    }


def away_json(game: Game, grace: float) -> list[AwayJson | None]:
    """Per seat (seat 1 first): null if present, else since when away and the grace left then."""
    if game.away is None:
        return [None, None]
    state = away_state(game, grace)
    return [_away(state[s]) for s in ("1", "2")]


def _away(absence: Absence) -> AwayJson | None:
    since = absence["since"]
    return None if since is None else {"since": since, "grace": absence["grace"]}


def plausible_id(game_id: str) -> bool:
    """Whether ``game_id`` could name a game (anything else is not looked up)."""
    return 1 <= len(game_id) <= 16 and re.fullmatch(r"[A-Za-z0-9_-]+", game_id) is not None


class Core:
    """The state and the steps every service shares; one per app."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        hub: Hub,
        settings: Settings,
        writer: Writer,
        rules: RulesRunner,
        clock: Clock,
    ) -> None:
        self.sessions = sessions
        self.hub = hub
        self.settings = settings
        self.writer = writer
        self.rules = rules
        self.clock = clock
        self.passwords = Passwords(
            settings.password_hash_time_cost, settings.password_hash_memory_kib
        )
        self._cache: OrderedDict[str, Position] = OrderedDict()
        # game id -> its row after this process's last move in it: see :meth:`cached_row`.
        self._rows: OrderedDict[str, Game] = OrderedDict()
        # player id -> (its account or None, until when a None holds): see :meth:`owners`.
        self._owners: OrderedDict[str, tuple[Owner, float]] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        # Set when this process's sign of life or deadline look failed (the database out of
        # reach, issue 27): the next step that charges or flags a clock credits the outage first.
        self.outage_suspected = False

    # --- outages -----------------------------------------------------------------------------

    async def settle_outage(self) -> tuple[int, int]:
        """Credit every running clock with the site's outage, if it showed no sign of life for over
        ``OUTAGE_AFTER`` seconds (the row-locked :class:`Beat`: processes settling together credit
        once, and the second finds the sign of life renewed); (outage ms, games credited). Called
        at a start, and after a failure before a clock is charged or flagged again."""
        after = to_ms(self.settings.outage_after)
        beat = Beat(time.monotonic(), self.clock.now, after, settle=True)
        outage, games = await self.writer.write(beat)
        self.outage_suspected = False
        if games:
            self._rows.clear()  # their clocks were credited
        if outage:
            log.warning("the site was down for %d ms: %d running clocks credited", outage, games)
        return outage, games

    # --- locks and the position cache --------------------------------------------------------

    def lock(self, game_id: str) -> asyncio.Lock:
        """This process's lock of one game: its changes run one at a time."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    def remember(self, game_id: str, position: Position) -> None:
        """Cache a game's position (the least recently used one goes past the limit)."""
        self._cache[game_id] = position
        self._cache.move_to_end(game_id)
        while len(self._cache) > self.settings.state_cache_size:
            self._cache.popitem(last=False)

    def cached_row(self, game_id: str) -> Game | None:
        """The game row as this process's last move left it, if it kept it (an active game's).

        Only a move reads it, instead of the database (issue 27): another process, or a write that
        does not go through :meth:`commit` (the table, the outage credit, a claimed guest), may
        have changed the row since, so a change computed from it carries the copy it was computed
        from (``expect``), and the writer commits it only if the database's row is still exactly
        that copy (:class:`~app.repository.writer.RowChanged` otherwise)."""
        row = self._rows.get(game_id)
        if row is not None:
            self._rows.move_to_end(game_id)
        return row

    def keep_row(self, game: Game) -> None:
        """Keep ``game``, just committed (detached, its values the database's), for the next move;
        a game no longer active is dropped."""
        if game.status != "active":
            self._rows.pop(game.id, None)
            return
        self._rows[game.id] = game
        self._rows.move_to_end(game.id)
        while len(self._rows) > self.settings.state_cache_size:
            self._rows.popitem(last=False)

    def forget_row(self, game_id: str) -> None:
        """The game row changed here other than by a move: the next move reads it again."""
        self._rows.pop(game_id, None)

    async def position(self, session: AsyncSession, game: Game) -> Position:
        """The game's position at its database version: the cache if it is at that version, else
        the replay of the stored moves."""
        cached = self._cache.get(game.id)
        if cached is not None and cached.version == game.version:
            self._cache.move_to_end(game.id)
            return cached
        rules = self.rules.rules(game.slug, game.options)
        # Outside a snapshot (see :meth:`consistent`) a move committed after the game row was read
        # can show up here: the row's ply count says which moves its version holds.
        moves = tuple(await reads.move_texts(session, game.id))[: game.ply_count]
        position = Position(game.version, rules, await self.rules.replay(rules, moves), moves)
        self.remember(game.id, position)
        return position

    async def owners(self, player_ids: Iterable[str]) -> dict[str, Owner]:
        """Each player's account (id and username), None for a guest: what links a seat to a
        profile. Cached: an account's players and usernames never change, so a player found
        with an account stays so; a guest is asked again after ``NO_ACCOUNT_FOR`` seconds (it
        may sign up or be attached meanwhile). Each move of a public game names its seats on
        the live list, and costs no query this way."""
        now = time.monotonic()
        found: dict[str, Owner] = {}
        missing: list[str] = []
        for pid in player_ids:
            entry = self._owners.get(pid)
            if entry is not None and (entry[0] is not None or entry[1] > now):
                found[pid] = entry[0]
                self._owners.move_to_end(pid)
            else:
                missing.append(pid)
        if missing:
            async with self.sessions() as session:
                read = await accounts.seat_accounts(session, missing)
            for pid in missing:
                owner = read.get(pid)
                found[pid] = owner
                self._owners[pid] = (owner, now + NO_ACCOUNT_FOR)
                self._owners.move_to_end(pid)
            while len(self._owners) > 4 * self.settings.state_cache_size:
                self._owners.popitem(last=False)
        return found

    def forget_owner(self, player_id: str) -> None:
        """A player just got an account (signed up, attached): read it again next time."""
        self._owners.pop(player_id, None)

    @contextlib.asynccontextmanager
    async def consistent(self) -> AsyncIterator[AsyncSession]:
        """A session whose reads all see the database at one instant: a game row, its events and
        its moves that agree (a snapshot, a catch-up)."""
        async with self.sessions() as session:
            await read_one_snapshot(session)
            yield session

    # --- loading and visibility ----------------------------------------------------------------

    async def load(self, session: AsyncSession, game_id: str) -> Game:
        """The game row; ``game_not_found`` if there is none."""
        game = await reads.get_game(session, game_id) if plausible_id(game_id) else None
        if game is None:
            raise not_found(game_id)
        return game

    @staticmethod
    def may_see(game: Game, visitor: Visitor | None, token: str | None) -> bool:
        """Public games are seen by all; private ones by their players and the token's holders."""
        if game.public:
            return True
        if visitor is not None and game.seat_of(visitor.id) is not None:
            return True
        return Core.token_opens(game, token)

    @staticmethod
    def token_opens(game: Game, token: str | None) -> bool:
        """Whether ``token`` is the game's join token (compared in constant time)."""
        # Bytes, not str: compare_digest refuses str holding anything but ASCII.
        return bool(
            token
            and game.join_token
            and secrets.compare_digest(token.encode(), game.join_token.encode())
        )

    async def visible(
        self, session: AsyncSession, game_id: str, visitor: Visitor | None, token: str | None
    ) -> Game:
        """The game if the visitor may see it; ``game_not_found`` (the same answer) otherwise."""
        game = await self.load(session, game_id)
        if not self.may_see(game, visitor, token):
            raise not_found(game_id)
        return game

    # --- what subscribers are told ---------------------------------------------------------------

    def view(self, position: Position) -> View:
        """The position as the browser draws it."""
        # The runner hands the rules' ``View`` on as a plain dict.
        return cast(View, self.rules.view(position.rules, position.state))

    def state_json(self, game: Game, position: Position, view: View | None = None) -> StateJson:
        """The game's state as events and catch-ups carry it."""
        return {
            "status": game.status,
            "to_move": game.to_move,
            "ply_count": game.ply_count,
            "result": game.result_json,
            "view": self.view(position) if view is None else view,
            **self.table_json(game),
        }

    def table_json(self, game: Game, now: int | None = None) -> TableJson:
        """What surrounds the board: the clocks, the pending offer, takebacks, rematch links."""
        return {
            "clock": clock_json(game, self.clock.now() if now is None else now),
            "offer": game.offer,
            "declined": game.declined,
            "takebacks": game.takebacks,
            "rematch_of": game.rematch_of,
            "rematch_id": game.rematch_id,
            "away": away_json(game, self.settings.away_grace),
            "abortable": abortable(game),
        }

    def live_entry(
        self,
        game: Game,
        position: Position,
        owners: Mapping[str, Owner],
        view: View | None = None,
    ) -> LiveEntryJson:
        """A game of the live list, with its view for a mini board (``owners``: its seats'
        accounts, :meth:`owners`)."""
        return {
            "id": game.id,
            "game": game.slug,
            "title": position.rules.title,
            "players": players_json(game, owners),
            "moves": game.ply_count,
            "to_move": game.to_move,
            "last_activity": game.last_activity_at,
            "version": game.version,
            "view": self.view(position) if view is None else view,
        }

    async def publish(self, game: Game, position: Position, events: Sequence[EventRow]) -> None:
        """Tell every subscriber of the game (and the live list) about committed events."""
        view = self.view(position)  # once per change
        state = self.state_json(game, position, view)
        for event in events:
            message: EventMsgJson = {
                "type": "event",
                "version": event["version"],
                "kind": event["kind"],
                "data": event["payload"],
                "state": state,
            }
            await self.hub.publish(game_channel(game.id), message)
        await self.tell_players(game)
        if not game.public:
            return
        if game.status == "active":
            owners = await self.owners(seat_ids(game))
            update: LiveUpdateJson = {
                "type": "live_update",
                "game": self.live_entry(game, position, owners, view),
            }
            await self.hub.publish(LIVE_CHANNEL, update)
        elif game.status in ("finished", "cancelled"):
            end: LiveEndJson = {"type": "live_end", "id": game.id, "result": game.result_json}
            await self.hub.publish(LIVE_CHANNEL, end)

    async def tell_players(self, game: Game) -> None:
        """Tell the game's players (both seats, and its creator) that one of their games changed:
        their "My games" lists read themselves again."""
        message: MineChangedJson = {"type": "mine_changed", "game": game.id}
        for player_id in {game.player1_id, game.player2_id, game.creator_id} - {None}:
            assert player_id is not None
            await self.hub.publish(player_channel(player_id), message)

    # --- writing a game's change --------------------------------------------------------------

    def change(
        self,
        game: Game,
        values: dict[str, Any],
        kinds: Sequence[Before],
        visitor: Visitor | None,
        msg_id: str | None,
        move_row: tuple[int, str, int] | None = None,
        players: tuple[PlayerName, ...] = (),
        move_clock: tuple[int, int] | None = None,
        expect: Row | None = None,
    ) -> GameChange:
        """The writer's change taking ``game`` one version per event further (``expect``: the
        cached row it was computed from, see :meth:`cached_row`)."""
        base, game_id = game.version, game.id
        now = values.get("last_activity_at", self.clock.now())
        events: list[EventRow] = [
            {
                "game_id": game_id,
                "version": base + i,
                "kind": kind,
                "payload": payload,
                "player_id": visitor.id if visitor and i == 1 else None,
                "msg_id": msg_id if i == 1 else None,
                "created_at": now,
            }
            for i, (kind, payload) in enumerate(kinds, start=1)
        ]
        move = None
        if move_row is not None:
            ply, text, seat = move_row
            move = {
                "game_id": game_id,
                "ply": ply,
                "text": text,
                "seat": seat,
                "player_id": visitor.id if visitor else None,
                "created_at": now,
                "clock_ms": move_clock[0] if move_clock else None,
                "spent_ms": move_clock[1] if move_clock else None,
            }
        new_values = {**values, "version": base + len(kinds)}
        if game.declined is not None:
            new_values.setdefault("declined", None)  # the game moves on: the decline is old news
        return GameChange(game_id, base, new_values, events, move, players, expect=expect)

    async def commit(
        self,
        session: AsyncSession,
        game: Game,
        change: GameChange,
        raced: AppError | None = None,
    ) -> list[EventRow]:
        """Write ``change``, then mirror it on ``game``; the events written. If the game moved on
        meanwhile: ``raced`` if given, else ``stale_version`` (or ``msg_id_reused`` when the race
        was with the message id)."""
        # Give the session's connection back first (detaching, not expiring, the game row): the
        # write runs on the writer's own connection.
        await session.close()
        self.forget_row(change.game_id)  # kept again by a move that commits (keep_row)
        try:
            await self.writer.write(change)
        except Stale:
            if raced is not None:
                raise raced from None
            current = await self.load(session, change.game_id)
            msg_id = change.events[0]["msg_id"] if change.events else None
            if current.version == change.base and msg_id is not None:
                # The version guard passed, so the row refused was the event: this visitor's
                # message id already names an earlier, different message of this game.
                raise AppError(
                    ErrorCode.MSG_ID_REUSED,
                    f"message id {excerpt(msg_id)} already named another message in this game",
                    version=current.version,
                ) from None
            raise stale(current.version, change.base) from None
        # The row now holds exactly these values: mirror them without another SELECT.
        for key, value in change.values.items():
            set_committed_value(game, key, value)
        return change.events

    async def advance(
        self,
        session: AsyncSession,
        game: Game,
        position: Position,
        change: GameChange,
        raced: AppError | None = None,
    ) -> Position:
        """Commit a change that keeps the game going (see :meth:`commit`), cache ``position``
        (the game's after the change) at the new version, publish the events."""
        events = await self.commit(session, game, change, raced)
        position = Position(game.version, position.rules, position.state, position.moves)
        self.remember(game.id, position)
        await self.publish(game, position, events)
        return position

    async def finish(
        self,
        session: AsyncSession,
        game: Game,
        position: Position,
        result: Result,
        *,
        ending: Ending = "finished",
        before: Sequence[Before] = (),
        values: dict[str, Any] | None = None,
        visitor: Visitor | None = None,
        msg_id: str | None = None,
        move_row: tuple[int, str, int] | None = None,
        move_clock: tuple[int, int] | None = None,
        now: int | None = None,
        expect: Row | None = None,
    ) -> list[EventRow]:
        """End a game with ``result``: the one place where every game ends.

        A rated game's result rates both accounts in the same transaction (so a crash can neither
        rate it twice nor skip it), unless it does not count (:meth:`_rated`).

        Writes the events ``before`` (a move, a resignation), then the ``result`` event, with the
        row's final values (``values`` plus the ending's) in one change; caches ``position`` (the
        final one) at the new version; publishes the events, which ends the game on the live list.
        Stale if the game moved on meanwhile: then nothing is written.
        """
        now = self.clock.now() if now is None else now
        final = {"last_activity_at": now, **(values or {}), **ending_values(result, ending, now)}
        if ending == "finished":  # what the archive filters and sorts by (issue 28)
            final.update(archive_columns(game, position.moves, result))
        if game.clocks is not None and "clocks" not in final:
            # The clocks stop where they are: the seat to move is charged up to the end.
            final["clocks"] = stopped(game, now)
        change = self.change(
            game,
            final,
            [*before, ("result", result)],
            visitor,
            msg_id,
            move_row,
            (),
            move_clock,
            expect,
        )
        if ending == "finished" and game.public:  # the statistics page's counters (issue 28)
            counted = counting(self.rules, game.slug, game.options, game.imported, final)
            change = dataclasses.replace(change, after=(*change.after, counted))
        if ending == "finished" and game.rated and not game.imported:
            rated = await self._rated(session, game, final.get("ply_count", game.ply_count), result)
            change = dataclasses.replace(change, rated=rated)
        if ending == "finished" and game.public:  # the opening explorer counts it (issue 28)
            opening = await explored(
                self.rules, position.rules, game.id, position.moves, result, final["finished_at"]
            )
            if opening is not None:
                change = dataclasses.replace(change, after=(*change.after, opening))
        await self.advance(session, game, position, change)
        return change.events

    async def _rated(
        self, session: AsyncSession, game: Game, plies: int, result: Result
    ) -> RatedResult | None:
        """What rating a rated game's result takes, or None if it does not count: under two
        plies (an opening abandoned or resigned at once), or a seat without an account."""
        if plies < 2 or game.player1_id is None or game.player2_id is None:
            return None
        owners = await accounts.seat_accounts(session, [game.player1_id, game.player2_id])
        first, second = owners.get(game.player1_id), owners.get(game.player2_id)
        if first is None or second is None or first[0] == second[0]:
            return None
        winner = result.get("winner")
        score1 = 0.5 if winner is None else (1.0 if winner == 1 else 0.0)
        return RatedResult(
            game.slug, (first[0], second[0]), (first[1], second[1]), score1, self.clock.now()
        )


def archive_columns(game: Game, moves: Sequence[str], result: Result) -> dict[str, Any]:
    """The archive's columns of ``game`` finished after ``moves`` (``app.domain.archive``)."""
    return columns_of(game.options, game.time_control, moves, result, has_pie(game.slug))
