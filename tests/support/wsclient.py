"""A test visitor: an httpx client (its own guest cookie) plus real websocket connections, every
answer and message of which is checked against the documented contract (``tests/support/contract``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

from app.identity import COOKIE
from tests.support.contract import checked, contract
from tests.support.patience import PATIENCE

TIMEOUT = PATIENCE


class GameSocket:
    """One websocket to ``/ws/games/{id}``; every message received is kept in ``log``."""

    def __init__(self, connection: ClientConnection, path: str = "/ws") -> None:
        self.connection = connection
        self.path = path
        self.log: list[dict[str, Any]] = []
        self._pending: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.connection.send(message if isinstance(message, str) else json.dumps(message))

    async def recv(self, wait: float = TIMEOUT) -> dict[str, Any]:
        """The next message."""
        if self._pending:
            return self._pending.pop(0)
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.connection.recv(), wait))
        contract().check_message(message, f"websocket {self.path}")
        self.log.append(message)
        return message

    async def expect(self, *types: str, wait: float = TIMEOUT) -> dict[str, Any]:
        """The next message of one of ``types``; others are put back for later ``recv``."""
        skipped: list[dict[str, Any]] = []
        try:
            while True:
                message = await self.recv(wait)
                if message["type"] in types:
                    return message
                skipped.append(message)
        finally:
            self._pending = skipped + self._pending

    async def close(self) -> None:
        await self.connection.close()

    def events(self) -> list[dict[str, Any]]:
        """The ``event`` messages received so far, in order."""
        return [m for m in self.log if m["type"] == "event"]


class TestVisitor:
    """A browser-less visitor of a live server."""

    __test__ = False

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.http = checked(httpx.AsyncClient(base_url=base_url, timeout=TIMEOUT))
        self.sockets: list[GameSocket] = []

    async def start(self, name: str | None = None) -> TestVisitor:
        """Get a guest cookie, and a name if given."""
        response = await (
            self.http.put("/api/me", json={"name": name}) if name else self.http.get("/api/me")
        )
        response.raise_for_status()
        return self

    @property
    def cookie(self) -> str:
        """The Cookie header of this visitor: its guest cookie, and its session once signed in."""
        assert COOKIE in self.http.cookies
        return "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())

    async def open(
        self, game_id: str, since: int | None = None, token: str | None = None
    ) -> GameSocket:
        """A websocket to the game (with this visitor's cookie)."""
        query = "&".join(
            f"{k}={v}" for k, v in (("since", since), ("token", token)) if v is not None
        )
        return await self.open_path(f"/ws/games/{game_id}" + (f"?{query}" if query else ""))

    async def open_path(self, path: str) -> GameSocket:
        """A websocket to ``path`` (``/ws/me``, ``/ws/live``) with this visitor's cookies."""
        url = self.base_url.replace("http", "ws", 1) + path
        connection = await websockets.connect(
            url, additional_headers={"Cookie": self.cookie}, max_size=None
        )
        socket = GameSocket(connection, path)
        self.sockets.append(socket)
        return socket

    async def close_sockets(self) -> None:
        """Close every websocket this visitor opened so far."""
        for socket in self.sockets:
            await socket.close()
        self.sockets.clear()

    async def close(self) -> None:
        await self.close_sockets()
        await self.http.aclose()
