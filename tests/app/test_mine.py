""" "My games", its socket and challenges, on SQLite and PostgreSQL: the lists of an identity (a
guest, or an account's every player), live over ``/ws/me``; challenges sent, accepted, declined
and cancelled; and who may do what (guest, account, other account, stranger)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import websockets
from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import Challenge, Game
from tests.app.conftest import ClientFactory
from tests.support.accounts import login, signup
from tests.support.contract import contract
from tests.support.gameplay import MovePicker, quick_game
from tests.support.server import LiveServer
from tests.support.wsclient import TestVisitor


async def _start(first: httpx.AsyncClient, second: httpx.AsyncClient | None) -> dict[str, Any]:
    slug, options = quick_game()
    created: dict[str, Any] = (
        await first.post("/api/games", json={"game": slug, "options": options, "seat": 1})
    ).json()
    if second is not None:
        joined = await second.post(
            f"/api/games/{created['id']}/join", json={"token": created["join_token"]}
        )
        assert joined.status_code == 200, joined.text
    return created


async def _move(client: httpx.AsyncClient, game_id: str, picker: MovePicker, tag: str) -> None:
    version = (await client.get(f"/api/games/{game_id}")).json()["version"]
    move = picker.pick()
    answer = await client.post(
        f"/api/games/{game_id}/moves", json={"move": move, "version": version, "msg_id": tag}
    )
    assert answer.status_code == 200, answer.text
    picker.play(move)


async def test_a_guests_lists(app: FastAPI, clients: ClientFactory) -> None:
    ann, bob = await clients("Ann"), await clients("Bob")
    waiting = await _start(ann, None)
    mine = (await ann.get("/api/me/games")).json()
    assert [g["id"] for g in mine["open"]] == [waiting["id"]]
    assert mine["open"][0]["invite_url"] == f"/games/{waiting['id']}?join={waiting['join_token']}"
    assert mine["challenges"] == {"incoming": [], "outgoing": []}
    game = await _start(ann, bob)
    picker = MovePicker(*quick_game())
    first = picker.to_move()
    ann_mine = (await ann.get("/api/me/games")).json()
    bob_mine = (await bob.get("/api/me/games")).json()
    mover, other = (ann_mine, bob_mine) if first == 1 else (bob_mine, ann_mine)
    assert [g["id"] for g in mover["your_turn"]] == [game["id"]] and mover["turn_count"] == 1
    assert [g["id"] for g in other["waiting"]] == [game["id"]] and other["turn_count"] == 0
    assert mover["your_turn"][0]["opponent"] in ("Ann", "Bob")
    assert (bob_mine["open"], bob_mine["finished"]) == ([], [])
    # Finished: resigned by Bob, won by Ann.
    version = (await bob.get(f"/api/games/{game['id']}")).json()["version"]
    await bob.post(f"/api/games/{game['id']}/resign", json={"version": version, "msg_id": "r"})
    ann_mine = (await ann.get("/api/me/games")).json()
    assert [(g["id"], g["outcome"]) for g in ann_mine["finished"]] == [(game["id"], "won")]
    assert (await bob.get("/api/me/games")).json()["finished"][0]["outcome"] == "lost"
    stranger = await clients()
    assert (await stranger.get("/api/me/games")).json()["turn_count"] == 0


async def test_an_account_sees_its_games_from_any_browser(
    app: FastAPI, clients: ClientFactory
) -> None:
    phone = await clients("Cy")
    opponent = await clients("Dee")
    game = await _start(phone, opponent)
    await signup(phone, "cy_mine")
    laptop = await clients()
    await login(laptop, "cy_mine")
    listed = (await laptop.get("/api/me/games")).json()
    ids = [g["id"] for g in listed["your_turn"] + listed["waiting"]]
    assert ids == [game["id"]]


async def test_challenges_and_who_may_answer_them(app: FastAPI, clients: ClientFactory) -> None:
    eve, fay, gus = await clients(), await clients(), await clients()
    await signup(eve, "eve_mine")
    await signup(fay, "fay_mine")
    await signup(gus, "gus_mine")
    guest, stranger = await clients("Guest"), await clients()
    slug, options = quick_game()
    body = {"to": "FAY_MINE", "game": slug, "options": options, "seat": 1, "rated": True}
    refused = [
        (guest, body, 403, "account_required"),
        (eve, {**body, "to": "nobody_here"}, 404, "player_not_found"),
        (eve, {**body, "to": "eve_mine"}, 422, "cannot_challenge_self"),
        (eve, {**body, "game": "chess"}, 422, "unknown_game"),
        (eve, {**body, "seat": 3}, 422, "invalid_request"),
        (eve, {**body, "options": {"nope": 1}}, 422, "bad_option"),
        (eve, {**body, "extra": 1}, 422, "invalid_request"),
    ]
    for client, payload, status, code in refused:
        answer = await client.post("/api/challenges", json=payload)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), payload
    async with app.state.sessionmaker() as session:
        assert (
            await session.execute(select(func.count()).select_from(Challenge))
        ).scalar_one() == 0

    sent = await eve.post("/api/challenges", json=body)
    assert sent.status_code == 201, sent.text
    challenge = sent.json()
    assert challenge["from"]["username"] == "eve_mine" and challenge["to"]["username"] == "fay_mine"
    incoming = (await fay.get("/api/me/games")).json()["challenges"]["incoming"]
    assert [c["id"] for c in incoming] == [challenge["id"]]
    outgoing = (await eve.get("/api/me/games")).json()["challenges"]["outgoing"]
    assert [c["id"] for c in outgoing] == [challenge["id"]]

    url = f"/api/challenges/{challenge['id']}"
    matrix = [
        (stranger, "accept", 404, "challenge_not_found"),
        (guest, "decline", 404, "challenge_not_found"),
        (gus, "accept", 404, "challenge_not_found"),
        (gus, "cancel", 404, "challenge_not_found"),
        (eve, "accept", 403, "not_a_player"),
        (eve, "decline", 403, "not_a_player"),
        (fay, "cancel", 403, "not_a_player"),
    ]
    for client, action, status, code in matrix:
        answer = await client.post(f"{url}/{action}")
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), action
    accepted = await fay.post(f"{url}/accept")
    assert accepted.status_code == 200, accepted.text
    game_id = accepted.json()["game_id"]
    async with app.state.sessionmaker() as session:
        game = await session.get(Game, game_id)
    # A rated game is always public (docs/protocol.md, "POST /api/games").
    assert game is not None and game.status == "active" and game.rated and game.public
    assert (await eve.get(f"/api/games/{game_id}")).json()["you"]["seat"] == 1
    assert (await fay.get(f"/api/games/{game_id}")).json()["you"]["seat"] == 2
    for client, action in ((fay, "accept"), (fay, "decline"), (eve, "cancel")):
        again = await client.post(f"{url}/{action}")
        assert (again.status_code, again.json()["error"]["code"]) == (409, "challenge_closed")
    # Declined and cancelled ones.
    second = (await eve.post("/api/challenges", json=body)).json()
    assert (await fay.post(f"/api/challenges/{second['id']}/decline")).json()[
        "status"
    ] == "declined"
    third = (await eve.post("/api/challenges", json=body)).json()
    assert (await eve.post(f"/api/challenges/{third['id']}/cancel")).json()["status"] == "cancelled"
    assert (await fay.get("/api/me/games")).json()["challenges"]["incoming"] == []
    for bad in ("x" * 40, "%00", "a b"):
        answer = await fay.post(f"/api/challenges/{bad}/accept")
        assert answer.status_code == 404, bad


@pytest.fixture(scope="module")
def mine_server(server: LiveServer) -> LiveServer:
    return server


async def test_the_socket_sends_the_lists_again_when_the_opponent_moves(
    mine_server: LiveServer,
) -> None:
    ann = await TestVisitor(mine_server.url).start("Ann")
    bob = await TestVisitor(mine_server.url).start("Bob")
    try:
        socket = await ann.open_path("/ws/me")
        first = await socket.expect("mine")
        assert first["turn_count"] == 0
        game = await _start(ann.http, bob.http)
        picker = MovePicker(*quick_game())
        if picker.to_move() == 1:  # let Ann move first, so that Bob's move gives her the turn
            await _move(ann.http, game["id"], picker, "a1")
        while True:  # the lists after create, join, Ann's move...
            message = await socket.expect("mine")
            if message["waiting"] and message["waiting"][0]["id"] == game["id"]:
                break
        await _move(bob.http, game["id"], picker, "b1")
        while True:
            message = await socket.expect("mine")
            if message["turn_count"] == 1:
                break
        assert message["your_turn"][0]["id"] == game["id"]
        await socket.send({"type": "ping"})
        assert (await socket.expect("pong"))["type"] == "pong"
        await socket.send({"type": "move", "move": "x", "version": 1, "msg_id": "m"})
        error = await socket.expect("error")
        assert error["code"] == "unknown_type"
    finally:
        await ann.close()
        await bob.close()


async def test_the_socket_lists_only_its_own_identitys_games(mine_server: LiveServer) -> None:
    """A stranger's socket (no cookie) and a guest's list nothing of anyone else's; an account's
    socket on a second browser lists the account's games."""
    ann = await TestVisitor(mine_server.url).start("Ann")
    bob = await TestVisitor(mine_server.url).start("Bob")
    laptop = TestVisitor(mine_server.url)
    try:
        game = await _start(ann.http, bob.http)
        await signup(ann.http, f"ann_sock_{game['id'][:6]}")
        await laptop.start()
        await login(laptop.http, f"ann_sock_{game['id'][:6]}")
        listed = await (await laptop.open_path("/ws/me")).expect("mine")
        assert [g["id"] for g in listed["your_turn"] + listed["waiting"]] == [game["id"]]
        guest = await TestVisitor(mine_server.url).start("Cy")
        try:
            other = await (await guest.open_path("/ws/me")).expect("mine")
            assert other["your_turn"] == other["waiting"] == other["finished"] == []
        finally:
            await guest.close()
        url = mine_server.url.replace("http", "ws", 1) + "/ws/me"
        async with websockets.connect(url) as stranger:  # no cookie at all
            first = json.loads(await stranger.recv())
            contract().check_message(first, "websocket /ws/me")
            assert first["type"] == "mine" and first["turn_count"] == 0 and first["open"] == []
    finally:
        for visitor in (ann, bob, laptop):
            await visitor.close()
