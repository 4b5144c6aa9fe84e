"""Glicko-2 (app/domain/ratings.py), called directly: Glickman's worked example, the volatility
step against the paper's equation, and hundreds of games rated as the PyPI package ``glicko2``
rated them when the module wrapped it, with its one departure from the paper corrected."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from app.domain.ratings import CONVERGENCE, SCALE, Game, Glicko, _volatility, rate, rating_period

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


def _differences(column: str) -> list[tuple[int, list[list[float]], list[list[float]]]]:
    """Each reference case's ratings from ``rate`` now, beside the ones of ``column``."""
    rows = []
    for number, case in enumerate(REFERENCE["cases"]):
        after = rate(Glicko(*case["first"]), Glicko(*case["second"]), case["score"])
        rows.append((number, [[g.rating, g.deviation, g.volatility] for g in after], case[column]))
    return rows


def _largest(rows: list[tuple[int, list[list[float]], list[list[float]]]]) -> list[float]:
    """The largest difference of rating, of deviation and of volatility over ``rows``."""
    return [
        max(abs(mine[side][k] - theirs[side][k]) for _, mine, theirs in rows for side in (0, 1))
        for k in range(3)
    ]


def test_the_reference_cases() -> None:
    """Every case of the reference file, each side's rating, deviation and volatility within
    1e-9 of what ``rate`` answered when it wrapped the package, corrected to the paper."""
    rows = _differences("corrected")
    assert len(rows) > 400
    assert max(_largest(rows)) <= TOLERANCE


def test_following_the_paper_moved_ratings_by_a_thousandth_of_a_point() -> None:
    """Against the package as it was: in games between ordinary ratings (600 to 2800, RD 30 to 350,
    volatility 0.03 to 0.12) no rating moved by 0.001 or more (no deviation by 0.002, no
    volatility by 0.0001); at the extremes, no rating by 0.3."""
    rows = _differences("package")
    ordinary = [
        row
        for row in rows
        if all(
            600 <= r <= 2800 and 30 <= rd <= 350 and 0.03 <= vol <= 0.12
            for r, rd, vol in (REFERENCE["cases"][row[0]][side] for side in ("first", "second"))
        )
    ]
    assert len(ordinary) > 250
    rating, deviation, volatility = _largest(ordinary)
    assert rating < 0.001 and deviation < 0.002 and volatility < 0.0001
    assert _largest(rows)[0] < 0.3
    assert _largest(rows)[0] > 0.01  # the extremes did change: the two columns are not the same


def test_the_new_volatility_solves_the_papers_equation() -> None:
    """Step 5: A = ln(sigma'^2) is within the paper's epsilon of a root of its f, written out here
    as the paper prints it, for deviations, variances and improvements far apart."""

    def f(x: float, sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
        a = math.log(sigma**2)
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    tried = 0
    for sigma, phi, v, delta, tau in itertools.product(
        (0.001, 0.06, 0.5), (0.01, 1.15, 2.9), (0.5, 3.0, 1e4), (-30.0, -0.48, 0.0, 2.0), (0.3, 1.2)
    ):
        root = math.log(_volatility(sigma, phi, v, delta, tau) ** 2)
        below, above = (f(root + d, sigma, phi, v, delta, tau) for d in (-CONVERGENCE, CONVERGENCE))
        assert below >= 0 >= above, (sigma, phi, v, delta, tau, root)
        tried += 1
    assert tried == 216


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
