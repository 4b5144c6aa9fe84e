"""The list sockets: ``/ws/live`` (games in progress and open games) and ``/ws/me`` (the
visitor's own games: "My games", the your-turn badge and alerts). Each takes only pings.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from fastapi import APIRouter, WebSocket

from app.errors import AppError, ErrorCode
from app.routes.ws.transport import (
    CLOSE_SLOW,
    Socket,
    forward,
    run_all,
    run_both,
    with_socket_quota,
)
from app.runtime.hub import LIVE_CHANNEL, Hub, Subscription, player_channel
from app.schemas.messages import PingMsg
from app.schemas.outgoing import MyGamesJson
from app.services import GameService, Visitor

router = APIRouter()
_ANSWERED = '{"type":"challenge_answered"'


@router.websocket("/ws/live")
async def live_socket(websocket: WebSocket) -> None:
    """The list of public games in progress, then its changes."""
    service: GameService = websocket.app.state.service
    hub: Hub = websocket.app.state.hub

    async def body(socket: Socket, visitor: Visitor) -> None:
        # The first message (sent again to resync): the live and open lists, the visitor's own
        # open games marked ``yours``.
        async with hub.subscribe(LIVE_CHANNEL) as subscription:
            await socket.send(await service.reading.live_list(visitor))
            await run_both(
                forward(socket, subscription, lambda: service.reading.live_list(visitor)),
                _live_reader(socket),
            )

    await with_socket_quota(websocket, body)


async def _live_reader(socket: Socket, name: str = "live") -> None:
    """Answer pings; a list socket takes no other message."""
    while True:
        message = await socket.receive()
        if message is None:
            return
        if isinstance(message, PingMsg):
            await socket.send({"type": "pong"})
        else:
            await socket.error(
                AppError(ErrorCode.UNKNOWN_TYPE, f"the {name} socket takes no {message.type!r}")
            )


@router.websocket("/ws/me")
async def my_socket(websocket: WebSocket) -> None:
    """The visitor's own lists (``mine``), sent at once and again whenever one may have changed."""
    service: GameService = websocket.app.state.service
    hub: Hub = websocket.app.state.hub

    async def body(socket: Socket, visitor: Visitor) -> None:
        ids = await service.mine.player_ids(visitor)
        changed = asyncio.Event()
        async with contextlib.AsyncExitStack() as stack:
            subscriptions = [
                await stack.enter_async_context(hub.subscribe(player_channel(pid))) for pid in ids
            ]
            await socket.send({"type": "mine", **await service.mine.mine(visitor, ids)})
            await run_all(
                [
                    *(_notice(socket, sub, changed) for sub in subscriptions),
                    _send_mine(socket, changed, lambda: service.mine.mine(visitor, ids)),
                    _live_reader(socket, "my games"),
                ]
            )

    await with_socket_quota(websocket, body)


async def _notice(socket: Socket, subscription: Subscription, changed: asyncio.Event) -> None:
    """Note that the lists may have changed (a ``mine_changed``, a ``challenge_answered``, or a
    resync after an outage); pass a ``challenge_answered`` on to the client as it is."""
    while True:
        text = await subscription.get()
        if text is None:  # this socket fell too far behind
            await socket.close(CLOSE_SLOW)
            return
        if text.startswith(_ANSWERED):
            await socket.send_text(text)
        changed.set()


async def _send_mine(
    socket: Socket, changed: asyncio.Event, read: Callable[[], Awaitable[MyGamesJson]]
) -> None:
    """Send the lists again after each change; a burst of changes costs one read."""
    while True:
        await changed.wait()
        changed.clear()
        await socket.send({"type": "mine", **await read()})
