"""What the server answers over HTTP, and the pieces its websocket messages share.

The routes name these as ``response_model``, so ``/openapi.json`` shows each answer; FastAPI checks
every HTTP answer against its model. Every model is exact (unknown keys are refused), so a key the
server starts sending without documenting it fails the tests rather than reaching clients unseen.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from app.errors import ErrorCode
from app.schemas.view import Colours, Hint, Result, Seat, View

GameStatus = Literal["waiting", "active", "finished", "cancelled"]
OptionValue = int | str
#: A result read back from the database. Not checked when answering: records imported before
#: issue 14 kept a server reason's result as the record gave it, and must not turn a listing into
#: a 500 (an import's result is now built by the server from checked fields).
StoredResult = Annotated[Result | None, SkipValidation]


class Out(BaseModel):
    """An exact object of the protocol: no key beyond those documented."""

    model_config = ConfigDict(extra="forbid")


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


class CatalogueOut(Out):
    """The installed games, in the order the site presents them."""

    games: list[CatalogueGame]


# --- games -----------------------------------------------------------------------------------------


class Player(Out):
    """A seat and the name it was taken with (null while empty)."""

    seat: Seat
    name: str | None


class ArchivePlayer(Player):
    """A seat of an archived game, and the account its player belongs to."""

    account: str | None = Field(description="the username of the seat's account; null: a guest")


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


class GameSummary(Out):
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
    colours: Colours
    moves: list[str]
    to_move: Seat | None
    result: StoredResult
    created_at: int
    last_activity: int


class Snapshot(Out):
    """Everything a game page needs at one version."""

    version: int
    game: GameSummary
    view: View
    spectators: int
    you: You


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


class RecordOut(Out):
    """A game's record, ``hexmoot-record/1``: replaying ``moves`` gives the position."""

    format: Literal["hexmoot-record/1"]
    game: str
    options: dict[str, OptionValue]
    players: list[RecordPlayer]
    moves: list[str]
    result: StoredResult


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
    players: list[ArchivePlayer]
    moves: int
    result: StoredResult
    finished_at: int | None
    imported: bool
    imported_by: str | None = Field(
        default=None,
        description="the name of the guest who imported the record; null for a game played here",
    )


class ArchiveOut(Out):
    """One page of the archive; ``next_cursor`` is null on the last page."""

    games: list[ArchiveEntry]
    next_cursor: str | None


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
