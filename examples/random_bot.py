"""An external bot for Hexmoot that plays random legal moves: the smallest program that plays on
the site through its own protocol (docs/protocol.md, "External bots").

    python examples/random_bot.py --url http://127.0.0.1:8000 --token "$HEXMOOT_BOT_TOKEN"

The token comes from ``POST /api/bots/token`` while logged in as the bot's account; it is a session
of that account, sent as the ``hexmoot_session`` cookie, and ``DELETE /api/account/sessions/{id}``
revokes it (the bot's sockets are then closed). The bot:

- follows ``WS /ws/me``: at its start and at every message there, it reads ``GET /api/me/games``,
  accepts every challenge it received, and starts playing each active game of its own;
- plays a game on ``WS /ws/games/{id}``: whenever the game's state says it is the bot's turn, it
  builds a move from ``GET /api/games/{id}/steps``, one random token of ``next`` at a time until the
  move is ``complete`` (so it needs no rules of its own), and sends it as a ``move`` message with
  the game's version; it stops when the game is over.

It uses only httpx and websockets, both of which the server itself installs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
from typing import Any

import httpx
import websockets

COOKIE = "hexmoot_session"


class RandomBot:
    """One bot account's games, played with random legal moves."""

    def __init__(self, url: str, token: str, seed: int | None = None) -> None:
        self.url = url.rstrip("/")
        self.ws_url = "ws" + self.url.removeprefix("http")
        self.headers = {"Cookie": f"{COOKIE}={token}"}
        self.http = httpx.AsyncClient(base_url=self.url, headers=self.headers, timeout=30)
        self.rng = random.Random(seed)
        self.games: dict[str, asyncio.Task[None]] = {}
        #: Moves this bot played (for a test).
        self.played = 0

    async def run(self) -> None:
        """Follow ``/ws/me`` and play until cancelled (or the token is revoked)."""
        try:
            async with websockets.connect(
                f"{self.ws_url}/ws/me", additional_headers=self.headers
            ) as mine:
                while True:
                    await self.look()
                    await mine.recv()  # something of ours changed: look again
        finally:
            for task in self.games.values():
                task.cancel()
            await self.http.aclose()

    async def look(self) -> None:
        """Accept the challenges received; play every active game not yet played."""
        answer = await self.http.get("/api/me/games")
        answer.raise_for_status()
        mine = answer.json()
        for challenge in mine["challenges"]["incoming"]:
            accepted = await self.http.post(f"/api/challenges/{challenge['id']}/accept")
            if accepted.status_code == 200:
                self.play(accepted.json()["game_id"])
        for game in mine["your_turn"] + mine["waiting"]:
            self.play(game["id"])

    def play(self, game_id: str) -> None:
        """Play ``game_id`` in a task of its own (once)."""
        task = self.games.get(game_id)
        if task is None or task.done():
            self.games[game_id] = asyncio.create_task(self.game(game_id))

    async def game(self, game_id: str) -> None:
        """Play one game to its end on its socket."""
        async with websockets.connect(
            f"{self.ws_url}/ws/games/{game_id}", additional_headers=self.headers
        ) as socket:
            seat: int | None = None
            version = 0
            state: dict[str, Any] = {}
            sent: int | None = None  # the version a move was sent at, until its answer
            while True:
                message = json.loads(await socket.recv())
                if message["type"] == "snapshot":
                    seat, version = message["you"]["seat"], message["version"]
                    state = message["game"]
                elif message["type"] == "event":
                    version, state = message["version"], message["state"]
                elif message["type"] in ("ack", "error"):
                    sent = None
                if state.get("status") in ("finished", "cancelled"):
                    return
                mover = state.get("to_move") == seat and state.get("status") == "active"
                if mover and sent != version:
                    text = await self.random_move(game_id)
                    if text is not None:
                        sent = version
                        move = {"type": "move", "move": text, "version": version}
                        await socket.send(json.dumps({**move, "msg_id": f"r{version}"}))
                        self.played += 1

    async def random_move(self, game_id: str) -> str | None:
        """A random legal move, built from the server's ``steps`` (None if the game moved on)."""
        prefix: list[str] = []
        while True:
            answer = await self.http.get(
                f"/api/games/{game_id}/steps", params=[("prefix", token) for token in prefix]
            )
            if answer.status_code != 200:
                return None
            steps = answer.json()
            if steps["complete"] and (not steps["next"] or self.rng.random() < 0.5):
                return str(steps["move"])
            if not steps["next"]:
                return None
            prefix.append(self.rng.choice(steps["next"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="from POST /api/bots/token")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(RandomBot(args.url, args.token, args.seed).run())


if __name__ == "__main__":
    main()
