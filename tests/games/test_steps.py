"""Every step of a move is real and explained (issue 15): each ``steps`` answer carries a
``prompt`` (what the next click is for) and ``changes`` (the board as it will be while the clicked
prefix is pending)."""

from __future__ import annotations

from games.base import Steps


def test_prompt_and_changes_are_always_in_the_json() -> None:
    bare = Steps(("a1",), ("b2",), None).to_json()
    assert bare["prompt"] == ""
    assert bare["changes"] == {}
    full = Steps(("a1",), ("b2",), None, prompt="Pick where it lands", changes={"a1": []})
    assert full.to_json()["prompt"] == "Pick where it lands"
    assert full.to_json()["changes"] == {"a1": []}
