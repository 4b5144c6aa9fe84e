"""``/ws/games/{id}``: play and watch one game. The first message is a snapshot (or a catch-up
from ``since``); then the game's events and its chat room come live, and the player's messages
(moves, offers, chat...) are handed to the service. See ``docs/protocol.md`` for every message.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from app.errors import AppError
from app.parsing import natural
from app.routes.ws.transport import (
    CLOSE_NOT_FOUND,
    Socket,
    forward,
    run_all,
    unexpected,
    with_socket_quota,
)
from app.runtime.hub import Hub, chat_channel, game_channel
from app.runtime.limiter import Limiter
from app.runtime.throttle import Throttle
from app.schemas.messages import (
    AbortMsg,
    AnswerMsg,
    ChatMsg,
    ClaimMsg,
    MoveMsg,
    OfferMsg,
    PingMsg,
    ResignMsg,
    StepsMsg,
)
from app.schemas.outgoing import (
    AckJson,
    AckMsgJson,
    CatchupMsgJson,
    DoneMsgJson,
    OfferAnswerJson,
    SaidJson,
    SnapshotMsgJson,
)
from app.services import GameService, Visitor

router = APIRouter()
#: The start of every game's channel (app.runtime.hub.game_channel).
GAME_PREFIX = game_channel("")


@router.websocket("/ws/games/{game_id}")
async def game_socket(websocket: WebSocket, game_id: str) -> None:
    """Play or watch one game."""
    service: GameService = websocket.app.state.service
    hub: Hub = websocket.app.state.hub
    token = websocket.query_params.get("token")
    since_raw = websocket.query_params.get("since")
    channel = game_channel(game_id)
    spectator_counts: Throttle = websocket.app.state.spectator_counts

    async def body(socket: Socket, visitor: Visitor) -> None:
        async with hub.subscribe(channel) as subscription:
            try:
                first = await _first_message(service, game_id, visitor, token, since_raw)
            except AppError as exc:
                await socket.error(exc)
                await socket.close(CLOSE_NOT_FOUND)
                return
            socket.version = first["version"]
            seat = first["you"]["seat"]
            seated = seat is not None
            room: Literal["players", "spectators"] = "players" if seated else "spectators"
            if not seated:
                first["spectators"] = await hub.presence(channel, visitor.id, +1)
            async with hub.subscribe(chat_channel(game_id, room)) as chat:
                first["chat"] = {"room": room, "lines": await service.table.chat_log(game_id, room)}
                await socket.send(first)
                if seat is not None:
                    await service.table.arrived(game_id, seat, visitor.id)
                else:
                    spectator_counts.poke(channel)  # coalesced: see publish_spectators
                try:
                    await run_all(
                        [
                            forward(
                                socket,
                                subscription,
                                lambda: _first_message(
                                    service, game_id, visitor, token, str(socket.version)
                                ),
                            ),
                            forward(socket, chat),
                            _game_reader(socket, service, game_id, visitor, token),
                        ]
                    )
                finally:
                    if seat is not None:
                        await service.table.left(game_id, seat, visitor.id)
                    else:
                        await hub.presence(channel, visitor.id, -1)
                        spectator_counts.poke(channel)

    await with_socket_quota(websocket, body)


async def publish_spectators(hub: Hub, channel: str) -> None:
    """Send a game's sockets its spectator count, as it is now on the whole site, if it is not
    the count last sent (by any process). Spectators joining or leaving poke the app's
    ``spectator_counts`` throttle, which calls this at most once per ``SPECTATORS_EVERY`` seconds
    per game (and once more after the last change): a crowd joining costs each socket one or two
    messages, not one per join."""
    count = await hub.presence_count(channel)
    if await hub.count_changed(channel, count):
        await hub.publish(channel, {"type": "spectators", "count": count})


async def recount_spectators(hub: Hub) -> None:
    """Send the count of every game this process has sockets on again where it changed without
    a join or a leave: the spectators of a process that was killed stop counting when their
    presence expires, and nobody else would say so. Run every ``PRESENCE_REFRESH`` seconds; the
    games are read from Redis in batches: about 60 ms of processor time for a thousand games."""
    games = [channel for channel in hub.local_channels() if channel.startswith(GAME_PREFIX)]
    for channel, count in (await hub.changed_counts(games)).items():
        await hub.publish(channel, {"type": "spectators", "count": count})


async def _first_message(
    service: GameService, game_id: str, visitor: Visitor, token: str | None, since_raw: str | None
) -> SnapshotMsgJson | CatchupMsgJson:
    # A ``since`` that is no version (not ASCII digits, past 2^63-1) is ignored: a snapshot.
    since = natural(since_raw) if since_raw is not None else None
    if since is not None:
        catchup = await service.reading.catchup(game_id, since, visitor, token)
        if catchup is not None:
            return {"type": "catchup", **catchup}
    return {"type": "snapshot", **await service.reading.snapshot(game_id, visitor, token)}


async def _game_reader(
    socket: Socket, service: GameService, game_id: str, visitor: Visitor, token: str | None
) -> None:
    while True:
        message = await socket.receive()
        if message is None:
            return
        try:
            # Inside the try: asking whether the session lives may meet the database's absence.
            if not isinstance(message, (PingMsg, StepsMsg)) and not await socket.still_signed_in():
                return
            match message:
                case PingMsg():
                    await socket.send({"type": "pong"})
                case MoveMsg():
                    ack = await service.playing.play(
                        visitor,
                        game_id,
                        message.move,
                        message.version,
                        message.msg_id,
                        message.lag,
                    )
                    await socket.send(_ack(message.msg_id, ack))
                case OfferMsg():
                    done = await service.table.offer(visitor, game_id, message.kind)
                    await socket.send(_done("offer", message.msg_id, done))
                case AnswerMsg():
                    done = await service.table.answer(
                        visitor, game_id, message.kind, message.accept
                    )
                    await socket.send(_done("answer", message.msg_id, done))
                case AbortMsg():
                    await service.table.abort(visitor, game_id)
                    await socket.send(_done("abort", message.msg_id))
                case ClaimMsg():
                    await service.table.claim(visitor, game_id)
                    await socket.send(_done("claim", message.msg_id))
                case ChatMsg():
                    limiter: Limiter = socket.ws.app.state.limiter
                    # Counted as the HTTP twin counts it: per guest cookie.
                    await limiter.check(("chat per visitor", str(socket.ws.state.guest_id)))
                    said = await service.table.chat(visitor, game_id, message.text, token)
                    await socket.send(_done("chat", message.msg_id, {"line": said["line"]}))
                case ResignMsg():
                    ack = await service.playing.resign(
                        visitor, game_id, message.version, message.msg_id
                    )
                    await socket.send(_ack(message.msg_id, ack))
                case StepsMsg():
                    answer = await service.reading.steps(game_id, message.prefix, visitor, token)
                    await socket.send({"type": "steps", "msg_id": message.msg_id, **answer})
        except AppError as exc:
            await socket.error(exc, message.msg_id)
        except WebSocketDisconnect:
            raise
        except Exception as exc:
            await unexpected(socket, message.type, message.msg_id, exc)


def _done(
    of: Literal["offer", "answer", "abort", "claim", "chat"],
    msg_id: str | None,
    answer: OfferAnswerJson | SaidJson | None = None,
) -> DoneMsgJson:
    if answer is None:
        return {"type": "done", "msg_id": msg_id, "of": of}
    return {"type": "done", "msg_id": msg_id, "of": of, **answer}


def _ack(msg_id: str, ack: AckJson) -> AckMsgJson:
    return {
        "type": "ack",
        "msg_id": msg_id,
        "version": ack["version"],
        "duplicate": ack["duplicate"],
    }
