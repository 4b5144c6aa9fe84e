"""Harmijan's position and moves: the immutable ``State``, the ``Setup`` and ``Turn`` records and the
word moves (see the package docstring for the rules and readings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..pie import SETUP
from ..seats import BLACK, NO_SEAT, WHITE, Colour, other

COLOUR_IDS = (BLACK, WHITE)  # colour indices (games.seats); COLOURS names them
PASS = "pass"


@dataclass(frozen=True)
class State:
    """A Harmijan position.

    ``stones`` holds the black and the white stones as bitsets over the board's cell indices
    (reading order). ``history`` lists the positions ``(black, white, colour to move)`` since the
    last change in the number of stones, the current one last (decision 17). ``must_pass`` says
    that the colour to move has no turn. ``last_move``/``last_cells`` are for display only.
    """

    stones: tuple[int, int] = (0, 0)
    phase: str = SETUP  # games.pie: setup | choose | play | over
    black_seat: int = NO_SEAT  # until seat 2 has chosen
    colour: Colour = BLACK  # the colour to move in phase play
    must_pass: bool = False
    reason: str | None = None  # why the game ended
    history: tuple[tuple[int, int, int], ...] = ()
    ply: int = 0
    last_move: str | None = None
    last_cells: tuple[int, ...] = ()


class Setup(NamedTuple):
    """The pie move: the black pair and the white pair, each in reading order."""

    black: tuple[int, int]
    white: tuple[int, int]


class Turn(NamedTuple):
    """A turn: the stone at ``source`` slides to ``target`` (biting if an enemy is there), then a
    new stone goes on ``place``. Cells are board indices."""

    source: int
    target: int
    place: int


Move = Setup | Turn | str  # str: "black", "white" or "pass"


def own_enemy(state: State) -> tuple[int, int]:
    """The stones of the colour to move and of the other colour."""
    return state.stones[state.colour], state.stones[other(state.colour)]
