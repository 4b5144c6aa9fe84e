"""What the view's ``last_move`` says a move did on each cell (``effects``): exact roles and height
changes for a known move of every kind in every game, and, over random games of every game, that
every cell whose stack changed is named with the change of its height."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import Any

import pytest

import games
from games.bench import random_game
from games.positions import position
from games.view import ROLES, Effects, make_view


def effects_after(
    slug: str,
    options: Mapping[str, Any],
    stacks: Mapping[str, str],
    to_move: str,
    move: str,
    tiles: Mapping[str, str] | None = None,
) -> dict[str, tuple[list[str], int]]:
    """``move`` played on the described position: cell -> (roles, delta) of its view's effects."""
    rules = games.get(slug, **options)
    after = rules.play(position(rules, stacks, to_move, tiles), move)
    last = rules.view(after)["last_move"]
    assert last["text"] == move
    return {e["id"]: (e["roles"], e["delta"]) for e in last["effects"]}


# --- Jotun (shared/rules/jotun.md, section 8) ------------------------------------------------------


def test_jotun_placement() -> None:
    assert effects_after("jotun", {}, {"e5": "B"}, "white", "d4") == {"d4": (["placed"], 1)}


def test_jotun_e6_a_move_that_eats_two_stacks_and_feeds_one() -> None:
    got = effects_after(
        "jotun", {}, {"h2": "BB", "f5": "WW", "f6": "WW", "e4": "B"}, "black", "h2-f4"
    )
    assert got == {
        "e4": (["fed"], 1),
        "f4": (["destination"], 3),  # WBB: one white piece taken under the mover
        "f5": (["eaten"], -1),
        "f6": (["eaten"], -1),
        "g3": (["path"], 0),
        "h2": (["origin"], -2),
    }


def test_jotun_e7_a_stronger_stack_eats_from_the_mover_and_feeds_its_ally() -> None:
    got = effects_after(
        "jotun", {}, {"h2": "WB", "f5": "WW", "f6": "W", "e4": "B"}, "black", "h2-f4"
    )
    assert got == {
        "e4": (["fed"], 1),
        "f4": (["destination"], 1),  # only the white piece is left: the mover stops [A24]
        "f5": (["ate"], 1),  # BWW
        "f6": (["fed"], 1),  # fed by f5 as its ally [A21]
        "g3": (["path"], 0),
        "h2": (["origin"], -2),
    }


def test_jotun_stack_roles_read_every_way_a_stack_changes() -> None:
    from games.jotun.rules import stack_roles

    assert stack_roles("WW", "WWW") == ("fed",)
    assert stack_roles("WBB", "WB") == ("eaten",)
    assert stack_roles("B", "") == ("eaten",)
    assert stack_roles("WW", "BWW") == ("ate",)
    assert stack_roles("WW", "BWWW") == ("ate", "fed")
    assert stack_roles("BW", "BB") == ("eaten", "fed")
    assert stack_roles("B", "WW") == ("changed",)  # no move does this


# --- Valaturna (valaturna.md, section 8) -----------------------------------------------------------


def test_valaturna_example_6_flips_two_stacks() -> None:
    got = effects_after(
        "valaturna",
        {"size": 5},
        {"e3": "B", "c3": "B", "g4": "B", "c5": "B", "e4": "W", "d4": "W", "f4": "W"},
        "black",
        "e5",
    )
    assert got == {"d4": (["flipped"], 1), "e4": (["flipped"], 1), "e5": (["placed"], 1)}


def test_valaturna_setup_places_two_stacks_and_a_pass_does_nothing() -> None:
    rules = games.get("valaturna", size=5)
    state = rules.play(rules.initial_state(), "e3/e7")
    assert rules.view(state)["last_move"]["effects"] == [
        {"id": "e3", "roles": ["placed"], "delta": 1},
        {"id": "e7", "roles": ["placed"], "delta": 1},
    ]
    state = rules.play(rules.play(state, "white"), "pass")
    assert rules.view(state)["last_move"] == {"text": "pass", "cells": [], "effects": []}


# --- Harmijan (harmijan.md, section 8) -------------------------------------------------------------

EX2 = dict.fromkeys(("f3", "f4", "f5", "f6", "f7", "g3"), "B") | {"g6": "W"}


def test_harmijan_a_bite_captures_on_the_destination() -> None:
    got = effects_after("harmijan", {"size": 6}, EX2, "black", "g3xg6@g1")
    assert got == {
        "g1": (["placed"], 1),
        "g3": (["origin"], -1),
        "g6": (["destination", "captured"], 0),  # the white stone gone, a black one there
    }


