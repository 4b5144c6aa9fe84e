"""Playing a game: moves (charged to the mover's clock in a timed game), resignation, flags on time,
and the end of games left idle.

Every message that changes the game (a move, a resignation, the server ending it) is checked
against the game's ``version`` and takes it one step further per event, so a client that sent a
move based on an older version is told ``stale_version`` and nothing changes. The version is the
game's alone: what does not change the game (chat, next) gets its own sequence and never bumps it,
so a chat line can never make a pending move stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.domain.clock import idle_cutoff
from app.domain.results import abandonment, resignation, timeout
from app.domain.timecontrol import Clocks, OutOfTime, TimeControl, charge
from app.errors import AppError, ErrorCode, not_found, rule_of
from app.models import Game
from app.repository import reads
from app.repository.writer import RowChanged
from app.repository.writes import EventRow, row_values
from app.runtime.rules import IllegalMoveError, InvalidMoveError, Rules
from app.schemas.outgoing import AckJson, Stored
from app.services.core import Before, Core, Position, Visitor, stale, to_the_end


@dataclass(frozen=True)
class Sent:
    """What a client's move or resign asked for: a retry of it must ask for the same."""

    kind: str
    version: int | None
    text: str | None = None


class PlayService:
    """Moves, resignations and abandonment; every ending goes through :meth:`Core.finish`."""

    def __init__(self, core: Core) -> None:
        self.core = core

    @to_the_end
    async def play(
        self, visitor: Visitor, game_id: str, text: str, version: int, msg_id: str, lag: int = 0
    ) -> AckJson:
        """Validate and commit one move, then publish it; the ack the sender gets. In a timed game
        the mover is charged for its turn, less a lag allowance of at most ``lag`` ms (see
        :mod:`app.domain.timecontrol`); a move that comes too late flags its mover instead."""
        core = self.core
        if core.outage_suspected:  # the database was away: nobody is charged for that time
            await core.settle_outage()
        async with core.lock(game_id), core.sessions() as session:
            # The row this process's last move left, if the move is based on it (issue 27): no
            # read. Anything but a move that commits on it (a refusal, a flag, a row changed
            # meanwhile: RowChanged) is decided again on the row as the database has it.
            cached = core.cached_row(game_id)
            if cached is not None and cached.version == version:
                try:
                    return await self._move(
                        session, cached, visitor, text, version, msg_id, lag, cached=True
                    )
                except (AppError, RowChanged):
                    core.forget_row(game_id)
            game = await core.load(session, game_id)
            return await self._move(session, game, visitor, text, version, msg_id, lag)

    async def _move(
        self,
        session: AsyncSession,
        game: Game,
        visitor: Visitor,
        text: str,
        version: int,
        msg_id: str,
        lag: int,
        *,
        cached: bool = False,
    ) -> AckJson:
        """:meth:`play` on ``game`` (under the game's lock); ``cached``: the row is this process's
        copy (:meth:`Core.cached_row`), so nothing may be refused or flagged on it, and the move
        commits only if the database's row is still that copy (else RowChanged)."""
        core, game_id = self.core, game.id
        sent = Sent("move", version, text)
        expect = row_values(game) if cached else None
        # A retried message was committed at its version, so the game has moved past it: only
        # then can it be a duplicate (this spares the lookup on the common path).
        looked = version != game.version or game.status != "active"
        if looked:
            duplicate = await self._duplicate(session, game, visitor, msg_id, sent)
            if duplicate is not None:
                return duplicate
        try:
            seat = self._acting_seat(game, visitor)
            if version != game.version:
                raise stale(game.version, version)
            if game.to_move != seat:
                raise AppError(ErrorCode.NOT_YOUR_TURN, not_your_turn(game))
            position = await core.position(session, game)
            rules = position.rules
            canonical, new_state = await self._checked(rules, position.state, text)
        except AppError:
            # A refusal: an id of this sender's already used names another message, which
            # the protocol answers before any other refusal (msg_id_reused); on a cached row,
            # the read of the row asks again.
            if not looked and not cached:
                await self._duplicate(session, game, visitor, msg_id, sent)
            raise
        ply = game.ply_count + 1
        now = core.clock.now()
        move_data: Stored = {"ply": ply, "move": canonical, "seat": seat}
        next_to_move = core.rules.to_move(rules, new_state)
        outcome = core.rules.outcome(rules, new_state)
        values: dict[str, Any] = {
            "ply_count": ply,
            "to_move": next_to_move,
            "last_activity_at": now,
        }
        if game.offer is not None and not _stands(game.offer, seat):
            values["offer"] = None  # the opponent's move declines it
        move_clock = None
        if game.clocks is not None:
            clocks = Clocks.from_json(game.clocks)
            # A move of play, not the pie's setup or choice (asked only until both moved).
            of_play = clocks.both_moved or core.rules.view(rules, position.state).get("phase") in (
                None,
                "play",
            )
            control = TimeControl.stored(game.time_control)
            try:
                charged = charge(
                    control,
                    clocks,
                    seat,
                    now,
                    lag,
                    of_play,
                    None if outcome is not None else next_to_move,
                )
            except OutOfTime:
                if cached:  # the outage credit may have given time the copy does not show
                    raise RowChanged from None
                await self._flag(session, game, position, seat, now)
                raise AppError(
                    ErrorCode.GAME_OVER, "Your time ran out before this move arrived"
                ) from None
            values["clocks"] = charged.clocks.to_json()
            values["deadline_at"] = charged.clocks.flag_at(next_to_move, control)
            if control.timed and clocks.running:
                move_clock = (charged.left, charged.spent)
                move_data["clock"] = charged.left
        move: Before = ("move", move_data)
        after = Position(game.version, rules, new_state, (*position.moves, canonical))
        try:
            if outcome is not None:
                await core.finish(
                    session,
                    game,
                    after,
                    outcome,
                    before=[move],
                    values=values,
                    visitor=visitor,
                    msg_id=msg_id,
                    move_row=(ply, canonical, seat),
                    move_clock=move_clock,
                    expect=expect,
                )
            else:
                change = core.change(
                    game,
                    values,
                    [move],
                    visitor,
                    msg_id,
                    move_row=(ply, canonical, seat),
                    move_clock=move_clock,
                    expect=expect,
                )
                await core.advance(session, game, after, change)
        except AppError as exc:
            if cached:
                raise
            return await self._after_race(session, game_id, visitor, msg_id, sent, exc)
        core.keep_row(game)
        return {"version": game.version, "ply": ply, "move": canonical, "duplicate": False}

    @to_the_end
    async def resign(
        self, visitor: Visitor, game_id: str, version: int | None, msg_id: str
    ) -> AckJson:
        """The visitor's seat gives up; the other seat wins."""
        core = self.core
        sent = Sent("resign", version)
        async with core.lock(game_id), core.sessions() as session:
            game = await core.load(session, game_id)
            duplicate = await self._duplicate(session, game, visitor, msg_id, sent)
            if duplicate is not None:
                return duplicate
            seat = self._acting_seat(game, visitor)
            if version is not None and version != game.version:
                raise stale(game.version, version)
            position = await core.position(session, game)
            colours = core.rules.view(position.rules, position.state)["colours"]
            try:
                await core.finish(
                    session,
                    game,
                    position,
                    resignation(seat, colours),
                    before=[("resign", {"seat": seat})],
                    visitor=visitor,
                    msg_id=msg_id,
                )
            except AppError as exc:
                return await self._after_race(session, game_id, visitor, msg_id, sent, exc)
        return {"version": game.version, "duplicate": False}

    async def _flag(
        self, session: AsyncSession, game: Game, position: Position, seat: int, now: int
    ) -> None:
        """End the game on time: ``seat`` ran out (under the game's lock). Its clock shows 0."""
        core = self.core
        colours = core.rules.view(position.rules, position.state)["colours"]
        assert game.clocks is not None
        clocks = Clocks.from_json(game.clocks)
        left = [clocks.left(1, game.to_move, now), clocks.left(2, game.to_move, now)]
        left[seat - 1] = 0
        stopped = Clocks((left[0], left[1]), clocks.quota, clocks.moved, False, None)
        try:
            await core.finish(
                session,
                game,
                position,
                timeout(seat, colours),
                values={"clocks": stopped.to_json()},
                now=now,
            )
        except AppError:  # ended or moved meanwhile by another process: nothing to flag
            return

    async def flag_due(self, now: int | None = None) -> int:
        """Flag every game whose deadline has passed at ``now``: the seat to move loses on time
        (a correspondence game's too). Run by the process holding the deadline lease (see
        :mod:`app.services.deadlines`); the version guard makes a second flagger harmless.
        How many were flagged."""
        core = self.core
        now = core.clock.now() if now is None else now
        async with core.sessions() as session:
            due = await reads.due_games(session, now)
        flagged = 0
        for game_id in due:
            async with core.lock(game_id), core.sessions() as session:
                game = await core.load(session, game_id)
                if (
                    game.status != "active"
                    or game.deadline_at is None
                    or game.deadline_at > now
                    or game.to_move is None
                ):
                    continue
                position = await core.position(session, game)
                await self._flag(session, game, position, game.to_move, now)
                flagged += 1
        return flagged

    async def abandon_idle(self, now: int | None = None) -> int:
        """End every game idle for longer than the setting; how many were ended."""
        core = self.core
        now = core.clock.now() if now is None else now
        cutoff = idle_cutoff(now, core.settings.abandon_after)
        async with core.sessions() as session:
            idle = [game.id for game in await reads.idle_games(session, cutoff)]
        ended = 0
        for game_id in idle:
            async with core.lock(game_id), core.sessions() as session:
                game = await core.load(session, game_id)
                if game.status not in ("waiting", "active") or game.last_activity_at >= cutoff:
                    continue
                position = await core.position(session, game)
                colours = core.rules.view(position.rules, position.state)["colours"]
                ending, result = abandonment(game.status == "active", game.to_move, colours)
                try:
                    await core.finish(session, game, position, result, ending=ending, now=now)
                except AppError:  # it moved meanwhile (another process): no longer idle
                    continue
                ended += 1
        return ended

    @staticmethod
    def _acting_seat(game: Game, visitor: Visitor) -> int:
        seat = game.seat_of(visitor.id)
        if seat is None and not game.public:  # a private game's existence is secret (issue 14)
            raise not_found(game.id)
        if seat is None:
            raise AppError(ErrorCode.NOT_A_PLAYER, "Spectators cannot play or resign in this game")
        if game.status == "waiting":
            raise AppError(ErrorCode.NOT_STARTED, "The game is waiting for its second player")
        if game.status != "active":
            raise AppError(ErrorCode.GAME_OVER, "This game is over")
        return seat

    async def _checked(self, rules: Rules[Any, Any], state: Any, text: str) -> tuple[str, Any]:
        """The canonical text of a move and the state after it; ``invalid_move`` or
        ``illegal_move`` naming the rule it breaks."""
        try:
            checked: tuple[str, Any] = await self.core.rules.check_move(rules, state, text)
        except InvalidMoveError as exc:
            raise AppError(ErrorCode.INVALID_MOVE, str(exc), rule=rule_of(exc)) from exc
        except IllegalMoveError as exc:
            raise AppError(ErrorCode.ILLEGAL_MOVE, str(exc), rule=rule_of(exc)) from exc
        return checked

    async def _duplicate(
        self, session: AsyncSession, game: Game, visitor: Visitor, msg_id: str, sent: Sent
    ) -> AckJson | None:
        """The original answer if ``msg_id`` already produced this very message (a retry); None if
        the id is new; ``msg_id_reused`` if it named another message (the game did not change)."""
        found = await reads.event_of_message(session, game.id, visitor.id, msg_id)
        if found is None:
            return None
        event, ack = found
        if not await self._same(session, game, event.kind, event.version, event.payload, sent):
            raise AppError(
                ErrorCode.MSG_ID_REUSED,
                f"message id {msg_id!r} already named another message in this game",
                version=game.version,
            )
        if ack == game.version:  # the game's latest change: perhaps never published
            await self._publish_again(session, game, event.version)
        if event.kind != "move":
            return {"version": ack, "duplicate": True}
        return {
            "version": ack,
            "duplicate": True,
            "ply": event.payload["ply"],
            "move": event.payload["move"],
        }

    async def _publish_again(self, session: AsyncSession, game: Game, first: int) -> None:
        """Publish again the game's events from version ``first`` on, its latest. A change whose
        commit landed as its connection dropped (the database going away, issue 27) was answered
        ``unavailable`` and never published, so the opponent would not see the move while their
        clock ran; its retry is the first chance to. Sockets skip a version already sent."""
        rows = await reads.events_after(session, game.id, first - 1)
        events: list[EventRow] = [
            {
                "game_id": row.game_id,
                "version": row.version,
                "kind": row.kind,
                "payload": row.payload,
                "player_id": row.player_id,
                "msg_id": row.msg_id,
                "created_at": row.created_at,
            }
            for row in rows
        ]
        await self.core.publish(game, await self.core.position(session, game), events)

    async def _same(
        self,
        session: AsyncSession,
        game: Game,
        kind: str,
        version: int,
        payload: Stored,
        sent: Sent,
    ) -> bool:
        """Whether ``sent`` is the message that produced the event (``kind``, ``version``,
        ``payload``): the same kind, based on the version before it (a resign may leave its
        version out), the same move."""
        if kind != sent.kind:
            return False
        if sent.version is not None and sent.version != version - 1:
            return False
        if sent.kind != "move" or sent.text == payload["move"]:
            return True
        # Another spelling of the same move? Canonicalise it where it was played (rare: a client
        # retries the text it sent, which is the canonical one when it follows the protocol).
        core = self.core
        position = await core.position(session, game)
        state = await core.rules.replay(position.rules, position.moves[: payload["ply"] - 1])
        try:
            canonical, _ = await core.rules.check_move(position.rules, state, sent.text or "")
        except (InvalidMoveError, IllegalMoveError):
            return False
        return bool(canonical == payload["move"])

    async def _after_race(
        self,
        session: AsyncSession,
        game_id: str,
        visitor: Visitor,
        msg_id: str,
        sent: Sent,
        refusal: AppError,
    ) -> AckJson:
        """A change refused at commit: the same message may have been committed meanwhile by
        another process (a retry sent to both); then its original answer, else ``refusal``."""
        if refusal.code not in (ErrorCode.STALE_VERSION, ErrorCode.MSG_ID_REUSED):
            raise refusal
        current = await self.core.load(session, game_id)
        duplicate = await self._duplicate(session, current, visitor, msg_id, sent)
        if duplicate is None:
            raise refusal
        return duplicate


def _stands(offer: Stored, mover: int) -> bool:
    """Whether a pending offer outlives a move of ``mover``: a draw is offered on one's turn and
    then the move is played, so the offerer's own move leaves it for the opponent to answer; any
    other move answers it (declines it)."""
    return bool(offer["kind"] == "draw" and offer["seat"] == mover)


def not_your_turn(game: Game) -> str:
    """The refusal of a move out of turn, naming the player to move ("It is Bob's turn")."""
    name = game.player1_name if game.to_move == 1 else game.player2_name
    return f"It is {name}'s turn" if name else "It is your opponent's turn"
