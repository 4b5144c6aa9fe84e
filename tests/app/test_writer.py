"""The writer: group commit on SQLite, one stale change failing alone, every kind of write on the
one path, and changes that outlive a cancelled caller. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select

import games
from app.models import Event, Game, Move, Player
from app.repository.writer import Stale, Writer
from app.repository.writes import GameChange
from app.runtime.hub import game_channel
from app.schemas.responses import JoinedOut
from app.services import GameService, Visitor
from tests.app.conftest import ClientFactory
from tests.support.gameplay import quick_game, rows_of, start_game
from tests.support.patience import PATIENCE


async def _started_games(clients: ClientFactory, count: int) -> tuple[str, list[str]]:
    """``count`` started games of Ann (seat 1) and Bo; Ann's guest id and the games' ids."""
    slug, options = quick_game()
    ann, bo = await clients("Ann"), await clients("Bo")
    ids = [(await start_game(ann, bo, slug, options))["id"] for _ in range(count)]
    return (await ann.get("/api/me")).json()["id"], ids


def _opening_moves() -> list[str]:
    """The texts of the legal first moves of the quick game."""
    slug, options = quick_game()
    rules = games.get(slug, **options)
    start = rules.initial_state()
    return [rules.format_move(start, m) for m in rules.legal_moves(start)]


def _first_move_change(game_id: str, base: int, text: str, now: int) -> GameChange:
    """Seat 1's first move written straight through the writer, as the service would."""
    return GameChange(
        game_id,
        base,
        {"version": base + 1, "ply_count": 1, "to_move": 2, "last_activity_at": now},
        [
            {
                "game_id": game_id,
                "version": base + 1,
                "kind": "move",
                "payload": {"ply": 1, "move": text, "seat": 1},
                "player_id": None,
                "msg_id": None,
                "created_at": now,
            }
        ],
        {"game_id": game_id, "ply": 1, "text": text, "seat": 1, "created_at": now},
    )


async def test_changes_arriving_together_commit_together_and_a_stale_one_fails_alone(
    clients: ClientFactory, app: FastAPI
) -> None:
    _ann, ids = await _started_games(clients, 5)
    text = _opening_moves()[0]
    writer: Writer = app.state.service.writer
    before = await rows_of(app.state.sessionmaker, ids[2])
    now = app.state.clock.now()
    changes = [_first_move_change(game_id, 2, text, now) for game_id in ids]
    changes[2] = _first_move_change(ids[2], 7, text, now)  # based on a version the game never had
    # The transaction each change ran in (kept alive, so that two are the same object only if
    # they are one transaction). Not ``writer.groups``: the server's own once-a-second writes
    # (the lease) may commit a group of their own meanwhile, on a busy machine.
    transactions: list[object] = []

    def watched(change: GameChange) -> Any:
        def run(conn: Any) -> Any:
            transactions.append(conn.get_transaction())
            return change(conn)

        return run

    outcomes = await asyncio.gather(
        *(writer.write(watched(c)) for c in changes), return_exceptions=True
    )
    assert [type(o) for o in outcomes] == [type(None)] * 2 + [Stale] + [type(None)] * 2
    assert len(transactions) == len(changes)
    if app.state.settings.is_sqlite():  # one transaction, one fsync
        assert len({id(t) for t in transactions}) == 1
    async with app.state.sessionmaker() as session:
        stored = dict(
            (
                await session.execute(select(Move.game_id, Move.text).where(Move.game_id.in_(ids)))
            ).all()
        )
        versions = dict(
            (await session.execute(select(Game.id, Game.version).where(Game.id.in_(ids)))).all()
        )
    assert stored == {game_id: text for i, game_id in enumerate(ids) if i != 2}
    assert versions == {game_id: 2 if i == 2 else 3 for i, game_id in enumerate(ids)}
    assert await rows_of(app.state.sessionmaker, ids[2]) == before


