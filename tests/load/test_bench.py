"""The benchmark's harness stays able to run (its figures are never asserted): a short load step on
the floor and on a live server, each move's round trip counted once, and a run's JSON file read
back for a comparison."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from tests.load.bench import Report
from tests.load.floor import FloorServer
from tests.load.load import Target, load_step
from tests.support.databases import fresh_database
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import live_server


async def step(target: Target) -> dict[str, Any]:
    """Four games with one spectator each, 20 moves/s for 1 s."""
    return await load_step(
        target,
        games_count=4,
        spectators=1,
        rate=20.0,
        seconds=1.0,
        slug="exxit",
        options={"variant": "standard"},
        seed=3,
    )


async def test_a_load_step_on_the_floor_and_on_hexmoot_counts_every_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = Report(argparse.Namespace(rates=[20.0]))
    with FloorServer() as floor:
        bare = await step(Target("floor", floor.url, floor.ws_url, [floor.pid], bare=True))
    with fresh_database("sqlite", tmp_path) as url, live_server(url, QUOTAS_OFF) as server:
        one = await step(Target("one process", server.url, server.ws_url, [server.pid]))
    for figures in (bare, one):
        assert figures["moves_sent"] > 0
        assert figures["moves_completed"] == figures["moves_sent"], figures
        assert figures["errors"] == {}
        assert figures["sockets"] == 4 * 3
        report.add("load", figures)
    report.ratio("one process ÷ floor", one, bare)
    path = tmp_path / "run.json"
    report.write(path)
    written = json.loads(path.read_text())
    assert [step["target"] for step in written["steps"]] == ["floor", "one process"]
    assert written["ratios"][0]["label"] == "one process ÷ floor"
    report.compare(path)
    assert "one process 20/s" in capsys.readouterr().out
