"""One error type for everything a client can get wrong: a stable code, a message, an HTTP status.

``ErrorCode`` lists every code the server sends, over HTTP and over websockets; ``STATUS`` gives each
code its one HTTP status (None for the codes only a websocket sends). ``docs/protocol.md`` has the
same table, and ``tests/app/test_errors.py`` checks that the two agree.
"""

from __future__ import annotations

import re
import reprlib
from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """The stable ``code`` of an error: a snake_case word that clients may test."""

    # malformed input
    BAD_JSON = "bad_json"
    BAD_REQUEST = "bad_request"
    INVALID_REQUEST = "invalid_request"
    UNKNOWN_TYPE = "unknown_type"
    BAD_MESSAGE = "bad_message"
    MESSAGE_TOO_LARGE = "message_too_large"
    RATE_LIMITED = "rate_limited"
    TOO_MANY_SOCKETS = "too_many_sockets"
    # routing
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    # identity and lobby
    BAD_NAME = "bad_name"
    UNKNOWN_GAME = "unknown_game"
    BAD_OPTION = "bad_option"
    GAME_NOT_FOUND = "game_not_found"
    BAD_TOKEN = "bad_token"
    ALREADY_SEATED = "already_seated"
    GAME_FULL = "game_full"
    # play
    NOT_A_PLAYER = "not_a_player"
    NOT_STARTED = "not_started"
    GAME_STARTED = "game_started"  # issue 15: a creator cancels a game someone already joined
    GAME_OVER = "game_over"
    NOT_YOUR_TURN = "not_your_turn"
    STALE_VERSION = "stale_version"
    MSG_ID_REUSED = "msg_id_reused"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"  # issue 27: a creation's key, another body
    INVALID_MOVE = "invalid_move"
    ILLEGAL_MOVE = "illegal_move"
    ILLEGAL_STEPS = "illegal_steps"
    # archive and records
    BAD_FILTER = "bad_filter"
    BAD_CURSOR = "bad_cursor"
    INVALID_RECORD = "invalid_record"
    UNFINISHED_RECORD = "unfinished_record"
    RECORD_TOO_LARGE = "record_too_large"
    # request size (app/http_limits.py)
    BODY_TOO_LARGE = "body_too_large"
    BODY_TIMEOUT = "body_timeout"
    NAME_REQUIRED = "name_required"  # package "records" (issue 14): import needs a chosen name
    # accounts, challenges and ratings (issue 16)
    NOT_SIGNED_IN = "not_signed_in"
    BAD_CREDENTIALS = "bad_credentials"
    USERNAME_TAKEN = "username_taken"
    BAD_USERNAME = "bad_username"
    WEAK_PASSWORD = "weak_password"
    BAD_EMAIL = "bad_email"
    EMAIL_DISABLED = "email_disabled"
    SESSION_NOT_FOUND = "session_not_found"
    SESSION_ENDED = "session_ended"  # a socket's session ended: it is closed with 4401 (issue 26)
    ACCOUNT_REQUIRED = "account_required"
    PLAYER_NOT_FOUND = "player_not_found"
    CHALLENGE_NOT_FOUND = "challenge_not_found"
    CHALLENGE_CLOSED = "challenge_closed"
    CANNOT_CHALLENGE_SELF = "cannot_challenge_self"
    BAD_ORIGIN = "bad_origin"
    BAD_RECOVERY_TOKEN = "bad_recovery_token"
    BAD_VERIFICATION_TOKEN = "bad_verification_token"  # issue 26: verifying an address
    NOTHING_TO_VERIFY = "nothing_to_verify"
    ALREADY_SIGNED_IN = "already_signed_in"
    # clocks and the table (issue 17)
    NO_DRAWS = "no_draws"
    ALREADY_OFFERED = "already_offered"
    OFFER_PENDING = "offer_pending"
    NO_OFFER = "no_offer"
    OWN_OFFER = "own_offer"
    TAKEBACKS_OFF = "takebacks_off"
    NOTHING_TO_TAKE_BACK = "nothing_to_take_back"
    TOO_LATE_TO_ABORT = "too_late_to_abort"
    GAME_NOT_OVER = "game_not_over"
    REMATCH_DONE = "rematch_done"
    CANNOT_CLAIM = "cannot_claim"
    BAD_CHAT = "bad_chat"
    # the server's own fault or load
    RULES_TIMEOUT = "rules_timeout"
    UNAVAILABLE = "unavailable"  # issue 27: the database cannot be reached; retry after a while
    INTERNAL_ERROR = "internal_error"


