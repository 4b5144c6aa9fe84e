"""Websocket messages, both ways, as two unions told apart by ``type``.

``CLIENT_MESSAGE`` parses what a client sends, once, in ``app.routes.ws.transport``. The server's messages are
modelled for the documentation and the tests only: they are built as dicts and encoded once per
broadcast, and validating each one on that path would cost every spectator's time.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictInt, StrictStr, TypeAdapter

from app.errors import ErrorCode
from app.schemas.mine import ChallengePerson, MyGamesOut
from app.schemas.requests import Lag, MoveText, MsgId, Strict
from app.schemas.responses import (
    ChatLineOut,
    ChatLog,
    GameStatus,
    LiveEntry,
    OfferOut,
    OpenGame,
    Out,
    Snapshot,
    StepsOut,
    StoredResult,
    TableFields,
    You,
)
from app.schemas.view import Result, Seat, View

Token = Annotated[StrictStr, Field(max_length=40)]

# --- client -> server ------------------------------------------------------------------------------


class MoveMsg(Strict):
    """Play ``move`` on the position at ``version``; ``msg_id`` names it for retries; ``lag``: the
    client's network lag estimate (ms), credited from its quota in a timed game."""

    type: Literal["move"]
    move: MoveText
    version: StrictInt
    msg_id: MsgId
    lag: Lag = 0


OfferKind = Literal["draw", "takeback", "rematch"]


class OfferMsg(Strict):
    """Offer a draw (on one's turn, Harmijan and Exxit only), ask a takeback, offer a rematch."""

    type: Literal["offer"]
    kind: OfferKind
    msg_id: MsgId | None = None


class AnswerMsg(Strict):
    """Accept or decline the opponent's pending offer of ``kind``; ``accept: false`` on one's own
    offer withdraws it."""

    type: Literal["answer"]
    kind: OfferKind
    accept: StrictBool
    msg_id: MsgId | None = None


class AbortMsg(Strict):
    """End the game before both players have moved."""

    type: Literal["abort"]
    msg_id: MsgId | None = None


class ClaimMsg(Strict):
    """Claim the win over an opponent who left and stayed away past their grace."""

    type: Literal["claim"]
    msg_id: MsgId | None = None


class ChatMsg(Strict):
    """Say a line in one's chat room (checked by the server: 1 to 300 characters)."""

    type: Literal["chat"]
    text: Annotated[StrictStr, Field(max_length=2000)]
    msg_id: MsgId | None = None


class ResignMsg(Strict):
    """Give up (``version``, when given, must be the game's)."""

    type: Literal["resign"]
    version: StrictInt | None = None
    msg_id: MsgId


class StepsMsg(Strict):
    """Which tokens may follow the ones clicked so far."""

    type: Literal["steps"]
    prefix: Annotated[list[Token], Field(max_length=64)]
    msg_id: MsgId | None = None


class PingMsg(Strict):
    """Keep the socket alive; answered by ``pong``."""

    type: Literal["ping"]
    msg_id: MsgId | None = None


