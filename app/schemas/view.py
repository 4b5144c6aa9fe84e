"""The view and the result as typed JSON: what ``Rules.view`` and ``Outcome.to_json`` return.

The types are the rules package's own (``games/view.py``), reached through the rules runner like
everything else of ``games``; they are ``typing_extensions`` TypedDicts that refuse stray keys, so
Pydantic exports them as the JSON Schema in ``docs/view.schema.json`` (``python -m app.schemas``).
A stored result has the same shape, with the server's reasons (resignation, abandoned) too, and,
in a rated game that counted, both players' ``ratings`` before and after it.
"""

from __future__ import annotations

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from app.runtime.rules import OutcomeView, Seat, View
from app.runtime.rules import SeatColours as Colours

__all__ = ["Colours", "Hint", "RatingChange", "Result", "Seat", "View"]


@with_config(ConfigDict(extra="forbid"))
class RatingChange(TypedDict):
    """What a rated game did to one seat's rating (Glicko-2, rounded)."""

    seat: Seat
    username: str
    before: int
    after: int
    deviation: int
    provisional: bool


@with_config(ConfigDict(extra="forbid"))
class Result(OutcomeView, total=False):
    """A game's result: the rules' outcome (or the server's ending), and its rating changes."""

    ratings: list[RatingChange]


@with_config(ConfigDict(extra="forbid"))
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
