"""People, ratings and invitations in what the server sends (issue 25), on SQLite and PostgreSQL:
every seat names its account (snapshot, open, live and archive lists, My games, join events); a
rated game is always public and its snapshot carries each seat's rating, over HTTP and the socket
alike; a waiting game's snapshot says who invites to which seat; the challenger's ``/ws/me`` is
told a challenge's answer."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Game
from tests.app.conftest import ClientFactory
from tests.support.accounts import signup
from tests.support.gameplay import MovePicker, quick_game
from tests.support.server import LiveServer
from tests.support.wsclient import TestVisitor

RATING_KEYS = {"seat", "account", "rating", "deviation", "provisional"}


async def account(clients: ClientFactory, username: str) -> httpx.AsyncClient:
    client = await clients()
    await signup(client, username)
    return client


async def create(client: httpx.AsyncClient, **extra: Any) -> dict[str, Any]:
    slug, options = quick_game()
    answer = await client.post(
        "/api/games", json={"game": slug, "options": options, "seat": 1, **extra}
    )
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


async def join(client: httpx.AsyncClient, created: dict[str, Any]) -> None:
    answer = await client.post(
        f"/api/games/{created['id']}/join", json={"token": created["join_token"]}
    )
    assert answer.status_code == 200, answer.text


async def play(seats: dict[int, httpx.AsyncClient], game_id: str, plies: int) -> None:
    picker = MovePicker(*quick_game(), seed=3)
    for ply in range(plies):
        version = (await seats[1].get(f"/api/games/{game_id}")).json()["version"]
        seat = picker.to_move()
        assert seat is not None
        move = picker.pick()
        answer = await seats[seat].post(
            f"/api/games/{game_id}/moves",
            json={"move": move, "version": version, "msg_id": f"p{ply}"},
        )
        assert answer.status_code == 200, answer.text
        picker.play(move)


async def resign(client: httpx.AsyncClient, game_id: str) -> None:
    version = (await client.get(f"/api/games/{game_id}")).json()["version"]
    answer = await client.post(
        f"/api/games/{game_id}/resign", json={"version": version, "msg_id": "resign"}
    )
    assert answer.status_code == 200, answer.text


async def test_every_seat_names_its_account(clients: ClientFactory) -> None:
    """An account's seat carries its username wherever seats are listed; a guest's carries null;
    the name shown stays the one the seat was taken with."""
    ann = await account(clients, "pplann")
    await ann.put("/api/me", json={"name": "Ann Lee"})
    guest = await clients("Gus")
    created = await create(ann)
    opened = (await guest.get("/api/games/open")).json()["games"]
    entry = next(g for g in opened if g["id"] == created["id"])
    assert entry["players"] == [
        {"seat": 1, "name": "Ann Lee", "account": "pplann"},
        {"seat": 2, "name": None, "account": None},
    ]
    await join(guest, created)
    snapshot = (await guest.get(f"/api/games/{created['id']}")).json()
    assert snapshot["game"]["players"] == [
        {"seat": 1, "name": "Ann Lee", "account": "pplann"},
        {"seat": 2, "name": "Gus", "account": None},
    ]
    live = (await guest.get("/api/live")).json()["games"]
    assert (
        next(g for g in live if g["id"] == created["id"])["players"] == snapshot["game"]["players"]
    )
    mine = (await guest.get("/api/me/games")).json()
    current = [*mine["your_turn"], *mine["waiting"]]
    assert next(g for g in current if g["id"] == created["id"])["opponent_account"] == "pplann"
    theirs = (await ann.get("/api/me/games")).json()
    current = [*theirs["your_turn"], *theirs["waiting"]]
    assert next(g for g in current if g["id"] == created["id"])["opponent_account"] is None
    await play({1: ann, 2: guest}, created["id"], 2)
    await resign(guest, created["id"])
    archived = (await guest.get("/api/archive", params={"account": "pplann"})).json()["games"]
    assert archived[0]["players"] == snapshot["game"]["players"]


async def test_a_guest_who_signs_up_is_linked_at_once(clients: ClientFactory) -> None:
    """The seats of a guest who then signs up link to the new account (the server's cache of
    who has an account forgets that guest)."""
    host = await clients("Hal")
    guest = await clients("Gia")
    created = await create(host)
    await join(guest, created)
    before = (await host.get(f"/api/games/{created['id']}")).json()["game"]["players"]
    assert before[1]["account"] is None
    await signup(guest, "pplgia")
    after = (await host.get(f"/api/games/{created['id']}")).json()["game"]["players"]
    assert after[1] == {"seat": 2, "name": "Gia", "account": "pplgia"}


async def test_a_rated_game_is_always_public(app: FastAPI, clients: ClientFactory) -> None:
    """A private rated game is refused and changes nothing; a rated challenge starts a public
    game, which anyone may watch, and which is archived and on both profiles once over; an
    unrated challenge still starts a private one."""
    ann = await account(clients, "pubann")
    ann_id = (await ann.get("/api/me")).json()["id"]
    bob = await account(clients, "pubbob")
    stranger = await clients("Sam")
    refused = await ann.post(
        "/api/games", json={"game": "exxit", "rated": True, "public": False, "seat": 1}
    )
    assert refused.status_code == 422, refused.text
    error = refused.json()["error"]
    assert (error["code"], error["field"]) == ("bad_option", "public")
    assert "public" in error["message"]
    async with app.state.sessionmaker() as session:
        stored = await session.execute(select(Game.id).where(Game.creator_id == ann_id))
        assert stored.all() == []  # the refusal stored nothing
    slug, options = quick_game()
    sent = await ann.post(
        "/api/challenges",
        json={"to": "pubbob", "game": slug, "options": options, "seat": 1, "rated": True},
    )
    assert sent.status_code == 201, sent.text
    accepted = (await bob.post(f"/api/challenges/{sent.json()['id']}/accept")).json()
    game_id = accepted["game_id"]
    watched = await stranger.get(f"/api/games/{game_id}")
    assert watched.status_code == 200, watched.text
    game = watched.json()["game"]
    assert game["public"] is True and game["rated"] is True
    live = (await stranger.get("/api/live")).json()["games"]
    assert game_id in [g["id"] for g in live]
    await play({1: ann, 2: bob}, game_id, 2)
    await resign(bob, game_id)
    archived = (await stranger.get("/api/archive", params={"account": "pubann"})).json()["games"]
    assert game_id in [g["id"] for g in archived]
    for username in ("pubann", "pubbob"):
        profile = (await stranger.get(f"/api/players/{username}")).json()
        assert game_id in [g["id"] for g in profile["games"]], username
    casual = await ann.post(
        "/api/challenges",
        json={"to": "pubbob", "game": slug, "options": options, "seat": 1, "rated": False},
    )
    private = (await bob.post(f"/api/challenges/{casual.json()['id']}/accept")).json()
    assert (await stranger.get(f"/api/games/{private['game_id']}")).status_code == 404


async def test_a_rated_snapshot_carries_each_seats_rating(clients: ClientFactory) -> None:
    """Over HTTP: ``ratings`` is null in a casual game; in a rated one each seat's current
    rating (the start before a first game; the rating after once a game counted), with exact
    keys; an empty seat's is null."""
    ann = await account(clients, "rtann")
    bob = await account(clients, "rtbob")
    casual = await create(ann)
    assert (await ann.get(f"/api/games/{casual['id']}")).json()["game"]["ratings"] is None
    first = await create(ann, rated=True)
    waiting = (await ann.get(f"/api/games/{first['id']}")).json()["game"]
    assert waiting["ratings"] == [
        {"seat": 1, "account": "rtann", "rating": 1500, "deviation": 350, "provisional": True},
        None,
    ]
    await join(bob, first)
    await play({1: ann, 2: bob}, first["id"], 2)
    await resign(bob, first["id"])
    result = (await ann.get(f"/api/games/{first['id']}")).json()["game"]
    after = {r["seat"]: r["after"] for r in result["result"]["ratings"]}
    second = await create(ann, rated=True)
    await join(bob, second)
    ratings = (await bob.get(f"/api/games/{second['id']}")).json()["game"]["ratings"]
    assert [set(r) for r in ratings] == [RATING_KEYS, RATING_KEYS]
    assert [(r["seat"], r["account"], r["rating"]) for r in ratings] == [
        (1, "rtann", after[1]),
        (2, "rtbob", after[2]),
    ]
    assert after[1] > 1500 > after[2]


