"""Jotun's ``Rules``: the phases, acting, the ending (§6), step-wise entry and the view."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache, partial
from typing import Any, ClassVar

from ..base import Option, Outcome, Steps
from ..base import Rules as BaseRules
from ..errors import IllegalMoveError
from ..pie import (
    CHOICES,
    CHOOSE,
    PLAY,
    SETUP,
    black_seat_after,
    format_choice,
    parse_choice,
    to_move,
    view_colours,
)
from ..seats import BLACK, COLOURS, NO_SEAT, WHITE, seat_of
from ..symmetry import digest
from ..view import CellView, EffectRow, Effects, Role, View, make_view, row_labels
from . import steps as entry
from .notation import OriginMoves, collect, normalise, way_text, waypoints
from .search import BoardInfo, Found, OverBudget, Search
from .state import (
    LETTERS,
    MASK_S,
    Ending,
    H,
    Move,
    State,
    can_place,
    colours_of,
    decode,
    geo_of,
    origins,
    placements,
    scores,
    stack_code,
    strengths,
)

RANDOM_BUDGET = 20_000  # path-search nodes random_move spends on one origin before going straight


class Rules(BaseRules[State, Move]):
    """Jotun for one board side."""

    slug: ClassVar[str] = "jotun"
    title: ClassVar[str] = "Jotun"
    summary: ClassVar[str] = (
        "Stacks travel, jump their friends, devour weaker enemies and feed allies; "
        "hold more than half the board."
    )
    notation: ClassVar[tuple[str, ...]] = ("e5-i5", "d4", "d4-a1-d1", "white")
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
        self.geo = geo_of(size)
        # Caches of positions, per Rules instance, so that a bot playing millions of positions
        # evicts only its own entries, never those of the games another instance serves.
        # 64 boards: the groups of the positions whose origins are being searched.
        self._board_info = lru_cache(maxsize=64)(partial(BoardInfo, self.geo))
        # 64 origins, by (board, origin): a big size-6 origin can hold tens of thousands of moves.
        self._origin_cache = lru_cache(maxsize=64)(self._search_origin)
        # 4096 answers of one bool: whether an origin has a move, which every ending check asks.
        self._has_move = lru_cache(maxsize=4096)(self._find_move)
        # step-wise entry reads the same caches
        self._entry = entry.Searches(self.geo, self._origin_cache, self._has_move, self._search)

    # -- positions ----------------------------------------------------------------------------

    def initial_state(self) -> State:
        """The empty board before the setup placement."""
        return State(size=self.size, board=(0,) * self.geo.size)

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
        cells = [0] * self.geo.size
        for name, pieces in stacks.items():
            cells[self.geo.grid.parse_index(name)] = stack_code(pieces)
        board = tuple(cells)
        colour = COLOURS.index(to_move)
        return State(
            size=self.size,
            board=board,
            phase=PLAY,
            colour=colour,
            black_seat=black_seat,
            ply=ply,
            ending=self._ending(board, ply, 1 - colour),  # as if just reached
        )

    def stacks(self, state: State) -> dict[str, str]:
        """The occupied cells of ``state`` as ``{"e5": "WBB"}`` (bottom to top)."""
        names = self.geo.grid.names
        return {names[c]: decode(code) for c, code in enumerate(state.board) if code}

    def to_move(self, state: State) -> int | None:
        """The seat to move, None once the game is over."""
        if state.ending is not None:  # Jotun's ending keeps the phase: it is read here first
            return None
        return to_move(state.phase, state.colour, state.black_seat)

    # -- searches and their caches --------------------------------------------------------------

    def _search(self, board: tuple[int, ...], origin: int) -> Search:
        return Search(self.geo, board, origin, self._board_info(board))

    def _search_origin(self, board: tuple[int, ...], origin: int) -> OriginMoves:
        search = self._search(board, origin)
        search.run()
        return collect(self.geo, search)

    def _origin_moves(self, state: State, origin: int) -> OriginMoves:
        return self._origin_cache(state.board, origin)

    def _find_move(self, board: tuple[int, ...], origin: int) -> bool:
        try:
            self._search(board, origin).run(first_only=True)
        except Found:
            return True
        return False

    # -- the ending (§6) --------------------------------------------------------------------------

    def _can_act(self, board: tuple[int, ...], colour: int) -> bool:
        """Whether ``colour`` has a placement or a move on ``board``."""
        if any(can_place(self.geo, board, colour, c) for c in range(self.geo.size)):
            return True
        return any(self._has_move(board, o) for o in origins(board, colour))

    def _ending(self, board: tuple[int, ...], ply: int, last: int) -> Ending | None:
        """§6 after an action by colour ``last`` that brought the counter to ``ply``."""
        if ply < 3:
            return None
        # [A28] both colours are checked, whoever is to move
        stuck = not (self._can_act(board, BLACK) and self._can_act(board, WHITE))
        if not stuck and ply < self.geo.cap:
            return None
        score = scores(self.geo, board)
        strength = strengths(board)
        # [A30] at a no-moves end one score exceeds half the cells; [A32] tie-breaks at the cap
        order = sorted(
            (BLACK, WHITE), key=lambda x: (score[x], strength[x], x == last), reverse=True
        )
        return Ending(
            winner=order[0],
            reason="no-moves" if stuck else "ply-limit",
            scores=score,
            strengths=strength,
        )

    # -- moves ------------------------------------------------------------------------------------

    def legal_moves(self, state: State) -> Iterator[Move]:
        """Lazily, in the order of the module docstring."""
        return self._legal(state, cached=True)

    def _legal(self, state: State, cached: bool) -> Iterator[Move]:
        if state.ending is not None:
            return
        if state.phase == SETUP:
            for c in range(self.geo.size):
                yield Move(kind="place", cells=(c,))
            return
        if state.phase == CHOOSE:
            for word in CHOICES:
                yield Move(kind="choose", word=word)
            return
        for c in placements(self.geo, state.board, state.colour):
            yield Move(kind="place", cells=(c,))
        search = self._origin_cache if cached else self._search_origin
        for o in origins(state.board, state.colour):
            yield from search(state.board, o).moves

    def bench_legal(self, state: State) -> int:
        """Every legal move, searched afresh (the caches would flatter the figures)."""
        self._board_info.cache_clear()
        return sum(1 for _ in self._legal(state, cached=False))

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
            raise IllegalMoveError(f"{way_text(names, move.path)} is not a legal move here")
        return known.text

    def parse_move(self, state: State, text: str) -> Move:
        """The move written ``text`` (§9 parsing rules 1-3)."""
        t = normalise(text)
        choice = parse_choice(t)
        if choice is not None:
            if state.phase != CHOOSE or state.ending is not None:
                raise IllegalMoveError(
                    f"{t.capitalize()} can be chosen only on the second turn", rule="A31"
                )
            return Move(kind="choose", word=format_choice(choice))
        cells = waypoints(self.geo, t)
        self.check_over(state)
        names = self.geo.grid.names
        if len(cells) == 1:
            c = cells[0]
            if state.phase == CHOOSE:
                raise IllegalMoveError("Choose black or white now", rule="A31")
            if state.phase == PLAY and not can_place(self.geo, state.board, state.colour, c):
                why = (
                    "is occupied"
                    if state.board[c]
                    else "touches more of your stacks than enemy ones"
                )
                raise IllegalMoveError(f"{names[c]} {why}", rule="A3")
            return Move(kind="place", cells=(c,))
        if state.phase != PLAY:
            raise IllegalMoveError("No stack moves before the colours are chosen", rule="A31")
        o = cells[0]
        code = state.board[o]
        if not code or code & 1 != state.colour:
            raise IllegalMoveError(f"{names[o]} holds no {COLOURS[state.colour]} stack", rule="4.2")
        try:
            walk = self._search(state.board, o).follow(cells)
        except IllegalMoveError as exc:
            if len(cells) != 2:
                raise exc from None
            # §9 rule 2: o-d names the result when every path from o to d gives the same one
            at = self._origin_moves(state, o).by_destination.get(cells[1], ())
            if len(at) == 1:
                return at[0]
            if not at:
                raise IllegalMoveError(f"The stack cannot reach {names[cells[1]]}") from None
            raise IllegalMoveError(
                f"Several paths reach {names[cells[1]]}: name the cells where it turns",
                rule="A27",
            ) from None
        return Move(
            kind="move",
            cells=(o, walk.destination),
            result=walk.result,
            path=tuple(cells),
            text=way_text(names, cells) if len(cells) == 2 else None,  # straight: always o-d
        )

    def apply(self, state: State, move: Move) -> State:
        """The state after ``move``; follows only the move's own path."""
        if not isinstance(move, Move):
            raise IllegalMoveError("That is not a Jotun move")
        self.check_over(state)
        names = self.geo.grid.names
        if move.kind == "choose":
            # only the canonical words: a Move is built by parse_move or legal_moves
            choice = parse_choice(move.word) if move.word in CHOICES else None
            if state.phase != CHOOSE or choice is None:
                raise IllegalMoveError(
                    f"{str(move.word).capitalize()} can be chosen only on the second turn",
                    rule="A31",
                )
            # [A31] White moves at ply 3, whichever seat holds it
            return replace(
                state,
                phase=PLAY,
                colour=WHITE,
                black_seat=black_seat_after(choice),
                ply=2,
                last_text=move.word,
                last_cells=(),
                last_board=(),
            )
        if move.kind == "place":
            (c,) = move.cells
            board = list(state.board)
            if state.phase == SETUP:
                board[c] = H | 2 | BLACK  # [A31] the setup stack is black
                return State(
                    size=self.size,
                    board=tuple(board),
                    phase=CHOOSE,
                    colour=BLACK,
                    black_seat=NO_SEAT,
                    ply=1,
                    last_text=names[c],
                    last_cells=(c,),
                    last_board=state.board,
                )
            if state.phase != PLAY or not can_place(self.geo, state.board, state.colour, c):
                raise IllegalMoveError(f"{names[c]} is not a legal placement", rule="A3")
            board[c] = H | 2 | state.colour
            return self._after(state, tuple(board), names[c], (c,))
        if move.kind != "move" or state.phase != PLAY:
            raise IllegalMoveError("That move cannot be played now", rule="A31")
        o = move.cells[0]
        code = state.board[o]
        if not code or code & 1 != state.colour:
            raise IllegalMoveError(f"{names[o]} holds no {COLOURS[state.colour]} stack", rule="4.2")
        walk = self._search(state.board, o).follow(move.path)
        if move.result is not None and (
            walk.result != move.result or walk.destination != move.cells[1]
        ):
            raise IllegalMoveError(
                f"{way_text(names, move.path)} does not give that position", rule="A27"
            )
        text = move.text or way_text(names, move.path)
        return self._after(state, walk.board, text, walk.cells)

    def _after(
        self, state: State, board: tuple[int, ...], text: str, cells: tuple[int, ...]
    ) -> State:
        ply = state.ply + 1
        # the constructor, not dataclasses.replace: this is every action's, and replace costs more
        return State(
            size=self.size,
            board=board,
            phase=PLAY,
            colour=1 - state.colour,
            black_seat=state.black_seat,
            ply=ply,
            ending=self._ending(board, ply, state.colour),
            last_text=text,
            last_cells=cells,
            last_board=state.board,
        )

    def outcome(self, state: State) -> Outcome | None:
        """The ending by seat: scores by seat, details by colour."""
        e = state.ending
        if e is None:
            return None
        black_seat = state.black_seat
        by_seat = (e.scores[0], e.scores[1]) if black_seat == 1 else (e.scores[1], e.scores[0])
        return Outcome(
            winner=seat_of(e.winner, black_seat),
            reason=e.reason,
            scores=by_seat,
            colour=COLOURS[e.winner],
            details={
                "scores": {"black": e.scores[0], "white": e.scores[1]},
                "strengths": {"black": e.strengths[0], "white": e.strengths[1]},
                "cells": self.geo.size,
            },
        )

    def position_key(self, state: State) -> str:
        """The explorer's key, folded over no symmetry: passive consumptions tied on strength go
        in the direction order E, NE, NW, W, SW, SE [A22], which every rotation and reflection
        reorders, so a rotated position can play differently. It holds the board, phase, colour to
        move, the seat holding Black (the pie's choice: same stones, another seat to move), ply
        (the cap of A32 counts it) and whether the game is over."""
        board = ",".join(map(str, state.board))
        over = state.ending.reason if state.ending is not None else ""
        head = f"{state.size}:{state.phase}:{state.colour}:{state.black_seat}:{state.ply}"
        return digest(f"{head}:{over}|{board}")

    def key(self, state: State) -> Any:
        """The position without display fields."""
        return (state.size, state.board, state.phase, state.colour, state.black_seat, state.ply)

    def random_move(self, state: State, rng: random.Random) -> Move:
        """A random action: a placement or an origin uniformly, then one of its moves uniformly."""
        if state.ending is not None:
            raise IllegalMoveError("The game is over")
        if state.phase != PLAY:
            return rng.choice(list(self.legal_moves(state)))
        places = placements(self.geo, state.board, state.colour)
        starts = origins(state.board, state.colour)
        while places or starts:
            k = rng.randrange(len(places) + len(starts))
            if k < len(places):
                return Move(kind="place", cells=(places[k],))
            o = starts.pop(k - len(places))
            moves = self._random_origin_moves(state, o)
            if moves:
                return rng.choice(moves)
        raise IllegalMoveError("No legal move (the game should have ended)")

    # -- the fast path for search ---------------------------------------------------------------

    def search_moves(self, state: State) -> list[Move]:
        """Every legal move, one per result [A27], searched afresh and without texts."""
        if state.ending is not None or state.phase != PLAY:
            return list(self.legal_moves(state))
        board = state.board
        out = [Move(kind="place", cells=(c,)) for c in placements(self.geo, board, state.colour)]
        for o in origins(board, state.colour):
            search = self._search(board, o)
            search.run()
            for d, results in search.found.items():
                for (mover, after), way in results.items():
                    result = search.result(mover, after)
                    out.append(Move(kind="move", cells=(o, d), result=result, path=way))
        return out

    def search_random_move(self, state: State, rng: random.Random) -> Move:
        """A random action: a placement or an origin uniformly (as ``random_move``), then one
        move of that origin found by a search that takes its branches in a random order and stops
        at the first move (:meth:`Search.draw`): no origin's moves are listed, and short paths are
        likelier than under ``random_move``."""
        if state.ending is not None:
            raise IllegalMoveError("The game is over")
        if state.phase != PLAY:
            return rng.choice(list(self.legal_moves(state)))
        board = state.board
        places = placements(self.geo, board, state.colour)
        starts = origins(board, state.colour)
        info = self._board_info(board)
        while places or starts:
            k = rng.randrange(len(places) + len(starts))
            if k < len(places):
                return Move(kind="place", cells=(places[k],))
            o = starts.pop(k - len(places))
            search = Search(self.geo, board, o, info)
            try:
                drawn = search.draw(rng, RANDOM_BUDGET)
            except OverBudget:
                straight = self._straight_moves(state, o)
                if straight:
                    return rng.choice(straight)
                continue
            if drawn is not None:
                d, mover, after, way = drawn
                result = search.result(mover, after)
                return Move(kind="move", cells=(o, d), result=result, path=(*way, d))
        raise IllegalMoveError("No legal move (the game should have ended)")

    def search_apply(self, state: State, move: Move) -> State:
        """The state after a legal ``move``: a movement's result is written on the board as it
        stands, its path is not followed again; no text, no display fields."""
        if state.phase != PLAY or move.kind == "choose":
            return self.apply(state, move)
        board = list(state.board)
        if move.kind == "place":
            board[move.cells[0]] = H | 2 | state.colour
        else:
            o, d = move.cells
            result = move.result
            assert result is not None
            board[o] = 0
            for c, code in result.changes:
                board[c] = code
            board[d] = result.mover
        after = tuple(board)
        ply = state.ply + 1
        return State(
            size=self.size,
            board=after,
            phase=PLAY,
            colour=1 - state.colour,
            black_seat=state.black_seat,
            ply=ply,
            ending=self._ending(after, ply, state.colour),
        )

    def _random_origin_moves(self, state: State, o: int) -> Sequence[Move]:
        search = self._search(state.board, o)
        try:
            search.run(budget=RANDOM_BUDGET)
        except OverBudget:
            return self._straight_moves(state, o)
        return collect(self.geo, search).moves

    def _straight_moves(self, state: State, o: int) -> list[Move]:
        """The moves of ``o`` along straight paths: their canonical text is always ``o-d``."""
        names = self.geo.grid.names
        out = []
        for d in range(6):
            for q in self.geo.grid.rays[o][d]:
                if state.board[q]:
                    continue
                try:
                    walk = self._search(state.board, o).follow((o, q))
                except IllegalMoveError:
                    continue
                out.append(
                    Move(
                        kind="move",
                        cells=(o, q),
                        result=walk.result,
                        path=(o, q),
                        text=f"{names[o]}-{names[q]}",
                    )
                )
        return out

    # -- step-wise entry (games/jotun/steps.py) -------------------------------------------------

    def move_tokens(self, state: State, move: Move) -> tuple[str, ...]:
        """The clicks that enter ``move``: the cell, the word, or origin, destination and the
        waypoints that tell it apart."""
        return entry.move_tokens(self._entry, state, move)

    def steps(self, state: State, prefix: Sequence[str]) -> Steps:
        """Next clicks: cells or words, then an origin's destinations, then telling waypoints."""
        return entry.steps(self._entry, state, prefix)

    def preview(self, state: State, move: Move) -> dict[str, Any]:
        """What the browser shows before sending a move: the path and the stacks it changes."""
        return entry.hint(self._entry, state, move)

    # -- the view ---------------------------------------------------------------------------------

    def view(self, state: State) -> View:
        """Cells and stacks (each occupied cell with its ``strength`` [A2]), turn, seat colours, ply
        counter and the current territory count."""
        grid = self.geo.grid
        board = state.board
        cells: list[CellView] = []
        for i, (q, r) in enumerate(grid.cells):
            cell: CellView = {"id": grid.names[i], "q": q, "r": r, "stack": colours_of(board[i])}
            if board[i]:  # [A2] the pieces of the top colour: what feeding and consumption weigh
                cell["strength"] = board[i] >> 1 & MASK_S
            elif state.phase == PLAY:
                black = can_place(self.geo, board, BLACK, i)
                white = can_place(self.geo, board, WHITE, i)
                if black != white:  # an empty cell only one colour may take: its territory
                    cell["mark"] = "territory-black" if black else "territory-white"
            cells.append(cell)
        counters: list[dict[str, Any]] = [
            {"label": "Ply", "value": f"{state.ply} / {self.geo.cap}", "seat": None}
        ]
        if state.black_seat:
            territory = scores(self.geo, board)
            for x in (BLACK, WHITE):
                counters.append(
                    {
                        "label": "Territory",
                        "value": territory[x],
                        "seat": seat_of(x, state.black_seat),
                    }
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
            colours=view_colours(state.black_seat),
            phase=state.phase,
            last_move=last,
            counters=counters,
            outcome=self.outcome(state),
            effects=last_effects(grid.names, state),
        )


