"""Jotun's path search (spec §4.3-4.5): every path of one origin's stack, or one given path.

A journey's board is replaced, never mutated, when the mover interacts with stacks, so paths that
branch share what they have in common. Sets of cells and of groups are bitmasks.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from operator import ne
from typing import NamedTuple

from ..bitboard import bits, lowest
from ..errors import IllegalMoveError
from ..hexgrid import direction_between, distance
from .state import MASK_S, Geo, H, Result, pop_top

# the four directions a turn may take after travelling in direction d (not d, not back) [A12]
_TURNS = tuple(tuple(d2 for d2 in range(6) if d2 not in (d, (d + 3) % 6)) for d in range(6))


class Found(Exception):
    """Raised by the search when only the existence of a move was asked."""


class OverBudget(Exception):
    """Raised by the search when it exceeds its node budget."""


class Journey(NamedTuple):
    """The part of a journey that only interactions change, replaced (never mutated) when they do.

    ``memo_low`` and ``memo_entry`` cache what depends on this part alone, which many paths share:
    the lowest friendly neighbour of a cell, and the journey after entering a cell (None if the
    mover cannot enter it [A25]).
    """

    board: tuple[int, ...]  # every stack but the mover's
    occupied: int
    friendly: int  # the cells whose top has the mover's first colour
    mover: int
    touched: int  # the groups the mover has touched [A15]
    fed: int  # the groups fed [A17, A18, A21, A23]
    consumed: int  # the groups actively consumed [A19]
    stopped: bool  # the mover changed colour: the move ends here (rule 4) [A24]
    memo_low: dict[int, int]
    memo_entry: dict[int, Journey | None]


class Entered(NamedTuple):
    """The mover having entered a cell by a step or a jump, and its journey so far."""

    cell: int
    jumped: int  # the friendly stacks jumped to get here (0 for a step)
    journey: Journey
    new_friends: int  # friendly stacks touched for the first time: a rest point [A7]
    touch: int  # the stacks next to the mover now
    released: int  # the stacks it has stopped touching, never to be touched again [A13]
    visited: int  # the cells entered, never to be entered again [A14]


class Drawn(NamedTuple):
    """A move found by :meth:`Search.draw`: its destination, the mover on arrival, every other
    stack after it (the origin emptied) and the waypoints of its path."""

    destination: int
    mover: int
    board: tuple[int, ...]
    way: tuple[int, ...]


# ``tuple.__new__(Record, values)`` is what a NamedTuple's ``_make`` does, without the Python call
# of its ``__new__``: the search builds a journey per interaction, by the hundred thousand.
_new = tuple.__new__


@dataclass(frozen=True, slots=True)
class Walk:
    """One path followed: the final board and mover, the destination and every entered cell."""

    board: tuple[int, ...]
    mover: int
    destination: int
    cells: tuple[int, ...]
    result: Result


class BoardInfo:
    """What every origin's search of one board shares: occupancy, colours and groups."""

    def __init__(self, geo: Geo, board: tuple[int, ...]) -> None:
        self.occupied = 0
        self.colours = [0, 0]
        same: dict[int, int] = {}  # code -> its cells
        for i, c in enumerate(board):
            if c:
                self.occupied |= 1 << i
                self.colours[c & 1] |= 1 << i
                same[c] = same.get(c, 0) | 1 << i
        # groups: stacks linked when adjacent with equal colour, height and strength (§3),
        # numbered by their lowest cell
        components = geo.bitboard.components
        self.members = sorted((part for m in same.values() for part in components(m)), key=lowest)
        self.group_of = [-1] * geo.size
        for g, part in enumerate(self.members):
            for c in bits(part):
                self.group_of[c] = g
        # the groups next to each cell, occupied ones included: a consumed stack's cell can be
        # entered later in the journey
        self.groups_near = [_groups_near(self.group_of, row) for row in geo.adjacent]


def _groups_near(group_of: Sequence[int], cells: Sequence[int]) -> int:
    out = 0
    for y in cells:
        if group_of[y] >= 0:
            out |= 1 << group_of[y]
    return out


