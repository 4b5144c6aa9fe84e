"""The table around a game: offers (a draw, a takeback, a rematch) and their answers, the abort,
disconnections and the claim of victory over a player who left, and chat.

**Offers** do not change the game, so they do not take it a version further: the pending offer is
a column of the game row (``games.offer``), written only while the game is still at the version
it was read at (:class:`~app.repository.writes.SetTable`), and announced to every socket of the
game as a ``table`` message. Only one offer is pending at a time; it lasts until the offerer's
opponent answers it or moves (the move declines it), so a draw offered on one's turn stands
through one's own move. What an accepted offer does is a change of the game, and goes the usual way: an
accepted draw ends the game through :meth:`Core.finish` (reason ``agreement``); an accepted
takeback is an ``undo`` event that removes the move rows after the ply it returns to, in the same
transaction, while the version still only grows; an accepted rematch creates a new game.

Readings chosen here:

- A draw may be offered only on one's own turn, as over the board; only Harmijan and Exxit can end
  drawn, and the others refuse a draw offer (``no_draws``).
- A takeback asks back the asker's last move: one ply when the opponent has not answered it yet,
  two when the opponent already has (their reply and the asker's move), never more. Takebacks are
  on in casual games; a rated game allows them only if its creator allowed them (joining such a
  game is the second player's consent).
- Offering what the opponent already offers accepts it.
- A rematch swaps the seats (the pie still decides colours where a game has one) and keeps the
  options, the time control, the visibility, takebacks and the rating of the game.

**Abort**: until both seats have made a move of play, either may abort; the game ends as a
cancelled one (``aborted``): unrated, and never in the archive.

**Disconnections** (real-time games only): when the last socket of a seated player closes, the
player is *away*; each seat has ``AWAY_GRACE`` seconds of absence per game, used up while away.
The opponent sees it, and may claim the win (``disconnect``) once the absent player's grace is
used up and they are still away.

A declined offer is kept (``games.declined``: its kind and the seat that declined it) until the
game moves on or another offer is made, so the offerer is told, even after reconnecting.

**Chat** has two rooms, ``players`` and ``spectators``; nobody sees the other room while the game
runs. Lines are stored, numbered on their own sequence per room (never the game's version, so a
chat line cannot make a pending move stale), limited to ``CHAT_MAX`` characters and rate-limited
per visitor by the caller; they are never part of the record. Muting the other side is the
client's (a choice of the reader, kept in the browser).
"""

from __future__ import annotations

import dataclasses
import unicodedata
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from app.domain.results import abort, agreed_draw, disconnection
from app.domain.timecontrol import Clocks, TimeControl, undo
from app.errors import AppError, ErrorCode, excerpt, not_found
from app.models import CHAT_MAX, Game
from app.repository import accounts, reads
from app.repository.writer import Stale
from app.repository.writes import NewChatLine, PlayerName, SetTable
from app.runtime.hub import chat_channel, game_channel, parse_seat_channel, seat_channel
from app.runtime.rules import can_draw
from app.schemas.outgoing import (
    ChatLineJson,
    ChatLineMsgJson,
    ChatLogJson,
    ChatSaidJson,
    EndedJson,
    OfferAnswerJson,
    Stored,
    TableJson,
    TableMsgJson,
)
from app.services.core import (
    Before,
    Core,
    Position,
    Visitor,
    abortable,
    away_state,
    stale,
    to_the_end,
)
from app.services.lifecycle import LifecycleService

KINDS = ("draw", "takeback", "rematch")
Room = Literal["players", "spectators"]
CHAT_LOG = 100  # the lines of a room a snapshot carries


