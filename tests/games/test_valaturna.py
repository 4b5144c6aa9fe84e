"""Valaturna: the worked examples of shared/rules/valaturna.md §8 and the decisions of §7.

Positions are built directly with :func:`position`; every expectation is exact.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.bitboard import lines
from games.errors import IllegalMoveError, InvalidMoveError
from games.record import replay, rules_of
from games.seats import LETTERS
from games.valaturna import BLACK, WHITE, Move, Rules, State, flank_line, tops_of
from tests.games.positions import valaturna_position as position

DATA = Path(__file__).parent / "data"


def rules5() -> Rules:
    return Rules(size=5)


def occupied(rules: Rules, state: State) -> dict[str, str]:
    """Every stack of ``state`` by point name (pieces bottom to top)."""
    return {rules.board.names[i]: s for i, s in enumerate(state.stacks) if s}


def placements(rules: Rules, state: State) -> list[str]:
    return [rules.format_move(state, m) for m in rules.legal_moves(state) if m.kind == "place"]


# --- §8, the worked examples (side 5) ---------------------------------------------------------


def test_example_1_pie() -> None:
    rules = rules5()
    state = rules.initial_state()
    assert rules.to_move(state) == 1
    state = rules.play(state, "e3/e7")
    assert occupied(rules, state) == {"e3": "b", "e7": "w"}
    assert rules.to_move(state) == 2
    assert [rules.format_move(state, m) for m in rules.legal_moves(state)] == ["black", "white"]
    state = rules.play(state, "white")
    assert state.black_seat == 1  # Seat 1 Black, Seat 2 White
    assert rules.to_move(state) == 1  # Seat 1 is Black, and Black moves
    expected = ["a3", "b3", "c1", "c3", "d2", "d3", "e1", "e2", "e4", "e5", "e6"]
    expected += ["f2", "f3", "g1", "g3", "h3", "i3"]
    assert placements(rules, state) == expected
    assert len(expected) == 17
    rules.parse_move(state, "e5")  # west: e4 empty, then the black e3
    with pytest.raises(IllegalMoveError, match="e8"):
        rules.parse_move(state, "e8")  # west: the first stack is the white e7


def test_example_2_distance_zero() -> None:
    rules = rules5()
    state = position(rules, black="e3 c5", white="e4")
    assert "e5" in placements(rules, state)  # sees c5 over the empty d5
    after = rules.play(state, "e5")
    assert occupied(rules, after) == {"e3": "b", "c5": "b", "e4": "wb", "e5": "b"}
    assert rules.to_move(after) == 2


def test_example_3_distance_one_chain_of_two() -> None:
    rules = rules5()
    state = position(rules, black="e1 g6", white="e3 e4")
    assert "e6" in placements(rules, state)  # sees g6 over f6
    after = rules.play(state, "e6")
    assert occupied(rules, after) == {"e1": "b", "g6": "b", "e3": "wb", "e4": "wb", "e6": "b"}


def test_example_4_two_chains() -> None:
    rules = rules5()
    state = position(rules, black="e1 g7", white="e3 e5")
    after = rules.play(state, "e7")
    assert occupied(rules, after) == {"e1": "b", "g7": "b", "e3": "wb", "e5": "wb", "e7": "b"}


def test_example_5_unequal_gaps_capture_nothing() -> None:
    rules = rules5()
    state = position(rules, black="e1 g6", white="e4")
    after = rules.play(state, "e6")  # still legal
    assert occupied(rules, after) == {"e1": "b", "g6": "b", "e4": "w", "e6": "b"}


def test_example_6_two_directions_no_cascade() -> None:
    rules = rules5()
    state = position(rules, black="e3 c3 g4 c5", white="e4 d4 f4")
    after = rules.play(state, "e5")
    assert occupied(rules, after) == {
        "e3": "b",
        "c3": "b",
        "g4": "b",
        "c5": "b",
        "e4": "wb",
        "d4": "wb",
        "f4": "w",  # between the black e4 and g4 now, but e5 is not its flanker
        "e5": "b",
    }
    assert rules.view(after)["last_move"] == {
        "text": "e5",
        "cells": ["d4", "e4", "e5"],
        "effects": [
            {"id": "d4", "roles": ["flipped"], "delta": 1},
            {"id": "e4", "roles": ["flipped"], "delta": 1},
            {"id": "e5", "roles": ["placed"], "delta": 1},
        ],
    }


def test_example_7_growth() -> None:
    rules = rules5()
    state = position(rules, black="e3 c5", stacks={"e4": "bw"})
    after = rules.play(state, "e5")
    assert occupied(rules, after)["e4"] == "bwb"


@pytest.mark.parametrize(
    ("black", "white", "first_passer", "winner", "by"),
    [
        ((3, 2, 1, 1), (3, 1, 1, 1, 1), WHITE, 1, "heights"),  # (a) 2 > 1 at the second entry
        ((2, 1), (2, 1, 1), WHITE, 2, "heights"),  # (b) the padded 0 < 1
        ((2, 1), (2, 1), BLACK, 2, "last-placer"),  # (c) Black passed first: White placed last
        ((2, 1), (2, 1), WHITE, 1, "last-placer"),
    ],
)
def test_example_8_scoring(
    black: tuple[int, ...], white: tuple[int, ...], first_passer: int, winner: int, by: str
) -> None:
    rules = rules5()
    stacks = {}
    names = iter(rules.board.names)
    for colour, heights in ((BLACK, black), (WHITE, white)):
        for h in heights:
            other = WHITE if colour == BLACK else BLACK
            stacks[next(names)] = LETTERS[other] * (h - 1) + LETTERS[colour]
    state = position(rules, stacks=stacks, phase="over", passes=2, first_passer=first_passer)
    outcome = rules.outcome(state)
    assert outcome is not None
    assert outcome.winner == winner
    assert outcome.colour == ("black" if winner == 1 else "white")
    assert outcome.reason == "double-pass"
    assert outcome.scores == (black, white)
    assert outcome.details["decided_by"] == by


def test_example_8c_played_out() -> None:
    rules = rules5()
    state = position(rules, stacks={"a1": "wb", "a2": "b", "i1": "bw", "i2": "w"})
    state = rules.play(state, "pass")
    assert rules.outcome(state) is None
    assert rules.to_move(state) == 2
    state = rules.play(state, "pass")
    outcome = rules.outcome(state)
    assert outcome is not None and outcome.winner == 2 and outcome.colour == "white"
    assert rules.to_move(state) is None
    assert list(rules.legal_moves(state)) == []


# --- §7, the decisions ------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "points"), [(3, 19), (5, 61), (7, 127)])
def test_decision_1_size_counts_points(size: int, points: int) -> None:
    assert len(Rules(size=size).board) == points
    assert len(Rules(size=size).initial_state().stacks) == points


def test_decision_1_default_and_bounds() -> None:
    assert len(Rules().board) == 127
    assert games.get("valaturna").options == {"size": 7}
    with pytest.raises(ValueError, match="size"):
        Rules(size=2)


def test_decision_2_a_stack_belongs_to_its_top_piece() -> None:
    rules = rules5()
    # e3 is [W,B]: Black's. e5 sees it over the empty e4, and flanks the White-topped d5 from c5.
    state = position(rules, white="e9", stacks={"e3": "wb", "d5": "bw", "c5": "wb"})
    assert "e5" in placements(rules, state)
    after = rules.play(state, "e5")
    assert occupied(rules, after)["d5"] == "bwb"


def test_decision_3_the_first_stack_on_the_ray_must_be_friendly() -> None:
    rules = rules5()
    state = position(rules, black="e1", white="e3")
    legal = placements(rules, state)
    assert "e2" in legal  # adjacent, zero empties between
    assert "e4" not in legal  # the white e3 stands between e4 and e1
    assert "e5" not in legal


def test_decision_4_no_stack_means_pass_only() -> None:
    rules = rules5()
    state = position(rules, white="e4 e6", turn=BLACK)
    assert [rules.format_move(state, m) for m in rules.legal_moves(state)] == ["pass"]
    assert rules.steps(state, []).next == ("pass",)


def test_decision_5_every_gap_is_the_leading_gap() -> None:
    rules = rules5()
    # unequal inner gaps (reading c): .E.E..F from e8 westward: nothing
    state = position(rules, black="e1 g6", white="e4 e6")
    assert occupied(rules, rules.play(state, "e8")) == {
        "e1": "b",
        "g6": "b",
        "e4": "w",
        "e6": "w",
        "e8": "b",
    }
    # with N = 0 there is only one chain: E.EF captures nothing
    state = position(rules, black="e2 c6", white="e3 e5")
    assert "e6" in placements(rules, state)
    after = rules.play(state, "e6")
    assert occupied(rules, after)["e5"] == "w"
    assert occupied(rules, after)["e3"] == "w"


def test_decision_6_chains_of_different_lengths() -> None:
    rules = rules5()
    state = position(rules, black="e1 g6", white="e3 e5 e6")  # .E.EE.F west from e8
    after = rules.play(state, "e8")
    assert {p for p, s in occupied(rules, after).items() if s == "wb"} == {"e3", "e5", "e6"}


def test_decision_7_only_flanks_of_the_placed_stack() -> None:
    rules = rules5()
    # a3 W a4 lies between black a2 and a5 already; placing far away does not capture it
    state = position(rules, black="a2 a5 e1", white="a3 a4")
    after = rules.play(state, "e2")
    assert occupied(rules, after)["a3"] == "w"
    assert occupied(rules, after)["a4"] == "w"


def test_decision_8_all_flanks_are_mandatory() -> None:
    rules = rules5()
    state = position(rules, black="e3 c3 g4 c5", white="e4 d4 f4")
    assert placements(rules, state).count("e5") == 1  # no capture variants
    with pytest.raises(IllegalMoveError, match="d4, e4"):
        rules.parse_move(state, "e5x(e4)")  # a partial capture is not a move


def test_decision_9_a_capture_adds_a_piece() -> None:
    rules = rules5()
    state = position(rules, black="e3 c5", stacks={"e4": "w"})
    after = rules.play(state, "e5")
    assert occupied(rules, after)["e4"] == "wb"  # height 2, not a flipped height-1 stack
    outcome_state = rules.play(rules.play(after, "pass"), "pass")
    outcome = rules.outcome(outcome_state)
    assert outcome is not None and outcome.scores == ((2, 1, 1, 1), ())


def test_decision_10_no_cascade() -> None:
    rules = rules5()
    # e5 (seeing g5 over f5) captures e4; the new black e4 and c4 then flank d4, but captures
    # do not cascade: d4 stays White.
    state = position(rules, black="e3 c4 g5", white="e4 d4")
    after = rules.play(state, "e5")
    got = occupied(rules, after)
    assert got["e4"] == "wb"
    assert got["d4"] == "w"


def test_decision_11_passing_is_always_legal() -> None:
    rules = rules5()
    state = rules.play(rules.play(rules.initial_state(), "e3/e7"), "white")
    assert rules.format_move(state, list(rules.legal_moves(state))[-1]) == "pass"
    after = rules.play(state, "pass")
    assert rules.to_move(after) == 2
    assert occupied(rules, after) == occupied(rules, state)


def test_decision_12_the_game_ends_after_two_consecutive_passes_only() -> None:
    rules = rules5()
    state = position(rules, black="e1", white="i5")
    for text in ["pass", "i4", "pass", "i3"]:  # pass, place, pass, place: never two in a row
        state = rules.play(state, text)
        assert rules.outcome(state) is None
    state = rules.play(state, "pass")
    assert rules.outcome(state) is None
    state = rules.play(state, "pass")
    assert rules.outcome(state) is not None
    with pytest.raises(IllegalMoveError, match="over"):
        rules.play(state, "pass")


def test_decision_12_a_full_board_does_not_end_the_game() -> None:
    rules = Rules(size=3)
    state = position(rules, black=" ".join(rules.board.names[:-1]), turn=WHITE)
    state = rules.play(state, "pass")  # White owns nothing
    state = rules.play(state, rules.board.names[-1])  # Black fills the board
    assert rules.outcome(state) is None
    assert [rules.format_move(state, m) for m in rules.legal_moves(state)] == ["pass"]


def test_decision_13_last_placer_is_the_one_before_the_final_passes() -> None:
    rules = rules5()
    state = position(rules, black="a1", white="i5")
    # Black passes first, then both place, then White passes first of the final two
    for text in ["pass", "i4", "a2", "pass", "pass"]:
        state = rules.play(state, text)
    outcome = rules.outcome(state)
    assert outcome is not None
    assert outcome.scores == ((1, 1), (1, 1))
    assert outcome.winner == 1  # Black placed last; a stale first_passer would give White


def test_decision_13_nobody_placed_means_white_wins() -> None:
    rules = rules5()
    state = rules.initial_state()
    for text in ["e3/e7", "black", "pass", "pass"]:
        state = rules.play(state, text)
    outcome = rules.outcome(state)
    assert outcome is not None
    assert outcome.colour == "white" and outcome.winner == 1  # Seat 2 took Black
    assert outcome.scores == ((1,), (1,))


def test_decision_14_setup_is_two_distinct_points_anywhere() -> None:
    rules = rules5()
    state = rules.initial_state()
    assert sum(1 for _ in rules.legal_moves(state)) == 61 * 60
    after = rules.play(state, "a1/a2")  # adjacent, no visibility rule
    assert occupied(rules, after) == {"a1": "b", "a2": "w"}
    with pytest.raises(IllegalMoveError, match="two different points"):
        rules.play(state, "e5/e5")
    with pytest.raises(IllegalMoveError):
        rules.play(state, "e5")  # no placement before the pie
    with pytest.raises(IllegalMoveError):
        rules.play(state, "pass")


@pytest.mark.parametrize(("choice", "black_seat"), [("black", 2), ("white", 1)])
def test_decision_15_black_moves_first_after_the_choice(choice: str, black_seat: int) -> None:
    rules = rules5()
    state = rules.play(rules.play(rules.initial_state(), "e3/e7"), choice)
    assert rules.to_move(state) == black_seat
    assert state.colour == BLACK
    view = rules.view(state)
    assert view["colours"] == {str(black_seat): "black", str(3 - black_seat): "white"}


# --- notation ---------------------------------------------------------------------------------


def test_annotated_placement_is_accepted_only_when_exact() -> None:
    rules = rules5()
    state = position(rules, black="e3 c3 g4 c5", white="e4 d4 f4")
    plain = rules.parse_move(state, "e5")
    assert rules.parse_move(state, "e5x(d4,e4)") == plain
    assert rules.parse_move(state, "e5x(e4,d4)") == plain
    assert rules.parse_move(state, " e5x(e4, d4) ") == plain
    assert rules.format_move(state, plain) == "e5"
    with pytest.raises(IllegalMoveError):
        rules.parse_move(state, "e5x(d4,e4,f4)")
    with pytest.raises(IllegalMoveError):
        rules.parse_move(state, "e5x(f4)")
    with pytest.raises(InvalidMoveError):
        rules.parse_move(state, "e5x()")
    with pytest.raises(InvalidMoveError, match="twice"):
        rules.parse_move(state, "e5x(d4,e4,d4)")
    with pytest.raises(InvalidMoveError):
        rules.parse_move(state, "e5x(d4,zz9)")
    with pytest.raises(IllegalMoveError):
        rules.parse_move(state, "d6x(e4)")  # captures nothing: no annotation fits
    assert rules.format_move(state, rules.parse_move(state, "d6")) == "d6"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("e5/", InvalidMoveError),
        ("e5x", InvalidMoveError),
        ("e5x(", InvalidMoveError),
        ("j1", InvalidMoveError),
        ("e10/e1", InvalidMoveError),
        ("e3/e7/e8", InvalidMoveError),
        ("blak", InvalidMoveError),
        ("black", IllegalMoveError),
        ("e5", IllegalMoveError),
        ("e5x(e4)", IllegalMoveError),
    ],
)
def test_bad_texts_in_setup(text: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        rules5().parse_move(rules5().initial_state(), text)


def test_every_phase_round_trips() -> None:
    rules = rules5()
    state = rules.initial_state()
    for text in ["e3/e7", "black", "e5", "pass", "e6", "pass"]:
        move = rules.parse_move(state, text)
        assert rules.format_move(state, move) == text
        state = rules.apply(state, move)
    assert Move("pass") == rules.parse_move(state, "pass")


def test_case_and_whitespace_are_tolerated() -> None:
    rules = rules5()
    state = rules.initial_state()
    assert rules.format_move(state, rules.parse_move(state, " E3 / e7 ")) == "e3/e7"
    state = rules.play(state, "e3/e7")
    assert rules.format_move(state, rules.parse_move(state, "White")) == "white"


# --- steps and view ---------------------------------------------------------------------------


def test_steps_setup_then_choice_then_play() -> None:
    rules = rules5()
    state = rules.initial_state()
    first = rules.steps(state, [])
    assert set(first.next) == set(rules.board.names) and first.move is None
    second = rules.steps(state, ["e3"])
    assert "e3" not in second.next and len(second.next) == 60
    assert rules.steps(state, ["e3", "e7"]).move == "e3/e7"
    with pytest.raises(IllegalMoveError):
        rules.steps(state, ["e3", "e3"])
    with pytest.raises(IllegalMoveError):
        rules.steps(state, ["pass"])
    state = rules.play(state, "e3/e7")
    assert rules.steps(state, []).next == ("black", "white")
    assert rules.steps(state, ["white"]).move == "white"
    state = rules.play(state, "white")
    root = rules.steps(state, [])
    assert root.next[-1] == "pass" and len(root.next) == 18
    assert rules.steps(state, ["e5"]).move == "e5"
    assert rules.steps(state, ["pass"]).move == "pass"
    with pytest.raises(IllegalMoveError):
        rules.steps(state, ["e8"])
    with pytest.raises(IllegalMoveError):
        rules.steps(state, ["e5", "e6"])


def test_steps_hint_the_captures() -> None:
    rules = rules5()
    state = position(rules, black="e3 c3 g4 c5", white="e4 d4 f4")
    hints = rules.steps(state, []).hints
    assert hints["e5"] == {"cells": ["d4", "e4"]}
    assert "d6" not in hints  # a placement that captures nothing has no hint
    assert rules.steps(rules.initial_state(), ["e3"]).hints["e7"] == {"stack": ["white"]}


def test_view_shows_points_stacks_and_counters() -> None:
    rules = rules5()
    state = position(rules, black="e3 c3 g4 c5", white="e4 d4 f4")
    after = rules.play(state, "e5")
    view = rules.view(after)
    json.dumps(view)
    assert view["board"] == {"kind": "points", "side": 5}
    cells = {c["id"]: c for c in view["cells"]}
    assert len(cells) == 61
    assert cells["e4"]["stack"] == ["white", "black"]
    assert not any("mark" in c for c in view["cells"])  # the last move says what it did
    assert cells["a1"]["stack"] == []
    assert view["to_move"] == 2
    assert view["phase"] == "play"
    assert view["rows"][0] == {"label": "a", "r": -4, "qmin": 0}
    counters = {c["label"]: c for c in view["counters"]}
    assert counters["Black heights"]["value"] == "2 2 1 1 1 1 1"
    assert counters["White heights"]["value"] == "1"
    assert counters["Consecutive passes"]["value"] == 0
    assert view["colours"][str(view["to_move"])] == "white"


def test_view_before_the_choice_and_at_the_end() -> None:
    rules = rules5()
    state = rules.play(rules.initial_state(), "a1/i5")
    view = rules.view(state)
    assert view["colours"] == {"1": None, "2": None}
    assert view["phase"] == "choose"
    assert view["last_move"] == {
        "text": "a1/i5",
        "cells": ["a1", "i5"],
        "effects": [
            {"id": "a1", "roles": ["placed"], "delta": 1},
            {"id": "i5", "roles": ["placed"], "delta": 1},
        ],
    }
    for text in ["white", "pass", "pass"]:
        state = rules.play(state, text)
    view = rules.view(state)
    assert view["phase"] == "over"
    assert view["to_move"] is None
    assert view["outcome"]["winner"] == 2  # White placed last (nobody did)


# --- properties and records -------------------------------------------------------------------

_FLANK = re.compile(r"(\.*)(?:E+\1)+F")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=".EF", max_size=12))
def test_flank_line_matches_the_spec_regex(cls: str) -> None:
    stacks = tuple({".": "", "E": "w", "F": "wb"}[ch] for ch in cls)
    got = flank_line(stacks, tuple(range(len(cls))), BLACK)
    match = _FLANK.match(cls)
    expected = [] if match is None else [i for i in range(match.end()) if cls[i] == "E"]
    assert list(got) == expected


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_placements_add_one_piece_plus_one_per_capture(seed: int) -> None:
    rules = rules5()
    rng = random.Random(seed)
    state = rules.play(rules.play(rules.initial_state(), "e3/e7"), "black")
    while rules.to_move(state) is not None:
        move = rules.random_move(state, rng)
        after = rules.apply(state, move)
        before_pieces = sum(map(len, state.stacks))
        grown = [i for i, s in enumerate(after.stacks) if len(s) > len(state.stacks[i])]
        if move.kind == "place":
            # the placed point grew from 0 to 1, each captured stack by 1
            assert sum(map(len, after.stacks)) == before_pieces + len(grown)
            assert all(after.stacks[i][-1] == LETTERS[state.colour] for i in grown)
        else:
            assert after.stacks == state.stacks
        state = after


def _seeing(rules: Rules, state: State) -> list[int]:
    """The empty points whose first stack along some ray is the mover's, by walking the rays."""
    mine = LETTERS[state.colour]
    out = []
    for p, stack in enumerate(state.stacks):
        if stack:
            continue
        for ray in rules.board.rays[p]:
            first = next((state.stacks[j] for j in ray if state.stacks[j]), "")
            if first and first[-1] == mine:
                out.append(p)
                break
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.sampled_from([3, 5, 7]))
def test_the_kept_tops_and_the_fast_draw_agree_with_the_stacks(seed: int, size: int) -> None:
    """After every move of a random game (the fast path's and ``apply``'s), ``tops`` is what the
    stacks say; the placements are the points that see a friendly stack ray by ray; the fast
    draw is ``random_move``'s draw from the same generator; and ``search_apply`` reaches
    ``apply``'s state but for the display fields."""
    rules = Rules(size=size)
    rng = random.Random(seed)
    state = rules.initial_state()
    while rules.to_move(state) is not None:
        if state.phase == "play":
            assert state.tops == tops_of(lines(size), state.stacks)
            assert placements(rules, state) == [rules.board.names[p] for p in _seeing(rules, state)]
            draw = rng.randrange(1 << 32)
            move = rules.search_random_move(state, random.Random(draw))
            assert move == rules.random_move(state, random.Random(draw))
        else:
            move = rules.search_random_move(state, rng)
        after, slow = rules.search_apply(state, move), rules.apply(state, move)
        assert replace(after, last_text=slow.last_text, last_cells=slow.last_cells) == slow
        assert after.tops == slow.tops
        state = after


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=3, max_value=13), st.integers(min_value=0, max_value=10_000))
def test_placements_of_a_position_built_directly_on_every_size(size: int, seed: int) -> None:
    """A state built without ``tops`` (it is derived from the stacks) on any board size: the
    placements are the points that see a friendly stack ray by ray, for either colour."""
    rules = Rules(size=size)
    rng = random.Random(seed)
    fill = rng.random()
    stacks = tuple(
        "".join(rng.choice("bw") for _ in range(rng.randint(1, 3))) if rng.random() < fill else ""
        for _ in range(len(rules.board))
    )
    for colour in (BLACK, WHITE):
        state = State(stacks=stacks, phase="play", black_seat=1, colour=colour)
        assert state.tops is None
        assert placements(rules, state) == [rules.board.names[p] for p in _seeing(rules, state)]


