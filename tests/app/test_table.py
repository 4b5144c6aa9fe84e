"""The table around a game, on SQLite and PostgreSQL: draw offers (Harmijan and Exxit only),
takebacks as undo events, abort, rematch with the seats swapped, and the two chat rooms; every
refusal precise and changing nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import Move
from tests.app.conftest import ClientFactory
from tests.support.gameplay import smallest_options
from tests.support.server import LiveServer
from tests.support.table import Seats
from tests.support.wsclient import TestVisitor


class Pair(Seats):
    """Ann (seat 1) and Bob (seat 2) at one game of ``slug`` in its smallest options."""

    @classmethod
    async def start(cls, clients: ClientFactory, slug: str, **extra: Any) -> Pair:
        body = {"game": slug, "options": smallest_options(slug), **extra}
        seats = await Seats.sit(await clients("Ann"), await clients("Bob"), body, seed=11)
        return cls(seats.id, seats.seats, seats.picker)


def refused(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["code"] == code, answer.text


async def test_a_draw_offered_and_accepted_in_harmijan(clients: ClientFactory) -> None:
    pair = await Pair.start(clients, "harmijan")
    await pair.play(4)
    to_move = (await pair.snapshot())["game"]["to_move"]
    other = 3 - to_move
    before = await pair.snapshot()
    refused(await pair.post(other, "offer", kind="draw"), 409, "not_your_turn")
    refused(await pair.post(to_move, "answer", kind="draw", accept=True), 409, "no_offer")
    assert (await pair.snapshot())["version"] == before["version"]
    offered = await pair.post(to_move, "offer", kind="draw")
    assert offered.json()["offer"] == {"kind": "draw", "seat": to_move}
    refused(await pair.post(to_move, "offer", kind="draw"), 409, "already_offered")
    refused(await pair.post(to_move, "answer", kind="draw", accept=True), 409, "own_offer")
    snapshot = await pair.snapshot()
    assert snapshot["game"]["offer"] == {"kind": "draw", "seat": to_move}
    assert snapshot["version"] == before["version"]  # an offer is no change of the game
    accepted = await pair.post(other, "answer", kind="draw", accept=True)
    assert accepted.status_code == 200, accepted.text
    game = (await pair.snapshot())["game"]
    assert game["status"] == "finished" and game["offer"] is None
    assert game["result"] == {"winner": None, "colour": None, "reason": "agreement", "scores": None}
    refused(await pair.post(to_move, "offer", kind="draw"), 409, "game_over")


async def test_a_draw_offer_lasts_until_the_opponent_moves(clients: ClientFactory) -> None:
    pair = await Pair.start(clients, "exxit")
    await pair.play(2)
    seat = (await pair.snapshot())["game"]["to_move"]
    assert (await pair.post(seat, "offer", kind="draw")).status_code == 200
    await pair.play(1)  # the offerer moves: the offer stands... until the opponent moves
    assert (await pair.snapshot())["game"]["offer"]["seat"] == seat
    await pair.play(1)
    assert (await pair.snapshot())["game"]["offer"] is None


async def test_games_without_draws_refuse_a_draw_offer(clients: ClientFactory) -> None:
    for slug, title in (("jotun", "Jotun"), ("valaturna", "Valaturna"), ("sgolte", "Sgolte")):
        pair = await Pair.start(clients, slug)
        await pair.play(2)
        seat = (await pair.snapshot())["game"]["to_move"]
        answer = await pair.post(seat, "offer", kind="draw")
        refused(answer, 409, "no_draws")
        assert answer.json()["error"]["message"].startswith(f"{title} cannot end in a draw")


async def test_a_takeback_is_an_undo_event(app: FastAPI, clients: ClientFactory) -> None:
    pair = await Pair.start(clients, "exxit")
    await pair.play(3)
    before = await pair.snapshot()
    mover = 3 - before["game"]["to_move"]  # who played the last ply
    refused(await pair.post(3 - mover, "answer", kind="takeback", accept=True), 409, "no_offer")
    asked = await pair.post(mover, "offer", kind="takeback")
    assert asked.json()["offer"] == {"kind": "takeback", "seat": mover, "plies": 1}
    declined = await pair.post(3 - mover, "answer", kind="takeback", accept=False)
    assert declined.json()["offer"] is None
    # The opponent replies; now the same player asks back two plies, and it is accepted.
    await pair.play(1)
    asked = await pair.post(mover, "offer", kind="takeback")
    assert asked.json()["offer"]["plies"] == 2
    accepted = await pair.post(3 - mover, "answer", kind="takeback", accept=True)
    assert accepted.status_code == 200, accepted.text
    after = await pair.snapshot()
    assert after["game"]["moves"] == before["game"]["moves"][:2]
    assert after["version"] == before["version"] + 2  # the reply, then the undo
    async with app.state.sessionmaker() as session:
        rows = await session.scalar(select(func.count()).where(Move.game_id == pair.id))
    assert rows == 2
    catchup = (await pair.seats[1].get(f"/api/games/{pair.id}")).json()
    assert catchup["game"]["to_move"] == mover


async def test_takebacks_are_off_in_rated_games_unless_allowed(clients: ClientFactory) -> None:
    from tests.support.accounts import signup

    ann, bob = await clients(), await clients()
    await signup(ann, "tbann")
    await signup(bob, "tbbob")
    for allowed, expected in ((None, 409), (True, 200)):
        body: dict[str, Any] = {
            "game": "exxit",
            "options": smallest_options("exxit"),
            "rated": True,
        }
        if allowed is not None:
            body["takebacks"] = allowed
        table = await Seats.sit(ann, bob, body, seed=1)
        await table.play(1)
        answer = await table.post(1, "offer", kind="takeback")
        assert answer.status_code == expected, answer.text


async def test_abort_before_both_have_moved(clients: ClientFactory) -> None:
    pair = await Pair.start(clients, "harmijan")
    await pair.play(3)  # the pie's setup and choice, then one move of play
    aborted = await pair.post(2, "abort")
    assert aborted.json() == {"id": pair.id, "status": "cancelled"}
    game = (await pair.snapshot())["game"]
    assert game["result"]["reason"] == "aborted" and game["status"] == "cancelled"
    late = await Pair.start(clients, "exxit")
    await late.play(2)
    refused(await late.post(1, "abort"), 409, "too_late_to_abort")


async def test_a_rematch_swaps_the_seats(clients: ClientFactory) -> None:
    pair = await Pair.start(
        clients, "exxit", time_control={"kind": "realtime", "base": 300, "increment": 3}
    )
    refused(await pair.post(1, "offer", kind="rematch"), 409, "game_not_over")
    await pair.play(2)
    assert (await pair.post(1, "resign", msg_id="r")).status_code == 200
    assert (await pair.post(2, "offer", kind="rematch")).status_code == 200
    accepted = await pair.post(1, "answer", kind="rematch", accept=True)
    new_id = accepted.json()["rematch_id"]
    assert new_id
    old = (await pair.snapshot())["game"]
    assert old["rematch_id"] == new_id and old["offer"] is None
    new = (await pair.seats[1].get(f"/api/games/{new_id}")).json()["game"]
    assert new["rematch_of"] == pair.id and new["status"] == "active"
    assert [p["name"] for p in new["players"]] == ["Bob", "Ann"]
    assert new["clock"]["control"] == {"kind": "realtime", "base": 300, "increment": 3}
    refused(await pair.post(2, "offer", kind="rematch"), 409, "rematch_done")
    mine = (await pair.seats[1].get("/api/me/games")).json()
    assert new_id in str(mine)


async def test_chat_rooms_are_kept_apart(clients: ClientFactory) -> None:
    pair = await Pair.start(clients, "exxit")
    cy = await clients("Cy")
    said = await pair.post(1, "chat", text="  good luck!  ")
    assert said.status_code == 201, said.text
    assert said.json()["room"] == "players" and said.json()["line"]["text"] == "good luck!"
    watched = await cy.post(f"/api/games/{pair.id}/chat", json={"text": "<b>go</b>"})
    assert watched.json()["room"] == "spectators"
    players = (await pair.seats[2].get(f"/api/games/{pair.id}/chat")).json()
    assert [line["text"] for line in players["lines"]] == ["good luck!"]
    spectators = (await cy.get(f"/api/games/{pair.id}/chat")).json()
    assert [line["text"] for line in spectators["lines"]] == ["<b>go</b>"]
    version = (await pair.snapshot())["version"]
    for text, why in (("", "empty"), ("x" * 301, "300"), ("a\x07b", "control")):
        answer = await pair.post(1, "chat", text=text)
        refused(answer, 422, "bad_chat")
        assert why in answer.json()["error"]["message"]
    assert (await pair.snapshot())["version"] == version  # chat never moves the game's version
    record = (await pair.seats[1].get(f"/games/{pair.id}/record.json")).json()
    assert "good luck" not in str(record)


async def test_spectators_cannot_offer(clients: ClientFactory) -> None:
    pair = await Pair.start(clients, "harmijan")
    cy = await clients("Cy")
    for what, body in (
        ("offer", {"kind": "draw"}),
        ("answer", {"kind": "draw", "accept": True}),
        ("abort", {}),
        ("claim", {}),
    ):
        answer = await cy.post(f"/api/games/{pair.id}/{what}", json=body)
        refused(answer, 403, "not_a_player")
    bad = await pair.post(1, "offer", kind="surrender")
    refused(bad, 422, "invalid_request")


async def test_a_challenge_carries_its_time_control(clients: ClientFactory) -> None:
    from tests.support.accounts import signup

    ann, bob = await clients(), await clients()
    await signup(ann, "tcann")
    await signup(bob, "tcbob")
    body = {"to": "tcbob", "game": "exxit", "seat": 1}
    bad = await ann.post("/api/challenges", json={**body, "time_control": {"kind": "blitz"}})
    refused(bad, 422, "bad_option")
    assert bad.json()["error"]["field"] == "time_control.kind"
    sent = await ann.post(
        "/api/challenges", json={**body, "time_control": {"kind": "correspondence", "days": 3}}
    )
    assert sent.status_code == 201, sent.text
    assert sent.json()["time"] == "3 days per move"
    accepted = (await bob.post(f"/api/challenges/{sent.json()['id']}/accept")).json()
    game = (await ann.get(f"/api/games/{accepted['game_id']}")).json()["game"]
    assert game["clock"]["control"]["days"] == 3


async def test_a_spectator_who_never_chose_a_name_chats(clients: ClientFactory) -> None:
    """A guest with no player row yet (it never named itself, created or joined) says a line: the
    line is stored under its default name, and its row is written then (a chat line needs one)."""
    pair = await Pair.start(clients, "exxit")
    guest = await clients()
    me = (await guest.get("/api/me")).json()
    assert me["named"] is False
    said = await guest.post(f"/api/games/{pair.id}/chat", json={"text": "hello from the stands"})
    assert said.status_code == 201, said.text
    assert said.json()["room"] == "spectators"
    assert said.json()["line"]["name"] == me["name"]
    again = await guest.post(f"/api/games/{pair.id}/chat", json={"text": "and again"})
    assert again.status_code == 201, again.text
    assert (await guest.get("/api/me")).json() == me  # still the same unnamed guest
    log = (await guest.get(f"/api/games/{pair.id}/chat")).json()
    assert [line["text"] for line in log["lines"]] == ["hello from the stands", "and again"]
    first = await clients()  # a visitor whose very first request is a chat line
    said = await first.post(f"/api/games/{pair.id}/chat", json={"text": "first words"})
    assert said.status_code == 201, said.text


@pytest.fixture(scope="module")
def chat_server(server: LiveServer) -> LiveServer:
    return server


async def test_an_unnamed_spectator_chats_through_a_real_server(chat_server: LiveServer) -> None:
    """Over the socket and over HTTP, against uvicorn: the first line of a guest who never chose
    a name is said (never ``rate_limited``), and reaches another spectator's socket."""
    ann = await TestVisitor(chat_server.url).start("Ann")
    bob = await TestVisitor(chat_server.url).start("Bob")
    cy = await TestVisitor(chat_server.url).start()
    dee = await TestVisitor(chat_server.url).start()
    try:
        made = (await ann.http.post("/api/games", json={"game": "exxit", "seat": 1})).json()
        joined = await bob.http.post(
            f"/api/games/{made['id']}/join", json={"token": made["join_token"]}
        )
        assert joined.status_code == 200, joined.text
        watching = await dee.open(made["id"])
        assert (await watching.expect("snapshot"))["chat"]["room"] == "spectators"
        socket = await cy.open(made["id"])
        await socket.expect("snapshot")
        await socket.send({"type": "chat", "text": "hi all", "msg_id": "t-1"})
        done = await socket.expect("done", "error")
        assert done["type"] == "done", done
        name = (await cy.http.get("/api/me")).json()["name"]
        assert done["line"]["name"] == name and done["line"]["seat"] is None
        heard = await watching.expect("chat")
        assert heard["line"]["text"] == "hi all"
        said = await dee.http.post(f"/api/games/{made['id']}/chat", json={"text": "hello"})
        assert said.status_code == 201, said.text
        assert (await socket.expect("chat"))["line"]["text"] == "hi all"  # its own, broadcast
        assert (await socket.expect("chat"))["line"]["text"] == "hello"
    finally:
        for visitor in (ann, bob, cy, dee):
            await visitor.close()


