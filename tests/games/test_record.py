"""Records: validation names the first bad ply; results must agree with the rules."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import games
from games.bench import random_game
from games.errors import RecordError
from games.record import FORMAT, make_record, replay

ROOT = Path(__file__).resolve().parents[2]
GAMES = games.names()


def _record(slug: str, seed: int = 3) -> dict:
    rules = games.get(slug)
    _, texts = random_game(rules, random.Random(seed))
    return json.loads(json.dumps(make_record(rules, texts)))


@pytest.mark.parametrize("slug", GAMES)
def test_record_errors_name_what_is_wrong(slug: str) -> None:
    good = _record(slug)
    cases = [
        (dict(good, format="pgn"), "unknown record format"),
        (dict(good, game="chess"), "unknown game 'chess'"),
        (dict(good, options={"nope": 1}), "unknown option 'nope'"),
        (dict(good, moves="e5"), "moves must be a list"),
        (dict(good, moves=[*good["moves"][:2], 7]), "ply 3: a move must be text"),
        (dict(good, result={"winner": 1, "reason": "timeout"}), "is not over"),
    ]
    for record, message in cases[:5]:
        with pytest.raises(RecordError, match=message):
            replay(record)
    # a finished game's result must be the rules' own
    wrong = dict(good["result"], reason="resignation")
    with pytest.raises(RecordError, match="disagrees"):
        replay(dict(good, result=wrong))
    # an unfinished game may end only by a server reason
    short = dict(good, moves=good["moves"][:1], result=None)
    replay(short)
    replay(dict(short, result={"winner": 2, "reason": "resignation", "scores": None}))
    with pytest.raises(RecordError, match="is not over"):
        replay(dict(short, result={"winner": 2, "reason": "no-moves"}))
    assert good["format"] == FORMAT


@pytest.mark.parametrize("slug", GAMES)
def test_command_line_random_then_replay(slug: str, tmp_path: Path) -> None:
    run = [sys.executable, "-m", "games"]
    out = subprocess.run(
        [*run, "random", slug, "--seed", "5"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    record = json.loads(out.stdout)
    assert record["seed"] == 5 and record["game"] == slug
    path = tmp_path / "game.json"
    path.write_text(out.stdout)
    shown = subprocess.run([*run, "replay", str(path)], cwd=ROOT, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert "outcome:" in shown.stdout and '"reason"' in shown.stdout
    record["moves"][1] = "zz-not-a-move"
    path.write_text(json.dumps(record))
    bad = subprocess.run([*run, "replay", str(path)], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 1 and "ply 2" in bad.stderr


def test_command_line_list_names_every_game() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "games", "list"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert [line.split()[0] for line in out.stdout.splitlines()] == games.names()


def test_command_line_refuses_bad_options() -> None:
    for slug in GAMES:
        out = subprocess.run(
            [sys.executable, "-m", "games", "random", slug, "--options", "nope=1"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert out.returncode == 2 and "unknown option 'nope'" in out.stderr
