"""Rules-page diagrams computed by the engines: a position, and a move played on it.

A diagram is written as a position (the description that :func:`games.positions.position` reads:
cell -> pieces bottom to top as letters, Exxit's tiles, the colour to move) and, optionally, a move.
The engine builds the position, plays the move, and gives the views before and after it: the
"after" view highlights the move's cells exactly as the game page does after the same move, and the
move's text is the canonical one. So no "after" board is ever written by hand.

A diagram's view is the engine's view reduced to what a diagram draws: the board, its cells with
their stacks (Jotun's with their strength; on Exxit's field also their tiles, or the prisoners
beside it), the row labels and the last move (with what it did on each cell). Whose turn it is, the seats, counters, outcome and the
display marks of a game page (territory, captured points) are left out, so that every diagram reads
as a plain position whatever the phase details behind it. A diagram adds marks of its own (cell
``mark`` values, which the board draws as ``mark-<value>`` outlines):

* on the "after" board, ``changed``: every stack the move changed that its highlight does not show
  (Jotun's fed and eaten groups);
* on the "before" board of a move that is a path (Jotun's, where the "after" position's last move
  lists the origin and every cell the stack entered, in order): ``path-from`` on the origin,
  ``path-step`` on each cell entered, ``path-turn`` where it changed direction, ``path-jump`` on
  the stacks it jumped over and ``path-to`` on its last cell (a placement: ``path-to`` alone);
* with the figure option ``scoring=1`` (Harmijan, a position alone): ``scored`` on every creature
  that would score if the game ended in the position, as the engine's view of the ended game marks
  them.

>>> d = diagram("valaturna", {"size": 5}, {"e1": "B", "g6": "B", "e3": "W", "e4": "W"},
...             to_move="black", move="e6")
>>> d.move, d.after["last_move"]["cells"], d.after["last_move"]["effects"][-1]
('e6', ['e3', 'e4', 'e6'], {'id': 'e6', 'roles': ['placed'], 'delta': 1})
>>> [c["stack"] for c in d.after["cells"] if c["id"] == "e4"]
[['white', 'black']]
>>> diagram("jotun", {}, {"e5": "B"}, to_move="white").after is None
True
>>> d = diagram("jotun", {}, {"h2": "B", "g3": "BB", "f4": "BB", "d4": "B"}, to_move="black",
...             move="h2-e5")
>>> sorted((c["id"], c["mark"]) for c in d.before["cells"] if "mark" in c)
[('e5', 'path-to'), ('f4', 'path-jump'), ('g3', 'path-jump'), ('h2', 'path-from')]
>>> [(c["id"], c["stack"]) for c in d.after["cells"] if c.get("mark") == "changed"]
[('d4', ['black', 'black'])]
>>> diagram("valaturna", {"size": 5}, {"e1": "B"}, to_move="black", move="i5")
Traceback (most recent call last):
...
games.errors.IllegalMoveError: valaturna: black cannot play 'i5' in the diagram: ...
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import get
from .base import OptionValue, Rules
from .hexgrid import DIRECTIONS, Hex, direction_between, distance
from .pie import OVER
from .positions import position
from .view import CellView, View, make_view

#: Cell marks that say what a cell is rather than highlight it: Exxit's off-field prisoner cells.
KEPT_MARKS = frozenset({"prisoner"})
#: Games whose move carries a stack along a path: the "after" position's last move lists the
#: origin and then every cell the stack entered, in order (``games.jotun``).
PATH_GAMES = frozenset({"jotun"})
#: How each game ends in a given position, for ``scoring=1``: the position as the engine scores it.
_ENDED: dict[str, Callable[[Any], Any]] = {
    "harmijan": lambda state: replace(state, phase=OVER, reason="no-moves"),
}


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

    ``options`` are the game's options, plus the figure's own ``scoring`` (see the module
    docstring). ValueError (IllegalMoveError or InvalidMoveError for the move) naming the game and
    what is wrong if the description is no position or the move cannot be played in it.
    """
    game_options = {k: v for k, v in options.items() if k != "scoring"}
    rules = get(game, **game_options)
    state = position(rules, stacks, to_move, tiles)
    try:
        rules.check_invariants(state)
    except AssertionError as exc:
        raise ValueError(f"{game}: the described position is not one of the game: {exc}") from None
    if options.get("scoring"):
        return Diagram(scored(rules, state))
    before = drawn(rules.view(state))
    if move is None:
        return Diagram(before)
    try:
        parsed = rules.parse_move(state, move)
        text = rules.format_move(state, parsed)
        after = rules.apply(state, parsed)
    except ValueError as exc:
        raise type(exc)(f"{game}: {to_move} cannot play {move!r} in the diagram: {exc}") from exc
    after_view = drawn(rules.view(after))
    mark_changes(before, after_view)
    if game in PATH_GAMES:
        last = after_view["last_move"]
        assert last is not None
        mark_path(before, last["cells"])
    return Diagram(before, after_view, text)


