"""Harmijan (shared/rules/harmijan.md): the worked examples of §8, the decisions of §7, notation.

Positions are built directly from cell names; ``[Hn]`` names the decision a test pins down. A naive
transcription of the §4 pseudo-code (``reference_turns``) checks the bitset generator on many
positions.
"""

from __future__ import annotations

import json
import random
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.bench import random_game
from games.errors import IllegalMoveError, InvalidMoveError
from games.harmijan import (
    BLACK,
    WHITE,
    Rules,
    Setup,
    State,
    Turn,
    canon,
    classes_of,
)
from games.harmijan.turns import Creatures
from games.hexgrid import DIRECTIONS, Hex
from games.record import replay
from tests.games.positions import harmijan_position as position
from tests.games.positions import stone_bits

DATA = Path(__file__).parent / "data"
RULES = {n: Rules(size=n) for n in (5, 6, 7)}


def over(black: str, white: str, size: int = 6) -> State:
    board = RULES[size].board
    stones = (stone_bits(board, black), stone_bits(board, white))
    return State(stones=stones, phase="over", black_seat=1, reason="no-moves")


def texts(rules: Rules, state: State) -> list[str]:
    return [rules.format_move(state, m) for m in rules.legal_moves(state)]


def targets(rules: Rules, state: State, source: str) -> list[str]:
    return list(rules.steps(state, [source]).next)


def places(rules: Rules, state: State, source: str, target: str) -> list[str]:
    return list(rules.steps(state, [source, target]).next)


def names(rules: Rules, mask: int) -> set[str]:
    return {rules.board.names[i] for i in range(len(rules.board)) if mask >> i & 1}


# --- §3: shapes -------------------------------------------------------------------------------------


def test_canonical_shapes_count_the_free_polyhexes() -> None:
    """§3 self-test: 1, 1, 3, 7, 22, 82 free polyhexes of sizes 1 to 6."""
    shapes: set[tuple[Hex, ...]] = {canon([(0, 0)])}
    counts = [len(shapes)]
    for _ in range(5):
        grown = set()
        for shape in shapes:
            cells = set(shape)
            for q, r in shape:
                for dq, dr in DIRECTIONS:
                    cell = (q + dq, r + dr)
                    if cell not in cells:
                        grown.add(canon([*cells, cell]))
        shapes = grown
        counts.append(len(shapes))
    assert counts == [1, 1, 3, 7, 22, 82]


def test_example_5_mirror_images_and_triangles_are_one_shape() -> None:
    """§8.5 and [H13]: reflections count, so the two chiral tetrahexes are one shape."""
    a = canon([(0, 0), (1, 0), (1, 1), (2, 1)])
    assert a == canon([(0, 0), (0, 1), (1, 1), (1, 2)]) == ((0, 0), (0, 1), (1, 1), (1, 2))
    assert canon([(0, 0), (1, 0), (0, 1)]) == canon([(1, 0), (0, 1), (1, 1)])
    assert canon([(5, -3), (6, -3), (6, -2), (7, -2)]) == a  # translation


# --- §8: worked examples ----------------------------------------------------------------------------


def test_example_1_opening() -> None:
    """§8.1: after f5,f6/c3,c4, Black's four one-step swings give 64 turns, f5-e5@e7 among them."""
    rules = RULES[6]
    state = rules.play(rules.play(rules.initial_state(), "f5,f6/c3,c4"), "white")
    moves = texts(rules, state)
    assert len(moves) == 64
    assert sorted({m.split("@")[0] for m in moves}) == ["f5-e5", "f5-g5", "f6-e5", "f6-g5"]
    assert "f5-e5@e7" in moves
    after = rules.play(state, "f5-e5@e7")
    assert names(rules, after.stones[BLACK]) == {"e5", "f6", "e7"}
    assert names(rules, after.stones[WHITE]) == {"c3", "c4"}
    assert rules.to_move(after) == 2 and after.colour == WHITE
    # e6 (one cell east of e5) touches the moved creature
    assert "e6" not in places(rules, state, "f5", "e5")
    assert "e7" in places(rules, state, "f5", "e5")


