"""The explorer's position keys (``games.symmetry``, each game's ``position_key``): the same for every
image of a position under the symmetries its game declares, different for positions that differ.

Random reachable positions come from random games (hypothesis draws the seed and the length);
each image is built directly from the state's fields, and a declared symmetry is checked to commute
with the rules too: a move's image, played on the position's image, reaches the image of the
move's result.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.base import Rules
from games.symmetry import ALL, IDENTITY, Transform, permutation, transform

FOLDED = ("harmijan", "sgolte", "valaturna")


def _walk(rules: Rules[Any, Any], seed: int, plies: int) -> Any:
    """The position after up to ``plies`` random moves from the start."""
    rng = random.Random(seed)
    state = rules.initial_state()
    for _ in range(plies):
        if rules.to_move(state) is None:
            break
        state = rules.apply(state, rules.random_move(state, rng))
    return state


def _permute_bits(bits: int, perm: tuple[int, ...]) -> int:
    return sum(1 << i for i, j in enumerate(perm) if bits >> j & 1)


def _image(slug: str, rules: Rules[Any, Any], state: Any, t: Transform) -> Any:
    """The image of ``state`` under ``t``, built from its fields (display fields dropped)."""
    size = rules.options["size"]
    assert isinstance(size, int)
    perm = permutation(size, t)
    if slug == "valaturna":
        stacks = tuple(state.stacks[j] for j in perm)
        return dataclasses.replace(state, stacks=stacks, tops=None, last_cells=())
    stones = tuple(_permute_bits(bits, perm) for bits in state.stones)
    if slug == "harmijan":
        return dataclasses.replace(state, stones=stones, history=(), last_cells=())
    return dataclasses.replace(state, stones=stones, last_cells=())


def test_declared_symmetries() -> None:
    """Jotun and Exxit rank the directions in a rule (A22, the liberation chain): no fold."""
    assert games.rules_class("jotun").symmetries == IDENTITY
    assert games.rules_class("exxit").symmetries == IDENTITY
    for slug in FOLDED:
        assert games.rules_class(slug).symmetries == ALL


def test_twelve_distinct_transforms() -> None:
    images = {tuple(transform(c, t) for c in [(1, 0), (2, -1)]) for t in ALL}
    assert len(images) == 12
    for t in ALL:
        assert sorted(permutation(5, t)) == list(range(61))


@pytest.mark.parametrize("slug", FOLDED)
@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 24), t=st.sampled_from(ALL[1:]))
def test_key_invariant_and_rules_commute(slug: str, seed: int, plies: int, t: Transform) -> None:
    opts = games.rules_class(slug).option_sets()[0]
    rules = games.get(slug, opts)
    state = _walk(rules, seed, plies)
    image = _image(slug, rules, state, t)
    assert rules.position_key(image) == rules.position_key(state)
    if rules.to_move(state) is None:
        return
    rng = random.Random(seed)
    for _ in range(3):
        move = rules.random_move(state, rng)
        text = rules.format_move(state, move)
        child = rules.apply(state, move)
        mirrored = rules.play(image, rules.move_image(text, t))
        assert rules.position_key(mirrored) == rules.position_key(child), (text, t)


@pytest.mark.parametrize("slug", games.names())
@settings(max_examples=20, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 24))
def test_positions_that_differ_have_different_keys(slug: str, seed: int, plies: int) -> None:
    """Each position of a random game has a key of its own (no position repeats within 24 plies of
    these games but by passes, which change the passes counted), and the key is a short text."""
    opts = games.rules_class(slug).option_sets()[0]
    rules = games.get(slug, opts)
    rng = random.Random(seed)
    state = rules.initial_state()
    seen: dict[str, Any] = {rules.position_key(state): rules.key(state)}
    for _ in range(plies):
        if rules.to_move(state) is None:
            break
        state = rules.apply(state, rules.random_move(state, rng))
        key = rules.position_key(state)
        assert len(key) == 16 and key.isascii()
        if key in seen:  # only a symmetric image (or the very position) may share it
            assert slug in FOLDED or seen[key] == rules.key(state)
        seen[key] = rules.key(state)


@pytest.mark.parametrize("slug", FOLDED)
def test_side_to_move_and_single_stones_count(slug: str) -> None:
    """The same stones with the other colour to move, or one stone fewer, is another key."""
    opts = games.rules_class(slug).option_sets()[0]
    rules = games.get(slug, opts)
    state = _walk(rules, 7, 12)
    assert state.phase == "play"
    other = dataclasses.replace(state, colour=1 - state.colour)
    assert rules.position_key(other) != rules.position_key(state)
    if slug == "valaturna":
        i = next(i for i, s in enumerate(state.stacks) if s)
        stacks = (*state.stacks[:i], "", *state.stacks[i + 1 :])
        fewer = dataclasses.replace(state, stacks=stacks, tops=None)
    else:
        black = state.stones[0]
        fewer = dataclasses.replace(state, stones=(black & (black - 1), state.stones[1]))
    assert rules.position_key(fewer) != rules.position_key(state)


def test_a_mirrored_opening_merges() -> None:
    """Valaturna's setups e3/e7 and e7/e3 are each other's half turn; e3/e6 is neither."""
    rules = games.get("valaturna", {"size": 5})
    start = rules.initial_state()
    a, b, c = (rules.play(start, text) for text in ("e3/e7", "e7/e3", "e3/e6"))
    assert rules.position_key(a) == rules.position_key(b) != rules.position_key(c)
    # and in Jotun, which folds nothing, a mirrored first stone is another position
    jotun = games.get("jotun", {"size": 5})
    first = jotun.initial_state()
    assert jotun.position_key(jotun.play(first, "e3")) != jotun.position_key(
        jotun.play(first, "e7")
    )


@pytest.mark.parametrize("slug", ["harmijan", "jotun", "sgolte", "valaturna"])
def test_the_pie_choice_is_part_of_the_position(slug: str) -> None:
    """After the setup, ``black`` and ``white`` leave the same stones with the same colour to move,
    but another seat moves: two positions (the explorer shows the swap as two continuations)."""
    rules = games.get(slug, games.rules_class(slug).option_sets()[0])
    start = rules.initial_state()
    setup = rules.apply(start, next(iter(rules.legal_moves(start))))
    took, left = rules.play(setup, "black"), rules.play(setup, "white")
    assert rules.to_move(took) != rules.to_move(left)
    assert rules.position_key(took) != rules.position_key(left)


def test_move_image_keeps_words() -> None:
    rules = games.get("sgolte", {"size": 5, "variant": "standard"})
    assert rules.move_image("white", (2, True)) == "white"
    assert rules.move_image("e5", (2, True)) == "e5"
    with pytest.raises(NotImplementedError):
        games.get("jotun").move_image("e5", (1, False))
    assert games.get("jotun").move_image("e5", IDENTITY[0]) == "e5"


@pytest.mark.parametrize(
    ("slug", "opts"),
    [(slug, opts) for slug in games.names() for opts in games.rules_class(slug).option_sets()],
)
def test_every_option_set_keys_its_positions(slug: str, opts: dict[str, Any]) -> None:
    """Every game and option set: a 16-character key, the same from a second Rules of the same
    options (nothing kept between calls decides it)."""
    rules, again = games.get(slug, opts), games.get(slug, opts)
    state = _walk(rules, 28, 6)
    key = rules.position_key(state)
    assert len(key) == 16 and key == again.position_key(state)
    assert rules.position_key(rules.initial_state()) == again.position_key(again.initial_state())
