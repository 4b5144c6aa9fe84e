"""The one play flow: load, replay, validate, persist, publish. Routes call this and nothing else.

Every change of a game runs under that game's lock (one change at a time per game in this process)
and in one transaction that starts with a version-guarded UPDATE of the game row; the unique keys on
(game, ply) and (game, version) make a writer in another process fail in the database itself. Only
after the commit is anything published, so nobody hears of a move that could still be lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
import secrets
import weakref
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm.attributes import set_committed_value

import games
from app import repository as repo
from app.compute import RulesPool
from app.config import Settings
from app.errors import AppError, not_found
from app.hub import LIVE_CHANNEL, Hub, game_channel
from app.identity import default_name, validate_name
from app.models import Event, Game, Move
from app.writer import Change, Stale, Writer
from games.errors import IllegalMoveError, InvalidMoveError, RecordError
from games.record import check_result, make_record, replay_moves, rules_of

Json = dict[str, Any]
MSG_ID_MAX = 64
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
    rules: games.Rules[Any, Any]
    state: Any
    moves: tuple[str, ...]


@dataclass(frozen=True)
class Visitor:
    """Who is asking: a guest id, and the name it goes by."""

    id: str
    name: str


def stale(current: int, based_on: int | None) -> AppError:
    """The refusal of a message based on an old version (or losing a race)."""
    said = "" if based_on is None else f", not {based_on}"
    return AppError(
        "stale_version", f"the game is at version {current}{said}", 409, version=current
    )


def result_key(outcome: Json) -> str:
    """The archive's result column: the winning seat, or "draw"."""
    winner = outcome.get("winner")
    return "draw" if winner is None else str(winner)


def players_json(game: Game) -> list[Json]:
    """The seats and the names they were taken with."""
    return [{"seat": 1, "name": game.player1_name}, {"seat": 2, "name": game.player2_name}]


