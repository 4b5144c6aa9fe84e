"""Monte Carlo tree search (UCT) over any game's fast path, with playouts cut off early.

One simulation walks down the tree by UCB1, adds one child, plays at most ``cutoff`` random plies
from it (``Rules.search_random_move``; the game's own, cheap, not always uniform draw) and scores
where it stopped: the result if the game is over, else the game's evaluator
(:mod:`games.bots.evaluate`). Values are for seat 1 in ``[-1, 1]`` and each node keeps them for the
seat that moved into it, so the walk needs no assumption that turns alternate.

Move lists. Where a position's moves are cheap to list (``Budget.sampled`` False, and not a pie
setup, whose move lists run to tens of thousands) a node considers all of ``search_moves``; else
it considers up to ``Budget.candidates`` distinct moves drawn with ``search_random_move``. The root's
moves come from the caller, ordered best first by a one-ply look (``order_by_value``), and are
tried in that order. Below the root, progressive widening lets a node with ``n`` visits have at
most ``widen * sqrt(n)`` children (all of them when ``widen`` is 0), so that wide games still
search a few plies deep.

Nothing here reads a clock unless a ``deadline`` is given: a level's strength is its budget, the
same on every machine; the deadline is only a safety net (``time.monotonic`` seconds).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..base import Rules
from ..pie import SETUP
from .evaluate import Evaluator, terminal_value


@dataclass(frozen=True)
class Budget:
    """What one search may spend: simulations, playout length, width and exploration."""

    #: simulations (tree nodes added) per move
    simulations: int
    #: random plies played from a new node before the evaluator scores it (0: evaluate at once)
    cutoff: int
    #: distinct moves drawn at a node whose move list is sampled
    candidates: int
    #: draw the moves of every position (True for games whose full lists are huge: Jotun, Sgolte)
    sampled: bool = False
    #: the UCB1 exploration constant
    exploration: float = 1.0
    #: progressive widening below the root: at most ``widen * sqrt(visits)`` children (0: all)
    widen: float = 0.0


@dataclass
class Child:
    """A root move and what the search learnt of it (values for the seat to move at the root)."""

    move: Any
    state: Any
    prior: float
    visits: int = 0
    mean: float = 0.0


class Node:
    """A position in the tree; ``total`` sums values for the seat that moved into it."""

    __slots__ = ("children", "mover", "seat", "state", "total", "untried", "visits")

    def __init__(self, state: Any, seat: int | None, mover: int | None) -> None:
        self.state = state
        self.seat = seat  # to move here; None once the game is over
        self.mover = mover  # the seat whose move led here
        self.untried: list[Any] | None = None  # moves not yet expanded, last one next
        self.children: list[tuple[Any, Node]] = []
        self.visits = 0
        self.total = 0.0


def moves_of(rules: Rules[Any, Any], state: Any, budget: Budget, rng: random.Random) -> list[Any]:
    """The moves a search considers in ``state``: all of them, or a sample (see the docstring)."""
    if not budget.sampled and getattr(state, "phase", None) != SETUP:
        return rules.search_moves(state)
    found: dict[Any, None] = {}  # insertion-ordered: no dependence on hash order
    for _ in range(3 * budget.candidates):
        found.setdefault(rules.search_random_move(state, rng), None)
        if len(found) >= budget.candidates:
            break
    return list(found)


def value_for(seat: int | None, value: float) -> float:
    """A value for seat 1 seen by ``seat`` (seat 2 sees its negation)."""
    return -value if seat == 2 else value


def order_by_value(
    rules: Rules[Any, Any], state: Any, moves: Sequence[Any], evaluate: Evaluator
) -> list[Child]:
    """The root's moves with their positions and one-ply values for the mover, best first (a
    stable sort: equal values keep the order of ``moves``)."""
    seat = rules.to_move(state)
    children = []
    for move in moves:
        after = rules.search_apply(state, move)
        if rules.to_move(after) is None:
            value = terminal_value(rules, after)
        else:
            value = evaluate(rules, after)
        children.append(Child(move, after, value_for(seat, value)))
    children.sort(key=lambda c: -c.prior)
    return children


class Search:
    """One UCT search from a root whose moves are given (:func:`order_by_value`)."""

    def __init__(
        self,
        rules: Rules[Any, Any],
        budget: Budget,
        evaluate: Evaluator,
        rng: random.Random,
    ) -> None:
        self.rules = rules
        self.budget = budget
        self.evaluate = evaluate
        self.rng = rng

    def run(
        self, state: Any, children: Sequence[Child], deadline: float | None = None
    ) -> tuple[list[Child], int]:
        """Search ``state`` with the root moves ``children``; returns them with their visits and
        mean values filled in, and the number of simulations made."""
        rules = self.rules
        seat = rules.to_move(state)
        root = Node(state, seat, None)
        root.untried = []
        for child in reversed(children):  # popped from the end: the best prior first
            root.untried.append(child.move)
        states = {id(c.move): c.state for c in children}
        made = 0
        for made in range(1, self.budget.simulations + 1):
            self._simulate(root, states)
            if deadline is not None and made % 16 == 0 and time.monotonic() > deadline:
                break
        stats = {id(move): node for move, node in root.children}
        for child in children:
            node = stats.get(id(child.move))
            if node is not None and node.visits:
                child.visits = node.visits
                child.mean = node.total / node.visits
        return list(children), made

    def _simulate(self, root: Node, root_states: dict[int, Any]) -> None:
        rules = self.rules
        budget = self.budget
        node = root
        path = [root]
        while True:
            if node.seat is None:
                value = terminal_value(rules, node.state)
                break
            if node.untried is None:
                node.untried = moves_of(rules, node.state, budget, self.rng)
                self.rng.shuffle(node.untried)
            if node.untried and self._may_widen(node, node is root):
                move = node.untried.pop()
                after = root_states.get(id(move)) if node is root else None
                if after is None:
                    after = rules.search_apply(node.state, move)
                child = Node(after, rules.to_move(after), node.seat)
                node.children.append((move, child))
                path.append(child)
                value = self._playout(after, child.seat)
                break
            if not node.children:  # no move at all: cannot happen in a live position
                value = 0.0
                break
            node = self._select(node)
            path.append(node)
        for n in path:
            n.visits += 1
            n.total += value_for(n.mover, value)

    def _may_widen(self, node: Node, at_root: bool) -> bool:
        widen = self.budget.widen
        if at_root or widen <= 0 or not node.children:
            return True
        return len(node.children) < widen * math.sqrt(node.visits)

    def _select(self, node: Node) -> Node:
        log_n = math.log(node.visits)
        c = self.budget.exploration
        best: Node | None = None
        best_score = -math.inf
        for _, child in node.children:
            score = child.total / child.visits + c * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = child, score
        assert best is not None
        return best

    def _playout(self, state: Any, seat: int | None) -> float:
        rules = self.rules
        rng = self.rng
        for _ in range(self.budget.cutoff):
            if seat is None:
                break
            state = rules.search_apply(state, rules.search_random_move(state, rng))
            seat = rules.to_move(state)
        if seat is None:
            return terminal_value(rules, state)
        return self.evaluate(rules, state)
