"""Sgolte: place a stone; a placement that merges your groups must split an enemy group.

Binding rules: ``shared/rules/sgolte.md`` (the designer's text is ``shared/rules/source/sgolte.txt``).

Summary. Hex board of side 5, 6 (default) or 7; variant ``standard`` (default) or ``dense``. Seat 1
places one black stone (Black's first move), seat 2 answers ``black`` or ``white``, then White moves.
A turn places one stone of the mover's colour on an empty cell. A placement touching at most one
friendly group is *quiet*. A placement touching two or more is *merging* and must capture: in
``standard`` a straight line of enemy stones removed from one end, in ``dense`` a connected set removed
in some order, such that every removal but the last leaves the enemy group connected and the last one
splits it. Every captured stone is then re-placed as the mover's own, one by one, each touching at
most one friendly group at its moment; a capture whose stones cannot all be re-placed is illegal, and
so is a merge without a legal capture. A player with no legal turn at the start of a turn loses.

The move space. The re-placement sets grow like C(empty cells, k), and dense capture sets like the
connected subsets of a group, so nothing here lists them eagerly:

* ``to_move``/``outcome`` read a flag that ``apply`` sets with an existence search (``_has_turn``):
  a quiet cell, else a merging cell with a capture whose re-placement exists (``_can_replace``, which
  decides ``exists_replace`` of spec section 3 by splitting the candidate cells into components and,
  where a component touches several friendly groups, searching for a small vertex cut).
* ``legal_moves`` is a *lazy iterable*, in this deterministic order: placements in cell index
  (reading) order; a quiet placement is one move; for a merging placement, its legal captures (standard:
  by canonical removal sequence; dense: by size, then grown depth first from their lowest cell),
  and for each capture its re-placement sets in lexicographic order of their sorted cell indices.
* ``choices`` lists the distinct placement-and-capture choices and ``count_moves`` counts the legal
  moves (re-placement sets counted per component, not listed).
* ``steps`` answers each next click: the placement, each captured stone in removal order, each
  re-placed stone in placement order; a click is offered only while a legal completion exists.

Worst cases, stated rather than hidden: the exact cut search (only reached when the quick valid sets
fall short) is exponential in the size of the cut; a dense capture search that must fail is
exponential in the enemy group's size, pruned by the stones that touch two friendly groups;
``count_moves`` enumerates the subsets of candidate components that touch several groups. On random
games these stay in milliseconds (``python -m games bench sgolte``).

Readings where the spec is silent (see also the numbered decisions, marked ``# [n]`` in the code):

* A merging placement's capture ends exactly at the removal that splits the group (decisions 3, 14),
  so in ``steps`` an enemy-stone click always continues the capture and an empty-cell click always
  re-places; the two never compete.
* ``dense``: a removal that empties the whole group is never a split (decision 4).
* ``apply`` accepts a ``Move`` whose capture or re-placement is written in any legal order; the move's
  identity is the sets (spec section 4), and ``format_move`` prints the canonical orders of section 9.
* Parsing: a well-formed text whose capture and re-placement counts differ, or that repeats a cell,
  is an ``IllegalMoveError`` (the rules forbid it); text that is not of the notation's shape, or names
  no cell of the board, is an ``InvalidMoveError``.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, ClassVar

from .base import Option, Outcome, Steps, parse_word
from .base import Rules as BaseRules
from .errors import IllegalMoveError, InvalidMoveError
from .hexgrid import DIRECTIONS, hex_board
from .view import CellView, make_view, row_labels

BLACK, WHITE = 1, 2
COLOUR_NAMES: dict[int, str] = {BLACK: "black", WHITE: "white"}
SETUP, CHOOSE, PLAY, OVER = "setup", "choose", "play", "over"
STANDARD, DENSE = "standard", "dense"

_MOVE = re.compile(r"\s*([a-z][0-9]+)\s*(?:x(.*?):(.*))?", re.DOTALL)
_CELL = re.compile(r"[a-z][0-9]+")


@dataclass(frozen=True)
class State:
    """A position. ``black``/``white`` are bitsets over the padded layout of ``_Geo``.

    ``colour`` is the colour to move in ``play`` (Black during ``setup``); ``black_seat`` is 0 until the
    pie choice. ``last_text``/``last_cells`` describe the last move for the view only (``key`` drops
    them).
    """

    black: int
    white: int
    phase: str
    colour: int
    black_seat: int
    ply: int
    last_text: str | None = None
    last_cells: tuple[str, ...] = ()


@dataclass(frozen=True)
class Move:
    """A setup stone or a turn (``place``, with ``capture`` and ``replace`` for a merge), or a choice.

    ``capture`` is in removal order and ``replace`` in placement order; moves built by this module use
    the canonical orders, so two ``Move`` values are equal exactly when they are the same move.
    """

    place: str | None = None
    capture: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()
    choice: str | None = None


class Rules(BaseRules[State, Move]):
    """Sgolte's rules for one board side and variant."""

    slug: ClassVar[str] = "sgolte"
    title: ClassVar[str] = "Sgolte"
    summary: ClassVar[str] = (
        "Place stones; a merge must split an enemy group and rebuild what it took. "
        "Whoever cannot place loses."
    )
    notation: ClassVar[tuple[str, ...]] = ("b3", "white", "f6xi1:b1", "d6xg6,g7:e2,h9")
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("size", 6, (5, 6, 7), "Cells per side of the hexagonal board."),
        Option(
            "variant",
            STANDARD,
            (STANDARD, DENSE),
            "standard: captures are straight lines; dense: any connected set.",
        ),
    )

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        size = self._options["size"]
        variant = self._options["variant"]
        assert isinstance(size, int) and isinstance(variant, str)
        self.geo = _geo(size)
        self.dense = variant == DENSE

    # --- positions ----------------------------------------------------------------------------

    def initial_state(self) -> State:
        """The empty board, seat 1 to place the setup stone."""
        return State(0, 0, SETUP, BLACK, 0, 0)

    def position(
        self,
        black: Iterable[str] = (),
        white: Iterable[str] = (),
        to_move: str = "black",
        black_seat: int = 1,
    ) -> State:
        """A play-phase position built directly from cell names (for tests, puzzles and analysis)."""
        geo = self.geo
        b = sum(1 << geo.parse(name) for name in black)
        w = sum(1 << geo.parse(name) for name in white)
        if b & w:
            raise ValueError("a cell cannot hold both colours")
        colour = BLACK if to_move == "black" else WHITE
        own, enemy = (b, w) if colour == BLACK else (w, b)
        phase = PLAY if self._has_turn(own, enemy) else OVER
        return State(b, w, phase, colour, black_seat, 0)

    def to_move(self, state: State) -> int | None:
        """The seat to move, None once the game is over."""
        if state.phase == SETUP:
            return 1
        if state.phase == CHOOSE:
            return 2
        if state.phase == OVER:
            return None
        return self._seat(state, state.colour)

    def outcome(self, state: State) -> Outcome | None:
        """The player to move with no legal turn loses (decision 12); no draws, no scores."""
        if state.phase != OVER:
            return None
        winner = WHITE if state.colour == BLACK else BLACK
        return Outcome(
            winner=self._seat(state, winner),
            reason="no-moves",
            colour=COLOUR_NAMES[winner],
            details={"loser": COLOUR_NAMES[state.colour]},
        )

    def key(self, state: State) -> tuple[int, int, str, int, int]:
        """The position without the display-only last-move fields and the ply count."""
        return (state.black, state.white, state.phase, state.colour, state.black_seat)

    # --- moves --------------------------------------------------------------------------------

    def legal_moves(self, state: State) -> Iterator[Move]:
        """Every legal move, lazily, in the order the module docstring documents."""
        if state.phase == SETUP:
            return (Move(place=self.geo.names[c]) for c in self.geo.order)
        if state.phase == CHOOSE:
            return iter((Move(choice="black"), Move(choice="white")))
        if state.phase != PLAY:
            return iter(())
        return self._play_moves(state)

    def _play_moves(self, state: State) -> Iterator[Move]:
        geo = self.geo
        own, enemy = _sides(state)
        for p, cap in self._choices(own, enemy):
            if cap is None:
                yield Move(place=geo.names[p])
                continue
            own2, empty2 = _after_capture(geo, own, enemy, p, _mask(cap))
            for s in _replacement_sets(geo, own2, empty2, len(cap)):
                yield Move(geo.names[p], _names(geo, cap), _names(geo, _canonical_s(geo, own2, s)))

    def choices(self, state: State) -> Iterator[tuple[str, tuple[str, ...]]]:
        """The distinct placement-and-capture choices: ``(cell, ())`` for a quiet placement, else
        ``(cell, capture in canonical removal order)`` for each capture whose re-placement exists."""
        if state.phase != PLAY:
            return
        own, enemy = _sides(state)
        for p, cap in self._choices(own, enemy):
            yield self.geo.names[p], () if cap is None else _names(self.geo, cap)

    def count_moves(self, state: State) -> int:
        """The number of legal moves, counting re-placement sets without listing them."""
        if state.phase == SETUP:
            return len(self.geo.order)
        if state.phase == CHOOSE:
            return 2
        if state.phase != PLAY:
            return 0
        geo = self.geo
        own, enemy = _sides(state)
        total = 0
        for p, cap in self._choices(own, enemy):
            if cap is None:
                total += 1
            else:
                own2, empty2 = _after_capture(geo, own, enemy, p, _mask(cap))
                total += _count_sets(geo, own2, empty2, len(cap))
        return total

    def _choices(self, own: int, enemy: int) -> Iterator[tuple[int, tuple[int, ...] | None]]:
        """(placement, None) for quiet cells, (placement, canonical capture) for feasible merges."""
        geo = self.geo
        empty = geo.on & ~own & ~enemy
        merging = _merging_cells(geo, own, empty)
        for p in _bits(empty):
            if not (merging >> p) & 1:
                yield p, None  # [1] [6] touching at most one friendly group: quiet
                continue
            for cap, _ in self._captures(own, enemy, p):
                yield p, cap

    def _captures(self, own: int, enemy: int, p: int) -> Iterator[tuple[tuple[int, ...], int]]:
        """Feasible captures for the merging placement ``p``: (canonical order, cell set)."""
        geo = self.geo
        if self.dense:
            for group in _big_groups(geo, enemy):
                for r in _dense_sets(geo, own, enemy, p, group):
                    yield _dense_order(geo, group, r), r
            return
        seen: set[int] = set()
        for line, mask in _lines(geo, enemy):
            if mask in seen:
                continue
            seen.add(mask)
            if _feasible(geo, own, enemy, p, mask):
                yield line, mask

    def _starts(self, own: int, enemy: int) -> Iterator[int]:
        """The legal placements: quiet cells, and merging cells with a feasible capture."""
        geo = self.geo
        empty = geo.on & ~own & ~enemy
        merging = _merging_cells(geo, own, empty)
        for p in _bits(empty):
            if not (merging >> p) & 1 or self._capture_exists(own, enemy, p):
                yield p

    def _capture_exists(self, own: int, enemy: int, p: int) -> bool:
        """Whether the merging placement ``p`` has a legal capture with a feasible re-placement."""
        geo = self.geo
        if self.dense:
            return any(
                _dense_find(geo, own, enemy, p, group, list(_bits(group)))
                for group in _big_groups(geo, enemy)
            )
        return any(_feasible(geo, own, enemy, p, mask) for _, mask in _lines(geo, enemy))

    def _has_turn(self, own: int, enemy: int) -> bool:
        """Whether the colour owning ``own`` has a legal turn, decided without listing moves."""
        for _ in self._starts(own, enemy):
            return True
        return False  # [12] no legal turn: the player to move loses

    def format_move(self, state: State, move: Move) -> str:
        """The canonical text: ``e5``, ``black``, ``b4`` or ``c6xc2,d3,e4:c2,d3,e4`` (section 9)."""
        if move.choice is not None:
            return move.choice
        assert move.place is not None
        if not move.capture:
            return move.place
        canon = self._canonical(state, move)
        return f"{canon.place}x{','.join(canon.capture)}:{','.join(canon.replace)}"

    def _canonical(self, state: State, move: Move) -> Move:
        """The same move with its capture and re-placement in the canonical orders of section 9."""
        geo = self.geo
        own, enemy = _sides(state)
        p = geo.parse(move.place or "")
        cap = tuple(geo.parse(c) for c in move.capture)
        mask = _mask(cap)
        group = geo.flood(1 << cap[0], enemy)
        if self.dense:
            order = _dense_order(geo, group, mask)
        else:
            back = cap[::-1]
            order = back if back[0] < cap[0] and _removal_ok(geo, group, back) else cap
        own2 = own | 1 << p
        s = _canonical_s(geo, own2, _mask(geo.parse(c) for c in move.replace))
        return Move(move.place, _names(geo, order), _names(geo, s))

    def parse_move(self, state: State, text: str) -> Move:
        """Read any legal writing of a move (spaces around ``x``, ``:`` and commas allowed)."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"{text!r} is not a move")
        word = parse_word(text, ("black", "white"))
        if word is not None:
            self.check_over(state)
            if state.phase != CHOOSE:
                raise IllegalMoveError(f"{text!r}: a colour is chosen only after the setup stone")
            return Move(choice=word)
        move = self._read(text)
        self.check_over(state)
        if state.phase == CHOOSE:
            raise IllegalMoveError(f"{text!r}: seat 2 must answer 'black' or 'white'")
        self._check(state, move, text)
        if move.capture:
            return self._canonical(state, move)
        return move

    def _read(self, text: str) -> Move:
        """The shape of a placement text; InvalidMoveError if it has none."""
        m = _MOVE.fullmatch(text.strip())
        if m is None:
            raise InvalidMoveError(
                f"{text!r} is not a Sgolte move (e.g. 'b4', 'c6xc2,d3,e4:c2,d3,e4')"
            )
        place = self.geo.checked_name(m.group(1), text)
        if m.group(2) is None:
            return Move(place=place)
        cap = tuple(self.geo.checked_name(c.strip(), text) for c in m.group(2).split(","))
        rep = tuple(self.geo.checked_name(c.strip(), text) for c in m.group(3).split(","))
        return Move(place, cap, rep)

    def _check(self, state: State, move: Move, text: str) -> None:
        """Raise IllegalMoveError unless ``move`` is legal in ``state``, in the order it is written."""
        geo = self.geo
        if state.phase == SETUP:
            if move.choice is not None or move.capture or move.replace:
                raise IllegalMoveError(f"{text!r}: the setup is one black stone on an empty cell")
            return
        if move.choice is not None or move.place is None:
            raise IllegalMoveError(f"{text!r}: it is a placement's turn, not a colour choice")
        own, enemy = _sides(state)
        p = geo.parse(move.place)
        empty = geo.on & ~own & ~enemy
        if not (empty >> p) & 1:
            raise IllegalMoveError(f"{text!r}: {move.place} is not empty")
        merging = (_merging_cells(geo, own, 1 << p) >> p) & 1
        if not move.capture:
            if move.replace:
                raise IllegalMoveError(f"{text!r}: only captured stones are re-placed")
            if merging:  # [10] a merge without a capture is illegal
                raise IllegalMoveError(
                    f"{text!r}: {move.place} merges friendly groups, so it must split an enemy group"
                )
            return
        if not merging:  # [11] a quiet placement never captures
            raise IllegalMoveError(
                f"{text!r}: {move.place} merges no groups, so it captures nothing"
            )
        cap = [geo.parse(c) for c in move.capture]
        rep = [geo.parse(c) for c in move.replace]
        if len(set(cap)) != len(cap) or len(set(rep)) != len(rep):
            raise IllegalMoveError(f"{text!r}: a cell is named twice")
        if len(cap) != len(rep):
            raise IllegalMoveError(f"{text!r}: {len(cap)} stones captured but {len(rep)} re-placed")
        if any(not (enemy >> c) & 1 for c in cap):
            raise IllegalMoveError(f"{text!r}: only enemy stones can be captured")
        group = geo.flood(1 << cap[0], enemy)
        mask = _mask(cap)
        if mask & ~group:  # [5] the capture lies in one group
            raise IllegalMoveError(f"{text!r}: the captured stones are not all in one enemy group")
        if not self.dense and not _is_line(geo, cap):  # [2] consecutive in one direction
            raise IllegalMoveError(f"{text!r}: a capture is a straight line of consecutive stones")
        if self.dense and not geo.connected(mask):  # [14] the set is connected as a whole
            raise IllegalMoveError(f"{text!r}: the captured stones are not connected")
        if not _removal_ok(geo, group, tuple(cap)):  # [3] [4] only the last removal splits
            raise IllegalMoveError(
                f"{text!r}: in this order an earlier removal splits the group or the last does not"
            )
        own2, empty2 = _after_capture(geo, own, enemy, p, mask)
        for s, name in zip(rep, move.replace, strict=True):  # [7] [8] one by one, any empty cell
            if not (empty2 >> s) & 1:
                raise IllegalMoveError(f"{text!r}: {name} is not empty when it is re-placed")
            if _touch(geo, own2, s) > 1:  # [6] at most one friendly group at its moment
                raise IllegalMoveError(f"{text!r}: re-placing {name} would merge friendly groups")
            own2 |= 1 << s
            empty2 &= ~(1 << s)

    def apply(self, state: State, move: Move) -> State:
        """The position after ``move``, with the game-over flag set by an existence search."""
        self.check_over(state)
        text = self.format_move(state, move) if move.choice is None else move.choice
        geo = self.geo
        if state.phase == CHOOSE:
            if move.choice not in ("black", "white"):
                raise IllegalMoveError(f"{move!r}: seat 2 must answer 'black' or 'white'")
            seat = 2 if move.choice == "black" else 1
            # [13] the setup stone was Black's first move: White moves next
            return State(state.black, state.white, PLAY, WHITE, seat, state.ply + 1, text, ())
        self._check(state, move, text)
        assert move.place is not None
        p = geo.parse(move.place)
        if state.phase == SETUP:
            cells: tuple[str, ...] = (move.place,)
            return State(1 << p, 0, CHOOSE, BLACK, 0, state.ply + 1, text, cells)
        own, enemy = _sides(state)
        cap = _mask(geo.parse(c) for c in move.capture)
        rep = _mask(geo.parse(c) for c in move.replace)
        own = own | 1 << p | rep
        enemy &= ~cap
        nxt = WHITE if state.colour == BLACK else BLACK
        phase = PLAY if self._has_turn(enemy, own) else OVER
        black, white = (own, enemy) if state.colour == BLACK else (enemy, own)
        cells = tuple(dict.fromkeys((move.place, *move.capture, *move.replace)))
        return State(black, white, phase, nxt, state.black_seat, state.ply + 1, text, cells)

    def move_tokens(self, state: State, move: Move) -> tuple[str, ...]:
        """Clicks: the placement, each captured stone in removal order, each re-placed stone."""
        if move.choice is not None:
            return (move.choice,)
        assert move.place is not None
        return (move.place, *move.capture, *move.replace)

    def random_move(self, state: State, rng: random.Random) -> Move:
        """A random legal move: a uniformly random legal placement, then a random feasible capture,
        then random re-placements that keep a completion possible (never listing all moves)."""
        self.check_over(state)
        geo = self.geo
        if state.phase == SETUP:
            return Move(place=geo.names[rng.choice(geo.order)])
        if state.phase == CHOOSE:
            return Move(choice=rng.choice(("black", "white")))
        own, enemy = _sides(state)
        empty = geo.on & ~own & ~enemy
        merging = _merging_cells(geo, own, empty)
        cells = list(_bits(empty))
        rng.shuffle(cells)
        for p in cells:
            if not (merging >> p) & 1:
                return Move(place=geo.names[p])
            caps: list[tuple[tuple[int, ...], int]] = []
            if self.dense:
                groups = list(_big_groups(geo, enemy))
                rng.shuffle(groups)
                for group in groups:
                    seeds = list(_bits(group))
                    rng.shuffle(seeds)
                    r = _dense_find(geo, own, enemy, p, group, seeds, 0, rng)
                    if r:
                        caps = [(_dense_order(geo, group, r), r)]
                        break
            else:
                caps = list(self._captures(own, enemy, p))
            if not caps:
                continue
            cap, mask = rng.choice(caps)
            own2, empty2 = _after_capture(geo, own, enemy, p, mask)
            placed = _random_replacement(geo, own2, empty2, len(cap), rng)
            s = _canonical_s(geo, own2, _mask(placed))
            return Move(geo.names[p], _names(geo, cap), _names(geo, s))
        raise IllegalMoveError("no legal move")  # unreachable: the phase says a turn exists

    def bench_legal(self, state: State) -> int:
        """The server's per-position work, re-placement sets decided by existence and never listed:
        standard, every placement-and-capture choice; dense, every legal placement (the first clicks
        that ``steps`` offers). Returns their number."""
        if state.phase != PLAY:
            return sum(1 for _ in self.legal_moves(state))
        own, enemy = _sides(state)
        if self.dense:
            return sum(1 for _ in self._starts(own, enemy))
        return sum(1 for _ in self._choices(own, enemy))

    # --- step-wise entry ----------------------------------------------------------------------

    def steps(self, state: State, prefix: Sequence[str]) -> Steps:
        """Legal next clicks; each is offered only while a legal completion exists (section 4)."""
        prefix = tuple(prefix)
        geo = self.geo
        if state.phase == OVER:
            if prefix:
                raise IllegalMoveError("the game is over: no move can be entered")
            return Steps(prefix, (), None)
        if state.phase == CHOOSE:
            return _word_steps(prefix, ("black", "white"))
        if state.phase == SETUP:
            if not prefix:
                return Steps(prefix, tuple(geo.names[c] for c in geo.order), None)
            if len(prefix) == 1 and prefix[0] in geo.by_name:
                return Steps(prefix, (), prefix[0])
            raise IllegalMoveError(f"no legal move starts with {' '.join(prefix)!r}")
        own, enemy = _sides(state)
        empty = geo.on & ~own & ~enemy
        if not prefix:
            starts = self._starts(own, enemy)
            return Steps(prefix, tuple(geo.names[p] for p in starts), None)
        p = self._token(prefix, 0, empty)
        if not (_merging_cells(geo, own, 1 << p) >> p) & 1:
            if len(prefix) > 1:
                raise IllegalMoveError(f"{prefix[0]} is a quiet placement: it captures nothing")
            return Steps(prefix, (), prefix[0])
        walker = _DenseWalk(geo, own, enemy, p) if self.dense else _LineWalk(self, own, enemy, p)
        i = 1
        removed: list[int] = []
        while not walker.complete(removed):
            if i == len(prefix):
                options = walker.next_stones(removed)
                if not options and not removed:
                    raise IllegalMoveError(f"{prefix[0]} merges groups but no capture is possible")
                return Steps(prefix, tuple(geo.names[c] for c in options), None)
            c = self._token(prefix, i, enemy)
            if not walker.accepts(removed, c):
                raise IllegalMoveError(f"no legal move starts with {' '.join(prefix[: i + 1])!r}")
            removed.append(c)
            i += 1
        mask = _mask(removed)
        own2, empty2 = _after_capture(geo, own, enemy, p, mask)
        contacts = _group_contacts(geo, own2, empty2)
        left = len(removed)
        placed: list[int] = []
        while True:
            if left == 0:
                if i < len(prefix):
                    raise IllegalMoveError(f"{' '.join(prefix)!r} re-places too many stones")
                move = Move(prefix[0], _names(geo, removed), _names(geo, placed))
                return Steps(prefix, (), self.format_move(state, move))
            if i == len(prefix):
                cells = _replace_options(geo, own2, empty2, left)
                return Steps(prefix, tuple(geo.names[c] for c in cells), None)
            s = self._token(prefix, i, empty2)
            # [6] the stone touches at most one friendly group now, and the rest still fit
            if sum(1 for a in contacts if (a >> s) & 1) > 1 or not _can_replace_after(
                geo, contacts, empty2, s, left - 1
            ):
                raise IllegalMoveError(f"no legal move starts with {' '.join(prefix[: i + 1])!r}")
            contacts = _contacts_after(geo, contacts, empty2, s)
            own2 |= 1 << s
            empty2 &= ~(1 << s)
            placed.append(s)
            left -= 1
            i += 1

    def _token(self, prefix: tuple[str, ...], i: int, allowed: int) -> int:
        c = self.geo.by_name.get(prefix[i])
        if c is None or not (allowed >> c) & 1:
            raise IllegalMoveError(f"no legal move starts with {' '.join(prefix[: i + 1])!r}")
        return c

    # --- view ---------------------------------------------------------------------------------

    def view(self, state: State) -> dict[str, Any]:
        """Cells and stones, whose turn, seat colours, stone counts and the last move's cells."""
        geo = self.geo
        cells: list[CellView] = []
        for c, (q, r) in zip(geo.order, geo.board.cells, strict=True):
            stack = (
                ["black"] if (state.black >> c) & 1 else ["white"] if (state.white >> c) & 1 else []
            )
            cells.append({"id": geo.names[c], "q": q, "r": r, "stack": stack})
        colours: list[str | None] = [None, None]
        if state.black_seat:
            colours[state.black_seat - 1] = "black"
            colours[2 - state.black_seat] = "white"
        counters = [
            {
                "label": "Black stones",
                "value": state.black.bit_count(),
                "seat": self._seat(state, BLACK),
            },
            {
                "label": "White stones",
                "value": state.white.bit_count(),
                "seat": self._seat(state, WHITE),
            },
        ]
        last = None if state.last_text is None else (state.last_text, state.last_cells)
        to_move_colour = None
        if state.phase in (SETUP, PLAY):
            to_move_colour = COLOUR_NAMES[state.colour]
        return make_view(
            game=self.slug,
            kind="hex",
            side=geo.n,
            cells=cells,
            rows=row_labels(geo.board),
            to_move=self.to_move(state),
            colours=colours,
            phase=state.phase,
            last_move=last,
            counters=counters,
            outcome=self.outcome(state),
            extra={
                "variant": "dense" if self.dense else "standard",
                "colour_to_move": to_move_colour,
            },
        )

    @staticmethod
    def _seat(state: State, colour: int) -> int | None:
        if not state.black_seat:
            return None
        return state.black_seat if colour == BLACK else 3 - state.black_seat


