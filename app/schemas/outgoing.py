"""What the services build for the server to send, as TypedDicts: plain dicts at run time (built
and encoded once per broadcast, never validated on that path), checked by mypy where they are
built and where they are read.

Each mirrors a Pydantic model of ``responses``, ``messages`` or ``mine`` (named in its docstring),
which documents it and checks HTTP answers at the edge; ``tests/app/test_outgoing.py`` checks that
each pair has the same keys. A key marked ``NotRequired`` is one the model's object may leave out
(``Sparse``, or sent only by some kinds): it is absent, never a null.

A value the database keeps as JSON (a result, an offer, options) stays ``Stored``, as the row's
column types it.
"""

from typing import Any, Literal, NotRequired, TypedDict

from app.runtime.rules import SeatColours, View

#: A JSON object as a row's column holds it (``app.models``).
Stored = dict[str, Any]


# --- a game's state --------------------------------------------------------------------------------


class PlayerJson(TypedDict):
    """``Player``: a seat, the name it was taken with, its account's username."""

    seat: int
    name: str | None
    account: str | None


class ClockJson(TypedDict):
    """``ClockOut``: a timed game's clocks at the server's time ``now``."""

    control: Stored
    label: str
    remaining: list[int]
    running: bool
    deadline: int | None
    now: int


class AwayJson(TypedDict):
    """``AwayOut``: since when a seat is away, and its grace left then."""

    since: int
    grace: int


class TableJson(TypedDict):
    """``TableFields``: what surrounds the board."""

    clock: ClockJson | None
    offer: Stored | None
    declined: Stored | None
    takebacks: bool
    rematch_of: str | None
    rematch_id: str | None
    away: list[AwayJson | None]
    abortable: bool


class StateJson(TableJson):
    """``GameState``: the game right after an event."""

    status: str
    to_move: int | None
    ply_count: int
    result: Stored | None
    view: View


class LiveEntryJson(TypedDict):
    """``LiveEntry``: a public game in progress, with its view."""

    id: str
    game: str
    title: str
    players: list[PlayerJson]
    moves: int
    to_move: int | None
    last_activity: int
    version: int
    view: View


# --- what the hub carries --------------------------------------------------------------------------


class EventMsgJson(TypedDict):
    """``EventMsg``: a committed event, to every socket of the game."""

    type: Literal["event"]
    version: int
    kind: str
    data: Stored
    state: StateJson


class LiveUpdateJson(TypedDict):
    """``LiveUpdateMsg``: a public game started or moved."""

    type: Literal["live_update"]
    game: LiveEntryJson


class LiveEndJson(TypedDict):
    """``LiveEndMsg``: a public game ended."""

    type: Literal["live_end"]
    id: str
    result: Stored | None


class MineChangedJson(TypedDict):
    """One of a player's games changed (``/ws/me`` reads its lists again; never sent as is)."""

    type: Literal["mine_changed"]
    game: str


# --- reading ---------------------------------------------------------------------------------------


class StepsJson(TypedDict):
    """``StepsOut``: the legal continuations of a clicked prefix."""

    version: int
    prefix: list[str]
    next: list[str]
    complete: bool
    move: str | None
    hints: dict[str, Stored]
    prompt: str
    changes: dict[str, list[str]]
    ends: Stored | None


class SeatRatingJson(TypedDict):
    """``SeatRating``: a seat's current rating in a rated game's game."""

    seat: int
    account: str
    rating: int
    deviation: int
    provisional: bool


class InvitationJson(TypedDict):
    """``Invitation``: who invites, to which seat, of which colour."""

    by: PlayerJson
    seat: int
    colour: str | None


class YouJson(TypedDict):
    """``You``: the visitor's seat (None for a spectator) and name."""

    seat: int | None
    name: str | None


