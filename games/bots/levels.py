"""The four levels of every game, as data: algorithm, budget, temperature and resignation.

A level is defined by what it computes, never by time, so it plays the same on any machine:

* **Beginner** looks one ply ahead with the game's evaluator and samples its move from a softmax
  of those values at a high temperature for the whole game: it takes a win in one and mostly plays
  sensible moves, but often not the best one and never looks at the answer.
* **Easy**, **Medium** and **Hard** run UCT (:mod:`games.bots.mcts`) with growing numbers of
  simulations; early in the game (``temperature_plies``) they sample among the near-best moves
  with their temperature, then play the most visited move.

Budgets per game follow the speed of its fast path (``python -m games bench``, 2-core machine,
November 2026): Exxit and Valaturna are fast, Harmijan and Sgolte a few times slower, Jotun
slowest by far, so its playouts are cut off after one ply and its levels use fewer simulations.
Hard is sized to take a few seconds a move on one core of that machine: measured on one position
early, one in the middle and one late of a random game at default options, 0.7 to 2.4 s of CPU a
move in Exxit, Valaturna, Harmijan and Sgolte, and 0.2 to 7 s in Jotun (its crowded middle game is
the slowest; the app's ``deadline`` is the safety net there).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .mcts import Budget

BEGINNER, EASY, MEDIUM, HARD = "beginner", "easy", "medium", "hard"
#: The levels, weakest first.
LEVEL_NAMES: tuple[str, ...] = (BEGINNER, EASY, MEDIUM, HARD)

GREEDY, MCTS = "greedy", "mcts"


@dataclass(frozen=True)
class Level:
    """How one level of one game plays."""

    name: str
    #: ``greedy`` (one-ply look, softmax) or ``mcts`` (UCT)
    algorithm: str
    budget: Budget
    #: softmax temperature (greedy: over values; mcts: over visit counts of the near-best moves)
    temperature: float
    #: the temperature applies before this ply of the game; after it the best move is played
    temperature_plies: int
    #: resign when the search's value of the best move, for the mover, is at most this
    resign_below: float | None


#: Resigning is considered from this ply on (never on the first moves of a game).
RESIGN_FROM_PLY = 10


def _levels(
    *,
    simulations: tuple[int, int, int],
    cutoff: int,
    candidates: tuple[int, int, int, int],
    sampled: bool = False,
    widen: float = 0.0,
    opening: int = 12,
) -> dict[str, Level]:
    """The four levels of a game whose Easy, Medium and Hard make ``simulations``."""
    base = Budget(
        simulations=0, cutoff=cutoff, candidates=candidates[0], sampled=sampled, widen=widen
    )
    return {
        BEGINNER: Level(BEGINNER, GREEDY, base, 0.12, 1_000_000, resign_below=-0.95),
        EASY: Level(
            EASY,
            MCTS,
            replace(base, simulations=simulations[0], candidates=candidates[1]),
            1.0,
            opening,
            resign_below=-0.9,
        ),
        MEDIUM: Level(
            MEDIUM,
            MCTS,
            replace(base, simulations=simulations[1], candidates=candidates[2]),
            0.5,
            opening,
            resign_below=-0.9,
        ),
        HARD: Level(
            HARD,
            MCTS,
            replace(base, simulations=simulations[2], candidates=candidates[3]),
            0.25,
            opening,
            resign_below=-0.9,
        ),
    }


#: slug -> level name -> Level.
LEVELS: dict[str, dict[str, Level]] = {
    "exxit": _levels(simulations=(100, 600, 5000), cutoff=12, candidates=(24, 32, 48, 64)),
    "valaturna": _levels(
        simulations=(100, 1000, 5000), cutoff=8, candidates=(24, 32, 48, 64), widen=2.0
    ),
    "harmijan": _levels(
        simulations=(80, 800, 3000), cutoff=6, candidates=(24, 32, 48, 64), widen=2.0
    ),
    "sgolte": _levels(
        simulations=(80, 300, 1500),
        cutoff=6,
        candidates=(24, 24, 32, 48),
        sampled=True,
        widen=2.0,
    ),
    "jotun": _levels(
        simulations=(40, 150, 600),
        cutoff=1,
        candidates=(16, 16, 24, 32),
        sampled=True,
        widen=2.0,
    ),
}


def level_of(slug: str, name: str) -> Level:
    """The level ``name`` (any case) of game ``slug``; ValueError naming what is known."""
    key = name.strip().lower() if isinstance(name, str) else name
    try:
        return LEVELS[slug][key]
    except KeyError:
        raise ValueError(
            f"no level {name!r} for {slug!r} (levels: {', '.join(LEVEL_NAMES)})"
        ) from None
