"""The view: what the rules tell the browser about a position (Abstract Play's render representation).

The browser's board renderer draws a view and nothing else. Every game's ``Rules.view`` returns a
dict of this shape (TypedDicts below; extra keys are allowed under ``extra``):

``game``        the slug.
``board``       ``{"kind": "hex" | "points" | "field", "side": N or None}``. ``hex``: pointy-top
                cells; ``points``: a lattice of points joined by the lines between neighbours
                (Valaturna); ``field``: a board that grows (Exxit), drawn to the extent of ``cells``.
``cells``       one entry per cell (or point, or tile) in reading order: ``id`` (its name, the token
                that ``steps`` uses for it), ``q``, ``r``, ``stack`` (piece colours bottom to top,
                ``[]`` when empty), and optionally ``tile`` (a tile's colour) and ``mark`` (a short
                game-specific highlight class such as ``"scored"``).
``rows``        row labels for named boards: ``[{"label": "a", "r": -4, "qmin": 0}, ...]``;
                ``[]`` on a field.
``to_move``     the seat to move, or None when over.
``colours``     ``{"1": colour or None, "2": colour or None}`` (None before the pie choice).
``phase``       a short word: ``"setup"``, ``"choose"``, ``"play"`` or ``"over"``.
``last_move``   ``{"text": canonical text, "cells": [ids]}`` or None.
``counters``    ``[{"label": "Stock", "value": 12, "seat": 1 or None}, ...]`` shown beside the board.
``outcome``     ``Outcome.to_json()`` or None.
``extra``       game-specific JSON (prisoners, reserves, scored creatures, ...).

The pixel layout is shared: pointy-top, ``r`` down, ``x = sqrt(3) * (q + r/2)``, ``y = 1.5 * r``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypedDict

from .base import Outcome
from .hexgrid import HexBoard


class CellView(TypedDict, total=False):
    """One cell, point or tile."""

    id: str
    q: int
    r: int
    stack: list[str]
    tile: str
    mark: str


class RowLabel(TypedDict):
    """A row's letter and where the row starts."""

    label: str
    r: int
    qmin: int


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
    counters: Iterable[dict[str, Any]] = (),
    outcome: Outcome | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Assemble a view dict with every key present, so the browser never guesses."""
    return {
        "game": game,
        "board": {"kind": kind, "side": side},
        "cells": cells,
        "rows": rows,
        "to_move": to_move,
        "colours": {"1": colours[0], "2": colours[1]},
        "phase": "over" if outcome is not None else phase,
        "last_move": None
        if last_move is None
        else {"text": last_move[0], "cells": list(last_move[1])},
        "counters": list(counters),
        "outcome": None if outcome is None else outcome.to_json(),
        "extra": extra or {},
    }
