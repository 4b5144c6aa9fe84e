"""Jotun's move texts (spec §9): reading a text's waypoints, writing a path, the canonical texts of
one origin's moves, and the waypoints that tell its results apart for step-wise entry."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import InvalidMoveError
from .search import Search
from .state import Geo, Move, Result


def normalise(text: object) -> str:
    """The text as read: stripped, lower case [cell names are case-insensitive]; InvalidMoveError
    if it is no text or empty."""
    if not isinstance(text, str):
        raise InvalidMoveError("A move must be text, like e5 or c4-g2")
    t = text.strip().lower()
    if not t:
        raise InvalidMoveError("Type a move like e5 or c4-g2")
    return t


def waypoints(geo: Geo, t: str) -> list[int]:
    """The cells of a normalised text ``o-w1-...-d`` (one cell for a placement); spaces around
    ``-`` are allowed. InvalidMoveError naming a part that is no cell."""
    return [geo.grid.parse_index(part.strip()) for part in t.split("-")]


def way_text(names: Sequence[str], way: Sequence[int]) -> str:
    """The text of a path's waypoints."""
    return "-".join(names[c] for c in way)


@dataclass(frozen=True)
class OriginMoves:
    """Every move of one origin, sorted, with canonical texts; lookups by destination and result."""

    moves: tuple[Move, ...]
    by_result: Mapping[tuple[int, Result], Move]  # (destination, result) -> the move
    by_destination: Mapping[int, tuple[Move, ...]]
    telling: Mapping[tuple[int, Result], tuple[int, ...]]  # the clicks after o and d


def collect(geo: Geo, search: Search) -> OriginMoves:
    """The moves a finished search found, in order, each with its canonical text (§9)."""
    names = geo.grid.names
    o = search.o
    moves: list[Move] = []
    by_result: dict[tuple[int, Result], Move] = {}
    by_destination: dict[int, tuple[Move, ...]] = {}
    telling: dict[tuple[int, Result], tuple[int, ...]] = {}
    for d in sorted(search.found):
        results = search.found[d]
        here = []
        for (mover, board), way in sorted(results.items(), key=lambda kv: (len(kv[1]), kv[1])):
            result = search.result(mover, board)
            # §9: o-d when every path to d gives this result, else the best path's waypoints
            text = f"{names[o]}-{names[d]}" if len(results) == 1 else way_text(names, way)
            move = Move(kind="move", cells=(o, d), result=result, path=way, text=text)
            here.append(move)
            by_result[(d, result)] = move
        moves.extend(here)
        by_destination[d] = tuple(here)
        for move, tell in zip(here, _telling(here), strict=True):
            assert move.result is not None
            telling[(d, move.result)] = tell
    return OriginMoves(
        moves=tuple(moves), by_result=by_result, by_destination=by_destination, telling=telling
    )


def _telling(at: Sequence[Move]) -> list[tuple[int, ...]]:
    """For the results at one destination, in order: the inner waypoints of each canonical path up
    to the first prefix no other result shares (all of them if none does; none if the text is
    ``o-d``)."""
    if len(at) == 1:
        return [()]
    inners = [move.path[1:-1] for move in at]
    shared = Counter(w[:k] for w in inners for k in range(1, len(w) + 1))
    out = []
    for w in inners:
        tell = w
        for k in range(1, len(w) + 1):
            if shared[w[:k]] == 1:
                tell = w[:k]
                break
        out.append(tell)
    return out
