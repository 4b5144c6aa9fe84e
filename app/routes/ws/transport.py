"""What every websocket shares: the accepted :class:`Socket` (serialised sends, the idle limit,
the size and rate limits, each message parsed once), the socket quotas, the session watcher, and
the loop that forwards what the hub publishes (catching up where messages may have been lost).
The endpoints are in :mod:`app.routes.ws.game` and :mod:`app.routes.ws.lists`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from app.config import Settings
from app.deps import resolve_visitor
from app.errors import AppError, ErrorCode, excerpt
from app.parsing import TOO_DEEP, json_fault
from app.repository.outage import database_unavailable, unavailable
from app.runtime.hub import RESYNC, Hub, Subscription, account_channel, encode
from app.runtime.limiter import client_key
from app.runtime.sockets import Refusal, SocketLimits
from app.schemas.messages import CLIENT_MESSAGE, ClientMessage
from app.services import GameService, Visitor

log = logging.getLogger("hexmoot")

CLOSE_IDLE = 4000
CLOSE_SLOW = 4001
CLOSE_SESSION_ENDED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429
#: "Try again later" (RFC 6455): a socket that could not open because the database is out of reach.
CLOSE_TRY_AGAIN = 1013
# Events are encoded by app.hub.encode with "type" then "version" first.
_EVENT_VERSION = re.compile(r'^\{"type":"event","version":(\d+)')


class Socket:
    """One accepted websocket: serialised sends, limits, and the last version it was sent."""

    def __init__(self, websocket: WebSocket, settings: Settings) -> None:
        self.ws = websocket
        self.settings = settings
        self.version = 0
        self._send_lock = asyncio.Lock()
        self._recent: deque[float] = deque()
        # Set for a socket opened with a session: whether that session is still live.
        self.session_live: Callable[[], Awaitable[bool]] | None = None
        self.hub: Hub | None = None

    async def still_signed_in(self) -> bool:
        """Before a message that acts for the visitor: False, once the socket is ended, if the
        session it was opened with has ended. The socket's watcher (:func:`watch_session`) hears
        of it at once; only while the hub may miss that word (an outage) is the database asked."""
        if self.session_live is None or self.hub is None or self.hub.delivering:
            return True
        if await self.session_live():
            return True
        await self.end_session()
        return False

    async def end_session(self) -> None:
        """Say that the socket's session has ended, and close it: the client reconnects as the
        browser's guest, or signs in again."""
        with contextlib.suppress(Exception):
            await self.error(
                AppError(ErrorCode.SESSION_ENDED, "Your session has ended: sign in again")
            )
        await self.close(CLOSE_SESSION_ENDED)

    async def send(self, message: Mapping[str, Any]) -> None:
        await self.send_text(encode(message))

    async def send_text(self, text: str) -> None:
        async with self._send_lock:
            await self.ws.send_text(text)

    async def error(self, exc: AppError, msg_id: str | None = None) -> None:
        body: dict[str, Any] = {"type": "error", **exc.to_json()}
        if msg_id is not None:
            body["msg_id"] = msg_id
        await self.send(body)

    async def close(self, code: int) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(code)

    async def receive(self) -> ClientMessage | None:
        """The next valid message, parsed once; None when the socket is done.

        Bad input is answered with an error here and skipped.
        """
        while True:
            try:
                raw = await asyncio.wait_for(self.ws.receive(), self.settings.ws_idle_timeout)
            except TimeoutError:
                await self.close(CLOSE_IDLE)
                return None
            if raw["type"] == "websocket.disconnect":
                return None
            text = raw.get("text")
            if text is None:
                data = raw.get("bytes") or b""
                try:
                    text = data.decode()
                except UnicodeDecodeError:
                    text = "\x00"  # not JSON: refused below
            limit = self.settings.ws_max_message_bytes
            if len(text) > limit or len(text.encode()) > limit:
                await self.error(
                    AppError(ErrorCode.MESSAGE_TOO_LARGE, f"a message may not exceed {limit} bytes")
                )
                continue
            if self._rate_limited():
                await self.error(
                    AppError(
                        ErrorCode.RATE_LIMITED,
                        f"more than {self.settings.ws_rate_messages} messages in "
                        f"{self.settings.ws_rate_window:g} s",
                    )
                )
                continue
            try:
                message = json.loads(text)
            except RecursionError:
                await self.error(AppError(ErrorCode.BAD_JSON, TOO_DEEP))
                continue
            except ValueError:  # syntax, or an integer of over 4,300 digits
                await self.error(AppError(ErrorCode.BAD_JSON, "the message is not JSON"))
                continue
            if not isinstance(message, dict):
                await self.error(AppError(ErrorCode.BAD_JSON, "a message must be a JSON object"))
                continue
            fault = json_fault(message)
            if fault is not None:
                # Answered without its msg_id: a lone surrogate cannot even be encoded to be echoed.
                if fault == TOO_DEEP:
                    await self.error(AppError(ErrorCode.BAD_JSON, fault))
                else:
                    await self.error(AppError(ErrorCode.BAD_MESSAGE, fault))
                continue
            try:
                return CLIENT_MESSAGE.validate_python(message)
            except ValidationError as exc:
                msg_id = message.get("msg_id")
                await self.error(_refusal(exc, message.get("type")), _text_or_none(msg_id))

    def _rate_limited(self) -> bool:
        now = time.monotonic()
        window = self.settings.ws_rate_window
        while self._recent and now - self._recent[0] > window:
            self._recent.popleft()
        if len(self._recent) >= self.settings.ws_rate_messages:
            return True
        self._recent.append(now)
        return False


