"""Archive, records, import, abandonment and the database-level race, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

import games
from app.db import make_engine, make_sessionmaker
from app.errors import AppError
from app.models import Game, Move
from app.repository.writer import Writer
from app.runtime.hub import MemoryHub
from app.services import GameService, Visitor
from games.bench import random_game
from games.errors import RecordError
from games.record import make_record, replay, replay_moves
from tests.app.conftest import ClientFactory, make_settings
from tests.support.gameplay import quick_game, rows_of, start_game


def finished_record(seed: int, names: tuple[str, str] = ("Ann", "Bo")) -> dict[str, Any]:
    slug, options = quick_game()
    rules = games.get(slug, **options)
    _states, moves = random_game(rules, random.Random(seed))
    players = [{"seat": 1, "name": names[0]}, {"seat": 2, "name": names[1]}]
    return make_record(rules, moves, players)


async def test_import_validates_by_replay_and_archives(clients: ClientFactory) -> None:
    client = await clients("Archivist")  # importing needs a chosen name
    record = finished_record(1, ("Imre", "Jo"))
    stored = await client.post("/api/archive/import", json=record)
    assert stored.status_code == 201, stored.text
    game_id = stored.json()["id"]
    download = await client.get(f"/games/{game_id}/record.json")
    assert "attachment" in download.headers["content-disposition"]
    assert download.json() == record
    replay(download.json())
    page = (await client.get("/api/archive", params={"player": "imre"})).json()
    assert [g["id"] for g in page["games"]] == [game_id]
    assert page["games"][0]["imported"] is True and page["next_cursor"] is None


async def test_an_invalid_record_is_refused_naming_the_first_bad_ply(
    clients: ClientFactory, app: FastAPI
) -> None:
    client = await clients("Archivist")  # importing needs a chosen name
    record = finished_record(2)

    async def count() -> int:
        async with app.state.sessionmaker() as session:
            return int((await session.execute(select(func.count()).select_from(Game))).scalar())

    before = await count()
    broken = dict(record, moves=[*record["moves"][:4], "zz99", *record["moves"][5:]])
    response = await client.post("/api/archive/import", json=broken)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid_record" and error["ply"] == 5
    assert error["message"].startswith("ply 5:")
    repeated = dict(record, moves=[*record["moves"][:3], record["moves"][0], *record["moves"][4:]])
    slug, options = quick_game()
    with pytest.raises(RecordError) as expected:
        replay_moves(games.get(slug, **options), repeated["moves"])
    response = await client.post("/api/archive/import", json=repeated)
    assert response.json()["error"]["ply"] == expected.value.ply
    cases: list[tuple[Any, str, Any]] = [
        (dict(record, format="other/1"), "invalid_record", None),
        (dict(record, game="chess"), "invalid_record", None),
        (dict(record, options={"nope": 1}), "invalid_record", None),
        (dict(record, result={"winner": 2, "reason": "resignation"}), "invalid_record", None),
        (dict(record, moves=record["moves"][:3], result=None), "unfinished_record", None),
        (dict(record, players=[{"seat": 1, "name": "<i>x</i>"}]), "invalid_record", None),
        ([1, 2], "invalid_record", None),
    ]
    for body, code, ply in cases:
        response = await client.post("/api/archive/import", json=body)
        assert response.status_code == 422, body
        assert (response.json()["error"]["code"], response.json()["error"]["ply"]) == (code, ply)
    not_json = await client.post(
        "/api/archive/import", content=b"{", headers={"content-type": "application/json"}
    )
    assert not_json.json()["error"]["code"] == "bad_json"
    huge = await client.post(
        "/api/archive/import",
        content=b" " * (1024 * 1024 + 1),
        headers={"content-type": "application/json"},
    )
    assert (huge.status_code, huge.json()["error"]["code"]) == (413, "record_too_large")
    assert await count() == before


async def test_archive_filters_and_cursor(clients: ClientFactory, app: FastAPI) -> None:
    client = await clients("Archivist")  # importing needs a chosen name
    ids = []
    for seed in range(7):
        names = ("Pat", f"Foe{seed}") if seed % 2 == 0 else (f"Foe{seed}", "PAT")
        response = await client.post("/api/archive/import", json=finished_record(100 + seed, names))
        ids.append(response.json()["id"])
    # Spread the finishing times so the order is known: the last imported is the newest.
    async with app.state.sessionmaker() as session:
        for i, game_id in enumerate(ids):
            game = await session.get(Game, game_id)
            assert game is not None
            game.finished_at = 1_800_000_000_000 + i * 86_400_000
        await session.commit()
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"player": "pat", "limit": 3}
        if cursor:
            params["cursor"] = cursor
        page = (await client.get("/api/archive", params=params)).json()
        seen += [g["id"] for g in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids[::-1]
    by_date = (
        await client.get(
            "/api/archive",
            params={"player": "Pat", "from": 1_800_000_000_000 + 86_400_000, "to": "2027-01-18"},
        )
    ).json()
    expected = [
        g
        for i, g in enumerate(ids)
        if i >= 1 and 1_800_000_000_000 + i * 86_400_000 < 1_800_230_400_000
    ]
    assert [g["id"] for g in by_date["games"]] == expected[::-1]
    for result in ("1", "2", "draw"):
        page = (await client.get("/api/archive", params={"player": "pat", "result": result})).json()
        assert all(
            g["result"]["winner"] == (None if result == "draw" else int(result))
            for g in page["games"]
        )
    slug, _ = quick_game()
    assert all(
        g["game"] == slug
        for g in (await client.get("/api/archive", params={"game": slug})).json()["games"]
    )
    for params, field in [
        ({"game": "chess"}, "game"),
        ({"result": "win"}, "result"),
        ({"from": "yesterday"}, "from"),
        ({"limit": "0"}, "limit"),
        ({"limit": "101"}, "limit"),
        ({"player": "x" * 30}, "player"),
    ]:
        response = await client.get("/api/archive", params=params)
        assert response.status_code == 422
        assert (response.json()["error"]["code"], response.json()["error"]["field"]) == (
            "bad_filter",
            field,
        )
    bad_cursor = await client.get("/api/archive", params={"cursor": "!!"})
    assert bad_cursor.json()["error"]["code"] == "bad_cursor"


async def test_idle_games_are_abandoned_with_the_reason(
    clients: ClientFactory, app: FastAPI
) -> None:
    slug, options = quick_game()
    ann, bo = await clients("Ann"), await clients("Bo")
    waiting = await start_game(ann, None, slug, options)
    playing = await start_game(ann, bo, slug, options)
    service: GameService = app.state.service
    now = service.clock.now()
    later = now + int(service.settings.abandon_after * 1000) + 1000
    assert await service.playing.abandon_idle(now) == 0
    assert await service.playing.abandon_idle(later) >= 2
    active = await rows_of(app.state.sessionmaker, playing["id"])
    assert active["game"]["status"] == "finished" and active["game"]["reason"] == "abandoned"
    assert active["game"]["result_json"]["winner"] == 2  # seat 1 was to move and never did
    assert active["events"][-1][1] == "result"
    cancelled = await rows_of(app.state.sessionmaker, waiting["id"])
    assert cancelled["game"]["status"] == "cancelled"
    assert cancelled["game"]["reason"] == "abandoned"


async def test_two_connections_racing_for_one_ply_store_one_move(
    clients: ClientFactory, database_url: str
) -> None:
    """Two services with their own engines (as two processes would be) play the same ply."""
    slug, options = quick_game()
    ann, bo = await clients("Ann"), await clients("Bo")
    created = await start_game(ann, bo, slug, options)
    ann_id = (await ann.get("/api/me")).json()["id"]
    rules = games.get(slug, **options)
    first_moves = [
        rules.format_move(rules.initial_state(), m)
        for m in list(rules.legal_moves(rules.initial_state()))[:2]
    ]
    engines = [make_engine(database_url) for _ in range(2)]
    services = [
        GameService(make_sessionmaker(e), MemoryHub(), make_settings(database_url), Writer(e))
        for e in engines
    ]
    try:
        outcomes = await asyncio.gather(
            *(
                s.playing.play(Visitor(ann_id, "Ann"), created["id"], text, 2, f"race-{i}")
                for i, (s, text) in enumerate(zip(services, first_moves, strict=True))
            ),
            return_exceptions=True,
        )
        winners = [o for o in outcomes if isinstance(o, dict)]
        losers = [o for o in outcomes if isinstance(o, AppError)]
        assert len(winners) == 1 and len(losers) == 1, outcomes
        assert losers[0].code == "stale_version" and losers[0].extra["version"] == 3
        async with make_sessionmaker(engines[0])() as session:
            stored = (
                (await session.execute(select(Move.text).where(Move.game_id == created["id"])))
                .scalars()
                .all()
            )
        assert stored == [winners[0]["move"]]
    finally:
        for service in services:
            service.writer.close()
        for engine in engines:
            await engine.dispose()


@pytest.mark.parametrize("seed", [0])
async def test_the_database_refuses_a_second_row_for_a_ply(
    clients: ClientFactory, app: FastAPI, seed: int
) -> None:
    """The unique (game, ply) constraint itself, without the service in front of it."""
    from sqlalchemy.exc import IntegrityError

    _ann, _bo, created = await _started(clients)
    async with app.state.sessionmaker() as session:
        session.add(Move(game_id=created["id"], ply=1, text="a", seat=1, created_at=seed))
        session.add(Move(game_id=created["id"], ply=1, text="b", seat=1, created_at=seed))
        with pytest.raises(IntegrityError):
            await session.commit()


async def _started(clients: ClientFactory) -> tuple[Any, Any, dict[str, Any]]:
    slug, options = quick_game()
    ann, bo = await clients("Ann"), await clients("Bo")
    created = await start_game(ann, bo, slug, options)
    return ann, bo, created


async def test_the_player_filter_matches_a_prefix_in_any_case(
    clients: ClientFactory, app: FastAPI
) -> None:
    client = await clients("Archivist")
    names = [("Alice", "Bo"), ("Cy", "ALIBI"), ("Zed", "Bo")]
    ids = {}
    for seed, pair in enumerate(names):
        response = await client.post("/api/archive/import", json=finished_record(200 + seed, pair))
        ids[pair] = response.json()["id"]

    async def found(player: str, **extra: Any) -> set[str]:
        seen: set[str] = set()
        cursor = None
        while True:
            params: dict[str, Any] = {"player": player, **extra}
            if cursor:
                params["cursor"] = cursor
            page = (await client.get("/api/archive", params=params)).json()
            assert len(page["games"]) <= extra.get("limit", 100)
            seen |= {g["id"] for g in page["games"]}
            cursor = page["next_cursor"]
            if cursor is None:
                return seen

    alice, alibi = (ids[p] for p in names[:2])
    assert await found("ali") == {alice, alibi}
    assert await found("ALI", limit=1) == {alice, alibi}
    assert await found("Alice") == {alice}
    # %, _ and the escape character are matched literally, not as wildcards.
    assert await found("al%") == set()
    assert await found("a_") == set()
    assert await found("%") == set()
    assert await found("!") == set()


async def test_a_backwards_date_range_is_refused(clients: ClientFactory) -> None:
    client = await clients("Archivist")
    response = await client.get("/api/archive", params={"from": "2027-02-01", "to": "2027-01-01"})
    assert response.status_code == 422
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("bad_filter", "from")
    assert "after" in error["message"]
    same = await client.get("/api/archive", params={"from": "2027-01-01", "to": "2027-01-01"})
    assert same.status_code == 200
