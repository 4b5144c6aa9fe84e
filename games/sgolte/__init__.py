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

* ``to_move``/``outcome`` read a flag that ``apply`` sets with an existence search
  (``Search.has_turn``): a quiet cell, else a merging cell with a capture whose re-placement exists
  (``replace.can_replace``, which decides ``exists_replace`` of spec section 3 by splitting the
  candidate cells into components and, where a component touches several friendly groups, searching
  for a small vertex cut).
* ``legal_moves`` is a *lazy iterable*, in this deterministic order: placements in cell index
  (reading) order; a quiet placement is one move; for a merging placement, its legal captures (standard:
  by canonical removal sequence; dense: by size, then grown depth first from their lowest cell),
  and for each capture its re-placement sets in lexicographic order of their sorted cell indices.
* ``choices`` lists the distinct placement-and-capture choices and ``count_moves`` counts the legal
  moves (re-placement sets counted per component, not listed).
* The fast path for search: ``search_random_move`` has ``random_move``'s distribution without its
  shuffles (each choice drawn among the candidates not yet refused); ``search_apply`` skips the
  check and the text. Each colour's groups and their rims are kept by stones and updated by the
  stones a move adds or captures (``Geometry.grow``, ``Geometry.shrink``), and the standard
  captures are kept by enemy group, so a position recomputes only what its move changed.
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

Example 3 of the spec: Black's c6 merges c5 and c7, so it must split the white group.

>>> import games
>>> rules = games.get("sgolte", size=5)
>>> s = rules.position(black=["c5", "c7"], white=["c2", "d3", "e3", "e4", "e5"])
>>> sorted(c.capture for c in rules.choices(s) if c.place == "c6")
[('c2', 'd3', 'e4'), ('d3',), ('e3', 'd3'), ('e3', 'e4'), ('e4',)]
>>> rules.steps(s, ["c6", "e3"]).next
('d3', 'e4')
>>> rules.format_move(s, rules.parse_move(s, "c6 x e3, d3 : i1, b5"))
'c6xe3,d3:b5,i1'

The modules, in the order they build on each other: ``state`` (``State``, ``Move`` and the named
records), ``geometry`` (the board on :mod:`games.bitboard` and the friendly groups), ``replace`` (the
re-placement searches), ``capture`` (standard lines and dense sets), ``search`` (the legal placements
and captures of one ``Rules``, with its bounded caches), ``notation`` (reading and writing moves),
``steps`` (step-wise entry) and ``rules`` (``Rules``).
"""

from ..pie import CHOOSE, OVER, PLAY, SETUP
from ..seats import BLACK, COLOURS, WHITE
from .rules import Rules
from .state import DENSE, STANDARD, Choice, Key, Move, State

__all__ = [
    "BLACK",
    "CHOOSE",
    "COLOURS",
    "DENSE",
    "OVER",
    "PLAY",
    "SETUP",
    "STANDARD",
    "WHITE",
    "Choice",
    "Key",
    "Move",
    "Rules",
    "State",
]
