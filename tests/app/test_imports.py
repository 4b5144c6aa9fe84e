"""Imports are validated strictly, marked with who imported them, and archive pages are bounded in
bytes (issue 14), on SQLite and PostgreSQL.

A record holds only a record's fields; its result only ``winner`` (a seat or null), ``reason`` (the
rules' when the moves end the game, else a server reason), ``scores`` (the game's score shape) and
``colour``; every text is short; options are only those the catalogue offers; only a guest who has
chosen a name may import, and the game says who did.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi import FastAPI

import games
from app.db import make_engine
from app.main import create_app
from app.models import Game
from games.bench import random_game
from games.record import make_record
from tests.app.conftest import make_settings
from tests.support.contract import checked
from tests.support.databases import fresh_database
from tests.support.gameplay import quick_game, table_counts
from tests.support.server import alembic

BEFORE_IMPORTED_BY = "2424c61f9505"  # the revision before games.imported_by
BEFORE_DOCUMENTED_RESULTS = "f4ae43e5a0b4"  # the revision before imported results were rebuilt

RESIGNED = {"winner": 2, "reason": "resignation", "scores": None}
BLITZ = {"kind": "realtime", "base": 180, "increment": 2}


def record_of(seed: int, plies: int | None = None, **fields: Any) -> dict[str, Any]:
    """A record of a random quick game (cut after ``plies`` moves if given), ``fields`` replaced."""
    slug, options = quick_game()
    rules = games.get(slug, **options)
    _states, moves = random_game(rules, random.Random(seed))
    players = [{"seat": 1, "name": "Ann"}, {"seat": 2, "name": "Bo"}]
    if plies is None:
        return {**make_record(rules, moves, players), **fields}
    return {**make_record(rules, moves[:plies], players, result=RESIGNED), **fields}


def refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


# --- who may import, and the mark it leaves ------------------------------------------------------


async def test_an_import_needs_a_chosen_name(clients: Any, app: FastAPI) -> None:
    anonymous = await clients()
    before = await table_counts(app)
    answer = await anonymous.post("/api/archive/import", json=record_of(1))
    assert "name" in refused(answer, 403, "name_required")["message"]
    assert await table_counts(app) == before
    not_json = await anonymous.post(
        "/api/archive/import", content=b"{", headers={"content-type": "application/json"}
    )
    refused(not_json, 422, "bad_json")  # the body's form first, as documented


async def test_an_imported_game_says_who_imported_it(clients: Any) -> None:
    ann = await clients("Ann Importer")
    answer = await ann.post("/api/archive/import", json=record_of(2, 3, result=RESIGNED))
    assert answer.status_code == 201, answer.text
    game_id = answer.json()["id"]
    snapshot = (await ann.get(f"/api/games/{game_id}")).json()
    assert snapshot["game"]["imported"] is True
    assert snapshot["game"]["imported_by"] == "Ann Importer"
    listed = (await ann.get("/api/archive", params={"player": "Ann"})).json()["games"]
    entry = next(g for g in listed if g["id"] == game_id)
    assert entry["imported"] is True and entry["imported_by"] == "Ann Importer"
    page = await ann.get(f"/games/{game_id}")
    assert page.status_code == 200


async def test_a_timed_games_record_imports_with_its_clocks(clients: Any) -> None:
    """A record exported from a timed game here (its time control, each ply's clock) imports as it
    is, and the imported game's record gives both back."""
    ann = await clients("Ann")
    clocks = [None, {"seat": 2, "left": 179_000}, {"seat": 1, "left": 150_250}]
    for control, given in ((BLITZ, clocks), ({"kind": "correspondence", "days": 3}, None)):
        record = record_of(4, 3, result=RESIGNED, time_control=control, clocks=given)
        answer = await ann.post("/api/archive/import", json=record)
        assert answer.status_code == 201, answer.text
        game_id = answer.json()["id"]
        back = (await ann.get(f"/games/{game_id}/record.json")).json()
        assert back["time_control"] == control
        assert back["clocks"] == (given or [None, None, None])
        clock = (await ann.get(f"/api/games/{game_id}")).json()["game"]["clock"]
        shown = {k: v for k, v in clock["control"].items() if v is not None}
        assert shown == control and not clock["running"]
        if given:  # each seat's time after its last clocked ply
            assert clock["remaining"] == [150_250, 179_000]


async def test_a_game_played_here_has_no_importer(clients: Any) -> None:
    ann = await clients("Ann")
    slug, options = quick_game()
    created = await ann.post("/api/games", json={"game": slug, "options": options})
    assert created.status_code == 201, created.text
    snapshot = (await ann.get(f"/api/games/{created.json()['id']}")).json()
    assert snapshot["game"]["imported"] is False and snapshot["game"]["imported_by"] is None


# --- only the known fields, with their types -------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"result": {**RESIGNED, "note": "x"}}, "result.'note'"),
        ({"result": {**RESIGNED, "details": {}}}, "result.'details'"),
        ({"comment": "hello"}, "'comment'"),
        ({"result": {**RESIGNED, "winner": 3}}, "result.winner"),
        ({"result": {**RESIGNED, "winner": True}}, "result.winner"),
        ({"result": {**RESIGNED, "reason": []}}, "result.reason"),
        ({"result": {**RESIGNED, "reason": "x" * 33}}, "result.reason"),
        ({"result": {**RESIGNED, "scores": [1]}}, "result.scores"),
        ({"result": {**RESIGNED, "scores": {"1": 2}}}, "result.scores"),
        ({"result": {**RESIGNED, "scores": [1.5, 2]}}, "result.scores"),
        ({"result": {**RESIGNED, "colour": "c" * 100}}, "result.colour"),
        ({"players": [{"seat": 1, "name": "Ann", "elo": 3000}]}, "players"),
        ({"players": [{"seat": 1, "name": "Ann"}, {"seat": 1, "name": "Bo"}]}, "players"),
        ({"players": [{"seat": 1, "name": "A" * 25}]}, "players"),
        ({"moves": ["x" * 201]}, "moves"),
        ({"time_control": {"kind": "blitz"}}, "time_control.kind"),
        ({"time_control": "3+2"}, "time_control"),
        ({"clocks": [None, None, None]}, "clocks"),  # clocks without a time control
        ({"time_control": BLITZ, "clocks": [None] * 4}, "clocks"),  # more clocks than moves
        ({"time_control": BLITZ, "clocks": [{"seat": 1, "left": -1}, None, None]}, "clocks"),
        ({"time_control": BLITZ, "clocks": [{"seat": 3, "left": 1}, None, None]}, "clocks"),
        ({"time_control": BLITZ, "clocks": [{"seat": 1, "left": 1.5}, None, None]}, "clocks"),
        ({"time_control": BLITZ, "clocks": [{"seat": 1, "left": 1, "x": 0}, None, None]}, "clocks"),
        ({"time_control": BLITZ, "clocks": {"1": 5}}, "clocks"),
        ({"time_control": BLITZ, "clocks": [{"seat": 2, "left": 1}, None, None]}, "clocks"),
    ],
)
async def test_a_field_unknown_or_of_the_wrong_type_is_refused(
    clients: Any, app: FastAPI, fields: dict[str, Any], field: str
) -> None:
    ann = await clients("Ann")
    before = await table_counts(app)
    answer = await ann.post("/api/archive/import", json=record_of(3, 3, **fields))
    error = refused(answer, 422, "invalid_record")
    assert error["field"] == field
    assert await table_counts(app) == before


