"""What the server answers over HTTP, and the pieces its websocket messages share.

The routes name these as ``response_model``, so ``/openapi.json`` shows each answer; FastAPI checks
every HTTP answer against its model. Every model is exact (unknown keys are refused), so a key the
server starts sending without documenting it fails the tests rather than reaching clients unseen.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from app.errors import ErrorCode
from app.schemas.view import Colours, Hint, Result, Seat, View

GameStatus = Literal["waiting", "active", "finished", "cancelled"]
OptionValue = int | str
#: A result read back from the database: the rules' or the server's, in the one documented shape
#: (an import's result is built by the server from checked fields; those of records imported
#: before issue 14 were rebuilt by the migration 9c3b7e1d2f60).
StoredResult = Result | None


class Out(BaseModel):
    """An exact object of the protocol: no key beyond those documented."""

    model_config = ConfigDict(extra="forbid")


class Sparse(Out):
    """An object some of whose keys belong to some kinds only: a key is sent only if it was
    given, never as a null the socket's twin of the same object leaves out."""

    # Unannotated on purpose: an annotated return type would become the schema of the object.
    @model_serializer(mode="wrap")
    def _given_only(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        data: dict[str, Any] = handler(self)
        return {key: value for key, value in data.items() if key in self.model_fields_set}


# --- errors ----------------------------------------------------------------------------------------


class ErrorBody(Out):
    """An error: a stable ``code``, a human ``message``, and the fields some codes add."""

    code: ErrorCode
    message: str
    field: str | None = Field(None, description="the bad field or parameter, when one is at fault")
    version: int | None = Field(None, description="the game's current version (stale_version, ...)")
    ply: int | None = Field(None, description="the first bad ply of a record, or null")
    rule: str | None = Field(
        None, description="the rules section a move's refusal rests on, e.g. A3 (no brackets)"
    )


class ErrorOut(Out):
    """Every HTTP error: ``{"error": {"code", "message", ...}}``."""

    error: ErrorBody


# --- identity and catalogue ------------------------------------------------------------------------


class MeAccountOut(Out):
    """The account a visitor is signed in to."""

    username: str
    display_name: str


class MeOut(Out):
    """The visitor's identity: the player id that takes seats, its name, and its account."""

    id: str
    name: str
    named: bool = Field(description="false while the name is still the default Guest-xxxx")
    account: MeAccountOut | None = Field(None, description="null for a guest")


class OptionOut(Out):
    """One option of a game, as the new-game form offers it."""

    name: str
    default: OptionValue
    choices: list[OptionValue]
    description: str


class CatalogueGame(Out):
    """One installed game."""

    slug: str
    title: str
    summary: str
    options: list[OptionOut]
    notation: list[str] = Field(description="example move texts, one of each kind")
    draws: bool = Field(description="whether the game can end drawn (and so takes draw offers)")


class CatalogueOut(Out):
    """The installed games, in the order the site presents them."""

    games: list[CatalogueGame]


# --- games -----------------------------------------------------------------------------------------


class Player(Out):
    """A seat, the name it was taken with (null while empty), and the account its player belongs
    to: a client links that name to ``/players/<account>``."""

    seat: Seat
    name: str | None
    account: str | None = Field(
        description="the username of the seat's account; null: a guest, or an empty seat"
    )


class SeatRating(Out):
    """A seat's current rating in a rated game's game (the starting one before its first)."""

    seat: Seat
    account: str = Field(description="the username of the seat's account")
    rating: int
    deviation: int
    provisional: bool = Field(description="deviation above 110: not measured yet")


class Invitation(Out):
    """What an invitation says while a game waits for its second player."""

    by: Player = Field(description="the seated creator, who invites")
    seat: Seat = Field(description="the seat the one who joins will take")
    colour: str | None = Field(
        description="that seat's colour; null while the pie rule has not settled colours"
    )


class RecordPlayer(Out):
    """A seat of a record and its player's name."""

    seat: Seat
    name: str


class You(Out):
    """Who the socket or request belongs to: a seat, or null for a spectator."""

    seat: Seat | None
    name: str | None


class CreatedOut(Out):
    """A new game; only its creator gets the join token."""

    id: str
    seat: Seat
    join_token: str
    invite_url: str
    url: str
    ws_url: str
    version: int


class JoinedOut(Out):
    """The seat taken and the game's new version."""

    id: str
    seat: Seat
    version: int


class CancelledOut(Out):
    """A waiting game its creator cancelled."""

    id: str
    status: Literal["cancelled"]


class TimeControlOut(Sparse):
    """A game's time control: seconds for ``realtime``, days per move for ``correspondence``."""

    kind: Literal["unlimited", "realtime", "correspondence"]
    base: int | None = Field(None, description="realtime: each seat's starting time (s)")
    increment: int | None = Field(None, description="realtime: added after each move (s)")
    days: int | None = Field(None, description="correspondence: days per move")


class ClockOut(Out):
    """A timed game's clocks at the server's time ``now``: count down from ``now``, never from the
    browser's own clock."""

    control: TimeControlOut
    label: str = Field(description='"3+2", "3 days per move"')
    remaining: list[int] = Field(description="each seat's time (ms) at ``now``, seat 1 first")
    running: bool = Field(description="the seat to move is being charged")
    deadline: int | None = Field(description="when the seat to move runs out (epoch ms)")
    now: int = Field(description="the server's time these figures are for (epoch ms)")


class OfferOut(Sparse):
    """A pending offer: a draw, a takeback of ``plies`` plies, or a rematch, by ``seat``."""

    kind: Literal["draw", "takeback", "rematch"]
    seat: Seat
    plies: int | None = None


class DeclinedOut(Out):
    """The offer of ``kind`` the opponent declined, and the seat that declined it."""

    kind: Literal["draw", "takeback", "rematch"]
    seat: Seat = Field(description="the seat that declined (the offerer's opponent)")


class AwayOut(Out):
    """A seated player whose sockets all closed: since when, and the grace they had left then."""

    since: int
    grace: int = Field(description="ms of absence left to this seat in this game at ``since``")


class TableFields(Out):
    """What surrounds the board: clocks, the pending offer, takebacks and rematch links."""

    clock: ClockOut | None = Field(description="null in an unlimited game")
    offer: OfferOut | None
    declined: DeclinedOut | None = Field(
        description="the last offer declined, until the game moves on or another is made"
    )
    takebacks: bool = Field(description="takebacks may be asked in this game")
    rematch_of: str | None = Field(description="the game this one is a rematch of")
    rematch_id: str | None = Field(description="this game's rematch, once accepted")
    away: list[AwayOut | None] = Field(description="per seat (seat 1 first): null while present")
    abortable: bool = Field(description="the game runs and may still be aborted")


class GameSummary(TableFields):
    """A game's metadata and moves, as a snapshot carries them."""

    id: str
    game: str
    title: str
    options: dict[str, OptionValue]
    status: GameStatus
    public: bool
    imported: bool
    imported_by: str | None = Field(
        default=None,
        description="the name of the guest who imported the record; null for a game played here",
    )
    rated: bool = Field(default=False, description="a rated game (between two accounts)")
    players: list[Player]
    ratings: list[SeatRating | None] | None = Field(
        description="a rated game's seats' current ratings (seat 1 first, null for an empty "
        "seat); null for an unrated game"
    )
    invitation: Invitation | None = Field(
        description="while the game waits for its second player: who invites, to which seat"
    )
    colours: Colours
    moves: list[str]
    to_move: Seat | None
    result: StoredResult
    created_at: int
    last_activity: int


class ChatLineOut(Out):
    """A chat line: its number in its room, who said it (their seat, null for a spectator), when."""

    seq: int
    name: str
    seat: Seat | None
    text: str
    at: int


class ChatLog(Out):
    """The visitor's chat room of a game (``players`` or ``spectators``) and its last lines."""

    room: Literal["players", "spectators"]
    lines: list[ChatLineOut]


class Snapshot(Out):
    """Everything a game page needs at one version."""

    version: int
    game: GameSummary
    view: View
    spectators: int
    you: You
    chat: ChatLog | None = Field(None, description="the visitor's chat room (sockets only)")


class AckOut(Out):
    """A committed move or resignation (``ply`` and ``move`` only for a move)."""

    version: int
    duplicate: bool
    ply: int | None = None
    move: str | None = None


class StepsOut(Out):
    """The legal continuations of a clicked prefix."""

    version: int
    prefix: list[str]
    next: list[str]
    complete: bool
    move: str | None
    hints: dict[str, Hint]
    prompt: str = Field(description="one plain-English line: what the next click is for")
    changes: dict[str, list[str]] = Field(
        description="cell id -> its stack bottom to top while the prefix is pending ([]: emptied)"
    )
    ends: Result | None = Field(
        description="when `move` is complete and would end the game: the result it would give"
    )


class PlyClock(Out):
    """The mover's clock after one ply of a timed game."""

    seat: Seat
    left: int


class RecordOut(Out):
    """A game's record, ``hexmoot-record/1``: replaying ``moves`` gives the position."""

    format: Literal["hexmoot-record/1"]
    game: str
    options: dict[str, OptionValue]
    players: list[RecordPlayer]
    moves: list[str]
    result: StoredResult
    time_control: TimeControlOut | None = Field(
        None, description="a timed game's time control (absent: unlimited)"
    )
    clocks: list[PlyClock | None] | None = Field(
        None,
        description="a timed game's clock after each ply: the mover's seat and time left (ms, "
        "increment included); null before the clocks started",
    )


class AbstractPlayGame(Out):
    """The game an Abstract Play record is of: its title and its options as ``name-value``."""

    name: str
    variants: list[str]


class AbstractPlaySite(Out):
    """Where the game was played, and its id there."""

    name: Literal["Hexmoot"]
    gameid: str


class AbstractPlayPlayer(Out):
    """A player in seating order: 1 won, 0 lost (0 both in a draw); ``userid`` an account's
    username (absent for a guest), ``score`` where the game counts points as a number."""

    name: str
    result: int
    userid: str | None = None
    score: int | float | None = None


class AbstractPlayHeader(Out):
    """The record's header (RFC 3339 date-times, UTC)."""

    game: AbstractPlayGame
    site: AbstractPlaySite
    date_start: str = Field(alias="date-start")
    date_end: str = Field(alias="date-end")
    date_generated: str = Field(alias="date-generated")
    unrated: bool
    pied: bool
    players: list[AbstractPlayPlayer]


class AbstractPlayOut(Out):
    """A finished game as Abstract Play's game record (``gamerecord/1-0-0``): the moves by round,
    one entry per player in seating order, null where a player did not move."""

    header: AbstractPlayHeader
    moves: list[list[str | None]]


class ExportLine(Out):
    """A line of ``GET /api/archive/export``: a finished game and its record."""

    id: str
    finished_at: int
    record: RecordOut


class ExportNext(Out):
    """The last line of ``GET /api/archive/export``: the cursor to go on from (``since``)."""

    next: str | None


class DumpEntry(Out):
    """A monthly dump of the archive: its file, game, month, number of games, size and hash."""

    file: str
    game: str
    month: str
    games: int
    bytes: int
    sha256: str


class DumpsIndex(Out):
    """``/dumps/index.json``: every dump, by game then month, and when the list was written."""

    generated_at: int
    dumps: list[DumpEntry]


class ReplayOut(Out):
    """The views after plies ``from``, ``from + 1``, ... (ply 0: before any move): at most 32, and
    about 1 MB; ``next`` is the ply of the first view left out (None when the last ply is in),
    ``total`` the number of positions (moves + 1)."""

    from_: int = Field(alias="from")
    views: list[View]
    next: int | None
    total: int


# --- listings --------------------------------------------------------------------------------------


class OpenGame(Out):
    """A public game waiting for an opponent; its join token is public too."""

    id: str
    game: str
    title: str
    options: dict[str, OptionValue]
    players: list[Player]
    created_at: int
    join_token: str | None
    rated: bool = Field(default=False, description="joining needs an account")
    time: str = Field(
        default="Unlimited", description='its time control as people write it: "3+2", "Unlimited"'
    )
    yours: bool = Field(
        default=False,
        description="you created this game and sit in it (you may cancel it; joining is for others)",
    )


class OpenGamesOut(Out):
    """Public games waiting for an opponent, newest first."""

    games: list[OpenGame]


class LiveEntry(Out):
    """A public game in progress, with a view for a mini board."""

    id: str
    game: str
    title: str
    players: list[Player]
    moves: int
    to_move: Seat | None
    last_activity: int = Field(
        description="when the game last moved (epoch ms; before its first move, when it started)"
    )
    version: int
    view: View


class LiveOut(Out):
    """Public games in progress, most recently active first."""

    games: list[LiveEntry]


class ArchiveEntry(Out):
    """A finished public game."""

    id: str
    game: str
    title: str
    options: dict[str, OptionValue]
    players: list[Player]
    moves: int
    result: StoredResult
    finished_at: int | None
    imported: bool
    imported_by: str | None = Field(
        default=None,
        description="the name of the guest who imported the record; null for a game played here",
    )
    rated: bool
    time: str = Field(description="the time control in words: Unlimited, 3+2, 2 days per move")
    time_key: str = Field(description="the time control as the archive's time filter names it")
    first_move: str | None = Field(description="the canonical text of ply 1")
    pie_taken: bool | None = Field(
        description="whether seat 2 chose Black at the pie (null: no pie, or no choice made)"
    )
    bot: bool = Field(description="a bot (the computer) held a seat")


class ArchiveOut(Out):
    """One page of the archive; ``next_cursor`` is null on the last page."""

    games: list[ArchiveEntry]
    next_cursor: str | None


class ArchiveBoardsOut(Out):
    """The final position of each game asked, for a mini board; null for an id that is no
    finished public game."""

    boards: dict[str, View | None]


class ArchivePlayer(Out):
    """An account whose username starts with the prefix asked."""

    username: str
    name: str


class ArchivePlayersOut(Out):
    """Accounts by the start of their username, A to Z."""

    players: list[ArchivePlayer]


class ImportedOut(Out):
    """An imported record's new game."""

    id: str
    url: str


# --- health ----------------------------------------------------------------------------------------


class DatabaseStatus(Out):
    """Whether the database answered, its backend, and its migration revision or the error."""

    ok: bool
    backend: str
    revision: str | None = None
    error: str | None = None


class RedisStatus(Out):
    """Whether Redis answers a PING with its pub/sub listener subscribed (``ok``), and the
    listener alone (``listener``: false while it reconnects)."""

    ok: bool
    listener: bool


class HealthOut(Out):
    """``ok`` (200) when every dependency is; ``degraded`` when one is not: 503 if the database is
    down, 200 if only Redis is (the process still serves, on its own)."""

    status: Literal["ok", "degraded"]
    database: DatabaseStatus
    redis: RedisStatus | None = None  # null without REDIS_URL


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route that answers these error statuses, all in the one shape."""
    return {status: {"model": ErrorOut} for status in statuses}


def page_error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The same for an HTML page, whose errors are JSON all the same (FastAPI would otherwise file
    them under the page's ``text/html``)."""
    schema = {"$ref": "#/components/schemas/ErrorOut"}
    return {
        status: {"description": "Error", "content": {"application/json": {"schema": schema}}}
        for status in statuses
    }


class OfferAnswerOut(Out):
    """What is pending after an offer or an answer; an accepted rematch's new game."""

    offer: OfferOut | None
    rematch_id: str | None = None


class EndedOut(Out):
    """A game aborted, or won by a claim."""

    id: str
    status: GameStatus


class ChatSaidOut(Out):
    """A chat line said, and the room it went to."""

    room: Literal["players", "spectators"]
    line: ChatLineOut


# --- the opening explorer (issue 28) --------------------------------------------------------------


class ExplorerGameOut(Out):
    """A finished game that reached a position: its players (seat order), result (``"1"``,
    ``"2"`` or ``"draw"``), winner's colour, length, and the ply at which it got there."""

    id: str
    players: list[str | None]
    result: str | None
    winner_colour: str | None
    length: int | None
    ply: int


class ExplorerContinuationOut(Out):
    """A continuation finished games played: the move as it is written on the position shown,
    the position it leads to, the games (wins by colour in the order of ``colours``, draws,
    average length in plies) and a few of them, newest first."""

    move: str
    position: str
    games: int
    first_wins: int
    second_wins: int
    draws: int
    average_length: float | None
    recent: list[ExplorerGameOut]


class ExplorerOut(Out):
    """A node of the opening explorer: the position after ``moves`` (canonical) from the start,
    its key, the finished games that reached it and every continuation they played, most played
    first."""

    game: str
    options: dict[str, int | str]
    options_key: str
    moves: list[str]
    position: str
    depth: int
    colours: list[str]
    view: View
    to_move: int | None
    games: int
    first_wins: int
    second_wins: int
    draws: int
    average_length: float | None
    continuations: list[ExplorerContinuationOut]
    recent: list[ExplorerGameOut]
