"""Playing the computer through real servers (issue 29, "Bots"): a bot game made over HTTP, a
person's moves sent on the game socket, the bot's answers received there; the bots' accounts and
list; and, on PostgreSQL and Redis, two processes of which exactly one plays each bot move, and
the other taking the game over once the first is killed."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.db import make_engine, make_sessionmaker
from app.main import create_app
from app.models import Event, Lease
from tests.app.conftest import ClientFactory, make_settings
from tests.support.contract import checked
from tests.support.databases import fresh_database
from tests.support.gameplay import MovePicker, quick_game, start_game
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer
from tests.support.wsclient import GameSocket, TestVisitor

REDIS = "redis://127.0.0.1:6379/0"
LEVELS = ["beginner", "easy", "medium", "hard"]


async def new_bot_game(
    visitor: TestVisitor, seat: int | str = 1, level: str = "beginner", **extra: Any
) -> dict[str, Any]:
    slug, options = quick_game()
    body = {"game": slug, "options": options, "level": level, "seat": seat, **extra}
    response = await visitor.http.post("/api/bots/games", json=body)
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


async def bot_reply(socket: GameSocket, picker: MovePicker, bot_seat: int) -> int:
    """Wait for the bot's move on ``socket`` (skipping the person's own move's event), follow it
    in ``picker``; the version after it."""
    while True:
        event = await socket.expect("event")
        if event["kind"] == "move" and event["data"]["seat"] == bot_seat:
            picker.play(event["data"]["move"])
            return int(event["version"])
        if event["kind"] == "result":
            raise AssertionError(f"the game ended: {event['data']}")


async def my_move(socket: GameSocket, picker: MovePicker, version: int, n: int) -> int:
    """Play a random legal move of the person's; the version after it."""
    text = picker.pick()
    msg_id = f"m{version}-{n}"
    await socket.send({"type": "move", "move": text, "version": version, "msg_id": msg_id})
    answer = await socket.expect("ack", "error")
    assert answer["type"] == "ack", answer
    picker.play(text)
    return int(answer["version"])


async def play_some(
    socket: GameSocket, picker: MovePicker, version: int, my_seat: int, turns: int
) -> int:
    """Alternate the person's moves and the bot's replies for ``turns`` moves of each (fewer if the
    game ends); the version reached."""
    for n in range(turns):
        if picker.to_move() is None:
            break
        if picker.to_move() == my_seat:
            version = await my_move(socket, picker, version, n)
        if picker.to_move() is None:
            break
        version = await bot_reply(socket, picker, 3 - my_seat)
    return version


async def test_a_person_plays_the_beginner_bot_on_the_game_socket(server: LiveServer) -> None:
    ann = await TestVisitor(server.url).start("Ann")
    try:
        made = await new_bot_game(ann, seat=1)
        socket = await ann.open(made["id"])
        snapshot = await socket.expect("snapshot")
        assert snapshot["game"]["status"] == "active" and snapshot["you"]["seat"] == 1
        bot = snapshot["game"]["players"][1]
        assert bot["name"] == "Beginner bot" and bot["account"] == "Hexmoot-Beginner"
        slug, options = quick_game()
        picker = MovePicker(slug, options, seed=5)
        version = await play_some(socket, picker, snapshot["version"], 1, 4)
        assert version >= 2 + 6
        # The record is what was played, the bot's moves included, through the same path.
        record = (await ann.http.get(f"/api/games/{made['id']}")).json()
        assert record["game"]["moves"] == picker.moves
    finally:
        await ann.close()


async def test_the_bot_moves_at_once_when_it_has_the_first_move(server: LiveServer) -> None:
    bo = await TestVisitor(server.url).start("Bo")
    try:
        made = await new_bot_game(bo, seat=2, level="easy")
        assert made["seat"] == 2
        socket = await bo.open(made["id"])
        snapshot = await socket.expect("snapshot")
        slug, options = quick_game()
        picker = MovePicker(slug, options, seed=1)
        if snapshot["game"]["moves"]:  # it moved before the socket opened
            for text in snapshot["game"]["moves"]:
                picker.play(text)
            assert snapshot["version"] == 3
        else:
            assert await bot_reply(socket, picker, 1) == 3
        assert len(picker.moves) == 1
    finally:
        await bo.close()


