"""Game records: replayable JSON documents (``hexmoot-record/1``).

A record holds the game, its options, the players, the canonical move texts and the result::

    {"format": "hexmoot-record/1", "game": "jotun", "options": {"size": 5},
     "players": [{"seat": 1, "name": "Ann"}, {"seat": 2, "name": "Bo"}],
     "moves": ["e5", "white", ...], "result": {"winner": 1, "reason": "no-moves", ...}}

The position is always the replay of the moves; ``replay`` checks every ply and the result, and names
the first ply at fault. Options are read through the game's ``Rules``, which also reads the former
names of renamed options (``Rules.RENAMED_OPTIONS``: Valaturna's ``side`` is now ``size``), so a
record keeps replaying after a rename.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import get, get_offered
from .base import Outcome, Rules
from .errors import RecordError

FORMAT = "hexmoot-record/1"
#: The reasons a server ends a game the rules left open: a resignation, a flag, abandonment, a
#: disconnection claimed, and an agreed draw (with no winner).
SERVER_REASONS = frozenset({"resignation", "timeout", "abandoned", "disconnect", "agreement"})


def make_record(
    rules: Rules[Any, Any],
    moves: Sequence[str],
    players: Sequence[Mapping[str, Any]] = (),
    result: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A record of ``moves`` played under ``rules``; ``result`` defaults to the rules' outcome."""
    if result is None:
        state = replay_moves(rules, moves)
        outcome = rules.outcome(state)
        result = outcome.to_json() if outcome else None
    return {
        "format": FORMAT,
        "game": rules.slug,
        "options": rules.options,
        "players": [dict(p) for p in players],
        "moves": list(moves),
        "result": None if result is None else dict(result),
    }


def replay_moves(rules: Rules[Any, Any], moves: Sequence[str]) -> Any:
    """The state after playing ``moves``; RecordError naming the first bad ply."""
    state = rules.initial_state()
    for ply, text in enumerate(moves, start=1):
        if not isinstance(text, str):
            raise RecordError(f"ply {ply}: a move must be text, not {text!r}", ply)
        try:
            state = rules.play(state, text)
        except ValueError as exc:
            raise RecordError(f"ply {ply}: {exc}", ply) from exc
    return state


def rules_of(record: Mapping[str, Any], *, offered_only: bool = False) -> Rules[Any, Any]:
    """The rules a record names; RecordError if the format, game or options are wrong (with
    ``offered_only``, also if an option's value is not one the catalogue offers).

    Former option names are read too (``Rules.RENAMED_OPTIONS``):

    >>> rules_of({"format": FORMAT, "game": "valaturna", "options": {"side": 5}}).options
    {'size': 5}
    """
    if not isinstance(record, Mapping):
        raise RecordError("a record must be a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"unknown record format {record.get('format')!r} (expected {FORMAT!r})")
    game, options = record.get("game"), record.get("options", {})
    if not isinstance(game, str):
        raise RecordError(f"the record's game must be a slug, not {game!r}")
    if not isinstance(options, Mapping):
        raise RecordError("the record's options must be an object")
    try:
        return get_offered(game, options) if offered_only else get(game, options)
    except ValueError as exc:
        raise RecordError(str(exc)) from exc


def replay(record: Mapping[str, Any]) -> Any:
    """Validate ``record`` and return its final state; RecordError naming the first bad ply.

    The stored result, if any, must agree with the rules: the rules' outcome when the moves end the
    game, or a server reason (resignation, timeout, abandonment) for a game the rules left open.
    """
    rules = rules_of(record)
    moves = record.get("moves")
    if not isinstance(moves, list):
        raise RecordError("the record's moves must be a list of texts")
    state = replay_moves(rules, moves)
    check_result(rules.outcome(state), record.get("result"))
    return state


def check_result(outcome: Outcome | None, result: object) -> None:
    """RecordError unless ``result`` (a record's) agrees with the rules' ``outcome``."""
    if outcome is not None:
        if result is None:
            return
        if not isinstance(result, Mapping) or _core(result) != _core(outcome.to_json()):
            raise RecordError(
                f"the record's result {result!r} disagrees with the rules: {outcome.to_json()}"
            )
        return
    if result is None:
        return
    if not isinstance(result, Mapping):
        raise RecordError(f"a record's result must be an object or null, not {result!r}")
    # Types first: a list is unhashable in a set, True == 1 in a tuple.
    reason, winner = result.get("reason"), result.get("winner")
    if not isinstance(reason, str) or reason not in SERVER_REASONS:
        raise RecordError(f"the game is not over after its last move, yet the result is {result!r}")
    if winner is not None and not (type(winner) is int and winner in (1, 2)):
        raise RecordError(f"the result's winner must be 1, 2 or null, not {winner!r}")
    if reason == "agreement" and winner is not None:
        raise RecordError("a game ended by agreement is a draw: its winner must be null")
    if result.get("scores") is not None:
        raise RecordError("a game the rules left open has no scores: they must be null")


def _core(result: Mapping[str, Any]) -> tuple[Any, ...]:
    return (result.get("winner"), result.get("reason"), result.get("scores"))
