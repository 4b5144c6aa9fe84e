"""Sets of cells as Python ints: bit iteration, masks, neighbour masks and flood fill.

One toolkit for every game that keeps cells in bitsets. Bit ``i`` is cell ``i`` of a
:class:`~games.hexgrid.HexBoard`, whose cells are in reading order, so "the lowest cell" of a set is
its lowest bit. A :class:`Bitboard` holds one board's neighbour masks; build it once per board size
with :func:`bitboard` (cached).

>>> list(bits(0b10110))
[1, 2, 4]
>>> mask((1, 2, 4)) == 0b10110
True
>>> b = bitboard(2)  # 7 cells: a1 a2 / b1 b2 b3 / c1 c2
>>> [b.board.names[i] for i in bits(b.near[3])]  # the neighbours of the centre, b2
['a1', 'a2', 'b1', 'b3', 'c1', 'c2']
>>> b.components(mask((0, 1, 5, 6))) == [mask((0, 1)), mask((5, 6))]
True

A :class:`Lines` lays the same board out for shifts instead (:func:`lines`, cached): one row of
``2 * size`` bits per row of the board, so that a step in a direction is one shift of the whole set
and a ray through empty cells is a few shifts, not a loop over cells. Its bit order is reading
order too, so the ``k``-th set bit of one of its sets is the ``k``-th of those cells in reading order.

>>> ln = lines(2)
>>> a1 = 1 << ln.bit[0]  # a stone on a1; every other cell is empty
>>> [ln.board.names[i] for i in ln.cells(ln.sight(a1, ln.all & ~a1))]
['a2', 'b1', 'b2', 'c2']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from .hexgrid import DIRECTIONS, HexBoard, hex_board


def bits(m: int) -> Iterator[int]:
    """The set bits of ``m``, lowest first."""
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


def bit_list(m: int) -> list[int]:
    """The set bits of ``m``, lowest first, as a list: ``list(bits(m))`` without a generator's
    cost, for hot loops.

    >>> bit_list(0b10110)
    [1, 2, 4]
    """
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def mask(cells: Iterable[int]) -> int:
    """The set of ``cells`` (bit indices)."""
    out = 0
    for c in cells:
        out |= 1 << c
    return out


def lowest(m: int) -> int:
    """The index of the lowest set bit of ``m`` (``m`` must not be 0).

    >>> lowest(0b1000)
    3
    """
    return (m & -m).bit_length() - 1


# per byte value: how many bits it has set, and which, lowest first (for nth)
_BYTE_COUNT = tuple(b.bit_count() for b in range(256))
_BYTE_BITS = tuple(tuple(i for i in range(8) if b >> i & 1) for b in range(256))


def nth(m: int, k: int) -> int:
    """The index of the set bit of ``m`` that has ``k`` set bits below it (``k`` from 0), read a
    byte at a time; ValueError if ``m`` has no more than ``k`` bits set.

    >>> nth(0b101100, 0), nth(0b101100, 2), nth(1 << 200 | 1, 1)
    (2, 5, 200)
    """
    base = 0
    for byte in m.to_bytes((m.bit_length() + 7) // 8, "little"):
        c = _BYTE_COUNT[byte]
        if k < c:
            return base + _BYTE_BITS[byte][k]
        k -= c
        base += 8
    raise ValueError(f"{m:#x} has no bit {k} (counting from 0)")


def count(m: int) -> int:
    """How many bits of ``m`` are set.

    >>> count(0b1011)
    3
    """
    return m.bit_count()


@dataclass(frozen=True, eq=False)  # one per board size: hashed by identity, cheaply, in caches
class Bitboard:
    """The neighbour masks of one board: ``near[i]`` (the neighbours of cell ``i``) and
    ``closed[i]`` (the same and ``i`` itself)."""

    board: HexBoard
    near: tuple[int, ...]
    closed: tuple[int, ...]

    @property
    def all(self) -> int:
        """Every cell of the board."""
        return (1 << len(self.near)) - 1

    def dilate(self, m: int) -> int:
        """``m`` and every cell next to it."""
        closed = self.closed
        out = 0
        while m:
            low = m & -m
            out |= closed[low.bit_length() - 1]
            m ^= low
        return out

    def neighbours(self, m: int) -> int:
        """The cells next to ``m`` that are not in it."""
        return self.dilate(m) & ~m

    def flood(self, seed: int, within: int) -> int:
        """The cells of ``within`` connected to ``seed`` through ``within`` (``seed`` included)."""
        near = self.near
        region = frontier = seed
        while frontier:
            grow = 0
            while frontier:
                low = frontier & -frontier
                grow |= near[low.bit_length() - 1]
                frontier ^= low
            frontier = grow & within & ~region
            region |= frontier
        return region

    def components(self, m: int) -> list[int]:
        """The connected components of ``m``, ordered by their lowest cell."""
        # a flood that takes each cell out of ``m`` as it reaches it, so every cell is looked at
        # once and no mask of the region so far is needed (Harmijan lists creatures in its hot path)
        near = self.near
        out = []
        while m:
            low = m & -m
            m ^= low
            part = frontier = low
            while frontier:
                grow = 0
                while frontier:
                    bit = frontier & -frontier
                    grow |= near[bit.bit_length() - 1]
                    frontier ^= bit
                grow &= m
                m ^= grow
                part |= grow
                frontier = grow
            out.append(part)
        return out

    def connected(self, m: int) -> bool:
        """Whether ``m`` is non-empty and in one piece."""
        return m != 0 and self.flood(m & -m, m) == m


@cache  # one bitboard per board size: bounded by the few sizes the games offer
def bitboard(size: int) -> Bitboard:
    """The bitboard of the hex-hex board of side ``size``."""
    board = hex_board(size)
    near = tuple(mask(row) for row in board.adjacent)
    return Bitboard(board, near, tuple(m | 1 << i for i, m in enumerate(near)))


@dataclass(frozen=True, eq=False)  # one per board size, like Bitboard
class Lines:
    """A hex-hex board laid out for shifts: cell ``(q, r)`` of side ``n`` is bit
    ``(r + n - 1) * width + q + n - 1`` with ``width = 2 * n``, one spare column per row, so a
    step off the board in any direction lands on a bit that is no cell (or falls off the int).

    ``bit[i]`` is the bit of cell ``i`` (reading order), ``cell[b]`` the cell of bit ``b`` (-1 for
    no cell), ``all`` the set of every cell, ``shifts`` the signed shift of each direction
    (E, NE, NW, W, SW, SE; positive means ``<<``).
    """

    board: HexBoard
    width: int
    bit: tuple[int, ...]
    cell: tuple[int, ...]
    all: int
    shifts: tuple[int, ...]

    def cells(self, m: int) -> list[int]:
        """The cell indices of the set ``m`` of this layout, in reading order."""
        cell = self.cell
        out = []
        while m:
            low = m & -m
            out.append(cell[low.bit_length() - 1])
            m ^= low
        return out

    def sight(self, seed: int, empty: int) -> int:
        """The cells of ``empty`` (a set of cells: no spare bit) from which a straight line
        through ``empty`` cells only (none at all when adjacent) reaches a cell of ``seed``:
        ``seed``'s rays walked out, each up to its first cell that is not in ``empty``."""
        out = 0
        for s in self.shifts:
            if s > 0:
                g = (seed << s) & empty
                while g:
                    out |= g
                    g = (g << s) & empty
            else:
                s = -s
                g = (seed >> s) & empty
                while g:
                    out |= g
                    g = (g >> s) & empty
        return out


