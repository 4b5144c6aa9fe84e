"""Captures: straight lines (``standard``) and connected sets (``dense``) that split an enemy group.

A merging placement is legal only with a capture whose re-placement exists (decision 9), so every
search here asks :func:`~.replace.can_replace` before it answers; none lists the move space.
Decision numbers of ``shared/rules/sgolte.md`` are marked ``[n]``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import NamedTuple

from ..bitboard import bits
from .geometry import Geometry, group_contacts, multi_touch
from .replace import can_replace


class Capture(NamedTuple):
    """A capture: its stones in removal order, and the same stones as a set."""

    order: tuple[int, ...]
    cells: int


class Cleared(NamedTuple):
    """B2 of section 4: the mover's stones and the empty cells after the placement and the removal."""

    own: int
    empty: int


class Room(NamedTuple):
    """What prunes a dense search: the cells touching two friendly groups (``bad``), and how many
    old empty cells could take a re-placed stone (``free``)."""

    bad: int
    free: int


def big_groups(geo: Geometry, enemy: int) -> tuple[int, ...]:
    """Enemy groups that can be split (three stones or more)."""
    return tuple(g for g in geo.groups(enemy).groups if g.bit_count() >= 3)


def group_lines(geo: Geometry, group: int) -> tuple[Capture, ...]:
    """The legal standard captures within one enemy group (connected, three stones or more), both
    directions of a line included, unsorted [2] [3]. A group keeps them while it stands unchanged,
    so :class:`~.search.Search` keeps them by group."""
    out: list[Capture] = []
    step, near, runs, flood = geo.step, geo.near, geo.one_run, geo.flood
    # whether what is left of the group after a run of removals is in one piece: a line and its
    # reverse leave the same stones, so each is flooded once
    split: dict[int, bool] = {}
    for c1 in bits(group):
        rest = group & ~(1 << c1)
        # the group stays connected when c1's neighbours in it form one run; else flood
        if (near[c1] & rest) not in runs[c1] and flood(rest & -rest, rest) != rest:
            out.append(Capture((c1,), 1 << c1))  # a single stone that splits: one capture
            continue
        for d in range(6):
            line = [c1]
            left = rest  # connected: no earlier removal split it
            cell = step[c1][d]
            while cell >= 0 and (left >> cell) & 1:
                line.append(cell)
                left &= ~(1 << cell)
                if not left:
                    break  # [4] removing the whole group is not a split
                if (near[cell] & left) not in runs[cell]:
                    apart = split.get(left)
                    if apart is None:
                        apart = split[left] = flood(left & -left, left) != left
                    if apart:
                        out.append(Capture(tuple(line), group & ~left))
                        break
                cell = step[cell][d]
    return tuple(out)


def is_line(geo: Geometry, cap: Sequence[int]) -> bool:
    """Whether ``cap`` is consecutive along one fixed direction [2]."""
    if len(cap) == 1:
        return True
    for d in range(6):
        if geo.step[cap[0]][d] == cap[1]:
            return all(geo.step[a][d] == b for a, b in pairwise(cap))
    return False


def removal_ok(geo: Geometry, group: int, order: Sequence[int]) -> bool:
    """Every removal but the last leaves ``group`` connected, and the last splits it [3] [4] [14]."""
    rest = group
    for i, c in enumerate(order):
        rest &= ~(1 << c)
        if i < len(order) - 1 and not geo.connected(rest):
            return False
    return geo.splits(rest)


def after_capture(geo: Geometry, own: int, enemy: int, p: int, cap: int) -> Cleared:
    """The board B2: after the placement ``p`` and the removal of ``cap``."""
    own2 = geo.grow(own, (p,))  # its groups follow from those of own
    return Cleared(own=own2, empty=geo.all & ~own2 & ~(enemy & ~cap))


def feasible(geo: Geometry, own: int, enemy: int, p: int, cap: int) -> bool:
    """Whether the capture ``cap`` after placing ``p`` has a legal re-placement [9]."""
    own2, empty2 = after_capture(geo, own, enemy, p, cap)
    return can_replace(geo, own2, empty2, cap.bit_count())


# --- dense captures -------------------------------------------------------------------------------


def dense_ok(geo: Geometry, group: int, r: int) -> bool:
    """split_set_ok of section 3 for a connected ``r``: the rest splits, and some stone of ``r`` can
    be removed last (with the others removed first, the group stays connected) [14]."""
    rest = group & ~r
    if not geo.splits(rest):
        return False
    return any(geo.connected(rest | 1 << c) for c in bits(r))


def dense_order(geo: Geometry, group: int, r: int) -> tuple[int, ...]:
    """The canonical removal order of section 9: the lowest valid last stone at the end, before it
    the greedy order (lowest stone whose removal keeps the group connected)."""
    rest = group & ~r
    last = next(c for c in bits(r) if geo.connected(rest | 1 << c))
    order = []
    current = group
    left = r & ~(1 << last)
    while left:
        c = next(c for c in bits(left) if geo.connected(current & ~(1 << c)))
        order.append(c)
        current &= ~(1 << c)
        left &= ~(1 << c)
    return (*order, last)


