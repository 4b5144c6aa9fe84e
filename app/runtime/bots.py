"""The bots' search, in worker processes: the only other module of the app that calls ``games``.

A bot's move is a search of up to a few seconds of processor time (``games.bots``): computed on the
event loop it would freeze every socket of the process, so it always runs in a worker of a pool of
its own, ``BOT_WORKERS`` processes (default 1), bounded, so a hundred bot games queue rather than
start a hundred searches. It is a separate pool from the rules runner's (:mod:`app.runtime.rules`)
on purpose: a queue of bot searches must never delay a person's Jotun click. The pool is built the
same way (pebble's ``ProcessPool``, spawned, each worker dying with the server through the rules
runner's ``_die_with_parent``), and a call has two limits:

- the **search's deadline** (``seconds``): ``decide`` stops its search early when it passes and
  plays the best move found so far, a safety net only, since a level is defined by its budget;
- the **hard limit** (``seconds`` plus :data:`HARD_MARGIN`): past it pebble stops the worker, a
  new one takes its place, and the caller gets :class:`BotFailed`, as it does when a worker dies.

The worker is given the game's slug, options and moves, never a state: it replays the moves
itself (``games.record.replay_moves``), so nothing but text crosses the process boundary.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from pebble import ProcessExpired, ProcessPool

import games
from app.runtime.rules import _die_with_parent
from games.bots import LEVEL_NAMES, LEVELS, decide
from games.record import replay_moves

#: Seconds a search may overrun its own deadline before its worker is stopped.
HARD_MARGIN = 5.0

Options = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Move:
    """A bot's decision as the app needs it: the move's canonical text, or a resignation."""

    text: str
    resign: bool
    value: float
    nodes: int
    seconds: float


class BotFailed(RuntimeError):
    """The search did not answer: its worker overran the hard limit, died, or the pool stopped."""


@dataclass(frozen=True)
class LevelInfo:
    """What one level of one game is, for the bots' page."""

    game: str
    level: str
    algorithm: str
    simulations: int
    candidates: int
    temperature: float


def levels() -> list[LevelInfo]:
    """Every game's levels, weakest first (``games.bots.LEVELS``)."""
    return [
        LevelInfo(
            slug,
            level.name,
            level.algorithm,
            level.budget.simulations if level.algorithm == "mcts" else 0,
            level.budget.candidates,
            level.temperature,
        )
        for slug, by_name in LEVELS.items()
        for level in by_name.values()
    ]


def level_names() -> tuple[str, ...]:
    """The levels, weakest first."""
    return LEVEL_NAMES


def _decide(
    slug: str, options: Options, moves: list[str], level: str, seed_key: str, seconds: float
) -> Move:
    """In a worker: the position after ``moves``, and the bot's decision in it."""
    started = time.monotonic()
    rules = games.get(slug, dict(options))
    state = replay_moves(rules, moves)
    decision = decide(rules, state, level, seed_key, started + seconds)
    return Move(
        decision.text,
        decision.resign,
        decision.value,
        decision.nodes,
        time.monotonic() - started,
    )


class BotPool:
    """The bots' worker processes (started on first use). ``workers=0`` searches inline, for
    tests of a single process that want no subprocess (it blocks the event loop meanwhile)."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self.calls = 0
        self._pool: ProcessPool | None = None
        self._closed = False

    async def decide(
        self,
        slug: str,
        options: dict[str, Any],
        moves: list[str],
        level: str,
        seed_key: str,
        seconds: float,
    ) -> Move:
        """The decision of the bot of ``level`` after ``moves`` (seeded by ``seed_key``, the
        game's id), its search stopped after ``seconds``; BotFailed if no answer came."""
        frozen = tuple(sorted(options.items()))
        self.calls += 1
        if self.workers <= 0:
            return _decide(slug, frozen, moves, level, seed_key, seconds)
        call: Future[Move] = self._process_pool().schedule(
            _decide,
            args=(slug, frozen, moves, level, seed_key, seconds),
            timeout=seconds + HARD_MARGIN,
        )
        try:
            # Shielded: a driver cancelled at shutdown must not leave pebble to kill the worker
            # of a call that is about to answer; the pool's close stops it anyway.
            return await asyncio.shield(asyncio.wrap_future(call))
        except TimeoutError:
            raise BotFailed(f"the search overran {seconds + HARD_MARGIN:g} s") from None
        except (ProcessExpired, BrokenProcessPool) as exc:
            raise BotFailed(f"the bot's worker died: {exc!r}") from None

    def _process_pool(self) -> ProcessPool:
        if self._closed:
            raise BotFailed("the server is stopping")
        if self._pool is not None and not self._pool.active:
            _stop(self._pool)
            self._pool = None
        if self._pool is None:
            self._pool = ProcessPool(
                self.workers,
                initializer=_die_with_parent,
                initargs=(os.getpid(),),
                context=multiprocessing.get_context("spawn"),
            )
        return self._pool

    def close(self) -> None:
        """Stop the workers at once; calls under way are told BotFailed."""
        self._closed = True
        if self._pool is not None:
            _stop(self._pool)
            self._pool = None


def _stop(pool: ProcessPool) -> None:
    pool.stop()  # type: ignore[no-untyped-call]  # pebble 5.2 leaves it unannotated
    pool.join()
