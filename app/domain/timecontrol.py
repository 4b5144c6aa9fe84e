"""Time controls and game clocks: pure arithmetic on integer milliseconds (no IO, no clock read).

A game has one of three time controls, chosen when it is created:

- ``unlimited``: no clock (the default);
- ``realtime``: Fischer. Each seat starts with ``base`` seconds and gains ``increment`` seconds after
  each of its moves. The server charges a mover the time between the moment its turn began *on the
  server* and the moment its move was received, less a lag allowance (below);
- ``correspondence``: ``days`` per move; every move gives the other seat a fresh ``days``.

**When clocks start.** Clocks start only after both seats have made their first move of play: in a
game with the pie rule, the setup and the colour choice come first and are not moves of play, so
the clock starts after the first move of each seat once colours are chosen. Until then nobody is
charged, and either player may abort the game.

**Lag compensation** (in the style of lichess's ``LagTracker``). A client reports its network lag
with each move (``lag_ms``: half its measured ping round trip). The server credits the mover::

    comp   = min(max(lag_ms, 0), quota, LAG_CAP_MS, elapsed)
    charge = elapsed - comp
    quota' = min(quota + gain - comp, 7 * gain)

where each seat's ``quota`` starts at ``3 * gain`` and ``gain`` is ``clamp(estimate, 100, 500)`` ms
for ``estimate = base + 40 * increment`` seconds (100 ms for 1+0, 260 ms for 3+2, 500 ms from
10+0). A client that lies about its lag gains at most its quota, which refills by ``gain`` per move:
a slow network is not charged for the network, and an honest fast one loses nothing.

**Flagging.** A seat's deadline is when its running clock reaches zero (``deadline``); a move that
reaches the server after it but whose compensated charge still fits is accepted, so the server
flags the seat only once no allowance can cover a move any more (``flag_at``: the deadline plus
``min(quota, LAG_CAP_MS)``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal, TypeGuard

DAY_MS = 86_400_000
CORRESPONDENCE_DAYS = (1, 2, 3, 5, 7, 14)
#: The lobby's real-time presets: (minutes, increment seconds).
PRESETS = ((1, 0), (3, 2), (5, 3), (10, 5), (15, 10), (30, 20))
BASE_MIN_S, BASE_MAX_S = 30, 3 * 3600
INCREMENT_MAX_S = 180
LAG_CAP_MS = 5_000

Kind = Literal["unlimited", "realtime", "correspondence"]


class TimeControlError(ValueError):
    """A time control that is not one of the allowed ones; ``field`` names the bad part."""

    def __init__(self, message: str, field: str = "time_control") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class TimeControl:
    """A game's time control: seconds for ``realtime``, days for ``correspondence``."""

    kind: Kind = "unlimited"
    base: int = 0
    increment: int = 0
    days: int = 0

    @staticmethod
    def parse(raw: object) -> TimeControl:
        """The time control a request asks for (None: unlimited); TimeControlError if invalid."""
        if raw is None:
            return UNLIMITED
        if not isinstance(raw, dict):
            raise TimeControlError("time_control must be an object")
        kind = raw.get("kind")
        allowed = {"unlimited": {"kind"}, "realtime": {"kind", "base", "increment"}}
        allowed["correspondence"] = {"kind", "days"}
        if not isinstance(kind, str) or kind not in allowed:
            raise TimeControlError(
                "time_control.kind must be unlimited, realtime or correspondence",
                "time_control.kind",
            )
        extra = set(raw) - allowed[kind]
        if extra:
            name = sorted(extra)[0]
            raise TimeControlError(f"{kind} takes no {name!r}", f"time_control.{name}")
        if kind == "unlimited":
            return UNLIMITED
        if kind == "correspondence":
            days = raw.get("days")
            if isinstance(days, bool) or days not in CORRESPONDENCE_DAYS:
                raise TimeControlError(
                    f"days must be one of {', '.join(map(str, CORRESPONDENCE_DAYS))}",
                    "time_control.days",
                )
            return TimeControl("correspondence", days=int(days))
        base, increment = raw.get("base"), raw.get("increment", 0)
        if not _whole(base) or not BASE_MIN_S <= base <= BASE_MAX_S:
            raise TimeControlError(
                f"base must be whole seconds from {BASE_MIN_S} to {BASE_MAX_S}",
                "time_control.base",
            )
        if not _whole(increment) or not 0 <= increment <= INCREMENT_MAX_S:
            raise TimeControlError(
                f"increment must be whole seconds from 0 to {INCREMENT_MAX_S}",
                "time_control.increment",
            )
        return TimeControl("realtime", base=base, increment=increment)

    @staticmethod
    def stored(raw: dict[str, Any] | None) -> TimeControl:
        """A time control as the database keeps it (None: unlimited)."""
        return UNLIMITED if raw is None else TimeControl.parse(raw)

    def to_json(self) -> dict[str, Any]:
        if self.kind == "realtime":
            return {"kind": "realtime", "base": self.base, "increment": self.increment}
        if self.kind == "correspondence":
            return {"kind": "correspondence", "days": self.days}
        return {"kind": "unlimited"}

    @property
    def timed(self) -> bool:
        return self.kind != "unlimited"

    def label(self) -> str:
        """How people write it: "3+2", "½+0" (30 s), "1½+1", "100s+0", "3 days", "Unlimited".

        >>> [TimeControl("realtime", b, 0).label() for b in (30, 60, 90, 100, 180)]
        ['½+0', '1+0', '1½+0', '100s+0', '3+0']
        """
        if self.kind == "realtime":
            whole, rest = divmod(self.base, 60)
            fraction = {0: "", 15: "¼", 30: "½", 45: "¾"}.get(rest)
            shown = f"{whole or ''}{fraction}" if fraction is not None else f"{self.base}s"
            return f"{shown}+{self.increment}"
        if self.kind == "correspondence":
            return f"{self.days} day{'s' if self.days > 1 else ''} per move"
        return "Unlimited"

    @property
    def gain_ms(self) -> int:
        """The lag quota's gain per move (see the module's formula)."""
        return min(500, max(100, self.base + 40 * self.increment))

    @property
    def per_move_ms(self) -> int:
        """A correspondence move's time."""
        return self.days * DAY_MS


