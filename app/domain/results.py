"""How games end, as data: the result object of each way to end a game, and the row values it sets.

A result is the protocol's ``{"winner", "colour", "reason", "scores"}`` (``docs/protocol.md``): the
rules' own outcome when the moves end the game, or one made here when the server ends it
(resignation, abandonment, an agreed draw, a timeout, an abort, a disconnection).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

Result = dict[str, Any]
Colours = Mapping[str, str | None]  # seat ("1", "2") -> colour, as the rules' view gives them
Ending = Literal["finished", "cancelled"]


def result_key(result: Mapping[str, Any]) -> str:
    """The archive's result column: the winning seat, or "draw"."""
    winner = result.get("winner")
    return "draw" if winner is None else str(winner)


def won_by(winner: int, reason: str, colours: Colours) -> Result:
    """Seat ``winner`` wins for ``reason`` (a server reason: the rules did not end the game)."""
    return {"winner": winner, "colour": colours.get(str(winner)), "reason": reason, "scores": None}


def resignation(seat: int, colours: Colours) -> Result:
    """Seat ``seat`` resigns: the other seat wins."""
    return won_by(3 - seat, "resignation", colours)


def agreed_draw() -> Result:
    """Both seats agreed to a draw."""
    return {"winner": None, "colour": None, "reason": "agreement", "scores": None}


def abandonment(started: bool, to_move: int | None, colours: Colours) -> tuple[Ending, Result]:
    """A game left idle too long: a started game is won by the seat that was waiting for the
    other to move; one still waiting for its second player is cancelled, with no winner."""
    if not started:
        return "cancelled", {"winner": None, "colour": None, "reason": "abandoned", "scores": None}
    if to_move is None:
        return "finished", {"winner": None, "colour": None, "reason": "abandoned", "scores": None}
    return "finished", won_by(3 - to_move, "abandoned", colours)


def timeout(seat: int, colours: Colours) -> Result:
    """Seat ``seat``'s time ran out: the other seat wins. In none of the five games can a side be
    left unable to win (there is no "insufficient material": every game still has moves that can
    win for either side until it ends), so a flag is always a loss, never a draw."""
    return won_by(3 - seat, "timeout", colours)


def disconnection(seat: int, colours: Colours) -> Result:
    """Seat ``seat`` left and did not come back within its grace: its opponent claimed the win."""
    return won_by(3 - seat, "disconnect", colours)


def abort() -> tuple[Ending, Result]:
    """A player aborts before both have moved: the game ends as a cancelled one (unrated, out of
    the archive), for the reason "aborted"."""
    return "cancelled", {"winner": None, "colour": None, "reason": "aborted", "scores": None}


def cancellation() -> tuple[Ending, Result]:
    """The creator cancels a game still waiting for its second player: cancelled as an abandoned
    waiting game is, with no winner, for the reason "cancelled"."""
    return "cancelled", {"winner": None, "colour": None, "reason": "cancelled", "scores": None}


def ending_values(result: Mapping[str, Any], ending: Ending, now: int) -> dict[str, Any]:
    """The game row's new values when it ends with ``result`` at ``now`` (epoch ms).

    A cancelled game has no result column: the archive lists only finished games.
    """
    values: dict[str, Any] = {
        "status": ending,
        "reason": str(result.get("reason")),
        "result_json": dict(result),
        "finished_at": now,
        "last_activity_at": now,
        "to_move": None,
        "deadline_at": None,
        "offer": None,
        "away": None,
    }
    if ending == "finished":
        values["result"] = result_key(result)
    return values
