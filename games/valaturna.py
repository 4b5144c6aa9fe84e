"""Valaturna: stacks on the points of a hexagon, captured by symmetric flanks.

Binding rules: ``shared/rules/valaturna.md`` (the designer's text is ``source/valaturna.txt``);
decision numbers below are the rows of its §7 table, marked ``[§7.n]`` in the code.

Summary. The board is the 3N(N-1)+1 points of a hexagonal lattice of side N (7 by default, 5 for the
short game; any N >= 3) [§7.1]. A stack's colour is its top piece [§7.2].

* Two-stack pie [§7.14]: Seat 1 puts one black and one white stack, height 1, on two distinct
  points (``e3/e7``: black point / white point); Seat 2 answers ``black`` or ``white`` and Seat 1
  takes the other colour; then Black moves [§7.15].
* A turn is ``pass`` (always legal [§7.11]) or a placement of a height-1 stack of one's colour on an
  empty point whose first stack along some ray is friendly (zero or more empty points between)
  [§7.3]; with no friendly stack only ``pass`` remains [§7.4].
* The placed stack P captures, along each of the six rays from P, the enemy stacks of a flank
  ``P .^n (E+ .^n)+ F``: n >= 0 leading empty points, one or more maximal enemy chains each
  followed by exactly n empties, then a friendly stack [§7.5, §7.6]. Only flanks of the placed
  stack count [§7.7]; all are captured, simultaneously [§7.8]; a capture puts one piece of the
  mover's colour on top of the stack [§7.9]; captured stacks never flank in the same move [§7.10].
* Two consecutive passes end the game [§7.12]. The heights of each colour's stacks, sorted
  descending and padded with 0, are compared lexicographically; equal lists go to the player who
  did not make the first of the two final passes (the last placer; White if nobody placed)
  [§7.13]. There are no draws.

Notation (spec §9): setup ``e3/e7``; ``black`` / ``white``; placement ``e5``; ``pass``. The parser
also accepts ``e5x(d4,e4)`` when the annotation lists exactly the captured stacks, in any order,
without repeats; the printer never writes it.

Readings chosen where the spec is silent:

* The parser ignores letter case and surrounding blanks (``E5``, `` e3 / e7 ``, ``x( d4 , e4 )``);
  the canonical text is lower case without blanks.
* An annotation that names a point twice or names nothing (``e5x()``) is not a move at all
  (InvalidMoveError); a well-formed annotation that is not the exact capture set is a rule
  violation (IllegalMoveError), as is any text of the wrong phase (``e5`` before the pie).
* The ``size`` option (points per side) accepts 3..13: beyond 13 the row letters run past ``z``.
  It was called ``side`` until November 2026; ``side`` is still read (``RENAMED_OPTIONS``), so
  old records and stored games replay.
* Step-wise entry: ``prompt`` names what each click is for, and ``changes`` shows the board as it
  will be: in the setup each clicked point holds its stack at once (the first black, the second
  white); a placement, a single click, shows the new stack and each captured stack with the
  mover's piece on top; ``pass`` changes nothing.
* The score of a seat is the tuple of its colour's stack heights, sorted descending (the very
  list the comparison reads); ``details["decided_by"]`` says whether the heights or the
  last-placer tie-break decided.
"""

from __future__ import annotations

import random
import re
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, ClassVar

from .base import Option, Outcome, Steps, play_prompt
from .base import Rules as BaseRules
from .bitboard import Lines, lines, nth
from .errors import IllegalMoveError, InvalidMoveError, typed
from .hexgrid import HexBoard, hex_board
from .pie import (
    CHOOSE,
    OVER,
    PLAY,
    SETUP,
    black_seat_after,
    choice_prompt,
    choice_steps,
    format_choice,
    parse_choice,
    to_move,
    view_colours,
)
from .seats import BLACK, COLOURS, LETTERS, NO_SEAT, WHITE, Colour, other, seat_of
from .symmetry import ALL, Transform, fold_cells, move_image
from .view import CellView, Effects, Role, View, make_view, row_labels

