"""Sgolte: the worked examples of shared/rules/sgolte.md section 8 and its numbered decisions.

Positions are built directly (``Rules.position``); a brute-force reading of the spec, written here
with plain sets, checks the lazy move generator, the counter and the existence searches on small
seeded positions.
"""

from __future__ import annotations

import itertools
import json
import pickle
import random
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.bitboard import bits
from games.errors import IllegalMoveError, InvalidMoveError
from games.hexgrid import DIRECTIONS, hex_board
from games.record import replay
from games.sgolte import BLACK, WHITE, Move, Rules, State
from games.sgolte.capture import feasible, group_lines
from games.sgolte.geometry import _group_rims, merging_cells

DATA = Path(__file__).parent / "data"


def rules(size: int = 5, variant: str = "standard") -> Rules:
    r = games.get("sgolte", size=size, variant=variant)
    assert isinstance(r, Rules)
    return r


def stones(r: Rules, state: State, colour: str) -> set[str]:
    return {c["id"] for c in r.view(state)["cells"] if c["stack"] == [colour]}


def identity(m: Move) -> tuple[str | None, frozenset[str], frozenset[str]]:
    return (m.place, frozenset(m.capture), frozenset(m.replace))


# --- section 8: the worked examples -----------------------------------------------------------

EX1_WHITE = ["e4", "e5", "g2", "g3", "h2"]
EX3_WHITE = ["c2", "d3", "e3", "e4", "e5"]


def test_example_1_quiet_placements() -> None:
    r = rules()
    s = r.position(black=["c5", "c7"], white=EX1_WHITE)
    for cell in ("b4", "d6"):
        move = r.parse_move(s, cell)
        assert move == Move(place=cell)
        after = r.apply(s, move)
        assert stones(r, after, "black") == {"c5", "c7", cell}
        assert stones(r, after, "white") == set(EX1_WHITE)
        assert r.to_move(after) == 2  # White's seat (seat 1 is Black here)


def test_example_2_merge_without_split_is_illegal_and_53_turns_remain() -> None:
    r = rules()
    s = r.position(black=["c5", "c7"], white=EX1_WHITE)
    with pytest.raises(IllegalMoveError, match="joins your groups, so it must capture"):
        r.parse_move(s, "c6")
    moves = list(r.legal_moves(s))
    assert len(moves) == 53 == r.count_moves(s)
    assert all(not m.capture for m in moves)
    assert "c6" not in {m.place for m in moves}
    assert "c6" not in r.steps(s, []).next
    assert len(r.steps(s, []).next) == 53
    with pytest.raises(IllegalMoveError):
        r.steps(s, ["c6"])


def test_example_3_merge_line_capture_and_replacement() -> None:
    r = rules()
    s = r.position(black=["c5", "c7"], white=EX3_WHITE)
    captures = {cap for place, cap in r.choices(s) if place == "c6"}
    assert captures == {("d3",), ("e4",), ("e3", "d3"), ("e3", "e4"), ("c2", "d3", "e4")}
    move = r.parse_move(s, "c6xc2,d3,e4:c2,d3,e4")
    assert move == Move(place="c6", capture=("c2", "d3", "e4"), replace=("c2", "d3", "e4"))
    assert r.format_move(s, move) == "c6xc2,d3,e4:c2,d3,e4"
    after = r.apply(s, move)
    assert stones(r, after, "black") == {"c5", "c6", "c7", "c2", "d3", "e4"}
    assert stones(r, after, "white") == {"e3", "e5"}
    assert r.view(after)["last_move"] == {
        "text": "c6xc2,d3,e4:c2,d3,e4",
        "cells": ["c6", "c2", "d3", "e4"],
        "effects": [  # each captured stone re-placed on its own cell [7]: owner changed, height not
            {"id": "c2", "roles": ["captured", "replaced"], "delta": 0},
            {"id": "c6", "roles": ["placed"], "delta": 1},
            {"id": "d3", "roles": ["captured", "replaced"], "delta": 0},
            {"id": "e4", "roles": ["captured", "replaced"], "delta": 0},
        ],
    }
    # [8] the set is legal, the order c2, e4, d3 is not: d3 would touch {c2} and {e4}
    with pytest.raises(IllegalMoveError, match="re-placed on d3 would join"):
        r.parse_move(s, "c6xc2,d3,e4:c2,e4,d3")
    # the same set in another legal order is the same move, printed canonically
    assert r.parse_move(s, "c6xc2,d3,e4:d3,c2,e4") == move
    assert r.parse_move(s, "c6xc2,d3,e4:e4,d3,c2") == move