# --- step-wise capture walkers --------------------------------------------------------------------


class _LineWalk:
    """Standard captures, click by click: the legal ordered lines with a feasible re-placement."""

    def __init__(self, rules: Rules, own: int, enemy: int, p: int) -> None:
        geo = rules.geo
        self.lines = [
            line for line, mask in _lines(geo, enemy) if _feasible(geo, own, enemy, p, mask)
        ]

    def complete(self, removed: list[int]) -> bool:
        return bool(removed) and tuple(removed) in self.lines

    def accepts(self, removed: list[int], c: int) -> bool:
        return c in self.next_stones(removed)

    def next_stones(self, removed: list[int]) -> list[int]:
        n = len(removed)
        return sorted(
            {line[n] for line in self.lines if len(line) > n and list(line[:n]) == removed}
        )


class _DenseWalk:
    """Dense captures, click by click: a stone is offered while some legal capture extends the clicks."""

    def __init__(self, geo: _Geo, own: int, enemy: int, p: int) -> None:
        self.geo, self.own, self.enemy, self.p = geo, own, enemy, p

    def complete(self, removed: list[int]) -> bool:
        if not removed:
            return False
        group = self.geo.flood(1 << removed[0], self.enemy)
        return self.geo.splits(group & ~_mask(removed))

    def accepts(self, removed: list[int], c: int) -> bool:
        geo = self.geo
        if removed:
            group = geo.flood(1 << removed[0], self.enemy)
        else:
            group = geo.flood(1 << c, self.enemy)
            if group.bit_count() < 3:
                return False
        if not (group >> c) & 1 or c in removed:
            return False
        return _dense_completion(geo, self.own, self.enemy, self.p, group, _mask(removed), c)

    def next_stones(self, removed: list[int]) -> list[int]:
        geo = self.geo
        if removed:
            groups = [geo.flood(1 << removed[0], self.enemy)]
        else:
            groups = _big_groups(geo, self.enemy)
        done = _mask(removed)
        return [
            x
            for group in groups
            for x in _bits(group & ~done)
            if _dense_completion(geo, self.own, self.enemy, self.p, group, done, x)
        ]


