"""Glicko-2 ratings, one per account and game, updated after every rated game.

The arithmetic is the ``glicko2`` package's (PyPI ``glicko2``, a direct transcription of Mark
Glickman's "Example of the Glicko-2 system", pure Python, no dependencies). It was chosen over
``openskill`` because the issue asks for Glicko-2 and openskill implements Weng-Lin, another
system; and over writing it here because the volatility iteration (Illinois algorithm) is easy to
get subtly wrong. This module only wraps it: typed values in and out, and the site's policy:

- every game is a rating period of its own (as lichess rates), so a rating moves at once;
- a new player starts at 1500, deviation 350, volatility 0.06, with the system constant tau 0.5;
- a rating is *provisional* while its deviation is above :data:`PROVISIONAL_DEVIATION` (110, as on
  lichess): it has not been measured yet, and the leaderboards mark it.
"""

from __future__ import annotations

from dataclasses import dataclass

import glicko2

START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
PROVISIONAL_DEVIATION = 110.0


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


def _updated(player: Glicko, opponent: Glicko, score: float) -> Glicko:
    model = glicko2.Player(rating=player.rating, rd=player.deviation, vol=player.volatility)
    model.update_player([opponent.rating], [opponent.deviation], [score])
    return Glicko(float(model.rating), float(model.rd), float(model.vol))


def rate(first: Glicko, second: Glicko, first_score: float) -> tuple[Glicko, Glicko]:
    """Both ratings after one game that ``first`` scored ``first_score`` in (1 a win, 0.5 a
    draw, 0 a loss), each computed from the other's rating before the game.

    >>> a, b = rate(Glicko(), Glicko(), 1.0)
    >>> round(a.rating), round(b.rating), round(a.deviation)
    (1662, 1338, 290)
    """
    if first_score not in (0.0, 0.5, 1.0):
        raise ValueError(f"a score is 0, 0.5 or 1, not {first_score!r}")
    return _updated(first, second, first_score), _updated(second, first, 1.0 - first_score)
