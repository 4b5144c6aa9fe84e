"""The pie rule's bookkeeping, written once for the four games with a balance rule.

``shared/rules/README.md``, "Seats and colours": seat 1 makes a setup move, seat 2 answers with the
word ``black`` or ``white`` and seat 1 gets the other colour; from then on play goes by colour. What
the setup puts down and who moves first after the choice are each game's own rules; the phases, the
words, who is to move and the seat <-> colour mapping are the same everywhere and live here.

A game's state keeps three fields for this, named alike in every game (``games.seats``):

``phase``       ``SETUP`` -> ``CHOOSE`` -> ``PLAY`` -> ``OVER`` (the view's ``phase`` words too);
``black_seat``  the seat holding Black: ``NO_SEAT`` (0) until the choice, then 1 or 2;
``colour``      the colour to move in ``PLAY`` (any value before: it is not read).

The API:

* ``to_move(phase, colour, black_seat)``: seat 1 in the setup, seat 2 for the choice, then the seat
  of the colour to move; None once over. A game's ``Rules.to_move`` returns it, or, if the game
  has an extra end condition, checks that first.
* ``black_seat_after(choice)``: the ``black_seat`` once seat 2 has chosen colour ``choice``.
* ``CHOICES`` (the words, in ``legal_moves`` order), ``parse_choice(text)`` -> colour or None,
  ``format_choice(colour)`` -> word: the choice move's notation.
* ``choice_steps(prefix, prompt)``: the step-wise entry of the choice (one click on a word), its
  prompt saying what each colour gets in this position (``choice_prompt``).
* ``view_colours(black_seat)``: the view's ``colours`` by seat, None before the choice.

>>> from games.seats import BLACK, WHITE
>>> to_move(SETUP, BLACK, NO_SEAT), to_move(CHOOSE, BLACK, NO_SEAT), to_move(PLAY, WHITE, 1)
(1, 2, 2)
>>> black_seat_after(parse_choice(" White ")), format_choice(BLACK), view_colours(2)
(1, 'black', ('white', 'black'))

How a game uses it (Jotun, Valaturna, Harmijan and Sgolte all do): import the phase names instead
of defining them; return ``pie.to_move(...)`` from ``Rules.to_move``; in ``apply``, the choice becomes
``replace(state, phase=PLAY, black_seat=black_seat_after(colour), colour=<who moves first>)``;
read and print the choice with ``parse_choice``/``format_choice``; answer ``steps`` in the choose
phase with ``choice_steps``; give the view ``colours=view_colours(state.black_seat)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .base import Steps
from .errors import IllegalMoveError
from .seats import BLACK, COLOURS, NO_SEAT, Colour, colour_named, seat_colours, seat_of

SETUP: Final = "setup"
CHOOSE: Final = "choose"
PLAY: Final = "play"
OVER: Final = "over"
PHASES: Final = (SETUP, CHOOSE, PLAY, OVER)
#: Seat 2's words, in the order ``legal_moves`` lists them.
CHOICES: Final = COLOURS
#: The ``steps`` prompt of the choice when a game does not say what each colour gets.
CHOICE_PROMPT: Final = "Choose your colour: black or white"


def to_move(phase: str, colour: Colour, black_seat: int) -> int | None:
    """The seat to move: 1 in the setup, 2 for the choice, then the seat of ``colour``."""
    if phase == PLAY:
        return seat_of(colour, black_seat)
    if phase == SETUP:
        return 1
    if phase == CHOOSE:
        return 2
    return None


def black_seat_after(choice: Colour) -> int:
    """The seat holding Black once seat 2 has chosen ``choice`` (seat 1 takes the other colour).

    >>> black_seat_after(0), black_seat_after(1)  # Black, White
    (2, 1)
    """
    return 2 if choice == BLACK else 1


def parse_choice(text: str) -> Colour | None:
    """The colour that the choice ``text`` names (case and blanks ignored), or None if none."""
    return colour_named(text)


def format_choice(colour: Colour) -> str:
    """The canonical text of choosing ``colour``: ``black`` or ``white``."""
    return COLOURS[colour]


def choice_prompt(black: str, white: str) -> str:
    """The choice's prompt: what each colour gets in this position, said once (the page's
    buttons name the colours themselves).

    >>> choice_prompt("owns the stack on e5", "moves next")
    'Black owns the stack on e5; White moves next'
    """
    return f"Black {black}; White {white}"


def cells_text(cells: Sequence[str]) -> str:
    """Cell names as words: ``c3``, ``c3 and c4``, ``c3, c4 and d5``.

    >>> cells_text(["c3"]), cells_text(["c3", "c4"]), cells_text(["c3", "c4", "d5"])
    ('c3', 'c3 and c4', 'c3, c4 and d5')
    """
    return cells[0] if len(cells) == 1 else f"{', '.join(cells[:-1])} and {cells[-1]}"


def choice_steps(prefix: Sequence[str], prompt: str = CHOICE_PROMPT) -> Steps:
    """Step-wise entry of the choice: one click on ``black`` or ``white``; ``prompt`` says what
    each colour gets (``choice_prompt``).

    >>> choice_steps([]).next, choice_steps(["white"]).move
    (('black', 'white'), 'white')
    >>> choice_steps([], choice_prompt("owns e5", "moves next")).prompt
    'Black owns e5; White moves next'
    >>> choice_steps(["white"]).prompt
    'Take white'
    """
    prefix = tuple(prefix)
    if not prefix:
        return Steps(prefix, CHOICES, None, prompt=prompt)
    if len(prefix) == 1 and prefix[0] in CHOICES:
        return Steps(prefix, (), prefix[0], prompt=f"Take {prefix[0]}")
    raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")


def view_colours(black_seat: int) -> tuple[str | None, str | None]:
    """The view's ``colours``: seat 1's and seat 2's colour names, None before the choice."""
    return seat_colours(black_seat)


__all__ = [
    "CHOICES",
    "CHOICE_PROMPT",
    "CHOOSE",
    "NO_SEAT",
    "OVER",
    "PHASES",
    "PLAY",
    "SETUP",
    "black_seat_after",
    "cells_text",
    "choice_prompt",
    "choice_steps",
    "format_choice",
    "parse_choice",
    "to_move",
    "view_colours",
]