def _word_steps(prefix: tuple[str, ...], words: tuple[str, ...]) -> Steps:
    if not prefix:
        return Steps(prefix, words, None)
    if len(prefix) == 1 and prefix[0] in words:
        return Steps(prefix, (), prefix[0])
    raise IllegalMoveError(f"no legal move starts with {' '.join(prefix)!r}")


# --- geometry on bitsets --------------------------------------------------------------------------


class _Geo:
    """The board of ``hexgrid`` laid out on bitsets: cell (q, r) is bit ``(r+m)*w + (q+m)``.

    Rows are ``w = 2N`` bits wide, one more than the widest row, so the spare column stops the shifts
    that move a set one step in each direction from wrapping to the next row. Bit order is reading
    order, so "lowest index" in the spec is "lowest bit" here.
    """

    def __init__(self, n: int) -> None:
        board = hex_board(n)
        m = n - 1
        w = 2 * n
        self.n = n
        self.board = board
        self.order: tuple[int, ...] = tuple((r + m) * w + (q + m) for q, r in board.cells)
        size = (2 * n - 1) * w
        self.names: list[str] = [""] * size
        self.nb: list[int] = [0] * size
        self.step: list[tuple[int, ...]] = [()] * size
        for i, b in enumerate(self.order):
            self.names[b] = board.names[i]
            self.nb[b] = sum(1 << self.order[j] for j in board.adjacent[i])
            self.step[b] = tuple(self.order[j] if j >= 0 else -1 for j in board.step[i])
        self.by_name: dict[str, int] = {board.names[i]: b for i, b in enumerate(self.order)}
        self.on = sum(1 << b for b in self.order)
        self.shifts = tuple(dq + dr * w for dq, dr in DIRECTIONS)
        assert sorted(abs(s) for s in self.shifts) == [1, 1, w - 1, w - 1, w, w]
        self.w = w
        for b in self.order:  # the shift form of growth must agree with hexgrid's tables
            assert self.grow(1 << b) == self.nb[b] | 1 << b

    def grow(self, s: int) -> int:
        """``s`` and every on-board neighbour of it."""
        w = self.w
        return (s | s << 1 | s >> 1 | s << w | s >> w | s << (w - 1) | s >> (w - 1)) & self.on

    def flood(self, seed: int, within: int) -> int:
        """The cells of ``within`` connected to ``seed`` (a subset of ``within``)."""
        comp = seed
        while True:
            nxt = self.grow(comp) & within
            if nxt == comp:
                return comp
            comp = nxt

    def components(self, s: int) -> list[int]:
        """The connected components of ``s``, by lowest cell."""
        out = []
        while s:
            comp = self.flood(s & -s, s)
            out.append(comp)
            s ^= comp
        return out

    def connected(self, s: int) -> bool:
        """Whether ``s`` is non-empty and connected."""
        return s != 0 and self.flood(s & -s, s) == s

    def splits(self, s: int) -> bool:
        """Whether ``s`` has two or more components."""
        return s != 0 and self.flood(s & -s, s) != s

    def parse(self, name: str) -> int:
        """The bit of the cell named ``name``."""
        return self.order[self.board.parse_index(name)]

    def checked_name(self, name: str, text: str) -> str:
        """``name`` if it names a cell, else InvalidMoveError quoting the whole move text."""
        if not _CELL.fullmatch(name) or name not in self.by_name:
            raise InvalidMoveError(f"{text!r}: {name!r} is not a cell of a side-{self.n} board")
        return name


