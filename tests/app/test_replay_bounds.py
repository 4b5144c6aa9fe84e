"""``POST /api/replay`` and the replay of an import are bounded: a worker does them, under
``REPLAY_TIMEOUT`` (``IMPORT_TIMEOUT`` for an import), and an answer holds at most 32 views and about 1 MB (issue 14).

The record is the probe's: an 8 KiB, 697-ply Jotun size-6 game (``python -m games random jotun
--options size=6 --seed 5``), whose every view once made a 12 MB answer computed on the event loop.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

import games
from app.main import create_app
from app.runtime.rules import ImportedGame, RulesRunner, _import_with, _Late
from app.schemas.responses import ReplayOut
from games.bench import random_game
from tests.app.conftest import ClientFactory, make_settings

RECORD: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "jotun-size6-697-plies.json").read_text()
)
MAX_ANSWER_BYTES = 1 << 20
MAX_VIEWS = 32


def replay_body(**more: Any) -> dict[str, Any]:
    return {"game": "jotun", "options": RECORD["options"], "moves": RECORD["moves"], **more}


def runner(app: FastAPI) -> RulesRunner:
    rules: RulesRunner = app.state.rules
    return rules


def test_the_record_is_the_probes() -> None:
    assert len(RECORD["moves"]) == 697 and RECORD["options"] == {"size": 6}
    assert len(json.dumps(RECORD, separators=(",", ":"))) < 8 * 1024


async def test_a_long_record_answers_a_bounded_page(clients: ClientFactory) -> None:
    client = await clients()
    answer = await client.post("/api/replay", json=replay_body())
    assert answer.status_code == 200, answer.text
    assert len(answer.content) < MAX_ANSWER_BYTES
    assert answer.headers["content-type"] == "application/json"
    page = answer.json()
    ReplayOut.model_validate(page)  # encoded by the worker, in the documented shape
    assert page["from"] == 0 and page["total"] == 698
    assert 1 <= len(page["views"]) <= MAX_VIEWS
    assert page["next"] == len(page["views"])
    assert page["views"][0]["last_move"] is None
    assert [v["last_move"]["text"] for v in page["views"][1:]] == RECORD["moves"][
        : page["next"] - 1
    ]


async def test_the_plies_asked_are_the_plies_answered(clients: ClientFactory) -> None:
    client = await clients()
    rules = games.get("jotun", RECORD["options"])
    answer = await client.post("/api/replay", json=replay_body(**{"from": 690, "count": 32}))
    assert answer.status_code == 200, answer.text
    assert len(answer.content) < MAX_ANSWER_BYTES
    page = answer.json()
    assert page["from"] == 690 and page["next"] is None and page["total"] == 698
    assert len(page["views"]) == 8  # plies 690..697
    state = rules.initial_state()
    for text in RECORD["moves"]:
        state = rules.play(state, text)
    assert page["views"][-1] == rules.view(state)
    one = (await client.post("/api/replay", json=replay_body(**{"from": 695, "count": 1}))).json()
    assert [v["last_move"]["text"] for v in one["views"]] == [RECORD["moves"][694]]
    assert one["next"] == 696


async def test_every_answer_of_the_largest_views_fits_the_byte_cap(
    clients: ClientFactory,
) -> None:
    """Late plies of Jotun size 6 have views of about 30 KB each: a page stops before 1 MB, and
    ``next`` says where to go on."""
    client = await clients()
    answer = await client.post("/api/replay", json=replay_body(**{"from": 600}))
    assert answer.status_code == 200, answer.text
    assert len(answer.content) < MAX_ANSWER_BYTES
    page = answer.json()
    assert page["next"] == 600 + len(page["views"])


@pytest.mark.parametrize(
    ("more", "field"),
    [
        ({"from": 698}, "from"),
        ({"from": -1}, "from"),
        ({"from": "3"}, "from"),
        ({"from": True}, "from"),
        ({"count": 0}, "count"),
        ({"count": 33}, "count"),
        ({"count": 1.5}, "count"),
    ],
)
async def test_a_bad_window_is_refused(
    more: dict[str, Any], field: str, clients: ClientFactory
) -> None:
    client = await clients()
    answer = await client.post("/api/replay", json=replay_body(**more))
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid_request" and error["field"] == field


async def test_every_game_replays_in_a_worker(app: FastAPI, clients: ClientFactory) -> None:
    """Not only the slow games: a cheap game's replay is still untrusted input."""
    client = await clients("Ann")
    calls = runner(app).calls
    answer = await client.post(
        "/api/replay", json={"game": "exxit", "options": {}, "moves": ["0,0"]}
    )
    assert answer.status_code == 200, answer.text
    assert runner(app).calls > calls