async def test_the_bots_are_accounts_nobody_logs_into(server: LiveServer) -> None:
    cy = await TestVisitor(server.url).start("Cy")
    try:
        listed = (await cy.http.get("/api/bots")).json()["bots"]
        assert [b["level"] for b in listed] == LEVELS
        assert {g["game"] for g in listed[0]["games"]} >= {quick_game()[0]}
        assert listed[0]["games"][0]["algorithm"] == "greedy"
        assert listed[3]["games"][0]["algorithm"] == "mcts"
        for bot in listed:
            profile = await cy.http.get(f"/api/players/{bot['username']}")
            assert profile.status_code == 200, profile.text
            login = await cy.http.post(
                "/api/account/login", json={"username": bot["username"], "password": "!bot"}
            )
            assert login.status_code == 401 and login.json()["error"]["code"] == "bad_credentials"
        page = await cy.http.get("/bots")
        assert page.status_code == 200 and "Hexmoot-Hard" in page.text
    finally:
        await cy.close()


async def test_a_bot_game_is_refused_as_a_person_s_game_would_be(server: LiveServer) -> None:
    dee = await TestVisitor(server.url).start("Dee")
    try:
        answers = [
            (await dee.http.post("/api/bots/games", json=body))
            for body in (
                {"game": "nope"},
                {"game": quick_game()[0], "level": "grandmaster"},
                {"game": quick_game()[0], "rated": True},
                {"game": quick_game()[0], "time_control": {"kind": "realtime", "base": 1}},
            )
        ]
        codes = [(a.status_code, a.json()["error"]["code"]) for a in answers]
        assert codes == [
            (422, "unknown_game"),
            (422, "invalid_request"),
            (403, "account_required"),
            (422, "bad_option"),
        ]
    finally:
        await dee.close()


async def test_a_realtime_bot_game_starts_with_the_bot_present(server: LiveServer) -> None:
    """The bot has no socket: it must not be "away" (claimable) in a real-time game."""
    eve = await TestVisitor(server.url).start("Eve")
    try:
        control = {"kind": "realtime", "base": 300, "increment": 5}
        made = await new_bot_game(eve, seat=1, time_control=control)
        socket = await eve.open(made["id"])
        snapshot = await socket.expect("snapshot")
        assert snapshot["game"]["away"][1] is None
        claim = await eve.http.post(f"/api/games/{made['id']}/claim")
        assert claim.status_code == 409 and claim.json()["error"]["code"] == "cannot_claim"
        slug, options = quick_game()
        picker = MovePicker(slug, options, seed=9)
        await play_some(socket, picker, snapshot["version"], 1, 2)
    finally:
        await eve.close()