ClientMessage = Annotated[
    MoveMsg | ResignMsg | StepsMsg | PingMsg | OfferMsg | AnswerMsg | AbortMsg | ClaimMsg | ChatMsg,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


# --- server -> client ------------------------------------------------------------------------------


class GameState(TableFields):
    """The game right after an event."""

    status: GameStatus
    to_move: Seat | None
    ply_count: int
    result: StoredResult
    view: View


class SeatData(Out):
    """``create`` and ``join``: the seat taken, its player's name and account (absent from
    events stored before it was recorded)."""

    seat: Seat
    name: str
    account: str | None = Field(None, description="the username of the seat's account")


class MoveData(Out):
    """``move``: the ply, its canonical text and the seat that played it; in a timed game once the
    clocks run, the mover's time left after it (ms, increment included)."""

    ply: int
    move: str
    seat: Seat
    clock: int | None = None


class ResignData(Out):
    """``resign``: the seat that gave up."""

    seat: Seat


class ImportData(Out):
    """``import``: version 1 of an imported game carries nothing."""


class UndoData(Out):
    """``undo``: an accepted takeback took back ``plies`` plies; the game has ``ply_count`` now."""

    plies: int
    ply_count: int


EventKind = Literal["create", "import", "join", "move", "resign", "result", "undo"]
EventData = SeatData | MoveData | ResignData | ImportData | UndoData | Result


class EventEntry(Out):
    """One past event, as ``catchup`` lists them."""

    version: int
    kind: EventKind
    data: EventData


class SnapshotMsg(Snapshot):
    """Sent first on connect, and on a reconnect whose gap is too large."""

    type: Literal["snapshot"]


class CatchupMsg(Out):
    """Sent on a reconnect with ``since``: the events missed and the state now."""

    type: Literal["catchup"]
    since: int
    version: int
    events: list[EventEntry]
    state: GameState
    spectators: int
    you: You
    chat: ChatLog | None = None


class EventMsg(Out):
    """A committed event, to every socket of the game."""

    type: Literal["event"]
    version: int
    kind: EventKind
    data: EventData
    state: GameState


class TableMsg(TableFields):
    """The table changed (an offer made, answered or withdrawn, a player away or back, a rematch
    linked); the game did not: ``version`` is still the game's."""

    type: Literal["table"]
    version: int


class ChatLineMsg(Out):
    """A line said in the socket's chat room."""

    type: Literal["chat"]
    room: Literal["players", "spectators"]
    line: ChatLineOut


class DoneMsg(Out):
    """The answer to ``offer``, ``answer``, ``abort``, ``claim`` or ``chat`` (``of``): for an
    offer or an answer, what is pending after it and an accepted rematch's new game; for
    ``chat``, the line said."""

    type: Literal["done"]
    msg_id: str | None
    of: Literal["offer", "answer", "abort", "claim", "chat"]
    offer: OfferOut | None = None
    rematch_id: str | None = None
    line: ChatLineOut | None = None


class AckMsg(Out):
    """A ``move`` or ``resign`` committed (or recognised as a retry)."""

    type: Literal["ack"]
    msg_id: str
    version: int
    duplicate: bool


class StepsAnswerMsg(StepsOut):
    """The answer to ``steps``."""

    type: Literal["steps"]
    msg_id: str | None


class ErrorMsg(Out):
    """A refusal; it changes nothing."""

    type: Literal["error"]
    code: ErrorCode
    message: str
    msg_id: str | None = Field(None, description="the refused message's msg_id, if it had one")
    field: str | None = None
    version: int | None = None
    ply: int | None = None
    rule: str | None = Field(
        None, description="the rules section a move's refusal rests on, e.g. A3 (no brackets)"
    )


class PongMsg(Out):
    """The answer to ``ping``."""

    type: Literal["pong"]


class SpectatorsMsg(Out):
    """The number of spectators changed."""

    type: Literal["spectators"]
    count: int


class LiveMsg(Out):
    """Sent first on ``/ws/live``: the public games in progress."""

    type: Literal["live"]
    games: list[LiveEntry]
    open: list[OpenGame] = Field(description="the public games waiting for an opponent")
    now: int = Field(description="the server's time (epoch ms), to age the entries by")
    idle_after: float = Field(
        description="seconds without a move after which an entry leaves the lists (LIVE_IDLE_AFTER)"
    )


class OpenUpdateMsg(Out):
    """A public game was created: it waits for an opponent (an entry of ``GET /api/games/open``)."""

    type: Literal["open_update"]
    game: OpenGame


class LiveUpdateMsg(Out):
    """A public game started or moved."""

    type: Literal["live_update"]
    game: LiveEntry


class LiveEndMsg(Out):
    """A public game ended (or was cancelled before it started)."""

    type: Literal["live_end"]
    id: str
    result: StoredResult


class MineMsg(MyGamesOut):
    """``/ws/me``: the visitor's lists ("My games"), at connection and after every change."""

    type: Literal["mine"]


class ChallengeAnsweredMsg(Out):
    """``/ws/me``, to the challenger: a challenge it sent was accepted (its game starts: go to
    ``url``) or declined."""

    type: Literal["challenge_answered"]
    id: str
    status: Literal["accepted", "declined"]
    by: ChallengePerson = Field(description="the challenged account, who answered")
    game_id: str | None
    url: str | None


ServerMessage = Annotated[
    SnapshotMsg
    | CatchupMsg
    | EventMsg
    | AckMsg
    | StepsAnswerMsg
    | ErrorMsg
    | PongMsg
    | SpectatorsMsg
    | LiveMsg
    | LiveUpdateMsg
    | LiveEndMsg
    | OpenUpdateMsg
    | MineMsg
    | ChallengeAnsweredMsg
    | TableMsg
    | ChatLineMsg
    | DoneMsg,
    Field(discriminator="type"),
]
SERVER_MESSAGE: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
