"""Sgolte's values: the position, the move, and the small named records the rules pass around."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..seats import Colour

# Colours are the indices of games.seats (BLACK, WHITE = 0, 1, named by COLOURS); the phases and the
# pie choice's bookkeeping are games.pie's.
STANDARD, DENSE = "standard", "dense"


@dataclass(frozen=True, kw_only=True)
class State:
    """A position. ``stones[c]`` is colour ``c``'s bitset of :mod:`games.bitboard` (bit i is cell i
    in reading order), indexed by the colours of :mod:`games.seats`.

    ``phase`` is one of :mod:`games.pie`'s; ``colour`` is the colour to move in ``play`` (Black
    during ``setup``); ``black_seat`` is the seat holding Black, ``NO_SEAT`` (0) until the pie
    choice. ``last_text``/``last_cells`` describe the last move for the view only (``key`` drops
    them).
    """

    stones: tuple[int, int]
    phase: str
    colour: Colour
    black_seat: int
    ply: int
    last_text: str | None = None
    last_cells: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Move:
    """A setup stone or a turn (``place``, with ``capture`` and ``replace`` for a merge), or the pie
    choice (``choice``: the colour seat 2 takes).

    ``capture`` is in removal order and ``replace`` in placement order; moves built by this package
    use the canonical orders, so two ``Move`` values are equal exactly when they are the same move.
    """

    place: str | None = None
    capture: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()
    choice: Colour | None = None


class Key(NamedTuple):
    """A position without its display-only fields and ply count (``Rules.key``)."""

    stones: tuple[int, int]
    phase: str
    colour: Colour
    black_seat: int


class Choice(NamedTuple):
    """A placement and its capture in canonical removal order (``()`` when quiet), by cell name."""

    place: str
    capture: tuple[str, ...]


class Sides(NamedTuple):
    """The stones of the colour to move and of its enemy."""

    own: int
    enemy: int


def sides(state: State) -> Sides:
    """The mover's stones and the enemy's."""
    c = state.colour
    return Sides(state.stones[c], state.stones[c ^ 1])
