"""Sgolte's board on the bitset toolkit (:mod:`games.bitboard`), and its friendly groups.

Bit i is cell i of the hex board in reading order, so "the lowest index" of the spec is the lowest
bit. Sgolte once kept its own padded-row layout, which grows a set by seven shifts whatever its size;
measured against :class:`~games.bitboard.Bitboard` on ``python -m games bench sgolte`` (CPU time,
per-position minimum of eight runs), the padded layout was no faster: equal at the median, about 10%
slower at the 90th and 99th percentiles of ``legal_moves``. The small floods that dominate the
searches cost less by table than by shifts, so Sgolte uses the one toolkit.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache, partial

from ..bitboard import Bitboard, bitboard


class Geometry:
    """One ``Rules``' board: the shared tables of its size, plus a bounded cache of group rims.

    Built per ``Rules`` rather than per size so that the cache of one game (or of a bot's millions of
    positions) never evicts the entries of another.
    """

    def __init__(self, size: int) -> None:
        bb = bitboard(size)
        self.n = size
        self.board = bb.board
        self.names = bb.board.names
        self.by_name = bb.board.by_name
        self.step = bb.board.step
        self.near = bb.near
        self.all = bb.all
        self.dilate = bb.dilate
        self.flood = bb.flood
        self.components = bb.components
        self.connected = bb.connected
        # For each friendly group, every cell next to it: the re-placement searches ask for the same
        # stones again and again. Bound: 16384 sets of stones; one whole game on side 7, with every
        # click answered, fills about 2,000.
        self.rims = lru_cache(maxsize=16384)(partial(_group_rims, bb))

    def splits(self, s: int) -> bool:
        """Whether ``s`` has two or more components."""
        return s != 0 and self.flood(s & -s, s) != s

    def parse(self, name: str) -> int:
        """The index of the cell named ``name`` (InvalidMoveError naming it if there is none)."""
        return self.board.parse_index(name)

    def names_of(self, cells: Iterable[int]) -> tuple[str, ...]:
        """The names of ``cells``, in their order."""
        names = self.names
        return tuple(names[c] for c in cells)


def _group_rims(bb: Bitboard, own: int) -> tuple[int, ...]:
    """For each friendly group (by lowest cell), every cell next to it.

    One flood fill per group gathers the rim on the way, each stone's neighbours looked up once:
    measured on the stones of real games, twice as fast as ``components`` followed by ``dilate``.
    """
    near = bb.near
    rims = []
    left = own
    while left:
        group = frontier = left & -left
        reach = 0
        while frontier:
            grow = 0
            while frontier:
                low = frontier & -frontier
                grow |= near[low.bit_length() - 1]
                frontier ^= low
            reach |= grow
            frontier = grow & left & ~group
            group |= frontier
        rims.append(reach & ~group)
        left ^= group
    return tuple(rims)


def group_contacts(geo: Geometry, own: int, cells: int) -> list[int]:
    """For each friendly group, the cells of ``cells`` next to it."""
    return [a & cells for a in geo.rims(own)]


def multi_touch(contacts: list[int]) -> int:
    """Cells that appear in two or more of the contact sets (they touch two friendly groups)."""
    once = twice = 0
    for a in contacts:
        twice |= once & a
        once |= a
    return twice


def merging_cells(geo: Geometry, own: int, cells: int) -> int:
    """The cells of ``cells`` touching two or more friendly groups: merging placements [1]."""
    return multi_touch(group_contacts(geo, own, cells))


def touch(geo: Geometry, own: int, cell: int) -> int:
    """The number of distinct friendly groups next to ``cell``."""
    near = geo.near[cell] & own
    count = 0
    while near:
        count += 1
        near &= ~geo.flood(near & -near, own)
    return count
