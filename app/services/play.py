"""Playing a game: moves, resignation, and the end of games left idle (later: offers, timeouts).

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
from app.domain.results import abandonment, resignation
from app.errors import AppError, ErrorCode, not_found, rule_of
from app.models import Game
from app.repository import reads
from app.runtime.rules import IllegalMoveError, InvalidMoveError
from app.services.core import Core, Json, Position, Visitor, stale, to_the_end


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
        self, visitor: Visitor, game_id: str, text: str, version: int, msg_id: str
    ) -> Json:
        """Validate and commit one move, then publish it; the ack the sender gets."""
        core = self.core
        sent = Sent("move", version, text)
        async with core.lock(game_id), core.sessions() as session:
            game = await core.load(session, game_id)
            # A retried message was committed at its version, so the game has moved past it: only
            # then can it be a duplicate (this spares the lookup on the common path).
            if version != game.version or game.status != "active":
                duplicate = await self._duplicate(session, game, visitor, msg_id, sent)
                if duplicate is not None:
                    return duplicate
            seat = self._acting_seat(game, visitor)
            if version != game.version:
                raise stale(game.version, version)
            if game.to_move != seat:
                raise AppError(ErrorCode.NOT_YOUR_TURN, not_your_turn(game))
            position = await core.position(session, game)
            rules = position.rules
            try:
                canonical, new_state = await core.rules.check_move(rules, position.state, text)
            except InvalidMoveError as exc:
                raise AppError(ErrorCode.INVALID_MOVE, str(exc), rule=rule_of(exc)) from exc
            except IllegalMoveError as exc:
                raise AppError(ErrorCode.ILLEGAL_MOVE, str(exc), rule=rule_of(exc)) from exc
            ply = game.ply_count + 1
            move: tuple[str, Json] = ("move", {"ply": ply, "move": canonical, "seat": seat})
            values: dict[str, Any] = {
                "ply_count": ply,
                "to_move": core.rules.to_move(rules, new_state),
                "last_activity_at": core.clock.now(),
            }
            after = Position(game.version, rules, new_state, (*position.moves, canonical))
            outcome = core.rules.outcome(rules, new_state)
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
                    )
                else:
                    change = core.change(
                        game, values, [move], visitor, msg_id, move_row=(ply, canonical, seat)
                    )
                    await core.advance(session, game, after, change)
            except AppError as exc:
                return await self._after_race(session, game_id, visitor, msg_id, sent, exc)
        return {"version": game.version, "ply": ply, "move": canonical, "duplicate": False}

    @to_the_end
    async def resign(
        self, visitor: Visitor, game_id: str, version: int | None, msg_id: str
    ) -> Json:
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

    async def _duplicate(
        self, session: AsyncSession, game: Game, visitor: Visitor, msg_id: str, sent: Sent
    ) -> Json | None:
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
        answer: Json = {"version": ack, "duplicate": True}
        if event.kind == "move":
            answer.update(ply=event.payload["ply"], move=event.payload["move"])
        return answer

    async def _same(
        self, session: AsyncSession, game: Game, kind: str, version: int, payload: Json, sent: Sent
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
    ) -> Json:
        """A change refused at commit: the same message may have been committed meanwhile by
        another process (a retry sent to both); then its original answer, else ``refusal``."""
        if refusal.code not in (ErrorCode.STALE_VERSION, ErrorCode.MSG_ID_REUSED):
            raise refusal
        current = await self.core.load(session, game_id)
        duplicate = await self._duplicate(session, current, visitor, msg_id, sent)
        if duplicate is None:
            raise refusal
        return duplicate


def not_your_turn(game: Game) -> str:
    """The refusal of a move out of turn, naming the player to move ("It is Bob's turn")."""
    name = game.player1_name if game.to_move == 1 else game.player2_name
    return f"It is {name}'s turn" if name else "It is your opponent's turn"
