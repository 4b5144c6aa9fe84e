"""A move reads no game row when this process made the game's last move (issue 27): it is computed
from the row that move left, and committed only if the database still holds exactly that row. A
row changed meanwhile (another process's move, its table, the outage credit) is read again, and
the move decided on it. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import event, select

from app.errors import AppError, ErrorCode
from app.main import create_app
from app.models import Game
from app.repository.writes import SetTable
from app.services import GameService, Visitor
from tests.app.conftest import ClientFactory, make_settings
from tests.support.gameplay import MovePicker, quick_game, start_game


async def _game(clients: ClientFactory) -> tuple[str, dict[int, Visitor], MovePicker]:
    """A started game of Ann (seat 1) and Bo: its id, its seats' visitors, a move picker."""
    slug, options = quick_game()
    ann, bo = await clients("Ann"), await clients("Bo")
    game_id = (await start_game(ann, bo, slug, options))["id"]
    seats = {
        1: Visitor((await ann.get("/api/me")).json()["id"], "Ann"),
        2: Visitor((await bo.get("/api/me")).json()["id"], "Bo"),
    }
    return game_id, seats, MovePicker(slug, options, seed=7)


async def _play(
    service: GameService, game_id: str, seats: dict[int, Visitor], picker: MovePicker, version: int
) -> int:
    """The picker's next move, played by the seat to move on ``version``; the version after it."""
    seat = picker.to_move()
    assert seat is not None
    text = picker.pick()
    ack = await service.playing.play(seats[seat], game_id, text, version, f"m{version}")
    picker.play(text)
    return ack["version"]


@pytest.fixture
def game_reads(app: FastAPI) -> Iterator[list[str]]:
    """The statements that read one game's row through the app's sessions, as they run (not the
    deadline scheduler's look for due games)."""
    engine = app.state.service.core.sessions.kw["bind"].sync_engine
    seen: list[str] = []

    def look(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().startswith("SELECT") and "WHERE games.id = " in statement:
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", look)
    yield seen
    event.remove(engine, "before_cursor_execute", look)


async def test_moves_after_this_process_s_own_read_no_game_row(
    clients: ClientFactory, app: FastAPI, game_reads: list[str]
) -> None:
    service: GameService = app.state.service
    game_id, seats, picker = await _game(clients)
    version = await _play(service, game_id, seats, picker, 2)
    del game_reads[:]
    for _ in range(4):
        version = await _play(service, game_id, seats, picker, version)
    # On PostgreSQL the writer shares the engine: its locked look at the row is all there is.
    assert [read for read in game_reads if not read.endswith("FOR UPDATE")] == []
    async with app.state.sessionmaker() as session:
        row = await session.get(Game, game_id)
        assert row is not None and row.version == version == 7 and row.ply_count == 5


async def test_a_table_changed_elsewhere_is_read_again_before_the_move(
    clients: ClientFactory, app: FastAPI
) -> None:
    """Another process's offer (a write that keeps the version) is not in this process's row:
    the move is decided on the database's, and answers (declines) the offer."""
    service: GameService = app.state.service
    game_id, seats, picker = await _game(clients)
    version = await _play(service, game_id, seats, picker, 2)  # Ann's; Bo to move
    offer = {"kind": "draw", "seat": 1}
    await service.writer.write(SetTable(game_id, version, {"offer": offer}))
    version = await _play(service, game_id, seats, picker, version)
    async with app.state.sessionmaker() as session:
        row = await session.get(Game, game_id)
        assert row is not None and row.version == version == 4
        assert row.offer is None  # Bo's move answered Ann's offer


@pytest.fixture
async def other_process(database_url: str) -> AsyncIterator[FastAPI]:
    """A second app on the same database: another process, with caches of its own."""
    other = create_app(make_settings(database_url))
    async with other.router.lifespan_context(other):
        yield other


async def test_a_move_on_a_version_another_process_moved_past_is_stale(
    clients: ClientFactory, app: FastAPI, other_process: FastAPI
) -> None:
    """This process's row says version 3; another process played 4 since. Bo's move sent again
    on 3 (another message: its id is new) would be legal on this process's row: it is refused
    stale_version, as on the database's row, and nothing is written."""
    here: GameService = app.state.service
    there: GameService = other_process.state.service
    game_id, seats, picker = await _game(clients)
    version = await _play(here, game_id, seats, picker, 2)
    await _play(there, game_id, seats, picker, version)
    with pytest.raises(AppError) as refused:
        await here.playing.play(seats[2], game_id, picker.moves[-1], version, "again")
    assert refused.value.code == ErrorCode.STALE_VERSION
    async with app.state.sessionmaker() as session:
        versions = (await session.execute(select(Game.version).where(Game.id == game_id))).all()
    assert versions == [(4,)]
    # Back on this process, the game goes on from the database's row.
    assert await _play(here, game_id, seats, picker, 4) == 5
