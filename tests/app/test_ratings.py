"""Ratings, on SQLite and PostgreSQL: only games between two accounts are rated; a rated result
rates both accounts exactly once, in the transaction that records it; what does not count."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from app.domain.ratings import Glicko, rate
from app.models import Rating, RatingChange
from tests.app.conftest import ClientFactory
from tests.support.accounts import signup
from tests.support.gameplay import MovePicker, quick_game


async def _accounts(clients: ClientFactory, *names: str) -> list[httpx.AsyncClient]:
    made = []
    for name in names:
        client = await clients()
        await signup(client, name)
        made.append(client)
    return made


async def rated_game(
    first: httpx.AsyncClient, second: httpx.AsyncClient, plies: int, rated: bool = True
) -> tuple[str, MovePicker]:
    """A game ``first`` created in seat 1 and ``second`` joined, ``plies`` moves into it."""
    slug, options = quick_game()
    body = {"game": slug, "options": options, "seat": 1, "rated": rated}
    created = (await first.post("/api/games", json=body)).json()
    joined = await second.post(
        f"/api/games/{created['id']}/join", json={"token": created["join_token"]}
    )
    assert joined.status_code == 200, joined.text
    picker = MovePicker(slug, options, seed=5)
    seats = {1: first, 2: second}
    version = joined.json()["version"]
    for ply in range(plies):
        move = picker.pick()
        seat = picker.to_move()
        assert seat is not None
        answer = await seats[seat].post(
            f"/api/games/{created['id']}/moves",
            json={"move": move, "version": version, "msg_id": f"m{ply}"},
        )
        assert answer.status_code == 200, answer.text
        picker.play(move)
        version = answer.json()["version"]
    return created["id"], picker


async def resign(client: httpx.AsyncClient, game_id: str) -> dict[str, Any]:
    version = (await client.get(f"/api/games/{game_id}")).json()["version"]
    answer = await client.post(
        f"/api/games/{game_id}/resign", json={"version": version, "msg_id": "bye"}
    )
    assert answer.status_code == 200, answer.text
    snapshot: dict[str, Any] = (await client.get(f"/api/games/{game_id}")).json()
    return snapshot


async def _changes(app: FastAPI, game_id: str) -> int:
    async with app.state.sessionmaker() as session:
        query = select(func.count()).select_from(RatingChange)
        return int(
            (await session.execute(query.where(RatingChange.game_id == game_id))).scalar_one()
        )


async def test_a_rated_game_rates_both_accounts_once(app: FastAPI, clients: ClientFactory) -> None:
    ann, bob = await _accounts(clients, "ann_rated", "bob_rated")
    game_id, _ = await rated_game(ann, bob, plies=2)
    snapshot = await resign(bob, game_id)
    result = snapshot["game"]["result"]
    assert snapshot["game"]["rated"] is True and result["winner"] == 1
    expected = rate(Glicko(), Glicko(), 1.0)
    assert result["ratings"] == [
        {
            "seat": 1,
            "username": "ann_rated",
            "before": 1500,
            "after": round(expected[0].rating),
            "deviation": round(expected[0].deviation),
            "provisional": True,
        },
        {
            "seat": 2,
            "username": "bob_rated",
            "before": 1500,
            "after": round(expected[1].rating),
            "deviation": round(expected[1].deviation),
            "provisional": True,
        },
    ]
    assert await _changes(app, game_id) == 1
    async with app.state.sessionmaker() as session:
        rows = (
            (await session.execute(select(Rating).where(Rating.slug == quick_game()[0])))
            .scalars()
            .all()
        )
        mine = {r.account_id: (r.games, r.wins, r.losses) for r in rows}
    assert sorted(mine.values()) == [(1, 0, 1), (1, 1, 0)]
    # The result event carried the same ratings to the players' sockets.
    events = (await ann.get(f"/api/games/{game_id}")).json()["game"]["result"]
    assert events["ratings"][0]["after"] > 1500 > events["ratings"][1]["after"]


async def test_what_does_not_count(app: FastAPI, clients: ClientFactory) -> None:
    cy, dee = await _accounts(clients, "cy_rated", "dee_rated")
    one_ply, _ = await rated_game(cy, dee, plies=1)  # resigned after one ply: not rated
    snapshot = await resign(dee, one_ply)
    assert "ratings" not in snapshot["game"]["result"] and await _changes(app, one_ply) == 0
    casual, _ = await rated_game(cy, dee, plies=2, rated=False)
    snapshot = await resign(dee, casual)
    assert snapshot["game"]["rated"] is False and await _changes(app, casual) == 0


async def test_only_accounts_play_rated_games(app: FastAPI, clients: ClientFactory) -> None:
    guest = await clients("Guest Player")
    slug, options = quick_game()
    body = {"game": slug, "options": options, "seat": 1, "rated": True}
    refused = await guest.post("/api/games", json=body)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "account_required"
    (eve,) = await _accounts(clients, "eve_rated")
    created = (await eve.post("/api/games", json=body)).json()
    join = await guest.post(
        f"/api/games/{created['id']}/join", json={"token": created["join_token"]}
    )
    assert join.status_code == 403 and join.json()["error"]["code"] == "account_required"
    snapshot = (await eve.get(f"/api/games/{created['id']}")).json()
    assert snapshot["game"]["status"] == "waiting" and snapshot["version"] == 1


async def test_two_games_of_one_player_ending_together_both_count(
    app: FastAPI, clients: ClientFactory
) -> None:
    """Each rating update reads the rating the other wrote (locked rows on PostgreSQL; one
    writer at a time on SQLite): the player's game count is 2, not 1."""
    fay, gus, hal = await _accounts(clients, "fay_rated", "gus_rated", "hal_rated")
    one, _ = await rated_game(fay, gus, plies=2)
    two, _ = await rated_game(fay, hal, plies=2)
    await asyncio.gather(resign(gus, one), resign(hal, two))
    async with app.state.sessionmaker() as session:
        rows = (
            (await session.execute(select(Rating).where(Rating.slug == quick_game()[0])))
            .scalars()
            .all()
        )
    me = (await fay.get("/api/account")).json()
    assert me["username"] == "fay_rated"
    counts = sorted(r.games for r in rows if r.games == 2)
    assert counts == [2]
    assert await _changes(app, one) == 1 and await _changes(app, two) == 1


