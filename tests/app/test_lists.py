"""The open and live lists (issue 15, package "lists"), on SQLite and PostgreSQL: each entry says
when its game last moved, games idle for longer than ``LIVE_IDLE_AFTER`` leave both lists, and the
live feed carries the open list too (created, joined, cancelled), so the lobby polls nothing.

The app runs in-process on a :class:`FakeClock` that only the tests move: half an hour passes in no
time, and every stamp is known exactly.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.domain.clock import FakeClock
from app.main import create_app
from app.runtime.hub import LIVE_CHANNEL, Subscription
from app.schemas import SERVER_MESSAGE
from app.services import Visitor
from tests.app.conftest import make_settings
from tests.support.contract import contract
from tests.support.gameplay import MovePicker, quick_game

IDLE = 1800.0  # the default LIVE_IDLE_AFTER


@pytest.fixture(scope="module")
def clock() -> Iterator[FakeClock]:
    yield FakeClock()


@pytest.fixture(scope="module")
async def clocked(database_url: str, clock: FakeClock) -> AsyncIterator[FastAPI]:
    application = create_app(make_settings(database_url), clock=clock)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def people(clocked: FastAPI) -> AsyncIterator[Any]:
    made: list[httpx.AsyncClient] = []

    async def make(name: str) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=clocked)
        client = httpx.AsyncClient(transport=transport, base_url="http://testserver")
        made.append(client)
        assert (await client.put("/api/me", json={"name": name})).status_code == 200
        return client

    yield make
    for client in made:
        await client.aclose()


async def create(client: httpx.AsyncClient, public: bool = True) -> dict[str, Any]:
    slug, options = quick_game()
    body = {"game": slug, "options": options, "seat": 1, "public": public}
    response = await client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def ids(client: httpx.AsyncClient, path: str) -> list[str]:
    response = await client.get(path)
    assert response.status_code == 200, response.text
    return [g["id"] for g in response.json()["games"]]


async def heard(subscription: Subscription) -> dict[str, Any]:
    text = await asyncio.wait_for(subscription.get(), 5)
    assert text is not None
    message: dict[str, Any] = json.loads(text)
    SERVER_MESSAGE.validate_python(message)  # as documented
    contract().check_message(message)  # and with no key beyond those
    return message


async def test_each_entry_says_when_it_last_moved_and_idle_games_leave(
    people: Any, clocked: FastAPI, clock: FakeClock
) -> None:
    ann, bo, carl = await people("Ann"), await people("Bo"), await people("Carl")
    waiting = await create(carl)
    created_at = clock.now()
    game = await create(ann)
    clock.advance(60)
    joined = await bo.post(f"/api/games/{game['id']}/join", json={"token": game["join_token"]})
    assert joined.status_code == 200
    started_at = clock.now()
    live = {g["id"]: g for g in (await carl.get("/api/live")).json()["games"]}
    assert live[game["id"]]["last_activity"] == started_at  # started, not moved yet
    clock.advance(600)
    slug, options = quick_game()
    text = MovePicker(slug, options, seed=3).pick()
    moved = await ann.post(
        f"/api/games/{game['id']}/moves", json={"move": text, "version": 2, "msg_id": "m1"}
    )
    assert moved.status_code == 200, moved.text
    moved_at = clock.now()
    live = {g["id"]: g for g in (await carl.get("/api/live")).json()["games"]}
    assert live[game["id"]]["last_activity"] == moved_at
    open_ = {g["id"]: g for g in (await carl.get("/api/games/open")).json()["games"]}
    assert open_[waiting["id"]]["created_at"] == created_at

    # 29 minutes after the move both are still listed; the waiting game, 40 minutes old, is not.
    clock.advance(IDLE - 60)
    assert game["id"] in await ids(carl, "/api/live")
    assert waiting["id"] in await ids(carl, "/api/games/open")  # still joinable from its page
    listing = await clocked.state.service.reading.live_list(Visitor("nobody", "x"))
    assert listing["now"] == clock.now() and listing["idle_after"] == IDLE
    assert game["id"] in [g["id"] for g in listing["games"]]
    assert waiting["id"] not in [g["id"] for g in listing["open"]]
    # Past the cut-off the game leaves the live list (it stays active: only the list leaves it).
    clock.advance(120)
    assert game["id"] not in await ids(carl, "/api/live")
    assert game["id"] not in [g["id"] for g in (await clocked.state.service.reading.live_games())]
    snapshot = (await carl.get(f"/api/games/{game['id']}")).json()
    assert snapshot["game"]["status"] == "active"
    # A move brings it back, with its new time.
    picker = MovePicker(slug, options, seed=3)
    picker.play(picker.pick())  # Ann's move above
    answer = await bo.post(
        f"/api/games/{game['id']}/moves", json={"move": picker.pick(), "version": 3, "msg_id": "m2"}
    )
    assert answer.status_code == 200, answer.text
    live = {g["id"]: g for g in (await carl.get("/api/live")).json()["games"]}
    assert live[game["id"]]["last_activity"] == clock.now()


async def test_the_live_feed_carries_the_open_list_and_each_move_time(
    people: Any, clocked: FastAPI, clock: FakeClock
) -> None:
    ann, bo = await people("Ann"), await people("Bo")
    async with clocked.state.hub.subscribe(LIVE_CHANNEL) as feed:
        game = await create(ann)
        created = await heard(feed)
        assert created["type"] == "open_update"
        assert created["game"]["id"] == game["id"] and created["game"]["created_at"] == clock.now()
        assert created["game"]["join_token"] == game["join_token"]
        assert created["game"]["yours"] is False  # one message for every lobby
        await create(ann, public=False)  # a private game is never announced
        clock.advance(5)
        token = {"token": game["join_token"]}
        assert (await bo.post(f"/api/games/{game['id']}/join", json=token)).status_code == 200
        started = await heard(feed)  # the lobby moves it from the open list to the live one
        assert started["type"] == "live_update" and started["game"]["id"] == game["id"]
        assert started["game"]["last_activity"] == clock.now()
        clock.advance(42)
        slug, options = quick_game()
        text = MovePicker(slug, options, seed=5).pick()
        body = {"move": text, "version": 2, "msg_id": "x"}
        assert (await ann.post(f"/api/games/{game['id']}/moves", json=body)).status_code == 200
        moved = await heard(feed)
        assert moved["type"] == "live_update" and moved["game"]["last_activity"] == clock.now()
        with contextlib.suppress(TimeoutError):
            extra = await asyncio.wait_for(feed.get(), 0.05)
            raise AssertionError(f"unexpected {extra}")


async def test_the_open_list_marks_the_visitors_own_games(people: Any, clocked: FastAPI) -> None:
    ann, bo = await people("Ann"), await people("Bo")
    game = await create(ann)
    mine = {g["id"]: g for g in (await ann.get("/api/games/open")).json()["games"]}
    theirs = {g["id"]: g for g in (await bo.get("/api/games/open")).json()["games"]}
    assert mine[game["id"]]["yours"] is True and theirs[game["id"]]["yours"] is False
    ann_id = (await ann.get("/api/me")).json()["id"]
    listing = await clocked.state.service.reading.live_list(Visitor(ann_id, "Ann"))
    assert {g["id"]: g["yours"] for g in listing["open"]}[game["id"]] is True
