"""Step-wise entry (spec section 4): the placement, each captured stone in removal order, then each
re-placed stone in placement order; a click is offered only while a legal completion exists.

A merging placement's capture ends exactly at the removal that splits the group (decisions 3, 14),
so an enemy-stone click always continues the capture and an empty-cell click always re-places.

``prompt`` says what the next click is for (the capture's kind by variant, how many stones remain to
re-place); ``changes`` is the board as it will be after the clicks so far: the placed stone is
drawn at once (a merging one too, before its capture is chosen), each captured stone leaves as it
is clicked, and each re-placed stone appears (on a cell just vacated too, decision 7).
"""

from __future__ import annotations

from ..base import Steps, play_prompt
from ..bitboard import bits, mask
from ..errors import IllegalMoveError
from ..pie import CHOOSE, OVER, SETUP, choice_prompt, choice_steps
from ..seats import BLACK, COLOURS
from .capture import after_capture
from .geometry import group_contacts, merging_cells
from .notation import write_move
from .replace import can_replace_after, contacts_after
from .search import Search
from .state import Move, State, sides


def steps(search: Search, state: State, prefix: tuple[str, ...]) -> Steps:
    """Legal next clicks after ``prefix``; IllegalMoveError if it leads nowhere."""
    geo = search.geo
    if state.phase == OVER:
        if prefix:
            raise IllegalMoveError("The game is over")
        return Steps(prefix=prefix, next=(), move=None)
    if state.phase == CHOOSE:  # [13] the setup stone is black; White moves next
        (stone,) = geo.names_of(bits(state.stones[BLACK]))
        return choice_steps(prefix, choice_prompt(f"owns the stone on {stone}", "moves next"))
    if state.phase == SETUP:
        if not prefix:
            return Steps(prefix, geo.names, None, prompt="Set up: place the opening black stone")
        if len(prefix) == 1 and prefix[0] in geo.by_name:
            changes = {prefix[0]: [COLOURS[state.colour]]}
            return Steps(prefix, (), prefix[0], prompt=play_prompt(prefix[0]), changes=changes)
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
    own, enemy = sides(state)
    empty = geo.all & ~own & ~enemy
    if not prefix:
        starts = geo.names_of(search.starts(own, enemy))
        return Steps(prefix, starts, None, prompt=START_PROMPT)
    p = _token(search, prefix, 0, empty)
    colour = [COLOURS[state.colour]]
    if not (merging_cells(geo, own, 1 << p) >> p) & 1:
        if len(prefix) > 1:
            raise IllegalMoveError(
                f"{prefix[0]} joins no groups, so it captures nothing", rule="7.11"
            )
        changes = {prefix[0]: colour}
        return Steps(prefix, (), prefix[0], prompt=play_prompt(prefix[0]), changes=changes)
    walker = DenseWalk(search, own, enemy, p) if search.dense else LineWalk(search, own, enemy, p)
    i = 1
    removed: list[int] = []
    while not walker.complete(removed):
        if i == len(prefix):
            options = walker.next_stones(removed)
            if not options and not removed:
                raise IllegalMoveError(
                    f"{prefix[0]} joins your groups but can capture nothing", rule="7.10"
                )
            prompt = CAPTURE_PROMPTS[search.dense][bool(removed)]
            changes = _changes(geo.names, colour, p, removed, [])
            return Steps(prefix, geo.names_of(options), None, prompt=prompt, changes=changes)
        c = _token(search, prefix, i, enemy)
        if not walker.accepts(removed, c):
            raise IllegalMoveError(f"No legal move starts with {' '.join(prefix[: i + 1])}")
        removed.append(c)
        i += 1
    own2, empty2 = after_capture(geo, own, enemy, p, mask(removed))
    contacts = group_contacts(geo, own2, empty2)
    left = len(removed)
    placed: list[int] = []
    while True:
        if left == 0:
            if i < len(prefix):
                raise IllegalMoveError("That re-places too many stones", rule="4")
            move = Move(
                place=prefix[0], capture=geo.names_of(removed), replace=geo.names_of(placed)
            )
            text = write_move(geo, search.dense, state, move)
            changes = _changes(geo.names, colour, p, removed, placed)
            return Steps(prefix, (), text, prompt=play_prompt(text), changes=changes)
        if i == len(prefix):
            cells = search.replace_options(own2, empty2, left)
            changes = _changes(geo.names, colour, p, removed, placed)
            return Steps(
                prefix, geo.names_of(cells), None, prompt=replace_prompt(left), changes=changes
            )
        s = _token(search, prefix, i, empty2)
        # [6] the stone touches at most one friendly group now, and the rest still fit
        if sum(1 for a in contacts if (a >> s) & 1) > 1 or not can_replace_after(
            geo, contacts, empty2, s, left - 1
        ):
            raise IllegalMoveError(f"No legal move starts with {' '.join(prefix[: i + 1])}")
        contacts = contacts_after(geo, contacts, empty2, s)
        own2 |= 1 << s
        empty2 &= ~(1 << s)
        placed.append(s)
        left -= 1
        i += 1


