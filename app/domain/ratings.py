"""Glicko-2 ratings, one per account and game, updated after every rated game.

The arithmetic is Glicko-2 as Mark Glickman's "Example of the Glicko-2 system" (glicko.net) sets it
out, step by step, with its Illinois-algorithm iteration for the volatility; the comments number
the steps as the paper does. It is written here rather than taken from the PyPI package ``glicko2``
(which this module wrapped before) because that package also installs a top-level ``tests``
package, which shadows ours; and it follows the paper where the package did not (step 5's f
squares phi, the package squared mu), which moved ordinary ratings by under a thousandth of a
point (tests/app/test_glicko2.py). The site's policy:

- every game is a rating period of its own (as lichess rates), so a rating moves at once;
- a new player starts at 1500, deviation 350, volatility 0.06, with the system constant tau 0.5;
- a rating is *provisional* while its deviation is above :data:`PROVISIONAL_DEVIATION` (110, as on
  lichess): it has not been measured yet, and the leaderboards mark it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
PROVISIONAL_DEVIATION = 110.0
#: The system constant tau, which bounds how fast a volatility changes (the paper suggests 0.3 to 1.2).
TAU = 0.5
#: A rating and a deviation on the Glicko-2 scale: mu = (r - 1500) / SCALE, phi = RD / SCALE.
SCALE = 173.7178
#: The volatility iteration stops once its bracket is this narrow (the paper's epsilon).
CONVERGENCE = 0.000001


@dataclass(frozen=True)
class Glicko:
    """One player's rating in one game."""

    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY

    @property
    def provisional(self) -> bool:
        """Whether the rating is still too uncertain to rank."""
        return self.deviation > PROVISIONAL_DEVIATION


@dataclass(frozen=True)
class Game:
    """One game of a rating period, seen from the rated player: the opponent's rating before the
    period, and the player's score (1 a win, 0.5 a draw, 0 a loss)."""

    opponent: Glicko
    score: float


def rate(first: Glicko, second: Glicko, first_score: float) -> tuple[Glicko, Glicko]:
    """Both ratings after one game that ``first`` scored ``first_score`` in (1 a win, 0.5 a
    draw, 0 a loss), each computed from the other's rating before the game.

    >>> a, b = rate(Glicko(), Glicko(), 1.0)
    >>> round(a.rating), round(b.rating), round(a.deviation)
    (1662, 1338, 290)
    """
    if first_score not in (0.0, 0.5, 1.0):
        raise ValueError(f"a score is 0, 0.5 or 1, not {first_score!r}")
    return (
        rating_period(first, [Game(second, first_score)]),
        rating_period(second, [Game(first, 1.0 - first_score)]),
    )


def rating_period(player: Glicko, games: Sequence[Game], tau: float = TAU) -> Glicko:
    """The player's rating after a rating period in which it played ``games`` (at least one)."""
    if not games:
        raise ValueError("a rating period needs at least one game")
    # Step 2: the Glicko-2 scale.
    mu = (player.rating - 1500) / SCALE
    phi = player.deviation / SCALE
    # Each game's weight g(phi_j), expected score E and actual score.
    weighed = []
    for game in games:
        g = _g(game.opponent.deviation / SCALE)
        mu_j = (game.opponent.rating - 1500) / SCALE
        weighed.append((g, 1 / (1 + math.exp(-g * (mu - mu_j))), game.score))
    # Step 3: v, the variance of the rating estimated from the games alone; step 4: delta, the
    # improvement they suggest (``improvement`` is delta / v, which step 7 uses again).
    v = 1 / math.fsum(g**2 * expected * (1 - expected) for g, expected, _ in weighed)
    improvement = math.fsum(g * (score - expected) for g, expected, score in weighed)
    delta = v * improvement
    # Step 5: the new volatility.
    sigma = _volatility(player.volatility, phi, v, delta, tau)
    # Step 6: the deviation grows with the volatility before the period's games shrink it (step 7),
    # and the rating moves.
    phi_star = math.sqrt(phi**2 + sigma**2)
    phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    mu += phi**2 * improvement
    # Step 8: back to the Glicko scale.
    return Glicko(mu * SCALE + 1500, phi * SCALE, sigma)


def _g(phi: float) -> float:
    """How much a game against an opponent of deviation ``phi`` counts (1 for a known rating)."""
    return 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, exp(A / 2) where A is the root of ``f`` found by the Illinois
    algorithm (regula falsi that halves the stale end's value)."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        # phi squared, as in the paper: the glicko2 package squared mu (the rating) here.
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    # 5.2: a bracket [A, B] of the root.
    A = a
    if delta**2 > phi**2 + v:
        B = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        B = a - k * tau
    # 5.3 and 5.4: narrow it.
    f_A, f_B = f(A), f(B)
    while abs(B - A) > CONVERGENCE:
        C = A + (A - B) * f_A / (f_B - f_A)
        f_C = f(C)
        if f_C * f_B <= 0:
            A, f_A = B, f_B
        else:
            f_A /= 2
        B, f_B = C, f_C
    # 5.5
    return math.exp(A / 2)
