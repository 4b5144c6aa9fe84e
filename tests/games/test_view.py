"""The view's schema (games.view): every game's views fit it exactly, and it exports as JSON Schema."""

from __future__ import annotations

import json
import random

import pytest
from pydantic import TypeAdapter, ValidationError

import games
from games.bench import random_game
from games.view import View, make_view

VIEW = TypeAdapter(View)


@pytest.mark.parametrize("slug", games.names())
def test_every_view_of_a_random_game_fits_the_schema(slug: str) -> None:
    rules = games.get(slug)
    states, _ = random_game(rules, random.Random(5), max_plies=200)
    for state in [*random.Random(6).sample(states, min(12, len(states))), states[-1]]:
        view = rules.view(state)
        VIEW.validate_python(view)
        assert VIEW.validate_json(json.dumps(view)) == view  # what the browser receives


def test_the_schema_is_complete_and_closed() -> None:
    schema = VIEW.json_schema()
    assert set(schema["required"]) == set(View.__annotations__)
    assert schema["additionalProperties"] is False
    defs = schema["$defs"]
    for name in ("BoardView", "CellView", "Counter", "LastMove", "OutcomeView", "RowLabel"):
        assert defs[name]["additionalProperties"] is False, name
    # tile, mark and strength are optional
    assert defs["CellView"]["required"] == ["id", "q", "r", "stack"]
    assert defs["CellView"]["properties"]["strength"]["type"] == "integer"
    assert defs["BoardView"]["properties"]["kind"]["enum"] == ["hex", "points", "field"]
    assert "extra" not in schema["properties"]  # nothing game-specific: the browser reads none


def test_a_stray_key_or_an_unknown_kind_is_refused() -> None:
    rules = games.get("valaturna", size=5)
    view = rules.view(rules.initial_state())
    with pytest.raises(ValidationError):
        VIEW.validate_python({**view, "extra": {"turn": "black"}})  # a key the view has not
    with pytest.raises(ValueError, match="board kind"):
        make_view(
            game="x",
            kind="square",
            side=3,
            cells=[],
            rows=[],
            to_move=1,
            colours=(None, None),
            phase="play",
            last_move=None,
        )