def test_example_3_steps_follow_the_clicks() -> None:
    r = rules()
    s = r.position(black=["c5", "c7"], white=EX3_WHITE)
    assert "c6" in r.steps(s, []).next
    assert r.steps(s, ["c6"]).next == ("c2", "d3", "e3", "e4")
    assert r.steps(s, ["c6", "c2"]).next == ("d3",)
    assert r.steps(s, ["c6", "c2", "d3"]).next == ("e4",)
    assert r.steps(s, ["c6", "e3"]).next == ("d3", "e4")
    after_capture = r.steps(s, ["c6", "c2", "d3", "e4"])
    assert after_capture.move is None and "c2" in after_capture.next
    two = r.steps(s, ["c6", "c2", "d3", "e4", "c2", "e4"])
    assert "d3" not in two.next  # it would touch {c2} and {e4}
    done = r.steps(s, ["c6", "c2", "d3", "e4", "d3", "c2", "e4"])
    assert done.next == () and done.move == "c6xc2,d3,e4:c2,d3,e4"
    with pytest.raises(IllegalMoveError):
        r.steps(s, ["c6", "c2", "d3", "e4", "c2", "e4", "d3"])
    with pytest.raises(IllegalMoveError):
        r.steps(s, ["c6", "e4", "d3"])  # [3] e4 first already splits


def test_example_4_illegal_removal_orders() -> None:
    r = rules()
    s = r.position(black=["c5", "c7"], white=EX3_WHITE)
    with pytest.raises(IllegalMoveError, match="Only the last stone taken may split"):
        r.parse_move(s, "c6xe4,d3,c2:c2,d3,e4")
    with pytest.raises(IllegalMoveError, match="Only the last stone taken may split"):
        r.parse_move(s, "c6xe3,e4,e5:a1,a3,a5")


def example_5(r: Rules) -> State:
    white = ["a2", "b1", "d8", "e8", "f8"]
    black = [n for n in r.geo.by_name if n not in white and n != "b2"]
    return r.position(black=black, white=white)


@pytest.mark.parametrize("variant", ["standard", "dense"])
def test_example_5_stuck_black_loses(variant: str) -> None:
    r = rules(variant=variant)
    s = example_5(r)
    outcome = r.outcome(s)
    assert outcome is not None
    assert (outcome.winner, outcome.colour, outcome.reason) == (2, "white", "no-moves")
    assert outcome.scores is None
    assert r.to_move(s) is None
    assert list(r.legal_moves(s)) == []
    assert r.count_moves(s) == 0
    assert r.steps(s, []).next == ()
    # [9] the capture [e8] itself is legal, but no re-placement exists
    with pytest.raises(IllegalMoveError):
        r.parse_move(s, "b2xe8:e8")


def test_example_5_with_one_more_empty_cell_the_capture_becomes_placeable() -> None:
    # [9] the capture is judged by its re-placement: with a3 also empty, e8's stone can go there
    r = rules()
    white = ["a2", "b1", "d8", "e8", "f8"]
    black = [n for n in r.geo.by_name if n not in white and n not in ("b2", "a3")]
    s = r.position(black=black, white=white)
    assert r.to_move(s) == 1
    assert [r.format_move(s, m) for m in r.legal_moves(s)] == ["a3", "b2xe8:a3"]
    with pytest.raises(IllegalMoveError, match="re-placed on e8 would join"):
        r.parse_move(s, "b2xe8:e8")
    assert r.steps(s, ["b2", "e8"]).next == ("a3",)


EX6_WHITE = ["e2", "e3", "e4", "e5", "e6", "d4", "c3"]


