"""Glicko-2 (app/domain/ratings.py), called directly: Glickman's worked example, and hundreds of
games rated as the PyPI package ``glicko2`` rated them when the module wrapped it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.domain.ratings import SCALE, Game, Glicko, rate, rating_period

#: Made with the package before it was removed; the file's "note" says how.
REFERENCE: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "glicko2_reference.json").read_text()
)
TOLERANCE = 1e-9


def test_glickmans_worked_example() -> None:
    """The example of Glickman's paper: a player rated 1500 (RD 200, volatility 0.06) beats a
    1400 (RD 30) and loses to a 1550 (RD 100) and a 1700 (RD 300) in one rating period, tau 0.5."""
    player = Glicko(1500, 200, 0.06)
    games = [
        Game(Glicko(1400, 30), 1.0),
        Game(Glicko(1550, 100), 0.0),
        Game(Glicko(1700, 300), 0.0),
    ]
    after = rating_period(player, games, tau=0.5)
    # The paper rounds as it goes: mu' = -0.2069 and phi' = 0.8722 on the Glicko-2 scale, whence
    # its r' = 1464.06 and RD' = 151.52 (unrounded, r' is 1464.0507), and sigma' = 0.05999.
    assert round((after.rating - 1500) / SCALE, 4) == -0.2069
    assert round(after.deviation / SCALE, 4) == 0.8722
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(after.deviation, 2) == 151.52
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_the_reference_cases() -> None:
    """Every case of the reference file, each side's rating, deviation and volatility within
    1e-9 of what ``rate`` answered when it wrapped the package."""
    cases = REFERENCE["cases"]
    assert len(cases) > 400
    wrong = []
    for number, case in enumerate(cases):
        after = rate(Glicko(*case["first"]), Glicko(*case["second"]), case["score"])
        got = [[g.rating, g.deviation, g.volatility] for g in after]
        expected = case["package"]
        if any(
            abs(x - y) > TOLERANCE
            for mine, theirs in zip(got, expected, strict=True)
            for x, y in zip(mine, theirs, strict=True)
        ):
            wrong.append((number, case, got))
    assert not wrong, f"{len(wrong)} cases differ, the first: {wrong[0]}"


def test_the_reference_cases_reach_the_extremes() -> None:
    """The file covers new players, draws, and ratings, deviations and volatilities far from the
    usual ones, so the cases above test the iteration where it is least comfortable."""
    cases = REFERENCE["cases"]
    players = [case[side] for case in cases for side in ("first", "second")]
    assert {case["score"] for case in cases} == {0.0, 0.5, 1.0}
    assert [1500.0, 350.0, 0.06] in players
    assert min(p[0] for p in players) == 0 and max(p[0] for p in players) == 4000
    assert min(p[1] for p in players) == 1 and max(p[1] for p in players) == 500
    assert min(p[2] for p in players) == 0.001 and max(p[2] for p in players) == 0.5


def test_two_new_players_who_draw_keep_1500_and_gain_certainty() -> None:
    first, second = rate(Glicko(), Glicko(), 0.5)
    assert first == second
    assert first.rating == pytest.approx(1500, abs=1e-9)
    assert first.deviation < 350 and first.provisional


def test_scores_and_periods_that_are_not_games_are_refused() -> None:
    with pytest.raises(ValueError, match=r"not 0\.7"):
        rate(Glicko(), Glicko(), 0.7)
    with pytest.raises(ValueError, match="at least one game"):
        rating_period(Glicko(), [])
