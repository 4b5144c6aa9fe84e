"""Exxit (Vincent Everaert, 2003): a boardless sowing game on a field of hex tiles that grows.

The binding rules are ``shared/rules/exxit.md`` (its decisions are cited as ``[9.n]``); the designer's
text is ``shared/rules/source/exxit.es.txt``. In short:

- The field starts as four tiles: red ``0,0`` and ``1,-1``, black ``0,-1`` and ``1,0``. The stock holds
  the rest of the variant's tiles (``standard`` 39, ``blitz`` 29, ``beginner`` 19, core included).
  Each player has 8 pawns in reserve. Red (seat 1) moves first [9.8]; Black is seat 2.
- A stack belongs to the colour of its top pawn. On each turn the mover has one kind of move, by
  priority: a **dance** if any exists (compulsory; if a dance drops pawns off the field, only such
  dances are legal) [9.2]; else a **placement** (a pawn from the reserve onto any tile without pawns)
  [9.9] or a **liberation**; else ``pass``.
- A dance sows the mover's whole stack of ``n`` pawns, bottom pawn first, one per cell along a
  straight line. Every cell before the target is an empty tile; the target is the first stack met,
  an opponent's, no higher than ``n`` [9.1], at most ``n`` away. Past the target the pawns land on
  anything on tiles; at the first cell without a tile the pawns still in hand become a prisoner stack
  there (original order kept). A dance whose prisoners would land on a prisoner stack is illegal [9.3].
- A liberation takes a prisoner stack with at least two tile neighbours: its pawns go back to their
  owners, a tile of the liberator's colour fills its cell (``stock -= 1``), and neighbouring prisoner
  stacks that now touch two tiles follow, depth first in direction order, while the stock lasts.
- The game ends when a liberation empties the stock, after two passes in a row [9.5], or at the third
  occurrence of a position [9.6]. Each colour scores its tiles plus the size of its largest island
  [9.7]; equal scores are a draw [9.4]. The "expert" setup of BoardSpace is not offered [9.10].

Notation (§10): a placement is the cell ``q,r``; a dance ``source>target`` (the first stack met);
a liberation ``+q,r`` (the chain follows by itself); ``pass``. The parser allows blanks around the
comma, ``>`` and after ``+``, and ``pass`` in any case; the printer writes none of them.

>>> rules = Rules()
>>> state = rules.play(rules.play(rules.initial_state(), "0,0"), "1,-1")
>>> [rules.format_move(state, m) for m in rules.legal_moves(state)]  # dancing is compulsory
['0,0>1,-1']
>>> rules.play(state, "0,0>1,-1").stack_at  # Red (colour 0) lands on Black (1): now Red's
{(1, -1): (1, 0)}

Readings chosen where the spec is silent (each marked ``[R.n]`` in the code):

- [R.1] Liberation chain: the neighbours of a freshly tiled cell are examined one at a time in
  direction order, each *when its turn comes* (so a sub-chain started by an earlier neighbour may
  already have given a later one its second tile, or liberated it).
- [R.2] Several end conditions at once: ``stock-exhausted`` before ``double-pass`` before
  ``repetition`` (the order of §7). A liberation is irreversible [R.3] and so never completes a
  repetition: only the last two can meet, when a second pass in a row also repeats a position.
- [R.3] Repetition history: only positions since the last irreversible move are kept. A placement
  lowers a reserve and an off-field dance adds a prisoner stack, and only a liberation (which spends
  a tile of the stock for good) can undo either, so no earlier position can ever recur. This is the
  same count as §7 asks, only shorter.
- [R.4] Colours: pawns and tiles are ``"red"`` (seat 1) and ``"black"`` (seat 2), as in the spec;
  in a state they are the colour indices of ``games.seats``, ``RED, BLACK = 0, 1``.
- [R.5] Move order of ``legal_moves``: dances by source in reading order (``r``, then ``q``), then by
  direction (E, NE, NW, W, SW, SE); placements in reading order, then liberations in reading order.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, ClassVar, Literal

from .base import Option, Outcome, Steps, play_prompt
from .base import Rules as BaseRules
from .errors import IllegalMoveError, InvalidMoveError, typed
from .hexgrid import DIRECTIONS, Hex, add, direction_between, neighbours
from .seats import EXXIT_COLOURS, Colour, seat_colours, seat_of
from .symmetry import digest
from .view import CellView, EffectRow, Effects, View, make_view

# --- constants -----------------------------------------------------------------------------------

RED, BLACK = 0, 1  # colour indices (games.seats) of pawns and tiles: Red is on seat 1 [R.4]
COLOURS = EXXIT_COLOURS  # names by colour index
RED_SEAT = 1  # Exxit's fixed ``black_seat`` (games.seats): colour 0, Red, is always seat 1
PAWNS = 8  # each player's reserve at the start
VARIANTS: dict[str, int] = {"standard": 39, "blitz": 29, "beginner": 19}  # tiles, core included
CORE: tuple[tuple[Hex, Colour], ...] = (
    ((0, -1), BLACK),
    ((1, -1), RED),
    ((0, 0), RED),
    ((1, 0), BLACK),
)

Stack = tuple[Colour, ...]  # pawn colours, bottom to top


def reading_order(cell: Hex) -> tuple[int, int]:
    """Sort key of a cell: ``r`` ascending, then ``q`` (README, "Cell names")."""
    return (cell[1], cell[0])


def cell_name(cell: Hex) -> str:
    """The spec's name of a cell: ``q,r``."""
    return f"{cell[0]},{cell[1]}"


