"""The archive's monthly dumps (issue 28): once a month is over, each game's finished public games of
that month in a gzipped JSON-lines file, listed with their counts and SHA-256 sums on /dumps.

An app on a fake clock (so that a month can end within a test) served by a real uvicorn in the
test's loop, on SQLite and PostgreSQL databases of the test's own; the files are read back through
HTTP and checked against the streaming export, which writes the same lines.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.domain.clock import FakeClock
from app.main import create_app
from tests.app.conftest import make_settings
from tests.app.test_quotas import serving
from tests.support.databases import BACKENDS, fresh_database
from tests.support.gameplay import resigned_record

#: 2023-11-14: the fake clock's start, in the middle of a month.
START = 1_700_000_000_000


def a_record(slug: str, options: dict[str, Any], seed: int) -> dict[str, Any]:
    plies = random.Random(seed).randint(3, 8)
    return resigned_record(slug, options, plies, seed, first=f"P{seed}")


def index_files(index: dict[str, Any]) -> list[str]:
    return [d["file"] for d in index["dumps"]]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_month_over_is_dumped_once_and_served_with_its_sums(
    backend: str, tmp_path: Path
) -> None:
    clock = FakeClock(START)
    dumps = tmp_path / "dumps"
    with fresh_database(backend, tmp_path) as url:
        app = create_app(make_settings(url, dumps_dir=str(dumps), dumps_every=0), clock=clock)
        async with app.router.lifespan_context(app), serving(app) as address:
            base = f"http://{address}"
            async with httpx.AsyncClient(base_url=base, timeout=60) as ann:
                assert (await ann.put("/api/me", json={"name": "Ann"})).status_code == 200
                plan = [("exxit", {"variant": "beginner"})] * 3 + [("valaturna", {"size": 5})] * 2
                for seed, (slug, options) in enumerate(plan):
                    record = a_record(slug, options, seed)
                    answer = await ann.post("/api/archive/import", json=record)
                    assert answer.status_code == 201, answer.text
                build = app.state.service.dumps.build_due

                # The month is not over: nothing to dump, and the page says so.
                assert await build() == []
                page = await ann.get("/dumps")
                assert page.status_code == 200 and 'id="no-dumps"' in page.text

                # A month later: one file per game, each line the export's.
                clock.advance(40 * 86400)
                written = await build()
                assert sorted((d.game, d.month, d.games) for d in written) == [
                    ("exxit", "2023-11", 3),
                    ("valaturna", "2023-11", 2),
                ]
                export = await ann.get("/api/archive/export")
                lines = export.text.splitlines()[:-1]
                sums = (await ann.get("/dumps/files/sha256sums.txt")).text.splitlines()
                assert len(sums) == 2
                for line in sums:
                    digest, name = line.split("  ")
                    served = await ann.get(f"/dumps/files/{name}")
                    assert served.status_code == 200
                    assert served.headers["content-type"] == "application/octet-stream"  # bytes
                    assert hashlib.sha256(served.content).hexdigest() == digest
                    slug = name.split("_")[1]
                    mine = [json.loads(x) for x in lines if json.loads(x)["record"]["game"] == slug]
                    ours = [json.loads(x) for x in gzip.decompress(served.content).splitlines()]
                    assert ours == mine
                index = (await ann.get("/dumps/files/index.json")).json()
                assert {d["file"]: d["games"] for d in index["dumps"]} == {
                    "hexmoot_exxit_2023-11.jsonl.gz": 3,
                    "hexmoot_valaturna_2023-11.jsonl.gz": 2,
                }
                page = await ann.get("/dumps")
                assert "hexmoot_exxit_2023-11.jsonl.gz" in page.text
                assert "CC0" in page.text

                # Built again: nothing changed, nothing written; only whole files in the directory.
                assert await build() == []
                assert sorted(p.name for p in dumps.iterdir()) == sorted(
                    ["index.json", "sha256sums.txt", *index_files(index)]
                )
                # Nothing outside the directory is served, nor what is not built.
                for name in ("..%2F..%2Fhexmoot.db", "../x", "hexmoot_exxit_2099-01.jsonl.gz"):
                    missing = await ann.get(f"/dumps/files/{name}")
                    assert missing.status_code == 404, name
