"""The computer opponent (``games.bots``): legal moves at every level of every game, determinism,
wins in one, the pie choice and resignation.

Most tests run the real algorithms on small budgets (``small_levels``) so that the file stays
within seconds; the determinism test uses a real level's full budget on the fastest game.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

import games
from games.base import Rules
from games.bots import LEVEL_NAMES, LEVELS, decide, level_of
from games.bots.evaluate import evaluator, terminal_value
from games.bots.levels import RESIGN_FROM_PLY
from games.bots.match import run_match, wilson
from games.pie import CHOOSE
from games.seats import WHITE
from tests.games.positions import valaturna_position

#: Games small enough for many decisions: the smallest offered board of each.
SMALL = {
    "exxit": {"variant": "beginner"},
    "harmijan": {"size": 5},
    "jotun": {"size": 4},
    "sgolte": {"size": 5},
    "valaturna": {"size": 5},
}


@pytest.fixture
def small_levels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every level's budget cut to at most 24 simulations and 12 candidates (same algorithms)."""
    for levels in LEVELS.values():
        for name, level in list(levels.items()):
            budget = replace(
                level.budget,
                simulations=min(level.budget.simulations, 24),
                candidates=min(level.budget.candidates, 12),
            )
            monkeypatch.setitem(levels, name, replace(level, budget=budget))


def positions(rules: Rules[Any, Any], seed: int, plies: tuple[int, ...]) -> list[Any]:
    """The positions after ``plies`` plies of one seeded random game (those it reaches)."""
    rng = random.Random(seed)
    state = rules.initial_state()
    found = []
    for ply in range(max(plies) + 1):
        if rules.to_move(state) is None:
            break
        if ply in plies:
            found.append(state)
        state = rules.search_apply(state, rules.search_random_move(state, rng))
    return found


def check_decision(rules: Rules[Any, Any], state: Any, level: str, key: str) -> None:
    """The decision's move is legal, and its text replays to the same position."""
    d = decide(rules, state, level, key)
    replayed = rules.play(state, d.text)  # the path a person's move takes: parse, then apply
    assert rules.key(replayed) == rules.key(rules.apply(state, d.move))
    assert -1.0 <= d.value <= 1.0
    assert d.nodes >= 1
    if getattr(state, "ply", 0) < RESIGN_FROM_PLY:
        assert not d.resign


@pytest.mark.usefixtures("small_levels")
@pytest.mark.parametrize("level", LEVEL_NAMES)
@pytest.mark.parametrize("slug", sorted(SMALL))
def test_every_level_plays_legal_moves(slug: str, level: str) -> None:
    rules = games.get(slug, SMALL[slug])
    plies = (0, 1, 2, 9, 24) if slug != "jotun" else (0, 1, 2, 12)
    states = positions(rules, seed=len(level), plies=plies)
    assert len(states) >= 4
    for i, state in enumerate(states):
        check_decision(rules, state, level, f"test-{i}")


@pytest.mark.usefixtures("small_levels")
@pytest.mark.parametrize("slug", sorted(SMALL))
def test_default_boards_play_legal_moves(slug: str) -> None:
    rules = games.get(slug)
    for i, state in enumerate(positions(rules, seed=7, plies=(0, 1, 6))):
        check_decision(rules, state, "hard", f"default-{i}")


def test_same_key_same_move_at_full_budget() -> None:
    rules = games.get("valaturna", size=5)
    (state,) = positions(rules, seed=3, plies=(8,))
    first = decide(rules, state, "easy", "game-42")
    again = decide(rules, state, "easy", "game-42")
    assert first == again
    assert first.nodes == level_of("valaturna", "easy").budget.simulations


@pytest.mark.usefixtures("small_levels")
def test_the_key_and_the_level_seed_the_choice() -> None:
    # Beginner samples all game long: over a few keys, the same position gets several moves.
    rules = games.get("valaturna", size=5)
    (state,) = positions(rules, seed=3, plies=(8,))
    texts = {decide(rules, state, "beginner", f"key-{k}").text for k in range(12)}
    assert len(texts) >= 2
    assert decide(rules, state, "Beginner", "key-1") == decide(rules, state, "beginner", "key-1")


def wins_in_one(rules: Rules[Any, Any], state: Any) -> set[str]:
    """The texts of the moves that end the game at once with the mover winning."""
    seat = rules.to_move(state)
    wins = set()
    for move in rules.legal_moves(state):
        after = rules.apply(state, move)
        if rules.to_move(after) is None and terminal_value(rules, after) == (
            1.0 if seat == 1 else -1.0
        ):
            wins.add(rules.format_move(state, move))
    return wins