EXAMPLE_2 = "f3 f4 f5 f6 f7 g3"


def test_example_2_long_slide_and_bite() -> None:
    """§8.2: g3 slides to g4 or g5, bites g6 and stops, or goes to g2; never g7."""
    rules = RULES[6]
    state = position(EXAMPLE_2, "g6")
    assert targets(rules, state, "g3") == ["g2", "g4", "g5", "g6"]
    assert rules.steps(state, []).hints["g3"] == {"cells": ["g2", "g4", "g5", "g6"]}
    assert rules.steps(state, ["g3"]).hints["g6"] == {
        "path": ["g3", "g6"],
        "changes": {"g3": [], "g6": ["black"]},
        "bite": True,
    }
    assert not rules.steps(state, ["g3"]).hints["g5"]["bite"]
    alone = position(EXAMPLE_2, "a1")
    # [H2] g8 touches no friendly creature, so the slide stops at g7
    assert targets(rules, alone, "g3") == ["g2", "g4", "g5", "g6", "g7"]


def test_example_3_two_creatures_block() -> None:
    """§8.3: with a black h5, g5 touches two creatures and the slide stops before it."""
    rules = RULES[6]
    state = position(EXAMPLE_2 + " h5", "g6")
    assert targets(rules, state, "g3") == ["g2", "g4"]


def test_example_4_placement_after_g3_g4() -> None:
    """§8.4: the legal places after g3-g4 are g1, i2, j1, j4 and k4 (i4 would merge)."""
    rules = RULES[6]
    state = position(EXAMPLE_2 + " h5 j3", "g6")
    assert places(rules, state, "g3", "g4") == ["g1", "i2", "j1", "j4", "k4"]
    after = rules.play(state, "g3-g4@j4")
    assert names(rules, after.stones[BLACK]) == set((EXAMPLE_2 + " h5 j3 g4 j4").split()) - {"g3"}
    with pytest.raises(IllegalMoveError, match="i4"):
        rules.parse_move(state, "g3-g4@i4")


def test_example_6_scoring() -> None:
    """§8.6: Black [12, 9, 4] against White [12, 6]: 12 = 12, then 9 > 6, Black wins."""
    rules = RULES[6]
    state = over(
        "c1 c2 d3 d4  c5 d6 d7 e8  f1 f2 g1  e10 f10 f11  c8  f4  f6  a1 a2 a3 a4 a5",
        "e1 e2 e3  d5 e6 f7  d9 e9 f9  g2 g3  f5 g5  b1 b2 b3 b4 b5 b6 b7",
    )
    black = classes_of(rules, state, "black")
    assert [(k.size, k.count, k.value) for k in black] == [(4, 2, 12), (3, 2, 9), (1, 3, 4)]
    white = classes_of(rules, state, "white")
    assert [(k.size, k.count, k.value) for k in white] == [(3, 3, 12), (2, 2, 6)]
    outcome = rules.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.colour, outcome.reason) == (1, "black", "no-moves")
    assert outcome.scores == ((12, 9, 4), (12, 6))
    assert [k["value"] for k in outcome.details["black"]] == [12, 9, 4]


def test_example_6_a_bigger_shape_can_lose_on_points() -> None:
    """§8.6: Black's two 5s (15) lose to White's three 4s (16): values, not sizes, decide."""
    rules = RULES[6]
    state = over("a1 a2 a3 a4 a5  b7 c8 d9 e10 f11", "b1 b2 b3 b4  d1 d2 d3 d4  b6 c7 d8 e9")
    outcome = rules.outcome(state)
    assert outcome is not None
    assert outcome.scores == ((15,), (16,))
    assert (outcome.winner, outcome.colour) == (2, "white")


