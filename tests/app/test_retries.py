"""Honest retries and catch-up: a reconnect never repeats an event, a retry is a duplicate only when
it is the same message, and that holds across processes.

Real uvicorn processes, real websocket clients, on SQLite and PostgreSQL (``backend``). The races
are run many times: each trial is a fresh game.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from app.db import make_engine, make_sessionmaker
from tests.support.databases import fresh_database
from tests.support.gameplay import MovePicker, quick_game, rows_of
from tests.support.server import LiveServer, live_server
from tests.support.wsclient import GameSocket, TestVisitor

TRIALS = 60


@pytest.fixture
async def sessions(database_url: str) -> AsyncIterator[Any]:
    engine = make_engine(database_url)
    yield make_sessionmaker(engine)
    await engine.dispose()


async def visitors(server: LiveServer, *names: str) -> list[TestVisitor]:
    return [await TestVisitor(server.url).start(name) for name in names]


async def new_game(ann: TestVisitor, bo: TestVisitor) -> tuple[str, MovePicker]:
    """A public game with Ann in seat 1 and Bo in seat 2 (version 2), and its move picker."""
    slug, options = quick_game()
    created = await ann.http.post("/api/games", json={"game": slug, "options": options, "seat": 1})
    assert created.status_code == 201, created.text
    game_id: str = created.json()["id"]
    token = created.json()["join_token"]
    joined = await bo.http.post(f"/api/games/{game_id}/join", json={"token": token})
    assert joined.status_code == 200, joined.text
    return game_id, MovePicker(slug, options, seed=secrets.randbits(32))


async def event_of(socket: GameSocket, version: int) -> dict[str, Any]:
    """Read ``socket`` until the event of ``version`` has come."""
    while True:
        for event in socket.events():
            if event["version"] == version:
                return event
        await socket.expect("event")


def move(text: str, version: int, msg_id: str) -> dict[str, Any]:
    return {"type": "move", "move": text, "version": version, "msg_id": msg_id}


async def test_a_reconnect_right_after_a_move_never_gets_it_twice(server: LiveServer) -> None:
    """Send a move, drop the socket at once, reconnect with ``since``: whether the move lands
    before or after the catch-up is read, the client sees each version exactly once."""
    ann, bo = await visitors(server, "Ann", "Bo")
    seen_twice = []
    try:
        for trial in range(TRIALS):
            game_id, picker = await new_game(ann, bo)
            assert picker.to_move() == 1
            watching = await bo.open(game_id)
            await watching.expect("snapshot")
            first = await ann.open(game_id)
            await first.expect("snapshot")
            text = picker.pick()
            picker.play(text)
            await first.send(move(text, 2, "m1"))
            await first.close()
            again = await ann.open(game_id, since=2)
            start = await again.expect("catchup", "snapshot")
            assert start["type"] == "catchup", start
            seen = [event["version"] for event in start["events"]]
            # Bo answers once the move is in; Ann reads until Bo's move: anything repeated comes
            # before it, since one game's events are published in version order.
            await event_of(watching, 3)
            reply = picker.pick()
            await watching.send(move(reply, 3, "b1"))
            while 4 not in seen:
                seen.append((await again.expect("event"))["version"])
            if seen != [3, 4]:
                seen_twice.append((trial, seen))
            for socket in (watching, again):
                await socket.close()
            ann.sockets.clear()
            bo.sockets.clear()
    finally:
        await ann.close()
        await bo.close()
    assert seen_twice == [], f"{len(seen_twice)} of {TRIALS} trials repeated an event"


async def answer_of(
    visitor: TestVisitor, game_id: str, message: dict[str, Any], transport: str
) -> dict[str, Any]:
    """Send one ``move`` or ``resign`` over a new socket or its HTTP twin; the answer, shaped as
    the socket's (an HTTP error adds its ``status``)."""
    if transport == "ws":
        socket = await visitor.open(game_id)
        await socket.expect("snapshot")
        await socket.send(message)
        answer = await socket.expect("ack", "error")
        await socket.close()
        visitor.sockets.remove(socket)
        return answer
    body = {k: v for k, v in message.items() if k != "type"}
    route = "moves" if message["type"] == "move" else "resign"
    response = await visitor.http.post(f"/api/games/{game_id}/{route}", json=body)
    if response.status_code == 200:
        return {"type": "ack", "msg_id": message["msg_id"], **response.json()}
    error: dict[str, Any] = response.json()["error"]
    return {"type": "error", "status": response.status_code, "msg_id": message["msg_id"], **error}


