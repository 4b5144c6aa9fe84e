"""Jotun's data: stack codes, the board's tables, ``State``, ``Move``, ``Ending``, and the facts of a
position that need no path search (placement [A3], scores [A29], strengths)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

from ..bitboard import bitboard
from ..hexgrid import HexBoard, hex_board
from ..pie import SETUP
from ..seats import BLACK, COLOURS, NO_SEAT, WHITE

# Stacks as text: upper-case letters by colour index (games.seats), bottom to top (``"WBB"``).
LETTERS = "BW"
PLY_FACTOR = 10  # [A32] the game ends after 10 x cells plies

# A stack is one int: height << 16 | strength << 1 | colour (0 = empty cell); the colour bit is
# the colour index of games.seats.
H = 1 << 16  # one piece of height
MASK_S = 0x7FFF  # the strength, once shifted down by one


def stack_code(pieces: str) -> int:
    """The code of a stack written bottom to top in ``B``/``W`` letters (``"WBB"``).

    >>> decode(stack_code("WBB"))
    'WBB'
    """
    if not pieces or any(p not in LETTERS for p in pieces):
        raise ValueError(f"a stack is letters B and W, bottom to top, not {pieces!r}")
    top = pieces[-1]
    strength = len(pieces) - len(pieces.rstrip(top))
    if top in pieces[: len(pieces) - strength].replace(LETTERS[1 - LETTERS.index(top)], ""):
        raise ValueError(f"{pieces!r} is not captured pieces below own pieces [A1]")
    return len(pieces) * H | strength << 1 | LETTERS.index(top)


def decode(code: int) -> str:
    """The stack of ``code`` as letters, bottom to top ('' for an empty cell)."""
    if not code:
        return ""
    colour, height, strength = code & 1, code >> 16, code >> 1 & MASK_S
    return LETTERS[1 - colour] * (height - strength) + LETTERS[colour] * strength


def pop_top(code: int) -> int:
    """The stack without its top piece (0 if it was the last)."""
    if (code >> 1 & MASK_S) > 1:
        return code - H - 2
    h = (code >> 16) - 1
    return 0 if h == 0 else h * H | h << 1 | (code & 1) ^ 1


def colours_of(code: int) -> list[str]:
    """The stack of ``code`` as colour names, bottom to top (the view's and the hints' form)."""
    return [COLOURS[LETTERS.index(p)] for p in decode(code)]


# --- the board's tables ---------------------------------------------------------------------------


class Geo:
    """The integer tables of one board side: hexgrid's steps and the bitboard's neighbour masks."""

    def __init__(self, n: int) -> None:
        self.grid: HexBoard = hex_board(n)
        self.size = len(self.grid)
        self.step = self.grid.step
        self.adjacent = self.grid.adjacent
        self.bitboard = bitboard(n)
        self.near = self.bitboard.near
        self.cap = PLY_FACTOR * self.size


@cache  # one per board side: three entries at most
def geo_of(n: int) -> Geo:
    """The tables of board side ``n``."""
    return Geo(n)


# --- state and moves ------------------------------------------------------------------------------


# A stack a move changed, other than the mover: (cell, its new code, 0 if emptied). A plain pair,
# not a NamedTuple: an origin's cached moves hold hundreds of thousands of them, and the garbage
# collector stops scanning a tuple of ints but never a tuple subclass (legal_moves measured a few
# per cent slower with NamedTuple pairs).
Change = tuple[int, int]
Changes = tuple[Change, ...]


class Result(NamedTuple):
    """What a movement does beside its cells: the mover's code on arrival, every other change."""

    mover: int
    changes: Changes


@dataclass(frozen=True)
class Ending:
    """How a finished game ended: winner colour, reason, scores and strengths by colour."""

    winner: int
    reason: str
    scores: tuple[int, int]
    strengths: tuple[int, int]


@dataclass(frozen=True)
class State:
    """A Jotun position. ``board`` holds a stack code per cell index (reading order), 0 if empty.

    ``colour`` is the colour to move in play; ``black_seat`` the seat holding Black (0 before the
    choice); ``ply`` counts actions, setup and choice included. ``last_text``/``last_cells`` (the
    origin and every cell the mover entered, or the placed cell) and ``last_board`` (the board
    before the last move, which the view compares to tell what the move did) are for display only
    and take no part in ``==`` or ``key``.
    """

    size: int
    board: tuple[int, ...]
    phase: str = SETUP
    colour: int = BLACK
    black_seat: int = NO_SEAT
    ply: int = 0
    ending: Ending | None = None
    last_text: str | None = field(default=None, compare=False)
    last_cells: tuple[int, ...] = field(default=(), compare=False)
    last_board: tuple[int, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class Move:
    """A placement (``cells = (c,)``), a colour choice (``word``) or a movement.

    A movement is identified by origin, destination and resulting position (``cells = (o, d)``,
    ``result``) [A27]; ``path`` (the waypoints of one path giving it) and ``text`` (its canonical
    text, when known) are carried along but take no part in ``==``.
    """

    kind: str
    cells: tuple[int, ...] = ()
    word: str = ""
    result: Result | None = None
    path: tuple[int, ...] = field(default=(), compare=False)
    text: str | None = field(default=None, compare=False)


# --- placement and scoring ------------------------------------------------------------------------


def can_place(geo: Geo, board: tuple[int, ...], colour: int, c: int) -> bool:
    """[A3] an empty cell with at least as many enemy as friendly neighbours (0 >= 0 counts)."""
    if board[c]:
        return False
    balance = 0
    for y in geo.adjacent[c]:
        code = board[y]
        if code:
            balance += 1 if code & 1 != colour else -1
    return balance >= 0


def placements(geo: Geo, board: tuple[int, ...], colour: int) -> list[int]:
    """The cells where ``colour`` may place, in reading order."""
    return [c for c in range(geo.size) if can_place(geo, board, colour, c)]


def origins(board: tuple[int, ...], colour: int) -> list[int]:
    """The cells of ``colour``'s stacks, in reading order."""
    return [c for c, code in enumerate(board) if code and code & 1 == colour]


def scores(geo: Geo, board: tuple[int, ...]) -> tuple[int, int]:
    """§6: own stacks plus the empty cells where the other colour may not place [A29]."""
    score = [0, 0]
    for c, code in enumerate(board):
        if code:
            score[code & 1] += 1
        else:
            for x in (BLACK, WHITE):
                if not can_place(geo, board, 1 - x, c):
                    score[x] += 1
    return score[0], score[1]


def strengths(board: tuple[int, ...]) -> tuple[int, int]:
    """The summed strengths of each colour's stacks (the first tie-break [A32])."""
    total = [0, 0]
    for code in board:
        if code:
            total[code & 1] += code >> 1 & MASK_S
    return total[0], total[1]