# Found by a seeded search of side-5 positions; the naive reference agrees on every turn.
PASS_BLACK, PASS_WHITE = "b3 c4", "a1 b1 b4 d3 d7 e3 e5 e8"
END_BLACK, END_WHITE = "c1 c3 c4 h4", "a4 b1 c5 c6 d5 e1 h5 i3"


def test_example_7_a_player_without_a_turn_must_pass() -> None:
    """§8.7: once all of Black's creatures are singletons Black has no turn: ``pass`` alone."""
    rules = RULES[5]
    state = position(PASS_BLACK, PASS_WHITE, WHITE, size=5)
    with pytest.raises(IllegalMoveError, match="pass"):
        rules.parse_move(state, "pass")  # [H9] White has a turn
    state = rules.play(state, "b1xb3@b1")
    assert names(rules, state.stones[BLACK]) == {"c4"}
    assert rules.to_move(state) == 1 and state.must_pass
    assert texts(rules, state) == ["pass"]
    assert rules.steps(state, []).next == ("pass",)
    assert rules.steps(state, ["pass"]).move == "pass"
    with pytest.raises(IllegalMoveError):
        rules.steps(state, ["c4"])
    state = rules.play(state, "pass")
    assert rules.to_move(state) == 2 and not state.must_pass
    assert rules.view(state)["last_move"] == {"text": "pass", "cells": [], "effects": []}


def test_example_7_the_game_ends_when_neither_colour_has_a_turn() -> None:
    """§8.7 and [H10]: the game ends at once, without passes, and is scored."""
    rules = RULES[5]
    state = position(END_BLACK, END_WHITE, WHITE, size=5)
    state = rules.play(state, "d5xc4@e6")
    assert state.phase == "over" and rules.to_move(state) is None
    assert list(rules.legal_moves(state)) == []
    outcome = rules.outcome(state)
    assert outcome is not None and outcome.reason == "no-moves"
    # Black: singletons c1 c3 h4 (1*3+1 = 4); White: six singletons besides the c4 c5 c6 line
    assert outcome.scores == ((4,), (7,))
    assert (outcome.winner, outcome.colour) == (2, "white")


# --- §7: decisions ----------------------------------------------------------------------------------


def test_h1_the_touch_rule_counts_without_the_moving_stone() -> None:
    """[H1] Counted with the mover, every first cell would touch its own creature: no opening move
    would be a single-stone swing, and a domino could not move at all."""
    rules = RULES[6]
    state = position("f5 f6", "c3 c4")
    assert targets(rules, state, "f5") == ["e5", "g5"]


def test_h3_a_departure_may_split_the_creature() -> None:
    """[H3] f5 leaves the line f4 f5 f6 for e4, touching only f4: legal, and f6 is left alone."""
    rules = RULES[6]
    state = position("f4 f5 f6", "a1")
    assert "e4" in targets(rules, state, "f5")
    after = rules.play(state, "f5-e4@c4")
    assert names(rules, after.stones[BLACK]) == {"f4", "e4", "f6", "c4"}


def test_h4_singletons_cannot_move() -> None:
    """[H4] A lone stone has no slide; the stone of a domino has, though it leaves a singleton."""
    rules = RULES[6]
    state = position("f5 f6 a1", "k1")
    assert rules.steps(state, []).next == ("f5", "f6")
    with pytest.raises(IllegalMoveError, match="stands alone"):
        rules.parse_move(state, "a1-a2@a4")


def test_h5_a_bite_removes_the_enemy_stone_and_needs_the_touch_rule() -> None:
    """[H5] The bitten stone leaves the board (not converted); the bite cell obeys the touch rule;
    the slide cannot pass an enemy stone."""
    rules = RULES[6]
    state = position(EXAMPLE_2, "g6 g7")
    after = rules.play(state, "g3xg6@g1")
    assert names(rules, after.stones[WHITE]) == {"g7"}
    assert names(rules, after.stones[BLACK]) == set(EXAMPLE_2.split()) - {"g3"} | {"g6", "g1"}
    assert "g7" not in targets(rules, state, "g3")
    # f8 is not black, so g7 would touch f7 only, but the bite at g6 ended the slide
    with pytest.raises(IllegalMoveError):
        rules.parse_move(state, "g3xg7@g1")


