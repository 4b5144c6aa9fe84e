"""A crash cannot rate a game twice or skip it: a real server, SIGKILLed just after a rated game's
last move (a resignation) is acknowledged, and while another's is in flight; restarted on the same
database (SQLite, PostgreSQL), each game has its result with exactly one rating update, or neither."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from sqlalchemy import func, select

from app.db import make_engine
from app.models import Rating, RatingChange
from tests.app.test_ratings import rated_game
from tests.support.accounts import signup
from tests.support.server import LiveServer
from tests.support.wsclient import TestVisitor


async def _rows(database_url: str, game_id: str) -> tuple[int, dict[int, int]]:
    """The game's rating_changes rows, and every account's count of rated games."""
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            query = select(func.count()).select_from(RatingChange)
            changes = (
                await conn.execute(query.where(RatingChange.game_id == game_id))
            ).scalar_one()
            games = {r.account_id: r.games for r in await conn.execute(select(Rating))}
        return int(changes), games
    finally:
        await engine.dispose()


async def _resign(client: httpx.AsyncClient, game_id: str) -> httpx.Response:
    version = (await client.get(f"/api/games/{game_id}")).json()["version"]
    return await client.post(
        f"/api/games/{game_id}/resign", json={"version": version, "msg_id": "last"}
    )


async def test_sigkill_after_a_rated_games_last_move(database_url: str) -> None:
    server = LiveServer(database_url)
    server.start()
    visitors = [await TestVisitor(server.url).start() for _ in range(4)]
    try:
        for i, visitor in enumerate(visitors):
            await signup(visitor.http, f"crash{i}_{abs(hash(database_url)) % 10_000}")
        acked_game, _ = await rated_game(visitors[0].http, visitors[1].http, plies=2)
        racing_game, _ = await rated_game(visitors[2].http, visitors[3].http, plies=2)
        answer = await _resign(visitors[1].http, acked_game)
        assert answer.status_code == 200, answer.text  # acknowledged...
        in_flight = asyncio.create_task(_resign(visitors[3].http, racing_game))
        await asyncio.sleep(0)  # the second resignation leaves, and the server dies under it
        server.kill()  # ... and SIGKILL: no shutdown handler runs
        await asyncio.gather(in_flight, return_exceptions=True)
    except BaseException:
        server.stop()
        raise

    restarted = LiveServer(database_url, port=server.port)
    restarted.start()
    try:
        snapshot = (await visitors[0].http.get(f"/api/games/{acked_game}")).json()["game"]
        assert snapshot["status"] == "finished" and len(snapshot["result"]["ratings"]) == 2
        changes, _ = await _rows(database_url, acked_game)
        assert changes == 1
        racing: dict[str, Any] = (await visitors[2].http.get(f"/api/games/{racing_game}")).json()
        changes, games = await _rows(database_url, racing_game)
        if racing["game"]["status"] == "finished":  # the resignation was committed before the kill
            assert changes == 1 and len(racing["game"]["result"]["ratings"]) == 2
        else:  # it was not: no result, no rating; the player may resign again
            assert changes == 0
            assert (await _resign(visitors[3].http, racing_game)).status_code == 200
            assert (await _rows(database_url, racing_game))[0] == 1
        # Each account was rated once per game it finished: one game each.
        assert sorted(games.values()) in ([1, 1], [1, 1, 1, 1])
        final = (await _rows(database_url, racing_game))[1]
        assert sorted(final.values()) == [1, 1, 1, 1]
    finally:
        restarted.stop()
        for visitor in visitors:
            await visitor.close()
