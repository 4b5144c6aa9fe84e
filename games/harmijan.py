"""Harmijan: grow creatures of stones and imitate your own shapes (``shared/rules/harmijan.md``).

Two players, Black and White, on the cells of a hex-hex board of side 5, 6 (default) or 7. A
*creature* is a connected group of stones of one colour; its *shape* is its free polyhex (all 12
symmetries and translations, spec §3).

* Pie (§5): seat 1 places a black domino and a white domino (``f5,f6/c3,c4``), seat 2 answers
  ``black`` or ``white``, and Black moves first.
* Turn (§4): move one stone of a creature of two or more stones along a straight line of empty
  cells, each entered cell touching exactly one friendly creature counted without the moving stone;
  the slide may end by biting (removing) an enemy stone. Then place a new stone on a straight line
  from the moved stone's cell, through empty cells, not touching the moved stone's creature and
  not merging two friendly creatures. Both parts are mandatory; ``pass`` only when no turn exists.
* End (§6): when neither colour has a turn, or (engine safeguard) when a position occurs for the
  third time. Each player groups their creatures by shape; shapes with k >= 2 copies of size s are
  worth (k+1)*s; the lists, largest shape first, are compared value by value; a draw is possible.

Notation (§9): setup ``f5,f6/c3,c4``, ``black`` / ``white``, turn ``g3-g4@j4``, bite ``g3xg6@g1``,
``pass``. Clicks (``steps``): the stone to move, its destination, the cell of the new stone.

Readings chosen where the spec is silent (the numbered decisions of §7 are marked ``[H<n>]`` in
the code, n being the row of the ambiguity table):

* A player with no turn must still send ``pass`` (§6 allows it to be automatic): the state records
  that only ``pass`` is legal, so the browser offers it alone, and records show every pass.
* Decision 17's count only looks back to the last turn that changed the number of stones: a plain
  turn adds a stone and nothing removes one without adding one, so no earlier position can recur.
  The count starts with the position after the colour choice (Black's first turn).
* A position that ends the game (no turn for either colour, or its third occurrence) is not played
  on: ``to_move`` is None and no pass is recorded (decision 10).
* ``Outcome.scores`` are the class values of §6 by seat, largest shape first, unpadded; tuples of
  positive ints compare exactly like the zero-padded lists of the spec. Classes of one size and one
  value (different shapes) are ordered by shape only for display; the order cannot change a result.
* Move text is read case-insensitively, with spaces allowed around ``,`` ``/`` ``-`` ``x`` ``@``.
  A turn written with the wrong separator (``-`` onto an enemy, ``x`` onto an empty cell) is an
  IllegalMoveError: it is well formed, only wrong for this position.
* Clicks: setup = the two black cells, then the two white cells, each pair in either order;
  turn = stone, destination, new stone; ``black``/``white``; ``pass``. ``hints`` preview each click
  in the browser's vocabulary: a stone's destinations, the slide's path and whether it bites, and
  the stones as the click would leave them.
* The view marks the cells of scoring creatures ``"scored"`` once the game is over, and the
  outcome's ``details`` list each colour's repeated shapes (canonical cells, count, value and the
  creatures' cells); ``classes_of`` gives the standing during play.
* ``legal_moves`` in the setup lists all the setups (55,206 on side 6) lazily; ``parse_move``,
  ``apply``, ``steps`` and ``random_move`` never list them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any, ClassVar, NamedTuple

from .base import Option, Outcome, Steps, parse_word
from .base import Rules as BaseRules
from .bitboard import Bitboard, bitboard, bits, mask
from .errors import IllegalMoveError, InvalidMoveError
from .hexgrid import Hex, HexBoard, canonical_shape, hex_board, normalise
from .pie import (
    CHOICES,
    CHOOSE,
    OVER,
    PLAY,
    SETUP,
    black_seat_after,
    choice_steps,
    parse_choice,
    to_move,
    view_colours,
)
from .seats import BLACK, COLOURS, NO_SEAT, WHITE, Colour, other, seat_of
from .view import CellView, View, make_view, row_labels

COLOUR_IDS = (BLACK, WHITE)  # colour indices (games.seats); COLOURS names them
PASS = "pass"

_TURN = re.compile(r"([a-z][0-9]+)\s*([-x])\s*([a-z][0-9]+)\s*@\s*([a-z][0-9]+)")
_SETUP = re.compile(r"([a-z][0-9]+)\s*,\s*([a-z][0-9]+)\s*/\s*([a-z][0-9]+)\s*,\s*([a-z][0-9]+)")


# --- state and moves ------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    """A Harmijan position.

    ``stones`` holds the black and the white stones as bitsets over the board's cell indices
    (reading order). ``history`` lists the positions ``(black, white, colour to move)`` since the
    last change in the number of stones, the current one last (decision 17). ``must_pass`` says
    that the colour to move has no turn. ``last_move``/``last_cells`` are for display only.
    """

    stones: tuple[int, int] = (0, 0)
    phase: str = SETUP  # games.pie: setup | choose | play | over
    black_seat: int = NO_SEAT  # until seat 2 has chosen
    colour: Colour = BLACK  # the colour to move in phase play
    must_pass: bool = False
    reason: str | None = None  # why the game ended
    history: tuple[tuple[int, int, int], ...] = ()
    ply: int = 0
    last_move: str | None = None
    last_cells: tuple[int, ...] = ()


class Setup(NamedTuple):
    """The pie move: the black pair and the white pair, each in reading order."""

    black: tuple[int, int]
    white: tuple[int, int]


class Turn(NamedTuple):
    """A turn: the stone at ``source`` slides to ``target`` (biting if an enemy is there), then a
    new stone goes on ``place``. Cells are board indices."""

    source: int
    target: int
    place: int


Move = Setup | Turn | str  # str: "black", "white" or "pass"


# --- rules ----------------------------------------------------------------------------------------


class Rules(BaseRules[State, Move]):
    """Harmijan on a board of side ``size``."""

    slug: ClassVar[str] = "harmijan"
    title: ClassVar[str] = "Harmijan"
    summary: ClassVar[str] = (
        "Move a stone, then place one in line with it; grow creatures of matching shapes."
    )
    notation: ClassVar[tuple[str, ...]] = ("i8,j7/e5,e6", "black", "i8-i7@f7", "f7xh5@j3", "pass")
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("size", 6, (5, 6, 7), "board side: cells along each edge"),
    )

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        size = self._options["size"]
        assert isinstance(size, int)
        self.board: HexBoard = hex_board(size)
        self._geo = bitboard(size)
        # the adjacent pairs of cells, each in reading order (setups, [H15])
        self._pairs = [(i, j) for i, row in enumerate(self.board.adjacent) for j in row if i < j]
        # Caches of positions and shapes belong to this Rules object, not to the module: a bot
        # that plays millions of positions on its own Rules never evicts a human game's entries.
        # At most 64 turn tables (the positions being clicked through; one is a few kB) ...
        self._turn_table: Callable[[int, int], dict[int, dict[int, int]]] = lru_cache(maxsize=64)(
            partial(_turn_table, self._geo)
        )
        # ... and at most 4096 shapes (normalised cells -> canonical shape; a game meets hundreds).
        self._shape_of: Callable[[tuple[Hex, ...]], tuple[Hex, ...]] = lru_cache(maxsize=4096)(
            canonical_shape
        )

    # --- the API ---------------------------------------------------------------------------------

    def initial_state(self) -> State:
        """The empty board, seat 1 to make the setup."""
        return State()

    def to_move(self, state: State) -> int | None:
        """Seat 1 in setup, seat 2 to choose, then the seat of the colour to move."""
        return to_move(state.phase, state.colour, state.black_seat)

    def legal_moves(self, state: State) -> Iterator[Move]:
        """Setups (black pair, then white pair, in reading order), the two colours, the turns
        sorted by (source, target, place) in reading order, or ``pass`` alone."""
        if state.phase == SETUP:
            return self._setups()
        if state.phase == CHOOSE:
            return iter(CHOICES)
        if state.phase != PLAY:
            return iter(())
        if state.must_pass:
            return iter((PASS,))
        own, enemy = _own_enemy(state)
        return iter(_turns(self._geo, own, enemy))

    def format_move(self, state: State, move: Move) -> str:
        """Canonical text: ``f5,f6/c3,c4``, ``black``, ``g3-g4@j4``, ``g3xg6@g1``, ``pass``."""
        names = self.board.names
        if isinstance(move, Setup):
            b, w = sorted(move.black), sorted(move.white)
            return f"{names[b[0]]},{names[b[1]]}/{names[w[0]]},{names[w[1]]}"
        if isinstance(move, Turn):
            enemy = state.stones[other(state.colour)]
            sep = "x" if enemy >> move.target & 1 else "-"
            return f"{names[move.source]}{sep}{names[move.target]}@{names[move.place]}"
        return move

    def parse_move(self, state: State, text: str) -> Move:
        """The move written ``text`` (either order within a setup pair)."""
        move = self._read(state, text)
        self.check_over(state)
        self._check(state, move, text)
        return move

    def apply(self, state: State, move: Move) -> State:
        """The position after ``move``; IllegalMoveError if the rules forbid it."""
        self.check_over(state)
        self._check(state, move, None)
        text = self.format_move(state, move)
        if isinstance(move, Setup):
            black = mask(move.black)
            white = mask(move.white)
            return State(
                stones=(black, white),
                phase=CHOOSE,
                ply=state.ply + 1,
                last_move=text,
                last_cells=(*sorted(move.black), *sorted(move.white)),
            )
        choice = parse_choice(move) if isinstance(move, str) else None
        if choice is not None:
            # [H16] Black moves first, whoever chose
            black_seat = black_seat_after(choice)
            return self._next_turn(state, state.stones, BLACK, black_seat, text, (), True)
        colour = state.colour
        if isinstance(move, Turn):
            s, x, y = move
            stones = list(state.stones)
            grew = not stones[other(colour)] >> x & 1
            stones[other(colour)] &= ~(1 << x)  # [H5] a bite removes the enemy stone
            stones[colour] = (stones[colour] & ~(1 << s)) | (1 << x) | (1 << y)
            return self._next_turn(
                state, (stones[0], stones[1]), other(colour), state.black_seat, text, move, grew
            )
        return self._next_turn(
            state, state.stones, other(colour), state.black_seat, text, (), False
        )

    def outcome(self, state: State) -> Outcome | None:
        """The scored result once the game is over (§6)."""
        if state.phase != OVER:
            return None
        assert state.reason is not None
        classes = [self.classes(state.stones[c]) for c in COLOUR_IDS]
        values = [tuple(k.value for k in cls) for cls in classes]
        winner_colour: int | None = None
        # [H11][H12] largest repeated shape first; compared one class at a time
        if values[BLACK] != values[WHITE]:
            winner_colour = BLACK if values[BLACK] > values[WHITE] else WHITE  # [H14] else a draw
        seat_values = [values[BLACK], values[WHITE]]
        if state.black_seat == 2:
            seat_values.reverse()
        details = {COLOURS[c]: [k.to_json(self.board) for k in classes[c]] for c in COLOUR_IDS}
        return Outcome(
            winner=None if winner_colour is None else seat_of(winner_colour, state.black_seat),
            reason=state.reason,
            scores=(seat_values[0], seat_values[1]),
            colour=None if winner_colour is None else COLOURS[winner_colour],
            details=details,
        )

    def view(self, state: State) -> View:
        """Cells with their stones; at the end, the cells of scoring creatures are marked."""
        names = self.board.names
        outcome = self.outcome(state)
        scored = 0
        if outcome is not None:
            for c in COLOUR_IDS:
                for k in self.classes(state.stones[c]):
                    for creature in k.creatures:
                        scored |= creature
        cells: list[CellView] = []
        for i, (q, r) in enumerate(self.board.cells):
            cell: CellView = {"id": names[i], "q": q, "r": r, "stack": []}
            for c in COLOUR_IDS:
                if state.stones[c] >> i & 1:
                    cell["stack"] = [COLOURS[c]]
            if scored >> i & 1:
                cell["mark"] = "scored"
            cells.append(cell)
        counters = [
            {
                "label": f"{COLOURS[c].capitalize()} stones",
                "value": state.stones[c].bit_count(),
                "seat": seat_of(c, state.black_seat),
            }
            for c in COLOUR_IDS
        ]
        last = None
        if state.last_move is not None:
            last = (state.last_move, [names[i] for i in state.last_cells])
        return make_view(
            game=self.slug,
            kind="hex",
            side=self.board.n,
            cells=cells,
            rows=row_labels(self.board),
            to_move=self.to_move(state),
            colours=view_colours(state.black_seat),
            phase=state.phase,
            last_move=last,
            counters=counters,
            outcome=outcome,
        )

    def move_tokens(self, state: State, move: Move) -> tuple[str, ...]:
        """Setup: the black pair then the white pair; turn: stone, destination, new stone."""
        names = self.board.names
        if isinstance(move, Setup):
            return tuple(names[i] for i in (*sorted(move.black), *sorted(move.white)))
        if isinstance(move, Turn):
            return tuple(names[i] for i in move)
        return (move,)

    def steps(self, state: State, prefix: Sequence[str]) -> Steps:
        """Legal next clicks; a setup pair may be clicked in either order."""
        prefix = tuple(prefix)
        if state.phase == SETUP:
            return self._setup_steps(prefix)
        if state.phase == CHOOSE:
            return choice_steps(prefix)
        if state.phase == PLAY and not state.must_pass:
            return self._turn_steps(state, prefix)
        words: tuple[str, ...] = (PASS,) if state.phase == PLAY else ()
        if not prefix:
            return Steps(prefix, words, None)
        if len(prefix) == 1 and prefix[0] in words:
            return Steps(prefix, (), prefix[0])
        raise IllegalMoveError(_nowhere(prefix))

    def random_move(self, state: State, rng: random.Random) -> Move:
        """A uniformly random legal move; a setup is drawn without listing all of them."""
        if state.phase != SETUP:
            return super().random_move(state, rng)
        while True:
            black, white = rng.choice(self._pairs), rng.choice(self._pairs)
            if len({*black, *white}) == 4:
                return Setup(black=black, white=white)

    def classes(self, stones: int) -> list[ShapeClass]:
        """The repeated shapes among the creatures of ``stones`` (one colour's), largest first."""
        return _classes(self.board, self._geo.components(stones), self._shape_of)

    def key(self, state: State) -> tuple[Any, ...]:
        """The position: stones, phase, seats and the colour to move (no history or display)."""
        return (state.stones, state.phase, state.black_seat, state.colour, state.reason)

    # --- helpers ---------------------------------------------------------------------------------

    def _setups(self) -> Iterator[Move]:
        for b in self._pairs:
            for w in self._pairs:
                if len({*b, *w}) == 4:
                    yield Setup(black=b, white=w)

    def _read(self, state: State, text: str) -> Move:
        """Parse ``text`` without looking at legality (InvalidMoveError if it is no move)."""
        t = text.strip().lower()
        word = parse_word(t, (*CHOICES, PASS))
        if word is not None:
            return word
        parse = self.board.parse_index
        m = _SETUP.fullmatch(t)
        if m:
            b1, b2, w1, w2 = (parse(g) for g in m.groups())
            return Setup(black=(min(b1, b2), max(b1, b2)), white=(min(w1, w2), max(w1, w2)))
        m = _TURN.fullmatch(t)
        if m:
            s, x, y = parse(m[1]), parse(m[3]), parse(m[4])
            if state.phase == PLAY:
                # §9: "-" onto an enemy stone, or "x" onto an empty cell, is refused
                bite = bool(state.stones[other(state.colour)] >> x & 1)
                if bite != (m[2] == "x"):
                    what = "an enemy stone: write x" if bite else "no enemy stone: write -"
                    raise IllegalMoveError(f"{text!r}: {m[3]} holds {what}")
            return Turn(source=s, target=x, place=y)
        raise InvalidMoveError(
            f"{text!r} is not a Harmijan move (forms: f5,f6/c3,c4, black, white, "
            "g3-g4@j4, g3xg6@g1, pass)"
        )

    def _check(self, state: State, move: Move, text: str | None) -> None:
        """IllegalMoveError unless ``move`` is legal in ``state``."""
        what = repr(text) if text is not None else repr(move)
        phase = state.phase
        if isinstance(move, Setup):
            if phase != SETUP:
                raise IllegalMoveError(f"{what}: the setup is over")
            cells = {*move.black, *move.white}
            if len(cells) != 4 or not all(0 <= i < len(self.board) for i in cells):
                raise IllegalMoveError(f"{what}: the setup needs four distinct cells")  # [H15]
            for a, b in (move.black, move.white):
                if b not in self.board.adjacent[a]:
                    raise IllegalMoveError(f"{what}: the stones of a pair must be adjacent")
            return
        if phase == SETUP:
            raise IllegalMoveError(f"{what}: seat 1 must first place the two pairs")
        if move in CHOICES:
            if phase != CHOOSE:
                raise IllegalMoveError(f"{what}: the colours are already chosen")
            return
        if phase == CHOOSE:
            raise IllegalMoveError(f"{what}: seat 2 must first choose black or white")
        if move == PASS:
            if not state.must_pass:
                raise IllegalMoveError(f"{what}: passing is allowed only without a turn")  # [H9]
            return
        if not isinstance(move, Turn):
            raise IllegalMoveError(f"{what} is not a move")
        if state.must_pass:
            raise IllegalMoveError(f"{what}: {COLOURS[state.colour]} has no turn and must pass")
        reason = _turn_fault(self._geo, *_own_enemy(state), *move)
        if reason:
            raise IllegalMoveError(f"{what}: {reason}")

    def _next_turn(
        self,
        state: State,
        stones: tuple[int, int],
        colour: int,
        black_seat: int,
        text: str,
        cells: Sequence[int],
        grew: bool,
    ) -> State:
        """The state with ``colour`` to move on ``stones``, ended if the game is over (§6)."""
        position = (stones[0], stones[1], colour)
        history = (position,) if grew else (*state.history, position)
        common: dict[str, Any] = {
            "stones": stones,
            "black_seat": black_seat,
            "colour": colour,
            "history": history,
            "ply": state.ply + 1,
            "last_move": text,
            "last_cells": tuple(cells),
        }
        # [H17] the third occurrence ends the game; checked before the no-turn test
        if history.count(position) >= 3:
            return State(phase=OVER, reason="repetition", **common)
        own, enemy = stones[colour], stones[other(colour)]
        # [H10] a static test at the start of every turn
        if _has_turn(self._geo, own, enemy):
            return State(phase=PLAY, **common)
        if _has_turn(self._geo, enemy, own):
            return State(phase=PLAY, must_pass=True, **common)
        return State(phase=OVER, reason="no-moves", **common)

    def _setup_steps(self, prefix: tuple[str, ...]) -> Steps:
        board = self.board
        if len(prefix) > 4:
            raise IllegalMoveError(_nowhere(prefix))
        cells: list[int] = []
        for k, token in enumerate(prefix):
            i = board.by_name.get(token)
            options = self._setup_options(cells)
            if i is None or i not in options:
                raise IllegalMoveError(_nowhere(prefix[: k + 1]))
            cells.append(i)
        if len(cells) == 4:
            move = Setup(
                black=(min(cells[0], cells[1]), max(cells[0], cells[1])),
                white=(min(cells[2], cells[3]), max(cells[2], cells[3])),
            )
            return Steps(prefix, (), self.format_move(State(), move))
        following = tuple(board.names[i] for i in self._setup_options(cells))
        # a preview of the stone the next click places (board.js draws ``changes`` as ghosts)
        colour = COLOURS[len(cells) // 2]
        return Steps(prefix, following, None, {c: {"changes": {c: [colour]}} for c in following})

    def _setup_options(self, cells: list[int]) -> list[int]:
        """The cells that may be clicked after ``cells`` in the setup (black pair, white pair)."""
        adjacent = self.board.adjacent
        taken = set(cells)
        if len(cells) in (1, 3):
            return sorted(j for j in adjacent[cells[-1]] if j not in taken)
        # a first stone of a pair needs a free neighbour for its partner
        return [
            i
            for i in range(len(self.board))
            if i not in taken and any(j not in taken for j in adjacent[i])
        ]

    def _turn_steps(self, state: State, prefix: tuple[str, ...]) -> Steps:
        names, by_name = self.board.names, self.board.by_name
        table = self._turn_table(*_own_enemy(state))
        cells: list[int] = []
        for k, token in enumerate(prefix):
            i = by_name.get(token, -1)
            if k == 0:
                ok = i in table
            elif k == 1:
                ok = i in table[cells[0]]
            else:
                ok = k == 2 and i >= 0 and bool(table[cells[0]][cells[1]] >> i & 1)
            if not ok:
                raise IllegalMoveError(_nowhere(prefix[: k + 1]))
            cells.append(i)
        if len(cells) == 3:
            return Steps(
                prefix,
                (),
                self.format_move(state, Turn(source=cells[0], target=cells[1], place=cells[2])),
            )
        # previews in board.js's vocabulary: ``cells`` to mark, a ``path``, ghost ``changes``
        colour = [COLOURS[state.colour]]
        hints: dict[str, Any]
        if not cells:
            hints = {
                names[s]: {"cells": [names[x] for x in sorted(table[s])]} for s in sorted(table)
            }
        elif len(cells) == 1:
            s = cells[0]
            enemy = state.stones[other(state.colour)]
            hints = {
                names[x]: {
                    "path": [names[s], names[x]],
                    "changes": {names[s]: [], names[x]: colour},
                    "bite": bool(enemy >> x & 1),
                }
                for x in sorted(table[s])
            }
        else:
            places = bits(table[cells[0]][cells[1]])
            hints = {names[y]: {"changes": {names[y]: colour}} for y in places}
        return Steps(prefix, tuple(hints), None, hints)


def _nowhere(prefix: Sequence[str]) -> str:
    return f"no legal move starts with {' '.join(prefix)!r}"


# --- geometry -------------------------------------------------------------------------------------


# The bitsets of one board size are games.bitboard's Bitboard (neighbour masks, dilation, flood,
# components); its ``board`` gives hexgrid's integer tables (rays, steps by direction).


# arcs[pattern]: how many separate runs of friendly neighbours a 6-bit ring pattern has; a stone
# whose friendly neighbours form one run leaves its creature connected when it moves away
_ARCS = tuple(
    max(1, sum(1 for d in range(6) if p >> d & 1 and not p >> (d - 1) % 6 & 1)) for p in range(64)
)


# --- turn generation (§4) -------------------------------------------------------------------------


def _own_enemy(state: State) -> tuple[int, int]:
    return state.stones[state.colour], state.stones[other(state.colour)]


class _Slides:
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

    def movable(self) -> int:
        """The stones of creatures of two or more stones ([H4]: size before the move)."""
        out = 0
        for creature in self.creatures:
            if creature & (creature - 1):
                out |= creature
        return out

    def without(self, s: int) -> _Without:
        """The board seen by the stone at ``s`` while it moves ([H1]: counted without it)."""
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
        self, slides: _Slides, s: int, n: int, pieces: list[int], one: int, two: int
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


def _turns(geo: Bitboard, own: int, enemy: int) -> list[Turn]:
    """Every turn, sorted by (source, target, place) in reading order."""
    slides = _Slides(geo, own, enemy)
    out = []
    for s in bits(slides.movable()):
        without = slides.without(s)
        for x in bits(without.targets()):
            for y in bits(without.places(x)):
                # by position, the one exception: keywords cost a fifth of legal_moves here
                out.append(Turn(s, x, y))  # source, target, place
    return out


def _has_turn(geo: Bitboard, own: int, enemy: int) -> bool:
    """Whether any turn exists (stops at the first one)."""
    slides = _Slides(geo, own, enemy)
    for s in bits(slides.movable()):
        without = slides.without(s)
        for x in bits(without.targets()):
            if without.places(x):
                return True
    return False


def _turn_table(geo: Bitboard, own: int, enemy: int) -> dict[int, dict[int, int]]:
    """source -> target -> bitset of places, for step-wise entry (``Rules`` caches it across
    clicks)."""
    slides = _Slides(geo, own, enemy)
    table: dict[int, dict[int, int]] = {}
    for s in bits(slides.movable()):
        without = slides.without(s)
        targets = {x: p for x in bits(without.targets()) if (p := without.places(x))}
        if targets:
            table[s] = targets
    return table


def _turn_fault(geo: Bitboard, own: int, enemy: int, s: int, x: int, y: int) -> str | None:
    """Why the turn (s, x, y) is illegal, or None if it is legal."""
    names = geo.board.names
    cells = len(names)
    if not all(0 <= i < cells for i in (s, x, y)):
        return "a cell is off the board"
    if not own >> s & 1:
        return f"{names[s]} holds no stone of the player to move"
    slides = _Slides(geo, own, enemy)
    if not slides.movable() >> s & 1:
        return f"the stone on {names[s]} is a single-stone creature and cannot move"  # [H4]
    without = slides.without(s)
    if not without.targets() >> x & 1:
        return f"the stone on {names[s]} cannot slide to {names[x]}"
    if not without.places(x) >> y & 1:
        return f"after {names[s]} to {names[x]} no stone may be placed on {names[y]}"
    return None


# --- shapes and scoring (§3, §6) ------------------------------------------------------------------


def canon(cells: Iterable[Hex]) -> tuple[Hex, ...]:
    """The canonical free-polyhex shape of ``cells`` (§3): ``hexgrid.canonical_shape``, the least of
    its 12 images, each translated to its minimum q and r and sorted. (``Rules`` caches it.)

    >>> canon([(0, 0), (1, 0), (1, 1), (2, 1)]) == canon([(0, 0), (0, 1), (1, 1), (1, 2)])
    True
    """
    return canonical_shape(normalise(cells))


@dataclass(frozen=True)
class ShapeClass:
    """``count`` >= 2 creatures of one shape of ``size`` stones: worth (count + 1) * size."""

    shape: tuple[Hex, ...]
    size: int
    count: int
    creatures: tuple[int, ...]  # bitsets

    @property
    def value(self) -> int:
        """[H11] k*s stones plus the size s."""
        return self.count * self.size + self.size

    def to_json(self, board: HexBoard) -> dict[str, Any]:
        """The class for display: its shape, counts, value and the creatures' cells."""
        return {
            "size": self.size,
            "count": self.count,
            "value": self.value,
            "shape": [list(p) for p in self.shape],
            "creatures": [[board.names[i] for i in bits(c)] for c in self.creatures],
        }


def _classes(
    board: HexBoard, creatures: list[int], shape_of: Callable[[tuple[Hex, ...]], tuple[Hex, ...]]
) -> list[ShapeClass]:
    """A colour's repeated shapes, largest first, then by value (§6); ``shape_of`` gives the
    canonical shape of normalised cells (a cached ``hexgrid.canonical_shape``)."""
    groups: dict[tuple[Hex, ...], list[int]] = {}
    cells = board.cells
    for creature in creatures:
        # [H13] all 12 symmetries
        shape = shape_of(normalise(cells[i] for i in bits(creature)))
        groups.setdefault(shape, []).append(creature)
    classes = [
        ShapeClass(shape=shape, size=len(shape), count=len(members), creatures=tuple(members))
        for shape, members in groups.items()
        if len(members) >= 2  # [H11] a shape must be repeated to score
    ]
    classes.sort(key=lambda k: (-k.size, -k.value, k.shape))
    return classes


def classes_of(rules: Rules, state: State, colour: str) -> list[ShapeClass]:
    """The repeated shapes of ``colour`` in ``state`` (for tests and display)."""
    return rules.classes(state.stones[COLOURS.index(colour)])
