"""Refusals in plain language over HTTP and the websocket (issue 15): a refused move's ``message`` is
what the player reads ("e5 is occupied"), its ``rule`` the rules section; a move out of turn names
the player to move."""

from __future__ import annotations

from typing import Any

import pytest

from app.models import Game
from app.schemas import SERVER_MESSAGE
from app.schemas.responses import ErrorOut
from app.services.play import not_your_turn
from tests.support.server import LiveServer
from tests.support.wsclient import TestVisitor

# Each game: the moves that reach the position (seats 1, 2, ... in turn), then which seat moves,
# a move the rules refuse there, its message and its rule.
CASES = [
    ("jotun", ["e5", "black"], 1, "e5", "e5 is occupied", "A3"),
    ("valaturna", ["e3/e7", "black"], 2, "e3", "e3 is occupied", "4"),
    ("harmijan", ["f5,f6/c3,c4"], 2, "f5,f6/c3,c4", "The pairs are already placed", "5"),
    ("sgolte", ["e5", "black"], 1, "e5", "e5 is occupied", "4"),
    ("exxit", [], 1, "pass", "You can pass only when no other move exists", "4"),
]
NAMES = {1: "Ann", 2: "Bo"}


@pytest.mark.parametrize(("slug", "moves", "mover", "text", "message", "rule"), CASES)
async def test_a_refused_move_reads_plainly_and_names_its_rule(
    server: LiveServer, slug: str, moves: list[str], mover: int, text: str, message: str, rule: str
) -> None:
    ann, bo = [await TestVisitor(server.url).start(NAMES[seat]) for seat in (1, 2)]
    seats = {1: ann, 2: bo}
    try:
        created = await ann.http.post(
            "/api/games", json={"game": slug, "options": {}, "seat": 1, "public": True}
        )
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        joined = await bo.http.post(
            f"/api/games/{game_id}/join", json={"token": created.json()["join_token"]}
        )
        assert joined.status_code == 200, joined.text
        version = 2
        for ply, move in enumerate(moves):
            played = await seats[ply % 2 + 1].http.post(
                f"/api/games/{game_id}/moves",
                json={"move": move, "version": version, "msg_id": f"m{ply}"},
            )
            assert played.status_code == 200, played.text
            version += 1
        url = f"/api/games/{game_id}/moves"
        refused = await seats[mover].http.post(
            url, json={"move": text, "version": version, "msg_id": "bad"}
        )
        assert refused.status_code == 422
        body: dict[str, Any] = refused.json()
        ErrorOut.model_validate(body)
        assert body == {"error": {"code": "illegal_move", "message": message, "rule": rule}}
        waiting = await seats[3 - mover].http.post(
            url, json={"move": text, "version": version, "msg_id": "early"}
        )
        assert waiting.status_code == 409
        assert waiting.json() == {
            "error": {"code": "not_your_turn", "message": f"It is {NAMES[mover]}'s turn"}
        }

        socket = await seats[mover].open(game_id)
        await socket.expect("snapshot")
        await socket.send({"type": "move", "move": text, "version": version, "msg_id": "ws-bad"})
        error = await socket.expect("error")
        SERVER_MESSAGE.validate_python(error)
        assert error == {
            "type": "error",
            "code": "illegal_move",
            "message": message,
            "rule": rule,
            "msg_id": "ws-bad",
        }
        await socket.send({"type": "move", "move": "zz99", "version": version, "msg_id": "ws-x"})
        invalid = await socket.expect("error")
        assert invalid["code"] == "invalid_move"
        assert invalid["message"].startswith("zz99 is not"), invalid
        assert "'" not in invalid["message"] and "[" not in invalid["message"]
    finally:
        for visitor in (ann, bo):
            await visitor.close()


def test_a_move_out_of_turn_names_the_player_to_move_or_the_opponent() -> None:
    game = Game(player1_name="Alice", player2_name=None, to_move=1)
    assert not_your_turn(game) == "It is Alice's turn"
    game.to_move = 2
    assert not_your_turn(game) == "It is your opponent's turn"
