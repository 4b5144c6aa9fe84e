"""A Redis outage mid-game, on two server processes sharing one PostgreSQL database.

Redis (a server of the test's own) is killed outright and restarted on the same port. Throughout,
moves are acknowledged (committed moves never answer 500), new sockets open on both processes, and
``/healthz`` tells the truth. Once Redis is back, moves flow between the processes again; every
acknowledged move is in the game, and every client, following ``docs/protocol.md``, has seen each
event exactly once (live, or in a ``catchup``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.databases import fresh_database
from tests.support.gameplay import MovePicker, assert_each_event_once, quick_game, start_game
from tests.support.patience import PATIENCE
from tests.support.redisserver import RedisServer, redis_server
from tests.support.server import LiveServer
from tests.support.wsclient import GameSocket, TestVisitor

DEADLINE = PATIENCE


@dataclass
class Client:
    """One game socket, read in the background as a client following the protocol would."""

    name: str
    socket: GameSocket
    version: int = 0
    versions: list[int] = field(default_factory=list)  # of every event received, in order
    acks: dict[str, dict[str, Any]] = field(default_factory=dict)
    snapshots: int = 0
    base: int = 0  # the version of the snapshot
    caught_up: int = 0  # events received in a catchup rather than live
    task: asyncio.Task[None] | None = None

    async def read(self) -> None:
        while True:
            message = await self.socket.recv(wait=3600)
            kind = message["type"]
            if kind == "snapshot":
                self.snapshots += 1
                self.version = self.base = message["version"]
            elif kind == "catchup":
                self.versions += [event["version"] for event in message["events"]]
                self.caught_up += len(message["events"])
                self.version = message["version"]
            elif kind == "event":
                self.versions.append(message["version"])
                self.version = message["version"]
            elif kind in ("ack", "error") and message.get("msg_id"):
                self.acks[message["msg_id"]] = message


@dataclass
class Game:
    game_id: str
    picker: MovePicker
    version: int
    clients: list[Client] = field(default_factory=list)
    acknowledged: list[str] = field(default_factory=list)  # the moves acknowledged, in order


async def poll(condition: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < end, f"not in time: {what}"
        await asyncio.sleep(0.05)


async def open_client(visitor: TestVisitor, game: Game, name: str) -> Client:
    client = Client(name, await visitor.open(game.game_id))
    client.task = asyncio.create_task(client.read())
    game.clients.append(client)
    await poll(lambda: client.snapshots == 1, f"{name}'s snapshot")
    return client


async def play_by_socket(game: Game, seats: dict[int, Client]) -> None:
    """The player to move plays a legal move over the websocket; wait for its ack."""
    seat = game.picker.to_move()
    assert seat is not None, "the game ended early: choose another seed"
    text = game.picker.pick()
    msg_id = f"m-{secrets.token_hex(4)}"
    client = seats[seat]
    await client.socket.send(
        {"type": "move", "move": text, "version": game.version, "msg_id": msg_id}
    )
    await poll(lambda: msg_id in client.acks, f"the ack of {text}")
    ack = client.acks[msg_id]
    assert ack["type"] == "ack", ack
    game.picker.play(text)
    game.acknowledged.append(text)
    game.version = ack["version"]


async def play_by_http(game: Game, seats: dict[int, TestVisitor]) -> None:
    seat = game.picker.to_move()
    assert seat is not None
    text = game.picker.pick()
    answer = await seats[seat].http.post(
        f"/api/games/{game.game_id}/moves",
        json={"move": text, "version": game.version, "msg_id": f"h-{secrets.token_hex(4)}"},
    )
    assert answer.status_code == 200, answer.text
    game.picker.play(text)
    game.acknowledged.append(text)
    game.version = answer.json()["version"]


async def everyone_has(game: Game, what: str) -> None:
    await poll(lambda: all(c.version == game.version for c in game.clients), what)


def health(server: LiveServer) -> tuple[int, dict[str, Any]]:
    answer = httpx.get(server.url + "/healthz", timeout=10)
    body: dict[str, Any] = answer.json()
    return answer.status_code, body


def healthy(server: LiveServer) -> bool:
    status, body = health(server)
    return status == 200 and body["status"] == "ok" and body["redis"]["ok"] is True


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture
def servers(own_redis: RedisServer, tmp_path: Path) -> Iterator[tuple[LiveServer, LiveServer]]:
    env = {
        "REDIS_URL": own_redis.url,
        "REDIS_PREFIX": f"test-{secrets.token_hex(4)}:",
        "REDIS_BACKOFF_MAX": "0.5",
    }
    with fresh_database("postgres", tmp_path) as url:
        one, two = LiveServer(url, env), LiveServer(url, env)
        one.start()
        try:
            two.start()
            try:
                yield one, two
            finally:
                two.stop()
        finally:
            one.stop()


@pytest.fixture
async def visitors(
    servers: tuple[LiveServer, LiveServer],
) -> AsyncIterator[dict[str, TestVisitor]]:
    one, two = servers
    made = {
        "ann": await TestVisitor(one.url).start("Ann"),
        "bo": await TestVisitor(two.url).start("Bo"),
        "carl": await TestVisitor(one.url).start("Carl"),
        "dee": await TestVisitor(two.url).start("Dee"),
    }
    yield made  # the test may add more
    for visitor in made.values():
        with contextlib.suppress(Exception):
            await visitor.close()


async def test_a_redis_outage_mid_game_loses_nothing(
    own_redis: RedisServer,
    servers: tuple[LiveServer, LiveServer],
    visitors: dict[str, TestVisitor],
) -> None:
    one, two = servers
    ann, bo = visitors["ann"], visitors["bo"]  # seat 1 on process one, seat 2 on process two
    slug, options = quick_game()
    created = await start_game(ann.http, bo.http, slug, options)
    game = Game(created["id"], MovePicker(slug, options, seed=7), version=2)
    players = {1: await open_client(ann, game, "ann"), 2: await open_client(bo, game, "bo")}
    await open_client(visitors["carl"], game, "carl (one)")
    await open_client(visitors["dee"], game, "dee (two)")
    try:
        for _ in range(3):
            await play_by_socket(game, players)
        await everyone_has(game, "the moves before the outage")

        own_redis.kill()
        # Committed moves are acknowledged, over HTTP and over the websocket.
        await play_by_http(game, {1: ann, 2: bo})
        await play_by_socket(game, players)
        # New sockets work on both processes during the outage.
        visitors["eve"] = await TestVisitor(one.url).start("Eve")
        visitors["fay"] = await TestVisitor(two.url).start("Fay")
        await open_client(visitors["eve"], game, "eve (one)")
        await open_client(visitors["fay"], game, "fay (two)")
        for server in (one, two):
            status, body = health(server)
            assert (status, body["status"]) == (200, "degraded"), body
            assert body["redis"]["ok"] is False and body["database"]["ok"] is True

        own_redis.start()
        await poll(lambda: healthy(one) and healthy(two), "/healthz ok on both processes")
        # Every socket catches up on what it missed, and moves flow between processes again.
        await everyone_has(game, "the moves of the outage, after it")
        for _ in range(3):
            await play_by_socket(game, players)
            await everyone_has(game, "a move after the outage, on both processes")

        snapshot = (await ann.http.get(f"/api/games/{game.game_id}")).json()
        assert snapshot["game"]["moves"] == game.acknowledged
        assert snapshot["version"] == game.version
        # The sockets of the process that did not commit an outage move read it from the database.
        assert any(client.caught_up for client in game.clients)
        for client in game.clients:
            assert client.snapshots == 1, client.name
            assert_each_event_once(client.versions, client.base, game.version, client.name)
    finally:
        for client in game.clients:
            if client.task is not None:
                client.task.cancel()


async def test_the_spectators_of_a_killed_process_stop_counting(tmp_path: Path) -> None:
    """A process killed outright leaves its presence keys behind; they expire, while the live
    process keeps refreshing its own."""
    env = {
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "REDIS_PREFIX": f"test-{secrets.token_hex(4)}:",
        "PRESENCE_TTL": "1",
        "PRESENCE_REFRESH": "0.2",
    }
    with fresh_database("postgres", tmp_path) as url:
        live, doomed = LiveServer(url, env), LiveServer(url, env)
        live.start()
        doomed.start()
        people: list[TestVisitor] = []
        try:
            for name, server in (("Ann", live), ("Bo", live), ("Dee", live), ("Fay", live)):
                people.append(await TestVisitor(server.url).start(name))
            people.append(await TestVisitor(doomed.url).start("Eve"))
            ann, bo, dee, fay, eve = people
            game_id = (await start_game(ann.http, bo.http, *quick_game()))["id"]

            async def spectators() -> int:
                count: int = (await ann.http.get(f"/api/games/{game_id}")).json()["spectators"]
                return count

            # The live process's spectators arrive first: unrefreshed, they would expire first.
            for spectator in (dee, fay, eve):
                await (await spectator.open(game_id)).expect("snapshot")
            assert await spectators() == 3

            doomed.kill()
            end = time.monotonic() + DEADLINE
            while (count := await spectators()) == 3:
                assert time.monotonic() < end, "the killed process's spectator still counts"
                await asyncio.sleep(0.05)
            assert count == 2  # Dee and Fay, kept by their own process
        finally:
            for visitor in people:
                with contextlib.suppress(Exception):
                    await visitor.close()
            doomed.kill()
            live.stop()