@cache  # one layout per board size, like bitboard()
def lines(size: int) -> Lines:
    """The shift layout of the hex-hex board of side ``size``."""
    board = hex_board(size)
    m = size - 1
    width = 2 * size
    bit = tuple((r + m) * width + q + m for q, r in board.cells)
    cell = [-1] * ((2 * m + 1) * width)
    for i, b in enumerate(bit):
        cell[b] = i
    shifts = tuple(dr * width + dq for dq, dr in DIRECTIONS)
    return Lines(board, width, bit, tuple(cell), mask(bit), shifts)


@cache  # one table per board size
def one_run(size: int) -> tuple[frozenset[int], ...]:
    """For each cell ``i`` of the board of side ``size``, the non-empty sets of its neighbours (as
    masks) that form one run around it: removing ``i`` from a connected set whose cells next to
    ``i`` are such a set leaves it connected, since each cell of a run touches the next. A set of
    neighbours in two or more runs may or may not be joined elsewhere: only a flood can tell.

    >>> b, runs = bitboard(2), one_run(2)  # the centre b2 is cell 3; a1, a2 are cells 0, 1
    >>> mask((0, 1)) in runs[3], mask((0, 6)) in runs[3], 0 in runs[3]
    (True, False, False)
    """
    board = hex_board(size)
    out = []
    for ring in board.step:  # the six neighbours in direction order, -1 off the board
        runs = set()
        for pattern in range(1, 64):
            if any(pattern >> d & 1 and ring[d] < 0 for d in range(6)):
                continue
            starts = sum(1 for d in range(6) if pattern >> d & 1 and not pattern >> (d - 1) % 6 & 1)
            if starts <= 1:  # one run, or the whole ring
                runs.add(mask(ring[d] for d in range(6) if pattern >> d & 1))
        out.append(frozenset(runs))
    return tuple(out)


__all__ = [
    "Bitboard",
    "Lines",
    "bit_list",
    "bitboard",
    "bits",
    "count",
    "lines",
    "lowest",
    "mask",
    "nth",
    "one_run",
]
