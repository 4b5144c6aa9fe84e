"""The statistics page's counters and figures (issue 28): pure functions, no IO.

A finished public game adds 1 to a handful of counters, each keyed by (game, option set, played
here or imported, ``kind``, ``bucket``); :func:`increments` says which, from the archive's columns
alone (``app.domain.archive``) plus seat 1's colour, so the counters kept as games finish and the
ones rebuilt from the archive are the same function of the same values. The buckets are text:

``month``   ``YYYY-MM|<seat 1's colour or ->|<result>``: the first player's and each colour's
            win rate per month (the month of ``finished_at``, UTC);
``length``  the number of plies;
``reason``  why the game ended (``resignation``, ``timeout``, ``abandoned``, a rules reason...);
``first``   ``<result>|<pie>|<first move>``: each first move's frequency and score, and in the
            four games with a pie rule, how often seat 2 swapped after it and how each choice
            ended (``<pie>``: ``taken``, ``kept``, or ``-`` without a choice).

``<result>`` is the winning seat, ``1`` or ``2``, or ``draw``. The first player is seat 1, the seat
that makes ply 1 (in a game with a pie, the setup). "Swapped" is the archive's ``pie_taken``: seat
2 took the colour the setup was made for.

:func:`figures` turns the counters back into what the page shows; every rate comes with its 95 %
Wilson score interval and the number of games it rests on. A draw counts as no win.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypedDict

#: z for a two-sided 95 % interval.
Z95 = 1.959963984540054
#: The kinds of counter, in the order the page shows their figures.
KINDS = ("month", "length", "reason", "first")
#: At most this many bars in the length histogram.
MAX_BINS = 20
NO_VALUE = "-"


@dataclass(frozen=True)
class Finished:
    """What the counters read of one finished game (its archive columns, ``app.domain.archive``)."""

    finished_at: int  # epoch ms
    length: int
    first_move: str | None
    pie_taken: bool | None
    result: str  # "1", "2" or "draw"
    reason: str
    first_colour: str | None  # seat 1's colour at the end (None: a pie never chosen)


def month_of(ms: int) -> str:
    """``YYYY-MM`` of an instant (epoch milliseconds), in UTC."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m")


def first_colour(has_pie: bool, pie_taken: bool | None, fixed: str | None) -> str | None:
    """Seat 1's colour at the end of a game: in a game with a pie, White if seat 2 took Black (the
    pie's taken word, ``app.domain.archive``), Black if not, None before the choice; else the
    game's ``fixed`` colour of seat 1 (Exxit's Red)."""
    if not has_pie:
        return fixed
    if pie_taken is None:
        return None
    return "white" if pie_taken else "black"


def increments(game: Finished) -> Counter[tuple[str, str]]:
    """The counters one finished game adds 1 to, as ``{(kind, bucket): 1}``."""
    pie = NO_VALUE if game.pie_taken is None else ("taken" if game.pie_taken else "kept")
    counts: Counter[tuple[str, str]] = Counter()
    colour = game.first_colour or NO_VALUE
    counts["month", f"{month_of(game.finished_at)}|{colour}|{game.result}"] += 1
    counts["length", str(game.length)] += 1
    counts["reason", game.reason] += 1
    if game.first_move is not None:
        counts["first", f"{game.result}|{pie}|{game.first_move}"] += 1
    return counts


# --- figures --------------------------------------------------------------------------------------


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``successes`` out of ``trials`` (None for no trial).

    >>> low, high = wilson(7, 10)
    >>> round(low, 4), round(high, 4)
    (0.3968, 0.8922)
    """
    if trials <= 0:
        return None
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


class Rate(TypedDict):
    """A proportion with its 95 % Wilson interval: ``wins`` of ``games`` (None without games)."""

    games: int
    wins: int
    rate: float | None
    low: float | None
    high: float | None


def rate(wins: int, games: int) -> Rate:
    """``wins`` of ``games`` as a :class:`Rate`."""
    interval = wilson(wins, games)
    return Rate(
        games=games,
        wins=wins,
        rate=wins / games if games else None,
        low=interval[0] if interval else None,
        high=interval[1] if interval else None,
    )


@dataclass
class _Tally:
    """Games, wins of seat 1 and of seat 2, draws."""

    games: int = 0
    first: int = 0
    second: int = 0
    draws: int = 0

    def add(self, result: str, n: int) -> None:
        self.games += n
        if result == "1":
            self.first += n
        elif result == "2":
            self.second += n
        else:
            self.draws += n

    def score(self) -> float | None:
        """Seat 1's score: a win 1, a draw 1/2."""
        return (self.first + self.draws / 2) / self.games if self.games else None


