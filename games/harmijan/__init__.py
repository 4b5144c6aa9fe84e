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
* The fast path for search: ``search_random_move`` draws a turn without listing them (a stone,
  then a destination, then a place, each uniformly among those that lead to a turn, so not
  uniform over turns); ``search_apply`` skips the check and the text. The Rules keeps the last 16
  positions' slides, which the end-of-turn test [H10] and the next draw share, and the last 16
  colours' creatures (``turns.Creatures``, by stones): a turn updates the mover's creatures and a
  bite the victim's rather than recomputing them, and whether a turn exists is asked first of the
  stones last seen with one (the answer does not depend on the order).

The modules, in the order they build on each other: ``state`` (``State``, ``Setup``, ``Turn``,
``Move``), ``turns`` (turn generation on :mod:`games.bitboard`, §4), ``shapes`` (canonical shapes
and the scoring classes, §3 and §6), ``notation`` (reading and writing moves, §9), ``steps``
(step-wise entry) and ``rules`` (``Rules``, with its bounded caches).
"""

from ..seats import BLACK, WHITE
from .rules import Rules
from .shapes import ShapeClass, canon, classes_of
from .state import COLOUR_IDS, PASS, Move, Setup, State, Turn

__all__ = [
    "BLACK",
    "COLOUR_IDS",
    "PASS",
    "WHITE",
    "Move",
    "Rules",
    "Setup",
    "ShapeClass",
    "State",
    "Turn",
    "canon",
    "classes_of",
]
