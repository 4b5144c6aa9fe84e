"""The game page survives dropped connections without a reload and without losing a move.

Three cuts: a socket closed under a player while the opponent moves (the catch-up brings the move);
a move typed while the player is offline (sent on reconnection, played once); a move whose
acknowledgement is lost with the connection (resent with the same msg_id: the server answers it as
a duplicate and the move is not played twice). Then the server process itself is killed and
restarted on the same port and database: both pages reconnect and the game goes on. And a move
answered ``unavailable`` (the database out of reach, issue 27) is sent again with its msg_id.
"""

from __future__ import annotations

import json
import random
import re
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.browser.conftest import Guests
from tests.browser.helpers import ConsoleErrors, create_game, join_game, play_one_move
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser


PLAN = SimpleNamespace(slug="valaturna", options={"size": "5"}, invite=False)


def moves(page: Page) -> list[str]:
    return list(page.evaluate("window.hexmoot.state.moves"))


def to_move(page: Page) -> int:
    return int(page.evaluate("window.hexmoot.state.game.to_move"))


def wait_moves(page: Page, expected: list[str]) -> None:
    page.wait_for_function(
        "(m) => JSON.stringify(window.hexmoot.state.moves) === JSON.stringify(m)", arg=expected
    )


def cut(page: Page) -> None:
    """Take the page offline and close its socket, as a dropped network would."""
    page.context.set_offline(True)
    page.evaluate("window.hexmoot.socket.ws.close()")
    expect(page.locator("#conn")).not_to_have_attribute("data-state", "open")


def restore(page: Page) -> None:
    page.context.set_offline(False)
    expect(page.locator("#conn")).to_have_attribute("data-state", "open")


def legal_cell(page: Page) -> str:
    """A cell the page offers for the next click (the page asked the server)."""
    page.wait_for_selector("#board svg.active .hit.can")
    return str(page.eval_on_selector("#board svg.active .hit.can", "e => e.dataset.id"))


def test_reconnection_keeps_every_move(
    server: LiveServer, guests: Guests, console: ConsoleErrors
) -> None:
    # The browser itself logs each refused reconnection attempt while the network is cut.
    console.allow(r"WebSocket connection to 'ws://[^']*/ws/(games/[^']*|me)' failed")
    rng = random.Random(7)
    ann, bo = guests.page(), guests.page()
    plan = PLAN
    game_id = create_game(ann, server, plan, "Ann")
    join_game(bo, server, ann, game_id, plan, "Bo")
    players = {1: ann, 2: bo}
    played: list[str] = []
    for _ in range(4):  # the two-stack pie, the choice and a first placement
        played.append(play_one_move(players[to_move(ann)], rng))
        wait_moves(ann, played)
        wait_moves(bo, played)
    ann.evaluate("window.notReloaded = true")
    bo.evaluate("window.notReloaded = true")

    # 1. The socket of the player NOT to move drops; the opponent moves meanwhile.
    mover = players[to_move(ann)]
    waiter = bo if mover is ann else ann
    cut(waiter)
    played.append(play_one_move(mover, rng))
    wait_moves(mover, played)
    assert moves(waiter) == played[:-1]
    restore(waiter)
    wait_moves(waiter, played)  # caught up without a reload

    # 2. The player to move goes offline and types a move: it is sent on reconnection.
    mover, waiter = waiter, mover
    cell = legal_cell(mover)
    cut(mover)
    mover.click("#typed summary")  # the typed box is a disclosure apart from the board's confirm
    mover.fill("#move-input", cell)
    mover.press("#move-input", "Enter")
    # The page has taken the move and holds it for the reconnection: its only way out is the
    # socket, which is closed, so the server cannot have it yet.
    mover.wait_for_function(
        """(cell) => {
            const H = window.hexmoot;
            const held = [...H.socket.pending.values()];
            return H.entry.sending !== null && held.length === 1 && held[0].move === cell
                && (!H.socket.ws || H.socket.ws.readyState !== WebSocket.OPEN);
        }""",
        arg=cell,
    )
    assert (
        httpx.get(f"{server.url}/api/games/{game_id}", timeout=PATIENCE).json()["game"]["moves"]
        == played
    )
    assert moves(waiter) == played
    restore(mover)
    played.append(cell)
    wait_moves(mover, played)
    wait_moves(waiter, played)

    # 3. A move whose ack is lost: the socket is closed right after sending it; the page resends
    #    it with the same msg_id, and the server answers it as a duplicate.
    mover, waiter = waiter, mover
    cell = legal_cell(mover)
    mover.evaluate(
        """(cell) => {
            const H = window.hexmoot;
            H.sent = [];
            const orig = WebSocket.prototype.send;
            WebSocket.prototype.send = function (data) { H.sent.push(JSON.parse(data)); return orig.call(this, data); };
            document.getElementById('move-input').value = cell;
            document.getElementById('move-form').requestSubmit();
            H.socket.ws.close();
        }""",
        cell,
    )
    played.append(cell)
    wait_moves(mover, played)
    wait_moves(waiter, played)
    sent = mover.evaluate("window.hexmoot.sent.filter(m => m.type === 'move')")
    assert len(sent) >= 1 and len({m["msg_id"] for m in sent}) == 1
    mover.wait_for_function("() => window.hexmoot.socket.pending.size === 0")
    assert moves(waiter).count(cell) == 1

    # 4. The server dies (SIGKILL) and comes back on the same port and database.
    server.kill()
    for page in (ann, bo):
        expect(page.locator("#conn")).not_to_have_attribute("data-state", "open")
    server.start()
    for page in (ann, bo):
        expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    played.append(play_one_move(players[to_move(ann)], rng))
    wait_moves(ann, played)
    wait_moves(bo, played)
    assert ann.evaluate("window.notReloaded") and bo.evaluate("window.notReloaded")


def test_a_move_answered_unavailable_is_sent_again_with_its_msg_id(
    server: LiveServer, guests: Guests, console: ConsoleErrors
) -> None:
    """Issue 27: while the server's database is out of reach a move is answered ``unavailable``;
    the page keeps it and sends it again (same msg_id) after a second, and it is played once.
    The refusal is made in the browser's socket route (the database itself stays up)."""
    rng = random.Random(11)
    ann, bo = guests.page(), guests.page()
    game_id = create_game(ann, server, PLAN, "Ann")
    join_game(bo, server, ann, game_id, PLAN, "Bo")
    mover = {1: ann, 2: bo}[to_move(ann)]
    refused: list[dict[str, Any]] = []
    forwarded: list[dict[str, Any]] = []

    def route(ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "move" and not refused:
                refused.append(data)
                error = {"type": "error", "code": "unavailable", "msg_id": data["msg_id"],
                         "message": "the database cannot be reached just now"}  # fmt: skip
                ws.send(json.dumps(error))
                return
            if data.get("type") == "move":
                forwarded.append(data)
            upstream.send(message)

        ws.on_message(from_page)

    mover.route_web_socket(re.compile(r"/ws/games/"), route)
    mover.evaluate("window.hexmoot.socket.restart()")  # the next socket goes through the route
    expect(mover.locator("#conn")).to_have_attribute("data-state", "open")
    played = play_one_move(mover, rng)
    wait_moves(ann, [played])
    wait_moves(bo, [played])
    assert [m["msg_id"] for m in forwarded] == [refused[0]["msg_id"]]
    stored = httpx.get(f"{server.url}/api/games/{game_id}", timeout=PATIENCE).json()
    assert stored["game"]["moves"] == [played]