async def test_records_of_games_ended_here_by_agreement_or_a_claim_import(
    clients: Any, app: FastAPI
) -> None:
    """Every way this site ends a game imports back: an agreed draw (in a game that can be drawn)
    and a win claimed over a player who left, besides resignation, timeout and abandonment."""
    ann = await clients("Ann")
    for result in (
        {"winner": None, "reason": "agreement", "scores": None},
        {"winner": 2, "reason": "disconnect", "scores": None},
    ):
        answer = await ann.post("/api/archive/import", json=record_of(5, 3, result=result))
        assert answer.status_code == 201, answer.text
        stored = (await ann.get(f"/api/games/{answer.json()['id']}")).json()["game"]["result"]
        assert (stored["winner"], stored["reason"]) == (result["winner"], result["reason"])
    before = await table_counts(app)
    won = {"winner": 1, "reason": "agreement", "scores": None}
    answer = await ann.post("/api/archive/import", json=record_of(5, 3, result=won))
    assert "draw" in refused(answer, 422, "invalid_record")["message"]
    rules = games.get("sgolte")
    _states, moves = random_game(rules, random.Random(5))
    drawn = make_record(rules, moves[:3], result={"winner": None, "reason": "agreement"})
    error = refused(await ann.post("/api/archive/import", json=drawn), 422, "invalid_record")
    assert error["field"] == "result.reason"
    assert await table_counts(app) == before


