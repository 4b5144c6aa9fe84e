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

import contextlib
import dataclasses
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.base import Steps
from games.bench import random_game
from games.errors import IllegalMoveError
from tests.games.positions import harmijan_position, jotun_position, valaturna_position

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


# --- one example per bullet of the issue -----------------------------------------------------------


@pytest.mark.parametrize(
    ("slug", "options", "setup", "prompt"),
    [
        ("jotun", {}, "e5", "Black owns the stack on e5; White moves next"),
        ("sgolte", {"size": 5}, "e5", "Black owns the stone on e5; White moves next"),
        (
            "valaturna",
            {"size": 5},
            "e3/e7",
            "Black owns the stack on e3 and moves first; White owns the stack on e7",
        ),
        (
            "harmijan",
            {"size": 6},
            "f5,f6/c3,c4",
            "Black owns the stones on f5 and f6 and moves first; White owns the stones on c3 and c4",
        ),
    ],
)
def test_the_pie_choice_says_once_what_each_colour_gets(
    slug: str, options: dict[str, int], setup: str, prompt: str
) -> None:
    rules = games.get(slug, **options)
    state = rules.play(rules.initial_state(), setup)
    answer = rules.steps(state, [])
    assert answer.next == ("black", "white") and answer.prompt == prompt
    assert "black or white" not in answer.prompt  # the buttons name the colours
    assert rules.steps(state, ["white"]).prompt == "Take white"


def test_harmijan_the_moved_stone_is_at_its_destination() -> None:
    rules = games.get("harmijan", size=6)
    # spec §8 example 2: Black f3 f4 f5 f6 f7 g3, White g6; g3 may bite g6
    state = harmijan_position("f3 f4 f5 f6 f7 g3", "g6")
    assert rules.steps(state, []).prompt == "Pick the stone to move"
    picked = rules.steps(state, ["g3"])
    assert picked.prompt == "Pick where it slides to"
    assert picked.changes == {"g3": []}  # lifted: in hand while its destination is chosen
    bitten = rules.steps(state, ["g3", "g6"])
    assert bitten.prompt == "Place the new stone in line with it"
    assert bitten.changes == {"g3": [], "g6": ["black"]}  # at g6, White's stone gone
    assert "g5" not in bitten.next  # touches the moved stone's creature
    done = rules.steps(state, ["g3", "g6", "g9"])
    assert done.move == "g3xg6@g9" and done.prompt == "Play g3xg6@g9"
    assert done.changes == {"g3": [], "g6": ["black"], "g9": ["black"]}


def test_pass_as_the_only_move_is_named() -> None:
    harmijan = games.get("harmijan", size=6)
    stuck = dataclasses.replace(harmijan_position("a1 a3", "e5 e6"), must_pass=True)  # §8 ex. 7
    assert harmijan.steps(stuck, []).prompt == "You have no turn: pass"
    assert harmijan.steps(stuck, ["pass"]).prompt == "Pass your turn"
    valaturna = games.get("valaturna", size=5)
    alone = valaturna_position(valaturna, white="e5")
    answer = valaturna.steps(alone, [])
    assert answer.next == ("pass",) and answer.prompt == "No point sees one of your stacks: pass"


def test_harmijan_setup_shows_each_stone_clicked() -> None:
    rules = games.get("harmijan", size=5)
    answer = rules.steps(rules.initial_state(), ["e5", "e6", "a1"])
    assert answer.prompt == "Place the second white stone next to it"
    assert answer.changes == {"e5": ["black"], "e6": ["black"], "a1": ["white"]}