def test_h6_h8_placing_on_and_through_the_vacated_cell() -> None:
    """[H6] Any line from the landing cell, the vacated cell counting as empty; [H8] the moved
    stone's creature is the one after the move (its old partner h6 does not forbid i5)."""
    rules = RULES[6]
    state = position("f3 f4 f5 f6 f7 h6 i5", "a1")
    assert "g5" in targets(rules, state, "i5")
    assert {"i5", "j5", "k5"} <= set(places(rules, state, "i5", "g5"))
    after = rules.play(state, "i5-g5@i5")
    assert names(rules, after.stones[BLACK]) == {"f3", "f4", "f5", "f6", "f7", "g5", "h6", "i5"}


def test_h7_placement_may_start_a_creature_or_join_one_but_never_merge() -> None:
    """[H7] Example 4 again: g1 starts a creature, j4 joins j3, i4 (h5 and j3) is refused."""
    rules = RULES[6]
    state = position(EXAMPLE_2 + " h5 j3", "g6")
    legal = places(rules, state, "g3", "g4")
    assert "g1" in legal and "j4" in legal and "i4" not in legal


def test_h15_h16_the_pie() -> None:
    """[H15] The pairs may touch; [H16] Black moves first whichever seat chose it."""
    rules = RULES[6]
    state = rules.play(rules.initial_state(), "f6,f5/g6,g5")  # any order within a pair
    assert state.last_move == "f5,f6/g5,g6"
    assert rules.to_move(state) == 2 and list(rules.legal_moves(state)) == ["black", "white"]
    as_black = rules.play(state, "black")
    assert rules.to_move(as_black) == 2 and as_black.colour == BLACK
    assert rules.view(as_black)["colours"] == {"1": "white", "2": "black"}
    as_white = rules.play(state, "white")
    assert rules.to_move(as_white) == 1
    assert rules.view(as_white)["colours"] == {"1": "black", "2": "white"}
    for bad in ["f5,f7/c3,c4", "f5,f6/f6,f7", "f5,f5/c3,c4"]:
        with pytest.raises(IllegalMoveError):
            rules.parse_move(rules.initial_state(), bad)


# A cycle found by a seeded search: each colour converts b1 back with a bite placed on its origin.
CYCLE_BLACK, CYCLE_WHITE = "a3 a4 b2 d5 d7 d8 e4 f3", "f1 f2 f5 h1 i1 i2"


def test_h17_the_third_occurrence_ends_the_game() -> None:
    """[H17] s x x @ s converts a stone; two such bites restore the position, and its third
    occurrence ends the game, scored normally. Placing on the origin stays legal."""
    rules = RULES[5]
    start = position(CYCLE_BLACK, CYCLE_WHITE, BLACK, size=5)
    state = start
    for ply, text in enumerate(["a3xf2@a3", "i2xf2@i2"] * 2, start=1):
        assert rules.outcome(state) is None
        state = rules.play(state, text)
        assert state.stones[BLACK].bit_count() + state.stones[WHITE].bit_count() == 14
        assert len(state.history) == ply + 1
    assert state.stones == start.stones
    assert rules.to_move(state) is None
    outcome = rules.outcome(state)
    assert outcome is not None and outcome.reason == "repetition"
    assert rules.key(state) != rules.key(start)  # the ended position is not the live one


def test_h17_history_restarts_when_the_number_of_stones_grows() -> None:
    rules = RULES[6]
    state = rules.play(rules.play(rules.initial_state(), "f5,f6/c3,c4"), "white")
    assert state.history == ((*state.stones, BLACK),)
    state = rules.play(state, "f5-e5@e7")
    assert state.history == ((*state.stones, WHITE),)


