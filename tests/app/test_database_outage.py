"""A database out of reach, in process (issue 27): what is refused, and that a retry is safe.

The database's absence is played by the app's one write path refusing, as asyncpg does when
PostgreSQL is stopped: before the commit (nothing stored), or after it (the commit landed, its
answer was lost with the connection). Either way the client is told ``unavailable`` (503 with
``Retry-After``), and the same move resent with the same ``msg_id`` is played exactly once. The
whole outage through nginx, with a real PostgreSQL stopped, is tests/deploy/test_postgres_outage.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import exc as sa
from sqlalchemy import select

from app.db import make_engine
from app.domain.clock import to_ms
from app.main import create_app
from app.models import Lease
from app.repository.outage import Unanswered, database_unavailable
from app.repository.writer import Writer
from app.repository.writes import SITE, Beat
from app.runtime.clock import SystemClock
from app.runtime.hub import game_channel
from tests.app.conftest import make_settings
from tests.support.contract import checked
from tests.support.gameplay import MovePicker, quick_game
from tests.support.patience import PATIENCE

REFUSED = ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")


@contextlib.asynccontextmanager
async def running(database_url: str) -> AsyncIterator[FastAPI]:
    application = create_app(make_settings(database_url))
    async with application.router.lifespan_context(application):
        yield application


def client(app: FastAPI) -> httpx.AsyncClient:
    return checked(
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")
    )


async def seated(app: FastAPI) -> tuple[httpx.AsyncClient, str, str]:
    """A game joined by two guests; the client of the seat to move (1), the game, a legal move."""
    ann, bo = client(app), client(app)
    slug, options = quick_game()
    created = await ann.post("/api/games", json={"game": slug, "options": options, "seat": 1})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    joined = await bo.post(
        f"/api/games/{game_id}/join", json={"token": created.json()["join_token"]}
    )
    assert joined.status_code == 200, joined.text
    return ann, game_id, MovePicker(slug, options).pick()


def failing(app: FastAPI, after_commit: bool) -> Callable[[], None]:
    """Make the next write fail as a lost connection does (before or after its commit); returns
    the undo."""
    writer = app.state.service.core.writer
    write = writer.write

    async def once(change: Any) -> Any:
        writer.write = write
        if after_commit:
            await write(change)
        raise sa.InterfaceError("COMMIT", None, REFUSED)

    writer.write = once
    return lambda: setattr(writer, "write", write)


@pytest.mark.parametrize("after_commit", [False, True], ids=["before commit", "after commit"])
async def test_a_move_refused_unavailable_is_safe_to_retry(
    database_url: str, after_commit: bool
) -> None:
    async with running(database_url) as app:
        ann, game_id, move = await seated(app)
        body = {"move": move, "version": 2, "msg_id": "m-1"}
        # What the opponent's and spectators' sockets hear.
        async with app.state.hub.subscribe(game_channel(game_id)) as channel:
            undo = failing(app, after_commit)
            try:
                refused = await ann.post(f"/api/games/{game_id}/moves", json=body)
            finally:
                undo()
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "unavailable"
            assert refused.headers["retry-after"] == "1"
            game = (await ann.get(f"/api/games/{game_id}")).json()
            assert game["game"]["moves"] == ([move] if after_commit else [])
            again = await ann.post(f"/api/games/{game_id}/moves", json=body)
            assert again.status_code == 200, again.text
            assert again.json()["duplicate"] is after_commit  # its commit had landed: the same ack
            game = (await ann.get(f"/api/games/{game_id}")).json()
            assert game["game"]["moves"] == [move] and game["version"] == 3
            # The move reaches the game's channel even when its first answer was lost with its
            # commit's connection: the retry publishes it, else the opponent never sees it.
            heard = json.loads(await asyncio.wait_for(channel.get(), PATIENCE) or "null")
            assert heard["type"] == "event" and heard["version"] == 3, heard
            assert heard["data"]["move"] == move, heard
        await ann.aclose()


async def test_only_a_database_out_of_reach_is_unavailable() -> None:
    assert database_unavailable(REFUSED)
    assert database_unavailable(OSError("Multiple exceptions: [Errno 111] Connect call failed"))
    assert database_unavailable(sa.OperationalError("SELECT 1", None, REFUSED))
    assert database_unavailable(sa.TimeoutError("QueuePool limit of size 10 overflow 20 reached"))
    wrapped = RuntimeError("while reading")
    wrapped.__cause__ = sa.InterfaceError("SELECT 1", None, REFUSED)
    assert database_unavailable(wrapped)
    assert not database_unavailable(sa.IntegrityError("INSERT", None, ValueError("unique")))
    assert not database_unavailable(FileNotFoundError(2, "No such file"))
    assert not database_unavailable(ValueError("a bug"))
    assert database_unavailable(TimeoutError())  # asyncpg's, a silent database (DATABASE_TIMEOUT)


async def test_a_sign_of_life_answered_late_vouches_for_nothing(database_url: str) -> None:
    """A sign of life sent into a silent database and answered once it is back (issue 27) writes
    nothing and says the database was out of reach; the settling one that follows credits the
    clocks from the last sign of life answered in time, at a time read after its locked read.
    The changes alone, through the app's writer: no app runs, so nothing else writes a beat."""
    engine = make_engine(database_url)
    writer = Writer(engine)
    clock = SystemClock()
    after = to_ms(make_settings(database_url).outage_after)

    async def beat_at() -> int:
        async with engine.connect() as conn:
            value = await conn.scalar(select(Lease.beat_at).where(Lease.name == SITE))
        assert isinstance(value, int)
        return value

    try:
        assert await writer.write(Beat(time.monotonic(), clock.now, after)) == (0, 0)
        last = await beat_at()
        sent = time.monotonic() - (after / 1000 + 1)  # sent over OUTAGE_AFTER ago
        with pytest.raises(Unanswered) as raised:
            await writer.write(Beat(sent, clock.now, after))
        assert database_unavailable(raised.value)
        assert await beat_at() == last
        back = last + after + 500  # the site's clock once the database answers again
        outage, _ = await writer.write(Beat(sent, lambda: back, after, settle=True))
        assert outage == after + 500
        assert await beat_at() == back
    finally:
        writer.close()
        await engine.dispose()
