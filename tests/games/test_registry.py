"""The registry: all five games are registered, so the parametrised suites cover every one."""

from __future__ import annotations

import pytest

import games
from games.base import GameInfo, Rules


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