def test_example_6_dense_set_capture() -> None:
    dense, standard = rules(variant="dense"), rules()
    # f2 merges the black stones f1 and f3; the captives go to the far corner
    text = "f2xc3,d4,e4:a1,a3,a5"
    s = dense.position(black=["f1", "f3"], white=EX6_WHITE)
    move = dense.parse_move(s, text)
    assert dense.format_move(s, move) == text
    after = dense.apply(s, move)
    assert stones(dense, after, "white") == {"e2", "e3", "e5", "e6"}
    assert stones(dense, after, "black") == {"f1", "f2", "f3", "a1", "a3", "a5"}
    assert ("f2", ("c3", "d4", "e4")) in set(dense.choices(s))
    # [2] not a straight line: refused in standard
    s_std = standard.position(black=["f1", "f3"], white=EX6_WHITE)
    with pytest.raises(IllegalMoveError, match="straight line"):
        standard.parse_move(s_std, text)
    # section 9: removing d4 first cuts c3 off
    with pytest.raises(IllegalMoveError, match="Only the last stone taken may split"):
        dense.parse_move(s, "f2xd4,c3,e4:a1,a3,a5")
    # [14] {e2, e4} splits only at the end in that order, but is not connected
    with pytest.raises(IllegalMoveError, match="must touch each other"):
        dense.parse_move(s, "f2xe2,e4:a1,a3")
    assert dense.steps(s, ["f2", "c3"]).next == ("d4",)
    assert "e4" in dense.steps(s, ["f2", "c3", "d4"]).next


# --- the numbered decisions -------------------------------------------------------------------


def merge_at_a2(r: Rules, white: Iterable[str]) -> State:
    """Black a1 and a3, so that a2 merges two black groups; the rest of the board is free."""
    return r.position(black=["a1", "a3"], white=list(white))


def test_decision_1_touching_one_group_twice_is_quiet() -> None:
    r = rules()
    s = r.position(black=["c5", "c6"], white=EX3_WHITE)  # one group {c5, c6}
    assert r.parse_move(s, "b5") == Move(place="b5")  # touches c5 and c6, one group
    with pytest.raises(IllegalMoveError, match="captures nothing"):
        r.parse_move(s, "b5xd3:d3")  # [11]


def test_decision_3_prefix_rule_not_individual_cut_stones() -> None:
    # e3 and e4 are not cut stones of G one by one, but the prefix {e3, e4} splits off e2
    r = rules()
    white = ["e2", "e3", "e4", "e5", "e6", "d2", "d3", "d4", "f3", "f4"]
    s = merge_at_a2(r, white)
    line = "a2xe4,e3,e2:i1,i3"
    with pytest.raises(IllegalMoveError):
        r.parse_move(s, line)
    group = r.geo.flood(1 << r.geo.parse("e2"), s.stones[WHITE])
    for stone in ("e2", "e3", "e4"):
        assert r.geo.connected(group & ~(1 << r.geo.parse(stone)))


def test_decision_4_removing_a_whole_group_is_no_split() -> None:
    r = rules(variant="dense")
    s = merge_at_a2(r, ["e4", "e5", "e6"])
    assert {cap for _, cap in r.choices(s)} == {(), ("e5",)}
    with pytest.raises(IllegalMoveError):
        r.parse_move(s, "a2xe4,e5,e6:i1,i3,i5")


def test_decisions_6_and_7_replace_anywhere_touching_at_most_one_group() -> None:
    r = rules()
    s = merge_at_a2(r, ["e4", "e5", "e6"])
    # [7] onto the vacated cell; [6] touching no group (e5 touches nothing black)
    after = r.play(s, "a2xe5:e5")
    assert stones(r, after, "black") == {"a1", "a2", "a3", "e5"}
    # [6] touching exactly one group (b1 touches a1-a2-a3)
    assert r.parse_move(s, "a2xe5:b1") == Move(place="a2", capture=("e5",), replace=("b1",))


def test_apply_refuses_a_move_value_the_notation_cannot_write() -> None:
    r = rules()
    s = r.position(black=["c5", "c7"], white=EX3_WHITE)
    with pytest.raises(IllegalMoveError, match="Only captured stones"):
        r.apply(s, Move(place="b4", replace=("a1",)))
    with pytest.raises(IllegalMoveError):
        r.apply(s, Move(place="c6", capture=("c2", "d3", "e4"), replace=("c2", "e4", "d3")))


def test_decision_6_replacement_touching_two_groups_is_refused() -> None:
    r = rules()
    s = r.position(black=["a1", "a3", "i1", "i3"], white=["e4", "e5", "e6"])
    with pytest.raises(IllegalMoveError, match="re-placed on i2 would join"):
        r.parse_move(s, "a2xe5:i2")


