"""``decide``: the computer opponent's move in a position, at a level, reproducibly.

The random generator is seeded from the game's slug, a caller's ``seed_key`` (a game id), the ply
and the level, so the same position at the same level in the same game gets the same move, and a
replayed or re-asked move never changes.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from typing import Any

from ..base import Rules
from .evaluate import evaluator
from .levels import GREEDY, RESIGN_FROM_PLY, Level, level_of
from .mcts import Child, Search, moves_of, order_by_value

#: The near-best moves a temperature samples among: mean value within this of the best's ...
NEAR_BEST_VALUE = 0.1
#: ... and at least this share of the best's visits.
NEAR_BEST_VISITS = 0.2
#: A resignation needs the best move to have had at least this many visits (MCTS levels).
RESIGN_MIN_VISITS = 20


@dataclass(frozen=True)
class Decision:
    """A bot's decision: the move, its canonical text, whether to resign instead, the value of the
    position for the bot (in ``[-1, 1]``, from the search) and the simulations it made."""

    move: Any
    text: str
    resign: bool
    value: float
    nodes: int


def seeded_rng(slug: str, seed_key: str, ply: int, level: str) -> random.Random:
    """The generator of one decision: a hash of the game, the key, the ply and the level."""
    digest = hashlib.sha256(f"{slug}\x1f{seed_key}\x1f{ply}\x1f{level}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def decide(
    rules: Rules[Any, Any],
    state: Any,
    level: str,
    seed_key: str,
    deadline: float | None = None,
) -> Decision:
    """The move of the bot of ``level`` (``beginner``, ``easy``, ``medium``, ``hard``) in
    ``state``, seeded by ``seed_key`` (the game's id); ``deadline`` (``time.monotonic`` seconds)
    only stops a search early as a safety net. ValueError if the game is over or the level unknown.
    """
    seat = rules.to_move(state)
    if seat is None:
        raise ValueError("the game is over: there is no move to decide")
    spec = level_of(rules.slug, level)
    ply = int(getattr(state, "ply", 0))
    rng = seeded_rng(rules.slug, seed_key, ply, spec.name)
    evaluate = evaluator(rules.slug)
    moves = list(dict.fromkeys(moves_of(rules, state, spec.budget, rng)))
    children = order_by_value(rules, state, moves, evaluate)
    nodes = len(children)
    if children[0].prior >= 1.0 or len(children) == 1:  # a win in one, or a forced move
        chosen, value, visits = children[0], children[0].prior, RESIGN_MIN_VISITS
    elif spec.algorithm == GREEDY:
        chosen = _softmax_pick(children, [c.prior for c in children], spec.temperature, rng)
        value, visits = children[0].prior, RESIGN_MIN_VISITS
    else:
        children, made = Search(rules, spec.budget, evaluate, rng).run(state, children, deadline)
        nodes = made
        best = max(children, key=lambda c: (c.visits, c.mean))
        value, visits = best.mean, best.visits
        chosen = best
        if ply < spec.temperature_plies and spec.temperature > 0:
            chosen = _near_best(children, best, spec, rng)
    resign = (
        spec.resign_below is not None
        and ply >= RESIGN_FROM_PLY
        and visits >= RESIGN_MIN_VISITS
        and value <= spec.resign_below
    )
    return Decision(
        move=chosen.move,
        text=rules.format_move(state, chosen.move),
        resign=resign,
        value=value,
        nodes=nodes,
    )


def _near_best(children: list[Child], best: Child, spec: Level, rng: random.Random) -> Child:
    """A move sampled among those close to ``best`` in value and visits, by visits ** (1/T)."""
    near = [
        c
        for c in children
        if c.visits >= NEAR_BEST_VISITS * best.visits and c.mean >= best.mean - NEAR_BEST_VALUE
    ]
    weights = [math.log(c.visits) for c in near]  # sampled on a log scale, below
    return _softmax_pick(near, weights, spec.temperature, rng)


def _softmax_pick(
    children: list[Child], scores: list[float], temperature: float, rng: random.Random
) -> Child:
    """A child drawn with probability proportional to ``exp(score / temperature)``."""
    if len(children) == 1 or temperature <= 0:
        return children[max(range(len(children)), key=scores.__getitem__)]
    top = max(scores)
    weights = [math.exp((s - top) / temperature) for s in scores]
    return rng.choices(children, weights=weights)[0]
