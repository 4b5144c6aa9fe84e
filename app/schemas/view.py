"""The view and the outcome as typed JSON: what ``Rules.view`` and ``Outcome.to_json`` return.

``games/view.py`` documents the view; these TypedDicts give it a JSON Schema (exported to
``docs/view.schema.json`` by ``python -m app.schemas``) for clients written outside the project.
They are ``typing_extensions`` TypedDicts because Pydantic needs those on Python 3.11, so the view's
cell and row types are restated here; ``tests/app/test_schemas.py`` checks that they list the same
keys as ``games.view.CellView`` and ``games.view.RowLabel`` and that real views of every game fit.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

Exact = ConfigDict(extra="forbid")
Seat = Literal[1, 2]
Score = int | list[int]


@with_config(Exact)
class Cell(TypedDict):
    """One cell, point or tile, in reading order (``games.view.CellView``)."""

    id: str
    q: int
    r: int
    stack: list[str]
    tile: NotRequired[str]
    mark: NotRequired[str]


@with_config(Exact)
class RowLabel(TypedDict):
    """A row's letter and the ``q`` of its first cell (``games.view.RowLabel``)."""

    label: str
    r: int
    qmin: int


@with_config(Exact)
class Board(TypedDict):
    """How to draw the cells: hex cells, lattice points, or a field of tiles that grows."""

    kind: Literal["hex", "points", "field"]
    side: int | None


Colours = TypedDict("Colours", {"1": str | None, "2": str | None})
"""Each seat's colour, keyed by seat as text; null before a pie choice settles it."""
# Keys "1" and "2" need the functional form, which takes no decorator.
setattr(Colours, "__pydantic_config__", Exact)  # noqa: B010


@with_config(Exact)
class LastMove(TypedDict):
    """The last move's canonical text and the cells it touched."""

    text: str
    cells: list[str]


@with_config(Exact)
class Counter(TypedDict):
    """A figure shown beside the board (``seat`` null when it belongs to nobody)."""

    label: str
    value: int | str
    seat: Seat | None


@with_config(Exact)
class Result(TypedDict):
    """The end of a game: ``Outcome.to_json()``, or a server's reason (resignation, abandoned).

    ``scores`` are indexed by seat - 1: ints, or lists of ints compared lexicographically.
    """

    winner: Seat | None
    colour: str | None
    reason: str
    scores: Annotated[list[Score], Field(min_length=2, max_length=2)] | None


@with_config(Exact)
class View(TypedDict):
    """A position as the rules describe it to a board renderer (``games/view.py``)."""

    game: str
    board: Board
    cells: list[Cell]
    rows: list[RowLabel]
    to_move: Seat | None
    colours: Colours
    phase: Literal["setup", "choose", "play", "over"]
    last_move: LastMove | None
    counters: list[Counter]
    outcome: Result | None
    extra: dict[str, Any]


@with_config(Exact)
class Hint(TypedDict, total=False):
    """A preview of what clicking one next token would do; every key is optional."""

    path: list[str]
    changes: dict[str, list[str]]
    cells: list[str]
    stack: list[str]
    bite: bool
    move: str
    waypoints: list[str]
    results: int
