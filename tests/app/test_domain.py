"""The pure domain: results of the server's endings, and the fake clock, called directly."""

from __future__ import annotations

import asyncio

from app.domain.clock import FakeClock, idle_cutoff
from app.domain.results import (
    abandonment,
    agreed_draw,
    ending_values,
    resignation,
    result_key,
)

COLOURS = {"1": "white", "2": "black"}


def test_a_resignation_is_won_by_the_other_seat_in_its_colour() -> None:
    assert resignation(1, COLOURS) == {
        "winner": 2,
        "colour": "black",
        "reason": "resignation",
        "scores": None,
    }
    assert result_key(resignation(2, COLOURS)) == "1"


def test_abandonment_cancels_a_waiting_game_and_awards_a_started_one() -> None:
    assert abandonment(False, 1, COLOURS) == (
        "cancelled",
        {"winner": None, "colour": None, "reason": "abandoned", "scores": None},
    )
    ending, result = abandonment(True, 1, COLOURS)
    assert ending == "finished" and result["winner"] == 2 and result["colour"] == "black"
    assert abandonment(True, None, COLOURS)[1]["winner"] is None


def test_ending_values_fill_the_result_column_only_for_finished_games() -> None:
    draw = agreed_draw()
    assert result_key(draw) == "draw"
    finished = ending_values(draw, "finished", 1234)
    assert finished == {
        "status": "finished",
        "reason": "agreement",
        "result_json": draw,
        "finished_at": 1234,
        "last_activity_at": 1234,
        "to_move": None,
        "deadline_at": None,
        "offer": None,
        "away": None,
        "result": "draw",
    }
    cancelled = ending_values(abandonment(False, 1, COLOURS)[1], "cancelled", 99)
    assert cancelled["status"] == "cancelled" and "result" not in cancelled


async def test_the_fake_clock_wakes_sleepers_only_when_advanced_far_enough() -> None:
    clock = FakeClock(start=10_000)
    woken: list[int] = []

    async def sleeper(seconds: float) -> None:
        await clock.sleep(seconds)
        woken.append(clock.now())

    tasks = [asyncio.create_task(sleeper(s)) for s in (2.0, 0.5)]
    await asyncio.sleep(0)
    assert clock.sleepers == 2
    clock.advance(0.4)
    await asyncio.sleep(0)
    assert woken == []
    clock.advance(0.1)
    await asyncio.sleep(0)
    assert woken == [10_500]
    clock.advance(5)
    await asyncio.gather(*tasks)
    assert woken == [10_500, 15_500]
    assert idle_cutoff(clock.now(), 1.5) == 14_000
