"""Every HTTP request body is capped, per route, before the app reads it: ``BodyLimit``.

A pure ASGI middleware. A body whose ``Content-Length`` is above its route's cap is refused at once
(413), unread; a body without one (chunked transfer encoding) is counted as it streams in, and the
request is refused as soon as the count passes the cap: nothing past it is read or kept, and
whatever the app had started to answer (it was reading a body it will never see whole) is dropped.
The server then discards the rest of the body without buffering it.

The caps (``docs/protocol.md``, Limits): ``BODY_LIMIT`` for most routes (names, options, moves: a
few hundred bytes), a record's 1 MiB for import, and for replay enough for its 2,000 moves.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import AppError, ErrorCode
from app.parsing import natural
from app.web_errors import error_response

#: The cap of every route not listed in ``ROUTE_LIMITS`` (bytes).
BODY_LIMIT = 8 * 1024
#: An imported record (``POST /api/archive/import``).
IMPORT_LIMIT = 1024 * 1024
#: A replay request: 2,000 moves (its most) of up to 60 bytes each, JSON quotes and commas included.
REPLAY_LIMIT = 128 * 1024

#: (method, path) -> (cap in bytes, the error code of a body above it).
ROUTE_LIMITS: dict[tuple[str, str], tuple[int, ErrorCode]] = {
    ("POST", "/api/archive/import"): (IMPORT_LIMIT, ErrorCode.RECORD_TOO_LARGE),
    ("POST", "/api/replay"): (REPLAY_LIMIT, ErrorCode.BODY_TOO_LARGE),
}


def body_limit(method: str, path: str) -> tuple[int, ErrorCode]:
    """The body cap of a route, and the code a larger body is refused with."""
    return ROUTE_LIMITS.get((method, path), (BODY_LIMIT, ErrorCode.BODY_TOO_LARGE))


def _refusal(cap: int, code: ErrorCode) -> AppError:
    """The 413 of a body over ``cap``."""
    size = f"{cap // (1024 * 1024)} MiB" if cap % (1024 * 1024) == 0 else f"{cap // 1024} KiB"
    if code is ErrorCode.RECORD_TOO_LARGE:
        return AppError(ErrorCode.RECORD_TOO_LARGE, f"a record may not exceed {size}")
    return AppError(ErrorCode.BODY_TOO_LARGE, f"a request body here may not exceed {size}")


class _TooLarge(Exception):
    """The body passed its cap while the app was reading it."""


class BodyLimit:
    """Refuse (413) any HTTP request whose body is over its route's cap, without reading it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap, code = body_limit(scope["method"], scope["path"])
        error = _refusal(cap, code)
        length = _content_length(scope)
        if length is not None and length > cap:
            await error_response(error)(scope, receive, send)
            return

        received = 0
        over = False
        answered = False

        async def counted() -> Message:
            nonlocal received, over
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > cap:
                    over = True
                    raise _TooLarge
            return message

        async def unless_over(message: Message) -> None:
            nonlocal answered
            if over:
                return  # the app's answer to a body it could not read: replaced by the 413
            answered = True
            await send(message)

        try:
            await self.app(scope, counted, unless_over)
        except Exception:
            # The app may let ``_TooLarge`` through, or turn it into an error of its own.
            if not over:
                raise
        if over and not answered:
            await error_response(error)(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    """The request's ``Content-Length``, or None when it has none (or none that is a number: the
    body is then counted as it comes)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            return natural(value.decode("latin-1").strip())
    return None
