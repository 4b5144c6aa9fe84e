"""Benchmarks of the rules engines (``make bench`` / ``python -m games bench``).

Positions are sampled from seeded random games. For each game at its default options it reports the
median and 99th percentile of ``legal_moves`` (via ``Rules.bench_legal``: the work the server does for
one position) and of ``apply``, and random playouts per second, two ways: as the server plays a move
(``random_move``, its canonical text, ``apply``), and on the fast path a search uses
(``search_random_move`` and ``search_apply``, no texts). Benchmarks, never tests: timings on a
shared 2-core machine are noisy, so figures are medians over many samples.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from . import get
from .base import Rules

T = TypeVar("T")


@dataclass
class Figures:
    """One game's measured figures (milliseconds and playouts per second)."""

    game: str
    positions: int
    legal_median_ms: float
    legal_p99_ms: float
    apply_median_ms: float
    apply_p99_ms: float
    playouts_per_s: float
    median_moves: float
    fast_playouts_per_s: float = 0.0

    def line(self) -> str:
        """A one-line report."""
        return (
            f"{self.game:10} legal_moves median {self.legal_median_ms:7.3f} ms  "
            f"p99 {self.legal_p99_ms:8.3f} ms | apply median {self.apply_median_ms:6.3f} ms  "
            f"p99 {self.apply_p99_ms:7.3f} ms | {self.playouts_per_s:7.2f} playouts/s | "
            f"fast {self.fast_playouts_per_s:8.2f} playouts/s | "
            f"median {self.median_moves:g} moves/position over {self.positions} positions"
        )


def random_game(
    rules: Rules[Any, Any], rng: random.Random, max_plies: int = 100_000
) -> tuple[list[Any], list[str]]:
    """The states of one random game (initial and final included) and its canonical move texts."""
    state = rules.initial_state()
    states: list[Any] = [state]
    texts: list[str] = []
    while rules.to_move(state) is not None and len(texts) < max_plies:
        move = rules.random_move(state, rng)
        texts.append(rules.format_move(state, move))
        state = rules.apply(state, move)
        states.append(state)
    return states, texts


def fast_playout(rules: Rules[Any, Any], rng: random.Random, max_plies: int = 100_000) -> Any:
    """The final state of one random game played on the fast path (no texts, no checks)."""
    state = rules.initial_state()
    plies = 0
    while rules.to_move(state) is not None and plies < max_plies:
        state = rules.search_apply(state, rules.search_random_move(state, rng))
        plies += 1
    return state


def _percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def _time(fn: Callable[[], T]) -> tuple[T, float]:
    """The result of ``fn()`` and the milliseconds it took."""
    t = time.perf_counter()
    result = fn()
    return result, (time.perf_counter() - t) * 1000


def measure(slug: str, games_played: int = 6, per_game: int = 25, seed: int = 1) -> Figures:
    """Measure ``slug`` at its default options."""
    rules = get(slug)
    rng = random.Random(seed)
    positions: list[Any] = []
    t0 = time.perf_counter()
    for _ in range(games_played):
        states, _ = random_game(rules, rng)
        live = [s for s in states if rules.to_move(s) is not None]
        positions.extend(rng.sample(live, min(per_game, len(live))))
    playouts = games_played / (time.perf_counter() - t0)
    fast_rng = random.Random(seed)
    t0 = time.perf_counter()
    for _ in range(games_played):
        fast_playout(rules, fast_rng)
    fast = games_played / (time.perf_counter() - t0)
    legal: list[float] = []
    applies: list[float] = []
    counts: list[int] = []
    for state in positions:
        # the first call on a position is the one timed: an engine's caches must not flatter it
        count, elapsed = _time(partial(rules.bench_legal, state))
        counts.append(count)
        legal.append(elapsed)
        move = rules.random_move(state, rng)
        applies.append(_time(partial(rules.apply, state, move))[1])
    return Figures(
        slug,
        len(positions),
        statistics.median(legal),
        _percentile(legal, 0.99),
        statistics.median(applies),
        _percentile(applies, 0.99),
        playouts,
        statistics.median(counts),
        fast,
    )