async def test_creates_renames_joins_and_moves_share_the_one_write_path(
    clients: ClientFactory, app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every kind of write is a change of the writer: arriving together, they commit together (one
    transaction on SQLite), so none of them can meet another of this process's writes in SQLite."""
    ann_id, ids = await _started_games(clients, 2)
    service: GameService = app.state.service
    slug, options = quick_game()
    ann = Visitor(ann_id, "Ann")
    waiting = await service.lifecycle.create(ann, slug, options, 1, True)
    guests = [f"guest-{i}" for i in range(4)]
    writer = service.writer
    sqlite = app.state.settings.is_sqlite()
    # The size of each group committed. A count of groups would also count the server's own
    # background writes that happen to commit meanwhile (a loaded CI saw 3 for 1).
    sizes: list[int] = []
    commit = writer._commit

    def counted(changes: list[Any]) -> list[tuple[bool, Any]]:
        sizes.append(len(changes))
        return commit(changes)

    monkeypatch.setattr(writer, "_commit", counted)
    # Held until all eight are queued: each reads first, and on a busy machine they reach the
    # writer at different times, which would split them into groups by the machine's speed.
    async with writer.held():
        writes = asyncio.gather(
            *(service.lifecycle.rename(guest, f"Name {i}") for i, guest in enumerate(guests)),
            *(
                service.lifecycle.create(Visitor(guest, f"Name {i}"), slug, options, 2, False)
                for i, guest in enumerate(guests)
            ),
        )
        if sqlite:
            await _queued(writer, 8)
    first = await writes
    if sqlite:
        assert max(sizes) >= 8, sizes  # the eight writes, one transaction
    assert [a.name for a in first[:4]] == [f"Name {i}" for i in range(4)]
    second = await asyncio.gather(
        service.lifecycle.join(Visitor(guests[0], "Name 0"), waiting.id, waiting.join_token),
        *(
            service.playing.play(ann, game_id, _opening_moves()[0], 2, "one-path")
            for game_id in ids
        ),
    )
    joined, *played = second
    assert isinstance(joined, JoinedOut) and joined.seat == 2 and joined.version == 2
    assert [a["version"] for a in played] == [3, 3]
    async with app.state.sessionmaker() as session:
        names = dict(
            (
                await session.execute(select(Player.id, Player.name).where(Player.id.in_(guests)))
            ).all()
        )
        created = (
            await session.execute(select(Game.id).where(Game.creator_id.in_(guests)))
        ).scalars()
        assert names == {guest: f"Name {i}" for i, guest in enumerate(guests)}
        assert len(list(created)) == len(guests)


async def _queued(writer: Writer, count: int) -> None:
    """Until ``count`` changes wait in the writer's queue (each write's reads done)."""
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while writer.queued < count:
        assert asyncio.get_running_loop().time() < deadline, f"{writer.queued} of {count} queued"
        await asyncio.sleep(0.01)


async def test_concurrent_moves_in_many_games_all_land_once(
    clients: ClientFactory, app: FastAPI
) -> None:
    ann_id, ids = await _started_games(clients, 12)
    texts = _opening_moves()
    service: GameService = app.state.service
    ann = Visitor(ann_id, "Ann")
    answers = await asyncio.gather(
        *(
            service.playing.play(ann, game_id, texts[i % len(texts)], 2, f"m{i}")
            for i, game_id in enumerate(ids)
        )
    )
    assert [a["version"] for a in answers] == [3] * len(ids)
    async with app.state.sessionmaker() as session:
        rows = (
            await session.execute(
                select(Event.game_id, Event.msg_id).where(
                    Event.game_id.in_(ids), Event.kind == "move"
                )
            )
        ).all()
    assert sorted(rows) == sorted((game_id, f"m{i}") for i, game_id in enumerate(ids))


async def test_a_move_whose_sender_is_cancelled_still_lands_and_is_announced(
    clients: ClientFactory, app: FastAPI
) -> None:
    """A socket that closes while its move is being written cancels its reader; the move must
    still be committed and published, or the opponent would never hear of it."""
    ann_id, ids = await _started_games(clients, 1)
    game_id = ids[0]
    text = _opening_moves()[0]
    service: GameService = app.state.service
    writer = service.writer
    writing = asyncio.Event()
    original = writer.write

    async def write(change: GameChange) -> None:
        writing.set()
        await asyncio.sleep(0.05)  # the caller is cancelled during this
        await original(change)

    async with service.hub.subscribe(game_channel(game_id)) as subscription:
        writer.write = write  # type: ignore[method-assign]
        try:
            sender = asyncio.create_task(
                service.playing.play(Visitor(ann_id, "Ann"), game_id, text, 2, "gone")
            )
            await writing.wait()
            sender.cancel()
            heard: dict[str, Any] = json.loads(
                await asyncio.wait_for(subscription.get(), 10) or "{}"
            )
        finally:
            writer.write = original  # type: ignore[method-assign]
        assert sender.cancelled()
    assert heard["type"] == "event" and heard["kind"] == "move" and heard["version"] == 3
    assert heard["data"]["move"] == text
    rows = await rows_of(app.state.sessionmaker, game_id)
    assert rows["game"]["version"] == 3 and rows["moves"] == [(1, text, 1)]