@pytest.mark.parametrize(
    "result",
    [
        {"winner": 1, "reason": "no-moves", "scores": None},  # the rules' reason, game not over
        {"winner": 1, "reason": "checkmate", "scores": None},
        {"winner": 1, "reason": "resignation", "scores": [3, 1]},  # a resignation has no scores
    ],
)
async def test_an_open_game_ends_only_for_a_server_reason(
    clients: Any, app: FastAPI, result: dict[str, Any]
) -> None:
    ann = await clients("Ann")
    before = await table_counts(app)
    answer = await ann.post("/api/archive/import", json=record_of(4, 3, result=result))
    refused(answer, 422, "invalid_record")
    assert await table_counts(app) == before


async def test_a_finished_games_scores_are_the_rules(clients: Any) -> None:
    ann = await clients("Ann")
    record = record_of(5)
    assert record["result"] is not None
    wrong = {**record["result"], "scores": [[1, 2], [3, 4]]}
    refused(
        await ann.post("/api/archive/import", json={**record, "result": wrong}),
        422,
        "invalid_record",
    )
    stored = await ann.post("/api/archive/import", json=record)
    assert stored.status_code == 201, stored.text


async def test_a_valaturna_record_with_many_stacks_imports(clients: Any) -> None:
    """Valaturna's score lists every stack's height: often more than 8 of them."""
    ann = await clients("Ann")
    rules = games.get("valaturna", size=5)
    _states, moves = random_game(rules, random.Random(28))
    record = make_record(rules, moves, [{"seat": 1, "name": "Va"}, {"seat": 2, "name": "Lu"}])
    assert max(len(s) for s in record["result"]["scores"]) > 8
    stored = await ann.post("/api/archive/import", json=record)
    assert stored.status_code == 201, stored.text


async def test_the_stored_result_is_the_servers(clients: Any) -> None:
    """A server reason's colour is the final position's, not the record's text."""
    ann = await clients("Ann")
    given = {**RESIGNED, "colour": "mauve"}
    answer = await ann.post("/api/archive/import", json=record_of(6, 3, result=given))
    assert answer.status_code == 201, answer.text
    game = (await ann.get(f"/api/games/{answer.json()['id']}")).json()["game"]
    assert game["result"]["colour"] != "mauve"
    assert game["result"]["colour"] == game["colours"]["2"]
    assert set(game["result"]) == {"winner", "colour", "reason", "scores"}


# --- texts of bounded length, nothing that cannot be sent back -------------------------------------


async def test_an_error_shows_only_an_excerpt_of_a_long_value(clients: Any) -> None:
    ann = await clients("Ann")
    for fields in (
        {"result": {**RESIGNED, "reason": "r" * 100_000}},
        {"options": {"variant": "v" * 100_000}},
        {"options": {"v" * 100_000: 1}},
        {"game": "g" * 100_000},
        {"players": [{"seat": 1, "name": "n" * 100_000}]},
    ):
        answer = await ann.post("/api/archive/import", json=record_of(7, 3, **fields))
        assert len(refused(answer, 422, "invalid_record")["message"]) < 400, fields


