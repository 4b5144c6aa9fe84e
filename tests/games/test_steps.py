"""Every step of a move is real and explained (issue 15): each ``steps`` answer carries a
``prompt`` (what the next click is for) and ``changes`` (the board as it will be while the clicked
prefix is pending).

The property walks random positions of random games and random click prefixes in every game and
checks that a prompt is one short line whenever a click is asked for, that ``changes`` names only
cells of the view and only cells it changes, and that a complete prefix's ``changes`` make the
current view's stacks exactly those after the move. Exxit is the one documented exception: pawns
that drop off the field land on a cell the current view has not got yet, so ``changes`` leaves that
prisoner stack out (games/exxit.py, "Steps").
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.base import Steps
from games.bench import random_game

SMALL = {  # the smallest board of each game: the walk is about the steps, not the board
    "exxit": {"variant": "beginner"},
    "harmijan": {"size": 5},
    "jotun": {"size": 4},
    "sgolte": {"size": 5},
    "valaturna": {"size": 5},
}
_GAMES: dict[tuple[str, int], tuple[Any, list[Any]]] = {}


def _positions(slug: str, seed: int) -> tuple[Any, list[Any]]:
    """The rules and the states of one random game (cached: hypothesis draws seeds again)."""
    if (slug, seed) not in _GAMES:
        rules = games.get(slug, **SMALL[slug])
        states, _ = random_game(rules, random.Random(seed), max_plies=150)
        _GAMES[(slug, seed)] = (rules, states)
    return _GAMES[(slug, seed)]


def stacks_of(view: dict[str, Any]) -> dict[str, list[str]]:
    """Cell id -> stack, of a view."""
    return {c["id"]: c["stack"] for c in view["cells"]}


def check_answer(rules: Any, state: Any, answer: Steps) -> None:
    """The prompt and ``changes`` of one answer agree with the view and, if complete, the move."""
    if answer.next or answer.complete:
        prompt = answer.prompt
        assert prompt and "\n" not in prompt and len(prompt) <= 80, (answer.prefix, prompt)
        assert prompt == prompt.strip() and not prompt[0].islower(), prompt
    if not answer.prefix:
        assert answer.changes == {}
    before = stacks_of(rules.view(state))
    for cell, stack in answer.changes.items():
        assert cell in before, f"{answer.prefix}: changes name {cell}, not a cell of the view"
        assert stack != before[cell], f"{answer.prefix}: {cell} is unchanged, yet listed"
    if answer.complete:
        assert answer.move is not None
        after = stacks_of(rules.view(rules.play(state, answer.move)))
        assert set(before) <= set(after)
        pending = {**before, **answer.changes}
        expected = {c: after[c] for c in before}
        assert pending == expected, f"{answer.prefix} ({answer.move}): changes are not the move"
        new = set(after) - set(before)
        assert not new or rules.slug == "exxit", new


@pytest.mark.parametrize("slug", games.names())
@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 7), pick=st.randoms(use_true_random=False))
def test_prompts_and_changes_along_random_clicks(slug: str, seed: int, pick: random.Random) -> None:
    rules, states = _positions(slug, seed)
    state = pick.choice(states)
    prefix: list[str] = []
    while True:
        answer = rules.steps(state, prefix)
        check_answer(rules, state, answer)
        if not answer.next or (answer.complete and pick.random() < 0.3):
            return
        prefix.append(pick.choice(answer.next))
