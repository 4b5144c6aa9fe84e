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
from typing import NamedTuple

from ..bitboard import Bitboard, bitboard, one_run


class Geometry:
    """One ``Rules``' board: the shared tables of its size, plus the groups and rims it keeps.

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
        #: per cell, the sets of its neighbours in one run (removing it keeps a set connected)
        self.one_run = one_run(size)
        self._bb = bb
        # For each set of stones, its groups and every cell next to each: the re-placement searches
        # ask for the same stones again and again, and a stone added or stones removed update the
        # groups of the stones before (``grow``, ``shrink``). Bound: 16384 sets of stones, the
        # oldest forgotten first; one whole game on side 7, with every click answered, fills about
        # 2,000.
        self._groups: dict[int, Groups] = {}

    def groups(self, own: int) -> Groups:
        """The groups of ``own`` by lowest cell, each with its rim, kept or computed."""
        known = self._groups.get(own)
        if known is None:
            known = self._keep(own, _group_rims(self._bb, own))
        return known

    def rims(self, own: int) -> tuple[int, ...]:
        """For each group of ``own`` (by lowest cell), every cell next to it."""
        known = self._groups.get(own)
        if known is None:
            known = self._keep(own, _group_rims(self._bb, own))
        return known.rims

    def _keep(self, own: int, groups: Groups) -> Groups:
        memo = self._groups
        memo[own] = groups
        if len(memo) > 16384:
            del memo[next(iter(memo))]
        return groups

    def grow(self, own: int, cells: Iterable[int]) -> int:
        """``own`` with the stones ``cells`` added, one by one; their groups are kept, updated from
        those of ``own`` when known (each stone merges the groups whose rim holds it)."""
        known = self._groups.get(own)
        near = self.near
        for c in cells:
            bit = 1 << c
            grown = own | bit
            if known is not None:
                after = self._groups.get(grown)
                if after is None:
                    groups, rims = list(known.groups), list(known.rims)
                    merged, rim = bit, near[c]
                    for i in range(len(rims) - 1, -1, -1):  # the groups this stone touches
                        if rims[i] & bit:
                            merged |= groups.pop(i)
                            rim |= rims.pop(i)
                    after = self._keep(grown, _placed(groups, rims, merged, rim & ~merged))
                known = after
            own = grown
        return own

    def shrink(self, own: int, cells: int) -> int:
        """``own`` without the stones ``cells``; its groups are kept, updated from those of ``own``
        when known (only the groups that lose stones are flooded again)."""
        left = own & ~cells
        known = self._groups.get(own)
        if known is not None and left not in self._groups:
            groups: list[int] = []
            rims: list[int] = []
            for g, r in zip(known.groups, known.rims, strict=True):
                if g & cells:
                    parts = _group_rims(self._bb, g & ~cells)
                    groups.extend(parts.groups)
                    rims.extend(parts.rims)
                else:
                    groups.append(g)
                    rims.append(r)
            order = sorted(range(len(groups)), key=lambda i: groups[i] & -groups[i])
            self._keep(left, Groups(tuple(groups[i] for i in order), tuple(rims[i] for i in order)))
        return left

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


class Groups(NamedTuple):
    """One colour's groups, ordered by their lowest cell, and each group's rim: the cells next to
    it (not in it)."""

    groups: tuple[int, ...]
    rims: tuple[int, ...]


def _placed(groups: list[int], rims: list[int], group: int, rim: int) -> Groups:
    """``groups`` (ordered by lowest cell) with ``group`` inserted in its place."""
    low = group & -group
    i = 0
    while i < len(groups) and groups[i] & -groups[i] < low:
        i += 1
    groups.insert(i, group)
    rims.insert(i, rim)
    return Groups(tuple(groups), tuple(rims))


def _group_rims(bb: Bitboard, own: int) -> Groups:
    """Each friendly group (by lowest cell) with every cell next to it.

    One flood fill per group gathers the rim on the way, each stone's neighbours looked up once:
    measured on the stones of real games, twice as fast as ``components`` followed by ``dilate``.
    """
    near = bb.near
    groups = []
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
        groups.append(group)
        rims.append(reach & ~group)
        left ^= group
    return Groups(tuple(groups), tuple(rims))


def group_contacts(geo: Geometry, own: int, cells: int) -> list[int]:
    """For each friendly group, the cells of ``cells`` next to it."""
    return [a & cells for a in geo.rims(own)]


def multi_touch(contacts: Iterable[int]) -> int:
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