def test_sgolte_merge_capture_and_replacement_are_drawn() -> None:
    rules = games.get("sgolte", size=5)
    # spec §8 example 3: Black c5 c7; White c2 d3 e3 e4 e5 (one group); Black merges at c6
    state = rules.position(black=["c5", "c7"], white=["c2", "d3", "e3", "e4", "e5"])
    start = rules.steps(state, [])
    assert start.prompt == "Place a stone (joining two of your groups must capture)"
    merge = rules.steps(state, ["c6"])
    assert merge.prompt == "Choose the line to capture: click its first stone"
    assert merge.changes == {"c6": ["black"]}  # the merging stone is drawn
    line = rules.steps(state, ["c6", "c2", "d3"])
    assert line.prompt == "Remove the next stone of the line"
    assert line.changes == {"c6": ["black"], "c2": [], "d3": []}  # captured stones leave
    captured = rules.steps(state, ["c6", "c2", "d3", "e4"])
    assert captured.prompt == "Re-place 3 stones, each touching at most one of your groups"
    assert captured.changes == {"c6": ["black"], "c2": [], "d3": [], "e4": []}
    one = rules.steps(state, ["c6", "c2", "d3", "e4", "c2"])
    assert one.prompt == "Re-place 2 stones, each touching at most one of your groups"
    assert one.changes["c2"] == ["black"]  # the re-placed stone appears on a vacated cell
    two = rules.steps(state, ["c6", "c2", "d3", "e4", "c2", "d3"])
    assert two.prompt == "Re-place 1 stone, touching at most one of your groups"
    done = rules.steps(state, ["c6", "c2", "d3", "e4", "c2", "d3", "e4"])
    assert done.prompt == "Play c6xc2,d3,e4:c2,d3,e4"
    assert done.changes == {cell: ["black"] for cell in ("c6", "c2", "d3", "e4")}


def test_sgolte_dense_capture_prompt() -> None:
    rules = games.get("sgolte", size=5, variant="dense")
    state = rules.position(black=["c5", "c7"], white=["c2", "d3", "e3", "e4", "e5"])
    assert rules.steps(state, ["c6"]).prompt == (
        "Choose the stones to capture, the splitting one last"
    )


def test_valaturna_opening_points_show_their_stacks() -> None:
    rules = games.get("valaturna", size=5)
    state = rules.initial_state()
    assert rules.steps(state, []).prompt == "Set up: place the black stack"
    black = rules.steps(state, ["c3"])
    assert black.prompt == "Place the white stack" and black.changes == {"c3": ["black"]}
    both = rules.steps(state, ["c3", "e5"])
    assert both.move == "c3/e5" and both.changes == {"c3": ["black"], "e5": ["white"]}


def test_valaturna_placement_shows_its_captures() -> None:
    rules = games.get("valaturna", size=5)
    state = valaturna_position(rules, black="e2 e6", white="e5")
    first = rules.steps(state, [])
    assert first.prompt == "Place a stack where it sees one of yours, or pass"
    assert first.hints["e4"] == {"cells": ["e5"]}  # e4 sees e2, and flanks e5 against e6
    placed = rules.steps(state, ["e4"])
    assert placed.move == "e4" and placed.prompt == "Play e4"
    assert placed.changes == {"e4": ["black"], "e5": ["white", "black"]}
    assert rules.steps(state, ["pass"]).prompt == "Pass your turn"


def test_jotun_paths_that_end_on_one_cell_ask_where_to_turn() -> None:
    rules = games.get("jotun", size=4)
    state = jotun_position(
        {"b3": "W", "b4": "B", "d7": "B", "e5": "B", "f5": "W", "g1": "W"}, "white", rules
    )
    assert rules.steps(state, ["b3"]).changes == {"b3": []}
    two = rules.steps(state, ["b3", "e6"])
    assert two.move is None and two.next == ("e5", "f1")
    assert two.prompt == "Two paths end here: pick where it turns"
    # what both results agree on is drawn; g1, fed on one path only, waits for the choice
    agreed = {"b3": [], "d7": [], "e5": [], "f5": ["white", "white"]}
    assert two.changes == {**agreed, "e6": ["black", "black", "white"]}
    fed = rules.steps(state, ["b3", "e6", "f1"])
    assert fed.move == "b3-f1-f4-g4-e6" and fed.changes["g1"] == ["white", "white"]


