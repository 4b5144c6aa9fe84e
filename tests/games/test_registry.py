"""The registry: all five games are registered, so the parametrised suites cover every one."""

from __future__ import annotations

import random

import pytest

import games
from games.base import GameInfo, Rules
from games.bench import random_game
from games.errors import IllegalMoveError, InvalidMoveError


def test_the_five_games_are_registered() -> None:
    assert games.names() == ["exxit", "harmijan", "jotun", "sgolte", "valaturna"]
    assert [i.slug for i in games.infos()] == ["jotun", "valaturna", "harmijan", "sgolte", "exxit"]


@pytest.mark.parametrize("info", games.infos(), ids=lambda i: i.slug)
def test_each_info_describes_its_rules(info: GameInfo) -> None:
    assert issubclass(info.rules, Rules)
    assert info.rules.slug == info.slug
    assert info.title and info.summary
    assert info.options == info.rules.OPTIONS
    assert games.rules_class(info.slug) is info.rules
    assert info.notation, "every game shows examples of its notation"


def test_an_unknown_game_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        games.info("chess")
    with pytest.raises(ValueError, match="unknown game"):
        games.get("chess")


@pytest.mark.parametrize("info", games.infos(), ids=lambda i: i.slug)
def test_every_notation_example_is_a_move(info: GameInfo) -> None:
    """Each example of a game's notation reads as a move (never InvalidMoveError) in every sampled
    position of seeded random games, the pie's phases included; where it is legal, it is written
    exactly as the rules print it."""
    rules = games.get(info.slug)
    rng = random.Random(13)
    positions = []
    for seed in range(3):
        states, _ = random_game(rules, random.Random(seed), max_plies=120)
        live = [s for s in states if rules.to_move(s) is not None]
        positions += live[:3] + rng.sample(live, min(15, len(live)))  # the opening, then any
    for text in info.notation:
        for state in positions:
            try:
                move = rules.parse_move(state, text)
            except IllegalMoveError:
                continue
            except InvalidMoveError as exc:
                pytest.fail(f"{info.slug}: the example {text!r} is no move: {exc}")
            assert rules.format_move(state, move) == text, "an example is in canonical form"
