"""Property-based fuzzing of the game socket: real websocket clients, a real server, a real game.

Each example sends one frame drawn by ``tests/support/fuzz_ws.py`` from a player or a spectator of a
live Exxit game, then a ``steps`` message of its own to learn that the frame was answered. Whatever
the frame:

- every message the server sends is one of ``docs/protocol.md`` (``SERVER_MESSAGE`` validates it,
  and so does its closed JSON Schema; an ``error`` carries a code of the table), and none is
  ``internal_error``; every HTTP answer the players get fits its documented model;
- the frame gets exactly one answer (``error``, ``ack``, ``pong``, ``steps`` or ``done``);
- the socket stays open (the ``steps`` that follows is answered); a frame above the protocol's limit
  may instead be refused by the websocket layer itself (close code 1009), as RFC 6455 allows;
- the game is unchanged (its snapshot before and after are equal) unless an ``ack`` with
  ``"duplicate": false`` or a ``done`` (an offer, an answer, an abort, a chat line) came back.

The budget: ``tests/support/fuzz.py``.
"""

from __future__ import annotations

import asyncio
import json
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets
from hypothesis import given
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from app.errors import ErrorCode
from app.identity import COOKIE
from app.schemas.messages import SERVER_MESSAGE
from tests.support.contract import checked, contract
from tests.support.fuzz import SERVER_ENV, FirstFailure, describe, fuzz_settings, game_state, seeded
from tests.support.fuzz_ws import MAX_MESSAGE, Frame, frames, since_values
from tests.support.server import LiveServer, live_server

pytestmark = pytest.mark.slow

EXAMPLES = 300
SINCE_EXAMPLES = 60
WAIT = 20.0
#: The websocket close code for a frame too big to read (RFC 6455).
CLOSE_TOO_BIG = 1009
#: The answers a frame can get (the others, ``event`` and ``spectators``, are broadcasts).
REPLIES = {"error", "ack", "pong", "steps", "done"}


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[LiveServer]:
    """A live server with the fuzzers' settings (``tests/support/fuzz.py``)."""
    with live_server(database_url, SERVER_ENV) as running:
        yield running


def documented(message: dict[str, Any]) -> None:
    """``message`` is a server message of the protocol (its model, and its JSON Schema with every
    object closed: ``tests/support/contract.py``), and no report of a server failure."""
    SERVER_MESSAGE.validate_python(message)
    contract().check_message(message)
    if message["type"] == "error":
        assert message["code"] != ErrorCode.INTERNAL_ERROR, message


