"""Colours and seats: one encoding for the five games (``shared/rules/README.md``, "Seats and colours").

A **seat** is a player, ``1`` or ``2``: seat 1 makes the first move of the game. ``Rules.to_move``,
``Outcome.winner`` and the view's ``colours`` keys speak of seats.

A **colour** is an index, ``0`` or ``1``, into every per-colour pair of a state (``stones[c]``,
``reserves[c]``), so that the other colour is ``other(c)`` and no code needs a dict to find it:

* ``BLACK, WHITE = 0, 1`` in the four games with a balance rule, named by ``COLOURS``;
* Exxit's ``RED, BLACK`` are its colours ``0, 1``, named by ``EXXIT_COLOURS`` (Red is seat 1).

Where pieces are written as text (a Valaturna stack ``"wb"``: white under black), colour ``c`` is the
letter ``LETTERS[c]``, lower case. The browser never sees an index: views and records name colours
(``"black"``, ``"red"``).

**The seat <-> colour mapping** is one int per state, ``black_seat``: the seat that holds colour 0,
or ``NO_SEAT`` (0) before the pie choice. ``seat_of``, ``colour_of`` and ``seat_colours`` read it; a
game without a pie (Exxit) passes the constant ``1``.

>>> other(BLACK) == WHITE, COLOURS[WHITE], colour_named(" Black ")
(True, 'white', 0)
>>> seat_of(BLACK, black_seat=2), colour_of(1, black_seat=2), seat_of(WHITE, NO_SEAT)
(2, 1, None)
>>> seat_colours(2), seat_colours(NO_SEAT), seat_colours(1, EXXIT_COLOURS)
(('white', 'black'), (None, None), ('red', 'black'))

How a game uses it (all five do):

* the colour constants come by import (``from .seats import BLACK, WHITE, COLOURS``), never as
  ``1, 2``, letters or a dict;
* the mapping is the state's ``black_seat``, read with ``seat_of(colour, state.black_seat)``, and
  the view's colours are ``seat_colours(state.black_seat)``;
* in hot loops ``c ^ 1`` (or ``1 - c``) may stay written inline: it is ``other(c)`` without the call.
"""

from __future__ import annotations

from typing import Final

Colour = int
"""0 or 1: an index into a state's per-colour pairs."""
Seat = int
"""1 or 2: a player; seat 1 moves first."""

BLACK: Final = 0
WHITE: Final = 1
#: The colours' names by index in the four games with a balance rule.
COLOURS: Final = ("black", "white")
#: Exxit's colours' names by index: Red is colour 0 and sits on seat 1.
EXXIT_COLOURS: Final = ("red", "black")
#: One lower-case letter per colour, for pieces written as text (a Valaturna stack ``"wb"``).
LETTERS: Final = ("b", "w")
#: ``black_seat`` before the pie choice: no seat holds a colour yet.
NO_SEAT: Final = 0
SEATS: Final = (1, 2)


def other(colour: Colour) -> Colour:
    """The other colour.

    >>> other(0), other(1)
    (1, 0)
    """
    return colour ^ 1


def other_seat(seat: Seat) -> Seat:
    """The other seat.

    >>> other_seat(1)
    2
    """
    return 3 - seat


def colour_named(word: str, names: tuple[str, str] = COLOURS) -> Colour | None:
    """The colour called ``word`` (blanks and letter case ignored), or None if none is.

    >>> colour_named("WHITE"), colour_named("red"), colour_named("red", EXXIT_COLOURS)
    (1, None, 0)
    """
    w = word.strip().lower()
    return names.index(w) if w in names else None


def seat_of(colour: Colour, black_seat: int) -> Seat | None:
    """The seat holding ``colour`` when colour 0 is on ``black_seat``; None before the choice."""
    if not black_seat:
        return None
    return black_seat if colour == 0 else 3 - black_seat


def colour_of(seat: Seat, black_seat: int) -> Colour:
    """The colour seat ``seat`` holds when colour 0 is on ``black_seat`` (1 or 2)."""
    return 0 if seat == black_seat else 1


def seat_colours(
    black_seat: int, names: tuple[str, str] = COLOURS
) -> tuple[str | None, str | None]:
    """The colours' names of seat 1 and seat 2 (the view's ``colours``); None before the choice."""
    if not black_seat:
        return (None, None)
    first = names[0 if black_seat == 1 else 1]
    return (first, names[1] if black_seat == 1 else names[0])


__all__ = [
    "BLACK",
    "COLOURS",
    "EXXIT_COLOURS",
    "LETTERS",
    "NO_SEAT",
    "SEATS",
    "WHITE",
    "Colour",
    "Seat",
    "colour_named",
    "colour_of",
    "other",
    "other_seat",
    "seat_colours",
    "seat_of",
]
