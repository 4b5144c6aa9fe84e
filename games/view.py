"""The view: what the rules tell the browser about a position (Abstract Play's render representation).

The browser's board renderer draws a view and nothing else. Every game's ``Rules.view`` returns a
:class:`View` built by :func:`make_view`; the TypedDicts below are its exact schema, and
``pydantic.TypeAdapter(View).json_schema()`` gives it as JSON Schema:

``game``        the slug.
``board``       :class:`BoardView`, ``{"kind": "hex" | "points" | "field", "side": N or None}``.
                ``hex``: pointy-top cells; ``points``: a lattice of points joined by the lines
                between neighbours (Valaturna); ``field``: a board that grows (Exxit), drawn to the
                extent of ``cells``.
``cells``       one :class:`CellView` per cell (or point, or tile) in reading order: ``id`` (its
                name, the token that ``steps`` uses for it), ``q``, ``r``, ``stack`` (piece colours
                bottom to top, ``[]`` when empty), and optionally ``tile`` (a tile's colour),
                ``mark`` (a short game-specific highlight class such as ``"scored"``) and
                ``strength`` (Jotun: the number its rules turn on for a stack, on every occupied
                cell).
``rows``        row labels for named boards (:class:`RowLabel`); ``[]`` on a field.
``to_move``     the seat to move, or None when over.
``colours``     ``{"1": colour or None, "2": colour or None}`` (None before the pie choice).
``phase``       ``"setup"``, ``"choose"``, ``"play"`` or ``"over"`` (``games.pie``).
``last_move``   :class:`LastMove`, ``{"text", "cells", "effects"}``, or None: the canonical text,
                the cells the move went through in order (a moving stack's origin, each cell it
                entered, its end; placed and changed cells otherwise), and ``effects``, what the
                move did on each cell it changed (:class:`Effect`, in reading order): ``roles``
                from :data:`ROLES` and ``delta``, the cell's height after minus before.
``counters``    :class:`Counter` list, ``[{"label": "Stock", "value": 12, "seat": 1 or None}]``,
                shown beside the board.
``outcome``     :class:`OutcomeView` (``Outcome.to_json()``) or None.

The pixel layout is shared: pointy-top, ``r`` down, ``x = sqrt(3) * (q + r/2)``, ``y = 1.5 * r``.

>>> from pydantic import TypeAdapter
>>> schema = TypeAdapter(View).json_schema()
>>> sorted(schema["properties"]) == sorted(View.__annotations__)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NotRequired, cast, get_args

# pydantic reads TypedDicts from typing_extensions on Python 3.11 (typing's lacks what it needs)
from typing_extensions import TypedDict

from .base import Outcome
from .hexgrid import HexBoard

BoardKind = Literal["hex", "points", "field"]
Phase = Literal["setup", "choose", "play", "over"]
Seat = Literal[1, 2]
#: What a move did on a cell (a cell may have several, listed in this order):
#: ``origin``       a piece or stack left the cell to move (its height went with it);
#: ``path``         the moving stack passed through the cell, which it left as it was;
#: ``destination``  where the move went: the moving stack's end (Exxit: the dance's target);
#: ``placed``       a new piece was put on the cell (setups and placements);
#: ``captured``     a piece was taken off the board here (Sgolte's capture, Harmijan's bite);
#: ``replaced``     a stone the move had captured was put back here by its captor (Sgolte);
#: ``fed``          a piece of the stack's own colour went on its top (Jotun);
#: ``eaten``        the stack lost its top piece to the moving stack (Jotun);
#: ``ate``          the stack took a piece of the moving stack under itself (Jotun);
#: ``flipped``      the mover's piece went on top of an enemy stack, now the mover's (Valaturna);
#: ``sown``         a dance dropped one pawn on the stack (Exxit);
#: ``prisoner``     a dance dropped its last pawns off the field here, a new prisoner stack (Exxit);
#: ``freed``        the prisoners here went back to the reserves and a tile was laid (Exxit);
#: ``changed``      any other change of the stack (no game of this package gives it).
Role = Literal[
    "origin",
    "path",
    "destination",
    "placed",
    "captured",
    "replaced",
    "fed",
    "eaten",
    "ate",
    "flipped",
    "sown",
    "prisoner",
    "freed",
    "changed",
]
KINDS: tuple[BoardKind, ...] = ("hex", "points", "field")
PHASES: tuple[Phase, ...] = ("setup", "choose", "play", "over")
ROLES: tuple[Role, ...] = get_args(Role)
#: One cell's effect as games build it: ``(cell id, roles, delta)``.
EffectRow = tuple[str, Sequence[Role], int]


class CellView(TypedDict):
    """One cell, point or tile."""

    id: str
    q: int
    r: int
    stack: list[str]
    tile: NotRequired[str]
    mark: NotRequired[str]
    strength: NotRequired[int]


class RowLabel(TypedDict):
    """A row's letter and where the row starts."""

    label: str
    r: int
    qmin: int