def test_saved_records_replay() -> None:
    paths = sorted(DATA.glob("valaturna_*.json"))
    assert paths
    for path in paths:
        record = json.loads(path.read_text(encoding="utf-8"))
        state = replay(record)
        assert games.get("valaturna", **record["options"]).outcome(state) is not None


def test_the_former_option_name_side_still_reads() -> None:
    """Records and stored games written before ``side`` became ``size`` keep replaying."""
    assert games.get("valaturna", side=5).options == {"size": 5}
    assert games.get("valaturna", size=5).options == {"size": 5}
    with pytest.raises(ValueError, match="former name"):
        games.get("valaturna", side=5, size=7)
    # a record saved with the old name, kept as it was written: it replays on the side-5 board
    record = json.loads((DATA / "valaturna_nobody_placed.json").read_text(encoding="utf-8"))
    assert record["options"] == {"side": 5}
    assert rules_of(record).options == {"size": 5}
    state = replay(record)
    assert len(state.stacks) == 61
    assert rules_of(record).outcome(state) is not None


def test_saved_short_game_captures_e6() -> None:
    record = json.loads((DATA / "valaturna_short_capture.json").read_text(encoding="utf-8"))
    rules = rules5()
    state = replay(record)
    assert occupied(rules, state)["e6"] == "wb"  # d6 SW: e6 (White), then the black f5


@pytest.mark.parametrize(
    ("setup", "move"),
    [
        ([], Move("setup", (3,))),
        ([], Move("setup", (3, 999))),
        ([], Move("choose", colour=BLACK)),
        (["e3/e7"], Move("choose", colour=2)),  # no colour
        (["e3/e7"], Move("pass")),
        (["e3/e7", "white"], Move("place", (999,))),
        (["e3/e7", "white"], Move("place", (1, 2))),
        (["e3/e7", "white"], Move("setup", (1, 2))),
        (["e3/e7", "white"], Move("place", (28,))),  # e3 is occupied
    ],
)
def test_apply_refuses_malformed_moves(setup: list[str], move: Move) -> None:
    rules = rules5()
    state = rules.initial_state()
    for text in setup:
        state = rules.play(state, text)
    with pytest.raises(IllegalMoveError):
        rules.apply(state, move)
