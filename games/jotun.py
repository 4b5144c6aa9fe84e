"""Jotun: a drawless territory game of moving, feeding and devouring stacks (``shared/rules/jotun.md``).

Rules in brief (the spec is binding; decision numbers ``[A#]`` refer to its §7):

* Board: hex cells, side 4, 5 (default) or 6. A stack is every piece in a cell, bottom to top; its
  colour is its top piece, its strength the number of pieces of that colour [A1, A2]. Every stack is
  ``[x]*k + [y]*m``: captured pieces below, own pieces above.
* Opening [A31]: seat 1 places one black stack; seat 2 plays ``black`` or ``white``; White moves
  next, then colours alternate.
* An action is a placement (an empty cell with at least as many enemy as friendly neighbours [A3])
  or a move. A move lifts a friendly stack and carries it along a path of steps and jumps over
  maximal runs of friendly stacks [A9]: it slides straight on until a new friendly contact or a block
  [A7], may stop, jump on or turn only at such rest points [A8, A10, A12], never re-enters a cell
  [A14] nor a cell next to a stack it has stopped touching [A13], and never a cell where it would be
  wholly consumed [A25]. Each entered cell resolves, for the groups new there [A15, A16]: active
  consumption [A19], feeding [A17, A18], passive consumption by ascending current strength [A20,
  A22] with the consumer feeding its allies [A21, A23]; a colour change of the mover stops it [A24].
  A move must end where C1 (``minH(origin) > minH(destination)``) or C2 (the lone-stack clause)
  holds, both on the board before the move with the mover lifted [A4-A6, A26].
* After every action from ply 3 on, if either colour cannot act the game ends (``no-moves``) [A28];
  each colour scores its stacks plus the empty cells where the other may not place [A29, A30]. The
  game also ends after ply ``10 x cells`` (``ply-limit``) with tie-breaks [A32].

Moves and notation (§9): a placement is a cell (``d4``); a move is its waypoints ``o-w1-...-d`` (the
origin, each cell where the direction changed, the destination). Paths that give the same position
are one move [A27]; the canonical text is ``o-d`` when every path from o to d gives that position,
else the waypoints of the path with the fewest waypoints, ties by reading order.

Readings chosen where the spec is silent:

* ``legal_moves`` is lazy and ordered: the setup cells or the two words; then placements in reading
  order; then moves by origin (reading order), destination (reading order), and the canonical
  path (fewest waypoints, then reading order). One origin's moves are found all at once; the
  last 64 origins searched are cached by position, which ``steps``, ``format_move`` and
  ``parse_move`` share. ``bench_legal`` bypasses the cache.
* ``apply`` and ``parse_move`` follow the move's own waypoints and never search other paths, except
  that ``o-d`` with no straight legal path needs the search of §9 rule 2. ``format_move`` needs the
  origin's search unless the move came from ``legal_moves`` or is straight (a straight path's
  result is always written ``o-d``). The state's display field ``last_text`` is therefore the text
  as entered (the canonical text whenever the move came from ``legal_moves``, ``steps`` or a
  canonical record); it is excluded from ``==`` and ``key``, as are ``last_cells`` (the origin and
  every cell the stack entered, for drawing the path).
* A text whose inner waypoint is no change of direction names no path and is illegal (§9 rule 3).
* Cell names are read case-insensitively; ``-`` separates waypoints, spaces around it are allowed.
* Step-wise entry: click the origin, then the destination, then, only if several results reach
  that cell, the waypoints of the wanted path in order until no other result shares them (usually
  one click). ``Steps.hints`` previews each continuation that completes a move: ``path`` (every
  cell entered), ``waypoints``, ``cells`` and ``changes`` (the stacks it changes, bottom to top);
  a continuation shared by several results has ``{"results": k}``.
* ``random_move`` is not uniform over moves: it picks a placement or an origin uniformly, then a
  move of that origin uniformly; an origin whose search exceeds a node budget offers only its
  straight moves (whose canonical text ``o-d`` needs no search).
* ``Rules.position`` builds a play-phase position directly (tests, analysis); its ending is
  computed as if the other colour had just acted.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import compress
from operator import ne
from typing import Any, ClassVar

from .base import Option, Outcome, Steps
from .base import Rules as BaseRules
from .errors import IllegalMoveError, InvalidMoveError
from .hexgrid import HexBoard, direction_between, distance, hex_board
from .view import CellView, make_view, row_labels

BLACK, WHITE = 0, 1
COLOURS = ("black", "white")
LETTERS = "BW"
PLY_FACTOR = 10  # [A32] the game ends after 10 x cells plies
SETUP, CHOOSE, PLAY, OVER = "setup", "choose", "play", "over"
RANDOM_BUDGET = 20_000  # path-search nodes random_move spends on one origin before going straight

# A stack is one int: height << 16 | strength << 1 | colour (0 = empty cell).
_H = 1 << 16
_MASK_S = 0x7FFF

Changes = tuple[tuple[int, int], ...]
Result = tuple[int, Changes]  # (mover's code on arrival, (cell, code) of every other changed cell)


def stack_code(pieces: str) -> int:
    """The code of a stack written bottom to top in ``B``/``W`` letters (``"WBB"``).

    >>> decode(stack_code("WBB"))
    'WBB'
    """
    if not pieces or any(p not in LETTERS for p in pieces):
        raise ValueError(f"a stack is letters B and W, bottom to top, not {pieces!r}")
    top = pieces[-1]
    strength = len(pieces) - len(pieces.rstrip(top))
    if top in pieces[: len(pieces) - strength].replace(LETTERS[1 - LETTERS.index(top)], ""):
        raise ValueError(f"{pieces!r} is not captured pieces below own pieces [A1]")
    return len(pieces) * _H | strength << 1 | LETTERS.index(top)


def decode(code: int) -> str:
    """The stack of ``code`` as letters, bottom to top ('' for an empty cell)."""
    if not code:
        return ""
    colour, height, strength = code & 1, code >> 16, code >> 1 & _MASK_S
    return LETTERS[1 - colour] * (height - strength) + LETTERS[colour] * strength


def _pop_top(code: int) -> int:
    """The stack without its top piece (0 if it was the last)."""
    if (code >> 1 & _MASK_S) > 1:
        return code - _H - 2
    h = (code >> 16) - 1
    return 0 if h == 0 else h * _H | h << 1 | (code & 1) ^ 1


def _height(code: int) -> int:
    return code >> 16


def _strength(code: int) -> int:
    return code >> 1 & _MASK_S


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# --- geometry as bitmasks ----------------------------------------------------------------------


class _Geo:
    """Integer tables of one board side: hexgrid's steps plus neighbour bitmasks."""

    def __init__(self, n: int) -> None:
        self.grid: HexBoard = hex_board(n)
        self.size = len(self.grid)
        self.step = self.grid.step
        self.adjacent = self.grid.adjacent
        self.nb: tuple[int, ...] = tuple(sum(1 << j for j in row) for row in self.adjacent)
        self.cap = PLY_FACTOR * self.size