class TableService:
    """Offers and answers, abort, disconnections and claims, chat."""

    def __init__(self, core: Core, lifecycle: LifecycleService) -> None:
        self.core = core
        self.lifecycle = lifecycle

    # --- offers ----------------------------------------------------------------------------------

    @to_the_end
    async def offer(self, visitor: Visitor, game_id: str, kind: str) -> OfferAnswerJson:
        """Make an offer of ``kind`` (draw, takeback, rematch); what is pending after it."""
        core = self.core
        async with core.lock(game_id), core.sessions() as session:
            game = await core.load(session, game_id)
            seat = _seat(game, visitor, finished=kind == "rematch")
            _offerable(game, kind)
            pending = game.offer
            if pending is not None:
                if pending["seat"] == seat:
                    if pending["kind"] == kind:
                        raise AppError(ErrorCode.ALREADY_OFFERED, f"You already offered a {kind}")
                    raise AppError(
                        ErrorCode.OFFER_PENDING,
                        f"Your {pending['kind']} offer is still pending: withdraw it first",
                    )
                if pending["kind"] == kind:  # both want it: agreed
                    return await self._accept(session, game, visitor, pending)
                raise AppError(
                    ErrorCode.OFFER_PENDING,
                    f"Your opponent's {pending['kind']} offer awaits your answer first",
                )
            offer: Stored = {"kind": kind, "seat": seat}
            if kind == "draw":
                if not can_draw(game.slug):
                    title = game.slug.capitalize()
                    raise AppError(
                        ErrorCode.NO_DRAWS,
                        f"{title} cannot end in a draw: its rules always give a winner",
                    )
                if game.to_move != seat:
                    raise AppError(ErrorCode.NOT_YOUR_TURN, "Offer a draw on your own turn")
            elif kind == "takeback":
                if not game.takebacks:
                    raise AppError(ErrorCode.TAKEBACKS_OFF, "Takebacks are off in this rated game")
                offer["plies"] = await _takeback_plies(session, game, seat)
            await self._set(game, {"offer": offer, "declined": None})
        return {"offer": offer}

    @to_the_end
    async def answer(
        self, visitor: Visitor, game_id: str, kind: str, accept: bool
    ) -> OfferAnswerJson:
        """Accept or decline the opponent's pending offer of ``kind``, or (``accept`` false)
        withdraw one's own; what is pending after it, and the new game of an accepted rematch."""
        core = self.core
        async with core.lock(game_id), core.sessions() as session:
            game = await core.load(session, game_id)
            seat = _seat(game, visitor, finished=kind == "rematch")
            pending = game.offer
            if pending is None or pending["kind"] != kind:
                raise AppError(ErrorCode.NO_OFFER, f"There is no {kind} offer to answer")
            if pending["seat"] == seat and accept:
                raise AppError(ErrorCode.OWN_OFFER, "You cannot accept your own offer")
            if not accept:
                # Declined by the opponent: the offerer is told (``declined``) until the game
                # moves on; withdrawn by the offerer: it is just gone.
                mine = pending["seat"] == seat
                declined = None if mine else {"kind": kind, "seat": seat}
                await self._set(game, {"offer": None, "declined": declined})
                return {"offer": None}
            return await self._accept(session, game, visitor, pending)

    async def _accept(
        self, session: AsyncSession, game: Game, visitor: Visitor, pending: Stored
    ) -> OfferAnswerJson:
        """Do what an accepted offer does (under the game's lock)."""
        core = self.core
        position = await core.position(session, game)
        if pending["kind"] == "draw":
            await core.finish(session, game, position, agreed_draw(), visitor=visitor)
            return {"offer": None}
        if pending["kind"] == "takeback":
            await self._undo(session, game, position, int(pending["plies"]), visitor)
            return {"offer": None}
        rematch = await self._rematch(session, game)
        return {"offer": None, "rematch_id": rematch}

    async def _undo(
        self, session: AsyncSession, game: Game, position: Position, plies: int, visitor: Visitor
    ) -> None:
        """Take back ``plies`` plies: an ``undo`` event, the move rows after the ply it returns
        to removed in the same transaction."""
        core = self.core
        now = core.clock.now()
        kept = position.moves[: len(position.moves) - plies]
        state = await core.rules.replay(position.rules, kept)
        to_move = core.rules.to_move(position.rules, state)
        values: dict[str, Any] = {
            "ply_count": len(kept),
            "to_move": to_move,
            "offer": None,
            "last_activity_at": now,
        }
        if game.clocks is not None:
            clocks = undo(Clocks.from_json(game.clocks), game.to_move, now)
            values["clocks"] = clocks.to_json()
            control = TimeControl.stored(game.time_control)
            values["deadline_at"] = clocks.flag_at(to_move, control)
        event: Before = ("undo", {"plies": plies, "ply_count": len(kept)})
        change = core.change(game, values, [event], visitor, None)
        change = dataclasses.replace(change, undo_after=len(kept))
        await core.advance(
            session, game, Position(game.version, position.rules, state, kept), change
        )

    async def _rematch(self, session: AsyncSession, game: Game) -> str:
        """The rematch: the same game with the seats swapped, joined at once, linked both ways."""
        assert game.player1_id is not None and game.player2_id is not None
        owners = await accounts.seat_accounts(session, [game.player1_id, game.player2_id])
        first, second = (
            Visitor(
                pid,
                name or "",
                owners[pid][0] if pid in owners else None,
                owners[pid][1] if pid in owners else None,
            )
            for pid, name in (
                (game.player1_id, game.player1_name),
                (game.player2_id, game.player2_name),
            )
        )
        created = await self.lifecycle.create(
            first,
            game.slug,
            dict(game.options),
            2,
            game.public,
            game.rated,
            quota=False,
            time_control=game.time_control,
            takebacks=game.takebacks,
            rematch_of=game.id,
        )
        await self.lifecycle.join(second, created.id, created.join_token)
        await self._set(game, {"offer": None, "declined": None, "rematch_id": created.id})
        return created.id

    # --- abort and disconnections ----------------------------------------------------------------

    @to_the_end
    async def abort(self, visitor: Visitor, game_id: str) -> EndedJson:
        """End the game before both seats have made a move of play (``too_late_to_abort`` after)."""
        core = self.core
        async with core.lock(game_id), core.sessions() as session:
            game = await core.load(session, game_id)
            _seat(game, visitor)
            if not abortable(game):
                raise AppError(
                    ErrorCode.TOO_LATE_TO_ABORT,
                    "Both players have moved: resign or offer a draw instead",
                )
            position = await core.position(session, game)
            ending, result = abort()
            await core.finish(session, game, position, result, ending=ending, visitor=visitor)
        return {"id": game_id, "status": game.status}

    async def arrived(self, game_id: str, seat: int, player_id: str) -> None:
        """A seated player's socket opened: if they were away, they are back (grace used up)."""
        count = await self.core.hub.presence(seat_channel(game_id, seat), player_id, +1)
        if count == 1:
            await self._away(game_id, seat, False)

    async def left(self, game_id: str, seat: int, player_id: str) -> None:
        """A seated player's socket closed: if it was their last, they are away."""
        count = await self.core.hub.presence(seat_channel(game_id, seat), player_id, -1)
        if count == 0:
            await self._away(game_id, seat, True)

    async def recount_away(self) -> None:
        """Say a seated player away (or back) when their presence changed with no socket of
        theirs seen closing (or opening): their sockets were on a process that was killed, and
        its presence expired. Each process looks at the opponents of the seated players whose
        sockets it holds, in one batch, and reads a game only when a count changed. Run every
        ``PRESENCE_REFRESH`` seconds."""
        hub = self.core.hub
        opponents: dict[str, tuple[str, int]] = {}
        for channel in hub.present_channels():
            parsed = parse_seat_channel(channel)
            if parsed is not None:
                game_id, seat = parsed
                opponents[seat_channel(game_id, 3 - seat)] = (game_id, 3 - seat)
        for channel in await hub.changed_counts(sorted(opponents)):
            game_id, seat = opponents[channel]
            await self._away(game_id, seat, None)

    async def _away(self, game_id: str, seat: int, away: bool | None) -> None:
        """Note a real-time game's seat away (since now) or back (its grace charged); ``None``:
        as its presence is now, read under the game's lock (a recount's count may be older than
        the arrival or departure noted meanwhile)."""
        core = self.core
        async with core.lock(game_id), core.sessions() as session:
            game = await core.load(session, game_id)
            if game.status != "active" or TimeControl.stored(game.time_control).kind != "realtime":
                return
            if away is None:
                away = await core.hub.presence_count(seat_channel(game_id, seat)) == 0
            now = core.clock.now()
            state = away_state(game, core.settings.away_grace)
            entry = state[str(seat)]
            if away and entry["since"] is None:
                entry["since"] = now
            elif not away and entry["since"] is not None:
                entry["grace"] = max(0, entry["grace"] - (now - entry["since"]))
                entry["since"] = None
            else:
                return
            try:
                await self._set(game, {"away": state})
            except AppError:  # the game moved meanwhile: its next socket event says it again
                return

    @to_the_end
    async def claim(self, visitor: Visitor, game_id: str) -> EndedJson:
        """Win a real-time game whose opponent left and stayed away past their grace."""
        core = self.core
        async with core.lock(game_id), core.sessions() as session:
            game = await core.load(session, game_id)
            seat = _seat(game, visitor)
            other = 3 - seat
            entry = away_state(game, core.settings.away_grace)[str(other)]
            present = await core.hub.presence_count(seat_channel(game_id, other))
            now = core.clock.now()
            if entry["since"] is None or present:
                raise AppError(ErrorCode.CANNOT_CLAIM, "Your opponent is connected")
            wait = entry["grace"] - (now - entry["since"])
            if wait > 0:
                raise AppError(
                    ErrorCode.CANNOT_CLAIM,
                    f"Your opponent may still come back: you can claim in {wait / 1000:.0f} s",
                )
            position = await core.position(session, game)
            colours = core.rules.view(position.rules, position.state)["colours"]
            await core.finish(
                session, game, position, disconnection(other, colours), visitor=visitor
            )
        return {"id": game_id, "status": game.status}

    # --- chat ------------------------------------------------------------------------------------

    async def chat(
        self, visitor: Visitor, game_id: str, text: str, token: str | None
    ) -> ChatSaidJson:
        """Say ``text`` in the visitor's room of the game (players or spectators); the line."""
        core = self.core
        line = _chat_text(text)
        async with core.sessions() as session:
            game = await core.visible(session, game_id, visitor, token)
        seat = game.seat_of(visitor.id)
        room: Room = "players" if seat is not None else "spectators"
        now = core.clock.now()
        row = {
            "game_id": game.id,
            "room": room,
            "player_id": visitor.id,
            "name": visitor.name,
            "seat": seat,
            "text": line,
            "created_at": now,
        }
        for attempt in range(5):  # another line took the number: take the next one
            try:
                seq = await core.writer.write(
                    NewChatLine(row, PlayerName(visitor.id, visitor.name, now))
                )
                break
            except Stale:
                if attempt == 4:
                    raise AppError(ErrorCode.RATE_LIMITED, "The chat is busy: try again") from None
        said: ChatLineJson = {
            "seq": seq,
            "name": visitor.name,
            "seat": seat,
            "text": line,
            "at": now,
        }
        message: ChatLineMsgJson = {"type": "chat", "room": room, "line": said}
        await core.hub.publish(chat_channel(game.id, room), message)
        return {"room": room, "line": said}

    async def room_log(self, visitor: Visitor, game_id: str, token: str | None) -> ChatLogJson:
        """The visitor's room of a game it may see, and its last lines."""
        async with self.core.sessions() as session:
            game = await self.core.visible(session, game_id, visitor, token)
        room: Room = "players" if game.seat_of(visitor.id) is not None else "spectators"
        return {"room": room, "lines": await self.chat_log(game.id, room)}

    async def chat_log(self, game_id: str, room: str) -> list[ChatLineJson]:
        """The last lines of a room, oldest first."""
        async with self.core.sessions() as session:
            lines = await reads.chat_lines(session, game_id, room, CHAT_LOG)
        return [
            {"seq": x.seq, "name": x.name, "seat": x.seat, "text": x.text, "at": x.created_at}
            for x in lines
        ]

    # --- writing the table -----------------------------------------------------------------------

    async def _set(self, game: Game, values: dict[str, Any]) -> None:
        """Write ``values`` if the game is still at its version, then tell every socket."""
        core = self.core
        try:
            await core.writer.write(SetTable(game.id, game.version, values))
        except Stale:
            async with core.sessions() as session:
                current = await core.load(session, game.id)
            raise stale(current.version, game.version) from None
        core.forget_row(game.id)  # a move computed from the row kept before would be refused
        for key, value in values.items():
            setattr(game, key, value)
        message: TableMsgJson = {"type": "table", "version": game.version, **self.table(game)}
        await core.hub.publish(game_channel(game.id), message)
        await core.tell_players(game)

    def table(self, game: Game) -> TableJson:
        """The table as sockets are told it: clocks, offer, takebacks, rematch links, away."""
        return self.core.table_json(game)