@pytest.fixture(scope="module")
async def hasty_app(database_url: str) -> AsyncIterator[FastAPI]:
    """An app whose replays and imports may take a millisecond: the 697 plies take hundreds."""
    settings = make_settings(database_url, replay_timeout=0.001, import_timeout=0.001)
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def hasty(hasty_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=hasty_app), base_url="http://testserver"
    ) as client:
        assert (await client.put("/api/me", json={"name": "Hasty"})).status_code == 200
        yield client


async def test_a_replay_past_its_time_limit_answers_rules_timeout(
    hasty: httpx.AsyncClient,
) -> None:
    answer = await hasty.post("/api/replay", json=replay_body(**{"from": 697, "count": 1}))
    assert answer.status_code == 503, answer.text
    assert answer.json()["error"]["code"] == "rules_timeout"


def _pid(_slug: str, _options: Any, _state: Any, _argument: Any) -> int:
    return os.getpid()


async def test_a_late_replay_leaves_the_worker_serving(
    hasty_app: FastAPI, hasty: httpx.AsyncClient
) -> None:
    """The replay stops itself at its limit: its worker is not stopped, so no other game's work in
    the same worker is lost (and time queued behind that work is not counted)."""
    late = replay_body(**{"from": 697, "count": 1})
    rules = runner(hasty_app)
    jotun = games.get("jotun", RECORD["options"])
    assert (await hasty.post("/api/replay", json=late)).status_code == 503
    worker = await rules._run(_pid, jotun, None, None)
    assert (await hasty.post("/api/replay", json=late)).status_code == 503
    assert await rules._run(_pid, jotun, None, None) == worker


async def test_an_import_past_its_time_limit_answers_rules_timeout(
    hasty: httpx.AsyncClient,
) -> None:
    answer = await hasty.post("/api/archive/import", json=RECORD)
    assert answer.status_code == 503, answer.text
    assert answer.json()["error"]["code"] == "rules_timeout"
    archive = (await hasty.get("/api/archive", params={"player": "Ann"})).json()
    assert archive["games"] == []  # nothing stored


async def test_the_record_imports_in_a_worker(app: FastAPI, clients: ClientFactory) -> None:
    client = await clients("Ann")
    calls = runner(app).calls
    answer = await client.post(
        "/api/archive/import",
        json={
            "format": "hexmoot-record/1",
            "game": "exxit",
            "options": {},
            "players": [],
            "moves": ["0,0"],
            "result": {"winner": 1, "reason": "resignation", "scores": None},
        },
    )
    assert answer.status_code == 201, answer.text
    assert runner(app).calls > calls


async def test_the_long_record_imports_within_the_default_limit(clients: ClientFactory) -> None:
    """Every capture's canonical text needs a search: seconds of a worker, under IMPORT_TIMEOUT."""
    client = await clients("Ann")
    answer = await client.post("/api/archive/import", json=RECORD)
    assert answer.status_code == 201, answer.text
    game = (await client.get(f"/api/games/{answer.json()['id']}")).json()["game"]
    assert game["moves"] == RECORD["moves"] and game["imported_by"] == "Ann"


class _Waiting:
    """A game's rules that wait 20 ms (no processor time) before each move they apply: a machine
    busy with other work, as the replay's thread sees it."""

    def __init__(self, rules: Any) -> None:
        self._rules = rules

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)

    def apply(self, state: Any, move: Any) -> Any:
        time.sleep(0.02)
        return self._rules.apply(state, move)


def test_the_time_limit_counts_the_replays_own_work_not_the_clock() -> None:
    """A record whose replay waits 0.6 s by the clock imports under a 0.2 s limit, since its own
    work is far less; a limit of no time at all still stops it."""
    rules = games.get("exxit", {"variant": "beginner"})
    moves = random_game(rules, random.Random(3))[1][:30]
    waiting = _Waiting(rules)
    imported = _import_with(waiting, (moves, None, 0.2))  # type: ignore[arg-type]
    assert isinstance(imported, ImportedGame) and list(imported.moves) == moves
    assert isinstance(_import_with(waiting, (moves, None, 0.0)), _Late)  # type: ignore[arg-type]