def test_h11_h14_draws() -> None:
    """[H14] Identical lists, or no repeated shape on either side, are draws."""
    rules = RULES[6]
    for black, white in [("a1 a2  a4 a5", "k1 k2  k4 k5"), ("a1 a2 a3", "k1")]:
        outcome = rules.outcome(over(black, white))
        assert outcome is not None
        assert (outcome.winner, outcome.colour) == (None, None)
    # [H11] a unique shape scores nothing, however big
    outcome = rules.outcome(over("a1 a2 a3 a4 a5", "k1  k3"))
    assert outcome is not None and outcome.scores == ((), (3,)) and outcome.winner == 2


def test_h12_smaller_classes_break_ties_in_size_order() -> None:
    """[H12] Equal first classes: the next class by size decides (here singletons, 1*3+1 = 4
    against 1*2+1 = 3), even though White has more stones."""
    rules = RULES[6]
    outcome = rules.outcome(over("a1 a2  a4 a5  c1  c3  c5", "k1 k2  k4 k5  i1  i3  i5 i6 i7"))
    assert outcome is not None
    assert outcome.scores == ((6, 4), (6, 3)) and outcome.winner == 1


# --- notation ---------------------------------------------------------------------------------------


def test_notation_forms() -> None:
    rules = RULES[6]
    setup = rules.parse_move(rules.initial_state(), " C4 , C3 / F6,F5 ")
    assert setup == Setup((rules.board.by_name["c3"], rules.board.by_name["c4"]),
                          (rules.board.by_name["f5"], rules.board.by_name["f6"]))  # fmt: skip
    assert rules.format_move(rules.initial_state(), setup) == "c3,c4/f5,f6"
    state = position(EXAMPLE_2, "g6")
    bite = rules.parse_move(state, "G3 x G6 @ G1")
    assert bite == Turn(*(rules.board.by_name[n] for n in ("g3", "g6", "g1")))
    assert rules.format_move(state, bite) == "g3xg6@g1"
    assert rules.move_tokens(state, bite) == ("g3", "g6", "g1")
    with pytest.raises(IllegalMoveError, match="Write g3xg6: it bites"):
        rules.parse_move(state, "g3-g6@g1")  # "-" onto an enemy stone
    with pytest.raises(IllegalMoveError, match="Write g3-g4: it is empty"):
        rules.parse_move(state, "g3xg4@j4")  # "x" onto an empty cell
    for bad in ["g3-g4", "g3-g4@", "g3g4@j4", "f5,f6", "f5,f6/c3", "z1-g4@j4", "g3-g4@j44"]:
        with pytest.raises(InvalidMoveError):
            rules.parse_move(state, bad)
    with pytest.raises(IllegalMoveError):
        rules.parse_move(state, "f5,f6/c3,c4")  # the setup is over
    with pytest.raises(IllegalMoveError):
        rules.parse_move(state, "black")


@pytest.mark.parametrize("size", [5, 6, 7])
def test_every_legal_move_round_trips(size: int) -> None:
    rules = RULES[size]
    states, _ = random_game(rules, random.Random(size))
    for state in states[1:-1:3]:
        for move in rules.legal_moves(state):
            text = rules.format_move(state, move)
            assert rules.parse_move(state, text) == move
            assert rules.parse_move(state, text.upper()) == move


# --- steps and view ---------------------------------------------------------------------------------


def test_setup_steps_accept_either_order_within_a_pair() -> None:
    rules = RULES[5]
    state = rules.initial_state()
    assert len(rules.steps(state, []).next) == 61
    assert rules.steps(state, ["e5"]).next == ("d4", "d5", "e4", "e6", "f4", "f5")
    assert rules.steps(state, ["e5"]).hints["d4"] == {"changes": {"d4": ["black"]}}
    assert rules.steps(state, ["e5", "e6"]).hints["a1"] == {"changes": {"a1": ["white"]}}
    assert "e5" not in rules.steps(state, ["e5", "e6"]).next
    assert rules.steps(state, ["e6", "e5", "a2", "a1"]).move == "e5,e6/a1,a2"
    with pytest.raises(IllegalMoveError):
        rules.steps(state, ["e5", "e7"])
    with pytest.raises(IllegalMoveError):
        rules.steps(state, ["e5", "e6", "e4", "e5"])


