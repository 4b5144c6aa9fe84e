"""The external bot API (issue 29): an account gets a token for a program, the example bot
(``examples/random_bot.py``) plays with it through a real server (it accepts a challenge and plays
random legal moves from ``steps`` on the game socket), and revoking the token closes its sockets
and refuses it from then on."""

from __future__ import annotations

import asyncio
import importlib.util
import secrets
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from tests.support.accounts import signup
from tests.support.gameplay import MovePicker, quick_game
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer
from tests.support.wsclient import TestVisitor

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "random_bot.py"


def example_bot() -> ModuleType:
    """The example bot's module, loaded from its file as ``python examples/random_bot.py`` runs."""
    spec = importlib.util.spec_from_file_location("random_bot", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["random_bot"] = module
    spec.loader.exec_module(module)
    return module


async def snapshot_of(visitor: TestVisitor, game_id: str) -> dict[str, Any]:
    answer = await visitor.http.get(f"/api/games/{game_id}")
    assert answer.status_code == 200, answer.text
    snapshot: dict[str, Any] = answer.json()
    return snapshot


async def until(check: Any, what: str) -> Any:
    """The first truthy value of ``await check()``; fails after PATIENCE."""
    end = time.monotonic() + PATIENCE
    while not (value := await check()):
        assert time.monotonic() < end, f"not in time: {what}"
        await asyncio.sleep(0.05)
    return value


async def test_a_guest_gets_no_bot_token(server: LiveServer) -> None:
    guest = await TestVisitor(server.url).start()
    try:
        answer = await guest.http.post("/api/bots/token")
        assert answer.status_code == 401 and answer.json()["error"]["code"] == "not_signed_in"
    finally:
        await guest.close()


async def test_the_example_bot_accepts_a_challenge_plays_and_stops_when_revoked(
    server: LiveServer,
) -> None:
    robo, bo = TestVisitor(server.url), TestVisitor(server.url)
    await robo.start()
    await bo.start()
    name = f"robo{secrets.token_hex(3)}"
    await signup(robo.http, name)
    await signup(bo.http, f"bo{secrets.token_hex(3)}")
    issued = await robo.http.post("/api/bots/token")
    assert issued.status_code == 200, issued.text
    token = issued.json()
    assert token["cookie"] == "hexmoot_session"
    sessions = (await robo.http.get("/api/account/sessions")).json()["sessions"]
    assert token["session"] in {s["id"] for s in sessions}

    bot = example_bot().RandomBot(server.url, token["token"], seed=3)
    running = asyncio.create_task(bot.run())
    try:
        slug, options = quick_game()
        challenge = await bo.http.post(
            "/api/challenges",
            json={"to": name, "game": slug, "options": options, "seat": 1, "rated": False},
        )
        assert challenge.status_code == 201, challenge.text

        async def started() -> str | None:
            mine = (await bo.http.get("/api/me/games")).json()
            games = mine["your_turn"] + mine["waiting"]
            return str(games[0]["id"]) if games else None

        game_id = await until(started, "the bot accepts the challenge")
        picker = MovePicker(slug, options, seed=4)
        for _ in range(3):  # Bo's move, then the bot's, three times
            snapshot = await snapshot_of(bo, game_id)
            text = picker.pick()
            body = {"move": text, "version": snapshot["version"], "msg_id": f"b{len(picker.moves)}"}
            moved = await bo.http.post(f"/api/games/{game_id}/moves", json=body)
            assert moved.status_code == 200, moved.text
            picker.play(text)
            if picker.to_move() is None:
                break

            async def answered() -> dict[str, Any] | None:
                s = await snapshot_of(bo, game_id)
                ours = s["game"]["to_move"] == 1 or s["game"]["status"] != "active"
                return s if ours and len(s["game"]["moves"]) > len(picker.moves) else None

            snapshot = await until(answered, "the bot's move")
            for text in snapshot["game"]["moves"][len(picker.moves) :]:
                picker.play(text)
            if snapshot["game"]["status"] != "active":
                break
        assert bot.played >= 1

        # Revoked: the bot's sockets are closed, and its token opens nothing any more.
        revoked = await robo.http.delete(f"/api/account/sessions/{token['session']}")
        assert revoked.status_code in (200, 204), revoked.text
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(running, PATIENCE)
        visitor = TestVisitor(server.url)
        visitor.http.cookies.set("hexmoot_session", token["token"])
        me = (await visitor.http.get("/api/me")).json()
        assert me["account"] is None
        await visitor.close()
    finally:
        running.cancel()
        await robo.close()
        await bo.close()
