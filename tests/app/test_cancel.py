"""``POST /api/games/{id}/cancel`` (issue 15, contract 4), on SQLite and PostgreSQL: only the seated
creator of a waiting game cancels it; it ends as an abandoned waiting game does (status
``cancelled``, a ``result`` event, ``live_end`` on the live feed); every refusal changes nothing."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import httpx
from fastapi import FastAPI

from app.runtime.hub import LIVE_CHANNEL, game_channel
from tests.app.conftest import ClientFactory
from tests.support.gameplay import quick_game, rows_of


async def create(client: httpx.AsyncClient, public: bool = True) -> dict[str, Any]:
    slug, options = quick_game()
    body = {"game": slug, "options": options, "seat": 2, "public": public}
    response = await client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def refused(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


async def test_the_creator_cancels_a_waiting_game(clients: ClientFactory, app: FastAPI) -> None:
    ann, eve = await clients("Ann"), await clients("Eve")
    game = await create(ann)
    game_id = game["id"]
    url = f"/api/games/{game_id}/cancel"
    before = await rows_of(app.state.sessionmaker, game_id)
    assert refused(await eve.post(url)) == (403, "not_a_player")
    assert refused(await eve.post(url, json={})) == (403, "not_a_player")
    assert refused(await ann.post("/api/games/nope/cancel")) == (404, "game_not_found")
    assert await rows_of(app.state.sessionmaker, game_id) == before
    assert game_id in {g["id"] for g in (await eve.get("/api/games/open")).json()["games"]}

    hub = app.state.hub
    async with hub.subscribe(LIVE_CHANNEL) as live, hub.subscribe(game_channel(game_id)) as page:
        answer = await ann.post(url, json={})
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"id": game_id, "status": "cancelled"}
        event = json.loads(await asyncio.wait_for(page.get(), 5) or "{}")
        ended = json.loads(await asyncio.wait_for(live.get(), 5) or "{}")
    cancelled = {"winner": None, "colour": None, "reason": "cancelled", "scores": None}
    assert event["kind"] == "result" and event["data"] == cancelled
    assert event["state"]["status"] == "cancelled" and event["version"] == 2
    assert ended == {"type": "live_end", "id": game_id, "result": cancelled}
    snapshot = (await eve.get(f"/api/games/{game_id}")).json()
    assert snapshot["game"]["status"] == "cancelled" and snapshot["game"]["result"] == cancelled
    assert game_id not in {g["id"] for g in (await eve.get("/api/games/open")).json()["games"]}
    # Cancelled once: a second cancel, or a join, is refused and changes nothing.
    after = await rows_of(app.state.sessionmaker, game_id)
    assert refused(await ann.post(url)) == (409, "game_over")
    token = {"token": game["join_token"]}
    assert refused(await eve.post(f"/api/games/{game_id}/join", json=token)) == (409, "game_over")
    assert await rows_of(app.state.sessionmaker, game_id) == after
    archive = (await eve.get("/api/archive", params={"player": "ann"})).json()["games"]
    assert game_id not in {g["id"] for g in archive}  # the archive lists finished games only


async def test_a_started_or_finished_game_cannot_be_cancelled(
    clients: ClientFactory, app: FastAPI
) -> None:
    ann, bo = await clients("Ann"), await clients("Bo")
    game = await create(ann)
    game_id, url = game["id"], f"/api/games/{game['id']}/cancel"
    joined = await bo.post(f"/api/games/{game_id}/join", json={"token": game["join_token"]})
    assert joined.status_code == 200
    before = await rows_of(app.state.sessionmaker, game_id)
    assert refused(await ann.post(url)) == (409, "game_started")
    assert refused(await bo.post(url)) == (403, "not_a_player")  # seated, but not its creator
    assert await rows_of(app.state.sessionmaker, game_id) == before
    resign = {"msg_id": "r"}
    assert (await bo.post(f"/api/games/{game_id}/resign", json=resign)).status_code == 200
    finished = await rows_of(app.state.sessionmaker, game_id)
    assert refused(await ann.post(url)) == (409, "game_over")
    assert await rows_of(app.state.sessionmaker, game_id) == finished


async def test_a_private_game_is_cancelled_by_its_creator_and_hidden_from_others(
    clients: ClientFactory, app: FastAPI
) -> None:
    ann, eve = await clients("Ann"), await clients("Eve")
    game = await create(ann, public=False)
    url = f"/api/games/{game['id']}/cancel"
    before = await rows_of(app.state.sessionmaker, game["id"])
    assert refused(await eve.post(url)) == (404, "game_not_found")  # its existence is secret
    assert await rows_of(app.state.sessionmaker, game["id"]) == before
    async with app.state.hub.subscribe(LIVE_CHANNEL) as live:
        assert (await ann.post(url)).json() == {"id": game["id"], "status": "cancelled"}
        with contextlib.suppress(TimeoutError):  # a private game is never on the live feed
            raise AssertionError(await asyncio.wait_for(live.get(), 0.05))
