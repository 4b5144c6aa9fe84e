"""Two players at one game over HTTP, and the moves between them: the table the clock and table
tests (``tests/app/test_clocks.py``, ``tests/app/test_table.py``) play at."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gameplay import MovePicker


class Seats:
    """Ann (seat 1) and Bob (seat 2) at one game; legal moves come from a seeded
    :class:`MovePicker`."""

    def __init__(self, game_id: str, seats: dict[int, httpx.AsyncClient], picker: MovePicker):
        self.id, self.seats, self.picker = game_id, seats, picker

    @classmethod
    async def sit(
        cls, ann: httpx.AsyncClient, bob: httpx.AsyncClient, body: dict[str, Any], seed: int
    ) -> Seats:
        """Ann creates the game ``body`` describes (in seat 1) and Bob joins it."""
        created = (await ann.post("/api/games", json={**body, "seat": 1})).json()
        joined = await bob.post(
            f"/api/games/{created['id']}/join", json={"token": created["join_token"]}
        )
        assert joined.status_code == 200, joined.text
        return cls(created["id"], {1: ann, 2: bob}, MovePicker(body["game"], body["options"], seed))

    async def snapshot(self) -> dict[str, Any]:
        """The game as Ann sees it (``GET /api/games/{id}``)."""
        return dict((await self.seats[1].get(f"/api/games/{self.id}")).json())

    async def play(self, plies: int = 1) -> None:
        """The seat to move plays the picker's next legal move, ``plies`` times."""
        for _ in range(plies):
            version = (await self.snapshot())["version"]
            seat = self.picker.to_move()
            assert seat is not None
            move = self.picker.pick()
            answer = await self.seats[seat].post(
                f"/api/games/{self.id}/moves",
                json={"move": move, "version": version, "msg_id": f"m{version}"},
            )
            assert answer.status_code == 200, answer.text
            self.picker.play(move)

    async def post(self, seat: int, what: str, **body: Any) -> httpx.Response:
        """``POST /api/games/{id}/{what}`` by ``seat``, with ``body`` as JSON."""
        return await self.seats[seat].post(f"/api/games/{self.id}/{what}", json=body)

    async def close(self) -> None:
        for c in self.seats.values():
            await c.aclose()
