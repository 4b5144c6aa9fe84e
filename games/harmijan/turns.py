"""Harmijan's turn generation (spec §4): every turn of a position, whether one exists, the table
that step-wise entry walks, and why a given turn is illegal.

The bitsets of one board size are games.bitboard's Bitboard (neighbour masks, dilation, flood,
components); its ``board`` gives hexgrid's integer tables (rays, steps by direction).
"""

from __future__ import annotations

import random
from functools import cache

from ..bitboard import Bitboard, bit_list, bits, one_run
from .state import Turn


@cache  # one table per board size
def _ray_bits(geo: Bitboard) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``rays`` of the board as single-bit masks: the walks below test each cell by its bit."""
    return tuple(tuple(tuple(1 << j for j in ray) for ray in rays) for rays in geo.board.rays)


@cache  # one table per board size
def _around(geo: Bitboard) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For each cell, each neighbour's closed neighbourhood and bit."""
    return tuple(tuple((geo.closed[j], 1 << j) for j in row) for row in geo.board.adjacent)


class Creatures:
    """One colour's creatures, and for each of its stones the board that stone sees while it moves.

    A function of that colour's stones alone: ``Rules`` keeps it across positions, so the colour
    whose stones the last turn left alone (no bite) finds its creatures, and every stone's view
    without itself, as it left them two plies before.
    """

    def __init__(
        self, geo: Bitboard, own: int, known: tuple[list[int], list[int], list[int]] | None = None
    ) -> None:
        """The creatures of ``own``; ``known``: already its creatures, their halos (each creature
        dilated by :meth:`Bitboard.dilate`) and for each cell the number of its creature (-1 for
        none), the creatures in any order."""
        self.geo = geo
        board = geo.board  # hexgrid's integer tables, looked up once per position
        self.rays = _ray_bits(geo)
        self.runs = one_run(board.n)
        self.around = _around(geo)
        self.own = own
        if known is None:
            self.creatures = geo.components(own)
            self.dilated = [geo.dilate(c) for c in self.creatures]
            self.label = [-1] * len(geo.near)
            for n, creature in enumerate(self.creatures):
                for i in bits(creature):
                    self.label[i] = n
        else:
            self.creatures, self.dilated, self.label = known
        # cells touching at least one / two / three creatures: with creature n left out, a cell
        # next to it counts one creature fewer, so no per-creature tables are needed
        once = twice = thrice = movable = 0
        for creature, d in zip(self.creatures, self.dilated, strict=True):
            thrice |= twice & d
            twice |= once & d
            once |= d
            if creature & (creature - 1):  # [H4] two or more stones, counted before the move
                movable |= creature
        self.once, self.twice, self.thrice = once, twice, thrice
        self.movable = movable
        self.stones = bit_list(movable)  # the same, listed once for the searches
        # stones last seen with a turn: whether a turn exists is asked of them first, since a
        # stone that could move two plies ago usually still can (the answer is the same)
        self.hint = 0
        self._without: dict[int, _Without] = {}

    def after(self, s: int, x: int, y: int) -> Creatures | None:
        """The creatures after this colour's turn (s, x, y), updated rather than recomputed: the
        creature of ``s`` falls into the pieces ``s`` leaves [H3], ``x`` joins the one creature it
        touches [H2] and ``y`` the one it touches, if any [H7]. None if that does not hold (a
        search may apply a move unchecked: a wrong one must not leave wrong creatures kept)."""
        if not self.movable >> s & 1 or x == y or (self.own & ~(1 << s)) >> x & 1:
            return None
        without = self.without(s)
        creatures, dilated, label = self.creatures.copy(), self.dilated.copy(), self.label.copy()
        label[s] = -1
        _replace(creatures, dilated, label, without.n, without.parts, without.pieces)
        closed, near = self.geo.closed, self.geo.near
        own = self.own & ~(1 << s)
        for cell in (x, y):
            if own >> cell & 1:
                return None
            friends = near[cell] & own  # all in one creature [H2] [H7]
            if friends:
                m = label[(friends & -friends).bit_length() - 1]
                if friends & ~creatures[m]:
                    return None
                creatures[m] |= 1 << cell
                dilated[m] |= closed[cell]
            elif cell == x:  # [H2] the moved stone touches exactly one creature
                return None
            else:  # y may start a creature of its own
                m = len(creatures)
                creatures.append(1 << cell)
                dilated.append(closed[cell])
            label[cell] = m
            own |= 1 << cell
        out = Creatures(self.geo, own, (creatures, dilated, label))
        out.hint = (self.hint & ~(1 << s)) | 1 << x
        return out

    def bitten(self, x: int) -> Creatures:
        """The creatures after the enemy bit the stone on ``x`` [H5]: its creature may split."""
        n = self.label[x]
        creatures, dilated, label = self.creatures.copy(), self.dilated.copy(), self.label.copy()
        label[x] = -1
        parts, pieces = self._remove(x)
        _replace(creatures, dilated, label, n, parts, pieces)
        out = Creatures(self.geo, self.own & ~(1 << x), (creatures, dilated, label))
        out.hint = self.hint & ~(1 << x)
        return out

    def _remove(self, s: int) -> tuple[list[int], list[int]]:
        """What is left of the creature of ``s`` without it (none, one or more creatures [H3]),
        and their halos."""
        geo = self.geo
        n = self.label[s]
        rest = self.creatures[n] & ~(1 << s)
        if (geo.near[s] & rest) in self.runs[s]:
            # its other stones next to s form one run, so it stays one creature: its halo loses
            # only cells that touched s alone
            # (s itself still touches the rest): the neighbours of s next to none of the rest
            lost = 0
            for around, bit in self.around[s]:
                if not around & rest:
                    lost |= bit
            return [rest], [self.dilated[n] & ~lost]
        parts = geo.components(rest)
        return parts, [geo.dilate(p) for p in parts]

    def without(self, s: int) -> _Without:
        """The board seen by the stone at ``s`` while it moves ([H1]: counted without it);
        kept, since whether a turn exists and which turn a search draws ask for the same."""
        known = self._without.get(s)
        if known is None:
            known = self._without[s] = self._compute_without(s)
        return known

    def _compute_without(self, s: int) -> _Without:
        n = self.label[s]
        parts, pieces = self._remove(s)
        # the other creatures: a cell next to creature n touches one fewer of them
        halo = self.dilated[n]
        once = self.twice | (self.once & ~halo)
        twice = self.thrice | (self.twice & ~halo)
        for d in pieces:
            twice |= once & d
            once |= d
        return _Without(self, s, n, parts, pieces, once & ~twice, twice)