# -- what the last move did -----------------------------------------------------------------------


def stack_roles(before: str, after: str) -> tuple[Role, ...]:
    """What happened to a stack that the mover did not enter, from its letters (bottom to top)
    before and after the move.

    A group interacts once, when the mover first touches it [A15]: it is consumed (``eaten``), fed,
    or, stronger than the mover, it takes a piece of the mover under itself (``ate``) [A20]. Later
    a consumer may feed it as an ally [A21], so ``eaten`` and ``ate`` can each come with ``fed``
    (``fed`` then ``ate`` leaves the same stack as ``ate`` then ``fed``).

    >>> stack_roles("WW", "WWW"), stack_roles("WBB", "WB"), stack_roles("W", "BW")
    (('fed',), ('eaten',), ('ate',))
    >>> stack_roles("BW", "BB"), stack_roles("WW", "BWWW")
    (('eaten', 'fed'), ('ate', 'fed'))
    """
    if before:
        top, under = before[-1], LETTERS[1 - LETTERS.index(before[-1])]
        if after == before[:-1]:
            return ("eaten",)
        if after == before + top:
            return ("fed",)
        if after == under + before:
            return ("ate",)
        if after == under + before + top:
            return ("ate", "fed")
        if len(before) > 1 and after == before[:-1] + before[-2]:
            return ("eaten", "fed")
    return ("changed",)  # never met: a stack changes only in the ways above


