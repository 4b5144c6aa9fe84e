"""The rules pool: slow games' rules computed in a worker process, with the same answers and errors
as inline, and a new worker when one dies."""

from __future__ import annotations

import os
import random
import signal
from collections.abc import AsyncIterator
from typing import Any

import pytest

import games
from app.compute import RulesPool, canonical_moves, check_move
from games.bench import random_game
from games.errors import IllegalMoveError, InvalidMoveError


@pytest.fixture(scope="module")
async def pool() -> AsyncIterator[RulesPool]:
    rules_pool = RulesPool(1)
    yield rules_pool
    rules_pool.close()


def _pid(_slug: str, _options: Any, _state: Any, _argument: Any) -> int:
    return os.getpid()


def jotun_positions() -> tuple[games.Rules[Any, Any], list[Any], list[str]]:
    rules = games.get("jotun", size=4)
    states, moves = random_game(rules, random.Random(11))
    return rules, states, moves


async def test_a_slow_game_is_answered_by_a_worker_as_it_would_be_inline(pool: RulesPool) -> None:
    rules, states, moves = jotun_positions()
    assert rules.slow_positions
    for ply in range(0, len(moves), max(1, len(moves) // 12)):
        state = states[ply]
        calls = pool.calls
        first = await pool.steps(rules, state, [])
        assert first == rules.steps(state, [])
        origin = sorted(first.next)[0]
        assert await pool.steps(rules, state, [origin]) == rules.steps(state, [origin])
        assert await pool.check_move(rules, state, moves[ply]) == check_move(
            rules, state, moves[ply]
        )
        assert pool.calls == calls + 3
    calls = pool.calls
    assert await pool.canonical_moves(rules, moves) == canonical_moves(rules, moves) == moves
    assert pool.calls == calls + 1


async def test_the_rules_errors_cross_the_process_boundary_unchanged(pool: RulesPool) -> None:
    rules, states, _moves = jotun_positions()
    state = states[3]
    for text, error in (("@@", InvalidMoveError), ("a1-a1", IllegalMoveError)):
        with pytest.raises(error) as inline:
            check_move(rules, state, text)
        with pytest.raises(error) as pooled:
            await pool.check_move(rules, state, text)
        assert str(pooled.value) == str(inline.value)
    with pytest.raises(ValueError) as inline_steps:
        rules.steps(state, ["nowhere"])
    with pytest.raises(ValueError) as pooled_steps:
        await pool.steps(rules, state, ["nowhere"])
    assert str(pooled_steps.value) == str(inline_steps.value)


async def test_fast_games_and_a_pool_of_no_workers_stay_inline() -> None:
    inline = RulesPool(0)
    exxit = games.get("exxit")
    start = exxit.initial_state()
    assert not exxit.slow_positions
    await inline.steps(exxit, start, [])
    jotun = games.get("jotun", size=4)
    await inline.steps(jotun, jotun.initial_state(), [])
    assert inline.calls == 0


async def test_a_killed_worker_is_replaced(pool: RulesPool) -> None:
    rules = games.get("jotun", size=4)
    state = rules.initial_state()
    worker = await pool._run(_pid, rules, state, None)
    assert worker != os.getpid()
    os.kill(worker, signal.SIGKILL)
    replacement = await pool._run(_pid, rules, state, None)
    assert replacement not in (worker, os.getpid())
    assert await pool.steps(rules, state, []) == rules.steps(state, [])