class GameSummaryJson(TableJson):
    """``GameSummary``: a game's metadata and moves."""

    id: str
    game: str
    title: str
    options: Stored
    status: str
    public: bool
    imported: bool
    imported_by: str | None
    rated: bool
    players: list[PlayerJson]
    ratings: list[SeatRatingJson | None] | None
    invitation: InvitationJson | None
    colours: SeatColours
    moves: list[str]
    to_move: int | None
    result: Stored | None
    created_at: int
    last_activity: int


class ChatLineJson(TypedDict):
    """``ChatLineOut``: a chat line."""

    seq: int
    name: str
    seat: int | None
    text: str
    at: int


class ChatLogJson(TypedDict):
    """``ChatLog``: the visitor's chat room and its last lines."""

    room: Literal["players", "spectators"]
    lines: list[ChatLineJson]


class SnapshotJson(TypedDict):
    """``Snapshot``: everything a game page needs (a socket's adds its ``chat``)."""

    version: int
    game: GameSummaryJson
    view: View
    spectators: int
    you: YouJson
    chat: NotRequired[ChatLogJson]


class EventEntryJson(TypedDict):
    """``EventEntry``: one past event."""

    version: int
    kind: str
    data: Stored


class CatchupJson(TypedDict):
    """``CatchupMsg`` without its ``type``: the events missed and the state now."""

    since: int
    version: int
    events: list[EventEntryJson]
    state: StateJson
    spectators: int
    you: YouJson
    chat: NotRequired[ChatLogJson]


class SnapshotMsgJson(SnapshotJson):
    """``SnapshotMsg``: a snapshot, as a game's socket sends it first."""

    type: Literal["snapshot"]


class CatchupMsgJson(CatchupJson):
    """``CatchupMsg``: a catch-up, as a game's socket sends it first after a reconnect."""

    type: Literal["catchup"]


class RecordJson(TypedDict):
    """``RecordOut``: a game's record; a timed game's adds its control and clocks."""

    format: Literal["hexmoot-record/1"]
    game: str
    options: Stored
    players: list[Stored]
    moves: list[str]
    result: Stored | None
    time_control: NotRequired[Stored]
    clocks: NotRequired[list[dict[str, int] | None] | None]


class OpenGameJson(TypedDict):
    """``OpenGame``: a public game waiting for an opponent."""

    id: str
    game: str
    title: str
    options: Stored
    players: list[PlayerJson]
    created_at: int
    join_token: str | None
    rated: bool
    time: str
    yours: bool


class OpenGamesJson(TypedDict):
    """``OpenGamesOut``: public games waiting for an opponent."""

    games: list[OpenGameJson]


class LiveJson(TypedDict):
    """``LiveOut``: public games in progress."""

    games: list[LiveEntryJson]


class LiveListJson(TypedDict):
    """``LiveMsg``: the first message of ``/ws/live``."""

    type: Literal["live"]
    games: list[LiveEntryJson]
    open: list[OpenGameJson]
    now: int
    idle_after: float


# --- playing ---------------------------------------------------------------------------------------


class AckJson(TypedDict):
    """``AckOut``: a committed move (with its ply and canonical text) or resignation."""

    version: int
    duplicate: bool
    ply: NotRequired[int]
    move: NotRequired[str]


# --- the table -------------------------------------------------------------------------------------


class OfferAnswerJson(TypedDict):
    """``OfferAnswerOut``: what is pending after an offer or an answer; an accepted rematch's new
    game."""

    offer: Stored | None
    rematch_id: NotRequired[str]


class EndedJson(TypedDict):
    """``EndedOut``: a game aborted, or won by a claim."""

    id: str
    status: str


class ChatSaidJson(TypedDict):
    """``ChatSaidOut``: a chat line said, and its room."""

    room: Literal["players", "spectators"]
    line: ChatLineJson


class TableMsgJson(TableJson):
    """``TableMsg``: the table changed; ``version`` is still the game's."""

    type: Literal["table"]
    version: int