# Colours are the indices of games.seats (BLACK, WHITE = 0, 1); a stack is written as text, one
# letter per piece, colour c being LETTERS[c] ("wb": black on white).
COLOURS_BY_NAME = {name: LETTERS[c] for c, name in enumerate(COLOURS)}  # name -> stack letter
_NAME_OF_LETTER = {LETTERS[c]: name for c, name in enumerate(COLOURS)}

PASS, PLACE = "pass", "place"  # with SETUP and CHOOSE (games.pie's phases), the kinds of Move

_SETUP_TEXT = re.compile(r"([a-z0-9]+)\s*/\s*([a-z0-9]+)")
_PLACE_TEXT = re.compile(r"([a-z0-9]+)(?:x\((.*)\))?")


@dataclass(frozen=True, slots=True)
class State:
    """A position. ``stacks[i]`` is point i's pieces bottom to top, one letter each
    (``games.seats.LETTERS``: ``"wb"`` is black on white).

    ``black_seat`` is the seat holding Black once chosen (0 before); ``colour`` the colour to move
    in play (Black before); ``passes`` the consecutive passes and ``first_passer`` the colour that
    made the first of them. ``ply``, ``last_text`` and ``last_cells`` are for display: ``key``
    leaves them out.

    ``tops`` is derived from ``stacks`` and kept by each move rather than recomputed: by colour,
    the set of the points whose top piece is that colour, as bits of ``games.bitboard.lines``. A
    state built directly may leave it None (it is then computed when needed); it takes no part
    in equality or ``repr``.
    """

    stacks: tuple[str, ...]
    phase: str = SETUP
    black_seat: int = NO_SEAT
    colour: Colour = BLACK
    passes: int = 0
    first_passer: Colour | None = None
    ply: int = 0
    last_text: str | None = None
    last_cells: tuple[int, ...] = ()
    tops: tuple[int, int] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Move:
    """``pass``; ``choose`` a colour; ``place`` at ``points[0]``; ``setup`` at (black, white)."""

    kind: str
    points: tuple[int, ...] = ()
    colour: Colour | None = None  # the colour chosen