def first_win_in_one(slug: str, options: dict[str, Any], ply_from: int) -> Any:
    """A position of a seeded random game where a move wins at once but not every move does."""
    rules = games.get(slug, options)
    for seed in range(200):
        rng = random.Random(seed)
        state = rules.initial_state()
        ply = 0
        while rules.to_move(state) is not None:
            if ply >= ply_from:
                wins = wins_in_one(rules, state)
                if wins and len(wins) < len(list(rules.legal_moves(state))):
                    return rules, state, wins
            state = rules.apply(state, rules.random_move(state, rng))
            ply += 1
    raise AssertionError("no position with a win in one")


@pytest.mark.usefixtures("small_levels")
@pytest.mark.parametrize("slug", ["exxit", "valaturna", "harmijan"])
def test_every_level_takes_a_win_in_one(slug: str) -> None:
    rules, state, wins = first_win_in_one(slug, SMALL[slug], ply_from=6)
    for level in LEVEL_NAMES:
        for key in ("a", "b", "c"):
            d = decide(rules, state, level, key)
            assert d.text in wins, (level, key)
            assert d.value == 1.0 and not d.resign


@pytest.mark.usefixtures("small_levels")
def test_a_pass_that_wins_is_taken_and_one_that_loses_is_not() -> None:
    rules = games.get("valaturna", size=5)
    # White passed; Black, to move, is taller: Black's pass ends the game and wins.
    ahead = valaturna_position(
        rules, black="a1 b2", white="e5 e6", stacks={"c3": "wb"}, passes=1, first_passer=WHITE
    )
    behind = valaturna_position(
        rules, black="a1 b2", white="e5 e6", stacks={"c3": "bw"}, passes=1, first_passer=WHITE
    )
    for level in LEVEL_NAMES:
        assert decide(rules, ahead, level, "k").text == "pass"
        assert decide(rules, behind, level, "k").text != "pass"


@pytest.mark.usefixtures("small_levels")
def test_resigns_a_lost_position_only() -> None:
    rules = games.get("valaturna", size=5)
    # Black has no stack, so only ``pass``, which ends the game lost (White passed first).
    lost = valaturna_position(rules, white="e5 e6 a1", passes=1, first_passer=WHITE)
    lost = replace(lost, ply=30)
    assert [rules.format_move(lost, m) for m in rules.legal_moves(lost)] == ["pass"]
    won = replace(
        valaturna_position(rules, black="e5 e6 a1", white="i5", passes=1, first_passer=WHITE),
        ply=30,
    )
    for level in LEVEL_NAMES:
        d = decide(rules, lost, level, "k")
        assert d.resign and d.value == -1.0 and d.text == "pass"
        assert not decide(rules, won, level, "k").resign


@pytest.mark.usefixtures("small_levels")
def test_the_pie_choice_takes_the_stronger_colour() -> None:
    # Seat 2 chooses: Black has a stack of three and moves first, White a lone piece.
    rules = games.get("valaturna", size=5)
    for black, white in ((("c3", "bwb"), ("g3", "w")), (("c3", "b"), ("g3", "bbw"))):
        state = valaturna_position(rules, stacks=dict([black, white]), phase=CHOOSE)
        state = replace(state, black_seat=0)
        assert rules.to_move(state) == 2
        want = "black" if len(black[1]) > len(white[1]) else "white"
        for level in ("easy", "medium", "hard"):
            assert decide(rules, state, level, "k").text == want


def test_choose_phase_is_worth_the_better_colour_to_seat_2() -> None:
    rules = games.get("valaturna", size=5)
    state = replace(
        valaturna_position(rules, stacks={"c3": "bwb", "g3": "w"}, phase=CHOOSE), black_seat=0
    )
    assert evaluator("valaturna")(rules, state) < 0  # bad for seat 1, who set it up


def test_unknown_level_and_finished_game() -> None:
    rules = games.get("valaturna", size=5)
    with pytest.raises(ValueError, match="no level 'expert'"):
        decide(rules, rules.initial_state(), "expert", "k")
    over = valaturna_position(rules, black="a1", passes=2, first_passer=WHITE, phase="over")
    with pytest.raises(ValueError, match="game is over"):
        decide(rules, over, "easy", "k")


@pytest.mark.usefixtures("small_levels")
def test_a_match_counts_every_game() -> None:
    rules = games.get("exxit", variant="beginner")
    tally = run_match(rules, "medium", "beginner", 2, key="t")
    assert tally.games == 2 and len(tally.plies) == 2
    low, high = wilson(tally.score, tally.games)
    assert 0.0 <= low <= tally.score / 2 <= high <= 1.0


def test_a_passed_deadline_stops_the_search_early() -> None:
    # The deadline is a safety net read every 16 simulations: one already passed stops at 16.
    rules = games.get("valaturna", size=5)
    (state,) = positions(rules, seed=3, plies=(8,))
    d = decide(rules, state, "hard", "k", deadline=-1.0)
    assert d.nodes == 16
    check_decision(rules, state, "hard", "k")
