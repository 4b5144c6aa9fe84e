"""Rules-page diagrams computed by the engines: a position, and a move played on it.

A diagram is written as a position (the description that :func:`games.positions.position` reads:
cell -> pieces bottom to top as letters, Exxit's tiles, the colour to move) and, optionally, a move.
The engine builds the position, plays the move, and gives the views before and after it: the
"after" view highlights the move's cells exactly as the game page does after the same move, and the
move's text is the canonical one. So no "after" board is ever written by hand.

A diagram's view is the engine's view reduced to what a diagram draws: the board, its cells with
their stacks (on Exxit's field also their tiles, or the prisoners beside it), the row labels and
the last move (with what it did on each cell). Whose turn it is, the seats, counters, outcome and
the display marks of a game page (territory, scored creatures) are left out, so that every diagram reads
as a plain position whatever the phase details behind it.

>>> d = diagram("valaturna", {"size": 5}, {"e1": "B", "g6": "B", "e3": "W", "e4": "W"},
...             to_move="black", move="e6")
>>> d.move, d.after["last_move"]["cells"], d.after["last_move"]["effects"][-1]
('e6', ['e3', 'e4', 'e6'], {'id': 'e6', 'roles': ['placed'], 'delta': 1})
>>> [c["stack"] for c in d.after["cells"] if c["id"] == "e4"]
[['white', 'black']]
>>> diagram("jotun", {}, {"e5": "B"}, to_move="white").after is None
True
>>> diagram("valaturna", {"size": 5}, {"e1": "B"}, to_move="black", move="i5")
Traceback (most recent call last):
...
games.errors.IllegalMoveError: valaturna: black cannot play 'i5' in the diagram: ...
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import get
from .base import OptionValue
from .positions import position
from .view import CellView, View, make_view

#: Cell marks that say what a cell is rather than highlight it: Exxit's off-field prisoner cells.
KEPT_MARKS = frozenset({"prisoner"})


@dataclass(frozen=True)
class Diagram:
    """The views of one diagram: the position, the position after the move, the move's text."""

    before: View
    after: View | None = None
    move: str | None = None


def diagram(
    game: str,
    options: Mapping[str, OptionValue],
    stacks: Mapping[str, str],
    *,
    to_move: str,
    tiles: Mapping[str, str] | None = None,
    move: str | None = None,
) -> Diagram:
    """The diagram of a described position of ``game`` (with ``options``) and of ``move`` on it.

    ValueError (IllegalMoveError or InvalidMoveError for the move) naming the game and what is wrong
    if the description is no position or the move cannot be played in it.
    """
    rules = get(game, **options)
    state = position(rules, stacks, to_move, tiles)
    try:
        rules.check_invariants(state)
    except AssertionError as exc:
        raise ValueError(f"{game}: the described position is not one of the game: {exc}") from None
    before = drawn(rules.view(state))
    if move is None:
        return Diagram(before)
    try:
        parsed = rules.parse_move(state, move)
        text = rules.format_move(state, parsed)
        after = rules.apply(state, parsed)
    except ValueError as exc:
        raise type(exc)(f"{game}: {to_move} cannot play {move!r} in the diagram: {exc}") from exc
    return Diagram(before, drawn(rules.view(after)), text)


def drawn(view: Mapping[str, Any]) -> View:
    """The part of an engine's view that a diagram draws (see the module docstring), as a view."""
    cells: list[CellView] = []
    for cell in view["cells"]:
        kept: CellView = {"id": cell["id"], "q": cell["q"], "r": cell["r"], "stack": cell["stack"]}
        if "tile" in cell:
            kept["tile"] = cell["tile"]
        if cell.get("mark") in KEPT_MARKS:
            kept["mark"] = cell["mark"]
        cells.append(kept)
    last = view["last_move"]
    return make_view(
        game=view["game"],
        kind=view["board"]["kind"],
        side=view["board"]["side"],
        cells=cells,
        rows=view["rows"],
        to_move=None,
        colours=(None, None),
        phase="play",
        last_move=None if last is None else (last["text"], last["cells"]),
        effects=()
        if last is None
        else [(e["id"], e["roles"], e["delta"]) for e in last["effects"]],
    )
