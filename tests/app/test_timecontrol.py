"""Fischer arithmetic and lag compensation (``app.domain.timecontrol``), as pure functions: no
server, no clock but the numbers given."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.timecontrol import (
    Clocks,
    OutOfTime,
    TimeControl,
    TimeControlError,
    charge,
    credit,
)

BLITZ = TimeControl("realtime", base=180, increment=2)
T0 = 1_000_000


def started(control: TimeControl = BLITZ, at: int = T0) -> Clocks:
    """Clocks after both seats' first moves of play, seat 1 to move, its turn begun at ``at``."""
    clocks = Clocks.start(control)
    clocks = charge(control, clocks, 1, at - 20, 0, True, 2).clocks
    clocks = charge(control, clocks, 2, at, 0, True, 1).clocks
    assert clocks.running and clocks.turn_started_at == at
    return clocks


def test_parse_accepts_the_offered_controls_and_refuses_the_rest() -> None:
    assert TimeControl.parse(None) == TimeControl()
    assert TimeControl.parse({"kind": "realtime", "base": 180, "increment": 2}) == BLITZ
    assert TimeControl.parse({"kind": "correspondence", "days": 3}).days == 3
    assert BLITZ.label() == "3+2" and TimeControl("realtime", 30, 0).label() == "½+0"
    bad = [
        ({"kind": "realtime", "base": 10}, "time_control.base"),
        ({"kind": "realtime", "base": 60, "increment": 181}, "time_control.increment"),
        ({"kind": "realtime", "base": True}, "time_control.base"),
        ({"kind": "realtime", "base": 60.5}, "time_control.base"),
        ({"kind": "correspondence", "days": 4}, "time_control.days"),
        ({"kind": "correspondence", "days": 3, "base": 1}, "time_control.base"),
        ({"kind": "blitz"}, "time_control.kind"),
        ({"kind": [{"": []}], "days": 2}, "time_control.kind"),  # unhashable: found by the fuzzer
        ({"kind": "correspondence", "days": [2]}, "time_control.days"),
        ("3+2", "time_control"),
    ]
    for raw, field in bad:
        with pytest.raises(TimeControlError) as caught:
            TimeControl.parse(raw)
        assert caught.value.field == field, raw


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = st.sampled_from(["kind", "base", "increment", "days"])


@given(
    st.one_of(
        JSON,
        st.dictionaries(KEYS, JSON | st.sampled_from(["realtime", "correspondence", "unlimited"])),
    )
)
def test_parse_of_any_json_is_a_control_or_a_time_control_error(raw: object) -> None:
    try:
        TimeControl.parse(raw)
    except TimeControlError as error:
        assert error.field is not None and error.field.startswith("time_control")


def test_clocks_start_after_both_first_moves_of_play() -> None:
    clocks = Clocks.start(BLITZ)
    # The pie's setup and choice are not moves of play: nobody is charged, nothing runs.
    clocks = charge(BLITZ, clocks, 1, T0, 0, False, 2).clocks
    clocks = charge(BLITZ, clocks, 2, T0 + 50_000, 0, False, 1).clocks
    assert not clocks.running and clocks.remaining == (180_000, 180_000)
    clocks = charge(BLITZ, clocks, 1, T0 + 90_000, 0, True, 2).clocks
    assert not clocks.running and not clocks.both_moved
    clocks = charge(BLITZ, clocks, 2, T0 + 99_000, 0, True, 1).clocks
    assert clocks.running and clocks.both_moved and clocks.turn_started_at == T0 + 99_000
    assert clocks.deadline(1) == T0 + 99_000 + 180_000


def test_fischer_charges_the_turn_and_adds_the_increment() -> None:
    clocks = started()
    after = charge(BLITZ, clocks, 1, T0 + 7_250, 0, True, 2)
    assert after.spent == 7_250
    assert after.left == 180_000 - 7_250 + 2_000
    assert after.clocks.remaining == (after.left, 180_000)
    assert after.clocks.turn_started_at == T0 + 7_250
    assert after.clocks.deadline(2) == T0 + 7_250 + 180_000
    # Seat 2's time at any instant of its turn; seat 1's stands still.
    assert after.clocks.left(2, 2, T0 + 10_250) == 177_000
    assert after.clocks.left(1, 2, T0 + 10_250) == after.left


