"""The statistics page per game and option set: its answer (``docs/protocol.md``, "Statistics")."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.schemas.responses import Out
from app.schemas.view import View


class RateOut(Out):
    """``wins`` of ``games`` with its 95 % Wilson score interval (``rate``, ``low`` and ``high``
    null without games)."""

    games: int
    wins: int
    rate: float | None
    low: float | None
    high: float | None


class ResultsOut(RateOut):
    """A win rate, and the draws among its games (a draw counts as no win)."""

    draws: int


class ColourRateOut(RateOut):
    """A colour's win rate, over the games whose colours were given out."""

    colour: str


class MonthOut(Out):
    """One month (UTC) of finished games."""

    month: str = Field(description="YYYY-MM")
    games: int
    first_player: RateOut
    colours: list[ColourRateOut]


class SwapsOut(Out):
    """How often seat 2 swapped: ``swaps`` of the ``games`` that reached the pie's choice."""

    games: int
    swaps: int
    rate: float | None
    low: float | None
    high: float | None


class PieOut(Out):
    """The pie: how often seat 2 swapped, and how often seat 2 (the chooser) then won, after
    each choice."""

    swapped: SwapsOut
    taken: ResultsOut
    kept: ResultsOut


class LengthBinOut(Out):
    """A bar of the length histogram: the games of ``start`` to ``end`` plies."""

    start: int
    end: int
    games: int


class LengthsOut(Out):
    """The distribution of game lengths (plies)."""

    games: int
    mean: float | None
    median: float | None
    bins: list[LengthBinOut]


class ReasonOut(Out):
    """How many games ended for ``reason``."""

    reason: str
    games: int


class ReasonsOut(Out):
    """Why games ended, most frequent first."""

    games: int
    reasons: list[ReasonOut]


class FirstMoveOut(Out):
    """A first move (the setup, with a pie): how often it was played, seat 1's wins, draws and
    score after it, the pie after it, and the cells it placed on."""

    move: str
    games: int
    wins: int
    draws: int
    score: float | None
    pie: PieOut | None
    cells: list[str]


class FirstMovesOut(Out):
    """The first moves, most played first: ``distinct`` of them, the first 60 listed."""

    games: int
    distinct: int
    moves: list[FirstMoveOut]


class CellOut(Out):
    """A cell of the heat map: the games whose first move placed on it, seat 1's score in them,
    and how often seat 2 swapped after them (null without a pie)."""

    cell: str
    games: int
    score: float | None
    swapped: SwapsOut | None


class StatsOut(Out):
    """``GET /api/stats/{game}``: one game and option set's statistics."""

    game: str
    title: str
    options: dict[str, str | int]
    options_key: str
    source: Literal["all", "here", "imported"]
    has_pie: bool
    games: int
    first_player: ResultsOut
    colours: list[ColourRateOut]
    months: list[MonthOut]
    pie: PieOut | None
    lengths: LengthsOut
    reasons: ReasonsOut
    first_moves: FirstMovesOut
    cells: list[CellOut]
    board: View = Field(description="the start position, where the heat map is drawn")