@cache
def _geo(n: int) -> _Geo:
    return _Geo(n)


def _bits(s: int) -> Iterator[int]:
    """The set bits of ``s``, lowest first."""
    while s:
        low = s & -s
        yield low.bit_length() - 1
        s ^= low


def _mask(cells: Iterable[int]) -> int:
    out = 0
    for c in cells:
        out |= 1 << c
    return out


def _names(geo: _Geo, cells: Iterable[int]) -> tuple[str, ...]:
    return tuple(geo.names[c] for c in cells)


def _sides(state: State) -> tuple[int, int]:
    """(the mover's stones, the enemy's stones)."""
    if state.colour == BLACK:
        return state.black, state.white
    return state.white, state.black


# --- rules on bitsets -----------------------------------------------------------------------------


def _group_contacts(geo: _Geo, own: int, cells: int) -> list[int]:
    """For each friendly group, the cells of ``cells`` next to it."""
    return [a & cells for a in _group_rims(geo, own)]


@lru_cache(maxsize=65536)
def _group_rims(geo: _Geo, own: int) -> tuple[int, ...]:
    """For each friendly group, every cell next to it (the searches ask again and again)."""
    return tuple(geo.grow(g) & ~g for g in geo.components(own))


def _multi_touch(contacts: list[int]) -> int:
    """Cells that appear in two or more of the contact sets (they touch two friendly groups)."""
    once = twice = 0
    for a in contacts:
        twice |= once & a
        once |= a
    return twice