def last_effects(names: Sequence[str], state: State) -> tuple[EffectRow, ...]:
    """What the last action did, cell by cell: a placement's piece; a movement's origin (its
    height gone), the cells it entered, its destination (the mover's height on arrival) and every
    stack it changed (eaten, fed, ate [A19-A21]) with its change of height. A cell the mover
    entered was empty when entered: a stack there had been eaten away earlier in the move."""
    before, after, cells = state.last_board, state.board, state.last_cells
    if not cells or not before:
        return ()
    effects = Effects()
    if len(cells) == 1:
        return effects.add(names[cells[0]], "placed", +1).rows()
    origin, entered = cells[0], set(cells[1:])
    effects.add(names[origin], "origin", -(before[origin] >> 16))
    for c in cells[1:-1]:
        effects.add(names[c], "path")
    effects.add(names[cells[-1]], "destination")
    for c, (was, now) in enumerate(zip(before, after, strict=True)):
        if c == origin or (was == now and c not in entered):
            continue
        delta = (now >> 16) - (was >> 16)
        roles = stack_roles(decode(was), "" if c in entered else decode(now)) if was else ()
        if c in entered:  # its role is there already: add the change of height
            effects.add(names[c], "destination" if c == cells[-1] else "path", delta)
            delta = 0
        for role in roles:
            effects.add(names[c], role, delta)
            delta = 0
    return effects.rows()