#: The HTTP status of each code; None for the codes that only a websocket sends.
STATUS: dict[ErrorCode, int | None] = {
    ErrorCode.BAD_JSON: 422,
    ErrorCode.BAD_REQUEST: 400,
    ErrorCode.INVALID_REQUEST: 422,
    ErrorCode.UNKNOWN_TYPE: None,
    ErrorCode.BAD_MESSAGE: None,
    ErrorCode.MESSAGE_TOO_LARGE: None,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.TOO_MANY_SOCKETS: None,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.BAD_NAME: 422,
    ErrorCode.UNKNOWN_GAME: 422,
    ErrorCode.BAD_OPTION: 422,
    ErrorCode.GAME_NOT_FOUND: 404,
    ErrorCode.BAD_TOKEN: 403,
    ErrorCode.ALREADY_SEATED: 409,
    ErrorCode.GAME_FULL: 409,
    ErrorCode.NOT_A_PLAYER: 403,
    ErrorCode.NOT_STARTED: 409,
    ErrorCode.GAME_STARTED: 409,
    ErrorCode.GAME_OVER: 409,
    ErrorCode.NOT_YOUR_TURN: 409,
    ErrorCode.STALE_VERSION: 409,
    ErrorCode.MSG_ID_REUSED: 409,
    ErrorCode.IDEMPOTENCY_KEY_REUSED: 422,
    ErrorCode.INVALID_MOVE: 422,
    ErrorCode.ILLEGAL_MOVE: 422,
    ErrorCode.ILLEGAL_STEPS: 422,
    ErrorCode.BAD_FILTER: 422,
    ErrorCode.BAD_CURSOR: 422,
    ErrorCode.INVALID_RECORD: 422,
    ErrorCode.UNFINISHED_RECORD: 422,
    ErrorCode.RECORD_TOO_LARGE: 413,
    ErrorCode.BODY_TOO_LARGE: 413,
    ErrorCode.BODY_TIMEOUT: 408,
    ErrorCode.NAME_REQUIRED: 403,
    ErrorCode.NOT_SIGNED_IN: 401,
    ErrorCode.BAD_CREDENTIALS: 401,
    ErrorCode.USERNAME_TAKEN: 409,
    ErrorCode.BAD_USERNAME: 422,
    ErrorCode.WEAK_PASSWORD: 422,
    ErrorCode.BAD_EMAIL: 422,
    ErrorCode.EMAIL_DISABLED: 409,
    ErrorCode.SESSION_NOT_FOUND: 404,
    ErrorCode.SESSION_ENDED: 401,
    ErrorCode.ACCOUNT_REQUIRED: 403,
    ErrorCode.PLAYER_NOT_FOUND: 404,
    ErrorCode.CHALLENGE_NOT_FOUND: 404,
    ErrorCode.CHALLENGE_CLOSED: 409,
    ErrorCode.CANNOT_CHALLENGE_SELF: 422,
    ErrorCode.BAD_ORIGIN: 403,
    ErrorCode.BAD_RECOVERY_TOKEN: 403,
    ErrorCode.BAD_VERIFICATION_TOKEN: 403,
    ErrorCode.NOTHING_TO_VERIFY: 409,
    ErrorCode.ALREADY_SIGNED_IN: 409,
    ErrorCode.NO_DRAWS: 409,
    ErrorCode.ALREADY_OFFERED: 409,
    ErrorCode.OFFER_PENDING: 409,
    ErrorCode.NO_OFFER: 409,
    ErrorCode.OWN_OFFER: 409,
    ErrorCode.TAKEBACKS_OFF: 409,
    ErrorCode.NOTHING_TO_TAKE_BACK: 409,
    ErrorCode.TOO_LATE_TO_ABORT: 409,
    ErrorCode.GAME_NOT_OVER: 409,
    ErrorCode.REMATCH_DONE: 409,
    ErrorCode.CANNOT_CLAIM: 409,
    ErrorCode.BAD_CHAT: 422,
    ErrorCode.RULES_TIMEOUT: 503,
    ErrorCode.UNAVAILABLE: 503,
    ErrorCode.INTERNAL_ERROR: 500,
}

#: What an AppError of a websocket-only code would answer if it ever reached HTTP.
_WEBSOCKET_ONLY_STATUS = 400


