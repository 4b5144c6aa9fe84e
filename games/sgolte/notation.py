"""Sgolte's notation (spec section 9): ``e5``, ``black``, ``c6xc2,d3,e4:c2,d3,e4``.

Reading checks only the shape here (:class:`InvalidMoveError` for text that is no move); whether the
move is legal is the rules' question. Writing prints the canonical orders: the capture in its
canonical removal order, the re-placement in the canonical placement order of section 3.
"""

from __future__ import annotations

import re

from ..bitboard import mask
from ..errors import InvalidMoveError, typed
from ..pie import format_choice
from .capture import dense_order, removal_ok
from .geometry import Geometry
from .replace import canonical_order
from .state import Move, State, sides

_MOVE = re.compile(r"\s*([a-z][0-9]+)\s*(?:x(.*?):(.*))?", re.DOTALL)
_CELL = re.compile(r"[a-z][0-9]+")


def read_move(geo: Geometry, text: str) -> Move:
    """The placement written ``text``, its cells checked to exist; InvalidMoveError if it has not
    the notation's shape."""
    m = _MOVE.fullmatch(text.strip())
    if m is None:
        raise InvalidMoveError(
            f"{typed(t)} is not a move: type one like b4 or c6xd3:f5"
            if (t := text.strip())
            else "Type a move like b4"
        )
    place = cell_name(geo, m.group(1), text)
    if m.group(2) is None:
        return Move(place=place)
    cap = tuple(cell_name(geo, c.strip(), text) for c in m.group(2).split(","))
    rep = tuple(cell_name(geo, c.strip(), text) for c in m.group(3).split(","))
    return Move(place=place, capture=cap, replace=rep)


def cell_name(geo: Geometry, name: str, text: str) -> str:
    """``name`` if it names a cell, else InvalidMoveError quoting the whole move text."""
    if not _CELL.fullmatch(name) or name not in geo.by_name:
        raise InvalidMoveError(
            f"{typed(name)} is not a cell of this board" if name else "A cell name is missing"
        )
    return name


def canonical(geo: Geometry, dense: bool, state: State, move: Move) -> Move:
    """The legal merging ``move`` with its capture and re-placement in the canonical orders."""
    own, enemy = sides(state)
    p = geo.parse(move.place or "")
    cap = tuple(geo.parse(c) for c in move.capture)
    group = geo.flood(1 << cap[0], enemy)
    if dense:
        order = dense_order(geo, group, mask(cap))
    else:  # a line removable from both ends is written from its lower first cell
        back = cap[::-1]
        order = back if back[0] < cap[0] and removal_ok(geo, group, back) else cap
    placed = canonical_order(geo, own | 1 << p, mask(geo.parse(c) for c in move.replace))
    return Move(place=move.place, capture=geo.names_of(order), replace=geo.names_of(placed))


def write_move(geo: Geometry, dense: bool, state: State, move: Move) -> str:
    """The canonical text of the legal ``move``."""
    if move.choice is not None:
        return format_choice(move.choice)
    assert move.place is not None
    if not move.capture:
        return move.place
    canon = canonical(geo, dense, state, move)
    return f"{canon.place}x{','.join(canon.capture)}:{','.join(canon.replace)}"
