"""Harmijan's turn generation (spec §4): every turn of a position, whether one exists, the table
that step-wise entry walks, and why a given turn is illegal.

The bitsets of one board size are games.bitboard's Bitboard (neighbour masks, dilation, flood,
components); its ``board`` gives hexgrid's integer tables (rays, steps by direction).
"""

from __future__ import annotations

import random

from ..bitboard import Bitboard, bits
from .state import Turn

# arcs[pattern]: how many separate runs of friendly neighbours a 6-bit ring pattern has; a stone
# whose friendly neighbours form one run leaves its creature connected when it moves away
_ARCS = tuple(
    max(1, sum(1 for d in range(6) if p >> d & 1 and not p >> (d - 1) % 6 & 1)) for p in range(64)
)


class Slides:
    """One colour's creatures on a board, and for each stone the data its slides and placements
    need: the creatures without that stone, and where a cell touches one or two of them."""

    def __init__(self, geo: Bitboard, own: int, enemy: int) -> None:
        self.geo = geo
        board = geo.board  # hexgrid's integer tables, looked up once per position
        self.rays = board.rays
        self.step = board.step
        self.adjacent = board.adjacent
        self.own = own
        self.enemy = enemy
        self.creatures = geo.components(own)
        self.dilated = [geo.dilate(c) for c in self.creatures]
        self.label: dict[int, int] = {}
        for n, creature in enumerate(self.creatures):
            for i in bits(creature):
                self.label[i] = n
        # once/twice: cells touching at least one / at least two creatures, all but creature n
        count = len(self.creatures)
        pre_once = [0] * (count + 1)
        pre_twice = [0] * (count + 1)
        for n, d in enumerate(self.dilated):
            pre_twice[n + 1] = pre_twice[n] | (pre_once[n] & d)
            pre_once[n + 1] = pre_once[n] | d
        self.pre = (pre_once, pre_twice)
        post_once = [0] * (count + 1)
        post_twice = [0] * (count + 1)
        for n in range(count - 1, -1, -1):
            d = self.dilated[n]
            post_twice[n] = post_twice[n + 1] | (post_once[n + 1] & d)
            post_once[n] = post_once[n + 1] | d
        self.post = (post_once, post_twice)
        self._without: dict[int, _Without] = {}

    def movable(self) -> int:
        """The stones of creatures of two or more stones ([H4]: size before the move)."""
        out = 0
        for creature in self.creatures:
            if creature & (creature - 1):
                out |= creature
        return out

    def without(self, s: int) -> _Without:
        """The board seen by the stone at ``s`` while it moves ([H1]: counted without it);
        kept, since whether a turn exists and which turn a search draws ask for the same."""
        known = self._without.get(s)
        if known is None:
            known = self._without[s] = self._compute_without(s)
        return known

    def _compute_without(self, s: int) -> _Without:
        geo = self.geo
        n = self.label[s]
        creature = self.creatures[n]
        rest = creature & ~(1 << s)
        pattern = 0
        for d, j in enumerate(self.step[s]):
            if j >= 0 and rest >> j & 1:
                pattern |= 1 << d
        if _ARCS[pattern] == 1:
            # [H3] still one creature: its halo loses only cells that touched s alone
            lost = 0
            closed = geo.closed
            for y in (s, *self.adjacent[s]):  # the cells of closed[s]
                if not closed[y] & rest:
                    lost |= 1 << y
            pieces = [self.dilated[n] & ~lost]
        else:  # [H3] the departure may split the creature
            pieces = [geo.dilate(p) for p in geo.components(rest)]
        (pre_once, pre_twice), (post_once, post_twice) = self.pre, self.post
        once = pre_once[n] | post_once[n + 1]
        twice = pre_twice[n] | post_twice[n + 1] | (pre_once[n] & post_once[n + 1])
        for d in pieces:
            twice |= once & d
            once |= d
        return _Without(self, s, n, pieces, once & ~twice, twice)


