"""The computer opponent: Monte Carlo tree search over the games' own fast path, in four levels.

``decide(rules, state, level, seed_key)`` returns a :class:`Decision`: the move, its canonical
text (``rules.format_move``, so the app submits it like a person's), whether to resign, the
search's value of the position for the bot and the simulations it made. A level
(:mod:`games.bots.levels`) is an algorithm, an evaluator, a budget and a temperature, never a
time; the generator is seeded from the game, ``seed_key``, the ply and the level, so the same
position at the same level of the same game always gets the same move.

The modules: ``evaluate`` (each game's static evaluation from its own scoring), ``mcts`` (UCT with
playouts cut off early), ``levels`` (the levels as data), ``bot`` (``decide``), ``match`` (bots
against each other, for ``python -m games.bots match``). Pure: no IO outside ``__main__``.
"""

from .bot import Decision, decide, seeded_rng
from .levels import LEVEL_NAMES, LEVELS, Level, level_of

__all__ = ["LEVELS", "LEVEL_NAMES", "Decision", "Level", "decide", "level_of", "seeded_rng"]
