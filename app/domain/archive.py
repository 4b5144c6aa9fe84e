"""What the archive keeps on a finished game's row to filter and sort by (issue 28): pure functions
of the game's options, time control, moves and result, written when the game finishes (and by the
migration that added them, for the games finished before).

``docs/protocol.md``, "Archive", documents each as a filter:

- ``length``: the number of plies (``ply_count`` moves with every move; ``length`` is written
  once, so the archive's indexes on it are not touched while a game is played);
- ``first_move``: the canonical text of ply 1 (in the four games with a pie rule, the setup);
- ``pie_taken``: in those four games, whether seat 2 chose Black, the colour the setup was made for
  (Jotun, Sgolte: the setup stone is Black's) or that moves first after it (Valaturna, Harmijan);
  None in Exxit and in a game that ended before the choice;
- ``winner_colour``: the winner's colour (None for a draw);
- ``options_key``: the option set as text, ``size=5`` or ``size=6,variant=dense``;
- ``time_key``: the time control as text, ``unlimited``, ``realtime:180:2`` (base and increment in
  seconds) or ``correspondence:3`` (days per move), as the lobby's form writes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: The words of the pie's choice (``games.pie``): seat 2's move at ply 2.
PIE_TAKEN_WORD = "black"
PIE_WORDS = frozenset({"black", "white"})


def options_key(options: Mapping[str, Any]) -> str:
    """An option set as text: its ``name=value`` pairs sorted by name, comma separated."""
    return ",".join(f"{name}={options[name]}" for name in sorted(options))


def time_key(time_control: Mapping[str, Any] | None) -> str:
    """A stored time control (None: unlimited) as the archive's text."""
    if time_control is None or time_control.get("kind") == "unlimited":
        return "unlimited"
    if time_control.get("kind") == "realtime":
        return f"realtime:{time_control['base']}:{time_control['increment']}"
    return f"correspondence:{time_control['days']}"


def pie_taken(has_pie: bool, moves: Sequence[str]) -> bool | None:
    """Whether seat 2 took Black at the pie's choice; None without a pie or a choice."""
    if not has_pie or len(moves) < 2 or moves[1] not in PIE_WORDS:
        return None
    return moves[1] == PIE_TAKEN_WORD


def archive_columns(
    options: Mapping[str, Any],
    time_control: Mapping[str, Any] | None,
    moves: Sequence[str],
    result: Mapping[str, Any],
    has_pie: bool,
) -> dict[str, Any]:
    """The archive's columns of a game finished after ``moves`` with ``result``."""
    colour = result.get("colour")
    return {
        "length": len(moves),
        "first_move": moves[0] if moves else None,
        "pie_taken": pie_taken(has_pie, moves),
        "winner_colour": colour if isinstance(colour, str) and result.get("winner") else None,
        "options_key": options_key(options),
        "time_key": time_key(time_control),
    }