async def test_a_waiting_game_says_who_invites_to_which_seat(clients: ClientFactory) -> None:
    """The snapshot an invite link opens on: who invites (name and account), the seat the joiner
    takes, its colour (null while the pie rule decides); a private game's, with its token; none
    once both seats are taken."""
    ann = await account(clients, "invann")
    await ann.put("/api/me", json={"name": "Ann"})
    friend = await clients()
    exxit = (
        await ann.post(
            "/api/games",
            json={
                "game": "exxit",
                "seat": 2,
                "public": False,
                "time_control": {"kind": "realtime", "base": 180, "increment": 2},
            },
        )
    ).json()
    assert (await friend.get(f"/api/games/{exxit['id']}")).status_code == 404
    opened = await friend.get(f"/api/games/{exxit['id']}", params={"token": exxit["join_token"]})
    game = opened.json()["game"]
    assert game["invitation"] == {
        "by": {"seat": 2, "name": "Ann", "account": "invann"},
        "seat": 1,
        "colour": game["colours"]["1"],
    }
    assert game["colours"]["1"] and game["clock"]["label"] == "3+2"
    assert (game["title"], game["rated"], game["public"]) == ("Exxit", False, False)
    pie = (await ann.post("/api/games", json={"game": "sgolte", "seat": 1})).json()
    invitation = (await friend.get(f"/api/games/{pie['id']}")).json()["game"]["invitation"]
    assert invitation == {
        "by": {"seat": 1, "name": "Ann", "account": "invann"},
        "seat": 2,
        "colour": None,
    }
    await join(friend, pie)
    assert (await friend.get(f"/api/games/{pie['id']}")).json()["game"]["invitation"] is None


