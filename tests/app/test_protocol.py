"""The websocket protocol against a real uvicorn process, with real websocket clients.

Runs on SQLite and on PostgreSQL (the ``backend`` fixture). Each case is in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from typing import Any

import httpx
import pytest
import websockets
from fastapi import FastAPI

import games
from app.db import make_engine, make_sessionmaker
from app.domain.clock import FakeClock
from app.main import create_app
from app.runtime.hub import game_channel
from app.schemas import SERVER_MESSAGE
from games.record import replay
from tests.app.conftest import make_settings
from tests.support.contract import checked, contract
from tests.support.databases import fresh_database
from tests.support.gameplay import (
    MovePicker,
    assert_each_event_once,
    quick_game,
    rows_of,
    smallest_options,
)
from tests.support.gameplay import start_game as start_http_game
from tests.support.server import LiveServer, live_server
from tests.support.wsclient import GameSocket, TestVisitor


@pytest.fixture(scope="module")
def strict_server(database_url: str) -> Iterator[LiveServer]:
    """A second process on the same database with small limits, to reach them quickly."""
    env = {
        "WS_RATE_MESSAGES": "8",
        "WS_RATE_WINDOW": "60",
        "WS_IDLE_TIMEOUT": "1",
        "WS_MAX_SOCKETS_PER_VISITOR": "2",
        "WS_RESYNC_GAP": "1",
    }
    with live_server(database_url, env) as running:
        yield running


@pytest.fixture
async def sessions(database_url: str) -> AsyncIterator[Any]:
    engine = make_engine(database_url)
    yield make_sessionmaker(engine)
    await engine.dispose()


async def visitors(server: LiveServer, *names: str) -> list[TestVisitor]:
    return [await TestVisitor(server.url).start(name) for name in names]


async def start_game(
    ann: TestVisitor, bo: TestVisitor, slug: str, options: dict[str, Any], public: bool = True
) -> dict[str, Any]:
    created = await ann.http.post(
        "/api/games", json={"game": slug, "options": options, "seat": 1, "public": public}
    )
    assert created.status_code == 201, created.text
    body: dict[str, Any] = created.json()
    joined = await bo.http.post(f"/api/games/{body['id']}/join", json={"token": body["join_token"]})
    assert joined.status_code == 200, joined.text
    return body


def assert_documented(messages: list[dict[str, Any]]) -> None:
    """Every message fits its model in ``app.schemas`` (the models docs/protocol.md shows), and its
    JSON Schema with every object closed (``tests/support/contract.py``)."""
    for message in messages:
        SERVER_MESSAGE.validate_python(message)
        contract().check_message(message)


async def play_move(socket: GameSocket, text: str, version: int, msg_id: str) -> dict[str, Any]:
    await socket.send({"type": "move", "move": text, "version": version, "msg_id": msg_id})
    answer = await socket.expect("ack", "error")
    assert answer["type"] == "ack", answer
    assert answer["msg_id"] == msg_id
    return answer


@pytest.mark.parametrize("slug", games.names())
async def test_two_players_and_two_spectators_play_a_whole_game(
    server: LiveServer, slug: str
) -> None:
    ann, bo, carl, dee = await visitors(server, "Ann", "Bo", "Carl", "Dee")
    options = smallest_options(slug)
    try:
        body = await start_game(ann, bo, slug, options)
        game_id = body["id"]
        sockets = {
            "Ann": await ann.open(game_id),
            "Bo": await bo.open(game_id),
            "Carl": await carl.open(game_id),
            "Dee": await dee.open(game_id),
        }
        for who, socket in sockets.items():
            snapshot = await socket.expect("snapshot")
            assert snapshot["version"] == 2
            assert snapshot["game"]["status"] == "active"
            assert snapshot["you"]["seat"] == {"Ann": 1, "Bo": 2}.get(who)
            assert snapshot["view"]["game"] == slug
        picker = MovePicker(slug, options, seed=zlib.crc32(slug.encode()))
        players = {1: sockets["Ann"], 2: sockets["Bo"]}
        version = 2
        while (seat := picker.to_move()) is not None:
            text = picker.pick()
            ack = await play_move(players[seat], text, version, f"m{len(picker.moves)}")
            picker.play(text)
            version = ack["version"]
        outcome = picker.rules.outcome(picker.state)
        assert outcome is not None
        for who, socket in sockets.items():
            while not socket.events() or socket.events()[-1]["version"] < version:
                await socket.expect("event")
            events = socket.events()
            assert_each_event_once([e["version"] for e in events], 2, version, who)
            moves = [e["data"]["move"] for e in events if e["kind"] == "move"]
            assert moves == picker.moves, who
            assert events[-1]["kind"] == "result"
            assert events[-1]["data"] == outcome.to_json()
            assert events[-1]["state"]["status"] == "finished"
        archive = (await carl.http.get("/api/archive", params={"game": slug, "limit": 100})).json()
        assert game_id in [g["id"] for g in archive["games"]]
        record = (await dee.http.get(f"/games/{game_id}/record.json")).json()
        assert record["moves"] == picker.moves
        final = replay(record)
        assert picker.rules.outcome(final) == outcome
        assert record["result"] == outcome.to_json()
        for socket in sockets.values():
            assert_documented(socket.log)
    finally:
        for visitor in (ann, bo, carl, dee):
            await visitor.close()


async def test_bad_inputs_get_precise_errors_and_change_nothing(
    server: LiveServer, sessions: Any
) -> None:
    ann, bo, carl = await visitors(server, "Ann", "Bo", "Carl")
    slug, options = quick_game()
    try:
        body = await start_game(ann, bo, slug, options)
        game_id = body["id"]
        a, b, c = await ann.open(game_id), await bo.open(game_id), await carl.open(game_id)
        for socket in (a, b, c):
            await socket.expect("snapshot")
        picker = MovePicker(slug, options, seed=3)
        version = 2
        seats = {1: a, 2: b}
        said: dict[int, str] = {}  # each seat's last message id
        for i in range(2):
            seat = picker.to_move()
            assert seat is not None
            text = picker.pick()
            version = (await play_move(seats[seat], text, version, f"ok{i}"))["version"]
            picker.play(text)
            said[seat] = f"ok{i}"
        seat = picker.to_move()
        assert seat is not None
        mover, waiter = seats[seat], seats[3 - seat]
        legal = picker.pick()
        illegal = picker.illegal()
        before = await rows_of(sessions, game_id)
        matrix: list[tuple[GameSocket, Any, str]] = [
            (mover, "{not json", "bad_json"),
            (mover, "[1, 2]", "bad_json"),
            (mover, {"type": "castle", "msg_id": "t1"}, "unknown_type"),
            (mover, {"move": legal}, "unknown_type"),
            (mover, "x" * (16 * 1024 + 1), "message_too_large"),
            (mover, {"type": "move", "move": legal, "msg_id": "t2"}, "bad_message"),
            (mover, {"type": "move", "move": legal, "version": "3", "msg_id": "t3"}, "bad_message"),
            (mover, {"type": "move", "move": legal, "version": version}, "bad_message"),
            (
                waiter,
                {"type": "move", "move": legal, "version": version, "msg_id": "t4"},
                "not_your_turn",
            ),
            (
                c,
                {"type": "move", "move": legal, "version": version, "msg_id": "t5"},
                "not_a_player",
            ),
            (c, {"type": "resign", "version": version, "msg_id": "t6"}, "not_a_player"),
            (
                mover,
                {"type": "move", "move": "@@", "version": version, "msg_id": "t7"},
                "invalid_move",
            ),
            (
                mover,
                {"type": "move", "move": legal, "version": version - 1, "msg_id": "t8"},
                "stale_version",
            ),
            (mover, {"type": "steps", "prefix": ["nowhere"], "msg_id": "t9"}, "illegal_steps"),
        ]
        if seat in said:  # a new move under the id of an earlier one of the same player
            matrix.append(
                (
                    mover,
                    {"type": "move", "move": legal, "version": version, "msg_id": said[seat]},
                    "msg_id_reused",
                )
            )
        if illegal is not None:
            matrix.append(
                (
                    mover,
                    {"type": "move", "move": illegal, "version": version, "msg_id": "t10"},
                    "illegal_move",
                )
            )
        for socket, message, code in matrix:
            await socket.send(message)
            answer = await socket.expect("error", "ack", "steps")
            assert answer["type"] == "error" and answer["code"] == code, (message, answer)
            if isinstance(message, dict) and "msg_id" in message:
                assert answer["msg_id"] == message["msg_id"]
            if code in ("stale_version", "msg_id_reused"):
                assert answer["version"] == version
        # A replayed message id gets the original ack, not an error and not a second move.
        await seats[1].send(
            {"type": "move", "move": picker.moves[0], "version": 2, "msg_id": "ok0"}
        )
        duplicate = await seats[1].expect("ack", "error")
        assert duplicate == {"type": "ack", "msg_id": "ok0", "version": 3, "duplicate": True}
        assert await rows_of(sessions, game_id) == before
        # Nobody saw an event for any of this.
        await mover.send({"type": "ping"})
        assert (await mover.expect("pong"))["type"] == "pong"
        assert [e["version"] for e in mover.events()] == [3, 4]
        # Resign, resign twice, move after the end.
        await mover.send({"type": "resign", "version": version, "msg_id": "bye"})
        resigned = await mover.expect("ack", "error")
        assert resigned["type"] == "ack" and resigned["version"] == version + 2
        after = await rows_of(sessions, game_id)
        await mover.send({"type": "resign", "version": version + 2, "msg_id": "bye2"})
        assert (await mover.expect("error"))["code"] == "game_over"
        await waiter.send({"type": "move", "move": legal, "version": version + 2, "msg_id": "late"})
        assert (await waiter.expect("error"))["code"] == "game_over"
        assert await rows_of(sessions, game_id) == after
        # Joining the full game and a bad token, over HTTP.
        full = await carl.http.post(
            f"/api/games/{game_id}/join", json={"token": body["join_token"]}
        )
        assert full.json()["error"]["code"] == "game_full"
        assert await rows_of(sessions, game_id) == after
        for socket in (a, b, c):
            assert_documented(socket.log)
    finally:
        for visitor in (ann, bo, carl):
            await visitor.close()


async def test_unknown_and_private_games_are_refused(server: LiveServer) -> None:
    ann, bo, eve = await visitors(server, "Ann", "Bo", "Eve")
    slug, options = quick_game()
    try:
        body = await start_game(ann, bo, slug, options, public=False)
        for visitor, game_id in ((eve, "nosuchgame"), (eve, body["id"])):
            socket = await visitor.open(game_id)
            error = await socket.expect("error")
            assert error["code"] == "game_not_found"
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await socket.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404
        watcher = await eve.open(body["id"], token=body["join_token"])
        snapshot = await watcher.expect("snapshot")
        assert snapshot["you"]["seat"] is None and snapshot["game"]["public"] is False
    finally:
        for visitor in (ann, bo, eve):
            await visitor.close()


async def test_reconnect_with_since_gets_what_was_missed(server: LiveServer) -> None:
    ann, bo = await visitors(server, "Ann", "Bo")
    slug, options = quick_game()
    try:
        body = await start_game(ann, bo, slug, options)
        game_id = body["id"]
        a, b = await ann.open(game_id), await bo.open(game_id)
        await a.expect("snapshot")
        await b.expect("snapshot")
        await b.close()
        picker = MovePicker(slug, options, seed=5)
        version = 2
        for i in range(3):
            seat = picker.to_move()
            text = picker.pick()
            socket = a if seat == 1 else await bo.open(game_id)
            if seat == 2:
                await socket.expect("snapshot")
            version = (await play_move(socket, text, version, f"r{i}"))["version"]
            picker.play(text)
            if seat == 2:
                await socket.close()
        again = await bo.open(game_id, since=2)
        catchup = await again.expect("catchup", "snapshot")
        assert catchup["type"] == "catchup" and catchup["since"] == 2
        assert catchup["version"] == version
        assert [e["data"]["move"] for e in catchup["events"]] == picker.moves
        assert catchup["state"]["ply_count"] == 3
        assert catchup["you"]["seat"] == 2
        current = await bo.open(game_id, since=version)
        assert (await current.expect("catchup"))["events"] == []
        ahead = await bo.open(game_id, since=version + 50)
        assert (await ahead.expect("catchup", "snapshot"))["type"] == "snapshot"
    finally:
        await ann.close()
        await bo.close()


async def test_limits_rate_size_sockets_idle_and_resync(strict_server: LiveServer) -> None:
    ann, bo = await visitors(strict_server, "Ann", "Bo")
    slug, options = quick_game()
    try:
        body = await start_game(ann, bo, slug, options)
        game_id = body["id"]
        first = await ann.open(game_id)
        await first.expect("snapshot")
        second = await ann.open(game_id)
        await second.expect("snapshot")
        third = await ann.open(game_id)
        error = await third.expect("error")
        assert error["code"] == "too_many_sockets"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await third.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        await second.close()
        codes = []
        for _ in range(10):
            await first.send({"type": "ping"})
            codes.append((await first.expect("pong", "error")).get("code"))
        assert codes[:7] == [None] * 7 and codes[-1] == "rate_limited"
        # Silent for longer than the idle timeout (1 s here): the server closes the socket.
        idle = await bo.open(game_id)
        await idle.expect("snapshot")
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await idle.recv(wait=30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4000
        # A gap larger than the resync limit (1 here) gets a snapshot instead of a catchup.
        late = await bo.open(game_id, since=0)
        assert (await late.expect("catchup", "snapshot"))["type"] == "snapshot"
    finally:
        await ann.close()
        await bo.close()


async def test_spectator_count_and_the_live_channel(server: LiveServer) -> None:
    ann, bo, carl = await visitors(server, "Ann", "Bo", "Carl")
    slug, options = quick_game()
    try:
        async with websockets.connect(server.ws_url + "/ws/live") as live:
            listing = json.loads(await live.recv())
            assert listing["type"] == "live"
            assert_documented([listing])
            body = await start_game(ann, bo, slug, options)
            game_id = body["id"]
            created = json.loads(await live.recv())  # it joins the open list, then starts
            assert created["type"] == "open_update" and created["game"]["id"] == game_id
            started = json.loads(await live.recv())
            assert started["type"] == "live_update" and started["game"]["id"] == game_id
            assert started["game"]["moves"] == 0
            a = await ann.open(game_id)
            await a.expect("snapshot")
            watcher = await carl.open(game_id)
            assert (await watcher.expect("snapshot"))["spectators"] == 1
            assert (await a.expect("spectators"))["count"] == 1
            picker = MovePicker(slug, options, seed=9)
            text = picker.pick()
            await play_move(a, text, 2, "l1")
            while True:
                update = json.loads(await live.recv())
                if update["type"] == "live_update" and update["game"]["id"] == game_id:
                    break
            assert update["game"]["moves"] == 1 and update["game"]["view"]["game"] == slug
            listed = (await carl.http.get("/api/live")).json()["games"]
            assert game_id in [g["id"] for g in listed]
            await watcher.close()
            assert (await a.expect("spectators"))["count"] == 0
            await a.send({"type": "resign", "version": 3, "msg_id": "end"})
            while True:
                update = json.loads(await live.recv())
                if update["type"] == "live_end" and update["id"] == game_id:
                    break
            assert update["result"]["reason"] == "resignation"
            assert_documented([started, update])
            await live.send(json.dumps({"type": "move", "move": "a1", "version": 1, "msg_id": "x"}))
            refused = json.loads(await live.recv())
            assert refused["code"] == "unknown_type" and "live socket" in refused["message"]
            assert_documented([refused])
    finally:
        for visitor in (ann, bo, carl):
            await visitor.close()


async def test_http_and_socket_share_one_identity(server: LiveServer) -> None:
    visitor = await TestVisitor(server.url).start("Zed")
    try:
        me = (await visitor.http.get("/api/me")).json()
        assert me["name"] == "Zed"
        async with checked(httpx.AsyncClient()) as stranger:
            anonymous = (await stranger.get(server.url + "/api/me")).json()
        assert anonymous["id"] != me["id"]
    finally:
        await visitor.close()


async def test_the_server_ends_idle_games_by_itself(
    backend: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The abandonment sweep runs on its timer: nobody calls it here. The app runs in-process on a
    fake clock that the test moves on, so no real time is waited for."""
    clock = FakeClock()
    with fresh_database(backend, tmp_path_factory.mktemp("abandon")) as url:
        settings = make_settings(url, abandon_after=1.5, abandon_check_every=0.2)
        app = create_app(settings, clock=clock)
        async with app.router.lifespan_context(app), AsyncExitStack() as stack:
            ann, bo = [
                await stack.enter_async_context(_named_client(app, name)) for name in ("Ann", "Bo")
            ]
            slug, options = quick_game()
            body = await start_http_game(ann, bo, slug, options)
            channel = app.state.hub.subscribe(game_channel(body["id"]))
            heard = await stack.enter_async_context(channel)
            text = MovePicker(slug, options, seed=9).pick()
            moved_at = clock.now()
            move = {"move": text, "version": 2, "msg_id": "only"}
            answer = await ann.post(f"/api/games/{body['id']}/moves", json=move)
            assert answer.status_code == 200, answer.text

            async def next_event() -> dict[str, Any]:
                # Move the fake time on while waiting: the sweeper wakes on its own timer.
                while True:
                    clock.advance(settings.abandon_check_every)
                    with contextlib.suppress(TimeoutError):
                        event: dict[str, Any] = json.loads(
                            await asyncio.wait_for(heard.get(), 0.02) or "{}"
                        )
                        return event

            # Seat 2 never answers: the game ends with seat 1, who was waiting, the winner.
            ended = await asyncio.wait_for(next_event(), 20)
            while ended["kind"] != "result":
                ended = await asyncio.wait_for(next_event(), 20)
            assert ended["data"]["reason"] == "abandoned" and ended["data"]["winner"] == 1
            assert ended["state"]["status"] == "finished"
            record = (await ann.get(f"/games/{body['id']}/record.json")).json()
            assert record["moves"] == [text] and record["result"]["reason"] == "abandoned"
            snapshot = (await ann.get(f"/api/games/{body['id']}")).json()
            assert snapshot["game"]["last_activity"] - moved_at >= 1500  # not before its time


@contextlib.asynccontextmanager
async def _named_client(app: FastAPI, name: str) -> AsyncIterator[httpx.AsyncClient]:
    """A visitor of the in-process ``app`` with its own cookie jar, named ``name``."""
    transport = httpx.ASGITransport(app=app)
    client = checked(httpx.AsyncClient(transport=transport, base_url="http://testserver"))
    async with client:
        assert (await client.put("/api/me", json={"name": name})).status_code == 200
        yield client