async def test_a_lone_surrogate_is_refused_and_every_page_still_answers(
    clients: Any, app: FastAPI
) -> None:
    ann = await clients("Ann")
    before = await table_counts(app)
    body = (
        b'{"format": "hexmoot-record/1", "game": "exxit", "options": {}, "moves": ["0,0"],'
        b' "result": {"winner": 1, "reason": "resignation", "scores": null, "note": "\\ud800"}}'
    )
    answer = await ann.post(
        "/api/archive/import", content=body, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 422, answer.text
    assert await table_counts(app) == before
    assert (await ann.get("/api/archive")).status_code == 200


# --- options only from the catalogue's choices -----------------------------------------------------


def valaturna_record(size: int) -> dict[str, Any]:
    rules = games.get("valaturna", {"size": size})
    _states, moves = random_game(rules, random.Random(8), max_plies=4)
    return {**make_record(rules, moves, [], result={}), "result": RESIGNED}


@pytest.mark.skipif("valaturna" not in games.names(), reason="valaturna not installed")
async def test_options_are_only_the_catalogues_choices(clients: Any, app: FastAPI) -> None:
    offered = next(o for o in games.info("valaturna").options if o.name == "size").choices
    assert 6 not in offered
    ann = await clients("Ann")
    before = await table_counts(app)
    created = await ann.post("/api/games", json={"game": "valaturna", "options": {"size": 6}})
    assert refused(created, 422, "bad_option")["field"] == "options.size"
    replayed = await ann.post(
        "/api/replay", json={"game": "valaturna", "options": {"size": 6}, "moves": []}
    )
    assert "offered" in refused(replayed, 422, "invalid_record")["message"]
    imported = await ann.post("/api/archive/import", json=valaturna_record(6))
    assert "offered" in refused(imported, 422, "invalid_record")["message"]
    assert await table_counts(app) == before
    for size in offered:
        answer = await ann.post("/api/archive/import", json=valaturna_record(int(size)))
        assert answer.status_code == 201, answer.text
        replayed = await ann.post(
            "/api/replay", json={"game": "valaturna", "options": {"size": size}, "moves": []}
        )
        assert replayed.status_code == 200, replayed.text


# --- archive pages bounded in bytes -----------------------------------------------------------------


async def test_an_archive_page_is_bounded_in_bytes(clients: Any, app: FastAPI) -> None:
    """Games whose stored rows are large (written before today's checks: here, options) fill a
    page by bytes before rows: the page stops early, and its cursor leads on without a gap."""
    prefix = f"big{random.randrange(1 << 30):x}"[:10]
    async with app.state.sessionmaker() as session:
        for i in range(12):
            session.add(
                Game(
                    id=f"{prefix}{i:02d}",
                    slug="exxit",
                    options={"variant": "v" * 100_000},
                    public=True,
                    status="finished",
                    version=2,
                    ply_count=0,
                    player1_name="Hoarder",
                    player1_key="hoarder",
                    result="1",
                    reason="resignation",
                    result_json={**RESIGNED, "winner": 1, "colour": None},  # every key, as stored
                    imported=True,
                    created_at=1,
                    last_activity_at=1,
                    finished_at=1_000 + i,
                )
            )
        await session.commit()
    ann = await clients("Ann")
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params = {"player": "Hoarder", "limit": "100"}
        if cursor:
            params["cursor"] = cursor
        answer = await ann.get("/api/archive", params=params)
        assert answer.status_code == 200, answer.text
        assert len(answer.content) < 512 * 1024
        page = answer.json()
        assert page["games"]
        seen += [g["id"] for g in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [f"{prefix}{i:02d}" for i in reversed(range(12))]


# --- results stored by earlier imports ---------------------------------------------------------------


async def test_the_migration_cleans_results_stored_by_earlier_imports(
    backend: str, tmp_path: Path
) -> None:
    """An import before issue 14 could store ``"\\ud800"`` in an extra result key, after which
    the archive, the snapshot and record.json answered 500: the migration keeps the protocol's
    keys only, with such text made encodable, and the game answers again."""
    with fresh_database(backend, tmp_path) as url:
        alembic(url, "downgrade", BEFORE_IMPORTED_BY)
        engine = make_engine(url)
        try:
            async with engine.begin() as conn:
                await conn.execute(
                    sa.insert(Game.__table__).values(
                        id="oldimport",
                        slug="exxit",
                        options={},
                        public=True,
                        status="finished",
                        version=2,
                        ply_count=0,
                        result="1",
                        reason="resignation",
                        result_json={
                            "winner": 1,
                            "colour": "\ud800",
                            "reason": "resignation",
                            "scores": None,
                            "note": "\ud800" * 3,
                        },
                        imported=True,
                        created_at=1,
                        last_activity_at=1,
                        finished_at=1,
                    )
                )
        finally:
            await engine.dispose()
        alembic(url, "upgrade", "head")
        application = create_app(make_settings(url))
        async with (
            application.router.lifespan_context(application),
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=application), base_url="http://testserver"
            ) as client,
        ):
            for path in ("/api/archive", "/api/games/oldimport", "/games/oldimport/record.json"):
                answer = await client.get(path)
                assert answer.status_code == 200, (path, answer.text)
            game = (await client.get("/api/games/oldimport")).json()["game"]
            assert game["result"] == {
                "winner": 1,
                "colour": "?",
                "reason": "resignation",
                "scores": None,
            }
            assert game["imported_by"] is None