async def test_the_http_snapshot_is_the_sockets_key_for_key(chat_server: LiveServer) -> None:
    """Objects are exact (issue 26): a realtime clock's control has no ``days``, a draw offer no
    ``plies``, over HTTP as over the socket, and a challenge's time control no null keys."""
    from tests.support.accounts import signup

    ann = await TestVisitor(chat_server.url).start("Ann")
    bob = await TestVisitor(chat_server.url).start("Bob")
    try:
        realtime = {"kind": "realtime", "base": 180, "increment": 2}
        made = (
            await ann.http.post(
                "/api/games", json={"game": "exxit", "seat": 1, "time_control": realtime}
            )
        ).json()
        joined = await bob.http.post(
            f"/api/games/{made['id']}/join", json={"token": made["join_token"]}
        )
        assert joined.status_code == 200, joined.text
        offered = await ann.http.post(f"/api/games/{made['id']}/offer", json={"kind": "draw"})
        assert offered.status_code == 200, offered.text
        socket = await ann.open(made["id"])
        over_socket = (await socket.expect("snapshot"))["game"]
        over_http = (await ann.http.get(f"/api/games/{made['id']}")).json()["game"]
        assert over_http["clock"]["control"] == over_socket["clock"]["control"] == realtime
        assert over_http["offer"] == over_socket["offer"] == {"kind": "draw", "seat": 1}
        await signup(ann.http, "exact_ann")
        await signup(bob.http, "exact_bob")
        sent = await ann.http.post(
            "/api/challenges",
            json={"to": "exact_bob", "game": "exxit", "seat": 1, "time_control": realtime},
        )
        assert sent.status_code == 201, sent.text
        assert sent.json()["time_control"] == realtime
    finally:
        await ann.close()
        await bob.close()