def _seat(game: Game, visitor: Visitor, *, finished: bool = False) -> int:
    """The visitor's seat in a game they may act in (``finished``: a finished game, for a rematch;
    else an active one)."""
    seat = game.seat_of(visitor.id)
    if seat is None and not game.public:
        raise not_found(game.id)
    if seat is None:
        raise AppError(ErrorCode.NOT_A_PLAYER, "Only the players can do this")
    if game.status == "waiting":
        raise AppError(ErrorCode.NOT_STARTED, "The game is waiting for its second player")
    if finished:
        if game.status == "active":
            raise AppError(ErrorCode.GAME_NOT_OVER, "Finish this game before asking for another")
        if game.status != "finished":
            raise AppError(ErrorCode.GAME_OVER, "This game was not played to its end")
        return seat
    if game.status != "active":
        raise AppError(ErrorCode.GAME_OVER, "This game is over")
    return seat


def _offerable(game: Game, kind: str) -> None:
    """``rematch_done`` if a rematch is offered for a game that has one already."""
    if kind == "rematch" and game.rematch_id is not None:
        raise AppError(ErrorCode.REMATCH_DONE, "This game already has its rematch")


async def _takeback_plies(session: AsyncSession, game: Game, seat: int) -> int:
    """How many plies take back the asker's last move (1 or 2); ``nothing_to_take_back`` if the
    asker has no move among the last two."""
    seats = await reads.last_move_seats(session, game.id, game.ply_count, 2)
    for plies, mover in enumerate(seats, start=1):
        if mover == seat:
            return plies
    raise AppError(ErrorCode.NOTHING_TO_TAKE_BACK, "You have no move to take back")


def _chat_text(text: str) -> str:
    """A chat line's text, trimmed; ``bad_chat`` if empty, too long or holding control
    characters (that it is text, the request's model and the socket's message checked)."""
    line = text.strip()
    if not line:
        raise AppError(ErrorCode.BAD_CHAT, "a chat line cannot be empty", field="text")
    if len(line) > CHAT_MAX:
        raise AppError(
            ErrorCode.BAD_CHAT, f"a chat line holds at most {CHAT_MAX} characters", field="text"
        )
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in line):
        raise AppError(
            ErrorCode.BAD_CHAT,
            f"a chat line cannot hold control characters: {excerpt(line)}",
            field="text",
        )
    return line
