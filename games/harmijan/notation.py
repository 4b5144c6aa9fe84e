"""Harmijan's notation (spec §9): setup ``f5,f6/c3,c4``, ``black`` / ``white``, turn ``g3-g4@j4``,
bite ``g3xg6@g1``, ``pass``.

Reading checks the shape of the text and, in play, the separator against the target cell; whether
the move is legal is the rules' question. Writing prints each setup pair in reading order and the
separator the position calls for.
"""

from __future__ import annotations

import re

from ..base import parse_word
from ..errors import IllegalMoveError, InvalidMoveError, typed
from ..hexgrid import HexBoard
from ..pie import CHOICES, PLAY
from ..seats import other
from .state import PASS, Move, Setup, State, Turn

_TURN = re.compile(r"([a-z][0-9]+)\s*([-x])\s*([a-z][0-9]+)\s*@\s*([a-z][0-9]+)")
_SETUP = re.compile(r"([a-z][0-9]+)\s*,\s*([a-z][0-9]+)\s*/\s*([a-z][0-9]+)\s*,\s*([a-z][0-9]+)")


def read_move(board: HexBoard, state: State, text: str) -> Move:
    """Parse ``text`` without looking at legality (InvalidMoveError if it is no move)."""
    t = text.strip().lower()
    word = parse_word(t, (*CHOICES, PASS))
    if word is not None:
        return word
    parse = board.parse_index
    m = _SETUP.fullmatch(t)
    if m:
        b1, b2, w1, w2 = (parse(g) for g in m.groups())
        return Setup(black=(min(b1, b2), max(b1, b2)), white=(min(w1, w2), max(w1, w2)))
    m = _TURN.fullmatch(t)
    if m:
        s, x, y = parse(m[1]), parse(m[3]), parse(m[4])
        if state.phase == PLAY:
            # §9: "-" onto an enemy stone, or "x" onto an empty cell, is refused
            bite = bool(state.stones[other(state.colour)] >> x & 1)
            if bite != (m[2] == "x"):
                how = f"{m[1]}x{m[3]}: it bites" if bite else f"{m[1]}-{m[3]}: it is empty"
                raise IllegalMoveError(f"Write {how}", rule="9")
        return Turn(source=s, target=x, place=y)
    raise InvalidMoveError(
        f"{typed(t)} is not a move: type one like g3-g4@j4 or pass"
        if t
        else "Type a move like g3-g4@j4"
    )


def write_move(board: HexBoard, state: State, move: Move) -> str:
    """Canonical text: ``f5,f6/c3,c4``, ``black``, ``g3-g4@j4``, ``g3xg6@g1``, ``pass``."""
    names = board.names
    if isinstance(move, Setup):
        b, w = sorted(move.black), sorted(move.white)
        return f"{names[b[0]]},{names[b[1]]}/{names[w[0]]},{names[w[1]]}"
    if isinstance(move, Turn):
        enemy = state.stones[other(state.colour)]
        sep = "x" if enemy >> move.target & 1 else "-"
        return f"{names[move.source]}{sep}{names[move.target]}@{names[move.place]}"
    return move
