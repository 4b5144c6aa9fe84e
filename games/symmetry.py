"""Position keys folded over the hexagon's symmetries: the opening explorer's keys (issue 28).

A hex-hex board has 12 symmetries: the 6 rotations about its centre and the 6 reflections (the
rotations of one mirror image). A game declares the ones its rules leave invariant as
``Rules.symmetries`` (:data:`ALL` or :data:`IDENTITY`); its ``position_key`` names a position by a
short text that is the same for every image of the position under those symmetries, and differs
between positions that differ in play (side to move, the pie's phase, passes, ...). Each game's
docstring of ``position_key`` lists what it puts in the key and why.

Why a game declares no symmetry: a rule that breaks ties by the fixed direction order E, NE, NW,
W, SW, SE (``shared/rules/README.md``) is not invariant under any rotation or reflection, since
each of them reorders the directions. Jotun's passive consumptions are ordered that way
(``jotun.md`` A22), and so is Exxit's liberation chain (``exxit.md`` §6.3). The other three
games' rules never look at a direction's rank, only at the set of the six, so all 12 symmetries
hold; a notation's reading order is not a rule (a move's canonical text changes with the board's
orientation, its effect does not).

A key is a digest of the least (in text order) of the position's images, written as one line of
cell contents plus the position's other fields; 16 characters of URL-safe base64 (96 bits of
BLAKE2b), fine for a database column and a URL.

>>> [transform(c, (1, False)) for c in [(1, 0), (0, 1)]]
[(0, 1), (-1, 1)]
>>> cells = ["", "x", "", "", "", "", ""]
>>> mirrored = [cells[j] for j in permutation(2, (0, True))]
>>> fold_cells(2, cells, "black", ALL) == fold_cells(2, mirrored, "black", ALL)
True
>>> fold_cells(2, cells, "black", ALL) == fold_cells(2, cells, "white", ALL)
False
>>> move_image(2, "a1-b3@c2", (3, False))
'c2-b1@a1'
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from functools import cache

from .hexgrid import Hex, hex_board

#: A symmetry of the board: first mirrored (q and r swapped) if ``[1]``, then turned ``[0]``
#: sixths of a full turn about the centre (``games.hexgrid.rotate``).
Transform = tuple[int, bool]

IDENTITY: tuple[Transform, ...] = ((0, False),)
#: The 12 symmetries of the hexagon, the identity first.
ALL: tuple[Transform, ...] = tuple(
    (turns, mirrored) for mirrored in (False, True) for turns in range(6)
)

KEY_LENGTH = 16
_CELL_NAME = re.compile(r"[a-z][0-9]+")


def transform(h: Hex, t: Transform) -> Hex:
    """The image of cell ``h`` under ``t`` (a mirror in the line q = r, then a rotation)."""
    q, r = h
    if t[1]:
        q, r = r, q
    for _ in range(t[0] % 6):
        q, r = -r, q + r
    return (q, r)


@cache  # at most 12 per board side, and the games offer a handful of sides
def permutation(size: int, t: Transform) -> tuple[int, ...]:
    """For each cell index of the board of side ``size`` (reading order), the index of the cell
    whose content the image under ``t`` shows there: ``image[i] = cells[permutation[i]]``."""
    board = hex_board(size)
    inverse = [0] * len(board)
    for i, cell in enumerate(board.cells):
        inverse[board.index[transform(cell, t)]] = i
    return tuple(inverse)


def digest(text: str) -> str:
    """A short, stable name of ``text``: 16 characters of URL-safe base64 of its BLAKE2b."""
    raw = hashlib.blake2b(text.encode(), digest_size=KEY_LENGTH * 3 // 4).digest()
    return base64.urlsafe_b64encode(raw).decode()


def fold_cells(size: int, cells: Sequence[str], extra: str, group: Sequence[Transform]) -> str:
    """The key of a position on the board of side ``size`` whose cell ``i`` (reading order) holds
    ``cells[i]`` (``""`` when empty; a content must not contain ``,`` or ``|``), and whose other
    fields are written ``extra``: the digest of the least image under ``group``."""
    best: list[str] | None = None
    for t in group:
        image = [cells[j] for j in permutation(size, t)]
        if best is None or image < best:
            best = image
    assert best is not None
    return digest(f"{extra}|{','.join(best)}")


def bits_cells(size: int, stones: Sequence[int], letters: str) -> list[str]:
    """The cell contents of bitsets ``stones`` (bit i: cell i), one letter of ``letters`` per
    bitset: what :func:`fold_cells` reads for games of single stones."""
    out = [""] * len(hex_board(size))
    for bits, letter in zip(stones, letters, strict=True):
        i = 0
        while bits:
            if bits & 1:
                out[i] = letter
            bits >>= 1
            i += 1
    return out


def move_image(size: int, text: str, t: Transform) -> str:
    """``text`` with every cell name of the board of side ``size`` replaced by its image under
    ``t`` (words unchanged): the same move on the image of the position, though maybe not in
    canonical form (parse it there, then format it, to get that)."""
    board = hex_board(size)

    def image(match: re.Match[str]) -> str:
        i = board.by_name.get(match.group(0))
        return match.group(0) if i is None else board.name(transform(board.cells[i], t))

    return _CELL_NAME.sub(image, text)