def test_jotun_a_complete_move_that_may_go_on_says_so() -> None:
    rules = games.get("jotun", size=4)
    state = jotun_position(
        {"a3": "W", "c1": "BB", "d1": "WWB", "e1": "W", "e3": "BB"}, "black", rules
    )
    answer = rules.steps(state, ["c1", "a1"])
    assert answer.move == "c1-a1" and answer.next == ("e2",)
    assert answer.prompt == "Play c1-a1, or pick where it turns"
    assert answer.changes == {"c1": [], "a1": ["black", "black"]}


def test_jotun_cells_carry_strength() -> None:
    rules = games.get("jotun")
    # spec §8 E6: h2-f4 leaves f4 WBB, height 3, strength 2 (the black pieces on top)
    state = rules.play(jotun_position({"h2": "BB", "f5": "WW", "f6": "WW", "e4": "B"}), "h2-f4")
    cells = {c["id"]: c for c in rules.view(state)["cells"]}
    assert cells["f4"]["stack"] == ["white", "black", "black"] and cells["f4"]["strength"] == 2
    assert cells["e4"]["strength"] == 2 and cells["f5"]["strength"] == 1
    assert "strength" not in cells["a1"]  # empty


@pytest.mark.parametrize("seed", range(3))
def test_every_occupied_jotun_cell_has_its_strength(seed: int) -> None:
    rules = games.get("jotun", size=4)
    states, _ = random_game(rules, random.Random(seed), max_plies=120)
    differs = False
    for state in states:
        for cell in rules.view(state)["cells"]:
            stack = cell["stack"]
            if not stack:
                assert "strength" not in cell
                continue
            top = len(stack) - len("".join(p[0] for p in stack).rstrip(stack[-1][0]))
            assert cell["strength"] == top
            differs |= top != len(stack)
    assert differs  # strength is not the height


def test_only_jotun_sends_strength() -> None:
    for slug in games.names():
        if slug == "jotun":
            continue
        rules, states = _positions(slug, 0)
        assert not any("strength" in c for c in rules.view(states[-1])["cells"])


def test_exxit_the_dancer_is_lifted_then_sown() -> None:
    rules = games.get("exxit")
    state = rules.play(rules.play(rules.initial_state(), "0,0"), "1,-1")
    assert rules.steps(state, []).prompt == "Pick a stack to dance: dancing is compulsory"
    picked = rules.steps(state, ["0,0"])
    assert picked.prompt == "Pick the enemy stack to dance towards"
    assert picked.changes == {"0,0": []}
    done = rules.steps(state, ["0,0", "1,-1"])
    assert done.changes == {"0,0": [], "1,-1": ["black", "red"]}
    first = rules.steps(rules.initial_state(), [])
    assert first.prompt == "Place a pawn on a tile without pawns"


@pytest.mark.parametrize("slug", games.names())
def test_notation_examples_are_moves_and_the_first_is_a_move_of_play(slug: str) -> None:
    """The catalogue's examples (the typed box's placeholder shows the first) are well-formed
    moves of the game; the first is a move of play, not of the opening, and no word."""
    rules = games.get(slug)
    states, _ = random_game(rules, random.Random(1), max_plies=40)
    playing = next(s for s in states if rules.view(s)["phase"] == "play")
    first, *_ = examples = games.rules_class(slug).notation
    assert len(examples) >= 3 and len(set(examples)) == len(examples)
    assert first not in ("black", "white", "pass") and "/" not in first
    for text in examples:
        for state in (rules.initial_state(), playing):
            with contextlib.suppress(IllegalMoveError):  # well-formed, not legal here
                rules.parse_move(state, text)
    state = rules.initial_state()
    for text in TYPICAL_AFTER[slug]:
        state = rules.play(state, text)
    assert rules.format_move(state, rules.parse_move(state, first)) == first


#: An opening after which each game's first notation example is legal as written.
TYPICAL_AFTER = {
    "exxit": [],
    "harmijan": ["f5,f6/c3,c4", "black"],  # spec §8 example 1
    "jotun": ["e5", "white", "d4"],
    "sgolte": ["e5", "white"],
    "valaturna": ["e3/e7", "black"],
}