class Search:
    """The movement search of one origin on one board, and the following of one given path.

    ``info`` is the board's :class:`BoardInfo` when the caller keeps one; built afresh otherwise.
    """

    def __init__(
        self, geo: Geo, board: tuple[int, ...], origin: int, info: BoardInfo | None = None
    ) -> None:
        self.geo = geo
        self.step = geo.step
        self.adjacent = geo.adjacent
        self.near = geo.near
        self.board = board
        self.o = origin
        mover = board[origin]
        self.P = mover & 1
        self.h0 = mover >> 16
        pre = list(board)
        pre[origin] = 0
        self.pre = pre  # [A4] PRE: the board before the move, mover lifted
        if info is None:
            info = BoardInfo(geo, board)
        bit = 1 << origin
        occ = info.occupied & ~bit
        fr = info.colours[self.P] & ~bit
        # [A16] groups of PRE, a snapshot for the whole journey: the board's groups, with the
        # origin's group split where lifting the mover disconnects it
        gid = list(info.group_of)
        gmem = list(info.members)
        ngid = list(info.groups_near)
        adjacent = geo.adjacent
        g = gid[origin]
        gid[origin] = -1
        stale = set(adjacent[origin])
        parts = geo.bitboard.components(gmem[g] & ~bit)
        gmem[g] = parts[0] if parts else 0
        for part in parts[1:]:
            for x in bits(part):
                gid[x] = len(gmem)
                stale.update(adjacent[x])
            gmem.append(part)
        for q in stale:
            ngid[q] = _groups_near(gid, adjacent[q])
        self.gid = gid
        self.gmem = gmem
        self.ngid = ngid
        touch = geo.near[origin] & occ
        self.touch0 = touch
        tg = 0
        for y in bits(touch):
            tg |= 1 << gid[y]
        self.start = Journey(
            board=tuple(pre),
            occupied=occ,
            friendly=fr,
            mover=mover,
            touched=tg,
            fed=0,
            consumed=0,
            stopped=False,
            memo_low={},
            memo_entry={},
        )
        # [A5] minH over no stacks is 0; [A6] C2 only for a stack with no friendly neighbour
        self.min_o = self._min_height(origin)
        self.lone = not any(pre[y] and pre[y] & 1 == self.P for y in adjacent[origin])
        self._end: list[bool | None] = [None] * geo.size
        # destination -> (mover, board) -> the best waypoints giving it
        self.found: dict[int, dict[tuple[int, tuple[int, ...]], tuple[int, ...]]] = {}
        self.first_only = False
        self.budget = -1

    # -- §4.5 ---------------------------------------------------------------------------------

    def _min_height(self, c: int) -> int:
        heights = [self.pre[y] >> 16 for y in self.geo.adjacent[c] if self.pre[y]]
        return min(heights) if heights else 0  # [A5]

    def end_ok(self, p: int) -> bool:
        """C1 or C2 for a move ending on ``p`` [A4-A6, A26]."""
        ok = self._end[p]
        if ok is None:
            ok = self.min_o > self._min_height(p) or (
                self.lone
                and any(
                    self.pre[y] and self.pre[y] & 1 == self.P and self.pre[y] >> 16 <= self.h0
                    for y in self.geo.adjacent[p]
                )
            )
            self._end[p] = ok
        return ok

    # -- §4.4 ---------------------------------------------------------------------------------

    def resolve(self, jb: Journey, q: int, new: int) -> Journey | None:
        """The journey after the interactions of entering ``q`` with the groups ``new`` there;
        None if the mover would be wholly consumed [A25]."""
        memo = jb.memo_entry
        if q in memo:
            return memo[q]
        answer = memo[q] = self._resolve(jb, q, new)
        return answer

    def _resolve(self, jb: Journey, q: int, new: int) -> Journey | None:
        board, occ, fr, mover, tg, fed, cons, _, _, _ = jb
        b = list(board)
        gid, gmem, P = self.gid, self.gmem, self.P
        tg |= new  # [A15]
        col = mover & 1
        strength = mover >> 1 & MASK_S
        here = 0
        # (1) active consumption: one piece per group goes under the mover [A19]
        for g in bits(new):
            alive = gmem[g] & occ
            if not alive or cons >> g & 1:
                continue
            rep = b[lowest(alive)]
            if rep & 1 != col and (rep >> 1 & MASK_S) <= strength:
                for c in bits(alive):
                    b[c] = code = pop_top(b[c])
                    bit = 1 << c
                    if not code:
                        occ &= ~bit
                        fr &= ~bit
                    elif code & 1 == P:
                        fr |= bit
                    else:
                        fr &= ~bit
                mover += H
                cons |= 1 << g
                here |= 1 << g
        # (2) active feeding of every new friendly group, independent of (1) [A17, A18, A23]
        for g in bits(new & ~fed & ~here):
            alive = gmem[g] & occ
            if alive and b[lowest(alive)] & 1 == col:
                for c in bits(alive):
                    b[c] += H + 2
                fed |= 1 << g
        # (3) passive consumption by enemy stacks of new groups stronger than the mover [A20]
        step_q = self.geo.step[q]
        cand = [
            y
            for y in bits(self.near[q] & occ)
            if new >> gid[y] & 1 and b[y] & 1 != col and (b[y] >> 1 & MASK_S) > strength
        ]
        stopped = False
        while cand:
            # [A22] weakest first, by the strengths as they are now, ties in direction order
            y = min(cand, key=lambda c: (b[c] >> 1 & MASK_S, step_q.index(c)))
            cand.remove(y)
            if mover >> 16 == 1:
                return None  # [A25] never enterable
            mover = pop_top(mover)
            b[y] += H  # the consumer puts the piece under itself
            e = b[y] & 1
            own = gid[y]
            # [A21, A23] the consumer feeds its allied groups (not its own, not fed, not consumed here)
            for z in bits(self.near[y] & occ):
                g = gid[z]
                if g != own and b[z] & 1 == e and not (fed | here) >> g & 1:
                    for c in bits(gmem[g] & occ):
                        b[c] += H + 2
                    fed |= 1 << g
            if mover & 1 != col:
                stopped = True  # [A24] rule 4: the consumer's feeding is done, nothing more
                break
        return _new(Journey, (tuple(b), occ, fr, mover, tg, fed, cons, stopped, {}, {}))

    # -- §4.3 ---------------------------------------------------------------------------------

    def arrive(self, q: int, jb: Journey, rel: int, vis: int) -> Journey | None:
        """The journey after entering ``q``, or None if ``q`` cannot be entered: off the board,
        entered before [A14], occupied, next to a stack the mover stopped touching [A13], or
        where the mover would be wholly consumed [A25]."""
        if q < 0 or vis >> q & 1:
            return None
        occ = jb.occupied
        if occ >> q & 1 or self.near[q] & occ & rel:
            return None
        new = self.ngid[q] & ~jb.touched
        return self.resolve(jb, q, new) if new else jb

    def enter(
        self, q: int, jumped: int, jb: Journey, touch: int, rel: int, vis: int
    ) -> Entered | None:
        """The path after entering ``q`` over the friendly stacks ``jumped`` (0 for a step), given
        the path's ``touch``, ``rel`` and ``vis`` so far (see :class:`Entered`); None if it cannot.
        :meth:`explore` does the same inline, without building the record."""
        after = self.arrive(q, jb, rel, vis)
        if after is None:
            return None
        nbq = self.near[q]
        newf = nbq & jb.friendly & ~touch & ~jumped  # [A11] jumped stacks are no new contact
        entered = (q, jumped, after, newf, nbq & after.occupied, rel | touch & ~nbq, vis | 1 << q)
        return _new(Entered, entered)

    def landing(self, p: int, d: int, friendly: int) -> tuple[int, int]:
        """Where a jump from ``p`` in ``d`` over the maximal run of ``friendly`` stacks lands
        [A9], and the stacks jumped; landing -1 if there is no run or it reaches the edge."""
        step = self.step
        x = step[p][d]
        jumped = 0
        while x >= 0 and friendly >> x & 1:
            jumped |= 1 << x
            x = step[x][d]
        return (x, jumped) if jumped else (-1, 0)

    def next_cell(
        self, p: int, d: int, jb: Journey, touch: int, rel: int, vis: int
    ) -> Entered | None:
        """The path after going on from ``p`` in ``d``: a jump if a friendly stack is next, else
        a step."""
        x, jumped = self.landing(p, d, jb.friendly)
        if jumped:
            return None if x < 0 else self.enter(x, jumped, jb, touch, rel, vis)
        return self.enter(self.step[p][d], 0, jb, touch, rel, vis)

    def _friend_min(self, jb: Journey, c: int) -> int:
        """The lowest friendly neighbour of ``c`` now, or 0 if there is none."""
        memo = jb.memo_low
        low: int | None = memo.get(c)
        if low is None:
            board, fr = jb.board, jb.friendly
            low = 0
            for y in self.adjacent[c]:
                if fr >> y & 1:
                    h = board[y] >> 16
                    if not low or h < low:
                        low = h
            memo[c] = low
        return low

    def run(self, first_only: bool = False, budget: int = -1) -> None:
        """Search every path from the origin (§4.3 ``start``); results go to ``found``."""
        self.first_only = first_only
        self.budget = budget
        jb, touch, o = self.start, self.touch0, self.o
        for d in range(6):
            x, jumped = self.landing(o, d, jb.friendly)
            if not jumped:
                x = self.step[o][d]
            if x >= 0:
                self.explore(d, x, jumped, jb, touch, 0, 1 << o, (o,))

    def explore(
        self,
        d: int,
        q: int,
        jumped: int,
        jb: Journey,
        touch: int,
        rel: int,
        vis: int,
        way: tuple[int, ...],
    ) -> None:
        """Enter ``q`` in direction ``d`` over the friendly stacks ``jumped`` (0 for a step) and
        explore on (§4.3 explore). ``jb``, ``touch``, ``rel`` and ``vis`` are the path's before
        ``q`` (see :class:`Entered`, whose computation :meth:`enter` this inlines: the search
        enters cells by the hundred thousand), ``way`` its waypoints."""
        step, near, arrive = self.step, self.near, self.arrive
        after = arrive(q, jb, rel, vis)
        if after is None:
            return
        if self.budget >= 0:
            self.budget -= 1
            if self.budget < 0:
                raise OverBudget
        while True:
            nbq = near[q]
            newf = nbq & jb.friendly & ~touch & ~jumped  # [A11] jumped stacks are no new contact
            jb, touch, rel, vis = after, nbq & after.occupied, rel | touch & ~nbq, vis | 1 << q
            p = q
            if jb.stopped or jumped or newf:
                break
            q = step[p][d]  # [A7] the forced slide
            after = arrive(q, jb, rel, vis)
            if after is None:
                break
        if jb.stopped:  # rule 4
            if self.end_ok(p):
                self.emit(p, jb, way)
            return
        # p is a rest point: a landing, a new friendly contact, or blocked [A10]
        if self.end_ok(p):
            self.emit(p, jb, way)
        fr = jb.friendly
        ahead = step[p][d]
        if ahead >= 0 and fr >> ahead & 1:
            x, over = self.landing(p, d, fr)  # [A8] straight on over a run
            if x >= 0:
                self.explore(d, x, over, jb, touch, rel, vis, way)
        elif jumped and not newf:  # sliding on after a landing
            self.explore(d, ahead, 0, jb, touch, rel, vis, way)
        # [A12] turns: the first cell entered in the new direction needs a friendly neighbour
        # no higher than the lowest friendly neighbour here
        low = self._friend_min(jb, p)
        if not low:
            return
        way2 = (*way, p)
        lows = jb.memo_low
        for d2 in _TURNS[d]:
            q = step[p][d2]
            if q < 0:
                continue
            over = 0
            while q >= 0 and fr >> q & 1:  # [A9] a jump over the maximal run
                over |= 1 << q
                q = step[q][d2]
            if q < 0:
                continue
            f = lows.get(q)
            if f is None:
                f = self._friend_min(jb, q)
            if not f or f > low:
                continue
            self.explore(d2, q, over, jb, touch, rel, vis, way2)

    # -- one random path (the search's fast path) -------------------------------------------

    def draw(self, rng: random.Random, budget: int) -> Drawn | None:
        """One legal move of the origin, found by a depth-first search that takes the branches of
        every rest point (stop here, go straight on, each turn) in a random order and ends at the
        first move; None if the origin has none. OverBudget after ``budget`` entered cells."""
        self.budget = budget
        jb, touch, o = self.start, self.touch0, self.o
        directions = list(range(6))
        rng.shuffle(directions)
        try:
            for d in directions:
                x, jumped = self.landing(o, d, jb.friendly)
                if not jumped:
                    x = self.step[o][d]
                if x >= 0:
                    self._wander(rng, d, x, jumped, jb, touch, 0, 1 << o, (o,))
        except Found as found:
            p, jb, way = found.args
            return Drawn(p, jb.mover, jb.board, way)
        return None

    def _wander(
        self,
        rng: random.Random,
        d: int,
        q: int,
        jumped: int,
        jb: Journey,
        touch: int,
        rel: int,
        vis: int,
        way: tuple[int, ...],
    ) -> None:
        """:meth:`explore` with the branches of each rest point shuffled, raising Found with the
        first move: the same paths, so every move it finds is legal."""
        step, near, arrive = self.step, self.near, self.arrive
        after = arrive(q, jb, rel, vis)
        if after is None:
            return
        self.budget -= 1
        if self.budget < 0:
            raise OverBudget
        while True:
            nbq = near[q]
            newf = nbq & jb.friendly & ~touch & ~jumped  # [A11]
            jb, touch, rel, vis = after, nbq & after.occupied, rel | touch & ~nbq, vis | 1 << q
            p = q
            if jb.stopped or jumped or newf:
                break
            q = step[p][d]  # [A7] the forced slide
            after = arrive(q, jb, rel, vis)
            if after is None:
                break
        if jb.stopped:  # rule 4
            if self.end_ok(p):
                raise Found(p, jb, way)
            return
        # the branches of the rest point p: (direction, cell entered, stacks jumped, waypoints);
        # direction -1 stands for ending here [A10]
        branches: list[tuple[int, int, int, tuple[int, ...]]] = []
        if self.end_ok(p):
            branches.append((-1, p, 0, way))
        fr = jb.friendly
        ahead = step[p][d]
        if ahead >= 0 and fr >> ahead & 1:
            x, over = self.landing(p, d, fr)  # [A8]
            if x >= 0:
                branches.append((d, x, over, way))
        elif jumped and not newf:
            branches.append((d, ahead, 0, way))
        low = self._friend_min(jb, p)  # [A12]
        if low:
            way2 = (*way, p)
            for d2 in _TURNS[d]:
                q = step[p][d2]
                if q < 0:
                    continue
                over = 0
                while q >= 0 and fr >> q & 1:  # [A9]
                    over |= 1 << q
                    q = step[q][d2]
                if q < 0:
                    continue
                f = self._friend_min(jb, q)
                if f and f <= low:
                    branches.append((d2, q, over, way2))
        rng.shuffle(branches)
        for d2, q, over, w in branches:
            if d2 < 0:
                raise Found(p, jb, way)
            self._wander(rng, d2, q, over, jb, touch, rel, vis, w)

    def emit(self, p: int, jb: Journey, way: tuple[int, ...]) -> None:
        """Record the move ending on ``p``; keep the best path of each result [A27, §9]."""
        if self.first_only:
            raise Found
        key = (jb.mover, jb.board)
        way = (*way, p)
        at = self.found.setdefault(p, {})
        best = at.get(key)
        if best is None or (len(way), way) < (len(best), best):
            at[key] = way

    def result(self, mover: int, board: tuple[int, ...]) -> Result:
        """A move's identity beside its cells: the mover on arrival and every other changed stack."""
        changed = map(ne, board, self.pre)
        return Result(mover=mover, changes=tuple(compress(enumerate(board), changed)))

    # -- following one path -----------------------------------------------------------------

    def follow(self, way: Sequence[int]) -> Walk:
        """Carry the mover along the waypoints ``way``; IllegalMoveError naming the reason."""
        geo, names = self.geo, self.geo.grid.names
        cells, step = geo.grid.cells, geo.step
        if len(way) < 2 or len(set(way)) != len(way):
            raise IllegalMoveError(
                "A move names distinct cells: its start, then where it goes", rule="4.2"
            )
        o = self.o
        jb, touch, rel, vis = self.start, self.touch0, 0, 1 << o
        p = o
        d = direction_between(cells[o], cells[way[1]])
        if d is None:
            raise IllegalMoveError(f"{names[way[1]]} is not in line with {names[o]}", rule="4.2")
        seg = 1
        remaining = distance(cells[o], cells[way[1]])
        entered = [o]
        nxt = self.next_cell(o, d, jb, touch, rel, vis)
        while True:
            if nxt is None:
                raise IllegalMoveError(
                    f"The stack cannot go on from {names[p]} toward {names[way[seg]]}", rule="4.3"
                )
            q, jumped, jb, newf, touch, rel, vis = nxt
            stopped = jb.stopped
            remaining -= distance(cells[p], cells[q])
            if remaining < 0:
                raise IllegalMoveError(f"The stack slides past {names[way[seg]]}", rule="A7")
            p = q
            entered.append(p)
            slide = None  # [A7] the next cell of a forced slide
            if not stopped and not jumped and not newf:
                slide = self.enter(step[p][d], 0, jb, touch, rel, vis)
            if remaining > 0:
                if stopped:
                    raise IllegalMoveError(
                        f"The move stops at {names[p]}: the stack changed colour", rule="A24"
                    )
                if slide is not None:
                    nxt = slide
                    continue
                nxt = None
                x, over = self.landing(p, d, jb.friendly)
                if over and x >= 0:  # [A8] straight on over a run
                    nxt = self.enter(x, over, jb, touch, rel, vis)
                elif not over and jumped and not newf:  # sliding on after a landing
                    nxt = self.enter(step[p][d], 0, jb, touch, rel, vis)
                continue
            if slide is not None:
                raise IllegalMoveError(
                    f"The stack cannot stop on {names[p]}: it slides on", rule="A7"
                )
            if seg == len(way) - 1:
                if not self.end_ok(p):
                    raise IllegalMoveError(f"The stack may not end on {names[p]}", rule="A6")
                board = list(jb.board)
                board[p] = jb.mover
                return Walk(
                    board=tuple(board),
                    mover=jb.mover,
                    destination=p,
                    cells=tuple(entered),
                    result=self.result(jb.mover, jb.board),
                )
            if stopped:
                raise IllegalMoveError(
                    f"The move stops at {names[p]}: the stack changed colour", rule="A24"
                )
            d2 = direction_between(cells[p], cells[way[seg + 1]])
            if d2 is None or d2 == d or d2 == (d + 3) % 6:
                raise IllegalMoveError(
                    f"{names[way[seg + 1]]} is not in a new line from {names[p]}", rule="4.2"
                )
            low = self._friend_min(jb, p)
            if not low:
                raise IllegalMoveError(
                    f"The stack cannot turn at {names[p]}: no stack of yours touches it", rule="A12"
                )
            nxt = self.next_cell(p, d2, jb, touch, rel, vis)
            if nxt is not None:
                f = self._friend_min(jb, nxt.cell)
                if not f or f > low:
                    raise IllegalMoveError(
                        f"The stack cannot turn at {names[p]} toward {names[way[seg + 1]]}",
                        rule="A12",
                    )
            d = d2
            seg += 1
            remaining = distance(cells[p], cells[way[seg]])