def test_turn_steps_offer_only_continuations_that_lead_to_a_turn() -> None:
    rules = RULES[6]
    state = position(EXAMPLE_2 + " h5 j3", "g6")
    first = rules.steps(state, [])
    assert "g3" in first.next and "h5" not in first.next  # h5 is a singleton
    steps = rules.steps(state, ["g3", "g4", "j4"])
    assert steps.move == "g3-g4@j4" and steps.next == ()
    for prefix in (["h5"], ["g3", "g5"], ["g3", "g4", "i4"], ["g3", "g4", "j4", "k4"], ["pass"]):
        with pytest.raises(IllegalMoveError):
            rules.steps(state, prefix)


def test_view_marks_scoring_creatures_at_the_end() -> None:
    rules = RULES[6]
    state = over("a1 a2  a4 a5  c3 c4 c5", "k1")
    view = rules.view(state)
    marked = {c["id"] for c in view["cells"] if c.get("mark") == "scored"}
    assert marked == {"a1", "a2", "a4", "a5"}
    assert view["phase"] == "over" and view["outcome"]["winner"] == 1
    (klass,) = rules.outcome(state).details["black"]
    assert klass["creatures"] == [["a1", "a2"], ["a4", "a5"]] and klass["value"] == 6
    cells = {c["id"]: c["stack"] for c in view["cells"]}
    assert cells["c4"] == ["black"] and cells["k1"] == ["white"] and cells["k2"] == []
    json.dumps(view)


def test_view_during_play() -> None:
    rules = RULES[6]
    state = rules.play(rules.play(rules.initial_state(), "f5,f6/c3,c4"), "black")
    state = rules.play(state, "f5-e5@e7")
    view = rules.view(state)
    assert view["last_move"] == {
        "text": "f5-e5@e7",
        "cells": ["f5", "e5", "e7"],
        "effects": [  # reading order
            {"id": "e5", "roles": ["destination"], "delta": 1},
            {"id": "e7", "roles": ["placed"], "delta": 1},
            {"id": "f5", "roles": ["origin"], "delta": -1},
        ],
    }
    assert view["to_move"] == 1 and view["colours"] == {"1": "white", "2": "black"}
    assert view["colours"][str(view["to_move"])] == "white"
    assert not any("mark" in c for c in view["cells"])
    assert view["counters"][0] == {"label": "Black stones", "value": 3, "seat": 2}


# --- the generator against a naive transcription of §4 ----------------------------------------------