class _Without:
    """The slides and placements of the stone at ``s``."""

    def __init__(
        self, slides: Slides, s: int, n: int, pieces: list[int], one: int, two: int
    ) -> None:
        self.slides = slides
        self.s = s
        self.n = n
        self.pieces = pieces
        self.one = one  # cells touching exactly one friendly creature
        self.two = two  # cells touching two or more
        self.own = slides.own & ~(1 << s)

    def targets(self) -> int:
        """The cells the stone can slide to (a bitset)."""
        own, one, enemy = self.own, self.one, self.slides.enemy
        out = 0
        for ray in self.slides.rays[self.s]:
            for x in ray:
                bit = 1 << x
                # [H2] every entered cell, the end and a bite cell included, touches exactly one
                if own & bit or not one & bit:
                    break
                out |= bit
                if enemy & bit:  # [H5] a bite ends the slide
                    break
        return out

    def places(self, x: int) -> int:
        """The cells where the new stone may go after the slide to ``x`` (a bitset)."""
        geo = self.slides.geo
        # [H8] the moved stone's creature after the move: x joined to the one creature it touches
        halo = 0
        for d in self.pieces:
            if d >> x & 1:
                halo = d
                break
        else:
            friend = (geo.near[x] & self.own).bit_length() - 1
            halo = self.slides.dilated[self.slides.label[friend]]
        halo |= geo.closed[x]
        stones = self.own | self.slides.enemy | 1 << x  # [H6] the vacated cell is empty
        # [H7] at most one neighbouring friendly creature: no merge
        allowed = ~(stones | halo | self.two)
        out = 0
        for ray in self.slides.rays[x]:  # [H6] any of the six lines, no jumping
            for y in ray:
                bit = 1 << y
                if stones & bit:
                    break
                out |= bit
        return out & allowed


def turns(geo: Bitboard, own: int, enemy: int, slides: Slides | None = None) -> list[Turn]:
    """Every turn, sorted by (source, target, place) in reading order; ``slides`` if the caller
    has them."""
    if slides is None:
        slides = Slides(geo, own, enemy)
    out = []
    for s in bits(slides.movable()):
        without = slides.without(s)
        for x in bits(without.targets()):
            for y in bits(without.places(x)):
                # by position, the one exception: keywords cost a fifth of legal_moves here
                out.append(Turn(s, x, y))  # source, target, place
    return out


def has_turn(geo: Bitboard, own: int, enemy: int, slides: Slides | None = None) -> bool:
    """Whether any turn exists (stops at the first one); ``slides`` if the caller has them."""
    if slides is None:
        slides = Slides(geo, own, enemy)
    for s in bits(slides.movable()):
        without = slides.without(s)
        for x in bits(without.targets()):
            if without.places(x):
                return True
    return False


def random_turn(slides: Slides, rng: random.Random) -> Turn | None:
    """A random turn without listing them all: a stone uniformly among those that have a turn,
    then a destination uniformly among its destinations that leave a place, then a place
    uniformly; None if there is no turn."""
    stones = list(bits(slides.movable()))
    rng.shuffle(stones)
    for s in stones:
        without = slides.without(s)
        targets = list(bits(without.targets()))
        rng.shuffle(targets)
        for x in targets:
            places = without.places(x)
            if places:
                return Turn(s, x, rng.choice(list(bits(places))))
    return None


def turn_table(geo: Bitboard, own: int, enemy: int) -> dict[int, dict[int, int]]:
    """source -> target -> bitset of places, for step-wise entry (``Rules`` caches it across
    clicks)."""
    slides = Slides(geo, own, enemy)
    table: dict[int, dict[int, int]] = {}
    for s in bits(slides.movable()):
        without = slides.without(s)
        targets = {x: p for x in bits(without.targets()) if (p := without.places(x))}
        if targets:
            table[s] = targets
    return table


def turn_fault(
    geo: Bitboard, own: int, enemy: int, s: int, x: int, y: int, slides: Slides | None = None
) -> tuple[str, str] | None:
    """Why the turn (s, x, y) is illegal and the rule it breaks, or None if it is legal;
    ``slides`` if the caller has them."""
    names = geo.board.names
    cells = len(names)
    if not all(0 <= i < cells for i in (s, x, y)):
        return "A cell of that move is off the board", "4"
    if not own >> s & 1:
        return f"{names[s]} holds none of your stones", "4"
    if slides is None:
        slides = Slides(geo, own, enemy)
    if not slides.movable() >> s & 1:
        return f"The stone on {names[s]} stands alone and cannot move", "H4"
    without = slides.without(s)
    if not without.targets() >> x & 1:
        return f"The stone on {names[s]} cannot slide to {names[x]}", "4"
    if not without.places(x) >> y & 1:
        return f"After {names[s]} to {names[x]}, no stone may be placed on {names[y]}", "4"
    return None
