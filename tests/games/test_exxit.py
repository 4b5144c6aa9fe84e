"""Exxit: the worked examples of shared/rules/exxit.md §11 and its decisions (§9) as exact tests.

Positions are built directly with ``make_state``; ``[9.n]`` names a decision of the spec, ``[R.n]`` a
reading of games/exxit.py's docstring. Random games are always seeded.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.bench import random_game
from games.errors import IllegalMoveError, InvalidMoveError
from games.exxit import (
    BLACK,
    PASS,
    RED,
    Move,
    Rules,
    State,
    _dances,
    islands,
    make_state,
    score,
)
from games.hexgrid import Hex, ray
from games.record import replay
from tests.games.positions import exxit_position

R, B = RED, BLACK  # colour indices (games.seats)
RED_SEAT, BLACK_SEAT = 1, 2  # Red is seat 1 [9.8]
DATA = Path(__file__).parent / "data"
CORE = {(0, 0): R, (1, -1): R, (0, -1): B, (1, 0): B}

rules = Rules()


def texts(state: State) -> list[str]:
    return [rules.format_move(state, m) for m in rules.legal_moves(state)]


def play(state: State, *moves: str) -> State:
    for text in moves:
        state = rules.play(state, text)
    return state


def row(*qs: int, r: int = 0, colour: int = R) -> dict[tuple[int, int], int]:
    return {(q, r): colour for q in qs}


# --- §11 worked examples -----------------------------------------------------------------------


def test_1_opening() -> None:
    state = rules.initial_state()
    assert rules.to_move(state) == RED_SEAT  # [9.8] Red moves first
    assert texts(state) == ["0,-1", "1,-1", "0,0", "1,0"]  # placements on either colour [9.9]
    assert (score(state, RED), score(state, BLACK)) == (4, 3)
    assert state.reserves == (8, 8) and state.stock == 35
    assert rules.outcome(state) is None


def test_2_a_forced_dance() -> None:
    state = play(rules.initial_state(), "0,0", "1,-1")
    assert texts(state) == ["0,0>1,-1"]
    after = play(state, "0,0>1,-1")
    assert after.stack_at == {(1, -1): (B, R)}
    assert after.reserves == (7, 7)


def test_3_off_field_dance_and_mixed_stack() -> None:
    state = play(rules.initial_state(), "0,0", "1,-1", "0,0>1,-1", "0,-1")
    assert texts(state) == ["1,-1>0,-1"]
    after = play(state, "1,-1>0,-1")
    assert after.stack_at == {(0, -1): (B, B), (-1, -1): (R,)}
    assert after.prisoners() == [((-1, -1), (R,))]
    assert after.reserves == (7, 6)
    # the prisoner touches one tile only: Black has no dance and no liberation, only placements
    assert texts(after) == ["1,-1", "0,0", "1,0"]


def line_position(stacks: dict[tuple[int, int], tuple[int, ...]], *qs: int) -> State:
    return make_state(row(*qs), stacks, reserves=(6, 6), stock=20)


@pytest.mark.parametrize(
    ("black", "legal", "result"),
    [
        ({(2, 0): (B,)}, True, {(1, 0): (R,), (2, 0): (B, R)}),
        ({(3, 0): (B,)}, False, None),  # too far
        ({(2, 0): (B, B)}, True, {(1, 0): (R,), (2, 0): (B, B, R)}),  # equal height [9.1]
        ({(2, 0): (B, B, B)}, False, None),  # higher than the dancer [9.1]
    ],
)
def test_4_reach_and_height(
    black: dict[tuple[int, int], tuple[int, ...]], legal: bool, result: dict[Any, Any] | None
) -> None:
    state = line_position({(0, 0): (R, R), **black}, 0, 1, 2, 3, 4)
    if not legal:
        assert all(m.kind == "place" for m in rules.legal_moves(state))
        return
    target = next(iter(black))
    assert rules.legal_moves(state) == [Move("dance", (0, 0), target)]
    assert play(state, f"0,0>{target[0]},{target[1]}").stack_at == result


def test_5_blocking() -> None:
    state = line_position({(0, 0): (R, R), (1, 0): (R,), (2, 0): (B,)}, 0, 1, 2, 3, 4)
    assert texts(state) == ["1,0>2,0"]
    hole = line_position({(0, 0): (R, R), (2, 0): (B,)}, 0, 2, 3, 4)
    assert all(m.kind == "place" for m in rules.legal_moves(hole))


def test_6_sowing_past_the_target() -> None:
    state = line_position({(0, 0): (R, R, R), (1, 0): (B,)}, 0, 1, 2)
    assert texts(state) == ["0,0>1,0"]
    after = play(state, "0,0>1,0")
    assert after.stack_at == {(1, 0): (B, R), (2, 0): (R,), (3, 0): (R,)}
    assert after.prisoners() == [((3, 0), (R,))]
    tall = line_position({(0, 0): (R, R, R), (1, 0): (B,), (2, 0): (B,) * 5}, 0, 1, 2)
    assert texts(tall) == ["0,0>1,0"]  # only the target's height counts
    assert play(tall, "0,0>1,0").stack_at[(2, 0)] == (B, B, B, B, B, R)


def test_7_prisoners_block() -> None:  # [9.3]
    state = line_position({(0, 0): (R, R, R), (1, 0): (B,), (3, 0): (B,)}, 0, 1, 2)
    assert texts(state) == ["2,0"]  # no dance: a placement on the one empty tile
    with pytest.raises(IllegalMoveError, match="0,0>1,0"):
        rules.parse_move(state, "0,0>1,0")


def priority_position(**extra: Any) -> State:
    tiles = {(0, 0): R, (1, 0): B, (2, 0): R, (0, 1): B}
    stacks = {(0, 0): (R, R), (1, 0): (B,), (0, 1): (B,), **extra.get("stacks", {})}
    return make_state(tiles, stacks, reserves=extra.get("reserves", (0, 0)), stock=10)


def test_8_priority_of_off_field_dances() -> None:  # [9.2]
    state = priority_position()
    assert texts(state) == ["0,0>0,1"]
    with pytest.raises(IllegalMoveError, match="off the field comes first"):
        rules.parse_move(state, "0,0>1,0")
    after = play(state, "0,0>0,1")
    assert after.stack_at == {(1, 0): (B,), (0, 1): (B, R), (0, 2): (R,)}


def test_9_a_dance_beats_everything_else() -> None:  # [9.9]
    state = priority_position(stacks={(1, 1): (B,)}, reserves=(5, 5))
    assert rules.legal_moves(state) == [Move("dance", (0, 0), (0, 1))]
    # without the dancer, the same position offers placements and the liberation
    quiet = make_state(state.tile_at, {(1, 1): (B,)}, reserves=(5, 5), stock=10)
    assert texts(quiet) == ["0,0", "1,0", "2,0", "0,1", "+1,1"]


def liberation_position(stock: int) -> State:
    prisoners = {(2, -1): (R,), (2, -2): (B, R)}
    return exxit_position(CORE, prisoners, mover=BLACK, stock=stock)


def test_10_liberation_and_chain() -> None:
    state = liberation_position(35)
    assert texts(state) == ["0,-1", "1,-1", "0,0", "1,0", "+2,-1"]  # 2,-2 touches one tile
    after = play(state, "+2,-1")
    assert after.tile_at == {**CORE, (2, -1): B, (2, -2): B}
    assert after.stack_at == {}
    assert after.reserves == (8, 8) and after.stock == 33
    assert islands(after, BLACK) == [3, 1]
    assert (score(after, RED), score(after, BLACK)) == (4, 7)
    assert rules.view(after)["last_move"] == {
        "text": "+2,-1",
        "cells": ["2,-1", "2,-2"],
        # each prisoner stack of the chain back to the reserves, a tile laid on its cell
        "effects": [
            {"id": "2,-2", "roles": ["freed"], "delta": -2},
            {"id": "2,-1", "roles": ["freed"], "delta": -1},
        ],
    }
    assert rules.to_move(after) == RED_SEAT


def test_11_stock_runs_out_in_a_chain() -> None:
    after = play(liberation_position(1), "+2,-1")
    assert after.tile_at == {**CORE, (2, -1): B}
    assert after.prisoners() == [((2, -2), (B, R))]
    assert after.stock == 0 and after.reserves == (7, 7)
    outcome = rules.outcome(after)
    assert outcome is not None
    assert (outcome.reason, outcome.scores, outcome.winner, outcome.colour) == (
        "stock-exhausted",
        (4, 5),
        BLACK_SEAT,
        "black",
    )
    assert rules.to_move(after) is None and rules.legal_moves(after) == []


def test_12_red_liberates_a_black_stack() -> None:
    state = make_state(CORE, {(2, -1): (B, B)}, reserves=(8, 6), stock=5)
    after = play(state, "+2,-1")
    assert after.tile_at[(2, -1)] == RED
    assert after.reserves == (8, 8)


def test_13_a_hole() -> None:
    ring = dict.fromkeys([(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1), (-2, 0)], R)
    state = make_state(ring, {(-2, 0): (R, R), (-1, 0): (B,)}, reserves=(0, 0), stock=5)
    assert texts(state) == ["-2,0>-1,0"]
    after = play(state, "-2,0>-1,0")
    assert after.prisoners() == [((0, 0), (R,))]  # dropped into the hole
    assert texts(after) == ["+0,0"]  # Black has no stack and no reserve: it fills the hole
    filled = play(after, "+0,0")
    assert filled.tile_at[(0, 0)] == BLACK and filled.reserves == (1, 0)


def test_14_pass() -> None:  # [9.5]
    state = make_state(CORE, {}, reserves=(0, 8), stock=35)
    assert rules.legal_moves(state) == [PASS]
    passed = play(state, "pass")
    assert rules.outcome(passed) is None and passed.passes == 1
    placed = play(passed, "0,0")
    assert placed.passes == 0
    assert rules.outcome(play(placed, "pass")) is None  # a pass after a move does not end it
    both = play(make_state(CORE, {}, reserves=(0, 0), stock=35), "pass", "pass")
    outcome = rules.outcome(both)
    assert outcome is not None
    assert (outcome.reason, outcome.scores, outcome.winner) == ("double-pass", (4, 3), RED_SEAT)
    with pytest.raises(IllegalMoveError, match="over"):
        rules.parse_move(both, "pass")


def test_14_pass_is_refused_while_another_move_exists() -> None:
    with pytest.raises(IllegalMoveError, match="no other move"):
        rules.parse_move(rules.initial_state(), "pass")


def test_15_scoring() -> None:  # [9.7]
    red = {**row(0, 1, 2, 3, 4, r=0), **row(0, 1, 2, r=2), **row(0, r=4)}
    black = {**row(0, 1, 2, 3, 4, 5, r=6, colour=B), **row(0, 1, 2, 3, 4, 5, r=8, colour=B)}
    state = make_state({**red, **black}, {}, reserves=(8, 8), stock=0)
    assert islands(state, RED) == [5, 3, 1] and score(state, RED) == 14
    assert islands(state, BLACK) == [6, 6] and score(state, BLACK) == 18


@pytest.mark.parametrize(("variant", "total"), [("standard", 39), ("blitz", 29), ("beginner", 19)])
def test_16_variants(variant: str, total: int) -> None:
    game = games.get("exxit", variant=variant)
    assert game.initial_state().stock == total - 4
    exhausted = 0
    for seed in range(30):
        states, _ = random_game(game, random.Random(seed))
        outcome = game.outcome(states[-1])
        assert outcome is not None
        if outcome.reason == "stock-exhausted":
            exhausted += 1
            assert len(states[-1].tiles) == total
    assert exhausted > 0


# --- decisions of §9 and readings of the module --------------------------------------------------


def test_tie_is_a_draw() -> None:  # [9.4]
    tiles = {(0, 0): R, (1, -1): R, (1, 0): B, (2, -1): B}
    over = play(make_state(tiles, {}, reserves=(0, 0), stock=3), "pass", "pass")
    outcome = rules.outcome(over)
    assert outcome is not None
    assert (outcome.winner, outcome.colour, outcome.scores) == (None, None, (4, 4))


def test_a_forced_cycle_ends_at_the_third_occurrence() -> None:  # [9.6]
    # four tiles in a row, no reserves, no prisoners: every move of this 8-ply cycle is forced
    stacks = {(0, 0): (R,), (1, 0): (B,), (2, 0): (B, R)}
    start = make_state(row(0, 1, 2, 3), stacks, reserves=(0, 0), stock=5, mover=BLACK)
    cycle = ["1,0>0,0", "2,0>0,0", "pass", "0,0>1,0", "2,0>3,0", "1,0>3,0", "pass", "3,0>2,0"]
    state = start
    for ply, text in enumerate(cycle * 2, start=1):
        assert texts(state) == [text]
        state = play(state, text)
        if ply == 8:  # the second occurrence of the start: play goes on
            assert state.position() == start.position() and rules.outcome(state) is None
    assert state.position() == start.position()
    outcome = rules.outcome(state)
    assert outcome is not None
    assert (outcome.reason, outcome.scores, outcome.winner) == ("repetition", (8, 0), RED_SEAT)
    # two passes in the cycle, but never two in a row: the pass counter is not part of a position
    assert state.passes == 0


def test_threefold_repetition_ends_and_is_scored() -> None:  # [9.6] [R.3]
    record = json.loads((DATA / "exxit_repetition.json").read_text())
    final = replay(record)
    outcome = rules.outcome(final)
    assert outcome is not None
    assert (
        outcome.reason == "repetition" and outcome.scores == (30, 29) and outcome.winner == RED_SEAT
    )
    # the final position is the third occurrence of its position, counted from the start
    state = rules.initial_state()
    seen = [state.position()]
    for text in record["moves"]:
        assert rules.outcome(state) is None
        state = rules.play(state, text)
        seen.append(state.position())
    assert seen.count(final.position()) == 3
    assert all(seen[:k].count(p) < 3 for k, p in enumerate(seen[:-1], start=1))


def test_liberation_chain_is_depth_first_in_direction_order() -> None:  # [R.1]
    tiles = {**CORE, (2, 0): B, (3, 0): B, (2, -2): R}
    x, y1, y2, z = (2, -1), (3, -1), (3, -2), (4, -1)
    prisoners = {x: (R,), y1: (B,), y2: (R,), z: (B,)}
    state = make_state(tiles, prisoners, reserves=(6, 6), stock=3)
    after = play(state, "+2,-1")
    # depth first: X, then its E neighbour Y1, then Y1's E neighbour Z; the stock ends before Y2
    assert rules.view(after)["last_move"]["cells"] == ["2,-1", "3,-1", "4,-1"]
    assert after.prisoners() == [(y2, (R,))]
    assert all(after.tile_at[c] == RED for c in (x, y1, z))
    assert after.ended == "stock-exhausted"
    whole = play(make_state(tiles, prisoners, reserves=(6, 6), stock=10), "+2,-1")
    assert whole.prisoners() == [] and whole.stock == 6 and whole.ended is None


def test_liberation_needs_two_tile_neighbours_and_stock() -> None:
    one = make_state(CORE, {(2, -2): (R,)}, reserves=(0, 0), stock=5)
    assert texts(one) == ["pass"]
    with pytest.raises(IllegalMoveError):
        rules.parse_move(one, "+2,-2")
    no_stock = make_state(CORE, {(2, -1): (R,)}, reserves=(0, 0), stock=0)
    assert texts(no_stock) == ["pass"]


def test_dance_needs_tiles_before_the_target() -> None:
    # a prisoner is never a target: the walk meets a cell without a tile first
    state = make_state(row(0, 1), {(0, 0): (R, R), (2, 0): (B,)}, reserves=(0, 0), stock=5)
    assert texts(state) == ["pass"]


def test_own_stack_is_no_target_and_only_top_pawns_own() -> None:
    state = line_position({(0, 0): (R, B), (1, 0): (B, R)}, 0, 1, 2)
    # Black owns [R,B] on 0,0; Red owns [B,R] on 1,0: Red to move dances onto it, West
    assert texts(state) == ["1,0>0,0"]
    after = play(state, "1,0>0,0")
    assert after.stack_at == {(0, 0): (R, B, B), (-1, 0): (R,)}


# --- notation, steps and view -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("0,0", Move("place", (0, 0))),
        (" -2 , 3 ", Move("place", (-2, 3))),
        ("1,-1>0,-1", Move("dance", (1, -1), (0, -1))),
        ("1,-1 > 0,-1", Move("dance", (1, -1), (0, -1))),
        ("+2,-1", Move("liberate", (2, -1))),
        ("+ 2,-1", Move("liberate", (2, -1))),
        ("pass", PASS),
        (" PASS ", PASS),
    ],
)
def test_notation_forms(text: str, move: Any) -> None:
    from games.exxit import _parse

    assert _parse(text) == move
    assert _parse(move.text()) == move


def test_canonical_text() -> None:
    assert Move("dance", (1, -1), (-3, 3)).text() == "1,-1>-3,3"
    assert Move("liberate", (-2, 0)).text() == "+-2,0"
    assert Move("place", (0, -1)).text() == "0,-1"


@pytest.mark.parametrize(
    "text", ["", "0", "0,0,0", "a1", "+", "0,0>", ">0,0", "0,0>0,0", "0,0>2,1", "++0,0", "+1,+1"]
)
def test_not_a_move(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        rules.parse_move(rules.initial_state(), text)


@pytest.mark.parametrize("text", ["5,5", "+2,-1", "0,0>1,0", "+0,0"])
def test_well_formed_but_illegal(text: str) -> None:
    with pytest.raises(IllegalMoveError, match=text.replace("+", r"\+")):
        rules.parse_move(rules.initial_state(), text)


def test_steps_for_a_dance_and_a_liberation() -> None:
    state = line_position({(0, 0): (R, R), (1, 0): (R,), (2, 0): (B,)}, 0, 1, 2, 3, 4)
    assert rules.steps(state, []).next == ("1,0",)
    step = rules.steps(state, ["1,0"])
    assert step.next == ("2,0",) and step.move is None
    assert rules.steps(state, ["1,0", "2,0"]).move == "1,0>2,0"
    with pytest.raises(IllegalMoveError):
        rules.steps(state, ["0,0"])
    libs = liberation_position(35)
    assert "2,-1" in rules.steps(libs, []).next
    assert rules.steps(libs, ["2,-1"]).move == "+2,-1"
    assert rules.steps(make_state(CORE, {}, reserves=(0, 0), stock=3), []).next == ("pass",)


def test_view() -> None:
    state = play(rules.initial_state(), "0,0", "1,-1", "0,0>1,-1", "0,-1", "1,-1>0,-1")
    view = rules.view(state)
    assert view["board"] == {"kind": "field", "side": None}
    assert view["rows"] == []
    assert [c["id"] for c in view["cells"]] == ["-1,-1", "0,-1", "1,-1", "0,0", "1,0"]
    assert view["cells"][0] == {
        "id": "-1,-1",
        "q": -1,
        "r": -1,
        "stack": ["red"],
        "mark": "prisoner",
    }
    assert view["cells"][1] == {
        "id": "0,-1",
        "q": 0,
        "r": -1,
        "stack": ["black", "black"],
        "tile": "black",
    }
    assert view["to_move"] == BLACK_SEAT
    assert view["colours"] == {"1": "red", "2": "black"}
    assert view["last_move"] == {
        "text": "1,-1>0,-1",
        "cells": ["1,-1", "0,-1", "-1,-1"],
        "effects": [  # reading order: the prisoner cell, the target, the origin
            {"id": "-1,-1", "roles": ["prisoner"], "delta": 1},
            {"id": "0,-1", "roles": ["destination", "sown"], "delta": 1},
            {"id": "1,-1", "roles": ["origin"], "delta": -2},
        ],
    }
    counters = {c["label"]: c["value"] for c in view["counters"]}
    assert counters == {
        "Stock": 35,
        "Red reserve": 7,
        "Black reserve": 6,
        "Red score": 4,
        "Black score": 3,
    }
    prisoners = [
        {k: c[k] for k in ("id", "q", "r", "stack")}
        for c in view["cells"]
        if c.get("mark") == "prisoner"
    ]
    assert prisoners == [{"id": "-1,-1", "q": -1, "r": -1, "stack": ["red"]}]
    reserves = {c["seat"]: c["value"] for c in view["counters"] if c["label"].endswith("reserve")}
    assert reserves == {1: 7, 2: 6}
    assert view["outcome"] is None
    json.dumps(view)


def test_key_ignores_display_fields() -> None:
    a = play(rules.initial_state(), "0,0", "1,-1")
    b = play(rules.initial_state(), "1,-1", "0,0")
    assert a.stack_at != b.stack_at
    c = play(rules.initial_state(), "0,0", "1,-1")
    assert a == c and rules.key(a) == rules.key(c)
    assert rules.key(a) != rules.key(b)


def test_options() -> None:
    assert [o.name for o in Rules.OPTIONS] == ["variant"]
    assert Rules().total_tiles == 39
    with pytest.raises(ValueError, match="variant"):
        games.get("exxit", variant="expert")  # [9.10]


# --- invariants over random games (every variant) ------------------------------------------------


def check_invariants(game: Rules, states: list[State]) -> None:
    seen: list[Any] = []
    for state in states:
        game.check_invariants(
            state
        )  # pawns, stock, tiles + stock (also run by the conformance suite)
        assert all(c not in state.tile_at for c, _ in state.prisoners())
        seen.append(state.position())
        # [R.3] the short history counts exactly what the whole game's history counts
        assert state.history.count(state.position()) == seen.count(state.position())


@pytest.mark.parametrize("variant", ["standard", "blitz", "beginner"])
def test_invariants_hold_in_random_games(variant: str) -> None:
    game = Rules(variant=variant)
    for seed in range(12):
        states, _ = random_game(game, random.Random(seed))
        check_invariants(game, states)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    st.integers(min_value=0, max_value=10**6), st.sampled_from(["standard", "blitz", "beginner"])
)
def test_invariants_property(seed: int, variant: str) -> None:
    game = Rules(variant=variant)
    states, _ = random_game(game, random.Random(seed))
    check_invariants(game, states)
    assert game.outcome(states[-1]) is not None


def test_invariant_check_catches_a_lost_pawn_and_a_miscounted_stock() -> None:
    state = rules.initial_state()
    rules.check_invariants(state)
    with pytest.raises(AssertionError, match="red pawns"):
        rules.check_invariants(dataclasses.replace(state, reserves=(7, 8)))
    with pytest.raises(AssertionError, match="tiles and stock"):
        rules.check_invariants(dataclasses.replace(state, stock=state.stock - 1))


def test_steps_preview_where_a_dance_lands() -> None:
    state = line_position({(0, 0): (R, R, R), (1, 0): (B,)}, 0, 1, 2)
    step = rules.steps(state, ["0,0"])
    assert step.next == ("1,0",)
    assert step.hints == {"1,0": {"cells": ["1,0", "2,0", "3,0"]}}  # the last one off the field
    assert rules.steps(state, []).hints == {}


def test_apply_refuses_what_is_not_a_move() -> None:
    with pytest.raises(IllegalMoveError):
        rules.apply(rules.initial_state(), "0,0")  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError):
        rules.apply(rules.initial_state(), Move("dance", (0, 0), None))


@pytest.mark.parametrize(
    ("name", "reason", "scores"),
    [
        ("exxit_standard_stock-exhausted", "stock-exhausted", (45, 23)),
        ("exxit_beginner_stock-exhausted", "stock-exhausted", (22, 12)),
        ("exxit_blitz_double-pass", "double-pass", (15, 15)),  # a draw [9.4]
        ("exxit_repetition", "repetition", (30, 29)),
    ],
)
def test_saved_records_replay(name: str, reason: str, scores: tuple[int, int]) -> None:
    record = json.loads((DATA / f"{name}.json").read_text())
    final = replay(record)  # checks every ply and the stored result
    game = Rules(**record["options"])
    outcome = game.outcome(final)
    assert outcome is not None and (outcome.reason, outcome.scores) == (reason, scores)
    assert record["result"] == outcome.to_json()
    state = game.initial_state()
    states = [state]
    for text in record["moves"]:
        state = game.play(state, text)
        states.append(state)
    check_invariants(game, states)
    if reason == "stock-exhausted":
        assert len(final.tiles) == game.total_tiles and final.stock == 0


def _walked_dances(state: State) -> list[tuple[Hex, Hex, bool]]:
    """The mover's dances found the plain way (§5): from each stack, along each direction, cell by
    cell to the first stack met; (source, target, off-field) by source, then direction."""
    tiles, stacks, me = state.tile_at, state.stack_at, state.mover
    out = []
    for source, stack in state.stacks:
        if stack[-1] != me or source not in tiles:
            continue
        n = len(stack)
        for d in range(6):
            line = list(itertools.islice(ray(source, d), n))
            first = next((k for k, c in enumerate(line) if c not in tiles or c in stacks), None)
            if first is None or line[first] not in tiles:
                continue  # no stack within reach, or a hole before the first one
            target = stacks[line[first]]
            if target[-1] == me or len(target) > n:
                continue
            hole = next((c for c in line[first + 1 :] if c not in tiles), None)
            if hole is None or hole not in stacks:
                out.append((source, line[first], hole is not None))
    return out


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    st.integers(min_value=0, max_value=10_000),
    st.sampled_from(["standard", "blitz", "beginner"]),
)
def test_the_fast_path_finds_and_draws_what_the_rules_say(seed: int, variant: str) -> None:
    """On every position of a random game: the dances paired stack by stack are the dances walked
    cell by cell; the fast draw is ``random_move``'s draw from the same generator; the fast
    ``search_apply`` reaches ``apply``'s position and only leaves the display fields empty."""
    game = Rules(variant=variant)
    rng = random.Random(seed)
    state = game.initial_state()
    while game.to_move(state) is not None:
        assert [(s, t, off) for s, _, t, off in _dances(state)] == _walked_dances(state)
        draw = rng.randrange(1 << 32)
        fresh = dataclasses.replace(state)  # no cache of its moves: the counting draw
        move = game.search_random_move(fresh, random.Random(draw))
        assert move == game.random_move(state, random.Random(draw))
        assert game.search_random_move(state, random.Random(draw)) == move  # moves listed
        fast, slow = game.search_apply(state, move), game.apply(state, move)
        assert dataclasses.replace(fast, last=slow.last, last_effects=slow.last_effects) == slow
        for after in (fast, slow):  # the caches a move fills are what they would compute
            assert list(after.tile_at.items()) == list(after.tiles)
            assert list(after.stack_at.items()) == list(after.stacks)
        state = fast