class BoardView(TypedDict):
    """How to draw the board: its kind, and its side (None for a field that grows)."""

    kind: BoardKind
    side: int | None


# the keys are seat numbers as text, which only the functional form can spell
SeatColours = TypedDict("SeatColours", {"1": str | None, "2": str | None})
SeatColours.__doc__ = "The colour each seat holds (None before the pie choice)."


class Effect(TypedDict):
    """What the last move did on one cell: its roles (in the order of the list of roles) and the
    change of the cell's height (pieces after minus pieces before; 0 when only its owner changed)."""

    id: str
    roles: list[Role]
    delta: int


class LastMove(TypedDict):
    """The last move: its canonical text, the cells it went through in order, and what it did on
    each cell it changed."""

    text: str
    cells: list[str]
    effects: list[Effect]


class Counter(TypedDict):
    """A figure shown beside the board, for one seat or (``seat`` None) for the game."""

    label: str
    value: int | str
    seat: Seat | None


class OutcomeView(TypedDict):
    """``Outcome.to_json()``: the winning seat (None for a draw), its colour, why, both scores."""

    winner: Seat | None
    colour: str | None
    reason: str
    scores: list[int | list[int]] | None


class View(TypedDict):
    """A position as the browser draws it (the fields are described in the module docstring)."""

    game: str
    board: BoardView
    cells: list[CellView]
    rows: list[RowLabel]
    to_move: Seat | None
    colours: SeatColours
    phase: Phase
    last_move: LastMove | None
    counters: list[Counter]
    outcome: OutcomeView | None


# No key beyond those typed: pydantic reads this plain-dict config (its ``with_config`` sets the
# same attribute), so the JSON Schema says ``additionalProperties: false`` and validation refuses
# a stray key, without games/ importing pydantic.
for _typed in (
    CellView,
    RowLabel,
    BoardView,
    SeatColours,
    Effect,
    LastMove,
    Counter,
    OutcomeView,
    View,
):
    setattr(_typed, "__pydantic_config__", {"extra": "forbid"})  # noqa: B010


def row_labels(board: HexBoard) -> list[RowLabel]:
    """Row letters of a named board, with each row's first ``q``, for the labels around it.

    >>> from games.hexgrid import hex_board
    >>> row_labels(hex_board(2))[0]
    {'label': 'a', 'r': -1, 'qmin': 0}
    """
    m = board.n - 1
    return [
        {"label": chr(ord("a") + r + m), "r": r, "qmin": max(-m, -m - r)} for r in range(-m, m + 1)
    ]