def _merging_cells(geo: _Geo, own: int, cells: int) -> int:
    """The cells of ``cells`` touching two or more friendly groups: merging placements [1]."""
    return _multi_touch(_group_contacts(geo, own, cells))


def _touch(geo: _Geo, own: int, cell: int) -> int:
    """The number of distinct friendly groups next to ``cell``."""
    near = geo.nb[cell] & own
    count = 0
    while near:
        count += 1
        near &= ~geo.flood(near & -near, own)
    return count


@lru_cache(maxsize=2048)
def _big_groups(geo: _Geo, enemy: int) -> list[int]:
    """Enemy groups that can be split (three stones or more)."""
    return [g for g in geo.components(enemy) if g.bit_count() >= 3]


@lru_cache(maxsize=2048)
def _lines(geo: _Geo, enemy: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every legal standard capture as (removal order, cell set), both directions of a line included,
    sorted so that the first entry of each set is its canonical order (lowest first cell) [2] [3]."""
    out: list[tuple[tuple[int, ...], int]] = []
    for group in _big_groups(geo, enemy):
        for c1 in _bits(group):
            rest = group & ~(1 << c1)
            if geo.splits(rest):  # a single stone that splits: one capture, whatever the direction
                out.append(((c1,), 1 << c1))
                continue
            for d in range(6):
                line = [c1]
                left = rest
                cell = geo.step[c1][d]
                while cell >= 0 and (left >> cell) & 1:
                    line.append(cell)
                    left &= ~(1 << cell)
                    if not left:
                        break  # [4] removing the whole group is not a split
                    if geo.splits(left):
                        out.append((tuple(line), group & ~left))
                        break
                    cell = geo.step[cell][d]
    out.sort()
    return tuple(out)


def _is_line(geo: _Geo, cap: Sequence[int]) -> bool:
    """Whether ``cap`` is consecutive along one fixed direction [2]."""
    if len(cap) == 1:
        return True
    for d in range(6):
        if geo.step[cap[0]][d] == cap[1]:
            return all(geo.step[a][d] == b for a, b in itertools.pairwise(cap))
    return False


def _removal_ok(geo: _Geo, group: int, order: Sequence[int]) -> bool:
    """Every removal but the last leaves ``group`` connected, and the last splits it [3] [4] [14]."""
    rest = group
    for i, c in enumerate(order):
        rest &= ~(1 << c)
        if i < len(order) - 1 and not geo.connected(rest):
            return False
    return geo.splits(rest)


def _after_capture(geo: _Geo, own: int, enemy: int, p: int, cap: int) -> tuple[int, int]:
    """(friendly stones, empty cells) of B2: after the placement and the removal."""
    own2 = own | 1 << p
    return own2, geo.on & ~own2 & ~(enemy & ~cap)


@lru_cache(maxsize=65536)
def _feasible(geo: _Geo, own: int, enemy: int, p: int, cap: int) -> bool:
    """Whether the capture ``cap`` after placing ``p`` has a legal re-placement [9]."""
    own2, empty2 = _after_capture(geo, own, enemy, p, cap)
    return _can_replace(geo, own2, empty2, cap.bit_count())


# --- dense captures -------------------------------------------------------------------------------


def _dense_ok(geo: _Geo, group: int, r: int) -> bool:
    """split_set_ok of section 3 for a connected ``r``: the rest splits, and some stone of ``r`` can
    be removed last (with the others removed first, the group stays connected) [14]."""
    rest = group & ~r
    if not geo.splits(rest):
        return False
    return any(geo.connected(rest | 1 << c) for c in _bits(r))


def _dense_order(geo: _Geo, group: int, r: int) -> tuple[int, ...]:
    """The canonical removal order of section 9: the lowest valid last stone at the end, before it
    the greedy order (lowest stone whose removal keeps the group connected)."""
    rest = group & ~r
    last = next(c for c in _bits(r) if geo.connected(rest | 1 << c))
    order = []
    current = group
    left = r & ~(1 << last)
    while left:
        c = next(c for c in _bits(left) if geo.connected(current & ~(1 << c)))
        order.append(c)
        current &= ~(1 << c)
        left &= ~(1 << c)
    return (*order, last)


def _dense_room(geo: _Geo, own2: int, enemy: int) -> tuple[int, int]:
    """(cells touching two friendly groups, how many old empty cells could take a stone).

    A capture must re-place all its k stones on the k vacated cells and the old empty cells. Its
    stones standing next to two friendly groups can never take one, so a capture holding more of them
    than ``room`` is infeasible, and so is every larger set containing it: the enumerations prune it.
    """
    bad = _multi_touch(_group_contacts(geo, own2, geo.on & ~own2))
    empty1 = geo.on & ~own2 & ~enemy
    return bad, (empty1 & ~bad).bit_count()


def _dense_capture_ok(geo: _Geo, own2: int, enemy: int, group: int, r: int) -> bool:
    """A legal dense capture ``r`` (connected by construction) with a feasible re-placement [9]."""
    empty1 = geo.on & ~own2 & ~enemy
    return _dense_ok(geo, group, r) and _can_replace(geo, own2, empty1 | r, r.bit_count())


def _dense_sets(geo: _Geo, own: int, enemy: int, p: int, group: int) -> Iterator[int]:
    """Every legal dense capture in ``group`` with a feasible re-placement, for the placement ``p``,
    each once: by size, then as connected sets grow depth first from their lowest cell (small
    captures come first, so a caller taking a few moves never waits for the large ones)."""
    own2 = own | 1 << p
    bad, room = _dense_room(geo, own2, enemy)
    for size in range(1, group.bit_count() - 1):
        found = False
        for seed in _bits(group):
            below = group & ((1 << seed) - 1)
            for r in _connected_sets(geo, group, 1 << seed, below, 0, bad, room, size):
                if r.bit_count() == size:
                    found = True
                    if _dense_capture_ok(geo, own2, enemy, group, r):
                        yield r
        if not found:
            return  # no connected set of this size survives the pruning, so none larger does


def _dense_find(
    geo: _Geo,
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
    bad, room = _dense_room(geo, own2, enemy)
    size = group.bit_count()
    done, limit = 0, 1
    while True:
        for seed in seeds:
            below = group & ((1 << seed) - 1) if rng is None and not must else 0
            for r in _connected_sets(geo, group, 1 << seed, below, must, bad, room, limit, rng):
                if r.bit_count() <= done or must & ~r:
                    continue
                if must and not any(geo.connected(group & ~r | 1 << c) for c in _bits(r & ~must)):
                    continue
                if _dense_capture_ok(geo, own2, enemy, group, r):
                    return r
        if limit >= size:
            return 0
        done, limit = limit, limit * 2


def _connected_sets(
    geo: _Geo,
    within: int,
    s: int,
    excluded: int,
    must: int,
    bad: int,
    room: int,
    limit: int,
    rng: random.Random | None = None,
) -> Iterator[int]:
    """Every connected set of ``within`` containing ``s``, avoiding ``excluded`` and of at most
    ``limit`` cells, each once; a branch ends when it can no longer contain ``must`` or holds more
    than ``room`` ``bad`` cells (supersets only hold more)."""
    if excluded & must or (s & bad).bit_count() > room or s == within or s.bit_count() > limit:
        return
    yield s
    ext = list(_bits(geo.grow(s) & within & ~s & ~excluded))
    if rng is not None:
        rng.shuffle(ext)
    for v in ext:
        yield from _connected_sets(geo, within, s | 1 << v, excluded, must, bad, room, limit, rng)
        excluded |= 1 << v


@lru_cache(maxsize=65536)
def _dense_completion(
    geo: _Geo, own: int, enemy: int, p: int, group: int, done: int, x: int
) -> bool:
    """Whether, with ``done`` removed (the group still connected), removing ``x`` next can lead to a
    legal dense capture whose re-placement exists [14]."""
    q = done | 1 << x
    rest = group & ~q
    if not rest:
        return False  # [4] removing the whole group is not a split
    if geo.splits(rest):  # x is the last stone: the set so far is the capture
        own2 = own | 1 << p
        empty1 = geo.on & ~own2 & ~enemy
        return geo.connected(q) and _can_replace(geo, own2, empty1 | q, q.bit_count())
    return _dense_find(geo, own, enemy, p, group, (x,), q) != 0


# --- re-placement: existence, listing, counting ---------------------------------------------------


def _can_replace(geo: _Geo, own: int, empty: int, k: int, forced: int = 0) -> bool:
    """exists_replace of section 3: some k-set S of ``empty`` (containing ``forced``) in which every
    component of own + S holds at most one friendly group of ``own`` [8].

    Cells next to two groups never belong to S. The other candidates fall into components; a
    component next to at most one group can be taken whole, one next to several needs a vertex cut
    that separates them, found by branching on a conflict path (exact, small in practice).
    """
    return _can_replace_near(geo, _group_contacts(geo, own, empty), empty, k, forced)


def _can_replace_near(geo: _Geo, contacts: list[int], empty: int, k: int, forced: int = 0) -> bool:
    """:func:`_can_replace` with each friendly group given by its contact cells in ``empty``."""
    cand = empty & ~_multi_touch(contacts)
    if forced and (
        forced & ~cand
        or any(sum(1 for a in contacts if a & part) > 1 for part in geo.components(forced))
    ):
        return False  # the forced cells alone already join two groups
    if k <= forced.bit_count():
        return True
    if cand.bit_count() < k:
        return False
    lb = _greedy_set(geo, cand, contacts)
    if lb.bit_count() >= k and not forced & ~lb:
        return True
    if _greedy_grow(geo, cand, contacts, forced) >= k:
        return True
    total = 0
    mixed: list[tuple[int, list[int]]] = []
    for comp in geo.components(cand):
        terms = [a & comp for a in contacts if a & comp]
        if len(terms) <= 1:
            total += comp.bit_count()
        else:
            mixed.append((comp, terms))
    if total >= k:
        return True
    bounds = []
    for comp, terms in mixed:
        packed = _packing(geo, comp, terms, forced)
        if packed is None:
            return False  # the forced cells already join two groups
        bounds.append(comp.bit_count() - packed)
    if total + sum(bounds) < k:
        return False
    if len(mixed) == 1:  # one search with the exact budget, not a search for the least cut
        comp, terms = mixed[0]
        budget = comp.bit_count() - (k - total)
        return _cut_within(geo, comp, terms, forced & comp, budget, {})
    for (comp, terms), upper in zip(mixed, bounds, strict=True):
        cut = _min_cut(geo, comp, terms, forced & comp, comp.bit_count() - upper)
        if cut is None:
            return False
        total += comp.bit_count() - cut
        if total >= k:
            return True
    return False


def _greedy_set(geo: _Geo, cand: int, contacts: list[int]) -> int:
    """A valid re-placement set, quickly: the cells next to one group only and not next to another
    group's such cells, plus the cells next to no group and next to none of those."""
    near = [a & cand for a in contacts]
    touching = 0
    for a in near:
        touching |= a
    # a contact cell of group j next to a contact cell of group i lies in two grown sets
    chosen = touching & ~_multi_touch([geo.grow(a) & touching for a in near])
    loose = cand & ~touching & ~geo.grow(chosen)
    return chosen | loose


def _greedy_grow(geo: _Geo, cand: int, contacts: list[int], forced: int) -> int:
    """The size of a valid set grown from ``forced`` by adding, in index order, each candidate whose
    part of the set would still touch at most one group (the forced cells are assumed valid)."""
    chosen = forced
    for c in _bits(cand & ~forced):
        trial = chosen | 1 << c
        part = geo.flood(1 << c, trial)
        if sum(1 for a in contacts if a & part) <= 1:
            chosen = trial
    return chosen.bit_count()


def _conflict_path(geo: _Geo, comp: int, terms: list[int]) -> int:
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
            nxt = geo.grow(layers[-1]) & comp & ~seen
            if not nxt:
                break
            layers.append(nxt)
            seen |= nxt
        else:
            hit = layers[-1] & others
            cell = (hit & -hit).bit_length() - 1
            path = 1 << cell
            for layer in reversed(layers[:-1]):
                near = geo.nb[cell] & layer
                cell = (near & -near).bit_length() - 1
                path |= 1 << cell
            return path
    return 0


def _packing(geo: _Geo, comp: int, terms: list[int], forced: int) -> int | None:
    """A lower bound on the cut: conflict paths disjoint in their cuttable cells (None: no cut)."""
    count = 0
    while path := _conflict_path(geo, comp, terms):
        cuttable = path & ~forced
        if not cuttable:
            return None
        count += 1
        comp &= ~cuttable
    return count


def _min_cut(geo: _Geo, comp: int, terms: list[int], forced: int, start: int) -> int | None:
    """The fewest unforced cells to drop from ``comp`` so that no part touches two groups."""
    memo: dict[int, int] = {}
    for budget in range(start, comp.bit_count() + 1):
        if _cut_within(geo, comp, terms, forced, budget, memo):
            return budget
    return None


def _cut_within(
    geo: _Geo, comp: int, terms: list[int], forced: int, budget: int, memo: dict[int, int]
) -> bool:
    path = _conflict_path(geo, comp, terms)
    if not path:
        return True
    if budget == 0 or memo.get(comp, -1) >= budget:
        return False
    packed = _packing(geo, comp, terms, forced)
    if packed is not None and packed <= budget:
        for y in _bits(path & ~forced):
            if _cut_within(geo, comp & ~(1 << y), terms, forced, budget - 1, memo):
                return True
    memo[comp] = budget
    return False


@lru_cache(maxsize=16384)
def _replace_options(geo: _Geo, own: int, empty: int, left: int) -> tuple[int, ...]:
    """The cells where the next re-placed stone may go: touching at most one group now [6], with the
    remaining stones still placeable afterwards."""
    contacts = _group_contacts(geo, own, empty)
    quiet = empty & ~_multi_touch(contacts)
    return tuple(s for s in _bits(quiet) if _can_replace_after(geo, contacts, empty, s, left - 1))


def _contacts_after(geo: _Geo, contacts: list[int], empty: int, s: int) -> list[int]:
    """The group contacts after a stone at ``s`` (touching at most one group), updated in place of
    recomputed: that group gains the empty cells around ``s``, or ``s`` starts a group of its own."""
    bit = 1 << s
    around = geo.nb[s] & empty & ~bit
    after = [a & ~bit for a in contacts]
    for i, a in enumerate(contacts):
        if a & bit:
            after[i] |= around
            return after
    after.append(around)
    return after


def _can_replace_after(geo: _Geo, contacts: list[int], empty: int, s: int, k: int) -> bool:
    """Whether ``k`` more stones fit after a stone at ``s`` (touching at most one group)."""
    return _can_replace_near(geo, _contacts_after(geo, contacts, empty, s), empty & ~(1 << s), k)


def _replacement_sets(geo: _Geo, own: int, empty: int, k: int) -> Iterator[int]:
    """Every legal re-placement set, lazily, in lexicographic order of sorted cells; a branch is
    entered only when a completion exists, so the delay between two sets stays small."""
    cand = empty & ~_merging_cells(geo, own, empty)
    cells = list(_bits(cand))

    def walk(i: int, chosen: int, count: int) -> Iterator[int]:
        if count == k:
            yield chosen
            return
        if len(cells) - i < k - count:
            return
        later = _mask(cells[i + 1 :])
        with_c = chosen | 1 << cells[i]
        if _can_replace(geo, own, with_c | later, k, with_c):
            yield from walk(i + 1, with_c, count + 1)
        if _can_replace(geo, own, chosen | later, k, chosen):
            yield from walk(i + 1, chosen, count)

    if _can_replace(geo, own, cand, k):
        yield from walk(0, 0, 0)


def _count_sets(geo: _Geo, own: int, empty: int, k: int) -> int:
    """The number of legal re-placement sets: per component of candidate cells, the number of valid
    subsets of each size (binomials where the component touches one group), combined."""
    contacts = _group_contacts(geo, own, empty)
    cand = empty & ~_multi_touch(contacts)
    ways = [1] + [0] * k
    for comp in geo.components(cand):
        terms = [a & comp for a in contacts if a & comp]
        if len(terms) <= 1:
            size = comp.bit_count()
            here = [math.comb(size, j) for j in range(k + 1)]
        else:
            here = _count_mixed(geo, comp, terms, k)
        ways = [sum(ways[a] * here[j - a] for a in range(j + 1)) for j in range(k + 1)]
    return ways[k]


def _count_mixed(geo: _Geo, comp: int, terms: list[int], k: int) -> list[int]:
    """Valid subsets of ``comp`` by size up to ``k``, by depth-first enumeration."""
    cells = list(_bits(comp))
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


def _canonical_s(geo: _Geo, own: int, s: int) -> tuple[int, ...]:
    """Section 3's canonical placement order: the lowest remaining cell touching a friendly stone,
    else the lowest remaining cell."""
    order = []
    while s:
        near = s & geo.grow(own) & ~own
        pick = near if near else s
        c = (pick & -pick).bit_length() - 1
        order.append(c)
        own |= 1 << c
        s &= ~(1 << c)
    return tuple(order)


def _random_replacement(geo: _Geo, own: int, empty: int, k: int, rng: random.Random) -> list[int]:
    """Re-placement cells chosen at random, one by one, each keeping a completion possible."""
    placed = []
    for left in range(k, 0, -1):
        quiet = list(_bits(empty & ~_merging_cells(geo, own, empty)))
        rng.shuffle(quiet)
        s = next(c for c in quiet if _can_replace(geo, own | 1 << c, empty & ~(1 << c), left - 1))
        placed.append(s)
        own |= 1 << s
        empty &= ~(1 << s)
    return placed
