"""Re-placement: whether the captured stones can all be re-placed, and which sets do it.

``exists_replace`` of section 3 asks for a k-set S of empty cells such that every component of the
mover's stones plus S holds at most one of the mover's groups [8]. Cells next to two groups never
belong to S; the other candidates fall into components, each taken whole when it touches at most one
group, or cut by a small vertex cut when it touches several. The sets themselves are listed lazily
and counted per component, never enumerated eagerly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import NamedTuple

from ..bitboard import bit_list, bits, lowest, mask
from .geometry import Geometry, group_contacts, merging_cells, multi_touch


class Tangle(NamedTuple):
    """A component of candidate cells that touches several friendly groups, with each group's
    contact cells in it (``terms``): only a vertex cut keeps its groups apart."""

    cells: int
    terms: list[int]


def can_replace(geo: Geometry, own: int, empty: int, k: int, forced: int = 0) -> bool:
    """exists_replace of section 3: some k-set S of ``empty`` (containing ``forced``) in which every
    component of own + S holds at most one friendly group of ``own`` [8].

    A component next to at most one group can be taken whole, one next to several needs a vertex cut
    that separates them, found by branching on a conflict path (exact, small in practice).
    """
    return can_replace_near(geo, group_contacts(geo, own, empty), empty, k, forced)


def can_replace_near(
    geo: Geometry, contacts: list[int], empty: int, k: int, forced: int = 0
) -> bool:
    """:func:`can_replace` with each friendly group given by its contact cells in ``empty``."""
    cand = empty & ~multi_touch(contacts)
    if forced and (
        forced & ~cand
        or any(sum(1 for a in contacts if a & part) > 1 for part in geo.components(forced))
    ):
        return False  # the forced cells alone already join two groups
    if k <= forced.bit_count():
        return True
    if cand.bit_count() < k:
        return False
    lb = greedy_set(geo, cand, contacts)
    if lb.bit_count() >= k and not forced & ~lb:
        return True
    if greedy_grow(geo, cand, contacts, forced) >= k:
        return True
    total = 0
    tangles: list[Tangle] = []
    for comp in geo.components(cand):
        terms = [a & comp for a in contacts if a & comp]
        if len(terms) <= 1:
            total += comp.bit_count()
        else:
            tangles.append(Tangle(comp, terms))
    if total >= k:
        return True
    bounds = []
    for t in tangles:
        packed = packing(geo, t, forced)
        if packed is None:
            return False  # the forced cells already join two groups
        bounds.append(t.cells.bit_count() - packed)
    if total + sum(bounds) < k:
        return False
    if len(tangles) == 1:  # one search with the exact budget, not a search for the least cut
        t = tangles[0]
        budget = t.cells.bit_count() - (k - total)
        return cut_within(geo, t, forced & t.cells, budget, {})
    for t, upper in zip(tangles, bounds, strict=True):
        cut = min_cut(geo, t, forced & t.cells, t.cells.bit_count() - upper)
        if cut is None:
            return False
        total += t.cells.bit_count() - cut
        if total >= k:
            return True
    return False


def greedy_set(geo: Geometry, cand: int, contacts: list[int]) -> int:
    """A valid re-placement set, quickly: the cells next to one group only and not next to another
    group's such cells, plus the cells next to no group and next to none of those."""
    near = [a & cand for a in contacts]
    touching = 0
    for a in near:
        touching |= a
    # a contact cell of group j next to a contact cell of group i lies in two grown sets
    chosen = touching & ~multi_touch([geo.dilate(a) & touching for a in near])
    loose = cand & ~touching & ~geo.dilate(chosen)
    return chosen | loose


def greedy_grow(geo: Geometry, cand: int, contacts: list[int], forced: int) -> int:
    """The size of a valid set grown from ``forced`` by adding, in index order, each candidate whose
    part of the set would still touch at most one group (the forced cells are assumed valid)."""
    chosen = forced
    for c in bits(cand & ~forced):
        trial = chosen | 1 << c
        part = geo.flood(1 << c, trial)
        if sum(1 for a in contacts if a & part) <= 1:
            chosen = trial
    return chosen.bit_count()


