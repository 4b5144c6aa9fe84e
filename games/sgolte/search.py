"""The existence searches of one ``Rules``: which placements and captures are legal, with the
bounded caches that the clicks of one position, and the positions of one game, share.

Every cache here (and the group rims of :class:`~.geometry.Geometry`) belongs to one ``Rules``, so
a bot's millions of positions fill only the caches of its own ``Rules`` and never evict the entries
of a human game. Each bound is stated where the cache is built; one whole random game on side 7, every
click of it answered, fills at most a few thousand entries of any of them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import lru_cache, partial
from typing import NamedTuple

from ..bitboard import bits
from .capture import (
    Capture,
    big_groups,
    dense_completion,
    dense_find,
    dense_order,
    dense_sets,
    feasible,
    group_lines,
)
from .geometry import Geometry, merging_cells, multi_touch
from .replace import replace_options


class Placement(NamedTuple):
    """A legal placement: quiet (``capture`` None) or merging, with one legal capture."""

    cell: int
    capture: Capture | None


class Search:
    """The legal placements and captures of one board size and variant, decided by existence."""

    def __init__(self, size: int, dense: bool) -> None:
        geo = self.geo = Geometry(size)
        self.dense = dense
        # Keyed by the enemy stones: one entry per position. Bound 1024 positions.
        self.big_groups = lru_cache(maxsize=1024)(partial(big_groups, geo))
        self.lines = lru_cache(maxsize=1024)(self._lines)
        # Keyed by an enemy group: most groups outlive many positions. Bound 16384 groups.
        self.group_lines = lru_cache(maxsize=16384)(partial(group_lines, geo))
        self.distinct_lines = lru_cache(maxsize=1024)(self._distinct_lines)
        # the same sets, smallest first: whether a capture exists asks the likeliest first
        self.line_sets = lru_cache(maxsize=1024)(self._line_sets)
        # Keyed by (own, enemy, placement, capture): one per capture of a position, asked by every
        # click of it. Bound 16384 captures (a whole standard game on side 7 asks about 5,500).
        self.feasible = lru_cache(maxsize=16384)(partial(feasible, geo))
        # Keyed by a dense capture's clicks so far and the next stone. Bound 16384.
        self.dense_completion = lru_cache(maxsize=16384)(partial(dense_completion, geo))
        # Keyed by the board during re-placement clicks: one per click. Bound 1024.
        self.replace_options = lru_cache(maxsize=1024)(partial(replace_options, geo))
        # the quiet placement of each cell, built once: the move generators yield one per empty cell
        self._quiet = tuple(Placement(c, None) for c in range(len(geo.near)))

    def placements(self, own: int, enemy: int) -> Iterator[Placement]:
        """Every quiet placement, and every merging placement with each of its legal captures, in
        cell order (captures as :meth:`captures` orders them)."""
        geo = self.geo
        empty = geo.all & ~own & ~enemy
        merging = merging_cells(geo, own, empty)
        quiet = self._quiet
        for p in bits(empty):
            if not (merging >> p) & 1:
                yield quiet[p]  # [1] [6] touching at most one friendly group: quiet
                continue
            for cap in self.captures(own, enemy, p):
                yield Placement(p, cap)

    def captures(self, own: int, enemy: int, p: int) -> Iterator[Capture]:
        """The legal captures of the merging placement ``p``, each in canonical order: standard by
        removal order, dense by size, then grown depth first from their lowest cell."""
        geo = self.geo
        if self.dense:
            for group in self.big_groups(enemy):
                for r in dense_sets(geo, own, enemy, p, group):
                    yield Capture(dense_order(geo, group, r), r)
            return
        seen: set[int] = set()
        for line in self.lines(enemy):
            if line.cells in seen:
                continue
            seen.add(line.cells)
            if self.feasible(own, enemy, p, line.cells):
                yield line

    def starts(self, own: int, enemy: int) -> Iterator[int]:
        """The legal placements: quiet cells, and merging cells with a legal capture."""
        geo = self.geo
        empty = geo.all & ~own & ~enemy
        merging = merging_cells(geo, own, empty)
        for p in bits(empty):
            if not (merging >> p) & 1 or self.capture_exists(own, enemy, p):
                yield p

    def capture_exists(self, own: int, enemy: int, p: int) -> bool:
        """Whether the merging placement ``p`` has a legal capture with a feasible re-placement."""
        geo = self.geo
        if self.dense:
            return any(
                dense_find(geo, own, enemy, p, group, list(bits(group)))
                for group in self.big_groups(enemy)
            )
        quiet, merging = self._after_placement(own, enemy, p)
        return any(
            self._line_feasible(own, enemy, p, cells, quiet, merging)
            for cells in self.line_sets(enemy)
        )

    def _after_placement(self, own: int, enemy: int, p: int) -> tuple[int, int]:
        """After the merging placement ``p``: the old empty cells touching at most one friendly
        group, and every cell touching two or more (whatever is captured, they stay so)."""
        geo = self.geo
        own2 = geo.grow(own, (p,))
        merging = multi_touch(geo.rims(own2))
        return geo.all & ~own2 & ~enemy & ~merging, merging

    def _line_feasible(
        self, own: int, enemy: int, p: int, cells: int, quiet: int, merging: int
    ) -> bool:
        """:meth:`feasible` for the line ``cells``, given :meth:`_after_placement`'s cells: the
        re-placement needs as many cells touching at most one group as stones captured, and one
        stone needs no more than one such cell [9]."""
        k = cells.bit_count()
        free = quiet | (cells & ~merging)
        if k == 1:
            return free != 0
        return free.bit_count() >= k and self.feasible(own, enemy, p, cells)

    def has_turn(self, own: int, enemy: int) -> bool:
        """Whether the colour owning ``own`` has a legal turn, decided without listing moves."""
        geo = self.geo
        empty = geo.all & ~own & ~enemy
        merging = merging_cells(geo, own, empty)
        if empty & ~merging:  # a quiet placement is legal at once: no capture need be searched
            return True
        # [12] without a legal turn the player to move loses
        return any(self.capture_exists(own, enemy, p) for p in bits(empty))

    def random_capture(self, own: int, enemy: int, p: int, rng: random.Random) -> Capture | None:
        """A legal capture of the merging placement ``p`` without listing them: standard, the
        first legal one of the candidate lines in a random order (uniform over the legal ones,
        like a choice among :meth:`random_captures`); dense, as :meth:`random_captures`."""
        if self.dense:
            caps = self.random_captures(own, enemy, p, rng)
            return caps[0] if caps else None
        # a line uniformly among those not yet refused, until one is feasible: the same
        # distribution as the first feasible one of a shuffle, without shuffling them all
        candidates = list(self.distinct_lines(enemy).values())
        quiet, merging = self._after_placement(own, enemy, p)
        while candidates:
            line = rng.choice(candidates)
            if self._line_feasible(own, enemy, p, line.cells, quiet, merging):
                return line
            candidates.remove(line)
        return None

    def _lines(self, enemy: int) -> tuple[Capture, ...]:
        """Every legal standard capture, both directions of a line included, sorted so that the
        first entry of each set is its canonical order (lowest first cell) [2] [3]; from the lines
        kept for each group (:func:`.capture.group_lines`)."""
        group_lines = self.group_lines
        out = [line for group in self.big_groups(enemy) for line in group_lines(group)]
        out.sort()
        return tuple(out)

    def _distinct_lines(self, enemy: int) -> dict[int, Capture]:
        """The standard captures of ``enemy`` one per set of stones, each in its canonical order
        (the first of :func:`.capture.lines` for that set); keyed by the set."""
        return {line.cells: line for line in reversed(self.lines(enemy))}

    def _line_sets(self, enemy: int) -> tuple[int, ...]:
        """The sets of stones of the standard captures of ``enemy``, smallest first."""
        return tuple(sorted(self.distinct_lines(enemy), key=int.bit_count))

    def random_captures(self, own: int, enemy: int, p: int, rng: random.Random) -> list[Capture]:
        """Legal captures of the merging placement ``p`` to draw one from: standard, all of them;
        dense, the first found from a random group and seed (empty if there is none)."""
        geo = self.geo
        if not self.dense:
            return list(self.captures(own, enemy, p))
        groups = list(self.big_groups(enemy))
        rng.shuffle(groups)
        for group in groups:
            seeds = list(bits(group))
            rng.shuffle(seeds)
            r = dense_find(geo, own, enemy, p, group, seeds, 0, rng)
            if r:
                return [Capture(dense_order(geo, group, r), r)]
        return []