class AppError(Exception):
    """A refused request. ``code`` is stable (clients test it); ``message`` is for humans.

    ``code`` is an :class:`ErrorCode` or its text (ValueError if it is no member); ``status`` is the
    code's documented HTTP status, and an explicit one must agree with it (ValueError otherwise), so
    ``docs/protocol.md`` stays the truth. Extra keyword arguments become fields of the error, but
    ``retry_after`` (seconds, for a quota) becomes the HTTP ``Retry-After`` header instead, and
    ``rule`` (the rules section a refused move rests on) a field only when given.

    >>> AppError("game_full", "both seats are taken").status
    409
    >>> AppError("gmae_full", "typo")
    Traceback (most recent call last):
    ...
    ValueError: 'gmae_full' is not a valid ErrorCode
    """

    def __init__(
        self,
        code: ErrorCode | str,
        message: str,
        status: int | None = None,
        *,
        retry_after: float | None = None,
        rule: str | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        # Seconds before the same request may succeed (a quota): the HTTP ``Retry-After`` header.
        self.retry_after = retry_after
        self.code = ErrorCode(code)
        documented = STATUS[self.code]
        if status is not None and documented is not None and status != documented:
            raise ValueError(
                f"{self.code.value!r} is documented as HTTP {documented}, not {status}"
            )
        self.message = bounded(message)
        self.status: int = status or documented or _WEBSOCKET_ONLY_STATUS
        if rule is not None:  # the rules section a refused move rests on: a details line
            extra["rule"] = rule
        self.extra = {k: bounded(v) if isinstance(v, str) else v for k, v in extra.items()}

    def to_json(self) -> dict[str, Any]:
        """The ``error`` object of the protocol."""
        return {"code": self.code.value, "message": self.message, **self.extra}


def rule_of(exc: ValueError) -> str | None:
    """The rules section the rules' refusal ``exc`` rests on (e.g. ``"A3"``), or None."""
    rule = getattr(exc, "rule", None)
    return rule if isinstance(rule, str) else None


def not_found(game_id: str) -> AppError:
    """The game does not exist, or the caller may not see it (a private game's existence is secret)."""
    return AppError(ErrorCode.GAME_NOT_FOUND, f"there is no game {excerpt(game_id)}")


# --- Excerpts of client values (package "serving"): an error never echoes a whole input. --------

#: How many characters of a client's value an error message quotes.
EXCERPT_LENGTH = 40


def excerpt(value: object, limit: int = EXCERPT_LENGTH) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for quoting a client's value in a message:
    long text keeps its start and end, long lists and objects their first items.

    >>> excerpt("exxit"), excerpt(7), excerpt(["a", "b"])
    ("'exxit'", '7', "['a', 'b']")
    >>> excerpt("x" * 10_000)
    "'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx'"
    >>> len(excerpt({"k" * 100: ["v" * 100] * 100}, 40)) <= 40
    True
    """
    cut = reprlib.Repr()
    cut.maxlevel = 2
    cut.maxdict = cut.maxlist = cut.maxtuple = cut.maxset = 4
    cut.maxstring = cut.maxother = cut.maxlong = limit
    text = cut.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: The longest message (or text field) an error carries.
MAX_MESSAGE_LENGTH = 240
_LONG_RUN = re.compile(
    f"'[^']{{{EXCERPT_LENGTH},}}'|\"[^\"]{{{EXCERPT_LENGTH},}}\"|\\S{{{EXCERPT_LENGTH + 1},}}"
)


def bounded(message: str) -> str:
    """``message`` with each quoted text, and each word, longer than ``EXCERPT_LENGTH`` cut to its
    start and end, then to ``MAX_MESSAGE_LENGTH`` characters: the net under every error, for the
    messages that quote a value nobody cut before (the rules package's, which quote what they were
    given; a field named by the client).

    >>> bounded("unknown option '" + "x" * 1000 + "' (allowed: a, b)")
    "unknown option 'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxx' (allowed: a, b)"
    >>> bounded("y" * 1000 + ": Extra inputs are not permitted")
    'yyyyyyyyyyyyyyyyy...yyyyyyyyyyyyyyyyy: Extra inputs are not permitted'
    """
    half = (EXCERPT_LENGTH - 5) // 2

    def cut(match: re.Match[str]) -> str:
        run = match.group()  # a quoted text keeps its quotes
        return f"{run[: half + 1]}...{run[-half - 1 :]}"

    message = _LONG_RUN.sub(cut, message)
    if len(message) > MAX_MESSAGE_LENGTH:
        message = message[: MAX_MESSAGE_LENGTH - 3] + "..."
    return message