class ChatLineMsgJson(TypedDict):
    """``ChatLineMsg``: a line said in the socket's chat room."""

    type: Literal["chat"]
    room: Literal["players", "spectators"]
    line: ChatLineJson


# --- a player's own lists --------------------------------------------------------------------------


class ChallengePersonJson(TypedDict):
    """``ChallengePerson``: an account as a challenge names it."""

    username: str | None
    display_name: str | None


# ``from`` is a keyword: the functional form.
ChallengeJson = TypedDict(
    "ChallengeJson",
    {
        "id": str,
        "from": ChallengePersonJson,
        "to": ChallengePersonJson,
        "incoming": bool,
        "game": str,
        "title": str,
        "options": Stored,
        "seat": str,
        "rated": bool,
        "time_control": Stored | None,
        "time": str,
        "status": str,
        "game_id": str | None,
        "created_at": int,
    },
)
ChallengeJson.__doc__ = "``ChallengeOut``: a challenge (``seat`` is the challenger's)."


class ChallengesJson(TypedDict):
    """``Challenges``: the visitor's pending challenges."""

    incoming: list[ChallengeJson]
    outgoing: list[ChallengeJson]


class ChallengeAnsweredJson(TypedDict):
    """``ChallengeAnsweredMsg``: to the challenger, its challenge was accepted or declined."""

    type: Literal["challenge_answered"]
    id: str
    status: Literal["accepted", "declined"]
    by: ChallengePersonJson
    game_id: str | None
    url: str | None


class MyGameJson(TypedDict):
    """``MyGame``: one of the visitor's games, from the side of its seat."""

    id: str
    game: str
    title: str
    status: str
    seat: int
    opponent: str | None
    opponent_account: str | None
    your_turn: bool
    moves: int
    rated: bool
    public: bool
    last_activity: int
    url: str
    invite_url: str | None
    outcome: Literal["won", "lost", "draw"] | None
    time: str
    clock: ClockJson | None
    rematch_of: str | None
    rematch_id: str | None


class MyGamesJson(TypedDict):
    """``MyGamesOut``: everything "My games" lists."""

    your_turn: list[MyGameJson]
    waiting: list[MyGameJson]
    open: list[MyGameJson]
    challenges: ChallengesJson
    finished: list[MyGameJson]
    turn_count: int
    now: int


class ChallengeChangedJson(TypedDict):
    """One of a player's challenges changed (``/ws/me`` reads its lists again; never sent)."""

    type: Literal["mine_changed"]
    challenge: str


# --- the archive -----------------------------------------------------------------------------------


class ArchiveEntryJson(TypedDict):
    """``ArchiveEntry``: a finished public game."""

    id: str
    game: str
    title: str
    options: Stored
    players: list[PlayerJson]
    moves: int
    result: Stored | None
    finished_at: int | None
    imported: bool
    imported_by: str | None
    rated: bool
    time: str
    time_key: str
    first_move: str | None
    pie_taken: bool | None
    bot: bool


class ArchiveJson(TypedDict):
    """``ArchiveOut``: one page of the archive; ``next_cursor`` null on the last."""

    games: list[ArchiveEntryJson]
    next_cursor: str | None


class ArchivePlayerJson(TypedDict):
    """``ArchivePlayer``: an account found by the start of its username."""

    username: str
    name: str


class AckMsgJson(TypedDict):
    """``AckMsg``: a move or resignation committed (or recognised as a retry)."""

    type: Literal["ack"]
    msg_id: str
    version: int
    duplicate: bool


class SaidJson(TypedDict):
    """What a ``done`` of ``chat`` adds: the line said."""

    line: ChatLineJson


class DoneMsgJson(TypedDict):
    """``DoneMsg``: the answer to an offer, an answer, an abort, a claim or a chat line."""

    type: Literal["done"]
    msg_id: str | None
    of: Literal["offer", "answer", "abort", "claim", "chat"]
    offer: NotRequired[Stored | None]
    rematch_id: NotRequired[str]
    line: NotRequired[ChatLineJson]