class Rules(BaseRules[State, Move]):
    """Valaturna on a hexagon of points of side ``size``."""

    slug: ClassVar[str] = "valaturna"
    title: ClassVar[str] = "Valaturna"
    summary: ClassVar[str] = (
        "Place on the points of a lattice and flip enemy stacks flanked at equal distances; "
        "the tallest stacks win."
    )
    notation: ClassVar[tuple[str, ...]] = ("e5", "pass", "k6/f5", "white")
    symmetries: ClassVar[tuple[Transform, ...]] = ALL  # games.symmetry
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option(
            "size",
            7,
            (5, 7),
            "Points per side of the hexagon: 7 for the long game (127 points), 5 for the short (61).",
            minimum=3,
            maximum=13,
        ),
    )
    RENAMED_OPTIONS: ClassVar[Mapping[str, str]] = {"side": "size"}  # before November 2026

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        size = self._options["size"]
        assert isinstance(size, int)
        self.board: HexBoard = hex_board(size)  # [§7.1] points per side; point = cell
        self._rays = self.board.rays
        self._lines: Lines = lines(size)
        bit = self._lines.bit
        # each ray's points as a set of bits: a flank needs an enemy and a friendly stack on it
        self._ray_sets = tuple(
            tuple(sum(1 << bit[j] for j in ray) for ray in rays) for rays in self._rays
        )
        self._places = tuple(Move(kind=PLACE, points=(i,)) for i in range(len(self.board)))
        self._pass = Move(kind=PASS)
        self._choices = (Move(kind=CHOOSE, colour=BLACK), Move(kind=CHOOSE, colour=WHITE))

    # --- the game ------------------------------------------------------------------------------

    def initial_state(self) -> State:
        """The empty board, Seat 1 to make the setup."""
        return State(stacks=("",) * len(self.board))

    def to_move(self, state: State) -> int | None:
        """Seat 1 in setup, Seat 2 for the choice, then the seat of the colour to move."""
        return to_move(state.phase, state.colour, state.black_seat)

    def legal_moves(self, state: State) -> Iterator[Move]:
        """Setup pairs (black point, then white point, reading order); ``black``, ``white``;
        placements in reading order, then ``pass``. Lazy: a setup has n(n-1) moves."""
        if state.phase == SETUP:
            yield from _setup_moves(len(self.board))
        elif state.phase == CHOOSE:
            yield from self._choices
        elif state.phase == PLAY:
            for i in self._placements(state):
                yield self._places[i]
            yield self._pass  # [§7.11] passing is always legal

    def format_move(self, state: State, move: Move) -> str:
        """The canonical text (spec §9); a placement never carries its capture annotation."""
        names = self.board.names
        if move.kind == PLACE:
            return names[move.points[0]]
        if move.kind == PASS:
            return PASS
        if move.kind == CHOOSE:
            assert move.colour is not None
            return format_choice(move.colour)
        return f"{names[move.points[0]]}/{names[move.points[1]]}"

    def parse_move(self, state: State, text: str) -> Move:
        """The move ``text`` names in ``state`` (any form of spec §9)."""
        if not isinstance(text, str):
            raise InvalidMoveError("A move must be text, like e5 or pass")
        t = text.strip().lower()
        move, annotation = self._read(text, t)
        self.check_over(state)
        refusal = self._refusal(state, move)
        if refusal is not None:
            raise refusal
        if annotation is not None:
            captured = set(self._captures(state.stacks, move.points[0], state.colour))
            if annotation != captured:
                expected = ", ".join(self.board.names[i] for i in sorted(captured)) or "nothing"
                raise IllegalMoveError(
                    f"{self.board.names[move.points[0]]} captures {expected}", rule="9"
                )
        return move

    def apply(self, state: State, move: Move) -> State:
        """The position after ``move`` (never mutates ``state``)."""
        self.check_over(state)
        refusal = self._refusal(state, move)
        if refusal is not None:
            raise refusal
        return self._play(state, move)

    def search_apply(self, state: State, move: Move) -> State:
        """The position after a legal ``move``, unchecked; a placement's display fields
        (``last_text``, ``last_cells``) left empty."""
        return self._play(state, move, shown=False)

    def _play(self, state: State, move: Move, shown: bool = True) -> State:
        """The position after the legal ``move``; a placement's display fields only if ``shown``
        (the fast path leaves them empty)."""
        ply = state.ply + 1
        names = self.board.names
        if move.kind == SETUP:
            pb, pw = move.points
            stacks = list(state.stacks)
            stacks[pb] = LETTERS[BLACK]  # [§7.14] two distinct points, height 1 each
            stacks[pw] = LETTERS[WHITE]
            text = f"{names[pb]}/{names[pw]}"
            bit = self._lines.bit
            return replace(
                state,
                stacks=tuple(stacks),
                phase=CHOOSE,
                ply=ply,
                last_text=text,
                last_cells=move.points,
                tops=(1 << bit[pb], 1 << bit[pw]),
            )
        if move.kind == CHOOSE:
            assert move.colour is not None
            return replace(
                state,
                phase=PLAY,
                black_seat=black_seat_after(move.colour),
                colour=BLACK,  # [§7.15] Black moves first whoever holds it
                ply=ply,
                last_text=format_choice(move.colour),
                last_cells=(),
            )
        c = state.colour
        if move.kind == PASS:
            passes = state.passes + 1
            return State(  # every field named: cheaper than replace() on this hot path
                stacks=state.stacks,
                phase=OVER if passes == 2 else PLAY,  # [§7.12] two consecutive passes end the game
                black_seat=state.black_seat,
                colour=c ^ 1,  # other(c)
                passes=passes,
                first_passer=c if passes == 1 else state.first_passer,
                ply=ply,
                last_text=PASS,
                last_cells=(),
                tops=state.tops,
            )
        p = move.points[0]
        tops = self._tops(state)
        mine, theirs = tops if c == BLACK else (tops[1], tops[0])
        letter = LETTERS[c]
        captured: list[int] = []  # as _captures, on the board before P is added
        for ray, points in zip(self._rays[p], self._ray_sets[p], strict=True):
            if points & theirs and points & mine:  # else no flank along this ray
                captured.extend(_flank(state.stacks, ray, letter))
        stacks = list(state.stacks)
        stacks[p] = letter
        bit = self._lines.bit
        mine |= 1 << bit[p]
        if captured:
            flipped = 0
            for s in captured:
                stacks[s] += letter  # [§7.9] one piece on top: height + 1, colour flips
                flipped |= 1 << bit[s]
            mine |= flipped
            theirs &= ~flipped
        return State(
            stacks=tuple(stacks),
            phase=PLAY,
            black_seat=state.black_seat,
            colour=c ^ 1,  # other(c)
            passes=0,
            first_passer=None,
            ply=ply,
            last_text=names[p] if shown else None,
            last_cells=tuple(sorted((p, *captured))) if shown else (),
            tops=(mine, theirs) if c == BLACK else (theirs, mine),
        )

    def outcome(self, state: State) -> Outcome | None:
        """After the double pass: lexicographic heights, then the last placer [§7.13]."""
        if state.phase != OVER:
            return None
        hb, hw = _heights(state.stacks, BLACK), _heights(state.stacks, WHITE)
        winner: Colour | None = None
        decided_by = "last-placer"
        for i in range(max(len(hb), len(hw))):
            a = hb[i] if i < len(hb) else 0
            b = hw[i] if i < len(hw) else 0
            if a != b:
                winner, decided_by = (BLACK if a > b else WHITE), "heights"
                break
        assert state.first_passer is not None
        if winner is None:
            winner = other(state.first_passer)  # the last placer; White if nobody placed
        by_seat = (hb, hw) if state.black_seat == 1 else (hw, hb)
        return Outcome(
            winner=seat_of(winner, state.black_seat),
            reason="double-pass",
            scores=by_seat,
            colour=COLOURS[winner],
            details={
                "decided_by": decided_by,
                "black": list(hb),
                "white": list(hw),
                "first_passer": COLOURS[state.first_passer],
            },
        )

    def view(self, state: State) -> View:
        """Points joined by lattice lines, stacks bottom to top, heights per colour as counters."""
        names = self.board.names
        cells: list[CellView] = []
        for i, (q, r) in enumerate(self.board.cells):
            cell: CellView = {
                "id": names[i],
                "q": q,
                "r": r,
                "stack": [_NAME_OF_LETTER[ch] for ch in state.stacks[i]],
            }
            cells.append(cell)
        heights = {c: _heights(state.stacks, c) for c in (BLACK, WHITE)}
        counters = [
            {
                "label": f"{COLOURS[c].capitalize()} heights",
                "value": " ".join(map(str, heights[c])) or "-",
                "seat": seat_of(c, state.black_seat),
            }
            for c in (BLACK, WHITE)
        ]
        counters.append({"label": "Consecutive passes", "value": state.passes, "seat": None})
        last = None
        effects = Effects()
        if state.last_text is not None:
            last = (state.last_text, [names[i] for i in state.last_cells])
            placed = self.board.by_name.get(state.last_text)
            for i in state.last_cells:  # a setup's two points, or a placement and its captures
                role: Role = "placed" if placed is None or i == placed else "flipped"
                effects.add(names[i], role, +1)  # [§7.9] a capture adds one piece
        return make_view(
            game=self.slug,
            kind="points",
            side=self.board.n,
            cells=cells,
            rows=row_labels(self.board),
            to_move=self.to_move(state),
            colours=view_colours(state.black_seat),
            phase=state.phase,
            last_move=last,
            counters=counters,
            outcome=self.outcome(state),
            effects=effects.rows(),
        )

    # --- step-wise entry -----------------------------------------------------------------------

    def move_tokens(self, state: State, move: Move) -> tuple[str, ...]:
        """Setup: the black point, then the white one; otherwise one click or one word."""
        names = self.board.names
        if move.kind in (PLACE, SETUP):
            return tuple(names[i] for i in move.points)
        if move.kind == CHOOSE:
            assert move.colour is not None
            return (format_choice(move.colour),)
        return (PASS,)

    def steps(self, state: State, prefix: Sequence[str]) -> Steps:
        """Legal next clicks without listing the n(n-1) setups.

        Hints: a setup click previews the stack it puts down; a placement lists, under ``cells``,
        the stacks it would capture.
        """
        prefix = tuple(prefix)
        by_name = self.board.by_name
        if state.phase == SETUP:
            distinct_points = len(set(prefix)) == len(prefix) and all(t in by_name for t in prefix)
            # each clicked point holds its stack at once: the first black, the second white
            changes = {t: [COLOURS[k]] for k, t in enumerate(prefix[:2])}
            if distinct_points and len(prefix) == 2:
                text = "/".join(prefix)
                return Steps(prefix, (), text, prompt=play_prompt(text), changes=changes)
            if distinct_points and len(prefix) < 2:
                colour = COLOURS[WHITE if prefix else BLACK]  # the black point is clicked first
                nxt = tuple(n for n in self.board.names if n not in prefix)
                hints: dict[str, Any] = {n: {"stack": [colour]} for n in nxt}
                prompt = "Place the white stack" if prefix else "Set up: place the black stack"
                return Steps(prefix, nxt, None, hints, prompt, changes)
        elif state.phase == CHOOSE:  # [§7.15] Black moves first
            black, white = (
                self.board.names[state.stacks.index(LETTERS[c])] for c in (BLACK, WHITE)
            )
            prompt = choice_prompt(
                f"owns the stack on {black} and moves first", f"owns the stack on {white}"
            )
            return choice_steps(prefix, prompt)
        elif state.phase == PLAY:
            points = self._placements(state)
            if not prefix:
                names = self.board.names
                hints = {}
                for i in points:
                    captured = self._captures(state.stacks, i, state.colour)
                    if captured:
                        # the browser previews a hint's "cells": here the stacks it would capture
                        hints[names[i]] = {"cells": [names[j] for j in sorted(captured)]}
                prompt = (
                    "Place a stack where it sees one of yours, or pass"
                    if points
                    else "No point sees one of your stacks: pass"
                )
                return Steps(prefix, (*(names[i] for i in points), PASS), None, hints, prompt)
            if prefix == (PASS,):
                return Steps(prefix, (), PASS, prompt=play_prompt(PASS))
            if len(prefix) == 1 and prefix[0] in by_name and by_name[prefix[0]] in points:
                return Steps(
                    prefix,
                    (),
                    prefix[0],
                    prompt=play_prompt(prefix[0]),
                    changes=self._placement_changes(state, by_name[prefix[0]]),
                )
        elif not prefix:
            return Steps(prefix, (), None)
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")

    def _placement_changes(self, state: State, p: int) -> dict[str, list[str]]:
        """The stacks a placement at ``p`` changes, as they will be: the new stack, and each
        captured stack with the mover's piece on top [§7.9]."""
        names, letter = self.board.names, LETTERS[state.colour]
        changed = {p: letter}
        for s in self._captures(state.stacks, p, state.colour):
            changed[s] = state.stacks[s] + letter
        return {names[i]: [_NAME_OF_LETTER[ch] for ch in st] for i, st in changed.items()}

    def random_move(self, state: State, rng: random.Random) -> Move:
        """Uniform over the legal moves; a setup is drawn without listing all n(n-1) of them."""
        if state.phase == SETUP:
            n = len(self.board)
            b = rng.randrange(n)
            w = rng.randrange(n - 1)
            return Move(kind=SETUP, points=(b, w + (w >= b)))
        return super().random_move(state, rng)

    def search_random_move(self, state: State, rng: random.Random) -> Move:
        """What :meth:`random_move` draws (uniform, and the same move for the same ``rng``), in play
        without listing the moves: the draw picks the k-th legal point of the bitboard."""
        if state.phase != PLAY:
            return self.random_move(state, rng)
        black, white = self._tops(state)
        legal = self._lines.sight(
            black if state.colour == BLACK else white, self._lines.all & ~(black | white)
        )
        count = legal.bit_count()
        k = rng.randrange(count + 1)  # as rng.choice over the placements and pass
        if k == count:
            return self._pass  # [§7.11] listed last
        return self._places[self._lines.cell[nth(legal, k)]]

    def position_key(self, state: State) -> str:
        """The explorer's key, folded over all 12 symmetries (no rule ranks the directions):
        stacks, phase, colour to move, the seat holding Black (after the pie's choice, ``black`` and
        ``white`` lead to the same stones, but another seat moves), passes and the first passer
        (the final tie-break); not the ply and last move (display)."""
        seats = f"{state.colour}:{state.black_seat}"
        extra = f"{state.phase}:{seats}:{state.passes}:{state.first_passer}"
        return fold_cells(self.board.n, state.stacks, extra, self.symmetries)

    def move_image(self, text: str, t: Transform) -> str:
        """``text`` with its points mapped by ``t``."""
        return move_image(self.board.n, text, t)

    def key(self, state: State) -> Hashable:
        """The position without the display-only fields (ply, last move)."""
        return (
            state.stacks,
            state.phase,
            state.black_seat,
            state.colour,
            state.passes,
            state.first_passer,
        )

    # --- private helpers -----------------------------------------------------------------------

    def _placements(self, state: State) -> list[int]:
        """The empty points that see a friendly stack, in reading order [§7.3].

        P sees F along d exactly when F sees P along -d, so the empty runs walked out from each
        friendly stack (``Lines.sight``) are the legal points. No friendly stack, no placement
        [§7.4].
        """
        black, white = self._tops(state)  # [§7.2] the top piece owns the stack
        own = black if state.colour == BLACK else white
        return self._lines.cells(self._lines.sight(own, self._lines.all & ~(black | white)))

    def _tops(self, state: State) -> tuple[int, int]:
        """``state.tops``, computed from the stacks if the state was built without it."""
        if state.tops is not None:
            return state.tops
        return tops_of(self._lines, state.stacks)

    def _sees(self, stacks: tuple[str, ...], p: int, colour: Colour) -> bool:
        """Whether the first stack along some ray from ``p`` is friendly to ``colour`` [§7.3]."""
        c = LETTERS[colour]
        for ray in self._rays[p]:
            for j in ray:
                if stacks[j]:
                    if stacks[j][-1] == c:
                        return True
                    break
        return False

    def _captures(self, stacks: tuple[str, ...], p: int, colour: Colour) -> list[int]:
        """Every enemy stack flanked by a ``colour`` stack placed at ``p``, in all six directions.

        [§7.7] the placed stack is one flanker; [§7.8] all flanks count; [§7.10] evaluated once,
        on the board before the placement, so captured stacks never flank in the same move.
        """
        c = LETTERS[colour]
        out: list[int] = []
        for ray in self._rays[p]:
            out.extend(_flank(stacks, ray, c))
        return out

    def _read(self, text: str, t: str) -> tuple[Move, set[int] | None]:
        """The move ``t`` spells and its capture annotation, if any (syntax only)."""
        if t == PASS:
            return self._pass, None
        choice = parse_choice(t)
        if choice is not None:
            return self._choices[choice], None
        board = self.board
        m = _SETUP_TEXT.fullmatch(t)
        if m:
            points = (board.parse_index(m[1]), board.parse_index(m[2]))
            return Move(kind=SETUP, points=points), None
        m = _PLACE_TEXT.fullmatch(t)
        if not m:
            raise InvalidMoveError(
                f"{typed(t)} is not a move: type one like e5 or pass"
                if t
                else "Type a move like e5 or pass"
            )
        point = board.parse_index(m[1])
        if m[2] is None:
            return self._places[point], None
        names = [n.strip() for n in m[2].split(",")]
        if names == [""] or "" in names:
            raise InvalidMoveError("List the captured stacks, like e5x(d4,e4)", rule="9")
        annotation: set[int] = set()
        for name in names:
            i = board.parse_index(name)
            if i in annotation:
                raise InvalidMoveError(f"The captures name {name} twice", rule="9")
            annotation.add(i)
        return self._places[point], annotation

    def _refusal(self, state: State, move: Move) -> IllegalMoveError | None:
        """Why ``move`` is illegal in ``state`` (a game not over), or None if it is legal."""
        phase, kind = state.phase, move.kind
        n = len(self.board)
        if phase == SETUP:
            if kind != SETUP:
                return IllegalMoveError(
                    "First place a black and a white stack, like e3/e7", rule="5"
                )
            if len(move.points) != 2 or not all(0 <= p < n for p in move.points):
                return IllegalMoveError("The first move names two points, like e3/e7", rule="5")
            if move.points[0] == move.points[1]:
                return IllegalMoveError("The two stacks need two different points", rule="5")
        elif phase == CHOOSE:
            if kind != CHOOSE or move.colour not in (BLACK, WHITE):
                return IllegalMoveError("Choose black or white now", rule="5")
        elif kind == PLACE:
            if len(move.points) != 1 or not 0 <= move.points[0] < n:
                return IllegalMoveError("A placement names one point of the board", rule="4")
            p = move.points[0]
            if state.stacks[p]:
                return IllegalMoveError(f"{self.board.names[p]} is occupied", rule="4")
            if not self._sees(state.stacks, p, state.colour):
                colour = COLOURS[state.colour]
                return IllegalMoveError(
                    f"{self.board.names[p]} sees no {colour} stack along an empty line", rule="7.3"
                )
        elif kind != PASS:
            return IllegalMoveError(
                "The colours are already chosen: place a stack or pass", rule="5"
            )
        return None