def conflict_path(geo: Geometry, comp: int, terms: list[int]) -> int:
    """The cells of a shortest path in ``comp`` joining cells next to two different groups, or 0."""
    for i, seeds in enumerate(terms):
        seeds &= comp
        others = 0
        for j, t in enumerate(terms):
            if j > i:
                others |= t
        others &= comp
        if not seeds or not others:
            continue
        layers = [seeds]
        seen = seeds
        while not layers[-1] & others:
            nxt = geo.dilate(layers[-1]) & comp & ~seen
            if not nxt:
                break
            layers.append(nxt)
            seen |= nxt
        else:
            cell = lowest(layers[-1] & others)
            path = 1 << cell
            for layer in reversed(layers[:-1]):
                cell = lowest(geo.near[cell] & layer)
                path |= 1 << cell
            return path
    return 0


def packing(geo: Geometry, tangle: Tangle, forced: int) -> int | None:
    """A lower bound on the cut: conflict paths disjoint in their cuttable cells (None: no cut)."""
    comp, terms = tangle
    count = 0
    while path := conflict_path(geo, comp, terms):
        cuttable = path & ~forced
        if not cuttable:
            return None
        count += 1
        comp &= ~cuttable
    return count


def min_cut(geo: Geometry, tangle: Tangle, forced: int, start: int) -> int | None:
    """The fewest unforced cells to drop from the tangle so that no part touches two groups."""
    memo: dict[int, int] = {}
    for budget in range(start, tangle.cells.bit_count() + 1):
        if cut_within(geo, tangle, forced, budget, memo):
            return budget
    return None


def cut_within(
    geo: Geometry, tangle: Tangle, forced: int, budget: int, memo: dict[int, int]
) -> bool:
    """Whether dropping at most ``budget`` unforced cells of the tangle keeps its groups apart
    (``memo``: the largest budget already refused for each remaining set of cells)."""
    comp, terms = tangle
    path = conflict_path(geo, comp, terms)
    if not path:
        return True
    if budget == 0 or memo.get(comp, -1) >= budget:
        return False
    packed = packing(geo, tangle, forced)
    if packed is not None and packed <= budget:
        for y in bits(path & ~forced):
            if cut_within(geo, Tangle(comp & ~(1 << y), terms), forced, budget - 1, memo):
                return True
    memo[comp] = budget
    return False


def replace_options(geo: Geometry, own: int, empty: int, left: int) -> tuple[int, ...]:
    """The cells where the next re-placed stone may go: touching at most one group now [6], with the
    remaining stones still placeable afterwards."""
    contacts = group_contacts(geo, own, empty)
    quiet = empty & ~multi_touch(contacts)
    return tuple(s for s in bits(quiet) if can_replace_after(geo, contacts, empty, s, left - 1))


def contacts_after(geo: Geometry, contacts: list[int], empty: int, s: int) -> list[int]:
    """The group contacts after a stone at ``s`` (touching at most one group), updated in place of
    recomputed: that group gains the empty cells around ``s``, or ``s`` starts a group of its own."""
    bit = 1 << s
    around = geo.near[s] & empty & ~bit
    after = [a & ~bit for a in contacts]
    for i, a in enumerate(contacts):
        if a & bit:
            after[i] |= around
            return after
    after.append(around)
    return after


def can_replace_after(geo: Geometry, contacts: list[int], empty: int, s: int, k: int) -> bool:
    """Whether ``k`` more stones fit after a stone at ``s`` (touching at most one group)."""
    return can_replace_near(geo, contacts_after(geo, contacts, empty, s), empty & ~(1 << s), k)