async def test_profiles_leaderboards_and_the_archive_by_identity(
    app: FastAPI, clients: ClientFactory
) -> None:
    ivy, jon = await _accounts(clients, "ivy_rated", "jon_rated")
    await jon.put("/api/me", json={"name": "Jon O'Hara"})
    game_id, _ = await rated_game(ivy, jon, plies=2)
    await resign(jon, game_id)
    profile = (await ivy.get("/api/players/IVY_RATED")).json()
    assert profile["username"] == "ivy_rated" and profile["head_to_head"] is None
    assert [(g["id"], g["outcome"]) for g in profile["games"]] == [(game_id, "won")]
    assert profile["ratings"][0]["games"] == 1 and profile["ratings"][0]["provisional"] is True
    seen_by_jon = (await jon.get("/api/players/ivy_rated")).json()
    assert seen_by_jon["head_to_head"] == {"wins": 1, "losses": 0, "draws": 0}
    missing = await ivy.get("/api/players/nobody_at_all")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "player_not_found")
    board = (await ivy.get(f"/api/leaderboards/{quick_game()[0]}")).json()
    names = [p["username"] for p in board["players"]]
    assert names.index("ivy_rated") < names.index("jon_rated")
    unknown = await ivy.get("/api/leaderboards/chess")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (422, "unknown_game")
    # The archive finds a player's games by identity, whatever name the seat was taken with.
    found = (await ivy.get("/api/archive", params={"account": "JON_RATED"})).json()["games"]
    assert [g["id"] for g in found] == [game_id]
    assert found[0]["players"][1] == {"seat": 2, "name": "Jon O'Hara", "account": "jon_rated"}
    assert (await ivy.get("/api/archive", params={"account": "nobody"})).json()["games"] == []
    for params in ({"guest": "xyz"}, {"account": "a", "guest": "0" * 32}):
        bad = await ivy.get("/api/archive", params=params)
        assert (bad.status_code, bad.json()["error"]["code"]) == (422, "bad_filter")
    # The pages render the names escaped.
    page = await ivy.get("/players/jon_rated")
    assert page.status_code == 200 and "Jon O&#39;Hara" in page.text
    assert (await ivy.get("/players/nobody_at_all")).status_code == 404
    assert (await ivy.get(f"/leaderboards/{quick_game()[0]}")).status_code == 200