class Visitor:
    """A guest with a cookie (an httpx client on ``loop``), and its socket to the game."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.http = checked(httpx.AsyncClient(base_url=server.url, timeout=WAIT))
        self.socket: ClientConnection | None = None

    async def open(self, game_id: str, query: str = "") -> tuple[ClientConnection, dict[str, Any]]:
        """A socket to the game (closing the previous one), and its first message."""
        if self.socket is not None:
            await self.socket.close()
        cookie = self.http.cookies.get(COOKIE)
        headers = {"Cookie": f"{COOKIE}={cookie}"} if cookie else {}
        self.socket = await websockets.connect(
            f"{self.server.ws_url}/ws/games/{game_id}{query}",
            additional_headers=headers,
            max_size=None,
        )
        first = json.loads(await asyncio.wait_for(self.socket.recv(), WAIT))
        documented(first)
        return self.socket, first

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
        await self.http.aclose()


class Table:
    """A live game between two players, watched by a spectator; a new one when it ends."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.people: dict[str, Visitor] = {}
        self.game_id = ""
        self.seats: dict[int, str] = {}
        self.sync = 0
        self.replies: Counter[str] = Counter()

    async def start(self) -> None:
        for name in ("ann", "bo", "spectator"):
            self.people[name] = Visitor(self.server)
        await self.people["ann"].http.put("/api/me", json={"name": "Ann"})
        await self.people["bo"].http.put("/api/me", json={"name": "Bo"})
        await self.new_game()

    async def new_game(self) -> None:
        ann, bo = self.people["ann"].http, self.people["bo"].http
        created = await ann.post("/api/games", json={"game": "exxit", "seat": 1})
        assert created.status_code == 201, created.text
        self.game_id = created.json()["id"]
        token = created.json()["join_token"]
        joined = await bo.post(f"/api/games/{self.game_id}/join", json={"token": token})
        assert joined.status_code == 200, joined.text
        self.seats = {1: "ann", 2: "bo"}
        for visitor in self.people.values():
            await visitor.open(self.game_id)

    async def snapshot(self) -> dict[str, Any]:
        answer = await self.people["ann"].http.get(f"/api/games/{self.game_id}")
        assert answer.status_code == 200, answer.text
        snapshot: dict[str, Any] = answer.json()
        return snapshot

    async def close(self) -> None:
        for visitor in self.people.values():
            await visitor.close()

    async def exchange(self, sender: str, frame: Frame) -> None:
        """Send ``frame`` from ``sender`` (``"mover"``, ``"waiter"`` or ``"spectator"``) and check
        what comes back."""
        before = await self.snapshot()
        if before["game"]["status"] != "active":
            await self.new_game()
            before = await self.snapshot()
        to_move = before["game"]["to_move"]
        name = {
            "mover": self.seats[to_move],
            "waiter": self.seats[3 - to_move],
            "spectator": "spectator",
        }[sender]
        visitor = self.people[name]
        assert visitor.socket is not None
        steps = await self.people["ann"].http.get(f"/api/games/{self.game_id}/steps")
        assert steps.status_code == 200, steps.text
        data = frame.encode(before["version"], steps.json()["next"])
        if isinstance(data, str):
            try:
                data.encode()
            except UnicodeEncodeError:  # a lone surrogate: no text frame can carry it
                data = data.encode("utf-8", "surrogatepass")
        self.sync += 1
        marker = f"sync-{self.sync}"
        where = f"{name} sent {data[:200]!r} ({frame.size} bytes)"
        try:
            await visitor.socket.send(data)
            await visitor.socket.send(json.dumps({"type": "steps", "prefix": [], "msg_id": marker}))
            replies = await self.answers(visitor.socket, marker, where)
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            assert frame.size > MAX_MESSAGE and code == CLOSE_TOO_BIG, f"{where}: closed {closed}"
            await visitor.open(self.game_id)
            replies = []
        assert len(replies) <= 1, f"{where}: {replies}"
        if frame.size <= MAX_MESSAGE or replies:
            assert len(replies) == 1, f"{where}: no answer"
        for reply in replies:
            self.replies[reply["type"] if reply["type"] != "error" else reply["code"]] += 1
        after = await self.snapshot()
        # A move, a resignation, or the table's messages (an offer, an answer, an abort, a chat
        # line) may change what the snapshot shows; every refusal changes nothing.
        changed = any(
            (r["type"] == "ack" and not r["duplicate"]) or r["type"] == "done" for r in replies
        )
        if not changed:
            assert game_state(after) == game_state(before), f"{where}: {replies} changed the game"

    async def answers(
        self, socket: ClientConnection, marker: str, where: str
    ) -> list[dict[str, Any]]:
        """The replies received before the answer to the ``steps`` named ``marker``."""
        replies: list[dict[str, Any]] = []
        while True:
            raw = await asyncio.wait_for(socket.recv(), WAIT)
            message = json.loads(raw)
            try:
                documented(message)
            except Exception as exc:
                raise AssertionError(f"{where}: undocumented answer {message!r}") from exc
            if message.get("msg_id") == marker:
                assert message["type"] == "steps", f"{where}: {message}"
                return replies
            if message["type"] in REPLIES:
                replies.append(message)


def run(loop: asyncio.AbstractEventLoop, coroutine: Any) -> Any:
    return loop.run_until_complete(coroutine)


@pytest.fixture
def loop() -> Any:
    """An event loop of the test's own: Hypothesis calls the examples synchronously."""
    own = asyncio.new_event_loop()
    yield own
    own.close()


def test_every_frame_gets_a_documented_answer_and_leaves_the_socket_open(
    server: LiveServer, loop: asyncio.AbstractEventLoop
) -> None:
    print(describe())
    table = Table(server)
    run(loop, table.start())
    first = FirstFailure()

    @seeded
    @fuzz_settings(EXAMPLES)
    @given(
        sender=st.sampled_from(["mover", "mover", "mover", "waiter", "spectator"]),
        frame=frames,
    )
    def fuzz(sender: str, frame: Frame) -> None:
        with first.watch():
            run(loop, table.exchange(sender, frame))

    try:
        first.run(fuzz)
    finally:
        print(f"answers: {dict(sorted(table.replies.items()))}")
        run(loop, table.close())
    # The fuzzer played real moves, not only refusals.
    assert table.replies["ack"] > 0, table.replies


def test_any_since_on_connect_gives_a_snapshot_or_a_catchup(
    server: LiveServer, loop: asyncio.AbstractEventLoop
) -> None:
    print(describe())
    table = Table(server)
    run(loop, table.start())
    first = FirstFailure()

    async def reconnect(since: str) -> None:
        query = "?" + urllib.parse.urlencode({"since": since})
        socket, first = await table.people["bo"].open(table.game_id, query)
        assert first["type"] in ("snapshot", "catchup"), first
        await socket.send(json.dumps({"type": "ping"}))
        pong = json.loads(await asyncio.wait_for(socket.recv(), WAIT))
        documented(pong)
        assert pong["type"] == "pong", pong

    @seeded
    @fuzz_settings(SINCE_EXAMPLES)
    @given(since=since_values)
    def fuzz(since: str) -> None:
        with first.watch():
            run(loop, reconnect(since))

    try:
        first.run(fuzz)
    finally:
        run(loop, table.close())