def _colour_rates(by_colour: Mapping[str, _Tally], colours: Iterable[str]) -> list[dict[str, Any]]:
    """Each colour's win rate, from tallies keyed by seat 1's colour (its games are every game
    whose colours were given out)."""
    coloured = sum(t.games for c, t in by_colour.items() if c != NO_VALUE)
    out = []
    for colour in colours:
        wins = 0
        for seat1, tally in by_colour.items():
            if seat1 == NO_VALUE:
                continue
            wins += tally.first if seat1 == colour else tally.second
        out.append({"colour": colour, **rate(wins, coloured)})
    return out


def _length_bins(lengths: Mapping[int, int]) -> list[dict[str, int]]:
    """The length histogram: bars of a round width (1, 2, 5, 10, 20, 50...), at most
    :data:`MAX_BINS`, from the shortest game's bar to the longest's, empty bars included."""
    if not lengths:
        return []
    low, high = min(lengths), max(lengths)
    width = 1
    steps = (2, 2.5, 2)  # 1 -> 2 -> 5 -> 10 -> 20 -> 50 ...
    i = 0
    while (high // width) - (low // width) + 1 > MAX_BINS:
        width = int(width * steps[i % 3])
        i += 1
    start = (low // width) * width
    bins = [{"start": s, "end": s + width - 1, "games": 0} for s in range(start, high + 1, width)]
    for length, n in lengths.items():
        bins[(length - start) // width]["games"] += n
    return bins


def figures(
    rows: Iterable[tuple[str, str, int]],
    colours: Iterable[str],
    has_pie: bool,
    shown: int = 60,
) -> dict[str, Any]:
    """The page's figures from counter rows ``(kind, bucket, n)`` (summed over any sources).

    ``colours``: the game's colour names. The first moves are listed most played first (then by
    text), the ``shown`` first of them; ``_cells`` holds every move's tallies for
    :func:`cell_heat` (which needs the rules' cells of each move: the service's part).
    """
    colours = list(colours)
    total = _Tally()
    by_colour: dict[str, _Tally] = defaultdict(_Tally)
    months: dict[str, dict[str, _Tally]] = defaultdict(lambda: defaultdict(_Tally))
    lengths: Counter[int] = Counter()
    reasons: Counter[str] = Counter()
    moves: dict[str, dict[str, _Tally]] = defaultdict(lambda: defaultdict(_Tally))
    for kind, bucket, n in rows:
        if kind == "month":
            month, seat1, result = bucket.split("|")
            total.add(result, n)
            by_colour[seat1].add(result, n)
            months[month][seat1].add(result, n)
        elif kind == "length":
            lengths[int(bucket)] += n
        elif kind == "reason":
            reasons[bucket] += n
        elif kind == "first":
            result, pie, move = bucket.split("|", 2)
            moves[move][pie].add(result, n)
    pie_all: dict[str, _Tally] = defaultdict(_Tally)
    listed = []
    for move, by_pie in moves.items():
        tally = _Tally()
        for choice, t in by_pie.items():
            tally.add("1", t.first)
            tally.add("2", t.second)
            tally.add("draw", t.draws)
            for result, n in (("1", t.first), ("2", t.second), ("draw", t.draws)):
                pie_all[choice].add(result, n)
        entry: dict[str, Any] = {
            "move": move,
            "games": tally.games,
            "wins": tally.first,
            "draws": tally.draws,
            "score": tally.score(),
            "pie": by_pie if has_pie else None,  # its figures only for those shown (below)
        }
        listed.append(entry)
    listed.sort(key=lambda e: (-e["games"], e["move"]))
    heat = cell_tallies(listed, has_pie)
    for entry in listed[:shown]:
        entry["pie"] = _pie(entry["pie"]) if has_pie else None
    median = _median(lengths)
    return {
        "games": total.games,
        "first_player": {**rate(total.first, total.games), "draws": total.draws},
        "colours": _colour_rates(by_colour, colours),
        "months": [
            {
                "month": month,
                "games": sum(t.games for t in tallies.values()),
                "first_player": rate(
                    sum(t.first for t in tallies.values()), sum(t.games for t in tallies.values())
                ),
                "colours": _colour_rates(tallies, colours),
            }
            for month, tallies in sorted(months.items())
        ],
        "pie": _pie(pie_all) if has_pie else None,
        "lengths": {
            "games": lengths.total(),
            "mean": (sum(k * n for k, n in lengths.items()) / lengths.total() if lengths else None),
            "median": median,
            "bins": _length_bins(lengths),
        },
        "reasons": {
            "games": reasons.total(),
            "reasons": [
                {"reason": r, "games": n}
                for r, n in sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
            ],
        },
        "first_moves": {
            "games": sum(e["games"] for e in listed),
            "distinct": len(listed),
            "moves": listed[:shown],
        },
        "_cells": heat,
    }


def _median(lengths: Counter[int]) -> float | None:
    """The median length (the mean of the two middle ones for an even count)."""
    total = lengths.total()
    if not total:
        return None
    ordered = sorted(lengths.items())

    def nth(k: int) -> int:
        seen = 0
        for length, n in ordered:
            seen += n
            if seen > k:
                return length
        return ordered[-1][0]

    return (nth((total - 1) // 2) + nth(total // 2)) / 2


def _pie(by_pie: Mapping[str, _Tally]) -> dict[str, Any]:
    """The pie's figures from tallies keyed by the choice (``taken``, ``kept``, ``-``): how often
    seat 2 swapped, and after each choice how often seat 2 (the chooser) won."""
    taken, kept = by_pie.get("taken", _Tally()), by_pie.get("kept", _Tally())
    return {
        "swapped": _swaps(taken.games, taken.games + kept.games),
        "taken": {**rate(taken.second, taken.games), "draws": taken.draws},
        "kept": {**rate(kept.second, kept.games), "draws": kept.draws},
    }


def _swaps(swaps: int, chosen: int) -> dict[str, Any]:
    """How often seat 2 swapped: ``swaps`` of the ``chosen`` games that reached the choice."""
    share = rate(swaps, chosen)
    return {"games": chosen, "swaps": swaps, **{k: share[k] for k in ("rate", "low", "high")}}


def cell_tallies(
    moves: Iterable[Mapping[str, Any]], has_pie: bool
) -> list[tuple[str, int, float, int, int]]:
    """Each first move's ``(move, games, seat 1's points, games reaching the choice, swaps)``."""
    out = []
    for m in moves:
        chosen = swaps = 0
        if has_pie and m["pie"] is not None:
            taken, kept = m["pie"].get("taken", _Tally()), m["pie"].get("kept", _Tally())
            chosen, swaps = taken.games + kept.games, taken.games
        out.append((m["move"], m["games"], (m["score"] or 0) * m["games"], chosen, swaps))
    return out


def cell_heat(
    tallies: Iterable[tuple[str, int, float, int, int]],
    cells_of: Mapping[str, Iterable[str]],
    has_pie: bool,
) -> list[dict[str, Any]]:
    """The heat map's cells: for each cell some first move placed on (``cells_of``: a move's
    cells), the games whose first move did, seat 1's score in them, and with a pie how often seat
    2 swapped. A setup of several cells counts for each of its cells."""
    sums: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0])
    for move, games, points, chosen, swaps in tallies:
        for cell in dict.fromkeys(cells_of.get(move, ())):
            t = sums[cell]
            t[0] += games
            t[1] += points
            t[2] += chosen
            t[3] += swaps
    return [
        {
            "cell": cell,
            "games": int(games),
            "score": points / games if games else None,
            "swapped": _swaps(int(swaps), int(chosen)) if has_pie else None,
        }
        for cell, (games, points, chosen, swaps) in sorted(sums.items())
    ]
