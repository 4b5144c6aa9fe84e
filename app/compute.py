"""Rules work that may take long, computed in a worker process so the event loop never waits.

Most games answer a click or check a move in well under a millisecond, and the service calls their
rules inline. A game whose rules set ``slow_positions`` (Jotun) can take up to seconds in a few
positions; computed inline, that would freeze every socket of the process. Its ``steps``, its move
checks and the canonical texts of an imported record go to a worker process instead, so a heavy
position delays only the calls queued behind it, and the second core does the work. The worker only
computes: the database and the event loop stay here."""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import games
from games.base import OptionValue, Rules, Steps

T = TypeVar("T")
Options = tuple[tuple[str, OptionValue], ...]


@functools.lru_cache(maxsize=32)
def _rules(slug: str, options: Options) -> Rules[Any, Any]:
    return games.get(slug, **dict(options))


def _steps(slug: str, options: Options, state: Any, prefix: list[str]) -> Steps:
    return _rules(slug, options).steps(state, prefix)


def check_move(rules: Rules[Any, Any], state: Any, text: str) -> tuple[str, Any]:
    """The move's canonical text and the position after it; the rules' errors if it is none."""
    move = rules.parse_move(state, text)
    return rules.format_move(state, move), rules.apply(state, move)


def _check_move(slug: str, options: Options, state: Any, text: str) -> tuple[str, Any]:
    return check_move(_rules(slug, options), state, text)


def canonical_moves(rules: Rules[Any, Any], texts: Sequence[str]) -> list[str]:
    """The canonical text of each move of a game played from the start."""
    canonical: list[str] = []
    state = rules.initial_state()
    for text in texts:
        written, state = check_move(rules, state, text)
        canonical.append(written)
    return canonical


def _canonical_moves(slug: str, options: Options, _state: Any, texts: list[str]) -> list[str]:
    return canonical_moves(_rules(slug, options), texts)


class RulesPool:
    """Runs slow games' rules in worker processes (started on first use); others inline.

    With ``workers=0`` every game runs inline (one core, or to compare).
    """

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self.calls = 0  # calls that went to a worker
        self._executor: ProcessPoolExecutor | None = None

    async def steps(self, rules: Rules[Any, Any], state: Any, prefix: Sequence[str]) -> Steps:
        """``rules.steps(state, prefix)``."""
        if not self._offload(rules):
            return rules.steps(state, list(prefix))
        return await self._run(_steps, rules, state, list(prefix))

    async def check_move(self, rules: Rules[Any, Any], state: Any, text: str) -> tuple[str, Any]:
        """:func:`check_move`."""
        if not self._offload(rules):
            return check_move(rules, state, text)
        return await self._run(_check_move, rules, state, text)

    async def canonical_moves(self, rules: Rules[Any, Any], texts: Sequence[str]) -> list[str]:
        """:func:`canonical_moves` (an imported record: one call for the whole game)."""
        if not self._offload(rules):
            return canonical_moves(rules, texts)
        return await self._run(_canonical_moves, rules, None, list(texts))

    def _offload(self, rules: Rules[Any, Any]) -> bool:
        return rules.slow_positions and self.workers > 0

    async def _run(
        self, work: Callable[..., T], rules: Rules[Any, Any], state: Any, argument: Any
    ) -> T:
        options = tuple(sorted(rules.options.items()))
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            executor = self._pool()
            try:
                self.calls += 1
                return await loop.run_in_executor(
                    executor, work, rules.slug, options, state, argument
                )
            except BrokenProcessPool:
                # A worker died (killed, out of memory): start a new pool and try once more.
                if self._executor is executor:
                    self._executor = None
                executor.shutdown(wait=False, cancel_futures=True)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # spawn, not fork: this process already runs threads (SQLite's, the writer's).
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn")
            )
        return self._executor

    def close(self) -> None:
        """Stop the workers, dropping what is queued (a call under way is finished)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