def test_decision_13_white_moves_after_the_pie() -> None:
    r = rules()
    s = r.initial_state()
    assert r.to_move(s) == 1
    assert r.steps(s, []).next[:3] == ("a1", "a2", "a3")
    s = r.play(s, "e5")
    assert r.to_move(s) == 2
    assert r.steps(s, []).next == ("black", "white")
    with pytest.raises(IllegalMoveError):
        r.parse_move(s, "e4")
    took_black = r.play(s, "black")
    assert r.to_move(took_black) == 1  # seat 1 is White and moves
    assert r.view(took_black)["colours"] == {"1": "white", "2": "black"}
    took_white = r.play(s, "White")
    assert r.to_move(took_white) == 2
    assert r.view(took_white)["colours"] == {"1": "black", "2": "white"}
    assert stones(r, took_white, "black") == {"e5"}


def test_decision_14_dense_prefix_need_not_be_connected() -> None:
    r = rules(variant="dense")
    white = ["b5", "c4", "c5", "d4", "d5", "e4", "e6", "f3"]
    s = merge_at_a2(r, white)
    move = r.parse_move(s, "a2xc4,e6,d5:i1,i3,i5")  # {c4, e6} is not connected mid-way
    assert r.format_move(s, move) == "a2xe6,d5,c4:i1,i3,i5"
    steps = r.steps(s, ["a2", "c4"])
    assert "e6" in steps.next


def test_canonical_line_direction_is_the_lower_first_cell() -> None:
    r = rules()
    white = ["c5", "d5", "e3", "e5", "e6", "f3", "f4", "f5", "f6", "g5"]
    s = merge_at_a2(r, white)
    move = r.parse_move(s, "a2xe6,e5:i1,i3")
    assert r.format_move(s, move) == "a2xe5,e6:i1,i3"
    assert move == r.parse_move(s, "a2xe5,e6:i3,i1")


def test_canonical_replacement_order() -> None:
    r = rules()
    s = merge_at_a2(r, ["e4", "e5", "e6"])
    assert r.format_move(s, r.parse_move(s, "a2xe5:b1")) == "a2xe5:b1"
    s = r.position(black=["c5", "c7"], white=EX3_WHITE)
    move = r.parse_move(s, "c6xe3,d3:i1,b5")  # b5 touches a black stone, i1 does not
    assert r.format_move(s, move) == "c6xe3,d3:b5,i1"


def test_view_shows_stones_turn_colours_and_counters() -> None:
    r = rules()
    s = r.play(r.play(r.initial_state(), "e5"), "white")
    v = r.view(s)
    assert v["to_move"] == 2 and v["phase"] == "play"
    assert v["colours"] == {"1": "black", "2": "white"}
    assert v["last_move"] == {"text": "white", "cells": [], "effects": []}
    assert [c["stack"] for c in v["cells"] if c["id"] == "e5"] == [["black"]]
    assert v["counters"] == [
        {"label": "Black stones", "value": 1, "seat": 1},
        {"label": "White stones", "value": 0, "seat": 2},
    ]
    assert "extra" not in v  # nothing game-specific: the browser reads none of it
    assert len(v["cells"]) == 61 and v["board"] == {"kind": "hex", "side": 5}


def test_rules_pickle_as_their_options() -> None:
    r = rules(7, "dense")
    s = r.position(black=["c5", "c7"], white=EX3_WHITE)
    copy = pickle.loads(pickle.dumps(r))
    assert isinstance(copy, Rules) and copy.options == {"size": 7, "variant": "dense"}
    assert list(copy.choices(s)) == list(r.choices(s))


# --- notation -----------------------------------------------------------------------------------


def test_parser_accepts_spaces_and_refuses_bad_text() -> None:
    r = rules()
    s = r.position(black=["c5", "c7"], white=EX3_WHITE)
    canonical = "c6xc2,d3,e4:c2,d3,e4"
    for text in [" c6 x c2 , d3 , e4 : c2 , d3 , e4 ", "c6x c2,d3,e4 :c2,d3,e4", canonical]:
        assert r.format_move(s, r.parse_move(s, text)) == canonical
    for text in ["C6", "c6x", "c6xc2", "c6:c2", "c6xc2,,d3:c2", "c6 c2", "z1", "c9", "c6xc2;d3"]:
        with pytest.raises(InvalidMoveError):
            r.parse_move(s, text)
    for text in ["c6xc2,d3,e4:c2,d3", "c6xd3,d3:c2,c3", "c6", "c6xc5:c5", "c5"]:
        with pytest.raises(IllegalMoveError):
            r.parse_move(s, text)


