"""Sgolte's ``Rules``: the game's API over the searches of :mod:`.search` (see the package
docstring for the rules summary, the move order and the readings)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar

from ..base import Option, Outcome, Steps
from ..base import Rules as BaseRules
from ..bitboard import bits, mask
from ..errors import IllegalMoveError, InvalidMoveError
from ..pie import (
    CHOOSE,
    OVER,
    PLAY,
    SETUP,
    black_seat_after,
    format_choice,
    parse_choice,
    to_move,
    view_colours,
)
from ..seats import BLACK, COLOURS, NO_SEAT, WHITE, other, seat_of
from ..symmetry import ALL, Transform, bits_cells, fold_cells, move_image
from ..view import CellView, EffectRow, Effects, View, make_view, row_labels
from .capture import Capture, after_capture, is_line, removal_ok
from .geometry import merging_cells, touch
from .notation import canonical, read_move, write_move
from .replace import canonical_order, count_sets, random_replacement, replacement_sets
from .search import Search
from .state import DENSE, STANDARD, Choice, Key, Move, State, sides
from .steps import steps

#: Seat 2's answers to the setup stone, in ``games.pie.CHOICES`` order.
_CHOICE_MOVES = (Move(choice=BLACK), Move(choice=WHITE))


class Rules(BaseRules[State, Move]):
    """Sgolte's rules for one board side and variant."""

    slug: ClassVar[str] = "sgolte"
    title: ClassVar[str] = "Sgolte"
    summary: ClassVar[str] = (
        "Place stones; a merge must split an enemy group and rebuild what it took. "
        "Whoever cannot place loses."
    )
    notation: ClassVar[tuple[str, ...]] = ("b3", "f6xi1:b1", "d6xg6,g7:e2,h9", "white")
    symmetries: ClassVar[tuple[Transform, ...]] = ALL  # games.symmetry
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
        self.dense = variant == DENSE
        #: the searches, with this Rules' own bounded caches (see :mod:`.search`)
        self.search = Search(size, self.dense)
        self.geo = self.search.geo
        self._board_cells = range(len(self.geo.names))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its options (for worker processes): the caches start empty on the other side,
        as ``lru_cache`` wrappers cannot be pickled."""
        return (partial(type(self), **self._options), ())

    # --- positions ----------------------------------------------------------------------------

    def initial_state(self) -> State:
        """The empty board, seat 1 to place the setup stone."""
        return State(stones=(0, 0), phase=SETUP, colour=BLACK, black_seat=NO_SEAT, ply=0)

    def position(
        self,
        black: Iterable[str] = (),
        white: Iterable[str] = (),
        to_move: str = "black",
        black_seat: int = 1,
    ) -> State:
        """A play-phase position built directly from cell names (for tests, puzzles and analysis)."""
        geo = self.geo
        b = mask(geo.parse(name) for name in black)
        w = mask(geo.parse(name) for name in white)
        if b & w:
            raise ValueError("a cell cannot hold both colours")
        colour = BLACK if to_move == COLOURS[BLACK] else WHITE
        own, enemy = (b, w) if colour == BLACK else (w, b)
        phase = PLAY if self.search.has_turn(own, enemy) else OVER
        return State(stones=(b, w), phase=phase, colour=colour, black_seat=black_seat, ply=0)

    def to_move(self, state: State) -> int | None:
        """The seat to move (``games.pie``): the game's end is the phase ``OVER`` that ``apply``
        sets, so there is no extra end condition to check first."""
        return to_move(state.phase, state.colour, state.black_seat)

    def outcome(self, state: State) -> Outcome | None:
        """The player to move with no legal turn loses (decision 12); no draws, no scores."""
        if state.phase != OVER:
            return None
        winner = other(state.colour)
        return Outcome(
            winner=seat_of(winner, state.black_seat),
            reason="no-moves",
            colour=COLOURS[winner],
            details={"loser": COLOURS[state.colour]},
        )

    def position_key(self, state: State) -> str:
        """The explorer's key, folded over all 12 symmetries (no rule ranks the directions; the
        index order of the canonical notation orders a move's text, not its effect): stones,
        phase, colour to move and the seat holding Black (the pie's choice: same stones, another
        seat to move); not the ply."""
        size = self.geo.n
        cells = bits_cells(size, state.stones, "bw")
        extra = f"{state.phase}:{state.colour}:{state.black_seat}"
        return fold_cells(size, cells, extra, self.symmetries)

    def move_image(self, text: str, t: Transform) -> str:
        """``text`` with its cells mapped by ``t``."""
        return move_image(self.geo.n, text, t)

    def key(self, state: State) -> Key:
        """The position without the display-only last-move fields and the ply count."""
        return Key(
            stones=state.stones,
            phase=state.phase,
            colour=state.colour,
            black_seat=state.black_seat,
        )

    # --- moves --------------------------------------------------------------------------------

    def legal_moves(self, state: State) -> Iterator[Move]:
        """Every legal move, lazily, in the order the package docstring documents."""
        if state.phase == SETUP:
            return (Move(place=name) for name in self.geo.names)
        if state.phase == CHOOSE:
            return iter(_CHOICE_MOVES)
        if state.phase != PLAY:
            return iter(())
        return self._play_moves(state)

    def _play_moves(self, state: State) -> Iterator[Move]:
        geo = self.geo
        own, enemy = sides(state)
        for p, cap in self.search.placements(own, enemy):
            if cap is None:
                yield Move(place=geo.names[p])
                continue
            own2, empty2 = after_capture(geo, own, enemy, p, cap.cells)
            capture = geo.names_of(cap.order)
            for s in replacement_sets(geo, own2, empty2, len(cap.order)):
                placed = geo.names_of(canonical_order(geo, own2, s))
                yield Move(place=geo.names[p], capture=capture, replace=placed)

    def choices(self, state: State) -> Iterator[Choice]:
        """The distinct placement-and-capture choices: ``(cell, ())`` for a quiet placement, else
        ``(cell, capture in canonical removal order)`` for each capture whose re-placement exists."""
        if state.phase != PLAY:
            return
        geo = self.geo
        for p, cap in self.search.placements(*sides(state)):
            yield Choice(place=geo.names[p], capture=() if cap is None else geo.names_of(cap.order))

    def count_moves(self, state: State) -> int:
        """The number of legal moves, counting re-placement sets without listing them."""
        if state.phase == SETUP:
            return len(self.geo.names)
        if state.phase == CHOOSE:
            return 2
        if state.phase != PLAY:
            return 0
        geo = self.geo
        own, enemy = sides(state)
        total = 0
        for p, cap in self.search.placements(own, enemy):
            if cap is None:
                total += 1
            else:
                own2, empty2 = after_capture(geo, own, enemy, p, cap.cells)
                total += count_sets(geo, own2, empty2, len(cap.order))
        return total

    def format_move(self, state: State, move: Move) -> str:
        """The canonical text: ``e5``, ``black``, ``b4`` or ``c6xc2,d3,e4:c2,d3,e4`` (section 9)."""
        return write_move(self.geo, self.dense, state, move)

    def parse_move(self, state: State, text: str) -> Move:
        """Read any legal writing of a move (spaces around ``x``, ``:`` and commas allowed)."""
        if not isinstance(text, str):
            raise InvalidMoveError("A move must be text, like b4")
        choice = parse_choice(text)
        if choice is not None:
            self.check_over(state)
            if state.phase != CHOOSE:
                raise IllegalMoveError("A colour is chosen only after the first stone", rule="5")
            return Move(choice=choice)
        move = read_move(self.geo, text)
        self.check_over(state)
        if state.phase == CHOOSE:
            raise IllegalMoveError("Choose black or white now", rule="5")
        self._check(state, move, text)
        if move.capture:
            return canonical(self.geo, self.dense, state, move)
        return move

    def _check(self, state: State, move: Move, text: str) -> None:
        """Raise IllegalMoveError unless ``move`` is legal in ``state``, in the order it is written."""
        geo = self.geo
        if state.phase == SETUP:
            if move.choice is not None or move.capture or move.replace:
                raise IllegalMoveError("The first move is one black stone, like e5", rule="5")
            return
        if move.choice is not None or move.place is None:
            raise IllegalMoveError("The colours are already chosen: place a stone", rule="5")
        own, enemy = sides(state)
        p = geo.parse(move.place)
        empty = geo.all & ~own & ~enemy
        if not (empty >> p) & 1:
            raise IllegalMoveError(f"{move.place} is occupied", rule="4")
        merging = (merging_cells(geo, own, 1 << p) >> p) & 1
        if not move.capture:
            if move.replace:
                raise IllegalMoveError("Only captured stones are re-placed", rule="4")
            if merging:  # [10] a merge without a capture is illegal
                raise IllegalMoveError(
                    f"{move.place} joins your groups, so it must capture", rule="7.10"
                )
            return
        if not merging:  # [11] a quiet placement never captures
            raise IllegalMoveError(
                f"{move.place} joins no groups, so it captures nothing", rule="7.11"
            )
        cap = [geo.parse(c) for c in move.capture]
        rep = [geo.parse(c) for c in move.replace]
        if len(set(cap)) != len(cap) or len(set(rep)) != len(rep):
            raise IllegalMoveError("A cell is named twice", rule="9")
        if len(cap) != len(rep):
            raise IllegalMoveError(f"{len(cap)} stones captured but {len(rep)} re-placed", rule="4")
        if any(not (enemy >> c) & 1 for c in cap):
            raise IllegalMoveError("Only enemy stones can be captured", rule="4")
        group = geo.flood(1 << cap[0], enemy)
        cells = mask(cap)
        if cells & ~group:  # [5] the capture lies in one group
            raise IllegalMoveError("The captured stones must be in one enemy group", rule="7.5")
        if not self.dense and not is_line(geo, cap):  # [2] consecutive in one direction
            raise IllegalMoveError(
                "A capture is a straight line of stones side by side", rule="7.2"
            )
        if self.dense and not geo.connected(cells):  # [14] the set is connected as a whole
            raise IllegalMoveError("The captured stones must touch each other", rule="7.14")
        if not removal_ok(geo, group, cap):  # [3] [4] only the last removal splits
            raise IllegalMoveError(
                "Only the last stone taken may split the enemy group", rule="7.3"
            )
        own2, empty2 = after_capture(geo, own, enemy, p, cells)
        for s, name in zip(rep, move.replace, strict=True):  # [7] [8] one by one, any empty cell
            if not (empty2 >> s) & 1:
                raise IllegalMoveError(f"{name} is occupied when it is re-placed", rule="7.8")
            if touch(geo, own2, s) > 1:  # [6] at most one friendly group at its moment
                raise IllegalMoveError(
                    f"A stone re-placed on {name} would join your groups", rule="7.6"
                )
            own2 |= 1 << s
            empty2 &= ~(1 << s)

    def apply(self, state: State, move: Move) -> State:
        """The position after ``move``, with the game-over flag set by an existence search."""
        self.check_over(state)
        geo = self.geo
        ply = state.ply + 1
        if state.phase == CHOOSE:
            if move.choice not in (BLACK, WHITE):
                raise IllegalMoveError("Choose black or white now", rule="5")
            # [13] the setup stone was Black's first move: White moves next
            return replace(
                state,
                phase=PLAY,
                colour=WHITE,
                black_seat=black_seat_after(move.choice),
                ply=ply,
                last_text=format_choice(move.choice),
                last_cells=(),
            )
        text = self.format_move(state, move)
        self._check(state, move, text)
        assert move.place is not None
        p = geo.parse(move.place)
        if state.phase == SETUP:
            return replace(
                state,
                stones=(1 << p, 0),
                phase=CHOOSE,
                ply=ply,
                last_text=text,
                last_cells=(move.place,),
            )
        own, enemy = sides(state)
        # the groups of both colours follow from those before the move
        own = geo.grow(own, (p, *(geo.parse(c) for c in move.replace)))
        enemy = geo.shrink(enemy, mask(geo.parse(c) for c in move.capture))
        phase = PLAY if self.search.has_turn(enemy, own) else OVER
        return State(
            stones=(own, enemy) if state.colour == BLACK else (enemy, own),
            phase=phase,
            colour=WHITE if state.colour == BLACK else BLACK,
            black_seat=state.black_seat,
            ply=ply,
            last_text=text,
            last_cells=tuple(dict.fromkeys((move.place, *move.capture, *move.replace))),
        )

    def search_apply(self, state: State, move: Move) -> State:
        """The position after a legal ``move``, unchecked and without its text."""
        if state.phase != PLAY:
            return self.apply(state, move)
        geo = self.geo
        assert move.place is not None
        by_name = geo.by_name
        own, enemy = sides(state)
        # the groups of both colours follow from those before the move
        own = geo.grow(own, (by_name[move.place], *(by_name[c] for c in move.replace)))
        if move.capture:
            enemy = geo.shrink(enemy, mask(by_name[c] for c in move.capture))
        return State(
            stones=(own, enemy) if state.colour == BLACK else (enemy, own),
            phase=PLAY if self.search.has_turn(enemy, own) else OVER,
            colour=WHITE if state.colour == BLACK else BLACK,
            black_seat=state.black_seat,
            ply=state.ply + 1,
        )

    def move_tokens(self, state: State, move: Move) -> tuple[str, ...]:
        """Clicks: the placement, each captured stone in removal order, each re-placed stone."""
        if move.choice is not None:
            return (format_choice(move.choice),)
        assert move.place is not None
        return (move.place, *move.capture, *move.replace)

    def random_move(self, state: State, rng: random.Random) -> Move:
        """A random legal move: a uniformly random legal placement, then a random feasible capture,
        then random re-placements that keep a completion possible (never listing all moves)."""
        return self._draw(state, rng, listing=True)

    def search_random_move(self, state: State, rng: random.Random) -> Move:
        """``random_move``'s distribution, drawn more cheaply: the placement by drawing cells
        among those not yet refused rather than shuffling them all, a standard capture without
        listing the captures of its placement (:meth:`.search.Search.random_capture`)."""
        return self._draw(state, rng, listing=False)

    def _draw(self, state: State, rng: random.Random, listing: bool) -> Move:
        self.check_over(state)
        geo = self.geo
        if state.phase == SETUP:
            return Move(place=rng.choice(geo.names))
        if state.phase == CHOOSE:
            return rng.choice(_CHOICE_MOVES)
        own, enemy = sides(state)
        empty = geo.all & ~own & ~enemy
        merging = merging_cells(geo, own, empty)
        if listing:  # the draws random_move has always made: seeded games stay the same
            cells = list(bits(empty))
            rng.shuffle(cells)
            for p in cells:
                if not (merging >> p) & 1:
                    return Move(place=geo.names[p])
                caps = self.search.random_captures(own, enemy, p, rng)
                if caps:
                    return self._with_capture(own, enemy, p, rng.choice(caps), rng, True)
        else:
            # a cell uniformly among those not yet refused, until one is a legal placement: the
            # same distribution as the first legal one of a shuffle, without shuffling them all
            left = empty
            while left:
                p = self._pick(left, rng)
                if not (merging >> p) & 1:
                    return Move(place=geo.names[p])
                left &= ~(1 << p)
                found = self.search.random_capture(own, enemy, p, rng)
                if found is not None:
                    return self._with_capture(own, enemy, p, found, rng, False)
        raise IllegalMoveError("No legal move")  # unreachable: the phase says a turn exists

    def _pick(self, cells: int, rng: random.Random) -> int:
        """A cell of ``cells`` (not empty), uniformly: by drawing board cells until one is in it
        while it holds a quarter of the board or more, else from the list of its cells."""
        board = self._board_cells
        if cells.bit_count() * 4 >= len(board):
            while True:
                p = rng.choice(board)
                if (cells >> p) & 1:
                    return p
        return rng.choice(list(bits(cells)))

    def _with_capture(
        self, own: int, enemy: int, p: int, cap: Capture, rng: random.Random, shuffle: bool
    ) -> Move:
        """The merging placement ``p`` with ``cap`` and random re-placements (``shuffle``: drawn
        as ``random_move`` always has, see :func:`.replace.random_replacement`)."""
        geo = self.geo
        own2, empty2 = after_capture(geo, own, enemy, p, cap.cells)
        placed = random_replacement(geo, own2, empty2, len(cap.order), rng, shuffle)
        return Move(
            place=geo.names[p],
            capture=geo.names_of(cap.order),
            replace=geo.names_of(canonical_order(geo, own2, mask(placed))),
        )

    def bench_legal(self, state: State) -> int:
        """The server's per-position work, re-placement sets decided by existence and never listed:
        standard, every placement-and-capture choice; dense, every legal placement (the first clicks
        that ``steps`` offers). Returns their number."""
        if state.phase != PLAY:
            return sum(1 for _ in self.legal_moves(state))
        own, enemy = sides(state)
        if self.dense:
            return sum(1 for _ in self.search.starts(own, enemy))
        return sum(1 for _ in self.search.placements(own, enemy))

    def steps(self, state: State, prefix: Sequence[str]) -> Steps:
        """Legal next clicks; each is offered only while a legal completion exists (section 4)."""
        return steps(self.search, state, tuple(prefix))

    # --- view ---------------------------------------------------------------------------------

    def view(self, state: State) -> View:
        """Cells and stones, whose turn, seat colours, stone counts and the last move's cells."""
        geo = self.geo
        cells: list[CellView] = []
        stones = state.stones
        for i, ((q, r), name) in enumerate(zip(geo.board.cells, geo.names, strict=True)):
            stack = [COLOURS[c] for c in (BLACK, WHITE) if (stones[c] >> i) & 1]
            cells.append({"id": name, "q": q, "r": r, "stack": stack})
        counters = [
            {
                "label": f"{COLOURS[c].capitalize()} stones",
                "value": stones[c].bit_count(),
                "seat": seat_of(c, state.black_seat),
            }
            for c in (BLACK, WHITE)
        ]
        last = None if state.last_text is None else (state.last_text, state.last_cells)
        # no ``extra``: the browser reads nothing game-specific of Sgolte's view (the variant is
        # among the game's options, the colour to move follows from ``to_move`` and ``colours``)
        return make_view(
            game=self.slug,
            kind="hex",
            side=geo.n,
            cells=cells,
            rows=row_labels(geo.board),
            to_move=self.to_move(state),
            colours=view_colours(state.black_seat),
            phase=state.phase,
            last_move=last,
            counters=counters,
            outcome=self.outcome(state),
            effects=self._last_effects(state),
        )

    def _last_effects(self, state: State) -> tuple[EffectRow, ...]:
        """What the last move did: the placed stone, each captured stone gone and each re-placed
        stone put down (a re-placement may fill a cell just captured [7]: both, height unchanged)."""
        if not state.last_cells or state.last_text is None:
            return ()  # the choice
        move = read_move(self.geo, state.last_text)
        assert move.place is not None
        effects = Effects().add(move.place, "placed", +1)
        for c in move.capture:
            effects.add(c, "captured", -1)
        for c in move.replace:
            effects.add(c, "replaced", +1)
        return effects.rows()
