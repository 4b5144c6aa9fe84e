"""What the property-based fuzzers share: their budget, their Hypothesis settings, and the checks
every answer must pass (no 5xx, the one error shape, a refused request changes nothing).

The budget is a number of examples, never a time: a fuzz test does the same work on a fast machine
and a busy one, so its outcome never depends on the machine's speed. ``HEXMOOT_FUZZ_EXAMPLES``
scales the number of examples (1 by default, sized so that ``make test`` stays quick; 10 runs ten
times as many, for a deeper search). Runs are derandomized: the same code and budget draw the same
examples, so a failure reproduces with the same command; ``HEXMOOT_FUZZ_SEED`` draws another
series instead (the seed is printed).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis.errors import Flaky

from app.errors import STATUS, ErrorCode
from app.schemas.responses import ErrorOut

SCALE = float(os.environ.get("HEXMOOT_FUZZ_EXAMPLES", "1"))
SEED = os.environ.get("HEXMOOT_FUZZ_SEED")


def fuzz_settings(examples: int, **overrides: Any) -> settings:
    """Hypothesis settings for a fuzz test of ``examples`` examples (times ``SCALE``)."""
    return settings(
        max_examples=max(1, round(examples * SCALE)),
        deadline=None,
        derandomize=SEED is None,
        database=None,
        suppress_health_check=list(HealthCheck),
        # Shrinking a failure against a live server can take long: a few rounds are plenty here.
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        print_blob=True,
        **overrides,
    )


#: The server's settings for fuzzing: creation quotas lifted, so that the sequences reach games (the
#: quotas have tests of their own; other rate limits stay, and their 429s are checked like any 4xx).
#: Settings the server does not know are ignored.
SERVER_ENV = {
    "OPEN_GAMES_PER_VISITOR": "0",
    "RATE_CREATE_PER_VISITOR": "",
    "RATE_CREATE_PER_IP": "",
}

T = TypeVar("T")


def seeded(test: T) -> T:
    """``test`` (a Hypothesis test or state machine) drawing from ``HEXMOOT_FUZZ_SEED``, if set."""
    return seed(int(SEED))(test) if SEED is not None else test  # type: ignore[arg-type]


def describe() -> str:
    """How this run draws its examples (printed by each fuzz test, to reproduce a failure)."""
    seed = f"seed {SEED}" if SEED is not None else "derandomized"
    return f"fuzz: {seed}, examples x{SCALE:g}"


class FirstFailure:
    """The first failure of a fuzz run, reported as it was: wrap each example's body in
    :meth:`watch` and the run in :meth:`run`."""

    def __init__(self) -> None:
        self.failure: Exception | None = None

    @contextmanager
    def watch(self) -> Iterator[None]:
        """Wrap an example's body: its failure is kept, if it is the first."""
        try:
            yield
        except Exception as exc:
            if self.failure is None:
                self.failure = exc
            raise

    def run(self, test: Callable[[], object]) -> None:
        """Run a Hypothesis test (or state machine). Shrinking replays examples against a live
        server whose answers differ the second time (ids, times): Hypothesis then reports the
        replay as flaky, and the failure to report is the first one."""
        try:
            test()
        except Flaky as exc:
            if self.failure is None:
                raise
            raise self.failure from exc


def check_error(status: int, body: Any, where: str) -> dict[str, Any]:
    """An HTTP error answer must be the protocol's one shape, with a code whose documented status
    is ``status``; returns its ``error`` object."""
    assert isinstance(body, dict) and set(body) == {"error"}, f"{where}: {status} {body!r}"
    ErrorOut.model_validate(body)
    error: dict[str, Any] = body["error"]
    code = ErrorCode(error["code"])
    documented = STATUS[code]
    assert documented in (status, None), (
        f"{where}: {code} is documented as {documented}, not {status}"
    )
    return error


def game_state(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What a refused request must not change in a snapshot: all of it but who asks and who
    watches, and the instant its clocks were read at (:func:`clock_state`)."""
    state = {k: v for k, v in snapshot.items() if k not in ("you", "spectators")}
    game = state.get("game")
    if isinstance(game, dict) and game.get("clock") is not None:
        state["game"] = {**game, "clock": clock_state(game["clock"], game.get("to_move"))}
    return state


def clock_state(clock: dict[str, Any], to_move: int | None) -> dict[str, Any]:
    """A timed game's clocks apart from when they were read: the running seat's time is kept as the
    instant it runs out (its time left plus ``now``, which a later reading leaves as it was) while
    it lasts; a seat whose time is up keeps 0."""
    remaining = list(clock["remaining"])
    if clock["running"] and to_move is not None and remaining[to_move - 1] > 0:
        remaining[to_move - 1] += clock["now"]
    return {**{k: v for k, v in clock.items() if k != "now"}, "remaining": remaining}