UNLIMITED = TimeControl()


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Clocks:
    """Both seats' clocks between two events.

    ``remaining[i]`` is seat ``i + 1``'s time as of ``turn_started_at`` (for correspondence, the
    time of the current move). ``moved[i]``: seat ``i + 1`` has made a move of play. ``running``:
    the clocks have started; then the seat to move is charged from ``turn_started_at``.
    """

    remaining: tuple[int, int]
    quota: tuple[int, int]
    moved: tuple[bool, bool] = (False, False)
    running: bool = False
    turn_started_at: int | None = None

    @staticmethod
    def start(control: TimeControl) -> Clocks:
        """A new game's clocks (an unlimited game's never run: they only note who has moved,
        which says until when the game may be aborted)."""
        if control.kind == "realtime":
            ms = control.base * 1000
            return Clocks((ms, ms), (3 * control.gain_ms, 3 * control.gain_ms))
        if control.kind == "correspondence":
            ms = control.per_move_ms
            return Clocks((ms, ms), (0, 0))
        return Clocks((0, 0), (0, 0))

    @property
    def both_moved(self) -> bool:
        """Both seats have made a move of play: the game can no longer be aborted."""
        return self.moved[0] and self.moved[1]

    def to_json(self) -> dict[str, Any]:
        return {
            "remaining": list(self.remaining),
            "quota": list(self.quota),
            "moved": list(self.moved),
            "running": self.running,
            "turn_started_at": self.turn_started_at,
        }

    @staticmethod
    def from_json(raw: dict[str, Any]) -> Clocks:
        remaining, quota, moved = raw["remaining"], raw["quota"], raw["moved"]
        return Clocks(
            (int(remaining[0]), int(remaining[1])),
            (int(quota[0]), int(quota[1])),
            (bool(moved[0]), bool(moved[1])),
            bool(raw["running"]),
            raw.get("turn_started_at"),
        )

    def left(self, seat: int, to_move: int | None, now: int) -> int:
        """Seat ``seat``'s time at ``now`` (never below zero)."""
        base = self.remaining[seat - 1]
        if self.running and to_move == seat and self.turn_started_at is not None:
            base -= max(0, now - self.turn_started_at)
        return max(0, base)

    def deadline(self, to_move: int | None) -> int | None:
        """When the seat to move runs out of time, if its clock runs."""
        if not self.running or to_move is None or self.turn_started_at is None:
            return None
        return self.turn_started_at + self.remaining[to_move - 1]

    def flag_at(self, to_move: int | None, control: TimeControl) -> int | None:
        """When the server flags the seat to move: its :meth:`deadline` plus the most lag
        allowance a move of its could still be granted (``min(quota, LAG_CAP_MS)`` in real time),
        so that a late move the allowance covers can still arrive in time.

        >>> clocks = Clocks((1000, 1000), (300, 300), (True, True), True, 0)
        >>> clocks.deadline(1), clocks.flag_at(1, TimeControl("realtime", 60, 0))
        (1000, 1300)
        """
        deadline = self.deadline(to_move)
        if deadline is None or to_move is None or control.kind != "realtime":
            return deadline
        return deadline + min(self.quota[to_move - 1], LAG_CAP_MS)


