"""Harmijan's step-wise entry (``Rules.steps``): setup = the two black cells, then the two white
cells, each pair in either order; turn = stone, destination, new stone; ``black``/``white``;
``pass``. ``hints`` preview each click in the browser's vocabulary (board.js): a stone's
destinations, the slide's path and whether it bites, and the stones as the click would leave them.

``prompt`` says what the next click is for; ``changes`` is the board as it will be after the clicks
so far: the setup's clicked cells hold their stones (the first pair black, the second white); in a
turn, the stone picked to move is lifted from its origin at once (every turn empties it: the stone
is in hand while its destination is chosen), the second click puts it down on its destination (a
bitten enemy stone is gone), and the third adds the new stone. The origin is then empty unless the
new stone goes there (decision 6). So the placement's lines are shown through the vacated origin,
as the rules read them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..base import Steps, play_prompt
from ..bitboard import bits
from ..errors import IllegalMoveError
from ..hexgrid import HexBoard
from ..pie import CHOOSE, PLAY, SETUP, cells_text, choice_prompt, choice_steps
from ..seats import COLOURS, other
from .notation import write_move
from .state import PASS, Setup, State, Turn, own_enemy

#: source -> target -> bitset of places for (own, enemy) stones: ``Rules``' cached ``turn_table``
TurnTable = Callable[[int, int], dict[int, dict[int, int]]]


def steps(board: HexBoard, turn_table: TurnTable, state: State, prefix: Sequence[str]) -> Steps:
    """Legal next clicks after ``prefix``; a setup pair may be clicked in either order."""
    prefix = tuple(prefix)
    if state.phase == SETUP:
        return _setup_steps(board, prefix)
    if state.phase == CHOOSE:  # [H16] Black moves first
        black, white = (cells_text([board.names[i] for i in bits(s)]) for s in state.stones)
        prompt = choice_prompt(
            f"owns the stones on {black} and moves first", f"owns the stones on {white}"
        )
        return choice_steps(prefix, prompt)
    if state.phase == PLAY and not state.must_pass:
        return _turn_steps(board, turn_table, state, prefix)
    words: tuple[str, ...] = (PASS,) if state.phase == PLAY else ()
    if not prefix:
        return Steps(prefix, words, None, prompt="You have no turn: pass" if words else "")
    if len(prefix) == 1 and prefix[0] in words:
        return Steps(prefix, (), prefix[0], prompt=play_prompt(prefix[0]))
    raise IllegalMoveError(_nowhere(prefix))


def _setup_steps(board: HexBoard, prefix: tuple[str, ...]) -> Steps:
    """The next setup clicks: a black pair, then a white pair, each of adjacent cells."""
    if len(prefix) > 4:
        raise IllegalMoveError(_nowhere(prefix))
    cells: list[int] = []
    for k, token in enumerate(prefix):
        i = board.by_name.get(token)
        options = _setup_options(board, cells)
        if i is None or i not in options:
            raise IllegalMoveError(_nowhere(prefix[: k + 1]))
        cells.append(i)
    changes = {board.names[i]: [COLOURS[k // 2]] for k, i in enumerate(cells)}
    if len(cells) == 4:
        move = Setup(
            black=(min(cells[0], cells[1]), max(cells[0], cells[1])),
            white=(min(cells[2], cells[3]), max(cells[2], cells[3])),
        )
        text = write_move(board, State(), move)
        return Steps(prefix, (), text, prompt=play_prompt(text), changes=changes)
    following = tuple(board.names[i] for i in _setup_options(board, cells))
    # a preview of the stone the next click places (board.js draws ``changes`` as ghosts)
    colour = COLOURS[len(cells) // 2]
    hints = {c: {"changes": {c: [colour]}} for c in following}
    return Steps(prefix, following, None, hints, _SETUP_PROMPTS[len(cells)], changes)


#: What each setup click is for: a black pair, then a white pair, each of two touching cells.
_SETUP_PROMPTS = (
    "Set up: place the first black stone",
    "Place the second black stone next to it",
    "Place the first white stone",
    "Place the second white stone next to it",
)


def _setup_options(board: HexBoard, cells: list[int]) -> list[int]:
    """The cells that may be clicked after ``cells`` in the setup (black pair, white pair)."""
    adjacent = board.adjacent
    taken = set(cells)
    if len(cells) in (1, 3):
        return sorted(j for j in adjacent[cells[-1]] if j not in taken)
    # a first stone of a pair needs a free neighbour for its partner
    return [
        i for i in range(len(board)) if i not in taken and any(j not in taken for j in adjacent[i])
    ]


def _turn_steps(
    board: HexBoard, turn_table: TurnTable, state: State, prefix: tuple[str, ...]
) -> Steps:
    """The next turn clicks: a stone, its destination, the new stone's cell."""
    names, by_name = board.names, board.by_name
    table = turn_table(*own_enemy(state))
    cells: list[int] = []
    for k, token in enumerate(prefix):
        i = by_name.get(token, -1)
        if k == 0:
            ok = i in table
        elif k == 1:
            ok = i in table[cells[0]]
        else:
            ok = k == 2 and i >= 0 and bool(table[cells[0]][cells[1]] >> i & 1)
        if not ok:
            raise IllegalMoveError(_nowhere(prefix[: k + 1]))
        cells.append(i)
    colour = [COLOURS[state.colour]]
    pending: dict[int, list[str]] = {}
    for k, i in enumerate(cells):  # lifted, put down on its destination, then the new stone
        pending[i] = [] if k == 0 else colour
    if len(cells) == 3 and cells[2] == cells[0]:  # the new stone back on the origin [6]
        del pending[cells[0]]
    changes = {names[i]: stack for i, stack in pending.items()}
    if len(cells) == 3:
        text = write_move(board, state, Turn(source=cells[0], target=cells[1], place=cells[2]))
        return Steps(prefix, (), text, prompt=play_prompt(text), changes=changes)
    # previews in board.js's vocabulary: ``cells`` to mark, a ``path``, ghost ``changes``
    hints: dict[str, Any]
    if not cells:
        hints = {names[s]: {"cells": [names[x] for x in sorted(table[s])]} for s in sorted(table)}
    elif len(cells) == 1:
        s = cells[0]
        enemy = state.stones[other(state.colour)]
        hints = {
            names[x]: {
                "path": [names[s], names[x]],
                "changes": {names[s]: [], names[x]: colour},
                "bite": bool(enemy >> x & 1),
            }
            for x in sorted(table[s])
        }
    else:
        places = bits(table[cells[0]][cells[1]])
        hints = {names[y]: {"changes": {names[y]: colour}} for y in places}
    prompt = _TURN_PROMPTS[len(cells)] if hints else ""
    return Steps(prefix, tuple(hints), None, hints, prompt, changes)


#: What each click of a turn is for: the stone to move, its destination, the new stone.
_TURN_PROMPTS = (
    "Pick the stone to move",
    "Pick where it slides to",
    "Place the new stone in line with it",
)


def _nowhere(prefix: Sequence[str]) -> str:
    """The message for clicks that no legal move continues."""
    return f"No legal move starts with {' '.join(prefix)}"