async def test_a_declined_offer_is_told_until_the_game_moves_on(clients: ClientFactory) -> None:
    """``declined`` names the offer and the seat that declined it, in every read of the table,
    until the next event; a withdrawal leaves it null; a new offer clears it."""
    ann = await account(clients, "decann")
    bob = await account(clients, "decbob")
    created = await create(ann)
    await join(bob, created)
    seats = {1: ann, 2: bob}
    await play(seats, created["id"], 2)
    game_id = created["id"]
    to_move = (await ann.get(f"/api/games/{game_id}")).json()["game"]["to_move"]
    offerer, answerer = seats[to_move], seats[3 - to_move]
    assert (await offerer.post(f"/api/games/{game_id}/offer", json={"kind": "draw"})).is_success
    declined = await answerer.post(
        f"/api/games/{game_id}/answer", json={"kind": "draw", "accept": False}
    )
    assert declined.json() == {"offer": None, "rematch_id": None}
    game = (await offerer.get(f"/api/games/{game_id}")).json()["game"]
    assert game["offer"] is None
    assert game["declined"] == {"kind": "draw", "seat": 3 - to_move}
    assert (await offerer.post(f"/api/games/{game_id}/offer", json={"kind": "draw"})).is_success
    game = (await offerer.get(f"/api/games/{game_id}")).json()["game"]
    assert game["declined"] is None and game["offer"]["kind"] == "draw"
    withdrawn = await offerer.post(
        f"/api/games/{game_id}/answer", json={"kind": "draw", "accept": False}
    )
    assert withdrawn.is_success
    assert (await offerer.get(f"/api/games/{game_id}")).json()["game"]["declined"] is None
    await offerer.post(f"/api/games/{game_id}/offer", json={"kind": "draw"})
    await answerer.post(f"/api/games/{game_id}/answer", json={"kind": "draw", "accept": False})
    assert (await offerer.get(f"/api/games/{game_id}")).json()["game"]["declined"] is not None
    picker = MovePicker(*quick_game(), seed=3)
    for _ in range(2):
        picker.play(picker.pick())
    version = (await offerer.get(f"/api/games/{game_id}")).json()["version"]
    moved = await offerer.post(
        f"/api/games/{game_id}/moves",
        json={"move": picker.pick(), "version": version, "msg_id": "after"},
    )
    assert moved.status_code == 200, moved.text
    assert (await offerer.get(f"/api/games/{game_id}")).json()["game"]["declined"] is None