def test_harmijan_the_new_stone_may_stand_on_the_origin() -> None:
    white = {"b2": "W", "b5": "W", "e5": "W", "e6": "W"}
    black = {"f7": "B", "g8": "B", "i8": "B", "j3": "B", "j7": "B"}
    got = effects_after("harmijan", {"size": 6}, white | black, "white", "e5-c5@e5")
    assert got == {
        "c5": (["destination"], 1),
        "e5": (["origin", "placed"], 0),  # [H17] the stone left and a new one came
    }


def test_harmijan_setup_places_four_stones() -> None:
    rules = games.get("harmijan", size=6)
    state = rules.play(rules.initial_state(), "f5,f6/c3,c4")
    got = {e["id"]: e["roles"] for e in rules.view(state)["last_move"]["effects"]}
    assert got == {"c3": ["placed"], "c4": ["placed"], "f5": ["placed"], "f6": ["placed"]}


# --- Sgolte (sgolte.md, section 8) -----------------------------------------------------------------


def test_sgolte_a_capture_re_placed_elsewhere() -> None:
    white = dict.fromkeys(("c2", "d3", "e3", "e4", "e5"), "W")
    got = effects_after("sgolte", {"size": 5}, {"c5": "B", "c7": "B", **white}, "black", "c6xd3:a1")
    assert got == {"a1": (["replaced"], 1), "c6": (["placed"], 1), "d3": (["captured"], -1)}


def test_sgolte_quiet_placement() -> None:
    got = effects_after("sgolte", {"size": 5}, {"c5": "B", "c7": "B"}, "black", "b4")
    assert got == {"b4": (["placed"], 1)}


# --- Exxit (exxit.md, section 11) ------------------------------------------------------------------


def test_exxit_a_dance_sows_past_its_target_and_drops_a_prisoner() -> None:
    tiles = {"0,0": "R", "1,0": "B", "2,0": "R"}
    got = effects_after("exxit", {}, {"0,0": "RRR", "1,0": "B"}, "red", "0,0>1,0", tiles)
    assert got == {
        "0,0": (["origin"], -3),
        "1,0": (["destination", "sown"], 1),
        "2,0": (["sown"], 1),
        "3,0": (["prisoner"], 1),
    }


def test_exxit_placement() -> None:
    rules = games.get("exxit")
    state = rules.play(rules.initial_state(), "0,0")
    assert rules.view(state)["last_move"]["effects"] == [
        {"id": "0,0", "roles": ["placed"], "delta": 1}
    ]


# --- every game ------------------------------------------------------------------------------------


def heights(view: Mapping[str, Any]) -> dict[str, int]:
    return {c["id"]: len(c["stack"]) for c in view["cells"]}


@pytest.mark.parametrize("slug", games.names())
def test_every_changed_cell_is_named_with_its_change_of_height(slug: str) -> None:
    rules = games.get(slug)
    for seed in range(3):
        states, _ = random_game(rules, random.Random(f"effects-{seed}"), max_plies=160)
        for before, after in itertools.pairwise(states):
            old, view = heights(rules.view(before)), rules.view(after)
            new = heights(view)
            effects = {e["id"]: e for e in view["last_move"]["effects"]}
            stacks_before = {c["id"]: c["stack"] for c in rules.view(before)["cells"]}
            changed = {
                c["id"] for c in view["cells"] if c["stack"] != stacks_before.get(c["id"], [])
            }
            assert changed <= set(effects), (view["last_move"]["text"], changed - set(effects))
            for cell, effect in effects.items():
                assert effect["delta"] == new[cell] - old.get(cell, 0), (cell, effect)
                assert effect["roles"] and "changed" not in effect["roles"], effect
                assert effect["roles"] == sorted(effect["roles"], key=ROLES.index)


def test_make_view_orders_effects_and_refuses_a_cell_it_has_not() -> None:
    cells = [{"id": i, "q": q, "r": 0, "stack": []} for q, i in enumerate(("a1", "a2", "a3"))]
    common: dict[str, Any] = {
        "game": "x",
        "kind": "hex",
        "side": 2,
        "cells": cells,
        "rows": [],
        "to_move": 1,
        "colours": (None, None),
        "phase": "play",
        "last_move": ("a3", ["a3", "a1"]),
    }
    rows = Effects().add("a3", "placed", +1).add("a1", "flipped", +1).rows()
    view = make_view(**common, effects=rows)
    assert [e["id"] for e in view["last_move"]["effects"]] == ["a1", "a3"]
    with pytest.raises(ValueError, match="no such cell"):
        make_view(**common, effects=[("z9", ["placed"], 1)])
    with pytest.raises(ValueError, match="unknown role"):
        make_view(**common, effects=[("a1", ["teleported"], 1)])
