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
``last_move``   :class:`LastMove`, ``{"text": canonical text, "cells": [ids]}``, or None.
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
from typing import Any, Literal, NotRequired, cast

# pydantic reads TypedDicts from typing_extensions on Python 3.11 (typing's lacks what it needs)
from typing_extensions import TypedDict

from .base import Outcome
from .hexgrid import HexBoard

BoardKind = Literal["hex", "points", "field"]
Phase = Literal["setup", "choose", "play", "over"]
Seat = Literal[1, 2]
KINDS: tuple[BoardKind, ...] = ("hex", "points", "field")
PHASES: tuple[Phase, ...] = ("setup", "choose", "play", "over")


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


class LastMove(TypedDict):
    """The last move's canonical text and the cells it touched, to highlight."""

    text: str
    cells: list[str]


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
) -> View:
    """Assemble a view with every key present, so the browser never guesses; ValueError if a
    field is outside the schema (a board kind, phase or seat that the browser does not know)."""
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
        else {"text": last_move[0], "cells": list(last_move[1])},
        "counters": [_counter(c) for c in counters],
        "outcome": None if outcome is None else cast(OutcomeView, outcome.to_json()),
    }


def _counter(counter: Mapping[str, Any]) -> Counter:
    """A counter as the schema has it (label, value, seat); KeyError if label or value is missing."""
    seat = counter.get("seat")
    if seat not in (1, 2, None):
        raise ValueError(f"a counter's seat must be 1, 2 or None, not {seat!r}")
    return {"label": counter["label"], "value": counter["value"], "seat": seat}


__all__ = [
    "KINDS",
    "PHASES",
    "BoardKind",
    "BoardView",
    "CellView",
    "Counter",
    "LastMove",
    "OutcomeView",
    "Phase",
    "RowLabel",
    "Seat",
    "SeatColours",
    "View",
    "make_view",
    "row_labels",
]