def dense_room(geo: Geometry, own2: int, enemy: int) -> Room:
    """The pruning bound of a dense search after the placement (``own2`` includes it).

    A capture must re-place all its k stones on the k vacated cells and the old empty cells. Its
    stones standing next to two friendly groups can never take one, so a capture holding more of them
    than ``free`` is infeasible, and so is every larger set containing it: the enumerations prune it.
    """
    bad = multi_touch(group_contacts(geo, own2, geo.all & ~own2))
    empty1 = geo.all & ~own2 & ~enemy
    return Room(bad=bad, free=(empty1 & ~bad).bit_count())


def dense_capture_ok(geo: Geometry, own2: int, enemy: int, group: int, r: int) -> bool:
    """A legal dense capture ``r`` (connected by construction) with a feasible re-placement [9]."""
    empty1 = geo.all & ~own2 & ~enemy
    return dense_ok(geo, group, r) and can_replace(geo, own2, empty1 | r, r.bit_count())


def dense_sets(geo: Geometry, own: int, enemy: int, p: int, group: int) -> Iterator[int]:
    """Every legal dense capture in ``group`` with a feasible re-placement, for the placement ``p``,
    each once: by size, then as connected sets grow depth first from their lowest cell (small
    captures come first, so a caller taking a few moves never waits for the large ones)."""
    own2 = own | 1 << p
    room = dense_room(geo, own2, enemy)
    for size in range(1, group.bit_count() - 1):
        found = False
        for seed in bits(group):
            below = group & ((1 << seed) - 1)
            for r in connected_sets(geo, group, 1 << seed, below, 0, room, size):
                if r.bit_count() == size:
                    found = True
                    if dense_capture_ok(geo, own2, enemy, group, r):
                        yield r
        if not found:
            return  # no connected set of this size survives the pruning, so none larger does


def dense_find(
    geo: Geometry,
    own: int,
    enemy: int,
    p: int,
    group: int,
    seeds: Sequence[int],
    must: int = 0,
    rng: random.Random | None = None,
) -> int:
    """A legal dense capture in ``group`` containing one of ``seeds`` and all of ``must`` (with its
    last stone outside ``must``) whose re-placement exists, else 0. Small sets are tried first, by
    doubling a size limit, since small captures are the likeliest to be re-placeable."""
    own2 = own | 1 << p
    room = dense_room(geo, own2, enemy)
    size = group.bit_count()
    done, limit = 0, 1
    while True:
        for seed in seeds:
            below = group & ((1 << seed) - 1) if rng is None and not must else 0
            for r in connected_sets(geo, group, 1 << seed, below, must, room, limit, rng):
                if r.bit_count() <= done or must & ~r:
                    continue
                if must and not any(geo.connected(group & ~r | 1 << c) for c in bits(r & ~must)):
                    continue
                if dense_capture_ok(geo, own2, enemy, group, r):
                    return r
        if limit >= size:
            return 0
        done, limit = limit, limit * 2


def connected_sets(
    geo: Geometry,
    within: int,
    s: int,
    excluded: int,
    must: int,
    room: Room,
    limit: int,
    rng: random.Random | None = None,
) -> Iterator[int]:
    """Every connected set of ``within`` containing ``s``, avoiding ``excluded`` and of at most
    ``limit`` cells, each once; a branch ends when it can no longer contain ``must`` or holds more
    than ``room.free`` of the ``room.bad`` cells (supersets only hold more)."""
    if (
        excluded & must
        or (s & room.bad).bit_count() > room.free
        or s == within
        or s.bit_count() > limit
    ):
        return
    yield s
    ext = list(bits(geo.dilate(s) & within & ~s & ~excluded))
    if rng is not None:
        rng.shuffle(ext)
    for v in ext:
        yield from connected_sets(geo, within, s | 1 << v, excluded, must, room, limit, rng)
        excluded |= 1 << v


def dense_completion(
    geo: Geometry, own: int, enemy: int, p: int, group: int, done: int, x: int
) -> bool:
    """Whether, with ``done`` removed (the group still connected), removing ``x`` next can lead to a
    legal dense capture whose re-placement exists [14]."""
    q = done | 1 << x
    rest = group & ~q
    if not rest:
        return False  # [4] removing the whole group is not a split
    if geo.splits(rest):  # x is the last stone: the set so far is the capture
        own2 = own | 1 << p
        empty1 = geo.all & ~own2 & ~enemy
        return geo.connected(q) and can_replace(geo, own2, empty1 | q, q.bit_count())
    return dense_find(geo, own, enemy, p, group, (x,), q) != 0