def test_lag_is_credited_from_a_bounded_quota() -> None:
    gain = BLITZ.gain_ms
    assert gain == 260  # clamp(180 + 40 * 2, 100, 500)
    clocks = started()
    assert clocks.quota[0] == 3 * gain
    # An honest lag of 150 ms is credited whole; the quota refills by its gain less the credit.
    first = charge(BLITZ, clocks, 1, T0 + 1_000, 150, True, 2)
    assert first.comp == 150 and first.spent == 850
    assert first.clocks.quota[0] == 3 * gain + gain - 150
    # A claimed lag of 60 s gets at most the quota, which then refills from nothing.
    second = charge(BLITZ, first.clocks, 2, T0 + 2_000, 60_000, True, 1)
    assert second.comp == 3 * gain and second.clocks.quota[1] == gain
    # The quota never exceeds 7 gains, whatever the moves.
    clocks, at, seat = second.clocks, T0 + 2_000, 1
    for _ in range(20):
        at += 1_000
        clocks, seat = charge(BLITZ, clocks, seat, at, 0, True, 3 - seat).clocks, 3 - seat
    assert clocks.quota == (7 * gain, 7 * gain)


def test_a_move_after_the_flag_is_out_of_time_unless_lag_covers_it() -> None:
    clocks = started()
    with pytest.raises(OutOfTime):
        charge(BLITZ, clocks, 1, T0 + 180_001, 0, True, 2)
    # 500 ms late, but the network took 600: the allowance (780 ms of quota) covers it.
    saved = charge(BLITZ, clocks, 1, T0 + 180_500, 600, True, 2)
    assert saved.spent == 179_900 and saved.left == 100 + 2_000


def test_correspondence_gives_each_move_a_fresh_deadline() -> None:
    days = TimeControl("correspondence", days=3)
    clocks = started(days)
    assert clocks.deadline(1) == T0 + 3 * 86_400_000
    after = charge(days, clocks, 1, T0 + 86_400_000, 0, True, 2)
    assert after.clocks.remaining == (3 * 86_400_000, 3 * 86_400_000)
    assert after.clocks.deadline(2) == T0 + 86_400_000 + 3 * 86_400_000


def test_an_outage_costs_nobody_any_time() -> None:
    clocks = started()
    # Seat 1 thought for 4 s, then the site was down from T0 + 4 s to T0 + 10 min.
    restarted = credit(clocks, T0 + 4_000, T0 + 600_000)
    assert restarted.left(1, 1, T0 + 600_000) == 176_000
    assert restarted.deadline(1) == T0 + 600_000 + 176_000
    # A turn begun after the last sign of life starts again whole.
    assert credit(clocks, T0 - 500, T0 + 600_000).left(1, 1, T0 + 600_000) == 180_000


@given(
    moves=st.lists(st.tuples(st.integers(0, 20_000), st.integers(0, 10_000)), max_size=40),
)
def test_time_is_conserved(moves: list[tuple[int, int]]) -> None:
    """Each seat's time is its start, plus its increments, less what it was charged; a charge is
    never negative and never more than the time the turn took."""
    clocks = started()
    at, seat = T0, 1
    spent = {1: 0, 2: 0}
    increments = {1: 0, 2: 0}
    for think, lag in moves:
        at += think
        try:
            after = charge(BLITZ, clocks, seat, at, lag, True, 3 - seat)
        except OutOfTime:
            break
        assert 0 <= after.spent <= think
        spent[seat] += after.spent
        increments[seat] += 2_000
        clocks, seat = after.clocks, 3 - seat
    for s in (1, 2):
        assert clocks.remaining[s - 1] == 180_000 + increments[s] - spent[s]
