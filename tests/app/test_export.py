"""The streaming export (``GET /api/archive/export``, issue 28): the archive's games as JSON lines,
oldest first, a page of a hundred at a time, each with the record ``record.json`` gives, then the
cursor to go on from. A real uvicorn process on SQLite and PostgreSQL (``backend``), each module a
database of its own, so the archive holds exactly the games imported here.
"""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
import pytest

from tests.support.gameplay import resigned_record
from tests.support.server import LiveServer
from tests.support.wsclient import TestVisitor

#: More than one page of the export (app.services.archive.EXPORT_PAGE).
GAMES = 130


def a_record(seed: int, name: str) -> dict[str, Any]:
    """A short Exxit game (2 to 6 plies), seat 2 resigning, its first seat named ``name``."""
    plies = random.Random(seed).randint(2, 6)
    return resigned_record("exxit", {"variant": "beginner"}, plies, seed, first=name)


async def export(client: httpx.AsyncClient, **params: str) -> tuple[list[dict[str, Any]], Any]:
    """The export's game lines and its last line's ``next``."""
    answer = await client.get("/api/archive/export", params=params)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("application/x-ndjson")
    assert answer.text.endswith("\n")
    lines = [json.loads(line) for line in answer.text.splitlines()]
    assert set(lines[-1]) == {"next"}, lines[-1]
    return lines[:-1], lines[-1]["next"]


async def import_games(visitor: TestVisitor, seeds: range) -> list[str]:
    ids = []
    for seed in seeds:
        record = a_record(seed, f"P{seed}")
        answer = await visitor.http.post("/api/archive/import", json=record)
        assert answer.status_code == 201, answer.text
        ids.append(answer.json()["id"])
    return ids


@pytest.fixture(scope="module")
async def imported(server: LiveServer) -> list[str]:
    ann = await TestVisitor(server.url).start("Ann")
    ids = await import_games(ann, range(GAMES))
    await ann.close()
    return ids


async def test_every_game_streams_oldest_first_with_its_record_then_where_to_go_on(
    server: LiveServer, imported: list[str]
) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        lines, after = await export(client)
        assert sorted(line["id"] for line in lines) == sorted(imported)
        keys = [(line["finished_at"], line["id"]) for line in lines]
        assert keys == sorted(keys)  # oldest first, across the pages
        for line in lines[:: GAMES // 10]:  # the record is record.json's, and imports as it is
            record = await client.get(f"/games/{line['id']}/record.json")
            assert line["record"] == record.json()
        # Nothing finished since: no game, and the same place to go on from.
        again, same = await export(client, since=after)
        assert again == [] and same == after


async def test_since_gives_only_what_finished_after(
    server: LiveServer, imported: list[str]
) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        lines, after = await export(client)
        bo = await TestVisitor(server.url).start("Bo")
        later = await import_games(bo, range(1000, 1003))
        await bo.close()
        news, newer = await export(client, since=after)
        assert [line["id"] for line in news] == later and newer != after
        # epoch ms: the games finished after that instant
        instant = lines[GAMES // 2]["finished_at"]
        tail, _ = await export(client, since=str(instant))
        assert all(line["finished_at"] > instant for line in tail)
        assert len(tail) == sum(1 for line in lines + news if line["finished_at"] > instant)


async def test_the_archives_filters_apply(server: LiveServer, imported: list[str]) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        lines, _ = await export(client, player="P12")  # P12 and P120..P129
        names = sorted(line["record"]["players"][0]["name"] for line in lines)
        assert names == sorted(["P12", *(f"P12{d}" for d in range(10) if 120 + d < GAMES)])
        none, after = await export(client, game="jotun")
        assert none == [] and after is None


@pytest.mark.parametrize(
    ("params", "code", "field"),
    [
        ({"sort": "newest"}, "bad_filter", "sort"),
        ({"limit": "5"}, "bad_filter", "limit"),
        ({"cursor": "x"}, "bad_filter", "cursor"),
        ({"since": "not-a-cursor"}, "bad_cursor", "since"),
        ({"since": "-5"}, "bad_cursor", "since"),
        ({"game": "chess"}, "bad_filter", "game"),
        ({"sincee": "1"}, "bad_filter", "sincee"),
    ],
)
async def test_a_bad_parameter_is_refused_before_any_line(
    server: LiveServer, params: dict[str, str], code: str, field: str
) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        answer = await client.get("/api/archive/export", params=params)
        assert answer.status_code == 422, answer.text
        error = answer.json()["error"]
        assert (error["code"], error.get("field")) == (code, field)
