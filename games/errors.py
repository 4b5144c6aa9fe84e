"""Errors raised by the rules package.

Both are ``ValueError`` subclasses, as in python-chess: callers that only care that the input was bad
catch ``ValueError``; callers that answer a user tell the two apart. Messages name the input and the
reason, so the server can pass them on verbatim.
"""

from __future__ import annotations


class InvalidMoveError(ValueError):
    """Text that is not a move at all (bad syntax, unknown cell, wrong shape for this game)."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules forbid in this position (or any move once the game is over)."""


class RecordError(ValueError):
    """A game record that cannot be replayed; ``ply`` is the 1-based ply at fault, or None."""

    def __init__(self, message: str, ply: int | None = None) -> None:
        super().__init__(message)
        self.ply = ply
