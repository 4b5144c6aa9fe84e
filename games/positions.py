"""Positions built directly from a description, for the rules pages' diagrams, tests and analysis.

Each builder gives a play-phase position as if an ordinary game had just reached it. What a
description does not say gets the plainest mid-game value: Black sits on seat 1 (the pie choice is
made), nobody has just passed, the position occurs for the first time (repetition history), and on
Exxit's field every pawn not on the field is in its owner's reserve and every tile not on the field
is in the stock.

:func:`position` reads the one description every game shares: cell name -> pieces bottom to top as
letters (``{"e5": "WBB"}``: a white piece under two black ones; ``B`` black, ``W`` white, ``R`` red),
the colour to move, and on Exxit's field the tiles (``{"0,0": "R"}``; a stack on a cell without a tile
is a prisoner stack). The per-game builders below it take each game's own terms.

>>> from games import sgolte
>>> state = position(sgolte.Rules(size=5), {"c5": "B", "e3": "W"}, to_move="white")
>>> sgolte.Rules(size=5).to_move(state)
2
>>> position(sgolte.Rules(size=5), {"c5": "BW"}, to_move="black")
Traceback (most recent call last):
...
ValueError: sgolte has no stacks, but the description has {'c5': 'BW'}
>>> position(sgolte.Rules(size=5), {"k1": "B"}, to_move="red")
Traceback (most recent call last):
...
ValueError: sgolte: 'red' does not play, black and white do
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import exxit, harmijan, jotun, sgolte, valaturna
from .base import Rules
from .hexgrid import Hex, HexBoard, hex_board
from .seats import BLACK, COLOURS, WHITE, Colour
from .seats import LETTERS as PIECE_LETTERS

#: A description's piece letters and the colours they stand for.
LETTERS: dict[str, str] = {"B": "black", "W": "white", "R": "red"}
#: The letters of each game's colours where they are not black and white.
_LETTERS_OF: dict[str, str] = {"exxit": "RB"}

JOTUN_RULES = jotun.Rules()
EXXIT_RULES = exxit.Rules()


def position(
    rules: Rules[Any, Any],
    stacks: Mapping[str, str],
    to_move: str,
    tiles: Mapping[str, str] | None = None,
) -> Any:
    """The play-phase position of ``rules``'s game that a description gives, ``to_move`` to move.

    ValueError naming the cell or colour if the description cannot be such a position: a cell not
    on the board, a letter of a colour the game has not, a stack in a game without stacks, tiles
    anywhere but on Exxit's field.
    """
    game = rules.slug
    letters = _LETTERS_OF.get(game, "BW")
    colours = " and ".join(LETTERS[letter] for letter in letters)
    if to_move not in (LETTERS[letter] for letter in letters):
        raise ValueError(f"{game}: {to_move!r} does not play, {colours} do")
    if tiles is not None and game != "exxit":
        raise ValueError(f"{game} has no tiles; only Exxit's field has")
    stacks = {cell: pieces for cell, pieces in stacks.items() if pieces}
    tiles = tiles or {}
    for cell, pieces in [*stacks.items(), *tiles.items()]:
        if not set(pieces) <= set(letters):
            raise ValueError(
                f"{game}: {cell} holds {pieces!r}; the letters are {letters} ({colours})"
            )
    if any(len(tile) != 1 for tile in tiles.values()):
        raise ValueError(f"exxit: a tile is one letter, R or B, not {sorted(tiles.values())}")
    if game != "exxit":
        names = {cell["id"] for cell in rules.view(rules.initial_state())["cells"]}
        unknown = sorted(set(stacks) - names)
        if unknown:
            raise ValueError(f"{game}: no cells {', '.join(unknown)} on this board")
    return _FROM_DESCRIPTION[game](rules, stacks, to_move, tiles)


# --- each game's builder, in its own terms ---------------------------------------------------------


def jotun_position(
    stacks: Mapping[str, str], to_move: str = "black", rules: jotun.Rules = JOTUN_RULES
) -> jotun.State:
    """A Jotun position: ``{"e5": "WBB"}`` (pieces bottom to top), ``to_move`` a colour name."""
    return rules.position(stacks, to_move=to_move)


def valaturna_position(
    rules: valaturna.Rules,
    black: str = "",
    white: str = "",
    stacks: Mapping[str, str] | None = None,
    turn: Colour | str = BLACK,
    phase: str = "play",
    passes: int = 0,
    first_passer: Colour | None = None,
) -> valaturna.State:
    """A Valaturna position: single pieces on the space-separated points ``black`` and ``white``,
    and ``stacks`` mapping a point to its pieces bottom to top (``"wb"``); Seat 1 is Black.
    ``turn`` is the colour to move: an index (``games.seats``) or its letter, as in ``stacks``."""
    cells = [""] * len(rules.board)
    for name in black.split():
        cells[rules.board.by_name[name]] = PIECE_LETTERS[BLACK]
    for name in white.split():
        cells[rules.board.by_name[name]] = PIECE_LETTERS[WHITE]
    for name, pieces in (stacks or {}).items():
        cells[rules.board.by_name[name]] = pieces
    return valaturna.State(
        stacks=tuple(cells),
        phase=phase,
        black_seat=1,
        colour=PIECE_LETTERS.index(turn) if isinstance(turn, str) else turn,
        passes=passes,
        first_passer=first_passer,
    )


def stone_bits(board: HexBoard, names: str) -> int:
    """The bitset (bit i for cell i in reading order) of the space-separated cells ``names``.

    >>> bin(stone_bits(hex_board(2), "a1 b1"))
    '0b101'
    """
    mask = 0
    for name in names.split():
        mask |= 1 << board.by_name[name]
    return mask


def harmijan_position(
    black: str, white: str, colour: Colour = BLACK, size: int = 6
) -> harmijan.State:
    """A Harmijan position with stones on the space-separated cells ``black`` and ``white``;
    Black on seat 1, ``colour`` to move, as if just reached (its first occurrence)."""
    board = hex_board(size)
    stones = (stone_bits(board, black), stone_bits(board, white))
    return harmijan.State(
        stones=stones, phase="play", black_seat=1, colour=colour, history=((*stones, colour),)
    )


def exxit_position(
    tiles: Mapping[Hex, int],
    stacks: Mapping[Hex, exxit.Stack],
    mover: Colour = exxit.RED,
    stock: int | None = None,
    rules: exxit.Rules = EXXIT_RULES,
) -> exxit.State:
    """An Exxit position: ``tiles`` and ``stacks`` (pawns bottom to top, prisoners off the tiles).

    Pawns are conserved, so each reserve holds the pawns of its colour that are not on the field;
    the stock holds the variant's tiles not on the field unless ``stock`` says otherwise.
    """
    red, black = (
        exxit.PAWNS - sum(stack.count(colour) for stack in stacks.values())
        for colour in (exxit.RED, exxit.BLACK)
    )
    return exxit.make_state(
        tiles,
        stacks,
        reserves=(red, black),
        stock=rules.total_tiles - len(tiles) if stock is None else stock,
        mover=mover,
    )


# --- from the shared description to each game's terms ----------------------------------------------


def _stones(game: str, stacks: Mapping[str, str], letter: str) -> list[str]:
    """The cells holding one stone of ``letter``, for the games whose stones never stack."""
    tall = {cell: pieces for cell, pieces in stacks.items() if len(pieces) > 1}
    if tall:
        raise ValueError(f"{game} has no stacks, but the description has {tall}")
    return [cell for cell, pieces in stacks.items() if pieces == letter]


def _jotun(
    rules: Rules[Any, Any], stacks: Mapping[str, str], to_move: str, _: Mapping[str, str]
) -> jotun.State:
    assert isinstance(rules, jotun.Rules)
    return jotun_position(stacks, to_move=to_move, rules=rules)


def _valaturna(
    rules: Rules[Any, Any], stacks: Mapping[str, str], to_move: str, _: Mapping[str, str]
) -> valaturna.State:
    assert isinstance(rules, valaturna.Rules)
    letters = {"B": PIECE_LETTERS[BLACK], "W": PIECE_LETTERS[WHITE]}
    lowered = {cell: "".join(letters[p] for p in pieces) for cell, pieces in stacks.items()}
    return valaturna_position(rules, stacks=lowered, turn=valaturna.COLOURS_BY_NAME[to_move])


def _harmijan(
    rules: Rules[Any, Any], stacks: Mapping[str, str], to_move: str, _: Mapping[str, str]
) -> harmijan.State:
    black, white = (" ".join(_stones(rules.slug, stacks, letter)) for letter in "BW")
    size = rules.options["size"]
    assert isinstance(size, int)
    return harmijan_position(black, white, COLOURS.index(to_move), size=size)


def _sgolte(
    rules: Rules[Any, Any], stacks: Mapping[str, str], to_move: str, _: Mapping[str, str]
) -> sgolte.State:
    assert isinstance(rules, sgolte.Rules)
    black, white = (_stones(rules.slug, stacks, letter) for letter in "BW")
    return rules.position(black, white, to_move=to_move)


def _exxit(
    rules: Rules[Any, Any], stacks: Mapping[str, str], to_move: str, tiles: Mapping[str, str]
) -> exxit.State:
    assert isinstance(rules, exxit.Rules)
    seat = {name: colour for colour, name in enumerate(exxit.COLOURS)}
    return exxit_position(
        {_hex(cell): seat[LETTERS[tile]] for cell, tile in tiles.items()},
        {_hex(cell): tuple(seat[LETTERS[p]] for p in pieces) for cell, pieces in stacks.items()},
        mover=seat[to_move],
        rules=rules,
    )


def _hex(name: str) -> Hex:
    """Exxit's cell ``"q,r"`` as coordinates; ValueError naming it otherwise."""
    try:
        q, r = (int(part) for part in name.split(","))
    except ValueError:
        raise ValueError(f"exxit: {name!r} is no cell (cells are written q,r)") from None
    return (q, r)


_FROM_DESCRIPTION: dict[str, Callable[..., Any]] = {
    "jotun": _jotun,
    "valaturna": _valaturna,
    "harmijan": _harmijan,
    "sgolte": _sgolte,
    "exxit": _exxit,
}
