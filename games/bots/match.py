"""Bots against each other: the measurement behind "Hard > Medium > Easy > Beginner".

A match plays ``games`` games between levels A and B, A taking seat 1 in the even-numbered games
and seat 2 in the odd ones, each game seeded by its own key so that no two games repeat. A
resignation ends a game as a loss for the resigner; a game still running after ``max_plies`` is
scored by the evaluator's sign (counted apart as ``adjudicated``). The win rate counts a draw as
half a win, with a 95 % Wilson score interval (:func:`wilson`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..base import Rules
from .bot import decide
from .evaluate import evaluator


@dataclass
class Tally:
    """Results of A against B so far."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    adjudicated: int = 0
    resigned: int = 0
    plies: list[int] = field(default_factory=list)

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        """A's points: a win 1, a draw half."""
        return self.wins + self.draws / 2

    def line(self, a: str, b: str) -> str:
        """A one-line summary with the win rate and its 95 % Wilson interval."""
        low, high = wilson(self.score, self.games)
        rate = self.score / self.games if self.games else 0.0
        mean_plies = sum(self.plies) / len(self.plies) if self.plies else 0.0
        return (
            f"{a} vs {b}: {self.games} games, +{self.wins} -{self.losses} ={self.draws}; "
            f"{a} scores {rate:.1%} (95% CI {low:.1%}-{high:.1%}); "
            f"{self.resigned} resigned, {self.adjudicated} adjudicated, "
            f"mean {mean_plies:.0f} plies"
        )


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` out of ``n`` (95 % for the default ``z``).

    >>> [round(x, 3) for x in wilson(8, 10)]
    [0.49, 0.943]
    >>> wilson(0, 0)
    (0.0, 1.0)
    """
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def play_game(
    rules: Rules[Any, Any], seat_levels: tuple[str, str], key: str, max_plies: int
) -> tuple[int | None, str, int]:
    """One game between the levels on seats 1 and 2: (winning seat or None, how it ended, plies)."""
    state = rules.initial_state()
    plies = 0
    while (seat := rules.to_move(state)) is not None:
        if plies >= max_plies:
            value = evaluator(rules.slug)(rules, state)
            return (None if value == 0 else 1 if value > 0 else 2), "adjudicated", plies
        decision = decide(rules, state, seat_levels[seat - 1], key)
        if decision.resign:
            return 3 - seat, "resigned", plies
        state = rules.apply(state, decision.move)
        plies += 1
    outcome = rules.outcome(state)
    assert outcome is not None
    return outcome.winner, outcome.reason, plies


def run_match(
    rules: Rules[Any, Any],
    a: str,
    b: str,
    games: int,
    *,
    key: str = "match",
    max_plies: int = 1000,
    report: Callable[[int, str], None] | None = None,
) -> Tally:
    """``games`` games of level ``a`` against level ``b``, seats alternating; ``report`` is called
    after each game with its index and a line describing it."""
    tally = Tally()
    for i in range(games):
        a_seat = 1 if i % 2 == 0 else 2
        seats = (a, b) if a_seat == 1 else (b, a)
        winner, how, plies = play_game(rules, seats, f"{key}-{i}", max_plies)
        tally.plies.append(plies)
        if winner is None:
            tally.draws += 1
        elif winner == a_seat:
            tally.wins += 1
        else:
            tally.losses += 1
        tally.adjudicated += how == "adjudicated"
        tally.resigned += how == "resigned"
        if report is not None:
            who = "draw" if winner is None else (a if winner == a_seat else b)
            report(i, f"game {i + 1}: {a} on seat {a_seat}; {who} ({how}, {plies} plies)")
    return tally