def _replace(
    creatures: list[int],
    dilated: list[int],
    label: list[int],
    n: int,
    parts: list[int],
    pieces: list[int],
) -> None:
    """Put ``parts`` (with their halos ``pieces``) in the place of creature ``n``, relabelling
    the cells that change creature; with no parts, the last creature takes its place."""
    if not parts:
        last = creatures.pop()
        halo = dilated.pop()
        if n < len(creatures):
            creatures[n], dilated[n] = last, halo
            for i in bits(last):
                label[i] = n
        return
    creatures[n], dilated[n] = parts[0], pieces[0]
    for part, piece in zip(parts[1:], pieces[1:], strict=True):
        m = len(creatures)
        creatures.append(part)
        dilated.append(piece)
        for i in bits(part):
            label[i] = m


class _Without:
    """The slides and placements of the stone at ``s``, whatever the enemy stones."""

    # slots: a position builds several of these, and their fields are read in the hot loops
    __slots__ = ("creatures", "n", "one", "own", "parts", "pieces", "s", "stop", "two")

    def __init__(
        self,
        creatures: Creatures,
        s: int,
        n: int,
        parts: list[int],
        pieces: list[int],
        one: int,
        two: int,
    ) -> None:
        self.creatures = creatures
        self.s = s
        self.n = n  # the creature of s
        self.parts = parts  # what is left of it without s, one or more creatures [H3]
        self.pieces = pieces  # their halos
        self.one = one  # cells touching exactly one friendly creature
        self.two = two  # cells touching two or more
        self.own = creatures.own & ~(1 << s)
        # [H2] every entered cell, the end and a bite cell included, touches exactly one creature
        self.stop = self.own | ~one

    def targets(self, enemy: int) -> int:
        """The cells the stone can slide to (a bitset)."""
        stop = self.stop
        out = 0
        for ray in self.creatures.rays[self.s]:
            for bit in ray:
                if stop & bit:
                    break
                out |= bit
                if enemy & bit:  # [H5] a bite ends the slide
                    break
        return out

    def places(self, x: int, enemy: int) -> int:
        """The cells where the new stone may go after the slide to ``x`` (a bitset)."""
        creatures = self.creatures
        geo = creatures.geo
        # [H8] the moved stone's creature after the move: x joined to the one creature it touches
        halo = 0
        for d in self.pieces:
            if d >> x & 1:
                halo = d
                break
        else:
            friend = (geo.near[x] & self.own).bit_length() - 1
            halo = creatures.dilated[creatures.label[friend]]
        halo |= geo.closed[x]
        stones = self.own | enemy | 1 << x  # [H6] the vacated cell is empty
        # [H7] at most one neighbouring friendly creature: no merge
        allowed = ~(stones | halo | self.two)
        out = 0
        for ray in creatures.rays[x]:  # [H6] any of the six lines, no jumping
            for bit in ray:
                if stones & bit:
                    break
                out |= bit
        return out & allowed


