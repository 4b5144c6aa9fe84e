"""Errors raised by the rules package.

Both are ``ValueError`` subclasses, as in python-chess: callers that only care that the input was bad
catch ``ValueError``; callers that answer a user tell the two apart. Messages are plain language a
player understands, naming the cell or move without quotes ("e5 is occupied"), with no rule
reference: the rules section a refusal rests on (e.g. ``"A3"``, as in ``shared/rules/<slug>.md``) is
the error's ``rule``, so the server can pass both on verbatim.
"""

from __future__ import annotations


def typed(text: str, limit: int = 20) -> str:
    """``text`` as a refusal echoes it: stripped, and cut to ``limit`` characters so the message
    stays one short line.

    >>> typed("  e5 "), typed("a1-" * 10)
    ('e5', 'a1-a1-a1-a1-a1-a1-a…')
    """
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class MoveError(ValueError):
    """A refused move: ``str(error)`` is the plain message, ``rule`` the rules section or None."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule

    def __reduce__(self) -> tuple[type[MoveError], tuple[str, str | None]]:
        # pickled through the rules worker: keep ``rule``, which ``args`` alone would lose
        return type(self), (str(self), self.rule)


class InvalidMoveError(MoveError):
    """Text that is not a move at all (bad syntax, unknown cell, wrong shape for this game)."""


class IllegalMoveError(MoveError):
    """A well-formed move that the rules forbid in this position (or any move once the game is over)."""


class RecordError(ValueError):
    """A game record that cannot be replayed; ``ply`` is the 1-based ply at fault, or None."""

    def __init__(self, message: str, ply: int | None = None) -> None:
        super().__init__(message)
        self.ply = ply