async def poll(condition: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < end, f"not in time: {what}"
        await asyncio.sleep(0.05)


@pytest.fixture
async def alone(backend: str, tmp_path: Path) -> AsyncIterator[FastAPI]:
    """An app on a database of its own: no other process (the module's live server) can take its
    bot games' leases, so this process's counters say what its driver did."""
    with fresh_database(backend, tmp_path) as url:
        application = create_app(make_settings(url))
        async with application.router.lifespan_context(application):
            yield application


async def test_a_bot_move_for_a_game_that_moved_on_is_dropped(alone: FastAPI) -> None:
    """Ann moves, then resigns while the Hard bot searches its answer (a search of thousands of
    simulations, against one HTTP request): the bot's move, based on the version before the
    resignation, is refused and dropped; the game ends resigned by Ann, with no move of the bot's
    after it. (Should the bot ever answer before the resignation, its move is played instead: the
    test then checks the same invariants, one bot move at most.)"""
    bots = alone.state.service.bots
    played, dropped, searches = bots.played, bots.dropped, bots.pool.calls
    transport = httpx.ASGITransport(app=alone)
    async with checked(httpx.AsyncClient(transport=transport, base_url="http://testserver")) as ann:
        await ann.put("/api/me", json={"name": "Ann"})
        slug, options = "exxit", {}
        made = await ann.post(
            "/api/bots/games", json={"game": slug, "options": options, "level": "hard", "seat": 1}
        )
        assert made.status_code == 201, made.text
        game_id = made.json()["id"]
        picker = MovePicker(slug, options, seed=2)
        moved = await ann.post(
            f"/api/games/{game_id}/moves",
            json={"move": picker.pick(), "version": 2, "msg_id": "a1"},
        )
        assert moved.status_code == 200, moved.text
        # Resign once the search has begun: resigning before it (a busy machine can be that
        # slow to wake the driver) would leave the bot nothing to decide at all.
        await poll(lambda: bots.pool.calls > searches, "the bot's search to begin")
        resigned = await ann.post(f"/api/games/{game_id}/resign", json={"msg_id": "r1"})
        assert resigned.status_code == 200, resigned.text
        await poll(lambda: bots.played + bots.dropped > played + dropped, "the bot's decision")
        snapshot = (await ann.get(f"/api/games/{game_id}")).json()
        assert snapshot["game"]["status"] == "finished"
        assert snapshot["game"]["result"]["reason"] == "resignation"
        assert snapshot["game"]["result"]["winner"] == 2
        assert len(snapshot["game"]["moves"]) == 1 + (bots.played - played)
        assert bots.played - played + bots.dropped - dropped == 1


async def test_the_bot_declines_a_draw_and_accepts_a_takeback_and_a_rematch(
    clients: ClientFactory,
) -> None:
    gil = await clients("Gil")
    slug, options = quick_game()
    made = await gil.post(
        "/api/bots/games", json={"game": slug, "options": options, "level": "beginner", "seat": 1}
    )
    game_id = made.json()["id"]
    picker = MovePicker(slug, options, seed=8)

    async def game() -> dict[str, Any]:
        snapshot: dict[str, Any] = (await gil.get(f"/api/games/{game_id}")).json()
        return snapshot

    async def until(check: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        end = time.monotonic() + PATIENCE
        while not check(snapshot := await game()):
            assert time.monotonic() < end, f"not in time: {what}"
            await asyncio.sleep(0.05)
        return snapshot

    for _ in range(2):  # Gil's move, the bot's answer, twice (the pie's setup and choice first)
        snapshot = await game()
        text = picker.pick()
        body = {"move": text, "version": snapshot["version"], "msg_id": f"g{len(picker.moves)}"}
        assert (await gil.post(f"/api/games/{game_id}/moves", json=body)).status_code == 200
        picker.play(text)
        snapshot = await until(lambda s: len(s["game"]["moves"]) > len(picker.moves), "a reply")
        picker.play(snapshot["game"]["moves"][-1])
    if snapshot["game"]["to_move"] != 1:  # the bot moves again after its pie choice
        snapshot = await until(lambda s: s["game"]["to_move"] == 1, "the bot's move")

    offered = await gil.post(f"/api/games/{game_id}/offer", json={"kind": "draw"})
    assert offered.status_code == 200, offered.text
    snapshot = await until(lambda s: s["game"]["offer"] is None, "the draw declined")
    assert snapshot["game"]["declined"] == {"kind": "draw", "seat": 2}
    assert snapshot["game"]["status"] == "active"

    plies = len(snapshot["game"]["moves"])
    asked = await gil.post(f"/api/games/{game_id}/offer", json={"kind": "takeback"})
    assert asked.status_code == 200, asked.text
    snapshot = await until(lambda s: len(s["game"]["moves"]) < plies, "the takeback accepted")
    assert snapshot["game"]["offer"] is None and snapshot["game"]["status"] == "active"

    assert (await gil.post(f"/api/games/{game_id}/resign", json={"msg_id": "r"})).status_code == 200
    asked = await gil.post(f"/api/games/{game_id}/offer", json={"kind": "rematch"})
    assert asked.status_code == 200, asked.text
    snapshot = await until(lambda s: s["game"]["rematch_id"] is not None, "the rematch accepted")
    rematch = (await gil.get(f"/api/games/{snapshot['game']['rematch_id']}")).json()
    assert rematch["game"]["status"] == "active"
    assert [p["account"] for p in rematch["game"]["players"]] == ["Hexmoot-Beginner", None]
    # The bot has the first move of the rematch, and makes it.
    end = time.monotonic() + PATIENCE
    while not (await gil.get(f"/api/games/{rematch['game']['id']}")).json()["game"]["moves"]:
        assert time.monotonic() < end, "the bot's first move of the rematch"
        await asyncio.sleep(0.05)


async def test_the_archive_marks_and_filters_the_games_against_a_bot(
    clients: ClientFactory,
) -> None:
    ann, bo = await clients("Ann"), await clients("Bo")
    slug, options = quick_game()
    made = await ann.post(
        "/api/bots/games", json={"game": slug, "options": options, "level": "medium", "seat": 2}
    )
    against_bot = made.json()["id"]
    people = (await start_game(ann, bo, slug, options))["id"]
    for game_id in (against_bot, people):
        resigned = await ann.post(f"/api/games/{game_id}/resign", json={"msg_id": "bye"})
        assert resigned.status_code == 200, resigned.text

    async def listed(query: str) -> dict[str, bool]:
        answer = await ann.get(f"/api/archive?limit=100{query}")
        assert answer.status_code == 200, answer.text
        return {g["id"]: g["bot"] for g in answer.json()["games"]}

    everything = await listed("")
    assert everything[against_bot] is True and everything[people] is False
    with_bots, without = await listed("&bot=true"), await listed("&bot=false")
    assert against_bot in with_bots and people not in with_bots
    assert people in without and against_bot not in without
    assert all(with_bots.values()) and not any(without.values())
    refused = await ann.get("/api/archive?bot=yes")
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "bot"


async def test_a_visitor_plays_a_few_bot_games_at_once_at_most(database_url: str) -> None:
    """BOT_GAMES_PER_VISITOR: the third game at once is refused; one resigned frees its place."""
    application = create_app(make_settings(database_url, bot_games_per_visitor=2))
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        client = httpx.AsyncClient(transport=transport, base_url="http://testserver")
        async with checked(client) as fay:
            slug, options = quick_game()
            body = {"game": slug, "options": options, "level": "beginner", "seat": 1}
            made = [await fay.post("/api/bots/games", json=body) for _ in range(3)]
            assert [m.status_code for m in made] == [201, 201, 429]
            assert made[2].json()["error"]["code"] == "rate_limited"
            assert made[2].headers["Retry-After"] == "60"
            first = made[0].json()["id"]
            resigned = await fay.post(f"/api/games/{first}/resign", json={"msg_id": "r"})
            assert resigned.status_code == 200, resigned.text
            assert (await fay.post("/api/bots/games", json=body)).status_code == 201


# --- two processes on PostgreSQL and Redis ------------------------------------------------------


@pytest.fixture
def cluster_env() -> dict[str, str]:
    return {
        "REDIS_URL": REDIS,
        "REDIS_PREFIX": f"test-{secrets.token_hex(4)}:",
        "BOT_LEASE": "1",
        "BOT_SWEEP_EVERY": "0.2",
    }


@pytest.fixture
def postgres_url(tmp_path: Path) -> Iterator[str]:
    with fresh_database("postgres", tmp_path) as url:
        yield url


async def moves_by_seat(database_url: str, game_id: str) -> list[tuple[int, int]]:
    """(version, seat) of every move event of the game, in order."""
    engine = make_engine(database_url)
    try:
        async with make_sessionmaker(engine)() as session:
            rows = await session.execute(
                select(Event.version, Event.payload)
                .where(Event.game_id == game_id, Event.kind == "move")
                .order_by(Event.version)
            )
            return [(version, payload["seat"]) for version, payload in rows.all()]
    finally:
        await engine.dispose()


async def lease_owner(database_url: str, game_id: str) -> str | None:
    engine = make_engine(database_url)
    try:
        async with make_sessionmaker(engine)() as session:
            lease = await session.get(Lease, f"bot:{game_id}")
            return None if lease is None else lease.owner
    finally:
        await engine.dispose()


async def test_two_processes_play_each_bot_move_once_and_take_over_a_killed_driver(
    postgres_url: str, cluster_env: dict[str, str]
) -> None:
    one, two = LiveServer(postgres_url, cluster_env), LiveServer(postgres_url, cluster_env)
    one.start()
    visitors: list[TestVisitor] = []
    try:
        ann = await TestVisitor(one.url).start("Ann")
        visitors.append(ann)
        made = await new_bot_game(ann, seat=1)
        slug, options = quick_game()
        picker = MovePicker(slug, options, seed=11)
        socket = await ann.open(made["id"])
        version = (await socket.expect("snapshot"))["version"]
        # Process one alone: it drives the game, and holds its lease.
        version = await play_some(socket, picker, version, 1, 1)
        first_owner = await lease_owner(postgres_url, made["id"])
        assert first_owner is not None

        # Process two joins; Ann plays on it, watched from one: every bot turn gets one move.
        two.start()
        on_two = TestVisitor(two.url)
        visitors.append(on_two)
        on_two.http.cookies = ann.http.cookies
        socket_two = await on_two.open(made["id"])
        await socket_two.expect("snapshot")
        version = await play_some(socket_two, picker, version, 1, 3)

        # The driver is killed outright; two takes the game over once the lease lapses.
        one.kill()
        version = await play_some(socket_two, picker, version, 1, 2)
        assert await lease_owner(postgres_url, made["id"]) not in (None, first_owner)
        assert "Traceback" not in two.log(), two.log()[-4000:]
    finally:
        for visitor in visitors:
            await visitor.close()
        two.stop()
        one.stop()
    # Exactly one move per turn: the seats alternate, one version each, and the record is ours.
    moves = await moves_by_seat(postgres_url, made["id"])
    assert [seat for _, seat in moves] == [1 + i % 2 for i in range(len(moves))]
    assert [version for version, _ in moves] == list(range(3, 3 + len(moves)))
    assert len(moves) == len(picker.moves)