@pytest.fixture(scope="module")
def people_server(server: LiveServer) -> LiveServer:
    return server


async def test_the_socket_carries_the_same_people_and_ratings(people_server: LiveServer) -> None:
    """Through a real server: the socket's snapshot has the HTTP snapshot's players, ratings and
    invitation, key for key; the join event names the joiner's account; a declined draw reaches
    the offerer's socket as a ``table`` message naming the offer and who declined it."""
    ann = await TestVisitor(people_server.url).start()
    bob = await TestVisitor(people_server.url).start()
    try:
        await signup(ann.http, "wsann")
        await signup(bob.http, "wsbob")
        created = await create(ann.http, rated=True)
        socket = await ann.open(created["id"])
        first = await socket.expect("snapshot")
        http = (await ann.http.get(f"/api/games/{created['id']}")).json()
        for key in ("players", "ratings", "invitation", "declined"):
            assert first["game"][key] == http["game"][key], key
        assert first["game"]["invitation"]["by"]["account"] == "wsann"
        await join(bob.http, created)
        joined = await socket.expect("event")
        assert joined["kind"] == "join"
        assert joined["data"] == {"seat": 2, "name": "wsbob", "account": "wsbob"}
        http = (await bob.http.get(f"/api/games/{created['id']}")).json()
        await socket.close()
        socket = await ann.open(created["id"])
        again = await socket.expect("snapshot")
        assert again["game"]["ratings"] == http["game"]["ratings"]
        assert [set(r) for r in again["game"]["ratings"]] == [RATING_KEYS, RATING_KEYS]
        assert again["game"]["invitation"] is None
        await play({1: ann.http, 2: bob.http}, created["id"], 2)
        to_move = (await ann.http.get(f"/api/games/{created['id']}")).json()["game"]["to_move"]
        offerer, answerer = (ann, bob) if to_move == 1 else (bob, ann)
        watched = await offerer.open(created["id"])
        await watched.expect("snapshot")
        await offerer.http.post(f"/api/games/{created['id']}/offer", json={"kind": "draw"})
        await answerer.http.post(
            f"/api/games/{created['id']}/answer", json={"kind": "draw", "accept": False}
        )
        while True:
            table = await watched.expect("table")
            if table["offer"] is None:
                break
        assert table["declined"] == {"kind": "draw", "seat": 3 - to_move}
    finally:
        await ann.close()
        await bob.close()


async def test_the_challenger_is_told_the_answer(people_server: LiveServer) -> None:
    """``challenge_answered`` reaches the challenger's ``/ws/me`` (not the challenged's): the
    game to go to when accepted, nothing to go to when declined."""
    ann = await TestVisitor(people_server.url).start()
    bob = await TestVisitor(people_server.url).start()
    try:
        await signup(ann.http, "chann")
        await signup(bob.http, "chbob")
        mine = await ann.open_path("/ws/me")
        await mine.expect("mine")
        theirs = await bob.open_path("/ws/me")
        await theirs.expect("mine")
        slug, options = quick_game()
        body = {"to": "chbob", "game": slug, "options": options, "seat": 1, "rated": True}
        sent = (await ann.http.post("/api/challenges", json=body)).json()
        while not (await theirs.expect("mine"))["challenges"]["incoming"]:
            pass
        accepted = (await bob.http.post(f"/api/challenges/{sent['id']}/accept")).json()
        told = await mine.expect("challenge_answered")
        assert told == {
            "type": "challenge_answered",
            "id": sent["id"],
            "status": "accepted",
            "by": {"username": "chbob", "display_name": "chbob"},
            "game_id": accepted["game_id"],
            "url": f"/games/{accepted['game_id']}",
        }
        second = (await ann.http.post("/api/challenges", json=body)).json()
        await bob.http.post(f"/api/challenges/{second['id']}/decline")
        told = await mine.expect("challenge_answered")
        assert (told["id"], told["status"], told["game_id"], told["url"]) == (
            second["id"],
            "declined",
            None,
            None,
        )
        await theirs.send({"type": "ping"})
        skipped = []
        while (message := await theirs.expect("pong", "challenge_answered"))["type"] != "pong":
            skipped.append(message)
        assert skipped == []  # the challenged player's sockets are not told their own answer
    finally:
        await ann.close()
        await bob.close()