class Slides:
    """The turns of one position: the mover's :class:`Creatures` against the enemy stones."""

    def __init__(
        self, geo: Bitboard, own: int, enemy: int, creatures: Creatures | None = None
    ) -> None:
        self.geo = geo
        self.own = own
        self.enemy = enemy
        self.creatures = Creatures(geo, own) if creatures is None else creatures
        self.dead = 0  # stones found to have no turn here

    def movable(self) -> int:
        """The stones of creatures of two or more stones ([H4]: size before the move)."""
        return self.creatures.movable

    def targets(self, s: int) -> int:
        """The cells the stone at ``s`` can slide to (a bitset)."""
        return self.creatures.without(s).targets(self.enemy)

    def places(self, s: int, x: int) -> int:
        """The cells where the new stone may go after the slide from ``s`` to ``x`` (a bitset)."""
        return self.creatures.without(s).places(x, self.enemy)


def turns(geo: Bitboard, own: int, enemy: int, slides: Slides | None = None) -> list[Turn]:
    """Every turn, sorted by (source, target, place) in reading order; ``slides`` if the caller
    has them."""
    if slides is None:
        slides = Slides(geo, own, enemy)
    creatures = slides.creatures
    out = []
    for s in bits(creatures.movable):
        without = creatures.without(s)
        for x in bits(without.targets(enemy)):
            for y in bits(without.places(x, enemy)):
                # by position, the one exception: keywords cost a fifth of legal_moves here
                out.append(Turn(s, x, y))  # source, target, place
    return out


def has_turn(geo: Bitboard, own: int, enemy: int, slides: Slides | None = None) -> bool:
    """Whether any turn exists (stops at the first one); ``slides`` if the caller has them."""
    if slides is None:
        slides = Slides(geo, own, enemy)
    creatures = slides.creatures
    hint = creatures.hint & creatures.movable
    for first in (True, False):
        if first:
            stones = bit_list(hint)
        else:
            stones = [s for s in creatures.stones if not hint >> s & 1]
        for s in stones:
            without = creatures.without(s)
            for x in bit_list(without.targets(enemy)):
                if without.places(x, enemy):
                    creatures.hint |= 1 << s
                    return True
            slides.dead |= 1 << s
            creatures.hint &= ~(1 << s)
    return False


def random_turn(slides: Slides, rng: random.Random) -> Turn | None:
    """A random turn without listing them all: a stone uniformly among those that have a turn,
    then a destination uniformly among its destinations that leave a place, then a place
    uniformly; None if there is no turn.

    Each choice draws among the candidates not yet refused until one leads to a turn: the same
    distribution as taking the first that does in a shuffled order, without shuffling them all.
    """
    creatures, enemy = slides.creatures, slides.enemy
    dead = slides.dead  # stones known to have no turn here
    stones = [s for s in creatures.stones if not dead >> s & 1] if dead else creatures.stones[:]
    while stones:
        s = rng.choice(stones)
        stones.remove(s)
        without = creatures.without(s)
        targets = bit_list(without.targets(enemy))
        while targets:
            x = rng.choice(targets)
            places = without.places(x, enemy)
            if places:
                creatures.hint |= 1 << s
                return Turn(s, x, rng.choice(bit_list(places)))
            targets.remove(x)
        slides.dead |= 1 << s
        creatures.hint &= ~(1 << s)
    return None


def turn_table(geo: Bitboard, own: int, enemy: int) -> dict[int, dict[int, int]]:
    """source -> target -> bitset of places, for step-wise entry (``Rules`` caches it across
    clicks)."""
    creatures = Creatures(geo, own)
    table: dict[int, dict[int, int]] = {}
    for s in bits(creatures.movable):
        without = creatures.without(s)
        targets = {x: p for x in bits(without.targets(enemy)) if (p := without.places(x, enemy))}
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
    if not slides.targets(s) >> x & 1:
        return f"The stone on {names[s]} cannot slide to {names[x]}", "4"
    if not slides.places(s, x) >> y & 1:
        return f"After {names[s]} to {names[x]}, no stone may be placed on {names[y]}", "4"
    return None