# --- state ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    """A position of Exxit, immutable and hashable.

    ``tiles`` and ``stacks`` are (cell, value) pairs in reading order; ``stacks`` holds both the stacks
    on tiles and the prisoner stacks on off-field cells. ``history`` holds the keys of the positions
    since the last irreversible move, this one last [R.3]; ``ended`` is the end reason once over.
    ``last`` (the last move's text and cell ids) and ``last_effects`` (what it did on each cell,
    for the view) are for display only and not part of :meth:`key`.
    """

    tiles: tuple[tuple[Hex, Colour], ...]
    stacks: tuple[tuple[Hex, Stack], ...]
    reserves: tuple[int, int]  # by colour
    stock: int
    mover: Colour
    passes: int = 0
    ply: int = 0
    ended: str | None = None
    history: tuple[tuple[Any, ...], ...] = ()
    last: tuple[str, tuple[str, ...]] | None = None
    last_effects: tuple[EffectRow, ...] = ()

    @cached_property
    def tile_at(self) -> dict[Hex, Colour]:
        """Tile colour by cell (a cache derived from ``tiles``)."""
        return dict(self.tiles)

    @cached_property
    def stack_at(self) -> dict[Hex, Stack]:
        """Stack by cell, prisoners included (a cache derived from ``stacks``)."""
        return dict(self.stacks)

    @cached_property
    def moves(self) -> tuple[Move, ...]:
        """The legal moves of a live position (a cache: a move is listed, then checked, often
        several times on one position)."""
        return tuple(_legal(self))

    def position(self) -> tuple[Any, ...]:
        """What §7 compares for repetition: field, stacks, prisoners, reserves, stock, mover."""
        return (self.tiles, self.stacks, self.reserves, self.stock, self.mover)

    def prisoners(self) -> list[tuple[Hex, Stack]]:
        """The prisoner stacks (on off-field cells), in reading order."""
        tiles = self.tile_at
        return [(c, s) for c, s in self.stacks if c not in tiles]


def make_state(
    tiles: Mapping[Hex, Colour],
    stacks: Mapping[Hex, Stack],
    *,
    reserves: tuple[int, int],
    stock: int,
    mover: Colour = RED,
    passes: int = 0,
    ply: int = 0,
) -> State:
    """A position built directly (tests, puzzles); its history starts with itself."""
    state = State(
        tiles=tuple(sorted(tiles.items(), key=lambda kv: reading_order(kv[0]))),
        stacks=tuple(sorted(stacks.items(), key=lambda kv: reading_order(kv[0]))),
        reserves=reserves,
        stock=stock,
        mover=mover,
        passes=passes,
        ply=ply,
    )
    return _with_history(state, ())


# --- moves ---------------------------------------------------------------------------------------

Kind = Literal["place", "dance", "liberate", "pass"]


@dataclass(frozen=True)
class Move:
    """A move: ``place`` a pawn on ``cell``; ``dance`` from ``cell`` towards the stack on ``target``;
    ``liberate`` the prisoner stack on ``cell``; or ``pass`` (no cell)."""

    kind: Kind
    cell: Hex | None = None
    target: Hex | None = None

    def tokens(self) -> tuple[str, ...]:
        """The clicks that enter the move: cell ids, or the word ``pass``."""
        if self.cell is None:
            return ("pass",)
        if self.target is None:
            return (cell_name(self.cell),)
        return (cell_name(self.cell), cell_name(self.target))

    def text(self) -> str:
        """The canonical notation (§10)."""
        if self.kind == "pass" or self.cell is None:
            return "pass"
        if self.kind == "liberate":
            return "+" + cell_name(self.cell)
        if self.kind == "dance" and self.target is not None:
            return f"{cell_name(self.cell)}>{cell_name(self.target)}"
        return cell_name(self.cell)


PASS = Move(kind="pass")

_CELL = r"\s*(-?\d+)\s*,\s*(-?\d+)\s*"
_PLACE = re.compile(_CELL)
_LIBERATE = re.compile(r"\s*\+" + _CELL)
_DANCE = re.compile(_CELL + ">" + _CELL)


# --- rules ---------------------------------------------------------------------------------------


class Rules(BaseRules[State, Move]):
    """Exxit for one variant (number of tiles)."""

    slug: ClassVar[str] = "exxit"
    title: ClassVar[str] = "Exxit"
    draws: ClassVar[bool] = True  # equal scores (decision 4)
    summary: ClassVar[str] = (
        "Sow stacks of pawns across a field of tiles that grows; own the largest island."
    )
    notation: ClassVar[tuple[str, ...]] = ("1,0", "0,0>1,0", "+0,1", "pass")
    colours: ClassVar[tuple[str, str]] = COLOURS
    OPTIONS: ClassVar[tuple[Option, ...]] = (  # [9.10] no "expert" setup
        Option(
            "variant",
            "standard",
            tuple(VARIANTS),
            "tiles in the game: standard 39, blitz 29, beginner 19",
        ),
    )

    @property
    def total_tiles(self) -> int:
        """Tiles in the game, the core included."""
        return VARIANTS[str(self._options["variant"])]

    def initial_state(self) -> State:
        """The core of four tiles, no pawns, full reserves; Red to move [9.8]."""
        return make_state(  # mover defaults to Red [9.8]
            dict(CORE), {}, reserves=(PAWNS, PAWNS), stock=self.total_tiles - len(CORE)
        )

    def to_move(self, state: State) -> int | None:
        """The seat to move, None once the game is over."""
        return None if state.ended else seat_of(state.mover, RED_SEAT)

    def legal_moves(self, state: State) -> list[Move]:
        """Every legal move in the order of [R.5]: one kind only, by the priority of §4."""
        if state.ended:
            return []
        return list(state.moves)

    def format_move(self, state: State, move: Move) -> str:
        """The canonical text of ``move`` (§10)."""
        return move.text()

    def parse_move(self, state: State, text: str) -> Move:
        """The move written ``text``: InvalidMoveError if no move, IllegalMoveError if not legal."""
        move = _parse(text)
        self.check_over(state)
        if move not in state.moves:
            raise IllegalMoveError(*_why_illegal(state, move))
        return move

    def apply(self, state: State, move: Move) -> State:
        """The state after ``move``; IllegalMoveError if it is not legal."""
        self.check_over(state)
        if not isinstance(move, Move):
            raise IllegalMoveError("That is not an Exxit move")
        if move not in state.moves:
            raise IllegalMoveError(*_why_illegal(state, move))
        return _play(state, move)

    def search_apply(self, state: State, move: Move) -> State:
        """The state after a legal ``move``, unchecked; its display fields (``last``,
        ``last_effects``) left empty."""
        return _play(state, move, shown=False)

    def search_random_move(self, state: State, rng: random.Random) -> Move:
        """Uniform over the legal moves, as :meth:`random_move` (the very same move for the same
        ``rng``), without making a ``Move`` of each: the draw is an index into the moves of
        ``legal_moves``, counted by kind, and only the drawn one is built."""
        if state.ended:
            raise IllegalMoveError("The game is over")
        if "moves" in state.__dict__:  # listed already: the cache costs nothing more
            moves = state.moves
            return moves[rng.randrange(len(moves))]
        dances = _dances(state)
        if dances:  # [9.9] compulsory; [9.2] off-field ones first
            off = [dc for dc in dances if dc[3]]
            source, _, target, _ = (off or dances)[rng.randrange(len(off or dances))]
            return Move(kind="dance", cell=source, target=target)
        stacks = state.stack_at
        free: list[Hex] = []
        if state.reserves[state.mover] >= 1:  # [9.9]
            free = [c for c, _ in state.tiles if c not in stacks]
        freeable: list[Hex] = []
        if state.stock >= 1:
            tiles = state.tile_at  # prisoner stacks are the stacks off the field
            freeable = [c for c, _ in state.stacks if c not in tiles and _touching(tiles, c) >= 2]
        if not free and not freeable:
            rng.randrange(1)  # as rng.choice([PASS]) draws
            return PASS
        k = rng.randrange(len(free) + len(freeable))  # placements first, as legal_moves
        if k < len(free):
            return Move(kind="place", cell=free[k])
        return Move(kind="liberate", cell=freeable[k - len(free)])

    def outcome(self, state: State) -> Outcome | None:
        """None while the game goes on; else the scores of §8 and the winner (None: a draw [9.4])."""
        if not state.ended:
            return None
        sizes = [islands(state, RED), islands(state, BLACK)]
        red, black = (sum(s) + (s[0] if s else 0) for s in sizes)  # [9.7]
        winner = None if red == black else (RED if red > black else BLACK)  # [9.4] tie: a draw
        return Outcome(
            winner=None if winner is None else seat_of(winner, RED_SEAT),
            reason=state.ended,
            scores=(red, black),  # by seat: Red is seat 1
            colour=None if winner is None else COLOURS[winner],
            details={
                "tiles": [sum(s) for s in sizes],
                "largest_island": [s[0] if s else 0 for s in sizes],
            },
        )

    def move_tokens(self, state: State, move: Move) -> tuple[str, ...]:
        """Placement and liberation: the cell; dance: source then target; ``pass``."""
        return move.tokens()

    def steps(self, state: State, prefix: Sequence[str]) -> Steps:
        """The default filter, plus a preview once a dancer is chosen: for each target, the hint's
        ``cells`` are the cells its pawns would land on (the last one off the field if it drops).

        ``prompt`` says what the next click is for. ``changes`` is the board as it will be: a
        dancer is lifted from its origin as soon as it is picked (a dance sows the whole stack);
        a complete move shows every stack of the field as the move leaves it (sown pawns, a freed
        prisoner stack gone, the chain of liberations). Two things of a move are not in
        ``changes``, whose vocabulary is stacks of the view's cells: the tile a liberation lays
        (the view gets it with the move), and a prisoner stack that a dance drops off the field,
        on a cell the current view has not got (the target's hint ``cells`` end there).
        """
        answer = super().steps(state, prefix)
        if state.ended:
            return answer
        legal = _legal(state)
        if not answer.prefix:
            return replace(answer, prompt=_start_prompt({m.kind for m in legal}))
        if answer.move is not None:
            move = next(m for m in legal if m.tokens() == answer.prefix)
            changes = _changes(state, _play(state, move))
            return replace(answer, prompt=play_prompt(answer.move), changes=changes)
        hints: dict[str, Any] = {}
        for move in legal:
            if move.kind == "dance" and move.tokens()[0] == answer.prefix[0]:
                assert move.cell is not None and move.target is not None
                landing = _landing(state, move.cell, move.target)
                hints[cell_name(move.target)] = {"cells": [cell_name(c) for c in landing]}
        lifted: dict[str, list[str]] = {answer.prefix[0]: []}
        prompt = "Pick the enemy stack to dance towards"
        return replace(answer, hints=hints, prompt=prompt, changes=lifted)

    def check_invariants(self, state: State) -> None:
        """Pawns are conserved (8 of each colour), the stock never goes negative, tiles on the
        field plus the stock make the variant's total, and no prisoner stands on a tile."""
        for colour in (RED, BLACK):
            on_field = sum(s.count(colour) for _, s in state.stacks)
            if on_field + state.reserves[colour] != PAWNS:
                raise AssertionError(f"{COLOURS[colour]} pawns are not conserved: {state}")
        if state.stock < 0 or len(state.tiles) + state.stock != self.total_tiles:
            raise AssertionError(f"tiles and stock do not add up to {self.total_tiles}: {state}")
        if not all(stack for _, stack in state.stacks):
            raise AssertionError(f"an empty stack is listed: {state}")

    def position_key(self, state: State) -> str:
        """The explorer's key, folded over no symmetry: a liberation chain visits neighbours in
        the direction order E, NE, NW, W, SW, SE (spec section 6), which decides the tiles laid
        when the stock runs out mid-chain, and every rotation and reflection reorders it. (The
        field has no edge, but no translation is folded either: the four first tiles never leave
        it, so a translated position is not reached in practice.) It holds field, stacks,
        prisoners, reserves, stock, mover, passes and the end; not the repetition history, the
        path to the position, which the explorer merges."""
        tiles = ";".join(f"{q},{r}:{c}" for (q, r), c in state.tiles)
        stacks = ";".join(f"{q},{r}:{''.join(map(str, s))}" for (q, r), s in state.stacks)
        head = f"{state.reserves[0]}:{state.reserves[1]}:{state.stock}:{state.mover}"
        return digest(f"{head}:{state.passes}:{state.ended or ''}|{tiles}|{stacks}")

    def key(self, state: State) -> tuple[Any, ...]:
        """The position (display fields and counters excluded), plus whether the game is over."""
        return (*state.position(), state.ended)

    def view(self, state: State) -> View:
        """Tiles, stacks and prisoners as cells (ids ``q,r``), reserves, stock and scores."""
        tiles = state.tile_at
        cells: list[CellView] = []
        cell_order = sorted({*tiles, *state.stack_at}, key=reading_order)
        for c in cell_order:
            entry: CellView = {
                "id": cell_name(c),
                "q": c[0],
                "r": c[1],
                "stack": [COLOURS[p] for p in state.stack_at.get(c, ())],
            }
            if c in tiles:
                entry["tile"] = COLOURS[tiles[c]]
            else:
                entry["mark"] = "prisoner"
            cells.append(entry)
        scores = {str(seat_of(c, RED_SEAT)): score(state, c) for c in (RED, BLACK)}
        counters: list[dict[str, Any]] = [
            {"label": "Stock", "value": state.stock, "seat": None},
            {"label": "Red reserve", "value": state.reserves[RED], "seat": 1},
            {"label": "Black reserve", "value": state.reserves[BLACK], "seat": 2},
            {"label": "Red score", "value": scores["1"], "seat": 1},
            {"label": "Black score", "value": scores["2"], "seat": 2},
        ]
        return make_view(
            game=self.slug,
            kind="field",
            side=None,
            cells=cells,
            rows=[],
            to_move=self.to_move(state),
            colours=seat_colours(RED_SEAT, COLOURS),
            phase="play",
            last_move=state.last,
            counters=counters,
            outcome=self.outcome(state),
            effects=state.last_effects,
        )


# --- scoring -------------------------------------------------------------------------------------


def islands(state: State, colour: Colour) -> list[int]:
    """Sizes of the islands (maximal sets of touching tiles) of ``colour``, largest first."""
    own = {c for c, t in state.tiles if t == colour}
    sizes = []
    while own:
        todo = [own.pop()]
        size = 0
        while todo:
            c = todo.pop()
            size += 1
            for n in neighbours(c):
                if n in own:
                    own.remove(n)
                    todo.append(n)
        sizes.append(size)
    return sorted(sizes, reverse=True)


def score(state: State, colour: Colour) -> int:
    """Tiles of ``colour`` plus the size of its largest island (§8, [9.7])."""
    sizes = islands(state, colour)
    return sum(sizes) + (sizes[0] if sizes else 0)


# --- move generation -----------------------------------------------------------------------------


def _dances(state: State) -> list[tuple[Hex, int, Hex, bool]]:
    """Legal dances of the mover by the rules of §5: (source, direction, target, off-field), by
    source in reading order, then by direction.

    Each of the mover's stacks is paired with each enemy stack on a tile no higher than it [9.1]
    in a straight line within its reach, and only such a pair's line is walked: the enemy is the
    target if every cell before it is an empty tile (so it is the first stack met)."""
    me = state.mover
    tiles = state.tile_at
    stacks = state.stack_at
    mine: list[tuple[Hex, int]] = []
    enemies: list[tuple[Hex, int]] = []
    for cell, stack in state.stacks:
        if cell in tiles:  # prisoners never dance (§5), and a target stands on a tile
            (mine if stack[-1] == me else enemies).append((cell, len(stack)))
    out: list[tuple[Hex, int, Hex, bool]] = []
    if not enemies:
        return out
    for source, n in mine:
        sq, sr = source
        found: list[tuple[int, Hex, bool]] = []
        for target, height in enemies:
            if height > n:  # [9.1] no higher than the dancer
                continue
            dq, dr = target[0] - sq, target[1] - sr
            if dr == 0:
                d, k = (0, dq) if dq > 0 else (3, -dq)
            elif dq == 0:
                d, k = (5, dr) if dr > 0 else (2, -dr)
            elif dq == -dr:
                d, k = (1, dq) if dq > 0 else (4, dr)
            else:
                continue  # not on a line
            if k > n:
                continue  # out of reach
            uq, ur = DIRECTIONS[d]
            q, r = sq, sr
            for _ in range(k - 1):  # every cell before the target: an empty tile
                q += uq
                r += ur
                if (q, r) not in tiles or (q, r) in stacks:
                    break
            else:
                q, r = target
                off = blocked = False
                for _ in range(k, n):  # the cells past the target, up to distance n
                    q += uq
                    r += ur
                    if (q, r) not in tiles:
                        off = True
                        blocked = (q, r) in stacks  # [9.3] prisoners never land on prisoners
                        break
                if not blocked:
                    found.append((d, target, off))
        if found:
            found.sort()
            out.extend((source, d, target, off) for d, target, off in found)
    return out


def _legal(state: State) -> list[Move]:
    """The legal moves of a live position, by the priority of §4."""
    dances = _dances(state)
    if dances:  # dancing is compulsory [9.9]
        if any(off for *_, off in dances):  # [9.2] off-field dances come first
            dances = [dc for dc in dances if dc[3]]
        return [Move(kind="dance", cell=s, target=t) for s, _, t, _ in dances]
    moves: list[Move] = []
    if state.reserves[state.mover] >= 1:  # [9.9] on any tile without pawns, either colour
        stacks = state.stack_at
        moves.extend(Move(kind="place", cell=c) for c, _ in state.tiles if c not in stacks)
    if state.stock >= 1:
        tiles = state.tile_at
        moves.extend(
            Move(kind="liberate", cell=c) for c, _ in state.prisoners() if _touching(tiles, c) >= 2
        )
    return moves or [PASS]


def _landing(state: State, source: Hex, target: Hex) -> list[Hex]:
    """The cells a dance from ``source`` towards ``target`` deals pawns to, in order (§5)."""
    d = direction_between(source, target)
    assert d is not None
    cells: list[Hex] = []
    at = source
    for _ in state.stack_at[source]:
        at = add(at, DIRECTIONS[d])
        cells.append(at)
        if at not in state.tile_at:
            break  # the rest of the hand drops here as one prisoner stack
    return cells


def _unit(source: Hex, target: Hex) -> Hex:
    """The step of the straight line from ``source`` to ``target`` (one of ``DIRECTIONS``)."""
    dq, dr = target[0] - source[0], target[1] - source[1]
    k = max(abs(dq), abs(dr))
    return (dq // k, dr // k)


def _start_prompt(kinds: set[str]) -> str:
    """The prompt of a turn's first click, by the kinds of move it offers (one kind of §4 at a
    time: a dance when any exists, else placements and liberations, else ``pass``)."""
    if "dance" in kinds:
        return "Pick a stack to dance: dancing is compulsory"
    if kinds == {"pass"}:
        return "You have no move: pass"
    if kinds == {"place"}:
        return "Place a pawn on a tile without pawns"
    if kinds == {"liberate"}:
        return "Free a prisoner stack touching two tiles"
    return "Place a pawn on a free tile, or free a prisoner stack"


def _changes(before: State, after: State) -> dict[str, list[str]]:
    """The stacks of ``before``'s view cells (tiles and prisoner cells) that ``after`` changes."""
    cells = {*before.tile_at, *before.stack_at}
    old, new = before.stack_at, after.stack_at
    return {
        cell_name(c): [COLOURS[p] for p in new.get(c, ())]
        for c in sorted(cells, key=reading_order)
        if old.get(c, ()) != new.get(c, ())
    }


def _touching(tiles: dict[Hex, Colour], cell: Hex) -> int:
    """How many tiles touch ``cell``."""
    q, r = cell
    count = 0
    for dq, dr in DIRECTIONS:
        if (q + dq, r + dr) in tiles:
            count += 1
    return count


_NOUN = {"place": "placement", "liberate": "liberation"}


def _why_illegal(state: State, move: Move) -> tuple[str, str]:
    """Why a move is refused, in plain words, and the section of the rules it breaks."""
    legal = _legal(state)
    kinds = {m.kind for m in legal}
    if move.kind not in kinds:
        if move.kind == "pass":
            return "You can pass only when no other move exists", "4"
        if "dance" in kinds:
            return "You must dance: a dance is possible", "4"
        if kinds == {"pass"}:
            return "No move is possible: pass", "4"
        return (
            f"{move.text()} cannot be played: no {_NOUN.get(move.kind, move.kind)} is possible",
            "4",
        )
    if move.kind == "dance":
        if any((s, t) == (move.cell, move.target) for s, _, t, _ in _dances(state)):
            return "A dance that puts pawns off the field comes first", "9.2"
        return f"{move.text()} is not a legal dance here", "5"
    if move.kind == "place":
        return f"No pawn can go on {move.text()}: it needs a tile without pawns", "4"
    return f"{move.text()[1:]} holds no prisoners touching two tiles", "6"


# --- applying a move -----------------------------------------------------------------------------


def _play(state: State, move: Move, shown: bool = True) -> State:
    """The state after the legal ``move``, the end of the game decided; its display fields
    (``last``, ``last_effects``) only if ``shown`` (the fast path leaves them empty)."""
    tiles = state.tile_at
    stacks = dict(state.stack_at)
    reserves = list(state.reserves)
    stock = state.stock
    me = state.mover
    passes = 0
    ended: str | None = None
    irreversible = True
    touched: list[Hex] = []
    cell = move.cell
    if move.kind == "pass" or cell is None:
        passes = state.passes + 1
        irreversible = False
        if passes >= 2:  # [9.5]
            ended = "double-pass"
    elif move.kind == "place":
        stacks[cell] = (me,)
        reserves[me] -= 1
        touched.append(cell)
    elif move.kind == "dance":
        assert move.target is not None
        hand = stacks.pop(cell)
        touched.append(cell)
        irreversible = False
        q, r = cell
        dq, dr = _unit(cell, move.target)
        for i, pawn in enumerate(hand):  # bottom pawn first, one per cell (_landing's cells)
            q += dq
            r += dr
            at = (q, r)
            touched.append(at)
            if at not in tiles:  # off the field: the rest become one prisoner stack
                stacks[at] = hand[i:]
                irreversible = True
                break
            stacks[at] = (*stacks.get(at, ()), pawn)
    else:  # liberation
        new_tiles = dict(tiles)
        stock = _liberate(cell, me, new_tiles, stacks, reserves, stock, touched)
        tiles = new_tiles
        if stock == 0:
            ended = "stock-exhausted"
    field = state.tiles if tiles is state.tile_at else _sorted(tiles)
    sown = _sorted(stacks)
    held = (reserves[0], reserves[1])
    # State.position() of the state being built: one constructor call, no replace (every move's)
    mover = 1 - me  # other(me)
    position = (field, sown, held, stock, mover)
    history = (*(() if irreversible else state.history), position)  # [R.3]
    if ended is None and history.count(position) >= 3:  # [9.6] [R.2]
        ended = "repetition"
    # State(...) with its caches filled, in one update of its __dict__: the frozen dataclass's
    # __init__ sets the eleven fields one object.__setattr__ at a time, which costs the fast path
    # a tenth of its move; tile_at and stack_at as those cached properties would compute them
    # (a field left as it was shares its cache, never written to)
    after = object.__new__(State)
    after.__dict__.update(
        tiles=field,
        stacks=sown,
        reserves=held,
        stock=stock,
        mover=mover,
        passes=passes,
        ply=state.ply + 1,
        ended=ended,
        history=history,
        last=(move.text(), tuple(cell_name(c) for c in touched)) if shown else None,
        last_effects=_effects(state, move, touched) if shown else (),
        tile_at=tiles if field is state.tiles else dict(field),
        stack_at=dict(sown),
    )
    return after


def _effects(state: State, move: Move, touched: list[Hex]) -> tuple[EffectRow, ...]:
    """What ``move`` did on each cell, for the view; ``touched`` as :func:`_play` lists them."""
    effects = Effects()
    cell = move.cell
    if move.kind == "place" and cell is not None:
        effects.add(cell_name(cell), "placed", +1)
    elif move.kind == "dance" and cell is not None and move.target is not None:
        hand = state.stack_at[cell]
        effects.add(cell_name(cell), "origin", -len(hand))
        for i, at in enumerate(touched[1:]):  # the landing cells, bottom pawn first
            if at not in state.tile_at:  # off the field: the rest became one prisoner stack
                effects.add(cell_name(at), "prisoner", len(hand) - i)
                break
            effects.add(cell_name(at), "sown", +1)
        effects.add(cell_name(move.target), "destination")  # the stack the dance went for
    elif move.kind == "liberate":
        for freed in touched:  # each stack of the chain back to the reserves, a tile laid
            effects.add(cell_name(freed), "freed", -len(state.stack_at[freed]))
    return effects.rows()


def _liberate(
    cell: Hex,
    me: Colour,
    tiles: dict[Hex, Colour],
    stacks: dict[Hex, Stack],
    reserves: list[int],
    stock: int,
    touched: list[Hex],
) -> int:
    """Free the prisoner stack on ``cell`` and, depth first, its neighbours (§6); the stock left."""
    for pawn in stacks.pop(cell):
        reserves[pawn] += 1  # each pawn back to its owner
    tiles[cell] = me  # the liberator's colour, whoever's pawns were freed
    stock -= 1
    touched.append(cell)
    for n in neighbours(cell):  # [R.1] direction order, each neighbour judged when reached
        if stock < 1:
            break
        if n in stacks and n not in tiles and _touching(tiles, n) >= 2:
            stock = _liberate(n, me, tiles, stacks, reserves, stock, touched)
    return stock


def _sorted(cells: dict[Hex, Any]) -> tuple[tuple[Hex, Any], ...]:
    return tuple(sorted(cells.items(), key=_item_order))


def _item_order(item: tuple[Hex, Any]) -> tuple[int, int]:
    """:func:`reading_order` of a (cell, value) pair's cell."""
    cell = item[0]
    return (cell[1], cell[0])


def _with_history(state: State, history: tuple[tuple[Any, ...], ...]) -> State:
    """``state`` with ``history`` plus its own position appended."""
    return replace(state, history=(*history, state.position()))


# --- notation ------------------------------------------------------------------------------------


def _parse(text: str) -> Move:
    """The move written ``text`` (§10), not yet checked for legality."""
    if not isinstance(text, str):
        raise InvalidMoveError("A move must be text, like 1,-1>0,-1")
    if text.strip().lower() == "pass":
        return PASS
    if m := _PLACE.fullmatch(text):
        return Move(kind="place", cell=(int(m[1]), int(m[2])))
    if m := _LIBERATE.fullmatch(text):
        return Move(kind="liberate", cell=(int(m[1]), int(m[2])))
    if m := _DANCE.fullmatch(text):
        source, target = (int(m[1]), int(m[2])), (int(m[3]), int(m[4]))
        if direction_between(source, target) is None:
            raise InvalidMoveError(
                f"A dance goes in a straight line: {m[1]},{m[2]} to {m[3]},{m[4]} is not one",
                rule="5",
            )
        return Move(kind="dance", cell=source, target=target)
    t = text.strip()
    raise InvalidMoveError(
        f"{typed(t)} is not a move: type one like 0,0 or 1,-1>0,-1"
        if t
        else "Type a move like 1,-1>0,-1"
    )


__all__ = ["BLACK", "PASS", "RED", "Move", "Rules", "State", "islands", "make_state", "score"]