#: The first click of a turn: any empty cell, but one that joins two groups must capture.
START_PROMPT = "Place a stone (joining two of your groups must capture)"
#: The capture's clicks, by variant (standard, dense), before and after the first stone.
CAPTURE_PROMPTS = (
    ("Choose the line to capture: click its first stone", "Remove the next stone of the line"),
    (
        "Choose the stones to capture, the splitting one last",
        "Remove another stone: the capture ends when the group splits",
    ),
)


def replace_prompt(left: int) -> str:
    """The prompt of the re-placement while ``left`` stones remain to be put back.

    >>> replace_prompt(2)
    'Re-place 2 stones, each touching at most one of your groups'
    """
    if left == 1:
        return "Re-place 1 stone, touching at most one of your groups"
    return f"Re-place {left} stones, each touching at most one of your groups"


def _changes(
    names: tuple[str, ...], colour: list[str], p: int, removed: list[int], placed: list[int]
) -> dict[str, list[str]]:
    """The board as it will be: the placed stone, the captured stones gone, the re-placed stones."""
    changes: dict[str, list[str]] = {names[p]: colour}
    for c in removed:
        changes[names[c]] = []
    for c in placed:
        changes[names[c]] = colour
    return changes


def _token(search: Search, prefix: tuple[str, ...], i: int, allowed: int) -> int:
    """The cell of click ``i``, which must lie in ``allowed``."""
    c = search.geo.by_name.get(prefix[i])
    if c is None or not (allowed >> c) & 1:
        raise IllegalMoveError(f"No legal move starts with {' '.join(prefix[: i + 1])}")
    return c


class LineWalk:
    """Standard captures, click by click: the legal ordered lines with a feasible re-placement."""

    def __init__(self, search: Search, own: int, enemy: int, p: int) -> None:
        self.lines = [
            line.order for line in search.lines(enemy) if search.feasible(own, enemy, p, line.cells)
        ]

    def complete(self, removed: list[int]) -> bool:
        """Whether the stones clicked so far are a whole capture."""
        return bool(removed) and tuple(removed) in self.lines

    def accepts(self, removed: list[int], c: int) -> bool:
        """Whether ``c`` may be removed next."""
        return c in self.next_stones(removed)

    def next_stones(self, removed: list[int]) -> list[int]:
        """The stones that may be removed next, in cell order."""
        n = len(removed)
        return sorted(
            {line[n] for line in self.lines if len(line) > n and list(line[:n]) == removed}
        )


class DenseWalk:
    """Dense captures, click by click: a stone is offered while some legal capture extends the clicks."""

    def __init__(self, search: Search, own: int, enemy: int, p: int) -> None:
        self.search, self.own, self.enemy, self.p = search, own, enemy, p

    def complete(self, removed: list[int]) -> bool:
        """Whether the stones clicked so far are a whole capture: their removal split the group."""
        if not removed:
            return False
        geo = self.search.geo
        group = geo.flood(1 << removed[0], self.enemy)
        return geo.splits(group & ~mask(removed))

    def accepts(self, removed: list[int], c: int) -> bool:
        """Whether ``c`` may be removed next."""
        geo = self.search.geo
        if removed:
            group = geo.flood(1 << removed[0], self.enemy)
        else:
            group = geo.flood(1 << c, self.enemy)
            if group.bit_count() < 3:
                return False
        if not (group >> c) & 1 or c in removed:
            return False
        done = mask(removed)
        return self.search.dense_completion(self.own, self.enemy, self.p, group, done, c)

    def next_stones(self, removed: list[int]) -> list[int]:
        """The stones that may be removed next, in cell order."""
        search = self.search
        if removed:
            groups: tuple[int, ...] = (search.geo.flood(1 << removed[0], self.enemy),)
        else:
            groups = search.big_groups(self.enemy)
        done = mask(removed)
        return [
            x
            for group in groups
            for x in bits(group & ~done)
            if search.dense_completion(self.own, self.enemy, self.p, group, done, x)
        ]
