"""A game creation sent again makes no second game (docs/protocol.md, ``POST /api/games``, issue 27).

A creation whose answer was lost (a dropped connection, a proxy timeout, a process killed after its
commit) is sent again with the same ``Idempotency-Key``: the answer is the first one's game. Real
uvicorn processes on SQLite and PostgreSQL (``backend``), real HTTP; the day a key is kept is run
on an in-process app with a fake clock.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.db import make_engine, make_sessionmaker
from app.domain.clock import FakeClock
from app.main import create_app
from app.models import CreationKey, Game
from tests.app.conftest import make_settings
from tests.support.databases import fresh_database
from tests.support.gameplay import quick_game
from tests.support.server import LiveServer, live_server
from tests.support.wsclient import TestVisitor

KEY = "Idempotency-Key"


@pytest.fixture
async def sessions(database_url: str) -> AsyncIterator[Any]:
    engine = make_engine(database_url)
    yield make_sessionmaker(engine)
    await engine.dispose()


def body(**changes: Any) -> dict[str, Any]:
    slug, options = quick_game()
    return {"game": slug, "options": options} | changes


async def games_of(sessions: Any, visitor: TestVisitor) -> list[str]:
    """The ids of the games ``visitor`` created."""
    me = (await visitor.http.get("/api/me")).json()["id"]
    async with sessions() as session:
        rows = await session.execute(select(Game.id).where(Game.creator_id == me))
        return sorted(rows.scalars())


async def test_the_same_key_sent_again_answers_with_the_same_game(
    server: LiveServer, sessions: Any
) -> None:
    """Sent again with its key, a creation answers 201 with the first one's game, seat (drawn at
    random the first time) and join token, byte for byte, and the visitor has one game; quoted as
    a structured-field string, the key is the same key. A new key makes a new game."""
    ann = await TestVisitor(server.url).start("Ann")
    key = secrets.token_urlsafe(16)
    first = await ann.http.post("/api/games", json=body(seat="random"), headers={KEY: key})
    assert first.status_code == 201, first.text
    for header in (key, f'"{key}"'):
        again = await ann.http.post("/api/games", json=body(seat="random"), headers={KEY: header})
        assert again.status_code == 201 and again.json() == first.json(), again.text
    assert await games_of(sessions, ann) == [first.json()["id"]]
    # the defaults spelled out are the same request
    slug, options = quick_game()
    spelled = {"game": slug, "options": options, "seat": "random", "public": True, "rated": False}
    again = await ann.http.post("/api/games", json=spelled, headers={KEY: key})
    assert again.json() == first.json(), again.text
    other = await ann.http.post("/api/games", json=body(), headers={KEY: key + "2"})
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]
    assert len(await games_of(sessions, ann)) == 2
    await ann.close()


async def test_a_key_reused_for_another_request_is_refused_and_makes_nothing(
    server: LiveServer, sessions: Any
) -> None:
    """The key of one creation sent with another body: 422 ``idempotency_key_reused``, naming the
    header, and no game. Another visitor's key is not this visitor's: the same key makes a game
    of its own."""
    ann = await TestVisitor(server.url).start("Ann")
    bo = await TestVisitor(server.url).start("Bo")
    key = secrets.token_urlsafe(16)
    first = await ann.http.post("/api/games", json=body(seat=1), headers={KEY: key})
    assert first.status_code == 201, first.text
    for changed in (body(seat=2), body(seat=1, public=False), body(seat=1, takebacks=False)):
        refused = await ann.http.post("/api/games", json=changed, headers={KEY: key})
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"]["code"] == "idempotency_key_reused"
        assert refused.json()["error"]["field"] == KEY
    assert await games_of(sessions, ann) == [first.json()["id"]]
    theirs = await bo.http.post("/api/games", json=body(seat=1), headers={KEY: key})
    assert theirs.status_code == 201 and theirs.json()["id"] != first.json()["id"]
    await ann.close()
    await bo.close()


@pytest.mark.parametrize(
    "header",
    ["", '""', "a b", "x" * 65, '"abc', 'ab"c', "é".encode().decode("latin-1"), "a,b", "a;b"],
)
async def test_a_malformed_key_is_refused_and_makes_nothing(
    server: LiveServer, sessions: Any, header: str
) -> None:
    ann = await TestVisitor(server.url).start("Ann")
    refused = await ann.http.post(
        "/api/games", json=body(), headers=[(KEY.encode(), header.encode("latin-1"))]
    )
    assert refused.status_code == 422, refused.text
    error = refused.json()["error"]
    assert error["code"] == "invalid_request" and error["field"] == KEY
    assert await games_of(sessions, ann) == []
    await ann.close()


async def test_one_key_sent_to_two_processes_at_once_makes_one_game(
    server: LiveServer, sessions: Any
) -> None:
    """The retries of one creation race each other through two processes (as a client retrying
    through a proxy does): every answer names the same game, and there is one. Many trials."""
    with live_server(server.database_url) as other:
        ann = await TestVisitor(server.url).start("Ann")
        there = httpx.AsyncClient(base_url=other.url, cookies=ann.http.cookies, timeout=30)
        try:
            for _ in range(8):
                key = secrets.token_urlsafe(16)
                sends = [
                    client.post("/api/games", json=body(seat=2), headers={KEY: key})
                    for client in (ann.http, there, ann.http, there)
                ]
                answers = await asyncio.gather(*sends)
                assert {a.status_code for a in answers} == {201}, [a.text for a in answers]
                assert len({a.text for a in answers}) == 1, [a.text for a in answers]
            assert len(await games_of(sessions, ann)) == 8
        finally:
            await there.aclose()
            await ann.close()


async def test_a_key_is_kept_a_day_then_forgotten(tmp_path: Path) -> None:
    """Within a day the key answers with its game; the sweep after a day forgets it, and the
    same key then makes a new game. An in-process app on a fake clock."""
    clock = FakeClock()
    with fresh_database("sqlite", tmp_path) as url:
        app = create_app(make_settings(url), clock=clock)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as ann:
                assert (await ann.get("/api/me")).status_code == 200
                first = await ann.post("/api/games", json=body(), headers={KEY: "k1"})
                sweep = app.state.service.deadlines.sweep_abandoned
                clock.advance(23 * 3600)
                await sweep()
                again = await ann.post("/api/games", json=body(), headers={KEY: "k1"})
                assert again.json() == first.json()
                clock.advance(3600 + 1)
                await sweep()
                async with app.state.service.core.sessions() as session:
                    kept = await session.scalar(select(func.count()).select_from(CreationKey))
                assert kept == 0
                later = await ann.post("/api/games", json=body(), headers={KEY: "k1"})
                assert later.status_code == 201 and later.json()["id"] != first.json()["id"]
