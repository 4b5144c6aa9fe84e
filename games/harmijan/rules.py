"""Harmijan's ``Rules``: the game's API over the turn generation of :mod:`.turns` (see the package
docstring for the rules summary and the readings)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache, partial
from typing import Any, ClassVar

from ..base import Option, Outcome, Steps
from ..base import Rules as BaseRules
from ..bitboard import bitboard, mask
from ..errors import IllegalMoveError
from ..hexgrid import Hex, HexBoard, canonical_shape, hex_board
from ..pie import (
    CHOICES,
    CHOOSE,
    OVER,
    PLAY,
    SETUP,
    black_seat_after,
    parse_choice,
    to_move,
    view_colours,
)
from ..seats import BLACK, COLOURS, WHITE, other, seat_of
from ..symmetry import ALL, Transform, bits_cells, fold_cells, move_image
from ..view import CellView, EffectRow, Effects, View, make_view, row_labels
from . import shapes
from .notation import read_move, write_move
from .shapes import ShapeClass
from .state import COLOUR_IDS, PASS, Move, Setup, State, Turn, own_enemy
from .steps import steps
from .turns import Creatures, Slides, has_turn, random_turn, turn_fault, turn_table, turns


class Rules(BaseRules[State, Move]):
    """Harmijan on a board of side ``size``."""

    slug: ClassVar[str] = "harmijan"
    title: ClassVar[str] = "Harmijan"
    draws: ClassVar[bool] = True  # identical class lists (decision 14)
    summary: ClassVar[str] = (
        "Move a stone, then place one in line with it; grow creatures of matching shapes."
    )
    notation: ClassVar[tuple[str, ...]] = ("f5-e5@e7", "g3xg6@g9", "f5,f6/c3,c4", "black", "pass")
    symmetries: ClassVar[tuple[Transform, ...]] = ALL  # games.symmetry
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
            partial(turn_table, self._geo)
        )
        # ... at most 16 positions' slides, which a search asks for twice per position (whether
        # the colour to move has a turn, then a random one) ...
        self._slides = lru_cache(maxsize=16)(self._new_slides)
        # ... at most 16 colours' creatures (by stones), each with its stones' views: a turn
        # updates the mover's creatures, and a bite the victim's, rather than recomputing them ...
        self._creature_memo: dict[int, Creatures] = {}
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
        own, enemy = own_enemy(state)
        return iter(turns(self._geo, own, enemy, self._slides(own, enemy)))

    def format_move(self, state: State, move: Move) -> str:
        """Canonical text: ``f5,f6/c3,c4``, ``black``, ``g3-g4@j4``, ``g3xg6@g1``, ``pass``."""
        return write_move(self.board, state, move)

    def parse_move(self, state: State, text: str) -> Move:
        """The move written ``text`` (either order within a setup pair)."""
        move = read_move(self.board, state, text)
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
            self._update_creatures(*own_enemy(state), move)
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
            effects=self._last_effects(state),
        )

    def _last_effects(self, state: State) -> tuple[EffectRow, ...]:
        """What the last move did: a setup's four stones placed; a turn's stone gone from its
        origin and on its destination (an enemy stone bitten there [H5]), and the new stone (on
        the origin itself if it was placed there [H17])."""
        names = self.board.names
        cells = state.last_cells
        effects = Effects()
        if len(cells) == 3 and state.last_move is not None:  # a turn: g3-g4@j4, g3xg6@g1
            s, x, y = (names[i] for i in cells)
            effects.add(s, "origin", -1).add(x, "destination", +1)
            if state.last_move[len(s)] == "x":  # a bite
                effects.add(x, "captured", -1)
            effects.add(y, "placed", +1)
        else:  # the setup (four stones), or nothing for a choice and a pass
            for i in cells:
                effects.add(names[i], "placed", +1)
        return effects.rows()

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
        return steps(self.board, self._turn_table, state, prefix)

    def random_move(self, state: State, rng: random.Random) -> Move:
        """A uniformly random legal move; a setup is drawn without listing all of them."""
        if state.phase != SETUP:
            return super().random_move(state, rng)
        while True:
            black, white = rng.choice(self._pairs), rng.choice(self._pairs)
            if len({*black, *white}) == 4:
                return Setup(black=black, white=white)

    def bench_legal(self, state: State) -> int:
        """Every legal move, the position's slides computed afresh (the cache would flatter)."""
        self._slides.cache_clear()
        self._creature_memo.clear()
        return sum(1 for _ in self.legal_moves(state))

    def search_random_move(self, state: State, rng: random.Random) -> Move:
        """A random move; a turn is drawn without listing them all (:func:`.turns.random_turn`:
        a stone, then a destination, then a place, each uniformly among those that lead to a
        turn, so not uniform over turns)."""
        if state.phase != PLAY or state.must_pass:
            return self.random_move(state, rng)
        turn = random_turn(self._slides(*own_enemy(state)), rng)
        assert turn is not None, "a position in play without must_pass has a turn [H10]"
        return turn

    def search_apply(self, state: State, move: Move) -> State:
        """The position after a legal ``move``, unchecked and without its text."""
        if not isinstance(move, Turn) or state.phase != PLAY:
            return self.apply(state, move)
        colour = state.colour
        s, x, y = move
        self._update_creatures(*own_enemy(state), move)
        stones = list(state.stones)
        grew = not stones[other(colour)] >> x & 1
        stones[other(colour)] &= ~(1 << x)  # [H5] a bite removes the enemy stone
        stones[colour] = (stones[colour] & ~(1 << s)) | (1 << x) | (1 << y)
        return self._next_turn(
            state, (stones[0], stones[1]), other(colour), state.black_seat, None, (), grew
        )

    def classes(self, stones: int) -> list[ShapeClass]:
        """The repeated shapes among the creatures of ``stones`` (one colour's), largest first."""
        return shapes.classes(self.board, self._geo.components(stones), self._shape_of)

    def position_key(self, state: State) -> str:
        """The explorer's key, folded over all 12 symmetries (no rule ranks the directions; shapes
        are compared "regardless of symmetry", decision 13): stones, phase, colour to move, the
        seat holding Black (the pie's choice: same stones, another seat to move) and the end's
        reason. Not the repetition history: it is the path to the position, which the explorer
        merges (a third repetition within its depth is not worth splitting every transposition
        for)."""
        cells = bits_cells(self.board.n, state.stones, "bw")
        extra = f"{state.phase}:{state.colour}:{state.black_seat}:{state.reason}"
        return fold_cells(self.board.n, cells, extra, self.symmetries)

    def move_image(self, text: str, t: Transform) -> str:
        """``text`` with its cells mapped by ``t``."""
        return move_image(self.board.n, text, t)

    def key(self, state: State) -> tuple[Any, ...]:
        """The position: stones, phase, seats and the colour to move (no history or display)."""
        return (state.stones, state.phase, state.black_seat, state.colour, state.reason)

    # --- helpers ---------------------------------------------------------------------------------

    def _setups(self) -> Iterator[Move]:
        for b in self._pairs:
            for w in self._pairs:
                if len({*b, *w}) == 4:
                    yield Setup(black=b, white=w)

    def _creatures(self, own: int) -> Creatures:
        """The creatures of the stones ``own`` (one colour's), kept or computed."""
        known = self._creature_memo.get(own)
        if known is None:
            known = Creatures(self._geo, own)
            self._keep(known)
        return known

    def _keep(self, creatures: Creatures) -> None:
        """Remember ``creatures``, forgetting the oldest beyond 16."""
        memo = self._creature_memo
        memo.pop(creatures.own, None)  # the newest last
        memo[creatures.own] = creatures
        if len(memo) > 16:
            del memo[next(iter(memo))]

    def _update_creatures(self, own: int, enemy: int, move: Turn) -> None:
        """Keep the creatures after ``move`` when those before it are known: the mover's updated
        by the turn, the enemy's by the bite if there is one."""
        s, x, y = move
        mover = self._creature_memo.get(own)
        if mover is not None and (after := mover.after(s, x, y)) is not None:
            self._keep(after)
        if enemy >> x & 1 and (victim := self._creature_memo.get(enemy)) is not None:
            self._keep(victim.bitten(x))

    def _new_slides(self, own: int, enemy: int) -> Slides:
        """The slides of a position, on the kept creatures of the colour to move."""
        return Slides(self._geo, own, enemy, self._creatures(own))

    def _check(self, state: State, move: Move, text: str | None) -> None:
        """IllegalMoveError unless ``move`` is legal in ``state``."""
        phase = state.phase
        if isinstance(move, Setup):
            if phase != SETUP:
                raise IllegalMoveError("The pairs are already placed", rule="5")
            cells = {*move.black, *move.white}
            if len(cells) != 4 or not all(0 <= i < len(self.board) for i in cells):
                raise IllegalMoveError("The two pairs need four different cells", rule="H15")
            for a, b in (move.black, move.white):
                if b not in self.board.adjacent[a]:
                    raise IllegalMoveError("The two stones of a pair must touch", rule="5")
            return
        if phase == SETUP:
            raise IllegalMoveError(
                "First place a black and a white pair, like f5,f6/c3,c4", rule="5"
            )
        if move in CHOICES:
            if phase != CHOOSE:
                raise IllegalMoveError("The colours are already chosen", rule="5")
            return
        if phase == CHOOSE:
            raise IllegalMoveError("Choose black or white now", rule="5")
        if move == PASS:
            if not state.must_pass:
                raise IllegalMoveError("You can pass only when you have no move", rule="H9")
            return
        if not isinstance(move, Turn):
            raise IllegalMoveError("That is not a Harmijan move")
        if state.must_pass:
            raise IllegalMoveError("You have no move: pass", rule="H9")
        own, enemy = own_enemy(state)
        fault = turn_fault(self._geo, own, enemy, *move, self._slides(own, enemy))
        if fault:
            raise IllegalMoveError(*fault)

    def _next_turn(
        self,
        state: State,
        stones: tuple[int, int],
        colour: int,
        black_seat: int,
        text: str | None,
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
        if has_turn(self._geo, own, enemy, self._slides(own, enemy)):
            return State(phase=PLAY, **common)
        if has_turn(self._geo, enemy, own, self._slides(enemy, own)):
            return State(phase=PLAY, must_pass=True, **common)
        return State(phase=OVER, reason="no-moves", **common)
