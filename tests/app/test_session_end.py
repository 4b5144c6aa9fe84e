"""A session that ends stops acting at once on every socket it opened, in every process (issue 26).

Two uvicorn processes share one PostgreSQL database and Redis, as a site runs. The thief's sockets
(a game it holds a seat in, and ``/ws/me``) are open on the second process; the account's owner ends
the session through the first, in each of the five ways a session ends: revoking it from the
sessions list, logging out (the thief holds a copy of that very cookie), logging out everywhere,
changing the password, and resetting it by a recovery link. Each time the thief's sockets are told
``session_ended`` and closed with 4401, a move sent on them is never played, and the same cookie
reconnects as a guest only.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
import websockets

from tests.support.accounts import DEFAULT_PASSWORD, login, signup, verify_email
from tests.support.databases import fresh_database
from tests.support.gameplay import MovePicker, quick_game, start_game
from tests.support.server import LiveServer, live_server
from tests.support.smtp import SmtpServer, smtp
from tests.support.wsclient import GameSocket, TestVisitor

__all__ = ["smtp"]

WAYS = ("revoke", "logout", "logout_everywhere", "password", "reset")


@pytest.fixture(scope="module")
def two_processes(
    tmp_path_factory: pytest.TempPathFactory, smtp: SmtpServer
) -> Iterator[tuple[LiveServer, LiveServer]]:
    env = {
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "REDIS_PREFIX": f"test-{secrets.token_hex(6)}:",
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": str(smtp.port),
    }
    with (
        fresh_database("postgres", tmp_path_factory.mktemp("sessions")) as url,
        live_server(url, env) as one,
        live_server(url, env) as two,
    ):
        yield one, two


async def end_session(way: str, owner: TestVisitor, smtp: SmtpServer, address: str) -> None:
    """End the thief's session from the owner's browser (on the first process)."""
    http = owner.http
    if way == "revoke":
        listed = (await http.get("/api/account/sessions")).json()["sessions"]
        (other,) = [s for s in listed if not s["current"]]
        assert (await http.delete(f"/api/account/sessions/{other['id']}")).status_code == 204
    elif way == "logout":
        assert (await http.post("/api/account/logout", json={})).status_code == 200
    elif way == "logout_everywhere":
        assert (await http.post("/api/account/logout-all", json={})).status_code == 200
    elif way == "password":
        body = {"current": DEFAULT_PASSWORD, "new": "a wholly other phrase"}
        assert (await http.post("/api/account/password", json=body)).status_code == 200
    else:
        before = len(smtp.inbox.to(address))
        asked = await http.post("/api/account/recover", json={"username_or_email": address})
        assert asked.status_code == 202, asked.text
        (mail,) = (await smtp.inbox.arrived(address, before + 1))[before:]
        token = smtp.inbox.link(mail, "/account/reset").split("token=", 1)[1]
        body = {"token": token, "password": "a wholly other phrase"}
        assert (await http.post("/api/account/reset", json=body)).status_code == 200


async def closed_with_session_ended(socket: GameSocket) -> None:
    """The socket says ``session_ended``, then is closed with 4401."""
    error = await socket.expect("error")
    assert error["code"] == "session_ended", error
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            await socket.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


@pytest.mark.parametrize("way", WAYS)
async def test_an_ended_session_stops_its_sockets_on_another_process(
    two_processes: tuple[LiveServer, LiveServer], smtp: SmtpServer, way: str
) -> None:
    one, two = two_processes
    username = f"s_{way[:8]}_{secrets.token_hex(3)}"
    address = f"{username}@example.org"
    owner, thief, bo = TestVisitor(one.url), TestVisitor(two.url), TestVisitor(one.url)
    try:
        await owner.start()
        await signup(owner.http, username, email=address)
        await verify_email(owner.http, smtp.inbox, address)  # a recovery link goes to it only so
        if way == "logout":  # the thief holds a copy of the owner's own cookie
            thief.http.cookies = owner.http.cookies
        else:  # the thief signed in on a browser of its own
            await thief.start()
            await login(thief.http, username)
        await bo.start("Bo")
        slug, options = quick_game()
        created = await start_game(owner.http, bo.http, slug, options)
        game_id = created["id"]
        picker = MovePicker(slug, options)
        assert picker.to_move() == 1  # the account's seat moves first

        play = await thief.open(game_id)
        snapshot = await play.expect("snapshot")
        assert snapshot["you"]["seat"] == 1  # the thief acts for the account
        mine = await thief.open_path("/ws/me")
        assert (await mine.expect("mine"))["type"] == "mine"

        await end_session(way, owner, smtp, address)

        await closed_with_session_ended(play)
        await closed_with_session_ended(mine)
        move: dict[str, Any] = {
            "type": "move",
            "move": picker.pick(),
            "version": snapshot["version"],
            "msg_id": "m-after",
        }
        with pytest.raises(websockets.ConnectionClosed):
            await play.send(move)
        # The same cookie, back on the second process: a guest, with no seat in the game.
        again = await thief.open(game_id)
        reopened = await again.expect("snapshot")
        assert reopened["you"]["seat"] is None
        await again.send(move)
        refused = await again.expect("error")
        assert refused["msg_id"] == "m-after" and refused["code"] != "session_ended", refused
        state = (await bo.http.get(f"/api/games/{game_id}")).json()
        assert state["version"] == snapshot["version"] and state["game"]["moves"] == []
        assert (await thief.http.get("/api/account")).status_code == 401
    finally:
        for visitor in (owner, thief, bo):
            await visitor.close()


async def test_a_socket_of_a_live_session_stays_when_another_session_ends(
    two_processes: tuple[LiveServer, LiveServer], smtp: SmtpServer
) -> None:
    """Only the ended session's sockets go: the owner's own, on the other process, play on."""
    one, two = two_processes
    username = f"s_stay_{secrets.token_hex(3)}"
    owner, thief, bo = TestVisitor(two.url), TestVisitor(one.url), TestVisitor(one.url)
    try:
        await owner.start()
        await signup(owner.http, username)
        await thief.start()
        await login(thief.http, username)
        await bo.start("Bo")
        slug, options = quick_game()
        created = await start_game(owner.http, bo.http, slug, options)
        picker = MovePicker(slug, options)
        stays = await owner.open(created["id"])
        snapshot = await stays.expect("snapshot")
        goes = await thief.open(created["id"])
        await goes.expect("snapshot")

        listed = (await owner.http.get("/api/account/sessions")).json()["sessions"]
        (other,) = [s for s in listed if not s["current"]]
        assert (await owner.http.delete(f"/api/account/sessions/{other['id']}")).status_code == 204
        await closed_with_session_ended(goes)

        move = {"type": "move", "move": picker.pick(), "version": snapshot["version"]}
        await stays.send({**move, "msg_id": "m-owner"})
        ack = await stays.expect("ack", "error")
        assert ack["type"] == "ack" and ack["msg_id"] == "m-owner", ack
    finally:
        for visitor in (owner, thief, bo):
            await visitor.close()


async def test_a_recovery_answers_before_it_looks_for_the_account(
    two_processes: tuple[LiveServer, LiveServer], smtp: SmtpServer
) -> None:
    """The answer to a recovery never says whether the account exists, by its words or by its time
    (an unknown name answered in 8 to 12 ms, a known one in 16 to 20 ms): it comes before the
    database is asked and the mail sent. Shown without a stopwatch: while the SMTP server holds
    every mail, the answer for a known account still comes, and the mail follows once released."""
    one, _ = two_processes
    username = f"r_{secrets.token_hex(4)}"
    address = f"{username}@example.org"
    owner = TestVisitor(one.url)
    try:
        await owner.start()
        await signup(owner.http, username, email=address)
        await verify_email(owner.http, smtp.inbox, address)  # a recovery link goes to it only so
        smtp.inbox.open.clear()
        try:
            for who in (username, address, "nobody_at_all"):
                answer = await owner.http.post(
                    "/api/account/recover", json={"username_or_email": who}
                )
                assert (answer.status_code, answer.json()) == (202, {"ok": True})
            assert (
                smtp.inbox.holding(address, "/account/reset") == []
            )  # held, answered all the same
        finally:
            smtp.inbox.open.set()
        await smtp.inbox.arrived(address, 3)  # its verification link, then two recovery links
        assert len(smtp.inbox.holding(address, "/account/reset")) == 2
    finally:
        await owner.close()