@pytest.mark.parametrize(
    ("stored", "columns", "documented"),
    [
        (
            {"winner": 1, "reason": "resignation", "scores": "lots"},
            ("1", "resignation"),
            {"winner": 1, "colour": None, "reason": "resignation", "scores": None},
        ),
        (
            {"winner": "2", "colour": 7, "reason": None, "scores": [3, [1, 2]]},
            ("2", "abandoned"),
            {"winner": 2, "colour": None, "reason": "abandoned", "scores": [3, [1, 2]]},
        ),
        (
            {"winner": None, "colour": "Red", "reason": "draw", "scores": None},
            ("draw", "draw"),
            {"winner": None, "colour": "Red", "reason": "draw", "scores": None},
        ),
    ],
)
async def test_the_migration_puts_earlier_imported_results_in_the_documented_shape(
    backend: str,
    tmp_path: Path,
    stored: dict[str, Any],
    columns: tuple[str, str],
    documented: dict[str, Any],
) -> None:
    """A result an import stored before issue 14 could lack ``colour`` or carry a ``winner`` or
    ``scores`` of any type, which every answer then passed on undocumented (issue 26): the
    migration rebuilds it from the game's row, and the answers are the protocol's."""
    with fresh_database(backend, tmp_path) as url:
        alembic(url, "downgrade", BEFORE_DOCUMENTED_RESULTS)
        engine = make_engine(url)
        try:
            async with engine.begin() as conn:
                await conn.execute(
                    sa.insert(Game.__table__).values(
                        id="oddimport",
                        slug="exxit",
                        options={},
                        public=True,
                        status="finished",
                        version=2,
                        ply_count=0,
                        result=columns[0],
                        reason=columns[1],
                        result_json=stored,
                        imported=True,
                        created_at=1,
                        last_activity_at=1,
                        finished_at=1,
                    )
                )
        finally:
            await engine.dispose()
        alembic(url, "upgrade", "head")
        application = create_app(make_settings(url))
        async with (
            application.router.lifespan_context(application),
            checked(
                httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=application), base_url="http://testserver"
                )
            ) as client,
        ):
            listed = (await client.get("/api/archive")).json()["games"]
            assert [g["result"] for g in listed if g["id"] == "oddimport"] == [documented]
            snapshot = (await client.get("/api/games/oddimport")).json()
            assert snapshot["game"]["result"] == documented
            record = (await client.get("/games/oddimport/record.json")).json()
            assert record["result"] == documented
