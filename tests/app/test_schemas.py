"""The typed protocol fits what the rules emit, and the exported JSON Schemas are up to date.

Pure tests (no server): every game, random seeded games, each position's view, its ``steps`` answers
with their hints, the outcome and the record, validated against the models the server documents.
"""

from __future__ import annotations

import itertools
import json
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

import games
import games.view
from app.runtime.rules import steps_json
from app.schemas.__main__ import FILES, render
from app.schemas.responses import RecordOut, StepsOut
from app.schemas.view import Result, View
from games.record import make_record
from tests.support.gameplay import MovePicker, smallest_options

DOCS = Path(__file__).resolve().parents[2] / "docs"
VIEW = TypeAdapter(View)
RESULT = TypeAdapter(Result)


@pytest.mark.parametrize("name", sorted(FILES))
def test_the_exported_schemas_are_up_to_date(name: str) -> None:
    written = (DOCS / name).read_text(encoding="utf-8")
    assert written == render(FILES[name]()), f"run `python -m app.schemas` to update docs/{name}"
    schema = json.loads(written)
    for ref in re.findall(r'"\$ref": "([^"]+)"', written):
        assert ref.startswith("#/$defs/") and ref.rsplit("/", 1)[-1] in schema["$defs"], ref


def _steps_answers(rules: games.Rules[Any, Any], state: Any) -> list[dict[str, Any]]:
    """``steps`` at the empty prefix, after each of a few first tokens, and one level deeper."""
    answers = [steps_json(rules, state, [])]
    for first in answers[0]["next"][:4]:
        second = steps_json(rules, state, [first])
        answers.append(second)
        for token in second["next"][:2]:
            answers.append(steps_json(rules, state, [first, token]))
    return answers


@pytest.mark.parametrize("slug", games.names())
def test_views_steps_outcomes_and_records_of_random_games_fit_the_models(slug: str) -> None:
    options = smallest_options(slug)
    hints_seen = 0
    for seed in range(2):
        picker = MovePicker(slug, options, seed=zlib.crc32(f"{slug}{seed}".encode()))
        for ply in itertools.count():
            view = picker.rules.view(picker.state)
            assert VIEW.validate_python(view) == view
            if ply % 5 == 0 or picker.to_move() is None:
                for answer in _steps_answers(picker.rules, picker.state):
                    StepsOut.model_validate({"version": ply + 1, **answer})
                    hints_seen += len(answer["hints"])
            if picker.to_move() is None or ply >= 400:
                break
            picker.play(picker.pick())
        outcome = picker.rules.outcome(picker.state)
        if outcome is not None:
            RESULT.validate_python(outcome.to_json())
            assert view["outcome"] == outcome.to_json()
        players = [{"seat": 1, "name": "Ann"}, {"seat": 2, "name": "Bo"}]
        RecordOut.model_validate(make_record(picker.rules, picker.moves, players))
    if slug != "sgolte":  # the only game without previews
        assert hints_seen > 0
