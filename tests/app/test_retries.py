"""Honest retries and catch-up: a reconnect never repeats an event, a retry is a duplicate only when
it is the same message, and that holds across processes.

Real uvicorn processes, real websocket clients, on SQLite and PostgreSQL (``backend``). The races
are run many times: each trial is a fresh game.
"""

from __future__ import annotations

import secrets
from typing import Any

from tests.support.gameplay import MovePicker, quick_game
from tests.support.server import LiveServer
from tests.support.wsclient import GameSocket, TestVisitor

TRIALS = 60


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
