"""Every HTTP request body is capped, per route, before the app reads it: ``BodyLimit``.

A pure ASGI middleware. A body whose ``Content-Length`` is above its route's cap is refused at once
(413), unread; a body without one (chunked transfer encoding) is counted as it streams in, and the
request is refused as soon as the count passes the cap: nothing past it is read or kept, and
whatever the app had started to answer (it was reading a body it will never see whole) is dropped.
The server then discards the rest of the body without buffering it.

A body must also arrive whole within ``timeout`` seconds of the app's first read of it (the
server's header timeout covers only the head): a client trickling a body is refused with 408 and
the connection closed, so it cannot hold a connection and a task for hours.

The caps (``docs/protocol.md``, Limits): ``BODY_LIMIT`` for most routes (names, options, moves: a
few hundred bytes), a record's 1 MiB for import, and for replay enough for its 2,000 moves.
"""

from __future__ import annotations

import asyncio

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


class _TooSlow(Exception):
    """The body did not arrive whole within the timeout."""


def _too_slow(timeout: float) -> AppError:
    return AppError(
        ErrorCode.BODY_TIMEOUT, f"a request body must arrive whole within {timeout:g} s"
    )


class BodyLimit:
    """Refuse (413) any HTTP request whose body is over its route's cap, without reading it, and
    (408) any whose body is not whole ``timeout`` seconds after the app first asks for it."""

    def __init__(self, app: ASGIApp, timeout: float = 30.0) -> None:
        self.app = app
        self.timeout = timeout

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
        slow = False
        answered = False
        whole = False  # once the body is in, ``receive`` only waits for a disconnect: no deadline
        deadline: float | None = None

        async def counted() -> Message:
            nonlocal received, over, slow, whole, deadline
            if whole:
                return await receive()
            if deadline is None:
                deadline = asyncio.get_running_loop().time() + self.timeout
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                slow = True
                raise _TooSlow from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > cap:
                    over = True
                    raise _TooLarge
                whole = not message.get("more_body", False)
            return message

        async def unless_over(message: Message) -> None:
            nonlocal answered
            if over or slow:
                return  # the app's answer to a body it could not read: replaced by ours
            answered = True
            await send(message)

        try:
            await self.app(scope, counted, unless_over)
        except Exception:
            # The app may let ``_TooLarge`` or ``_TooSlow`` through, or turn it into its own error.
            if not (over or slow):
                raise
        if answered:
            return
        if over:
            await error_response(error)(scope, receive, send)
        elif slow:
            # The rest of the body may never come: the connection is closed after the answer.
            await error_response(_too_slow(self.timeout), {"connection": "close"})(
                scope, receive, send
            )


def _content_length(scope: Scope) -> int | None:
    """The request's ``Content-Length``, or None when it has none (or none that is a number: the
    body is then counted as it comes)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            return natural(value.decode("latin-1").strip())
    return None
