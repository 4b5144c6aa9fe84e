"""The floor of the load benchmark: a bare websocket fan-out, no database and no rules.

It speaks just enough of the game socket for the load generator (tests/load/load.py): a socket on
``/ws/games/<id>`` gets a ``snapshot``; a ``move`` from a seat (the ``seat=1`` or ``seat=2``
cookie) is parsed, numbered, sent as an ``event`` to every socket of that game, and acknowledged;
a ``ping`` is answered. Whatever Hexmoot's move costs above this is the price of the site itself
(identity, validation, rules, the database, the events' contents), not of websockets on this
machine: the benchmark prints Hexmoot's round trips as multiples of the floor's, measured in the
same run.

``python -m tests.load.floor PORT`` serves it; :class:`FloorServer` runs that as a child process,
as a live server is, so that its CPU is measured apart from the load generator's.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from types import TracebackType

import httpx
import websockets
from websockets.asyncio.server import ServerConnection, broadcast, serve

from deploy.cluster import free_port, listens
from tests.support.patience import PATIENCE
from tests.support.server import OnLoopback

#: The version of a game once both seats are taken, as Hexmoot's (the generator starts there).
FIRST_VERSION = 2


@dataclass
class Room:
    """The sockets of one game and its version."""

    version: int = FIRST_VERSION
    sockets: set[ServerConnection] = field(default_factory=set)


ROOMS: dict[str, Room] = {}


def _seat(connection: ServerConnection) -> int | None:
    cookie = connection.request.headers.get("Cookie", "") if connection.request else ""
    for part in cookie.split(";"):
        name, _, value = part.strip().partition("=")
        if name == "seat" and value in ("1", "2"):
            return int(value)
    return None


async def _handle(connection: ServerConnection) -> None:
    assert connection.request is not None
    game_id = connection.request.path.rsplit("/", 1)[-1]
    seat = _seat(connection)
    room = ROOMS.setdefault(game_id, Room())
    room.sockets.add(connection)
    try:
        await connection.send(json.dumps({"type": "snapshot", "version": room.version}))
        async for raw in connection:
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "move" and seat is not None:
                room.version += 1
                event = {
                    "type": "event",
                    "kind": "move",
                    "version": room.version,
                    "data": {"seat": seat, "move": message.get("move")},
                }
                broadcast(room.sockets, json.dumps(event))
                ack = {"type": "ack", "version": room.version, "msg_id": message.get("msg_id")}
                await connection.send(json.dumps(ack))
            elif kind == "ping":
                await connection.send('{"type":"pong"}')
    except websockets.ConnectionClosed:
        pass
    finally:
        room.sockets.discard(connection)


async def _health(
    connection: ServerConnection, request: websockets.Request
) -> websockets.Response | None:
    """``GET /healthz`` answers 200 without an upgrade (the launcher's readiness check)."""
    if request.path == "/healthz":
        return connection.respond(200, "ok\n")
    return None


async def _serve(port: int) -> None:
    async with serve(_handle, "127.0.0.1", port, process_request=_health, compression=None):
        await asyncio.Future()


class FloorServer(OnLoopback):
    """``python -m tests.load.floor`` on a free port, as a child process (a context manager)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def __enter__(self) -> FloorServer:
        self.process = subprocess.Popen([sys.executable, "-m", "tests.load.floor", str(self.port)])
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                if httpx.get(self.url + "/healthz").status_code == 200 and listens(
                    self.pid, self.port
                ):
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.__exit__(None, None, None)
        raise RuntimeError("the floor server did not start")

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


if __name__ == "__main__":
    asyncio.run(_serve(int(sys.argv[1])))
