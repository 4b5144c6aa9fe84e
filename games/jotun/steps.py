"""Jotun's step-wise entry (``Rules.steps``, ``move_tokens``, ``preview``): click the origin, then
the destination, then, only if several results reach that cell, the waypoints of the wanted path
until no other result shares them; ``Steps.hints`` preview each click that completes a move."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..base import Steps
from ..errors import IllegalMoveError
from ..pie import CHOOSE, SETUP, choice_steps
from .notation import OriginMoves, way_text
from .search import Search
from .state import Geo, Move, State, can_place, colours_of, origins, placements

Board = tuple[int, ...]


@dataclass(frozen=True)
class Searches:
    """What step-wise entry reads of one ``Rules``: its tables and its searches, each keyed by
    (board, origin) and cached by that ``Rules`` so that entry and ``legal_moves`` share them."""

    geo: Geo
    origin_moves: Callable[[Board, int], OriginMoves]  # every move of an origin (cached)
    has_move: Callable[[Board, int], bool]  # whether an origin has a move (cached)
    search: Callable[[Board, int], Search]  # a fresh search, to follow one path


def move_tokens(s: Searches, state: State, move: Move) -> tuple[str, ...]:
    """Placement: the cell; choice: the word; movement: origin, destination, then the waypoints
    of its canonical path until it is told apart from the other results at that cell."""
    names = s.geo.grid.names
    if move.kind == "choose":
        return (move.word,)
    if move.kind == "place":
        return (names[move.cells[0]],)
    o, d = move.cells
    assert move.result is not None
    tell = s.origin_moves(state.board, o).telling.get((d, move.result))
    if tell is None:
        raise IllegalMoveError(f"{way_text(names, move.path)} is not a legal move here")
    return (names[o], names[d], *(names[c] for c in tell))


def steps(s: Searches, state: State, prefix: Sequence[str]) -> Steps:
    """Next clicks: cells or words, then an origin's destinations, then telling waypoints."""
    prefix = tuple(prefix)
    geo = s.geo
    names = geo.grid.names
    by_name = geo.grid.by_name
    if state.ending is not None:
        if prefix:
            raise IllegalMoveError("The game is over")
        return Steps(prefix, (), None)
    if state.phase == CHOOSE:
        return choice_steps(prefix)
    if state.phase == SETUP:
        if not prefix:
            return Steps(prefix, tuple(sorted(names)), None)
        if len(prefix) == 1 and prefix[0] in by_name:
            return Steps(prefix, (), prefix[0])
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
    board, colour = state.board, state.colour
    if not prefix:
        first = {names[c] for c in placements(geo, board, colour)}
        first |= {names[o] for o in origins(board, colour) if s.has_move(board, o)}
        return Steps(prefix, tuple(sorted(first)), None)
    c = by_name.get(prefix[0], -1)
    if c < 0:
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
    if not board[c]:
        if len(prefix) == 1 and can_place(geo, board, colour, c):
            return Steps(prefix, (), names[c])
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
    if board[c] & 1 != colour:
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
    moves = s.origin_moves(board, c)
    if len(prefix) == 1:
        if not moves.moves:
            raise IllegalMoveError(f"The stack on {prefix[0]} has no legal move")
        hints = {
            names[d]: hint(s, state, at[0]) if len(at) == 1 else {"results": len(at)}
            for d, at in moves.by_destination.items()
        }
        nxt = tuple(names[d] for d in moves.by_destination)
        return Steps(prefix, tuple(sorted(nxt)), None, hints)
    d = by_name.get(prefix[1], -1)
    at = moves.by_destination.get(d, ())
    if not at:
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
    chosen = tuple(by_name.get(t, -1) for t in prefix[2:])
    following: dict[str, Move] = {}
    complete = None
    count: dict[str, int] = {}
    for move in at:
        assert move.result is not None
        tell = moves.telling[(d, move.result)]
        if tell == chosen:
            complete = move
        elif len(tell) > len(chosen) and tell[: len(chosen)] == chosen:
            token = names[tell[len(chosen)]]
            following[token] = move
            count[token] = count.get(token, 0) + 1
    if complete is None and not following:
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
    hints = {
        t: hint(s, state, m) if count[t] == 1 else {"results": count[t]}
        for t, m in following.items()
    }
    return Steps(
        prefix,
        tuple(sorted(following)),
        None if complete is None else complete.text,
        hints,
    )


def hint(s: Searches, state: State, move: Move) -> dict[str, Any]:
    """What the browser shows before a move is sent: its text, the path and the stacks it
    changes (bottom to top); a placement or a choice only names itself."""
    names = s.geo.grid.names
    if move.kind != "move":
        text = names[move.cells[0]] if move.kind == "place" else move.word
        return {"move": text, "path": [names[c] for c in move.cells]}
    walk = s.search(state.board, move.cells[0]).follow(move.path)
    changed = {
        names[c]: colours_of(walk.board[c])
        for c in range(s.geo.size)
        if walk.board[c] != state.board[c]
    }
    return {
        "move": move.text,
        "path": [names[c] for c in walk.cells],
        "cells": list(changed),
        "waypoints": [names[c] for c in move.path],
        "changes": changed,
    }
