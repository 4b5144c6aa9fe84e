"""Positions built directly from cell names, shared by the engines' tests and the rules pages' test.

Each builder gives a play-phase position as if an ordinary game had just reached it. What a position
written by hand does not say gets the plainest mid-game value: Black sits on seat 1 (the pie choice
is made), nobody has just passed, the position occurs for the first time (repetition history), and on
Exxit's field every pawn not on the field is in its owner's reserve and every tile not on the field is
in the stock.
"""

from __future__ import annotations

from collections.abc import Mapping

from games import exxit, harmijan, jotun, valaturna
from games.hexgrid import Hex, HexBoard, hex_board
from games.seats import BLACK, LETTERS, WHITE, Colour

JOTUN_RULES = jotun.Rules()


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
        cells[rules.board.by_name[name]] = LETTERS[BLACK]
    for name in white.split():
        cells[rules.board.by_name[name]] = LETTERS[WHITE]
    for name, pieces in (stacks or {}).items():
        cells[rules.board.by_name[name]] = pieces
    return valaturna.State(
        stacks=tuple(cells),
        phase=phase,
        black_seat=1,
        colour=LETTERS.index(turn) if isinstance(turn, str) else turn,
        passes=passes,
        first_passer=first_passer,
    )


def stone_bits(board: HexBoard, names: str) -> int:
    """The bitset (bit i for cell i in reading order) of the space-separated cells ``names``."""
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


EXXIT_RULES = exxit.Rules()


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