def reference_turns(size: int, board: dict[Hex, int], c: int) -> list[tuple[Hex, Hex, Hex]]:
    """§4's pseudo-code, line by line, on axial cells (slow and obviously right)."""

    def on(x: Hex) -> bool:
        return max(abs(x[0]), abs(x[1]), abs(x[0] + x[1])) <= size - 1

    def nbrs(x: Hex) -> list[Hex]:
        return [n for d in DIRECTIONS if on(n := (x[0] + d[0], x[1] + d[1]))]

    def creatures(bd: dict[Hex, int], colour: int) -> list[set[Hex]]:
        left = {x for x, v in bd.items() if v == colour}
        out = []
        while left:
            todo = [left.pop()]
            comp = set(todo)
            while todo:
                for n in nbrs(todo.pop()):
                    if n in left:
                        left.remove(n)
                        comp.add(n)
                        todo.append(n)
            out.append(comp)
        return out

    def touch(bd: dict[Hex, int], x: Hex) -> int:
        near = set(nbrs(x))
        return sum(1 for k in creatures(bd, c) if k & near)

    slides = []
    for creature in creatures(board, c):
        if len(creature) < 2:
            continue
        for s in creature:
            b1 = {k: v for k, v in board.items() if k != s}
            for d in DIRECTIONS:
                x = (s[0] + d[0], s[1] + d[1])
                while on(x):
                    if b1.get(x) == c or touch(b1, x) != 1:
                        break
                    slides.append((s, x, b1))
                    if x in b1:
                        break
                    x = (x[0] + d[0], x[1] + d[1])
    out = []
    for s, x, b1 in slides:
        b2 = dict(b1)
        b2[x] = c
        moved = next(k for k in creatures(b2, c) if x in k)
        for d in DIRECTIONS:
            y = (x[0] + d[0], x[1] + d[1])
            while on(y) and y not in b2:
                if not set(nbrs(y)) & moved and touch(b2, y) <= 1:
                    out.append((s, x, y))
                y = (y[0] + d[0], y[1] + d[1])
    return sorted(out)


def engine_turns(rules: Rules, state: State) -> list[tuple[Hex, Hex, Hex]]:
    cells = rules.board.cells
    return sorted(
        (cells[m.source], cells[m.target], cells[m.place])
        for m in rules.legal_moves(state)
        if isinstance(m, Turn)
    )


def board_of(rules: Rules, state: State) -> dict[Hex, int]:
    cells = rules.board.cells
    return {
        cells[i]: c for c in (BLACK, WHITE) for i in range(len(cells)) if state.stones[c] >> i & 1
    }


@pytest.mark.parametrize("size", [5, 6, 7])
def test_generator_matches_the_reference_on_random_games(size: int) -> None:
    rules = RULES[size]
    for seed in range(2):
        states, _ = random_game(rules, random.Random(100 + seed))
        for state in states[2:-1:5]:
            if state.must_pass:
                assert reference_turns(size, board_of(rules, state), state.colour) == []
                continue
            assert engine_turns(rules, state) == reference_turns(
                size, board_of(rules, state), state.colour
            )


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    cells=st.lists(st.sampled_from(range(61)), min_size=2, max_size=30, unique=True),
    split=st.integers(min_value=0, max_value=30),
    colour=st.sampled_from([BLACK, WHITE]),
)
def test_generator_matches_the_reference_on_any_board(
    cells: list[int], split: int, colour: int
) -> None:
    rules = RULES[5]
    black = sum(1 << i for i in cells[split:])
    white = sum(1 << i for i in cells[:split])
    state = State(stones=(black, white), phase="play", black_seat=1, colour=colour)
    assert engine_turns(rules, state) == reference_turns(5, board_of(rules, state), colour)