def test_every_legal_move_round_trips() -> None:
    r = rules()
    s = r.position(black=["c5", "c7"], white=EX3_WHITE)
    texts = [r.format_move(s, m) for m in itertools.islice(r.legal_moves(s), 2000)]
    assert len(set(texts)) == len(texts)
    for text in texts[::7]:
        assert r.format_move(s, r.parse_move(s, text)) == text


# --- the engine against a brute-force reading of the spec -------------------------------------


def brute_moves(
    size: int, dense: bool, own: set[str], enemy: set[str]
) -> set[tuple[str | None, frozenset[str], frozenset[str]]]:
    """Every legal turn, straight from sections 3 and 4, by exhaustive enumeration."""
    board = hex_board(size)
    nbrs = {board.names[i]: {board.names[j] for j in board.adjacent[i]} for i in range(len(board))}
    step = {
        (board.names[i], d): board.names[j] if j >= 0 else None
        for i in range(len(board))
        for d, j in enumerate(board.step[i])
    }

    def components(cells: set[str]) -> list[set[str]]:
        left, out = set(cells), []
        while left:
            todo, comp = [left.pop()], set()
            while todo:
                c = todo.pop()
                comp.add(c)
                for x in nbrs[c] & left:
                    left.discard(x)
                    todo.append(x)
            out.append(comp)
        return out

    def connected(cells: set[str]) -> bool:
        return len(components(cells)) == 1

    def touch(cells: set[str], x: str) -> int:
        return sum(1 for g in components(cells) if g & nbrs[x])

    captures: list[frozenset[str]] = []
    for g in components(enemy):
        if dense:
            for k in range(1, len(g)):
                for r in itertools.combinations(sorted(g), k):
                    rs = set(r)
                    if (
                        connected(rs)
                        and len(components(g - rs)) >= 2
                        and any(connected(g - (rs - {x})) for x in rs)
                    ):
                        captures.append(frozenset(rs))
        else:
            for c1 in g:
                for d in range(len(DIRECTIONS)):
                    line: list[str | None] = [c1]
                    while line[-1] is not None and line[-1] in g:
                        cur = [c for c in line if c is not None]
                        rest = g - set(cur)
                        if len(components(rest)) >= 2:
                            captures.append(frozenset(cur))
                            break
                        if not rest:
                            break
                        line.append(step[(cur[-1], d)])
    empty = set(nbrs) - own - enemy
    out: set[tuple[str | None, frozenset[str], frozenset[str]]] = set()
    for p in empty:
        if touch(own, p) <= 1:
            out.add((p, frozenset(), frozenset()))
            continue
        own2 = own | {p}
        groups = components(own2)
        for cap in set(captures):
            empty2 = (empty - {p}) | cap
            for s in itertools.combinations(sorted(empty2), len(cap)):
                if all(
                    sum(1 for g in groups if g & comp) <= 1 for comp in components(own2 | set(s))
                ):
                    out.add((p, cap, frozenset(s)))
    return out


def random_position(rng: random.Random, r: Rules, black: float, white: float) -> State:
    names = list(r.geo.by_name)
    b, w = [], []
    for n in names:
        x = rng.random()
        if x < black:
            b.append(n)
        elif x < black + white:
            w.append(n)
    return r.position(black=b, white=w, to_move=rng.choice(["black", "white"]))


@pytest.mark.parametrize("variant", ["standard", "dense"])
def test_moves_match_a_brute_force_reading(variant: str) -> None:
    r = rules(variant=variant)
    rng = random.Random(2026)
    checked = 0
    while checked < 6:
        s = random_position(rng, r, 0.45, 0.38)
        white, black = stones(r, s, "white"), stones(r, s, "black")
        own, enemy = (black, white) if s.colour == BLACK else (white, black)
        if variant == "dense" and max((g.bit_count() for g in _groups(r, enemy)), default=0) > 7:
            continue
        expected = brute_moves(5, variant == "dense", own, enemy)
        got = [identity(m) for m in r.legal_moves(s)]
        assert len(got) == len(set(got))
        assert set(got) == expected
        assert r.count_moves(s) == len(expected)
        assert (r.to_move(s) is None) == (not expected)
        if any(cap for _, cap, _ in expected):
            checked += 1