def drawn(view: Mapping[str, Any], marks: frozenset[str] = KEPT_MARKS) -> View:
    """The part of an engine's view that a diagram draws (see the module docstring), as a view;
    ``marks`` are the engine's cell marks that it keeps."""
    cells: list[CellView] = []
    for cell in view["cells"]:
        kept: CellView = {"id": cell["id"], "q": cell["q"], "r": cell["r"], "stack": cell["stack"]}
        if "tile" in cell:
            kept["tile"] = cell["tile"]
        if "strength" in cell:
            kept["strength"] = cell["strength"]
        if cell.get("mark") in marks:
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


def scored(rules: Rules[Any, Any], state: Any) -> View:
    """The view of ``state`` with the engine's ``scored`` marks of the game ended there."""
    ended = _ENDED.get(rules.slug)
    if ended is None:
        raise ValueError(f"{rules.slug}: no scoring diagram (only {', '.join(sorted(_ENDED))})")
    return drawn(rules.view(ended(state)), KEPT_MARKS | {"scored"})


def mark_changes(before: View, after: View) -> None:
    """Mark ``changed`` every cell of ``after`` whose stack differs from ``before`` and that the last
    move's highlight does not already show (a cell with a mark of its own keeps it)."""
    old = {cell["id"]: cell["stack"] for cell in before["cells"]}
    last = after["last_move"]
    shown = set(last["cells"]) if last is not None else set()
    for cell in after["cells"]:
        if cell["id"] not in shown and "mark" not in cell and old.get(cell["id"]) != cell["stack"]:
            cell["mark"] = "changed"


def mark_path(before: View, path: Sequence[str]) -> None:
    """Mark on ``before`` the path of a stack through the cells ``path`` (origin first)."""
    at: dict[str, Hex] = {cell["id"]: (cell["q"], cell["r"]) for cell in before["cells"]}
    by_hex = {h: name for name, h in at.items()}
    marks = {path[0]: "path-from", path[-1]: "path-to"}  # one cell (a placement): "path-to"
    for i in range(1, len(path) - 1):
        a, b, c = at[path[i - 1]], at[path[i]], at[path[i + 1]]
        turned = direction_between(a, b) != direction_between(b, c)
        marks[path[i]] = "path-turn" if turned else "path-step"
    for a_name, b_name in itertools.pairwise(path):
        a, b = at[a_name], at[b_name]
        d = direction_between(a, b)
        assert d is not None, f"{a_name}-{b_name} is no straight segment"
        dq, dr = DIRECTIONS[d]
        for k in range(1, distance(a, b)):  # the stacks jumped over
            marks[by_hex[(a[0] + k * dq, a[1] + k * dr)]] = "path-jump"
    for cell in before["cells"]:
        if cell["id"] in marks and "mark" not in cell:
            cell["mark"] = marks[cell["id"]]
