"""One error type for everything a client can get wrong: a stable code, a message, an HTTP status."""

from __future__ import annotations

from typing import Any


class AppError(Exception):
    """A refused request. ``code`` is stable (clients test it); ``message`` is for humans."""

    def __init__(self, code: str, message: str, status: int = 422, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.extra = extra

    def to_json(self) -> dict[str, Any]:
        """The ``error`` object of the protocol."""
        return {"code": self.code, "message": self.message, **self.extra}


def not_found(game_id: str) -> AppError:
    """The game does not exist, or the caller may not see it (a private game's existence is secret)."""
    return AppError("game_not_found", f"there is no game {game_id!r}", 404)
