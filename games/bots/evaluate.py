"""Static evaluators: how good a position looks for seat 1, from the game's own scoring.

An evaluator maps a live position to a value in ``[-CAP, CAP]`` for seat 1 (``-1`` and ``1`` are kept
for finished games, :func:`terminal_value`). Each reads only what a game's state and its public
scoring helpers expose:

* Jotun: territory, the score of the spec's §6 (``games.jotun.state.scores``);
* Valaturna: stack heights, each colour's sum of ``4 ** height`` (the final comparison is
  lexicographic on heights, tallest first, so a taller stack must outweigh many shorter ones);
* Harmijan: the repeated-shape classes of §6 (``Rules.classes``), a class weighted by ``2 ** size``
  since the largest shape is compared first, plus a little for stones on the board;
* Sgolte: mobility, the empty cells where a colour can place quietly (touching at most one of its
  groups), the count that runs out for the player who loses;
* Exxit: the score of §8 (tiles plus the largest island, ``games.exxit.score``).

In the pie games the colour is only known after seat 2's choice. Before it, seat 2 will take the
better colour, so a position in the ``choose`` phase is worth ``-|v|`` to seat 1, where ``v`` is the
value of the board for Black; the setup phase itself is worth 0 (seat 1's setup is judged by the
search, through the choice that follows).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import exxit as exxit_game
from ..base import Rules
from ..jotun.state import geo_of, scores
from ..pie import CHOOSE, PLAY
from ..seats import BLACK, LETTERS, WHITE
from ..sgolte.geometry import merging_cells

#: The largest value a heuristic gives: a finished game's 1 always beats it.
CAP = 0.9

#: An evaluator: rules and a live position -> value for seat 1 in [-CAP, CAP].
Evaluator = Callable[[Rules[Any, Any], Any], float]


def terminal_value(rules: Rules[Any, Any], state: Any) -> float:
    """1 if seat 1 has won the finished ``state``, -1 if seat 2 has, 0 for a draw."""
    outcome = rules.outcome(state)
    if outcome is None or outcome.winner is None:
        return 0.0
    return 1.0 if outcome.winner == 1 else -1.0


def squash(x: float) -> float:
    """``x`` squashed into ``(-CAP, CAP)``."""
    return CAP * math.tanh(x)


def ratio(a: float, b: float) -> float:
    """``(a - b) / (a + b)`` into ``[-CAP, CAP]``; 0 when both are 0."""
    total = a + b
    return 0.0 if total <= 0 else CAP * (a - b) / total


def _for_seat_1(state: Any, black_value: float) -> float:
    """The value for seat 1 of a value for Black, by the pie's phase and ``black_seat``."""
    phase = getattr(state, "phase", PLAY)
    if phase == PLAY:
        return black_value if state.black_seat == 1 else -black_value
    if phase == CHOOSE:
        return -abs(black_value)  # seat 2 takes the better colour
    return 0.0


def neutral(rules: Rules[Any, Any], state: Any) -> float:
    """The evaluator that knows nothing: every live position is even (playouts decide)."""
    return 0.0


def exxit(rules: Rules[Any, Any], state: Any) -> float:
    """Red's score of §8 (tiles plus largest island) against Black's; Red is seat 1."""
    red = exxit_game.score(state, exxit_game.RED)
    black = exxit_game.score(state, exxit_game.BLACK)
    return squash((red - black) / 6)


def valaturna(rules: Rules[Any, Any], state: Any) -> float:
    """Each colour's sum of ``4 ** height`` over its stacks, compared as a ratio."""
    weight = [0, 0]
    b, w = LETTERS[BLACK], LETTERS[WHITE]
    for stack in state.stacks:
        if stack:
            top = stack[-1]
            if top == b:
                weight[BLACK] += 4 ** len(stack)
            elif top == w:
                weight[WHITE] += 4 ** len(stack)
    return _for_seat_1(state, ratio(weight[BLACK], weight[WHITE]))


def harmijan(rules: Rules[Any, Any], state: Any) -> float:
    """Each colour's shape classes weighted by ``2 ** size``, plus its stones, as a ratio."""
    weight = []
    for colour in (BLACK, WHITE):
        stones = state.stones[colour]
        classes = rules.classes(stones)  # type: ignore[attr-defined]
        weight.append(sum(k.value * 2**k.size for k in classes) + stones.bit_count())
    return _for_seat_1(state, ratio(weight[BLACK], weight[WHITE]))


def sgolte(rules: Rules[Any, Any], state: Any) -> float:
    """Quiet placements left to each colour (empty cells touching at most one of its groups)."""
    geo = rules.geo  # type: ignore[attr-defined]
    b, w = state.stones
    empty = geo.all & ~b & ~w
    quiet_b = (empty & ~merging_cells(geo, b, empty)).bit_count()
    quiet_w = (empty & ~merging_cells(geo, w, empty)).bit_count()
    return _for_seat_1(state, squash((quiet_b - quiet_w) / 6))


def jotun(rules: Rules[Any, Any], state: Any) -> float:
    """Territory of §6: own stacks plus the empty cells the other colour may not place on."""
    black, white = scores(geo_of(state.size), state.board)
    return _for_seat_1(state, squash((black - white) / 6))


#: The evaluator of each game, by slug.
EVALUATORS: dict[str, Evaluator] = {
    "exxit": exxit,
    "harmijan": harmijan,
    "jotun": jotun,
    "sgolte": sgolte,
    "valaturna": valaturna,
}


def evaluator(slug: str) -> Evaluator:
    """The evaluator of game ``slug`` (:func:`neutral` for a game without one)."""
    return EVALUATORS.get(slug, neutral)