def make_view(
    *,
    game: str,
    kind: str,
    side: int | None,
    cells: list[CellView],
    rows: list[RowLabel],
    to_move: int | None,
    colours: Sequence[str | None],
    phase: str,
    last_move: tuple[str, Iterable[str]] | None,
    counters: Iterable[Mapping[str, Any]] = (),
    outcome: Outcome | None = None,
    effects: Iterable[EffectRow] = (),
) -> View:
    """Assemble a view with every key present, so the browser never guesses; ValueError if a
    field is outside the schema (a board kind, phase or seat that the browser does not know, or
    an effect on no cell of the view, or with a role not in :data:`ROLES`).

    ``effects`` are the last move's (ignored without one), in any order: the view lists them in
    the order of ``cells``."""
    if kind not in KINDS:
        raise ValueError(f"unknown board kind {kind!r} (known: {', '.join(KINDS)})")
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r} (known: {', '.join(PHASES)})")
    if to_move not in (1, 2, None):
        raise ValueError(f"to_move must be seat 1, 2 or None, not {to_move!r}")
    return {
        "game": game,
        "board": {"kind": kind, "side": side},
        "cells": cells,
        "rows": rows,
        "to_move": cast(Seat | None, to_move),
        "colours": {"1": colours[0], "2": colours[1]},
        "phase": "over" if outcome is not None else phase,
        "last_move": None
        if last_move is None
        else {
            "text": last_move[0],
            "cells": list(last_move[1]),
            "effects": _effects(effects, cells),
        },
        "counters": [_counter(c) for c in counters],
        "outcome": None if outcome is None else cast(OutcomeView, outcome.to_json()),
    }


def _effects(rows: Iterable[EffectRow], cells: Sequence[CellView]) -> list[Effect]:
    """The rows as the view's effects, in the order of ``cells``, each cell's roles in
    :data:`ROLES` order; ValueError for a cell the view has not, a repeated cell or an unknown role."""
    order = {c["id"]: i for i, c in enumerate(cells)}
    out: dict[str, Effect] = {}
    for cell, roles, delta in rows:
        if cell not in order:
            raise ValueError(f"the last move's effect on {cell!r}: no such cell in the view")
        if cell in out:
            raise ValueError(f"the last move's effects name {cell!r} twice")
        unknown = [r for r in roles if r not in ROLES]
        if unknown:
            raise ValueError(f"unknown role {unknown[0]!r} (known: {', '.join(ROLES)})")
        out[cell] = {"id": cell, "roles": sorted(set(roles), key=ROLES.index), "delta": delta}
    return sorted(out.values(), key=lambda e: order[e["id"]])


class Effects:
    """What a move did, gathered cell by cell: ``add`` a role to a cell with the height it brought
    (or, negative, took away); :meth:`rows` gives them for :func:`make_view`'s ``effects``.

    >>> e = Effects().add("c2", "captured", -1).add("c2", "replaced", +1).add("c6", "placed", +1)
    >>> e.rows()
    (('c2', ('captured', 'replaced'), 0), ('c6', ('placed',), 1))
    """

    def __init__(self) -> None:
        self._cells: dict[str, tuple[tuple[Role, ...], int]] = {}

    def add(self, cell: str, role: Role, delta: int = 0) -> Effects:
        """Record that the move did ``role`` on ``cell``, changing its height by ``delta``."""
        roles, total = self._cells.get(cell, ((), 0))
        self._cells[cell] = (roles if role in roles else (*roles, role), total + delta)
        return self

    def rows(self) -> tuple[EffectRow, ...]:
        """``(cell, roles, delta)`` per cell, in the order the cells were first added; hashable,
        so that a frozen state can keep them."""
        return tuple(
            (cell, tuple(sorted(roles, key=ROLES.index)), delta)
            for cell, (roles, delta) in self._cells.items()
        )


def _counter(counter: Mapping[str, Any]) -> Counter:
    """A counter as the schema has it (label, value, seat); KeyError if label or value is missing."""
    seat = counter.get("seat")
    if seat not in (1, 2, None):
        raise ValueError(f"a counter's seat must be 1, 2 or None, not {seat!r}")
    return {"label": counter["label"], "value": counter["value"], "seat": seat}


__all__ = [
    "KINDS",
    "PHASES",
    "ROLES",
    "BoardKind",
    "BoardView",
    "CellView",
    "Counter",
    "Effect",
    "EffectRow",
    "Effects",
    "LastMove",
    "OutcomeView",
    "Phase",
    "Role",
    "RowLabel",
    "Seat",
    "SeatColours",
    "View",
    "make_view",
    "row_labels",
]