def flank_line(stacks: Sequence[str], ray: Sequence[int], colour: Colour) -> list[int]:
    """The enemy stacks that a ``colour`` stack just before ``ray`` flanks along it (spec §3).

    The ray must read ``.^n (E+ .^n)+ F``: n >= 0 empties, then one or more maximal enemy chains,
    each followed by exactly n empties, then a friendly stack [§7.5]; chains may differ in length
    [§7.6]. Returns the enemy points in ray order, or ``[]``.

    >>> flank_line(("", "w", "", "bw", "", "wb"), range(6), BLACK)  # . W . W . B with n = 1
    [1, 3]
    """
    return _flank(stacks, ray, LETTERS[colour])


def _flank(stacks: Sequence[str], ray: Sequence[int], c: str) -> list[int]:
    """:func:`flank_line` for the colour whose stacks' top letter is ``c`` (the hot path)."""
    length = len(ray)
    n = 0
    while n < length and not stacks[ray[n]]:
        n += 1
    i = n
    captured: list[int] = []
    while True:
        j = i
        while j < length and stacks[ray[j]] and stacks[ray[j]][-1] != c:
            j += 1
        if j == i:
            return []  # a chain of at least one enemy stack is required
        captured.extend(ray[i:j])
        if j + n > length:
            return []
        for t in range(j, j + n):
            if stacks[ray[t]]:
                return []  # fewer than n empties after the chain
        i = j + n
        if i >= length or not stacks[ray[i]]:
            return []  # more than n empties, or the edge
        if stacks[ray[i]][-1] == c:
            return captured  # the second flanker
        # another enemy chain, exactly n empties on (only possible when n >= 1)


def tops_of(layout: Lines, stacks: Sequence[str]) -> tuple[int, int]:
    """By colour, the points whose top piece is that colour, as bits of ``layout``."""
    out = [0, 0]
    for i, s in enumerate(stacks):
        if s:
            out[LETTERS.index(s[-1])] |= 1 << layout.bit[i]
    return out[0], out[1]


@cache  # one entry per board size: at most 11 (sizes 3..13), up to 219,492 moves on side 13
def _setup_moves(points: int) -> tuple[Move, ...]:
    """Every setup on a board of ``points`` points, built once: the only sizeable move list."""
    return tuple(
        Move(kind=SETUP, points=(b, w)) for b in range(points) for w in range(points) if b != w
    )


def _heights(stacks: tuple[str, ...], colour: Colour) -> tuple[int, ...]:
    """The heights of ``colour``'s stacks, tallest first."""
    c = LETTERS[colour]
    return tuple(sorted((len(s) for s in stacks if s and s[-1] == c), reverse=True))