class GameService:
    """Games: create, join, play, resign, steps, snapshots, records, listings, import, abandonment."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        hub: Hub,
        settings: Settings,
        writer: Writer,
        compute: RulesPool | None = None,
    ) -> None:
        self.sessions = sessions
        self.hub = hub
        self.settings = settings
        self.writer = writer
        self.compute = compute or RulesPool(settings.rules_workers)
        self._cache: OrderedDict[str, Position] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    # --- helpers ---------------------------------------------------------------------------

    def _lock(self, game_id: str) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    def _writing(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """Hold this process's write slot (SQLite) for one writing transaction of the ORM."""
        return self.writer.slot()

    def _remember(self, game_id: str, position: Position) -> None:
        self._cache[game_id] = position
        self._cache.move_to_end(game_id)
        while len(self._cache) > self.settings.state_cache_size:
            self._cache.popitem(last=False)

    async def _position(self, session: AsyncSession, game: Game) -> Position:
        """The game's position at its database version: the cache if it is at that version, else
        the replay of the stored moves."""
        cached = self._cache.get(game.id)
        if cached is not None and cached.version == game.version:
            self._cache.move_to_end(game.id)
            return cached
        rules = games.get(game.slug, **game.options)
        moves = tuple(await repo.move_texts(session, game.id))
        position = Position(game.version, rules, replay_moves(rules, moves), moves)
        self._remember(game.id, position)
        return position

    async def _load(self, session: AsyncSession, game_id: str) -> Game:
        game = await repo.get_game(session, game_id) if _plausible_id(game_id) else None
        if game is None:
            raise not_found(game_id)
        return game

    def _may_see(self, game: Game, visitor: Visitor | None, token: str | None) -> bool:
        if game.public:
            return True
        if visitor is not None and game.seat_of(visitor.id) is not None:
            return True
        return bool(token and game.join_token and secrets.compare_digest(token, game.join_token))

    async def _visible(
        self, session: AsyncSession, game_id: str, visitor: Visitor | None, token: str | None
    ) -> Game:
        game = await self._load(session, game_id)
        if not self._may_see(game, visitor, token):
            raise not_found(game_id)
        return game

    @staticmethod
    def _state_json(game: Game, position: Position, view: Json | None = None) -> Json:
        return {
            "status": game.status,
            "to_move": game.to_move,
            "ply_count": game.ply_count,
            "result": game.result_json,
            "view": position.rules.view(position.state) if view is None else view,
        }

    async def _publish(self, game: Game, position: Position, events: Sequence[Json]) -> None:
        """Tell every subscriber of the game (and the live list) about committed events."""
        view = position.rules.view(position.state)  # once per change, for every message
        state = self._state_json(game, position, view)
        for event in events:
            await self.hub.publish(
                game_channel(game.id),
                {
                    "type": "event",
                    "version": event["version"],
                    "kind": event["kind"],
                    "data": event["payload"],
                    "state": state,
                },
            )
        if not game.public:
            return
        if game.status == "active":
            await self.hub.publish(
                LIVE_CHANNEL,
                {"type": "live_update", "game": self._live_entry(game, position, view)},
            )
        elif game.status in ("finished", "cancelled"):
            await self.hub.publish(
                LIVE_CHANNEL, {"type": "live_end", "id": game.id, "result": game.result_json}
            )

    @staticmethod
    def _live_entry(game: Game, position: Position, view: Json | None = None) -> Json:
        return {
            "id": game.id,
            "game": game.slug,
            "title": position.rules.title,
            "players": players_json(game),
            "moves": game.ply_count,
            "to_move": game.to_move,
            "last_activity": game.last_activity_at,
            "version": game.version,
            "view": position.rules.view(position.state) if view is None else view,
        }

    async def visitor(self, guest_id: str) -> Visitor:
        """The guest with its current name."""
        async with self.sessions() as session:
            player = await repo.get_player(session, guest_id)
        return Visitor(guest_id, player.name if player else default_name(guest_id))

    async def rename(self, guest_id: str, raw_name: object) -> Visitor:
        """Set a guest's display name (validated)."""
        name = validate_name(raw_name)
        async with self._writing(), self.sessions() as session:
            await repo.save_player(session, guest_id, name)
            await session.commit()
        return Visitor(guest_id, name)

    # --- lifecycle -------------------------------------------------------------------------

    async def create(
        self,
        visitor: Visitor,
        slug: str,
        options: dict[str, Any],
        seat: object,
        public: bool,
    ) -> Json:
        """A new game with the visitor seated; the answer holds the secret join token."""
        if slug not in games.names():
            raise AppError(
                "unknown_game",
                f"unknown game {slug!r} (known: {', '.join(games.names())})",
                field="game",
            )
        try:
            rules = games.get(slug, **options)
        except ValueError as exc:
            match = re.search(r"option '([^']*)'", str(exc))
            field = f"options.{match.group(1)}" if match else "options"
            raise AppError("bad_option", str(exc), field=field) from exc
        if isinstance(seat, bool) or seat not in (1, 2, "random"):
            raise AppError(
                "invalid_request", f"seat must be 1, 2 or 'random', not {seat!r}", field="seat"
            )
        if seat == "random":
            seat = 1 + secrets.randbelow(2)
        now = repo.now_ms()
        game_id = secrets.token_urlsafe(9)
        token = secrets.token_urlsafe(32)
        state = rules.initial_state()
        name_key = visitor.name.lower()
        game = Game(
            id=game_id,
            slug=slug,
            options=rules.options,
            public=public,
            join_token=token,
            creator_id=visitor.id,
            status="waiting",
            version=1,
            ply_count=0,
            to_move=rules.to_move(state),
            imported=False,
            created_at=now,
            last_activity_at=now,
        )
        if seat == 1:
            game.player1_id, game.player1_name, game.player1_key = (
                visitor.id,
                visitor.name,
                name_key,
            )
        else:
            game.player2_id, game.player2_name, game.player2_key = (
                visitor.id,
                visitor.name,
                name_key,
            )
        async with self._writing(), self.sessions() as session:
            await repo.save_player(session, visitor.id, visitor.name)
            await session.flush()
            session.add(game)
            await session.flush()
            session.add(
                Event(
                    game_id=game_id,
                    version=1,
                    kind="create",
                    payload={"seat": seat, "name": visitor.name},
                    player_id=visitor.id,
                    created_at=now,
                )
            )
            await session.commit()
        self._remember(game_id, Position(1, rules, state, ()))
        return {
            "id": game_id,
            "seat": seat,
            "join_token": token,
            "invite_url": f"/games/{game_id}?join={token}",
            "url": f"/games/{game_id}",
            "ws_url": f"/ws/games/{game_id}",
            "version": 1,
        }

    @to_the_end
    async def join(self, visitor: Visitor, game_id: str, token: object) -> Json:
        """Take the empty seat of a game with its join token."""
        async with self._lock(game_id), self._writing(), self.sessions() as session:
            game = await self._load(session, game_id)
            if not (
                isinstance(token, str)
                and game.join_token
                and secrets.compare_digest(token.encode(), game.join_token.encode())
            ):
                raise AppError("bad_token", "this join token does not open this game", 403)
            if game.seat_of(visitor.id) is not None:
                raise AppError("already_seated", "you already hold a seat in this game", 409)
            if game.player1_id is not None and game.player2_id is not None:
                raise AppError("game_full", f"both seats of game {game_id!r} are taken", 409)
            if game.status != "waiting":
                raise AppError("game_over", "this game is over", 409)
            seat = 1 if game.player1_id is None else 2
            now = repo.now_ms()
            name_key = visitor.name.lower()
            values: dict[str, Any] = {
                f"player{seat}_id": visitor.id,
                f"player{seat}_name": visitor.name,
                f"player{seat}_key": name_key,
                "status": "active",
                "version": game.version + 1,
                "last_activity_at": now,
            }
            await repo.save_player(session, visitor.id, visitor.name)
            await session.flush()
            if not await repo.advance(session, game_id, game.version, **values):
                await session.rollback()
                raise AppError("game_full", f"both seats of game {game_id!r} are taken", 409)
            event = Event(
                game_id=game_id,
                version=game.version + 1,
                kind="join",
                payload={"seat": seat, "name": visitor.name},
                player_id=visitor.id,
                created_at=now,
            )
            session.add(event)
            try:
                await session.commit()
            except IntegrityError as exc:
                await session.rollback()
                raise AppError(
                    "game_full", f"both seats of game {game_id!r} are taken", 409
                ) from exc
            game = await self._load(session, game_id)
            position = await self._position(session, game)
            await self._publish(
                game,
                position,
                [{"version": event.version, "kind": event.kind, "payload": event.payload}],
            )
        return {"id": game_id, "seat": seat, "version": game.version}

    @to_the_end
    async def play(
        self, visitor: Visitor, game_id: str, text: str, version: int, msg_id: str
    ) -> Json:
        """Validate and commit one move, then publish it; the ack the sender gets."""
        async with self._lock(game_id), self.sessions() as session:
            game = await self._load(session, game_id)
            # A retried message was committed at its version, so the game has moved past it: only
            # then can it be a duplicate (this spares the lookup on the common path).
            if version != game.version or game.status != "active":
                duplicate = await self._duplicate(session, game_id, visitor, msg_id)
                if duplicate is not None:
                    return duplicate
            seat = self._acting_seat(game, visitor)
            if version != game.version:
                raise stale(game.version, version)
            if game.to_move != seat:
                raise AppError("not_your_turn", f"it is seat {game.to_move}'s turn, not yours", 409)
            position = await self._position(session, game)
            rules = position.rules
            try:
                canonical, new_state = await self.compute.check_move(rules, position.state, text)
            except InvalidMoveError as exc:
                raise AppError("invalid_move", str(exc), 422) from exc
            except IllegalMoveError as exc:
                raise AppError("illegal_move", str(exc), 422) from exc
            outcome = rules.outcome(new_state)
            now = repo.now_ms()
            ply = game.ply_count + 1
            kinds: list[tuple[str, Json]] = [
                ("move", {"ply": ply, "move": canonical, "seat": seat})
            ]
            values: dict[str, Any] = {
                "ply_count": ply,
                "to_move": rules.to_move(new_state),
                "last_activity_at": now,
            }
            if outcome is not None:
                result = outcome.to_json()
                kinds.append(("result", result))
                values.update(
                    status="finished",
                    result=result_key(result),
                    reason=outcome.reason,
                    result_json=result,
                    finished_at=now,
                    to_move=None,
                )
            events = await self._commit(
                session, game, values, kinds, visitor, msg_id, move_row=(ply, canonical, seat)
            )
            new_position = Position(game.version, rules, new_state, (*position.moves, canonical))
            self._remember(game_id, new_position)
            await self._publish(game, new_position, events)
        return {"version": game.version, "ply": ply, "move": canonical, "duplicate": False}

    @to_the_end
    async def resign(
        self, visitor: Visitor, game_id: str, version: int | None, msg_id: str
    ) -> Json:
        """The visitor's seat gives up; the other seat wins."""
        async with self._lock(game_id), self.sessions() as session:
            game = await self._load(session, game_id)
            duplicate = await self._duplicate(session, game_id, visitor, msg_id)
            if duplicate is not None:
                return duplicate
            seat = self._acting_seat(game, visitor)
            if version is not None and version != game.version:
                raise stale(game.version, version)
            position = await self._position(session, game)
            winner = 3 - seat
            colours = position.rules.view(position.state)["colours"]
            result = {
                "winner": winner,
                "colour": colours.get(str(winner)),
                "reason": "resignation",
                "scores": None,
            }
            now = repo.now_ms()
            values = {
                "status": "finished",
                "result": result_key(result),
                "reason": "resignation",
                "result_json": result,
                "finished_at": now,
                "last_activity_at": now,
                "to_move": None,
            }
            kinds: list[tuple[str, Json]] = [("resign", {"seat": seat}), ("result", result)]
            events = await self._commit(session, game, values, kinds, visitor, msg_id)
            position = Position(game.version, position.rules, position.state, position.moves)
            self._remember(game_id, position)
            await self._publish(game, position, events)
        return {"version": game.version, "duplicate": False}

    def _acting_seat(self, game: Game, visitor: Visitor) -> int:
        seat = game.seat_of(visitor.id)
        if seat is None:
            raise AppError("not_a_player", "spectators cannot play or resign in this game", 403)
        if game.status == "waiting":
            raise AppError("not_started", "the game waits for its second player", 409)
        if game.status != "active":
            raise AppError("game_over", "this game is over", 409)
        return seat

    async def _duplicate(
        self, session: AsyncSession, game_id: str, visitor: Visitor, msg_id: str
    ) -> Json | None:
        found = await repo.event_of_message(session, game_id, visitor.id, msg_id)
        if found is None:
            return None
        event, ack = found
        answer: Json = {"version": ack, "duplicate": True}
        if event.kind == "move":
            answer.update(ply=event.payload["ply"], move=event.payload["move"])
        return answer

    async def _commit(
        self,
        session: AsyncSession,
        game: Game,
        values: dict[str, Any],
        kinds: list[tuple[str, Json]],
        visitor: Visitor | None,
        msg_id: str | None,
        move_row: tuple[int, str, int] | None = None,
    ) -> list[Json]:
        """Write the game's new version, its events (and move), and commit; stale if raced.

        Returns the events written, as the rows ``events`` holds.
        """
        # Plain values: a rollback expires ORM objects, and reading one then would do IO.
        base, game_id = game.version, game.id
        now = values.get("last_activity_at", repo.now_ms())
        events = [
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
            }
        change = Change(game_id, base, {**values, "version": base + len(kinds)}, events, move)
        # Give the session's connection back first (detaching, not expiring, the game row):
        # the write runs on its own connection.
        await session.close()
        try:
            await self.writer.write(change)
        except Stale:
            current = await self._load(session, game_id)
            if current.version == base and msg_id is not None:
                # The version guard passed, so the row refused was the event: this visitor's
                # message id already names an earlier, different message of this game.
                raise AppError(
                    "msg_id_reused",
                    f"message id {msg_id!r} already named another message in this game",
                    409,
                    version=current.version,
                ) from None
            raise stale(current.version, base) from None
        # The row now holds exactly these values: mirror them without another SELECT.
        for key, value in change.values.items():
            set_committed_value(game, key, value)
        return events

    async def abandon_idle(self, now: int | None = None) -> int:
        """End every game idle for longer than the setting; how many were ended."""
        now = repo.now_ms() if now is None else now
        cutoff = now - int(self.settings.abandon_after * 1000)
        async with self.sessions() as session:
            idle = [game.id for game in await repo.idle_games(session, cutoff)]
        ended = 0
        for game_id in idle:
            async with self._lock(game_id), self.sessions() as session:
                game = await self._load(session, game_id)
                if game.status not in ("waiting", "active") or game.last_activity_at >= cutoff:
                    continue
                position = await self._position(session, game)
                if game.status == "waiting":
                    result: Json = {
                        "winner": None,
                        "colour": None,
                        "reason": "abandoned",
                        "scores": None,
                    }
                    values: dict[str, Any] = {"status": "cancelled"}
                else:
                    winner = None if game.to_move is None else 3 - game.to_move
                    colours = position.rules.view(position.state)["colours"]
                    result = {
                        "winner": winner,
                        "colour": None if winner is None else colours.get(str(winner)),
                        "reason": "abandoned",
                        "scores": None,
                    }
                    values = {"status": "finished", "result": result_key(result)}
                values.update(
                    reason="abandoned",
                    result_json=result,
                    finished_at=now,
                    last_activity_at=now,
                    to_move=None,
                )
                try:
                    events = await self._commit(
                        session, game, values, [("result", result)], None, None
                    )
                except AppError:
                    continue
                position = Position(game.version, position.rules, position.state, position.moves)
                self._remember(game_id, position)
                await self._publish(game, position, events)
                ended += 1
        return ended

    # --- reading ---------------------------------------------------------------------------

    async def steps(
        self, game_id: str, prefix: Sequence[str], visitor: Visitor | None, token: str | None
    ) -> Json:
        """Which tokens may follow ``prefix`` in the current position."""
        async with self.sessions() as session:
            game = await self._visible(session, game_id, visitor, token)
            position = await self._position(session, game)
        try:
            steps = await self.compute.steps(position.rules, position.state, prefix)
        except ValueError as exc:
            raise AppError("illegal_steps", str(exc), 422) from exc
        return {"version": game.version, **steps.to_json()}

    async def snapshot(self, game_id: str, visitor: Visitor | None, token: str | None) -> Json:
        """Everything a game page needs, at the current version."""
        async with self.sessions() as session:
            game = await self._visible(session, game_id, visitor, token)
            position = await self._position(session, game)
        view = position.rules.view(position.state)
        seat = game.seat_of(visitor.id) if visitor else None
        return {
            "version": game.version,
            "game": {
                "id": game.id,
                "game": game.slug,
                "title": position.rules.title,
                "options": game.options,
                "status": game.status,
                "public": game.public,
                "imported": game.imported,
                "players": players_json(game),
                "colours": view["colours"],
                "moves": list(position.moves),
                "to_move": game.to_move,
                "result": game.result_json,
                "created_at": game.created_at,
                "last_activity": game.last_activity_at,
            },
            "view": view,
            "spectators": await self.hub.presence_count(game_channel(game.id)),
            "you": {"seat": seat, "name": visitor.name if visitor else None},
        }

    async def catchup(
        self, game_id: str, since: int, visitor: Visitor | None, token: str | None
    ) -> Json | None:
        """The events after ``since`` and the current state, or None when a snapshot is due."""
        async with self.sessions() as session:
            game = await self._visible(session, game_id, visitor, token)
            if since > game.version or game.version - since > self.settings.ws_resync_gap:
                return None
            events = await repo.events_after(session, game_id, since)
            position = await self._position(session, game)
        return {
            "since": since,
            "version": game.version,
            "events": [{"version": e.version, "kind": e.kind, "data": e.payload} for e in events],
            "state": self._state_json(game, position),
            "spectators": await self.hub.presence_count(game_channel(game.id)),
            "you": {
                "seat": game.seat_of(visitor.id) if visitor else None,
                "name": visitor.name if visitor else None,
            },
        }

    async def seat_of(self, game_id: str, visitor: Visitor) -> int | None:
        """The visitor's seat in a game, if any."""
        async with self.sessions() as session:
            game = await self._load(session, game_id)
        return game.seat_of(visitor.id)

    async def record(self, game_id: str, visitor: Visitor | None, token: str | None) -> Json:
        """The game's record (``hexmoot-record/1``)."""
        async with self.sessions() as session:
            game = await self._visible(session, game_id, visitor, token)
            position = await self._position(session, game)
        players = [{"seat": p["seat"], "name": p["name"]} for p in players_json(game) if p["name"]]
        record = make_record(position.rules, position.moves, players, result={})
        record["result"] = game.result_json  # the stored result, server reasons included
        return record

    async def open_games(self) -> list[Json]:
        """Public games waiting for an opponent."""
        async with self.sessions() as session:
            rows = await repo.open_games(session)
        return [
            {
                "id": g.id,
                "game": g.slug,
                "title": _title(g.slug),
                "options": g.options,
                "players": players_json(g),
                "created_at": g.created_at,
                "join_token": g.join_token,
            }
            for g in rows
        ]

    async def live_games(self) -> list[Json]:
        """Public games in progress, with a view each for a mini board."""
        async with self.sessions() as session:
            rows = await repo.live_games(session)
            return [self._live_entry(g, await self._position(session, g)) for g in rows]

    async def archive(
        self, filters: repo.ArchiveFilter, after: tuple[int, str] | None, limit: int
    ) -> tuple[list[Json], tuple[int, str] | None]:
        """One archive page and the key of its last game when more follow."""
        async with self.sessions() as session:
            rows = list(await repo.archive_page(session, filters, after, limit + 1))
        more = len(rows) > limit
        rows = rows[:limit]
        entries = [
            {
                "id": g.id,
                "game": g.slug,
                "title": _title(g.slug),
                "options": g.options,
                "players": players_json(g),
                "moves": g.ply_count,
                "result": g.result_json,
                "finished_at": g.finished_at,
                "imported": g.imported,
            }
            for g in rows
        ]
        last = rows[-1] if more and rows else None
        cursor = (last.finished_at or 0, last.id) if last is not None else None
        return entries, cursor

    async def import_record(self, record: object) -> Json:
        """Store a finished game's record, validated by replay, as an imported archived game."""
        if not isinstance(record, dict):
            raise AppError("invalid_record", "a record must be a JSON object", ply=None)
        try:
            rules = rules_of(record)
            moves = record.get("moves")
            if not isinstance(moves, list):
                raise RecordError("the record's moves must be a list of texts")
            state = replay_moves(rules, moves)
            outcome = rules.outcome(state)
            check_result(outcome, record.get("result"))
        except RecordError as exc:
            raise AppError("invalid_record", str(exc), ply=exc.ply) from exc
        result: Json | None = outcome.to_json() if outcome else record.get("result")
        if result is None:
            raise AppError(
                "unfinished_record",
                "the moves leave the game open and the record gives no result",
                ply=None,
            )
        names: dict[int, str] = {}
        players = record.get("players", [])
        if not isinstance(players, list):
            raise AppError("invalid_record", "the record's players must be a list", ply=None)
        for entry in players:
            if not isinstance(entry, dict) or entry.get("seat") not in (1, 2):
                raise AppError(
                    "invalid_record",
                    f"a player must be {{seat: 1|2, name}}, not {entry!r}",
                    ply=None,
                )
            try:
                names[entry["seat"]] = validate_name(entry.get("name"))
            except AppError as exc:
                raise AppError(
                    "invalid_record", f"player {entry['seat']}: {exc.message}", ply=None
                ) from exc
        # Re-canonicalise the moves so the archive only holds canonical text.
        canonical = await self.compute.canonical_moves(rules, moves)
        now = repo.now_ms()
        game_id = secrets.token_urlsafe(9)
        game = Game(
            id=game_id,
            slug=rules.slug,
            options=rules.options,
            public=True,
            join_token=None,
            creator_id=None,
            status="finished",
            version=len(canonical) + 2,
            ply_count=len(canonical),
            to_move=None,
            player1_name=names.get(1),
            player2_name=names.get(2),
            player1_key=names[1].lower() if 1 in names else None,
            player2_key=names[2].lower() if 2 in names else None,
            result=result_key(result),
            reason=str(result.get("reason")),
            result_json=dict(result),
            imported=True,
            created_at=now,
            last_activity_at=now,
            finished_at=now,
        )
        async with self._writing(), self.sessions() as session:
            session.add(game)
            await session.flush()
            session.add(
                Event(game_id=game_id, version=1, kind="import", payload={}, created_at=now)
            )
            state = rules.initial_state()
            for ply, text in enumerate(canonical, start=1):
                seat = rules.to_move(state) or 1
                state = rules.play(state, text)
                session.add(Move(game_id=game_id, ply=ply, text=text, seat=seat, created_at=now))
                session.add(
                    Event(
                        game_id=game_id,
                        version=ply + 1,
                        kind="move",
                        payload={"ply": ply, "move": text, "seat": seat},
                        created_at=now,
                    )
                )
            session.add(
                Event(
                    game_id=game_id,
                    version=len(canonical) + 2,
                    kind="result",
                    payload=dict(result),
                    created_at=now,
                )
            )
            await session.commit()
        return {"id": game_id, "url": f"/games/{game_id}"}


@functools.cache
def _title(slug: str) -> str:
    # Cached: ``games.rules_class`` looks every module up on the import path each time.
    try:
        return games.rules_class(slug).title
    except ValueError:
        return slug


@functools.cache
def installed() -> frozenset[str]:
    """The slugs of the games this process serves (read once: modules do not appear at runtime)."""
    return frozenset(games.names())


def _plausible_id(game_id: str) -> bool:
    return 1 <= len(game_id) <= 16 and re.fullmatch(r"[A-Za-z0-9_-]+", game_id) is not None