def _refusal(exc: ValidationError, kind: object) -> AppError:
    """The error for a message the union refused: its ``type`` is unknown, or a field is bad."""
    first = exc.errors()[0]
    if first["type"] in ("union_tag_not_found", "union_tag_invalid"):
        return AppError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {excerpt(kind)}")
    # The location starts with the tag that chose the model: ("move", "version").
    field = ".".join(str(p) for p in first["loc"][1:])
    return AppError(ErrorCode.BAD_MESSAGE, f"{field}: {first['msg']}", field=field)


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


Resync = Callable[[], Awaitable[Mapping[str, Any]]]


async def forward(socket: Socket, subscription: Subscription, resync: Resync | None = None) -> None:
    """Send what the hub publishes, skipping events the socket already has.

    Where messages may have been lost, the socket catches up from the database instead: when the
    hub says so (:data:`RESYNC`: its pub/sub came back after an outage), and when an event skips
    a version (a gap: the events of two processes crossed, or one was published during an
    outage). ``resync()`` reads the message to send then: a ``catchup`` from ``socket.version``
    (or a ``snapshot``) on a game socket, the ``live`` list on the live socket. Every event after
    that message's version still comes live, and nothing at or before it is sent again.
    """
    while True:
        text = await subscription.get()
        if text is None:
            await socket.close(CLOSE_SLOW)
            return
        if text == RESYNC:
            if resync is not None:
                await send_resync(socket, resync)
            continue
        match = _EVENT_VERSION.match(text)
        if match is not None:
            version = int(match.group(1))
            if version <= socket.version:
                continue
            if version > socket.version + 1 and resync is not None:
                await send_resync(socket, resync)  # it holds this event too
                continue
            socket.version = version
        await socket.send_text(text)


async def send_resync(socket: Socket, resync: Resync) -> None:
    message = await resync()
    if isinstance(message.get("version"), int):
        socket.version = message["version"]
    await socket.send(message)


async def run_both(first: Awaitable[Any], second: Awaitable[Any]) -> None:
    """Run two loops until either ends, then cancel the other (see :func:`run_all`)."""
    await run_all([first, second])


async def unexpected(socket: Socket, kind: str, msg_id: str | None, exc: Exception) -> None:
    """Answer a message whose handling failed with ``exc``, and keep the socket open for the next:
    ``unavailable`` when the database is out of reach (the client retries, with the same
    ``msg_id``), else ``internal_error`` for a bug, logged with its traceback."""
    if database_unavailable(exc):
        log.warning("answering a %r message: the database is out of reach (%r)", kind, exc)
        await socket.error(unavailable(), msg_id)
        return
    log.exception("answering a %r message failed", kind)
    await socket.error(
        AppError(ErrorCode.INTERNAL_ERROR, "the server failed to answer this message"), msg_id
    )


async def with_socket_quota(
    websocket: WebSocket, body: Callable[[Socket, Visitor], Awaitable[None]]
) -> None:
    """Accept, enforce the socket limits (per visitor, and per client address: a socket without a
    cookie is a new visitor each time), resolve the visitor, run ``body``. The limits count the
    sockets of every process (app.runtime.sockets)."""
    app = websocket.app
    settings: Settings = app.state.settings
    limits: SocketLimits = app.state.sockets
    guest_id: str = websocket.state.guest_id
    address = client_key(websocket.client.host if websocket.client else None)
    await websocket.accept()
    socket = Socket(websocket, settings)
    admitted = await limits.admit(guest_id, address)
    if isinstance(admitted, Refusal):
        refusal = f"at most {admitted.limit} sockets per {admitted.per}"
        await socket.error(AppError(ErrorCode.TOO_MANY_SOCKETS, refusal))
        await socket.close(CLOSE_TOO_MANY)
        return
    try:
        service: GameService = app.state.service
        visitor = await resolve_visitor(websocket, service)
        session_id: str | None = websocket.state.session_id
        if session_id is None or visitor.account_id is None:
            await body(socket, visitor)
            return
        hub: Hub = app.state.hub
        socket.hub = hub
        socket.session_live = lambda: service.accounts.session_live(session_id)
        async with hub.subscribe(account_channel(visitor.account_id)) as ended:
            await run_both(body(socket, visitor), watch_session(socket, ended))
    except WebSocketDisconnect:
        pass
    except Exception as exc:
        if not database_unavailable(exc):
            raise
        # Opening (who the visitor is, the first snapshot) needs the database: say so, and let
        # the client reconnect after a while, as after any dropped connection.
        log.warning("a socket could not open: the database is out of reach (%r)", exc)
        with contextlib.suppress(Exception):
            await socket.error(unavailable())
            await socket.close(CLOSE_TRY_AGAIN)
    finally:
        await limits.release(admitted)


async def watch_session(socket: Socket, subscription: Subscription) -> None:
    """End the socket once its session ends, in whichever process it was ended: at each word
    that some session of the account ended, and after an outage of the hub (which may have lost
    that word), ask the database whether this one is still live."""
    assert socket.session_live is not None
    while True:
        if await subscription.get() is None:  # fell too far behind
            await socket.close(CLOSE_SLOW)
            return
        if not await socket.session_live():  # SESSIONS_ENDED or RESYNC
            await socket.end_session()
            return


async def run_all(loops: list[Awaitable[Any]]) -> None:
    """Run loops until one ends, then cancel the others; a loop's failure is logged (the client
    going away is no failure)."""
    tasks = [asyncio.ensure_future(loop) for loop in loops]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except (asyncio.CancelledError, WebSocketDisconnect):
                pass
            except Exception:
                log.exception("a websocket loop failed")