def _groups(r: Rules, cells: set[str]) -> list[int]:
    return r.geo.components(sum(1 << r.geo.parse(c) for c in cells))


def walk_step_tree(r: Rules, s: State) -> set[str]:
    reached: set[str] = set()
    stack: list[tuple[str, ...]] = [()]
    while stack:
        prefix = stack.pop()
        steps = r.steps(s, prefix)
        if steps.move is not None:
            reached.add(steps.move)
        stack.extend((*prefix, t) for t in steps.next)
    return reached


def test_step_tree_is_exactly_the_legal_moves_standard() -> None:
    r = rules()
    rng = random.Random(99)
    walked = 0
    while walked < 3:
        s = random_position(rng, r, 0.48, 0.42)
        if r.to_move(s) is None:
            continue
        moves = list(itertools.islice(r.legal_moves(s), 3001))
        if len(moves) > 3000 or not any(m.capture for m in moves):
            continue
        walked += 1
        assert walk_step_tree(r, s) == {r.format_move(s, m) for m in moves}


def test_step_tree_is_exactly_the_legal_moves_dense() -> None:
    # the tree branches on every legal order, so a nearly full board keeps it small
    r = rules(variant="dense")
    white = ["a2", "b1", "d8", "e8", "f8", "c3", "d3", "d4", "e3", "f3"]
    empty = ("b2", "a3", "i5", "e4")
    black = [n for n in r.geo.by_name if n not in white and n not in empty]
    s = r.position(black=black, white=white)
    moves = list(r.legal_moves(s))
    assert len(moves) == 34 == r.count_moves(s)
    assert {identity(m) for m in moves} == brute_moves(5, True, set(black), set(white))
    assert walk_step_tree(r, s) == {r.format_move(s, m) for m in moves}


# --- saved records ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(DATA.glob("sgolte_*.json")), ids=lambda p: p.name)
def test_saved_records_replay(path: Path) -> None:
    record = json.loads(path.read_text())
    state = replay(record)
    r = rules(record["options"]["size"], record["options"]["variant"])
    outcome = r.outcome(state)
    assert outcome is not None and outcome.to_json() == record["result"]


# --- kept structures ------------------------------------------------------------------------------


@settings(max_examples=20, deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=10**6),
    size=st.sampled_from([5, 6, 7]),
    variant=st.sampled_from(["standard", "dense"]),
)
def test_kept_groups_equal_a_fresh_computation(seed: int, size: int, variant: str) -> None:
    """The groups and rims that a move's stones added (``grow``) or captured (``shrink``) update in
    place of recomputing them are, after every ply of random games on both paths, exactly those of
    a flood of the stones alone; so are the captures kept by group."""
    r = rules(size, variant)
    rng = random.Random(seed)
    geo = r.geo
    for fast in (True, False):
        state = r.initial_state()
        while r.to_move(state) is not None:
            if fast:
                state = r.search_apply(state, r.search_random_move(state, rng))
            else:
                state = r.apply(state, r.random_move(state, rng))
            for own, kept in list(geo._groups.items()):
                assert kept == _group_rims(geo._bb, own)
            for stones in state.stones:
                fresh = [g for g in geo.components(stones) if g.bit_count() >= 3]
                assert r.search.lines(stones) == tuple(
                    sorted(line for g in fresh for line in group_lines(geo, g))
                )


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(min_value=0, max_value=10**6), fill=st.floats(0.8, 1.0))
def test_the_quick_line_test_agrees_with_the_full_search(seed: int, fill: float) -> None:
    """The shortcut of the existence searches (enough cells touching at most one group; one
    stone needs one) decides every line of every merging placement as the full search does."""
    r = rules()
    rng = random.Random(seed)
    state = random_position(rng, r, fill * 0.55, fill * 0.45)
    srch, geo = r.search, r.geo
    own, enemy = state.stones[state.colour], state.stones[state.colour ^ 1]
    empty = geo.all & ~own & ~enemy
    for p in bits(merging_cells(geo, own, empty)):
        quiet, merging = srch._after_placement(own, enemy, p)
        for cells in srch.line_sets(enemy):
            quick = srch._line_feasible(own, enemy, p, cells, quiet, merging)
            assert quick == feasible(geo, own, enemy, p, cells)