@dataclass(frozen=True)
class Charged:
    """What a move cost: the clocks after it, the time charged and the mover's time left."""

    clocks: Clocks
    spent: int
    left: int
    comp: int


class OutOfTime(Exception):
    """The mover's time ran out before its move arrived (even with its lag allowance)."""


def charge(
    control: TimeControl,
    clocks: Clocks,
    seat: int,
    now: int,
    lag_ms: int,
    of_play: bool,
    next_to_move: int | None,
) -> Charged:
    """Charge seat ``seat`` for a move received at ``now``; the clocks after it.

    ``of_play``: the move is a move of play (not the pie's setup or choice). ``next_to_move``: the
    seat to move after it (None when the move ends the game). Raises OutOfTime if the mover had
    no time left even after its lag allowance.
    """
    i = seat - 1
    remaining, quota = list(clocks.remaining), list(clocks.quota)
    spent = comp = 0
    if clocks.running and clocks.turn_started_at is not None:
        elapsed = max(0, now - clocks.turn_started_at)
        if control.kind == "realtime":
            comp = min(max(lag_ms, 0), quota[i], LAG_CAP_MS, elapsed)
            quota[i] = min(quota[i] + control.gain_ms - comp, 7 * control.gain_ms)
        spent = elapsed - comp
        if spent > remaining[i]:
            raise OutOfTime
        remaining[i] -= spent
        if control.kind == "realtime":
            remaining[i] += control.increment * 1000
    if control.kind == "correspondence":
        remaining[i] = control.per_move_ms
        if next_to_move is not None:
            remaining[next_to_move - 1] = control.per_move_ms
    moved = list(clocks.moved)
    if of_play:
        moved[i] = True
    running = control.timed and (clocks.running or (moved[0] and moved[1]))
    after = Clocks(
        (remaining[0], remaining[1]),
        (quota[0], quota[1]),
        (moved[0], moved[1]),
        running and next_to_move is not None,
        now if running and next_to_move is not None else None,
    )
    return Charged(after, spent, remaining[i], comp)


def credit(clocks: Clocks, last_alive: int, now: int) -> Clocks:
    """The clocks after a site outage: the seat to move is charged only up to ``last_alive`` (the
    last sign of life before the outage), so the time the site was down costs nobody anything."""
    if not clocks.running or clocks.turn_started_at is None:
        return clocks
    charged = max(0, last_alive - clocks.turn_started_at)
    return replace(clocks, turn_started_at=now - charged)


def undo(clocks: Clocks, to_move: int | None, now: int) -> Clocks:
    """The clocks after a takeback: the seat to move again starts its turn now, with the time it
    had (the takeback gives no one time back, nor takes any)."""
    if not clocks.running:
        return clocks
    remaining = list(clocks.remaining)
    if clocks.turn_started_at is not None:
        for seat in (1, 2):
            remaining[seat - 1] = clocks.left(seat, to_move, now)
    return replace(clocks, remaining=(remaining[0], remaining[1]), turn_started_at=now)