@pytest.mark.parametrize("transport", ["ws", "http"])
async def test_a_reused_msg_id_with_another_message_is_refused(
    server: LiveServer, sessions: Any, transport: str
) -> None:
    """A ``msg_id`` answers ``duplicate: true`` only for the same message (kind, move, version);
    anything else under it is ``msg_id_reused`` and changes nothing."""
    ann, bo = await visitors(server, "Ann", "Bo")
    try:
        game_id, picker = await new_game(ann, bo)
        first = picker.pick()
        other = next(t for t in (picker.pick() for _ in range(100)) if t != first)
        picker.play(first)
        ack = await answer_of(ann, game_id, move(first, 2, "m1"), transport)
        assert ack["type"] == "ack" and ack["version"] == 3 and not ack["duplicate"]
        reply = picker.pick()
        picker.play(reply)
        assert (await answer_of(bo, game_id, move(reply, 3, "b1"), transport))["type"] == "ack"
        now = picker.pick()  # Ann's legal move at version 4
        before = await rows_of(sessions, game_id)
        reused = [
            {"type": "resign", "version": 4, "msg_id": "m1"},  # a resign under a move's id
            {"type": "resign", "msg_id": "m1"},
            move(other, 2, "m1"),  # another move, at the version of the first
            move(first, 3, "m1"),  # the same text based on another version
            move(now, 4, "m1"),  # a new legal move under an old id
        ]
        for message in reused:
            answer = await answer_of(ann, game_id, message, transport)
            assert answer["type"] == "error", (message, answer)
            assert answer["code"] == "msg_id_reused", (message, answer)
            assert answer["version"] == 4 and answer["msg_id"] == "m1"
            if transport == "http":
                assert answer["status"] == 409
        # At the game's current version too, where another refusal would also apply: Bo's old
        # id out of turn (it was not_your_turn), Ann's under a move the rules refuse.
        for who, message in ((bo, move(now, 4, "b1")), (ann, move("nowhere", 4, "m1"))):
            answer = await answer_of(who, game_id, message, transport)
            assert answer.get("code") == "msg_id_reused", (message, answer)
            assert answer["version"] == 4
        assert await rows_of(sessions, game_id) == before
        # The same message again is the duplicate it always was.
        again = await answer_of(ann, game_id, move(first, 2, "m1"), transport)
        assert (again["type"], again["version"], again["duplicate"]) == ("ack", 3, True)
        # So is the same move spelled otherwise (the server canonicalises what it is sent).
        spelled = await answer_of(ann, game_id, move(f" {first}", 2, "m1"), transport)
        assert (spelled["type"], spelled["version"], spelled["duplicate"]) == ("ack", 3, True)
        assert await rows_of(sessions, game_id) == before
        # A resign retried is a duplicate too, with or without its version.
        done = await answer_of(
            ann, game_id, {"type": "resign", "version": 4, "msg_id": "r1"}, transport
        )
        assert (done["type"], done["version"], done["duplicate"]) == ("ack", 6, False)
        for retry in (
            {"type": "resign", "version": 4, "msg_id": "r1"},
            {"type": "resign", "msg_id": "r1"},
        ):
            again = await answer_of(ann, game_id, retry, transport)
            assert (again["type"], again["version"], again["duplicate"]) == ("ack", 6, True), again
        moved = await answer_of(ann, game_id, move(now, 4, "r1"), transport)
        assert moved["code"] == "msg_id_reused" and moved["version"] == 6
    finally:
        await ann.close()
        await bo.close()


@pytest.fixture(scope="module")
def two_processes(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two uvicorn processes on one PostgreSQL database (as production runs several processes),
    with a shared Redis under a prefix of their own."""
    env = {"REDIS_URL": "redis://127.0.0.1:6379/0", "REDIS_PREFIX": f"test-{secrets.token_hex(6)}:"}
    with (
        fresh_database("postgres", tmp_path_factory.mktemp("shared")) as url,
        live_server(url, env) as one,
        live_server(url, env) as two,
    ):
        yield one, two


async def test_a_retry_on_another_process_is_a_duplicate(
    two_processes: tuple[LiveServer, LiveServer],
) -> None:
    """A move sent to one process and retried at once on another: one ``ack`` plays it, the other
    says ``duplicate: true`` with the same version; never ``stale_version``."""
    one, two = two_processes
    ann, bo = await visitors(one, "Ann", "Bo")
    elsewhere = TestVisitor(two.url)
    elsewhere.http.cookies = ann.http.cookies  # Ann, on the second process
    wrong = []
    try:
        for trial in range(50):
            game_id, picker = await new_game(ann, bo)
            here = await ann.open(game_id)
            there = await elsewhere.open(game_id)
            await here.expect("snapshot")
            await there.expect("snapshot")
            message = move(picker.pick(), 2, f"m{trial}")
            await here.send(message)
            await there.send(message)
            answers = [await here.expect("ack", "error"), await there.expect("ack", "error")]
            shapes = sorted((a["type"], a.get("version"), a.get("duplicate")) for a in answers)
            if shapes != [("ack", 3, False), ("ack", 3, True)]:
                wrong.append((trial, answers))
            for socket in (here, there):
                await socket.close()
            ann.sockets.clear()
            elsewhere.sockets.clear()
    finally:
        await ann.close()
        await bo.close()
        await elsewhere.close()
    assert wrong == [], f"{len(wrong)} of 50 retries were not a duplicate: {wrong[:3]}"