# --- records ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(DATA.glob("harmijan_*.json")), ids=lambda p: p.stem)
def test_saved_records_replay(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    state = replay(record)
    rules = games.get("harmijan", **record["options"])
    outcome = rules.outcome(state)
    assert outcome is not None and outcome.to_json() == record["result"]


def test_random_games_are_consistent() -> None:
    """Stone counts follow the rules: +1 per plain turn, unchanged by bites and passes."""
    rules = RULES[6]
    states, moves = random_game(rules, random.Random(5))
    counts = [s.stones[0].bit_count() + s.stones[1].bit_count() for s in states]
    for (before, after), text in zip(pairwise(counts[2:]), moves[2:], strict=True):
        assert after - before == (0 if "x" in text or text == "pass" else 1)


def test_apply_refuses_what_the_rules_forbid() -> None:
    rules = RULES[6]
    state = position(EXAMPLE_2 + " h5", "g6")
    by_name = rules.board.by_name
    for move in [
        Turn(by_name["g3"], by_name["g5"], by_name["g1"]),  # [H2] g5 touches two creatures
        Turn(by_name["h5"], by_name["h6"], by_name["h8"]),  # [H4] a singleton
        Turn(by_name["g6"], by_name["g7"], by_name["g9"]),  # not Black's stone
        Turn(by_name["g3"], by_name["g4"], by_name["g5"]),  # next to the moved creature
        Turn(by_name["g3"], by_name["g4"], 999),
        "pass",  # [H9]
        "white",
        Setup((0, 1), (3, 4)),
    ]:
        with pytest.raises(IllegalMoveError):
            rules.apply(state, move)
    assert rules.apply(state, Turn(by_name["g3"], by_name["g4"], by_name["g1"])).ply == 1


def test_nothing_can_be_played_once_the_game_is_over() -> None:
    rules = RULES[6]
    state = over("a1 a2", "k1 k2")
    assert rules.steps(state, []).next == () and rules.steps(state, []).move is None
    for text in ["pass", "a1-a3@a5", "black"]:
        with pytest.raises(IllegalMoveError, match="over"):
            rules.parse_move(state, text)
    with pytest.raises(IllegalMoveError):
        rules.steps(state, ["pass"])


def test_position_caches_belong_to_each_rules_and_are_bounded() -> None:
    """A bot's own Rules fills its own caches: a human game's Rules keeps its entries."""
    human, bot = Rules(), Rules()
    rng = random.Random(4)
    states, _ = random_game(bot, rng)
    for state in states:
        if bot.to_move(state) is not None and state.phase == "play" and not state.must_pass:
            bot.steps(state, [])
        bot.view(state)
    assert bot._turn_table.cache_info().currsize > 0
    assert bot._shape_of.cache_info().currsize > 0
    assert human._turn_table.cache_info().currsize == 0
    assert human._shape_of.cache_info().currsize == 0
    assert bot._turn_table.cache_info().maxsize == 64
    assert bot._shape_of.cache_info().maxsize == 4096
    assert 0 < len(bot._creature_memo) <= 16
    assert not human._creature_memo


def creature_data(creatures: Creatures) -> tuple[object, ...]:
    """What a colour's creatures decide, independent of the order they are kept in."""
    return (
        creatures.own,
        sorted(zip(creatures.creatures, creatures.dilated, strict=True)),
        creatures.once,
        creatures.twice,
        creatures.thrice,
        creatures.movable,
    )


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(min_value=0, max_value=10**6), size=st.sampled_from([5, 6, 7]))
def test_kept_creatures_equal_a_fresh_computation(seed: int, size: int) -> None:
    """The creatures a turn or a bite updates in place of recomputing them are, after every ply of
    random games on both paths, exactly those of a computation from the stones alone."""
    rules = Rules(size=size)
    rng = random.Random(seed)
    for fast in (True, False):
        state = rules.initial_state()
        while rules.to_move(state) is not None:
            if fast:
                state = rules.search_apply(state, rules.search_random_move(state, rng))
            else:
                state = rules.apply(state, rules.random_move(state, rng))
            for own, kept in rules._creature_memo.items():
                assert creature_data(kept) == creature_data(Creatures(rules._geo, own))
                labels = [-1] * len(kept.label)
                for n, creature in enumerate(kept.creatures):
                    for i in range(len(labels)):
                        if creature >> i & 1:
                            labels[i] = n
                assert kept.label == labels


def test_an_unchecked_wrong_turn_leaves_no_wrong_creatures_kept() -> None:
    """``search_apply`` trusts its move; one that breaks [H2] (g5 touches two creatures) gives a
    meaningless state, but the creatures kept for later positions stay right."""
    rules = Rules()
    state = position(EXAMPLE_2 + " h5", "g6")
    rules.legal_moves(state)  # the creatures of the position are kept
    by_name = rules.board.by_name
    rules.search_apply(state, Turn(by_name["g3"], by_name["g5"], by_name["g1"]))
    for own, kept in rules._creature_memo.items():
        assert creature_data(kept) == creature_data(Creatures(rules._geo, own))
