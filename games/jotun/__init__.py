"""Jotun: a drawless territory game of moving, feeding and devouring stacks (``shared/rules/jotun.md``).

Rules in brief (the spec is binding; decision numbers ``[A#]`` refer to its §7):

* Board: hex cells, side 4, 5 (default) or 6. A stack is every piece in a cell, bottom to top; its
  colour is its top piece, its strength the number of pieces of that colour [A1, A2]. Every stack is
  ``[x]*k + [y]*m``: captured pieces below, own pieces above.
* Opening [A31]: seat 1 places one black stack; seat 2 plays ``black`` or ``white``; White moves
  next, then colours alternate.
* An action is a placement (an empty cell with at least as many enemy as friendly neighbours [A3])
  or a move. A move lifts a friendly stack and carries it along a path of steps and jumps over
  maximal runs of friendly stacks [A9]: it slides straight on until a new friendly contact or a block
  [A7], may stop, jump on or turn only at such rest points [A8, A10, A12], never re-enters a cell
  [A14] nor a cell next to a stack it has stopped touching [A13], and never a cell where it would be
  wholly consumed [A25]. Each entered cell resolves, for the groups new there [A15, A16]: active
  consumption [A19], feeding [A17, A18], passive consumption by ascending current strength [A20,
  A22] with the consumer feeding its allies [A21, A23]; a colour change of the mover stops it [A24].
  A move must end where C1 (``minH(origin) > minH(destination)``) or C2 (the lone-stack clause)
  holds, both on the board before the move with the mover lifted [A4-A6, A26].
* After every action from ply 3 on, if either colour cannot act the game ends (``no-moves``) [A28];
  each colour scores its stacks plus the empty cells where the other may not place [A29, A30]. The
  game also ends after ply ``10 x cells`` (``ply-limit``) with tie-breaks [A32].

Moves and notation (§9): a placement is a cell (``d4``); a move is its waypoints ``o-w1-...-d`` (the
origin, each cell where the direction changed, the destination). Paths that give the same position
are one move [A27]; the canonical text is ``o-d`` when every path from o to d gives that position,
else the waypoints of the path with the fewest waypoints, ties by reading order.

Readings chosen where the spec is silent:

* ``legal_moves`` is lazy and ordered: the setup cells or the two words; then placements in reading
  order; then moves by origin (reading order), destination (reading order), and the canonical
  path (fewest waypoints, then reading order). One origin's moves are found all at once; each
  ``Rules`` instance keeps the last 64 origins it searched, by position, which ``steps``,
  ``format_move`` and ``parse_move`` share. ``bench_legal`` bypasses that cache.
* ``apply`` and ``parse_move`` follow the move's own waypoints and never search other paths, except
  that ``o-d`` with no straight legal path needs the search of §9 rule 2. ``format_move`` needs the
  origin's search unless the move came from ``legal_moves`` or is straight (a straight path's
  result is always written ``o-d``). The state's display field ``last_text`` is therefore the text
  as entered (the canonical text whenever the move came from ``legal_moves``, ``steps`` or a
  canonical record); it is excluded from ``==`` and ``key``, as are ``last_cells`` (the origin and
  every cell the stack entered, for drawing the path) and ``last_board`` (the board before the
  move: the view compares the two to say what the move did to each stack, ``stack_roles``).
* A text whose inner waypoint is no change of direction names no path and is illegal (§9 rule 3).
* Cell names are read case-insensitively; ``-`` separates waypoints, spaces around it are allowed.
* Step-wise entry: click the origin, then the destination, then, only if several results reach
  that cell, the waypoints of the wanted path in order until no other result shares them (usually
  one click). ``Steps.hints`` previews each continuation that completes a move: ``path`` (every
  cell entered), ``waypoints``, ``cells`` and ``changes`` (the stacks it changes, bottom to top);
  a continuation shared by several results has ``{"results": k}``. ``prompt`` and ``changes`` (the
  board as it will be) are described in ``steps``; the view gives each stack its ``strength``.
* ``random_move`` is not uniform over moves: it picks a placement or an origin uniformly, then a
  move of that origin uniformly; an origin whose search exceeds a node budget offers only its
  straight moves (whose canonical text ``o-d`` needs no search).
* The fast path for search: ``search_random_move`` picks as ``random_move`` does, then searches the
  origin depth first with each rest point's branches (stop, straight on, each turn) shuffled and
  takes the first move found, so no origin's moves are listed and short paths are likelier; its
  moves carry no text. ``search_apply`` writes a move's result on the board without following
  its path; ``search_moves`` lists one move per result, without texts.
* ``Rules.position`` builds a play-phase position directly (tests, analysis); its ending is
  computed as if the other colour had just acted.

The package: ``state`` (stack codes, ``State``, ``Move``, ``Ending``, placement and scores),
``search`` (the path search of §4.3-4.5), ``notation`` (move texts, §9), ``steps`` (step-wise
entry and previews) and ``rules`` (``Rules``). Colours and seats are ``games.seats``'; the opening's
phases and colour choice ``games.pie``'s.
"""

from ..pie import CHOOSE, PLAY, SETUP
from ..seats import BLACK, COLOURS, WHITE
from .rules import Rules
from .state import (
    LETTERS,
    PLY_FACTOR,
    Change,
    Changes,
    Ending,
    Move,
    Result,
    State,
    decode,
    stack_code,
)

__all__ = [
    "BLACK",
    "CHOOSE",
    "COLOURS",
    "LETTERS",
    "PLAY",
    "PLY_FACTOR",
    "SETUP",
    "WHITE",
    "Change",
    "Changes",
    "Ending",
    "Move",
    "Result",
    "Rules",
    "State",
    "decode",
    "stack_code",
]
