"""The rules runner: slow games' rules computed in a worker process, with the same answers and errors
as inline, a new worker when one dies or overruns its time (the others untouched), a close that does
not wait for a stuck call, and one shared Rules per option set."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

import games
from app.errors import AppError
from app.runtime.rules import RulesRunner, check_move, steps_json
from games.bench import random_game
from games.errors import IllegalMoveError, InvalidMoveError, RecordError
from games.record import make_record


@pytest.fixture(scope="module")
async def pool() -> AsyncIterator[RulesRunner]:
    rules_pool = RulesRunner(1)
    yield rules_pool
    rules_pool.close()


def _pid(_slug: str, _options: Any, _state: Any, _argument: Any) -> int:
    return os.getpid()


def jotun_positions() -> tuple[games.Rules[Any, Any], list[Any], list[str]]:
    rules = games.get("jotun", size=4)
    states, moves = random_game(rules, random.Random(11))
    return rules, states, moves


async def test_a_slow_game_is_answered_by_a_worker_as_it_would_be_inline(pool: RulesRunner) -> None:
    rules, states, moves = jotun_positions()
    assert rules.slow_positions
    for ply in range(0, len(moves), max(1, len(moves) // 12)):
        state = states[ply]
        calls = pool.calls
        first = await pool.steps(rules, state, [])
        assert first == steps_json(rules, state, [])
        origin = sorted(first["next"])[0]
        assert await pool.steps(rules, state, [origin]) == steps_json(rules, state, [origin])
        assert await pool.check_move(rules, state, moves[ply]) == check_move(
            rules, state, moves[ply]
        )
        assert pool.calls == calls + 3
    calls = pool.calls
    inline = RulesRunner(0)
    record = make_record(rules, moves)
    imported = await pool.read_record(rules, record)
    assert imported == await inline.read_record(rules, record)
    assert imported.moves == tuple(moves) and imported.outcome == record["result"]
    assert await pool.replay(rules, moves) == states[len(moves)]
    page = await pool.views(rules, moves[:8], 0, 32, 1 << 20)
    assert page.views == [rules.view(s) for s in states[:9]] and page.next is None
    window = await pool.views(rules, moves, 2, 3, 1 << 20)
    assert window.views == [rules.view(s) for s in states[2:5]] and window.next == 5
    assert pool.calls == calls + 4
    assert inline.calls == 0


async def test_the_rules_errors_cross_the_process_boundary_unchanged(pool: RulesRunner) -> None:
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
    bad = [_moves[0], "@@"]
    with pytest.raises(RecordError) as inline_replay:
        await RulesRunner(0).replay(rules, bad)
    with pytest.raises(RecordError) as pooled_replay:
        await pool.replay(rules, bad)
    assert str(pooled_replay.value) == str(inline_replay.value)
    assert pooled_replay.value.ply == inline_replay.value.ply == 2


async def test_fast_games_and_a_pool_of_no_workers_stay_inline() -> None:
    inline = RulesRunner(0)
    exxit = games.get("exxit")
    start = exxit.initial_state()
    assert not exxit.slow_positions
    await inline.steps(exxit, start, [])
    jotun = games.get("jotun", size=4)
    await inline.steps(jotun, jotun.initial_state(), [])
    assert inline.calls == 0


async def test_a_killed_worker_is_replaced(pool: RulesRunner) -> None:
    rules = games.get("jotun", size=4)
    state = rules.initial_state()
    worker = await pool._run(_pid, rules, state, None)
    assert worker != os.getpid()
    os.kill(worker, signal.SIGKILL)
    replacement = await pool._run(_pid, rules, state, None)
    assert replacement not in (worker, os.getpid())
    assert await pool.steps(rules, state, []) == steps_json(rules, state, [])


def _stopped(pid: int, within: float = 10.0) -> bool:
    """Whether process ``pid`` is gone (or a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def _sleep(_slug: str, _options: Any, _state: Any, seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


async def test_a_worker_call_over_the_time_limit_is_refused_and_its_worker_replaced() -> None:
    runner = RulesRunner(1, timeout=60.0)
    rules = games.get("jotun", size=4)
    state = rules.initial_state()
    try:
        first = await runner._run(_pid, rules, state, None)  # the worker is up (spawning is slow)
        runner.timeout = 0.5
        with pytest.raises(AppError) as refused:
            await runner._run(_sleep, rules, state, 30.0)
        assert refused.value.code == "rules_timeout" and refused.value.status == 503
        assert _stopped(first)  # the stuck worker is stopped, not left computing
        runner.timeout = 60.0
        replacement = await runner._run(_pid, rules, state, None)
        assert replacement not in (first, os.getpid())
        assert await runner.steps(rules, state, []) == steps_json(rules, state, [])
    finally:
        runner.close()


def _wait(_slug: str, _options: Any, _state: Any, argument: tuple[str, str, float]) -> int:
    """Test-only work: append this worker's pid to the file ``started``, then wait until the file
    ``go`` exists or ``seconds`` have passed; the pid."""
    started, go, seconds = argument
    with Path(started).open("a") as out:
        out.write(f"{os.getpid()}\n")
    deadline = time.monotonic() + seconds
    while not Path(go).exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return os.getpid()


async def _until(condition: Callable[[], bool], within: float = 120.0) -> None:
    """Wait for ``condition`` (a worker starting: slow under load), failing after ``within`` s."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "the worker call never started"
        await asyncio.sleep(0.02)


async def test_a_call_over_the_time_limit_stops_only_its_own_worker(tmp_path: Path) -> None:
    """With two workers, the call that overran loses its worker; a call under way in the other
    worker is answered by that worker, neither refused nor computed a second time."""
    runner = RulesRunner(2, timeout=60.0)
    rules = games.get("jotun", size=4)
    started, go = tmp_path / "started", tmp_path / "go"
    try:
        innocent = asyncio.create_task(
            runner._run(_wait, rules, None, (str(started), str(go), 120.0))
        )
        await _until(started.exists)
        runner.timeout = 0.5
        with pytest.raises(AppError) as refused:
            await runner._run(_sleep, rules, None, 60.0)
        assert refused.value.code == "rules_timeout"
        go.touch()
        answered_by = await innocent
        assert started.read_text().split() == [str(answered_by)]
    finally:
        runner.close()


async def test_a_call_whose_worker_dies_is_tried_once_more(
    pool: RulesRunner, tmp_path: Path
) -> None:
    rules = games.get("jotun", size=4)
    started, go = tmp_path / "started", tmp_path / "go"
    call = asyncio.create_task(pool._run(_wait, rules, None, (str(started), str(go), 120.0)))
    await _until(started.exists)
    first = int(started.read_text())
    os.kill(first, signal.SIGKILL)
    await _until(lambda: len(started.read_text().split()) == 2)
    go.touch()
    again = await call
    assert started.read_text().split() == [str(first), str(again)] and again != first


async def test_closing_does_not_wait_for_a_call_under_way(tmp_path: Path) -> None:
    """A stuck call (60 s here, up to the timeout in production) does not hold up the server's
    shutdown: its worker is stopped and its caller told ``rules_timeout``."""
    runner = RulesRunner(1, timeout=120.0)
    rules = games.get("jotun", size=4)
    started = tmp_path / "started"
    stuck = asyncio.create_task(
        runner._run(_wait, rules, None, (str(started), str(tmp_path / "never"), 60.0))
    )
    await _until(started.exists)
    under_way_since = time.monotonic()
    runner.close()
    assert time.monotonic() - under_way_since < 60.0  # the stuck call had not finished
    with pytest.raises(AppError) as told:
        await stuck
    assert told.value.code == "rules_timeout"
    assert _stopped(int(started.read_text()))


def test_one_rules_object_per_game_and_option_set() -> None:
    runner = RulesRunner(0)
    jotun = runner.rules("jotun", {"size": 4})
    assert runner.rules("jotun", {"size": 4}) is jotun
    default = runner.rules("jotun", {})
    assert runner.rules("jotun", dict(default.options)) is default
    record = {"format": "hexmoot-record/1", "game": "jotun", "options": {"size": 4}, "moves": []}
    assert runner.record_rules(record) is jotun
    with pytest.raises(ValueError):
        runner.rules("jotun", {"size": [4]})
    bounded = RulesRunner(0, cache_size=1)
    first = bounded.rules("jotun", {"size": 4})
    bounded.rules("jotun", {"size": 6})  # past the bound, the least recently used one is dropped
    assert bounded.rules("jotun", {"size": 4}) is not first