def replacement_sets(geo: Geometry, own: int, empty: int, k: int) -> Iterator[int]:
    """Every legal re-placement set, lazily, in lexicographic order of sorted cells; a branch is
    entered only when a completion exists, so the delay between two sets stays small."""
    cand = empty & ~merging_cells(geo, own, empty)
    cells = list(bits(cand))

    def walk(i: int, chosen: int, count: int) -> Iterator[int]:
        if count == k:
            yield chosen
            return
        if len(cells) - i < k - count:
            return
        later = mask(cells[i + 1 :])
        with_c = chosen | 1 << cells[i]
        if can_replace(geo, own, with_c | later, k, with_c):
            yield from walk(i + 1, with_c, count + 1)
        if can_replace(geo, own, chosen | later, k, chosen):
            yield from walk(i + 1, chosen, count)

    if can_replace(geo, own, cand, k):
        yield from walk(0, 0, 0)


def count_sets(geo: Geometry, own: int, empty: int, k: int) -> int:
    """The number of legal re-placement sets: per component of candidate cells, the number of valid
    subsets of each size (binomials where the component touches one group), combined."""
    contacts = group_contacts(geo, own, empty)
    cand = empty & ~multi_touch(contacts)
    ways = [1] + [0] * k
    for comp in geo.components(cand):
        terms = [a & comp for a in contacts if a & comp]
        if len(terms) <= 1:
            size = comp.bit_count()
            here = [math.comb(size, j) for j in range(k + 1)]
        else:
            here = count_tangle(geo, Tangle(comp, terms), k)
        ways = [sum(ways[a] * here[j - a] for a in range(j + 1)) for j in range(k + 1)]
    return ways[k]


def count_tangle(geo: Geometry, tangle: Tangle, k: int) -> list[int]:
    """Valid subsets of the tangle's cells by size up to ``k``, by depth-first enumeration."""
    cells = list(bits(tangle.cells))
    terms = tangle.terms
    counts = [0] * (k + 1)

    def walk(i: int, chosen: int, size: int) -> None:
        if i == len(cells) or size == k:
            counts[size] += 1
            return
        walk(i + 1, chosen, size)
        with_c = chosen | 1 << cells[i]
        part = geo.flood(1 << cells[i], with_c)
        if sum(1 for t in terms if t & part) <= 1:
            walk(i + 1, with_c, size + 1)

    walk(0, 0, 0)
    return counts


def canonical_order(geo: Geometry, own: int, s: int) -> tuple[int, ...]:
    """Section 3's canonical placement order of the set ``s``: the lowest remaining cell touching a
    friendly stone, else the lowest remaining cell."""
    near = geo.near
    left = list(bits(s))
    order = []
    while left:
        c = next((c for c in left if near[c] & own), left[0])
        order.append(c)
        own |= 1 << c
        left.remove(c)
    return tuple(order)


def random_replacement(
    geo: Geometry, own: int, empty: int, k: int, rng: random.Random, shuffle: bool = True
) -> list[int]:
    """Re-placement cells chosen at random, one by one, each keeping a completion possible: each
    uniformly among the cells touching at most one group that keep one. ``shuffle``: the first such
    cell of a shuffled list (the draws ``random_move`` has always made); else drawn among the cells
    not yet refused, which is the same distribution without shuffling them all."""
    placed = []
    for left in range(k, 0, -1):
        quiet = bit_list(empty & ~merging_cells(geo, own, empty))
        if shuffle:
            rng.shuffle(quiet)
            s = next(c for c in quiet if _keeps_room(geo, own, empty, c, left - 1))
        else:
            while True:
                s = rng.choice(quiet)
                if _keeps_room(geo, own, empty, s, left - 1):
                    break
                quiet.remove(s)
        placed.append(s)
        own |= 1 << s
        empty &= ~(1 << s)
    return placed


def _keeps_room(geo: Geometry, own: int, empty: int, c: int, k: int) -> bool:
    """Whether ``k`` more stones can be re-placed after one on ``c`` (none more always can)."""
    return k == 0 or can_replace(geo, geo.grow(own, (c,)), empty & ~(1 << c), k)
