"""Jotun's step-wise entry (``Rules.steps``, ``move_tokens``, ``preview``): click the origin, then
the destination, then, only if several results reach that cell, the waypoints of the wanted path
until no other result shares them; ``Steps.hints`` preview each click that completes a move.

``prompt`` says what the next click is for; ``changes`` is the board as it will be after the clicks
so far, read from the moves' results (never by searching again): a placement's new piece; a picked
stack is lifted from its origin at once (every move empties the origin, [A14]: the stack is in hand
while its destination is chosen); once a destination is clicked, every stack that all the moves
still open agree on is drawn as they leave it (the mover on arrival, the stacks it consumed or
fed), and the rest stays as it is until the waypoints tell the results apart. A complete prefix
shows exactly its move.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..base import Steps, play_prompt
from ..errors import IllegalMoveError
from ..pie import CHOOSE, SETUP, choice_prompt, choice_steps
from .notation import OriginMoves, way_text
from .search import Search
from .state import Geo, H, Move, State, can_place, colours_of, origins, placements

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
    if state.phase == CHOOSE:  # [A31] the setup stack is black; White moves next
        (stack,) = (names[c] for c, code in enumerate(state.board) if code)
        return choice_steps(prefix, choice_prompt(f"owns the stack on {stack}", "moves next"))
    if state.phase == SETUP:
        if not prefix:
            return Steps(prefix, tuple(sorted(names)), None, prompt=SETUP_PROMPT)
        if len(prefix) == 1 and prefix[0] in by_name:
            changes = {prefix[0]: colours_of(_piece(state.colour))}
            return Steps(prefix, (), prefix[0], prompt=play_prompt(prefix[0]), changes=changes)
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
    board, colour = state.board, state.colour
    if not prefix:
        places = placements(geo, board, colour)
        movers = [o for o in origins(board, colour) if s.has_move(board, o)]
        first = {names[c] for c in places} | {names[o] for o in movers}
        prompt = START_PROMPTS[bool(places), bool(movers)]
        return Steps(prefix, tuple(sorted(first)), None, prompt=prompt)
    c = by_name.get(prefix[0], -1)
    if c < 0:
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
    if not board[c]:
        if len(prefix) == 1 and can_place(geo, board, colour, c):
            changes = {names[c]: colours_of(_piece(colour))}
            return Steps(prefix, (), names[c], prompt=play_prompt(names[c]), changes=changes)
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
        lifted: dict[str, list[str]] = {prefix[0]: []}
        return Steps(prefix, tuple(sorted(nxt)), None, hints, DESTINATION_PROMPT, lifted)
    d = by_name.get(prefix[1], -1)
    at = moves.by_destination.get(d, ())
    if not at:
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
    chosen = tuple(by_name.get(t, -1) for t in prefix[2:])
    following: dict[str, Move] = {}
    complete = None
    count: dict[str, int] = {}
    still: list[Move] = []  # the moves the clicks so far leave open, but not yet told apart
    for move in at:
        assert move.result is not None
        tell = moves.telling[(d, move.result)]
        if tell == chosen:
            complete = move
        elif len(tell) > len(chosen) and tell[: len(chosen)] == chosen:
            token = names[tell[len(chosen)]]
            following[token] = move
            count[token] = count.get(token, 0) + 1
            still.append(move)
    if complete is None and not following:
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
    hints = {
        t: hint(s, state, m) if count[t] == 1 else {"results": count[t]}
        for t, m in following.items()
    }
    if complete is not None:
        assert complete.text is not None
        changes = _agreed(names, board, c, d, [complete])
        prompt = play_prompt(complete.text)
        if following:
            prompt = f"Play {complete.text}, or pick where it turns"
    else:
        changes = _agreed(names, board, c, d, still)
        n = len(still)
        prompt = f"{_count(n)} paths end here: pick where it turns"
        if chosen:
            prompt = f"{_count(n)} paths still fit: pick where it turns next"
    return Steps(
        prefix,
        tuple(sorted(following)),
        None if complete is None else complete.text,
        hints,
        prompt,
        changes,
    )


#: The opening: seat 1 puts one black piece anywhere.
SETUP_PROMPT = "Set up: place the opening black stack on any cell"
#: The first click of a turn, by (a placement exists, a stack can move).
START_PROMPTS = {
    (True, True): "Place a piece, or pick a stack to move",
    (True, False): "Place a piece (no stack of yours can move)",
    (False, True): "Pick a stack to move (no cell takes a new piece)",
    (False, False): "",  # the game is over before this can be asked [A28]
}
#: Once a stack is picked.
DESTINATION_PROMPT = "Pick where the stack stops"
_WORDS = ("No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten")


def _count(n: int) -> str:
    """``n`` as a capitalised word up to ten (``Two``), else digits."""
    return _WORDS[n] if n < len(_WORDS) else str(n)


def _piece(colour: int) -> int:
    """The code of a stack of one piece of ``colour`` (what a placement puts down)."""
    return H | 1 << 1 | colour


def _agreed(
    names: tuple[str, ...], board: Board, o: int, d: int, moves: Sequence[Move]
) -> dict[str, list[str]]:
    """The stacks every one of ``moves`` (movements from ``o`` to ``d``) leaves the same and
    changes, as they will be: the origin emptied, the mover on arrival, the stacks it consumed or
    fed; read from each move's ``result``, never by searching again."""
    agreed: dict[int, int] | None = None
    for move in moves:
        assert move.result is not None
        after = {
            o: 0,
            **dict(move.result.changes),
            d: move.result.mover,
        }  # d may be listed: consumed first
        if agreed is None:
            agreed = after
        else:
            agreed = {c: v for c, v in agreed.items() if after.get(c, board[c]) == v}
    assert agreed is not None
    return {names[c]: colours_of(v) for c, v in agreed.items() if v != board[c]}


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