@cache
def _geo(n: int) -> _Geo:
    return _Geo(n)


# --- state and moves ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Ending:
    """How a finished game ended: winner colour, reason, scores and strengths by colour."""

    winner: int
    reason: str
    scores: tuple[int, int]
    strengths: tuple[int, int]


@dataclass(frozen=True)
class State:
    """A Jotun position. ``board`` holds a stack code per cell index (reading order), 0 if empty.

    ``colour`` is the colour to move in play; ``black_seat`` the seat holding Black (0 before the
    choice); ``ply`` counts actions, setup and choice included. ``last_text``/``last_cells`` are for
    display only and take no part in ``==`` or ``key``.
    """

    size: int
    board: tuple[int, ...]
    phase: str = SETUP
    colour: int = BLACK
    black_seat: int = 0
    ply: int = 0
    ending: Ending | None = None
    last_text: str | None = field(default=None, compare=False)
    last_cells: tuple[int, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Move:
    """A placement (``cells = (c,)``), a colour choice (``word``) or a movement.

    A movement is identified by origin, destination and resulting position (``cells = (o, d)``,
    ``result``) [A27]; ``path`` (the waypoints of one path giving it) and ``text`` (its canonical
    text, when known) are carried along but take no part in ``==``.
    """

    kind: str
    cells: tuple[int, ...] = ()
    word: str = ""
    result: Result | None = None
    path: tuple[int, ...] = field(default=(), compare=False)
    text: str | None = field(default=None, compare=False)


# --- the path search (§4.3-4.5) -----------------------------------------------------------------


# the four directions a turn may take after travelling in direction d (not d, not back) [A12]
_TURNS = tuple(tuple(d2 for d2 in range(6) if d2 not in (d, (d + 3) % 6)) for d in range(6))


class _Found(Exception):
    """Raised by the search when only the existence of a move was asked."""


class _Budget(Exception):
    """Raised by the search when it exceeds its node budget."""


# The journey's part that only interactions change, replaced (never mutated) when they do:
# (board, occupied, friendly, mover, touched groups, fed groups, consumed groups, modified cells,
# memo). Sets are bitmasks. The memo caches what depends on this part alone: the lowest friendly
# neighbour of a cell (key c) and the interactions of entering a cell (key -1 - c), which many
# paths share.
_Board = tuple[tuple[int, ...], int, int, int, int, int, int, int, dict[int, Any]]
# What entering a cell gives: (journey board, new friendly contacts, stopped, touch, released, visited)
_Entered = tuple[_Board, int, bool, int, int, int]


@dataclass
class Walk:
    """One path followed: the final board and mover, the destination and every entered cell."""

    board: tuple[int, ...]
    mover: int
    destination: int
    cells: list[int]
    result: Result


class _BoardInfo:
    """What every origin's search of one board shares: occupancy, colours and groups."""

    def __init__(self, geo: _Geo, board: tuple[int, ...]) -> None:
        n = geo.size
        adjacent = geo.adjacent
        self.occ = 0
        self.colours = [0, 0]
        for i, c in enumerate(board):
            if c:
                self.occ |= 1 << i
                self.colours[c & 1] |= 1 << i
        # groups: stacks linked when adjacent with equal colour, height and strength (§3)
        gid = [-1] * n
        gmem: list[int] = []
        for i in range(n):
            if board[i] and gid[i] < 0:
                g = len(gmem)
                gid[i] = g
                mask = 1 << i
                todo = [i]
                while todo:
                    x = todo.pop()
                    for y in adjacent[x]:
                        if gid[y] < 0 and board[y] == board[x]:
                            gid[y] = g
                            mask |= 1 << y
                            todo.append(y)
                gmem.append(mask)
        self.gid = gid
        self.gmem = gmem
        # the groups next to each cell, occupied ones included: a consumed stack's cell can be
        # entered later in the journey
        self.ngid = [0] * n
        for q in range(n):
            m = 0
            for y in adjacent[q]:
                if gid[y] >= 0:
                    m |= 1 << gid[y]
            self.ngid[q] = m


@lru_cache(maxsize=64)
def _board_info(geo: _Geo, board: tuple[int, ...]) -> _BoardInfo:
    return _BoardInfo(geo, board)


class _Search:
    """The movement search of one origin on one board, and the following of one given path."""

    def __init__(self, geo: _Geo, board: tuple[int, ...], origin: int) -> None:
        self.geo = geo
        self.step = geo.step
        self.adjacent = geo.adjacent
        self.nb = geo.nb
        self.board = board
        self.o = origin
        mover = board[origin]
        self.P = mover & 1
        self.h0 = mover >> 16
        pre = list(board)
        pre[origin] = 0
        self.pre = pre  # [A4] PRE: the board before the move, mover lifted
        info = _board_info(geo, board)
        bit = 1 << origin
        occ = info.occ & ~bit
        fr = info.colours[self.P] & ~bit
        # [A16] groups of PRE, a snapshot for the whole journey: the board's groups, with the
        # origin's group split where lifting the mover disconnects it
        gid = list(info.gid)
        gmem = list(info.gmem)
        ngid = list(info.ngid)
        adjacent = geo.adjacent
        g = gid[origin]
        gid[origin] = -1
        rest = gmem[g] & ~bit
        gmem[g] = 0
        stale = set(adjacent[origin])
        parts = 0
        todo_cells = rest
        while todo_cells:
            first = (todo_cells & -todo_cells).bit_length() - 1
            part = 1 << first
            todo = [first]
            while todo:
                x = todo.pop()
                for y in adjacent[x]:
                    if rest >> y & 1 and not part >> y & 1:
                        part |= 1 << y
                        todo.append(y)
            todo_cells &= ~part
            new_id = g if parts == 0 else len(gmem)
            if parts:
                gmem.append(part)
                for x in _bits(part):
                    gid[x] = new_id
                    stale.update(adjacent[x])
            else:
                gmem[g] = part
            parts += 1
        for q in stale:  # the groups next to each cell, occupied ones included
            m = 0
            for y in adjacent[q]:
                if gid[y] >= 0:
                    m |= 1 << gid[y]
            ngid[q] = m
        self.gid = gid
        self.gmem = gmem
        self.ngid = ngid
        touch = geo.nb[origin] & occ
        self.touch0 = touch
        tg = 0
        for y in _bits(touch):
            tg |= 1 << gid[y]
        self.start: _Board = (tuple(pre), occ, fr, mover, tg, 0, 0, 0, {})
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

    def resolve(self, jb: _Board, q: int, new: int) -> tuple[_Board, bool] | None:
        """The interactions of entering ``q`` with the groups ``new`` there; None if the mover
        would be wholly consumed [A25]."""
        memo = jb[8]
        known = memo.get(-1 - q)
        if known is not None:
            return known if known else None
        answer = self._resolve(jb, q, new)
        memo[-1 - q] = answer if answer is not None else ()
        return answer

    def _resolve(self, jb: _Board, q: int, new: int) -> tuple[_Board, bool] | None:
        board, occ, fr, mover, tg, fed, cons, mod, _ = jb
        b = list(board)
        gid, gmem, P = self.gid, self.gmem, self.P
        tg |= new  # [A15]
        col = mover & 1
        strength = mover >> 1 & _MASK_S
        here = 0
        # (1) active consumption: one piece per group goes under the mover [A19]
        for g in _bits(new):
            alive = gmem[g] & occ
            if not alive or cons >> g & 1:
                continue
            rep = b[(alive & -alive).bit_length() - 1]
            if rep & 1 != col and (rep >> 1 & _MASK_S) <= strength:
                for c in _bits(alive):
                    b[c] = code = _pop_top(b[c])
                    bit = 1 << c
                    if not code:
                        occ &= ~bit
                        fr &= ~bit
                    elif code & 1 == P:
                        fr |= bit
                    else:
                        fr &= ~bit
                mover += _H
                cons |= 1 << g
                here |= 1 << g
                mod |= alive
        # (2) active feeding of every new friendly group, independent of (1) [A17, A18, A23]
        for g in _bits(new & ~fed & ~here):
            alive = gmem[g] & occ
            if alive and b[(alive & -alive).bit_length() - 1] & 1 == col:
                for c in _bits(alive):
                    b[c] += _H + 2
                fed |= 1 << g
                mod |= alive
        # (3) passive consumption by enemy stacks of new groups stronger than the mover [A20]
        step_q = self.geo.step[q]
        cand = [
            y
            for y in _bits(self.geo.nb[q] & occ)
            if new >> gid[y] & 1 and b[y] & 1 != col and (b[y] >> 1 & _MASK_S) > strength
        ]
        stopped = False
        while cand:
            # [A22] weakest first, by the strengths as they are now, ties in direction order
            y = min(cand, key=lambda c: (b[c] >> 1 & _MASK_S, step_q.index(c)))
            cand.remove(y)
            if mover >> 16 == 1:
                return None  # [A25] never enterable
            mover = _pop_top(mover)
            b[y] += _H  # the consumer puts the piece under itself
            mod |= 1 << y
            e = b[y] & 1
            own = gid[y]
            # [A21, A23] the consumer feeds its allied groups (not its own, not fed, not consumed here)
            for z in _bits(self.geo.nb[y] & occ):
                g = gid[z]
                if g != own and b[z] & 1 == e and not (fed | here) >> g & 1:
                    alive = gmem[g] & occ
                    for c in _bits(alive):
                        b[c] += _H + 2
                    fed |= 1 << g
                    mod |= alive
            if mover & 1 != col:
                stopped = True  # [A24] rule 4: the consumer's feeding is done, nothing more
                break
        return (tuple(b), occ, fr, mover, tg, fed, cons, mod, {}), stopped

    # -- §4.3 ---------------------------------------------------------------------------------

    def enter(
        self, q: int, jumped: int, jb: _Board, touch: int, rel: int, vis: int
    ) -> _Entered | None:
        """Enter ``q`` if it is enterable [A13, A14, A25]; the journey after it, else None."""
        if q < 0 or vis >> q & 1:
            return None
        occ = jb[1]
        if occ >> q & 1:
            return None
        nbq = self.nb[q]
        if nbq & occ & rel:
            return None  # [A13] it would touch again a stack it stopped touching
        newf = nbq & jb[2] & ~touch & ~jumped  # [A11] jumped stacks are no new contact
        new = self.ngid[q] & ~jb[4]
        stopped = False
        if new:
            resolved = self.resolve(jb, q, new)
            if resolved is None:
                return None
            jb, stopped = resolved
        return jb, newf, stopped, nbq & jb[1], rel | (touch & ~nbq), vis | 1 << q

    def jump(
        self, p: int, d: int, jb: _Board, touch: int, rel: int, vis: int
    ) -> tuple[int, _Entered] | None:
        """Jump the maximal run of friendly stacks from ``p`` in ``d`` [A9]: (landing, journey)."""
        step = self.step
        fr = jb[2]
        x = step[p][d]
        if x < 0 or not fr >> x & 1:
            return None
        jumped = 0
        while x >= 0 and fr >> x & 1:
            jumped |= 1 << x
            x = step[x][d]
        if x < 0:
            return None
        entered = self.enter(x, jumped, jb, touch, rel, vis)
        return None if entered is None else (x, entered)

    def _friend_min(self, jb: _Board, c: int) -> int:
        """The lowest friendly neighbour of ``c`` now, or 0 if there is none."""
        memo = jb[8]
        low: int | None = memo.get(c)
        if low is None:
            board, fr = jb[0], jb[2]
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
        vis = 1 << o
        for d in range(6):
            t = self.jump(o, d, jb, touch, 0, vis)
            if t is not None:
                self.explore(t[0], d, True, *t[1], (o,))
                continue
            e = self.enter(self.step[o][d], 0, jb, touch, 0, vis)
            if e is not None:
                self.explore(self.step[o][d], d, False, *e, (o,))

    def explore(
        self,
        p: int,
        d: int,
        jumped: bool,
        jb: _Board,
        newf: int,
        stopped: bool,
        touch: int,
        rel: int,
        vis: int,
        way: tuple[int, ...],
    ) -> None:
        """Explore on from ``p``, reached in direction ``d`` by a jump or a step (§4.3 explore)."""
        if self.budget >= 0:
            self.budget -= 1
            if self.budget < 0:
                raise _Budget
        step, enter = self.step, self.enter
        while not stopped and not jumped and not newf:  # [A7] the forced slide
            ahead = step[p][d]
            e = enter(ahead, 0, jb, touch, rel, vis)
            if e is None:
                break
            p = ahead
            jb, newf, stopped, touch, rel, vis = e
        if stopped:  # rule 4
            if self.end_ok(p):
                self.emit(p, jb, way)
            return
        # p is a rest point: a landing, a new friendly contact, or blocked [A10]
        if self.end_ok(p):
            self.emit(p, jb, way)
        fr = jb[2]
        ahead = step[p][d]
        if ahead >= 0 and fr >> ahead & 1:
            t = self.jump(p, d, jb, touch, rel, vis)  # [A8] straight on over a run
            if t is not None:
                self.explore(t[0], d, True, *t[1], way)
        elif jumped and not newf:  # sliding on after a landing
            e = enter(ahead, 0, jb, touch, rel, vis)
            if e is not None:
                self.explore(ahead, d, False, *e, way)
        # [A12] turns: the first cell entered in the new direction needs a friendly neighbour
        # no higher than the lowest friendly neighbour here
        low = self._friend_min(jb, p)
        if not low:
            return
        way2 = (*way, p)
        for d2 in _TURNS[d]:
            q = step[p][d2]
            if q < 0:
                continue
            jumped_cells = 0
            while q >= 0 and fr >> q & 1:  # [A9] a jump over the maximal run
                jumped_cells |= 1 << q
                q = step[q][d2]
            if q < 0:
                continue
            f = self._friend_min(jb, q)
            if not f or f > low:
                continue
            e = enter(q, jumped_cells, jb, touch, rel, vis)
            if e is not None:
                self.explore(q, d2, bool(jumped_cells), *e, way2)

    def emit(self, p: int, jb: _Board, way: tuple[int, ...]) -> None:
        """Record the move ending on ``p``; keep the best path of each result [A27, §9]."""
        if self.first_only:
            raise _Found
        key = (jb[3], jb[0])
        way = (*way, p)
        at = self.found.setdefault(p, {})
        best = at.get(key)
        if best is None or (len(way), way) < (len(best), best):
            at[key] = way

    def result(self, mover: int, board: tuple[int, ...]) -> Result:
        """A move's identity beside its cells: the mover on arrival and every other changed stack."""
        changed = map(ne, board, self.pre)
        return mover, tuple(compress(zip(range(len(board)), board, strict=True), changed))

    # -- following one path -----------------------------------------------------------------

    def follow(self, way: Sequence[int]) -> Walk:
        """Carry the mover along the waypoints ``way``; IllegalMoveError naming the reason."""
        geo, names = self.geo, self.geo.grid.names
        cells = geo.grid.cells
        if len(way) < 2 or len(set(way)) != len(way):
            raise IllegalMoveError("a path has distinct waypoints, at least an origin and an end")
        o = self.o
        jb, touch, rel, vis = self.start, self.touch0, 0, 1 << o
        p = o
        d = direction_between(cells[o], cells[way[1]])
        if d is None:
            raise IllegalMoveError(f"{names[way[1]]} is not in a straight line from {names[o]}")
        seg = 1
        remaining = distance(cells[o], cells[way[1]])
        entered = [o]
        jumped = False
        newf = 0
        stopped = False

        def advance_any(at: int, direction: int) -> tuple[int, bool, _Entered] | None:
            t = self.jump(at, direction, jb, touch, rel, vis)
            if t is not None:
                return t[0], True, t[1]
            q = geo.step[at][direction]
            e = self.enter(q, 0, jb, touch, rel, vis)
            return None if e is None else (q, False, e)

        nxt = advance_any(o, d)
        while True:
            if nxt is None:
                raise IllegalMoveError(
                    f"the stack cannot go on from {names[p]} toward {names[way[seg]]}"
                )
            q, jumped, (jb, newf, stopped, touch, rel, vis) = nxt
            remaining -= distance(cells[p], cells[q])
            if remaining < 0:
                raise IllegalMoveError(f"the path passes {names[way[seg]]} without stopping there")
            p = q
            entered.append(p)
            forced = False
            if not stopped and not jumped and not newf:
                forced = self.enter(geo.step[p][d], 0, jb, touch, rel, vis) is not None
            if remaining > 0:
                if stopped:
                    raise IllegalMoveError(
                        f"the move stops at {names[p]}: the mover changed colour"
                    )
                if forced:
                    nxt = self._advance_step(p, d, jb, touch, rel, vis)
                    continue
                t = self.jump(p, d, jb, touch, rel, vis)
                if t is not None:
                    nxt = (t[0], True, t[1])
                elif jumped and not newf:
                    nxt = self._advance_step(p, d, jb, touch, rel, vis)
                else:
                    nxt = None
                continue
            if forced:
                raise IllegalMoveError(f"{names[p]} is in the middle of a forced slide [A7]")
            if seg == len(way) - 1:
                if not self.end_ok(p):
                    raise IllegalMoveError(f"a move may not end on {names[p]} (neither C1 nor C2)")
                board = list(jb[0])
                board[p] = jb[3]
                return Walk(tuple(board), jb[3], p, entered, self.result(jb[3], jb[0]))
            if stopped:
                raise IllegalMoveError(f"the move stops at {names[p]}: the mover changed colour")
            d2 = direction_between(cells[p], cells[way[seg + 1]])
            if d2 is None or d2 == d or d2 == (d + 3) % 6:
                raise IllegalMoveError(
                    f"{names[way[seg + 1]]} is not in a new straight direction from {names[p]}"
                )
            low = self._friend_min(jb, p)
            if not low:
                raise IllegalMoveError(f"no turn at {names[p]}: no friendly neighbour [A12]")
            nxt = advance_any(p, d2)
            if nxt is not None:
                f = self._friend_min(jb, nxt[0])
                if not f or f > low:
                    raise IllegalMoveError(
                        f"no turn at {names[p]} toward {names[way[seg + 1]]}: the next cell "
                        "needs a friendly neighbour no higher than the lowest one here [A12]"
                    )
            d = d2
            seg += 1
            remaining = distance(cells[p], cells[way[seg]])

    def _advance_step(
        self, p: int, d: int, jb: _Board, touch: int, rel: int, vis: int
    ) -> tuple[int, bool, _Entered] | None:
        q = self.geo.step[p][d]
        e = self.enter(q, 0, jb, touch, rel, vis)
        return None if e is None else (q, False, e)


# --- per-origin move lists ---------------------------------------------------------------------


@dataclass(frozen=True)
class _OriginMoves:
    """Every move of one origin, sorted, with canonical texts; lookups by destination and result."""

    moves: tuple[Move, ...]
    by_result: Mapping[tuple[int, Result], Move]
    by_destination: Mapping[int, tuple[Move, ...]]
    telling: Mapping[tuple[int, Result], tuple[int, ...]]  # the clicks after o and d


def _way_text(names: Sequence[str], way: Sequence[int]) -> str:
    return "-".join(names[c] for c in way)


def _collect(geo: _Geo, search: _Search) -> _OriginMoves:
    names = geo.grid.names
    o = search.o
    moves: list[Move] = []
    by_result: dict[tuple[int, Result], Move] = {}
    by_destination: dict[int, tuple[Move, ...]] = {}
    telling: dict[tuple[int, Result], tuple[int, ...]] = {}
    for d in sorted(search.found):
        results = search.found[d]
        here = []
        for (mover, board), way in sorted(results.items(), key=lambda kv: (len(kv[1]), kv[1])):
            result = search.result(mover, board)
            # §9: o-d when every path to d gives this result, else the best path's waypoints
            text = f"{names[o]}-{names[d]}" if len(results) == 1 else _way_text(names, way)
            move = Move("move", (o, d), result=result, path=way, text=text)
            here.append(move)
            by_result[(d, result)] = move
        moves.extend(here)
        by_destination[d] = tuple(here)
        for move, tell in zip(here, _telling(here), strict=True):
            assert move.result is not None
            telling[(d, move.result)] = tell
    return _OriginMoves(tuple(moves), by_result, by_destination, telling)


def _search_origin(size: int, board: tuple[int, ...], origin: int) -> _OriginMoves:
    geo = _geo(size)
    search = _Search(geo, board, origin)
    search.run()
    return _collect(geo, search)


# 64 origins: a big N = 6 origin can hold tens of thousands of moves
_cached_origin = lru_cache(maxsize=64)(_search_origin)


@lru_cache(maxsize=4096)
def _has_move(geo: _Geo, board: tuple[int, ...], origin: int) -> bool:
    search = _Search(geo, board, origin)
    try:
        search.run(first_only=True)
    except _Found:
        return True
    return False


# --- placement, acting, scoring ------------------------------------------------------------------


def _can_place(geo: _Geo, board: tuple[int, ...], colour: int, c: int) -> bool:
    """[A3] an empty cell with at least as many enemy as friendly neighbours (0 >= 0 counts)."""
    if board[c]:
        return False
    balance = 0
    for y in geo.adjacent[c]:
        code = board[y]
        if code:
            balance += 1 if code & 1 != colour else -1
    return balance >= 0


def _placements(geo: _Geo, board: tuple[int, ...], colour: int) -> list[int]:
    return [c for c in range(geo.size) if _can_place(geo, board, colour, c)]


def _origins(board: tuple[int, ...], colour: int) -> list[int]:
    return [c for c, code in enumerate(board) if code and code & 1 == colour]


def _can_act(geo: _Geo, board: tuple[int, ...], colour: int) -> bool:
    if any(_can_place(geo, board, colour, c) for c in range(geo.size)):
        return True
    return any(_has_move(geo, board, o) for o in _origins(board, colour))


def _scores(geo: _Geo, board: tuple[int, ...]) -> tuple[int, int]:
    """§6: own stacks plus the empty cells where the other colour may not place [A29]."""
    score = [0, 0]
    for c, code in enumerate(board):
        if code:
            score[code & 1] += 1
        else:
            for x in (BLACK, WHITE):
                if not _can_place(geo, board, 1 - x, c):
                    score[x] += 1
    return score[0], score[1]


def _strengths(board: tuple[int, ...]) -> tuple[int, int]:
    total = [0, 0]
    for code in board:
        if code:
            total[code & 1] += code >> 1 & _MASK_S
    return total[0], total[1]


def _ending(geo: _Geo, board: tuple[int, ...], ply: int, last: int) -> Ending | None:
    """§6 after an action by colour ``last`` that brought the counter to ``ply``."""
    if ply < 3:
        return None
    # [A28] both colours are checked, whoever is to move
    stuck = not (_can_act(geo, board, BLACK) and _can_act(geo, board, WHITE))
    if not stuck and ply < geo.cap:
        return None
    scores = _scores(geo, board)
    strengths = _strengths(board)
    # [A30] at a no-moves end one score exceeds half the cells; [A32] tie-breaks at the cap
    order = sorted((BLACK, WHITE), key=lambda x: (scores[x], strengths[x], x == last), reverse=True)
    return Ending(order[0], "no-moves" if stuck else "ply-limit", scores, strengths)


# --- the rules ------------------------------------------------------------------------------------


class Rules(BaseRules[State, Move]):
    """Jotun for one board side."""

    slug: ClassVar[str] = "jotun"
    title: ClassVar[str] = "Jotun"
    summary: ClassVar[str] = (
        "Stacks travel, jump their friends, devour weaker enemies and feed allies; "
        "hold more than half the board."
    )
    notation: ClassVar[tuple[str, ...]] = ("h5", "white", "h5-i5", "d4-a1-d1")
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("size", 5, (4, 5, 6), "Cells per side of the hexagonal board"),
    )
    # A canonical text depends on every path of a move, and a few positions have tens of thousands
    # of paths: listing one origin's moves, or checking one move, can take up to seconds at size 6.
    slow_positions: ClassVar[bool] = True

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        size = self._options["size"]
        assert isinstance(size, int)
        self.size = size
        self.geo = _geo(size)

    # -- positions ----------------------------------------------------------------------------

    def initial_state(self) -> State:
        """The empty board before the setup placement."""
        return State(self.size, (0,) * self.geo.size)

    def position(
        self,
        stacks: Mapping[str, str],
        to_move: str = "black",
        black_seat: int = 1,
        ply: int = 3,
    ) -> State:
        """A play-phase position built directly: ``{"e5": "WBB", ...}`` (bottom to top).

        Its ending is computed as if the other colour's action had just brought it about.
        """
        board = [0] * self.geo.size
        for name, pieces in stacks.items():
            board[self.geo.grid.parse_index(name)] = stack_code(pieces)
        colour = COLOURS.index(to_move)
        ending = _ending(self.geo, tuple(board), ply, 1 - colour)  # as if just reached
        return State(self.size, tuple(board), PLAY, colour, black_seat, ply, ending)

    def stacks(self, state: State) -> dict[str, str]:
        """The occupied cells of ``state`` as ``{"e5": "WBB"}`` (bottom to top)."""
        names = self.geo.grid.names
        return {names[c]: decode(code) for c, code in enumerate(state.board) if code}

    def to_move(self, state: State) -> int | None:
        """The seat to move, None once the game is over."""
        if state.ending is not None:
            return None
        if state.phase == SETUP:
            return 1
        if state.phase == CHOOSE:
            return 2
        return self._seat(state, state.colour)

    @staticmethod
    def _seat(state: State, colour: int) -> int:
        return state.black_seat if colour == BLACK else 3 - state.black_seat

    # -- moves ------------------------------------------------------------------------------------

    def legal_moves(self, state: State) -> Iterator[Move]:
        """Lazily, in the order of the module docstring."""
        return self._legal(state, cached=True)

    def _legal(self, state: State, cached: bool) -> Iterator[Move]:
        if state.ending is not None:
            return
        if state.phase == SETUP:
            for c in range(self.geo.size):
                yield Move("place", (c,))
            return
        if state.phase == CHOOSE:
            yield Move("choose", word="black")
            yield Move("choose", word="white")
            return
        for c in _placements(self.geo, state.board, state.colour):
            yield Move("place", (c,))
        search = _cached_origin if cached else _search_origin
        for o in _origins(state.board, state.colour):
            yield from search(self.size, state.board, o).moves

    def bench_legal(self, state: State) -> int:
        """Every legal move, searched afresh (the caches would flatter the figures)."""
        _board_info.cache_clear()
        return sum(1 for _ in self._legal(state, cached=False))

    def _origin_moves(self, state: State, origin: int) -> _OriginMoves:
        return _cached_origin(self.size, state.board, origin)

    def format_move(self, state: State, move: Move) -> str:
        """The canonical text (§9)."""
        names = self.geo.grid.names
        if move.kind == "place":
            return names[move.cells[0]]
        if move.kind == "choose":
            return move.word
        if move.text is not None:
            return move.text
        o, d = move.cells
        assert move.result is not None
        known = self._origin_moves(state, o).by_result.get((d, move.result))
        if known is None or known.text is None:
            raise IllegalMoveError(f"{_way_text(names, move.path)} is not a legal move here")
        return known.text

    def parse_move(self, state: State, text: str) -> Move:
        """The move written ``text`` (§9 parsing rules 1-3)."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move is text, not {text!r}")
        t = text.strip().lower()
        if not t:
            raise InvalidMoveError("an empty text is not a move")
        if t in COLOURS:
            if state.phase != CHOOSE or state.ending is not None:
                raise IllegalMoveError(f"{t!r}: a colour is chosen only at ply 2")
            return Move("choose", word=t)
        parts = [part.strip() for part in t.split("-")]
        cells = [self.geo.grid.parse_index(part) for part in parts]
        self.check_over(state)
        names = self.geo.grid.names
        if len(cells) == 1:
            c = cells[0]
            if state.phase == CHOOSE:
                raise IllegalMoveError(f"{t!r}: seat 2 must now choose black or white")
            if state.phase == PLAY and not _can_place(self.geo, state.board, state.colour, c):
                why = "occupied" if state.board[c] else "next to more friendly than enemy stacks"
                raise IllegalMoveError(f"{t!r}: no placement there ({why}) [A3]")
            return Move("place", (c,))
        if state.phase != PLAY:
            raise IllegalMoveError(f"{t!r}: no stack moves before the colours are chosen")
        o = cells[0]
        code = state.board[o]
        if not code or code & 1 != state.colour:
            raise IllegalMoveError(f"{t!r}: {names[o]} holds no {COLOURS[state.colour]} stack")
        try:
            walk = _Search(self.geo, state.board, o).follow(cells)
        except IllegalMoveError as exc:
            if len(cells) != 2:
                raise IllegalMoveError(f"{t!r}: {exc}") from None
            # §9 rule 2: o-d names the result when every path from o to d gives the same one
            at = self._origin_moves(state, o).by_destination.get(cells[1], ())
            if len(at) == 1:
                return at[0]
            reason = "no legal path reaches it" if not at else "several results reach it"
            raise IllegalMoveError(f"{t!r}: {reason}; name the waypoints") from None
        canonical = "-".join(names[c] for c in cells) if len(cells) == 2 else None
        return Move(
            "move", (o, walk.destination), result=walk.result, path=tuple(cells), text=canonical
        )

    def apply(self, state: State, move: Move) -> State:
        """The state after ``move``; follows only the move's own path."""
        if not isinstance(move, Move):
            raise IllegalMoveError(f"{move!r} is not a Jotun move")
        self.check_over(state)
        names = self.geo.grid.names
        if move.kind == "choose":
            if state.phase != CHOOSE or move.word not in COLOURS:
                raise IllegalMoveError(f"{move.word!r} cannot be played now")
            black_seat = 2 if move.word == "black" else 1
            # [A31] White moves at ply 3, whichever seat holds it
            return State(self.size, state.board, PLAY, WHITE, black_seat, 2, None, move.word, ())
        if move.kind == "place":
            (c,) = move.cells
            if state.phase == SETUP:
                board = list(state.board)
                board[c] = _H | 2 | BLACK  # [A31] the setup stack is black
                return State(self.size, tuple(board), CHOOSE, BLACK, 0, 1, None, names[c], (c,))
            if state.phase != PLAY or not _can_place(self.geo, state.board, state.colour, c):
                raise IllegalMoveError(f"{names[c]!r}: no placement there [A3]")
            board = list(state.board)
            board[c] = _H | 2 | state.colour
            return self._after(state, tuple(board), names[c], (c,))
        if move.kind != "move" or state.phase != PLAY:
            raise IllegalMoveError(f"{move!r} cannot be played now")
        o = move.cells[0]
        code = state.board[o]
        if not code or code & 1 != state.colour:
            raise IllegalMoveError(f"{names[o]} holds no {COLOURS[state.colour]} stack")
        walk = _Search(self.geo, state.board, o).follow(move.path)
        if move.result is not None and (
            walk.result != move.result or walk.destination != move.cells[1]
        ):
            raise IllegalMoveError(f"{_way_text(names, move.path)} does not give that position")
        text = move.text or _way_text(names, move.path)
        return self._after(state, walk.board, text, tuple(walk.cells))

    def _after(
        self, state: State, board: tuple[int, ...], text: str, cells: tuple[int, ...]
    ) -> State:
        ply = state.ply + 1
        ending = _ending(self.geo, board, ply, state.colour)
        return State(
            self.size, board, PLAY, 1 - state.colour, state.black_seat, ply, ending, text, cells
        )

    def outcome(self, state: State) -> Outcome | None:
        """The ending by seat: scores by seat, details by colour."""
        e = state.ending
        if e is None:
            return None
        black_seat = state.black_seat
        by_seat = (e.scores[0], e.scores[1]) if black_seat == 1 else (e.scores[1], e.scores[0])
        return Outcome(
            winner=self._seat(state, e.winner),
            reason=e.reason,
            scores=by_seat,
            colour=COLOURS[e.winner],
            details={
                "scores": {"black": e.scores[0], "white": e.scores[1]},
                "strengths": {"black": e.strengths[0], "white": e.strengths[1]},
                "cells": self.geo.size,
            },
        )

    def key(self, state: State) -> Any:
        """The position without display fields."""
        return (state.size, state.board, state.phase, state.colour, state.black_seat, state.ply)

    def random_move(self, state: State, rng: random.Random) -> Move:
        """A random action: a placement or an origin uniformly, then one of its moves uniformly."""
        if state.ending is not None:
            raise IllegalMoveError("the game is over: there is no move to choose")
        if state.phase != PLAY:
            return rng.choice(list(self.legal_moves(state)))
        places = _placements(self.geo, state.board, state.colour)
        origins = _origins(state.board, state.colour)
        while places or origins:
            k = rng.randrange(len(places) + len(origins))
            if k < len(places):
                return Move("place", (places[k],))
            o = origins.pop(k - len(places))
            moves = self._random_origin_moves(state, o)
            if moves:
                return rng.choice(moves)
        raise IllegalMoveError("no legal move (the game should have ended)")

    def _random_origin_moves(self, state: State, o: int) -> Sequence[Move]:
        search = _Search(self.geo, state.board, o)
        try:
            search.run(budget=RANDOM_BUDGET)
        except _Budget:
            return self._straight_moves(state, o)
        return _collect(self.geo, search).moves

    def _straight_moves(self, state: State, o: int) -> list[Move]:
        """The moves of ``o`` along straight paths: their canonical text is always ``o-d``."""
        names = self.geo.grid.names
        out = []
        for d in range(6):
            for q in self.geo.grid.rays[o][d]:
                if state.board[q]:
                    continue
                try:
                    walk = _Search(self.geo, state.board, o).follow((o, q))
                except IllegalMoveError:
                    continue
                out.append(
                    Move(
                        "move",
                        (o, q),
                        result=walk.result,
                        path=(o, q),
                        text=f"{names[o]}-{names[q]}",
                    )
                )
        return out

    # -- step-wise entry ----------------------------------------------------------------------

    def move_tokens(self, state: State, move: Move) -> tuple[str, ...]:
        """Placement: the cell; choice: the word; movement: origin, destination, then the waypoints
        of its canonical path until it is told apart from the other results at that cell."""
        names = self.geo.grid.names
        if move.kind == "choose":
            return (move.word,)
        if move.kind == "place":
            return (names[move.cells[0]],)
        o, d = move.cells
        assert move.result is not None
        tell = self._origin_moves(state, o).telling.get((d, move.result))
        if tell is None:
            raise IllegalMoveError(f"{_way_text(names, move.path)} is not a legal move here")
        return (names[o], names[d], *(names[c] for c in tell))

    def steps(self, state: State, prefix: Sequence[str]) -> Steps:
        """Next clicks: cells or words, then an origin's destinations, then telling waypoints."""
        prefix = tuple(prefix)
        names = self.geo.grid.names
        by_name = self.geo.grid.by_name
        if state.ending is not None:
            if prefix:
                raise IllegalMoveError("the game is over: no move can be played")
            return Steps(prefix, (), None)
        if state.phase != PLAY:
            options = ("black", "white") if state.phase == CHOOSE else names
            if not prefix:
                return Steps(prefix, tuple(sorted(options)), None)
            if len(prefix) == 1 and prefix[0] in options:
                return Steps(prefix, (), prefix[0])
            raise IllegalMoveError(f"no legal move starts with {' '.join(prefix)!r}")
        board, colour = state.board, state.colour
        if not prefix:
            first = {names[c] for c in _placements(self.geo, board, colour)}
            first |= {names[o] for o in _origins(board, colour) if _has_move(self.geo, board, o)}
            return Steps(prefix, tuple(sorted(first)), None)
        c = by_name.get(prefix[0], -1)
        if c < 0:
            raise IllegalMoveError(f"no legal move starts with {' '.join(prefix)!r}")
        if not board[c]:
            if len(prefix) == 1 and _can_place(self.geo, board, colour, c):
                return Steps(prefix, (), names[c])
            raise IllegalMoveError(f"no legal move starts with {' '.join(prefix)!r}")
        if board[c] & 1 != colour:
            raise IllegalMoveError(f"no legal move starts with {' '.join(prefix)!r}")
        moves = self._origin_moves(state, c)
        if len(prefix) == 1:
            if not moves.moves:
                raise IllegalMoveError(f"{prefix[0]} has no legal move")
            hints = {
                names[d]: self._hint(state, at[0]) if len(at) == 1 else {"results": len(at)}
                for d, at in moves.by_destination.items()
            }
            nxt = tuple(names[d] for d in moves.by_destination)
            return Steps(prefix, tuple(sorted(nxt)), None, hints)
        d = by_name.get(prefix[1], -1)
        at = moves.by_destination.get(d, ())
        if not at:
            raise IllegalMoveError(f"no legal move starts with {' '.join(prefix)!r}")
        chosen = tuple(by_name.get(t, -1) for t in prefix[2:])
        following: dict[str, Move] = {}
        complete = None
        count: dict[str, int] = {}
        for move in at:
            assert move.result is not None
            tell = moves.telling[(d, move.result)]
            if tell == chosen:
                complete = move
            elif len(tell) > len(chosen) and tell[: len(chosen)] == chosen:
                token = names[tell[len(chosen)]]
                following[token] = move
                count[token] = count.get(token, 0) + 1
        if complete is None and not following:
            raise IllegalMoveError(f"no legal move starts with {' '.join(prefix)!r}")
        hints = {
            t: self._hint(state, m) if count[t] == 1 else {"results": count[t]}
            for t, m in following.items()
        }
        return Steps(
            prefix,
            tuple(sorted(following)),
            None if complete is None else complete.text,
            hints,
        )

    def preview(self, state: State, move: Move) -> dict[str, Any]:
        """What the browser shows before sending a move: the path and the stacks it changes."""
        return self._hint(state, move)

    def _hint(self, state: State, move: Move) -> dict[str, Any]:
        names = self.geo.grid.names
        if move.kind != "move":
            return {"move": self.format_move(state, move), "path": [names[c] for c in move.cells]}
        walk = _Search(self.geo, state.board, move.cells[0]).follow(move.path)
        changed = {
            names[c]: _colours(walk.board[c])
            for c in range(self.geo.size)
            if walk.board[c] != state.board[c]
        }
        return {
            "move": move.text,
            "path": [names[c] for c in walk.cells],
            "cells": list(changed),
            "waypoints": [names[c] for c in move.path],
            "changes": changed,
        }

    # -- the view ---------------------------------------------------------------------------------

    def view(self, state: State) -> dict[str, Any]:
        """Cells and stacks, turn, seat colours, ply counter and the current territory count."""
        grid = self.geo.grid
        board = state.board
        outcome = self.outcome(state)
        cells: list[CellView] = []
        for i, (q, r) in enumerate(grid.cells):
            cell: CellView = {"id": grid.names[i], "q": q, "r": r, "stack": _colours(board[i])}
            if not board[i] and state.phase == PLAY:
                black = _can_place(self.geo, board, BLACK, i)
                white = _can_place(self.geo, board, WHITE, i)
                if black != white:  # an empty cell only one colour may take: its territory
                    cell["mark"] = "territory-black" if black else "territory-white"
            cells.append(cell)
        colours: list[str | None] = [None, None]
        if state.black_seat:
            colours[state.black_seat - 1] = "black"
            colours[2 - state.black_seat] = "white"
        scores = _scores(self.geo, board)
        counters: list[dict[str, Any]] = [
            {"label": "Ply", "value": f"{state.ply} / {self.geo.cap}", "seat": None}
        ]
        if state.black_seat:
            for x in (BLACK, WHITE):
                counters.append(
                    {"label": "Territory", "value": scores[x], "seat": self._seat(state, x)}
                )
        last = None
        if state.last_text is not None:
            last = (state.last_text, [grid.names[c] for c in state.last_cells])
        return make_view(
            game=self.slug,
            kind="hex",
            side=self.size,
            cells=cells,
            rows=row_labels(grid),
            to_move=self.to_move(state),
            colours=colours,
            phase=state.phase,
            last_move=last,
            counters=counters,
            outcome=outcome,
            extra={
                "ply": state.ply,
                "ply_limit": self.geo.cap,
                "majority": self.geo.size // 2 + 1,
                "territory": {"black": scores[0], "white": scores[1]},
                "colour_to_move": None if state.phase != PLAY else COLOURS[state.colour],
                # the path and changed stacks of a move before it is sent come with ``steps``:
                # each hint of a destination (or waypoint) that completes a move holds
                # {"move", "path", "waypoints", "changes": {cell: stack}}
                "preview": "steps-hints",
            },
        )


def _colours(code: int) -> list[str]:
    return ["black" if p == "B" else "white" for p in decode(code)]


def _telling(at: Sequence[Move]) -> list[tuple[int, ...]]:
    """For the results at one destination, in order: the inner waypoints of each canonical path up
    to the first prefix no other result shares (all of them if none does; none if the text is
    ``o-d``)."""
    if len(at) == 1:
        return [()]
    inners = [move.path[1:-1] for move in at]
    shared = Counter(w[:k] for w in inners for k in range(1, len(w) + 1))
    out = []
    for w in inners:
        tell = w
        for k in range(1, len(w) + 1):
            if shared[w[:k]] == 1:
                tell = w[:k]
                break
        out.append(tell)
    return out
