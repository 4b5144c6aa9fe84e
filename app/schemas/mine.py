""" "My games" and challenges: bodies and answers (``docs/protocol.md``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictStr

from app.schemas.requests import Seat, Strict, TimeControlField
from app.schemas.responses import ClockOut, OptionValue, Out, TimeControlOut


class MyGame(Out):
    """One of the visitor's games, from the side of its seat."""

    id: str
    game: str
    title: str
    status: Literal["waiting", "active", "finished"]
    seat: Literal[1, 2]
    opponent: str | None = Field(description="the name the opponent's seat was taken with")
    opponent_account: str | None = Field(
        description="the username of the opponent's account; null: a guest, or nobody yet"
    )
    your_turn: bool
    moves: int
    rated: bool
    public: bool
    last_activity: int
    url: str
    invite_url: str | None = Field(description="a waiting game you created: its invitation")
    outcome: Literal["won", "lost", "draw"] | None = Field(description="a finished game's")
    time: str = Field(description='its time control as people write it: "3+2", "Unlimited"')
    clock: ClockOut | None = Field(description="a timed game's clocks (see the game socket)")
    rematch_of: str | None = Field(description="the game this one is a rematch of")
    rematch_id: str | None = Field(description="this game's rematch, once accepted")


class ChallengePerson(Out):
    """An account as a challenge names it."""

    username: str | None
    display_name: str | None


class ChallengeOut(Out):
    """A challenge (``from`` challenges ``to``; ``seat`` is the challenger's)."""

    id: str
    from_: ChallengePerson = Field(alias="from")
    to: ChallengePerson
    incoming: bool = Field(description="you are the one challenged")
    game: str
    title: str
    options: dict[str, OptionValue]
    seat: Literal["1", "2", "random"]
    rated: bool
    time_control: TimeControlOut | None = Field(description="null: unlimited")
    time: str = Field(description='the time control as people write it: "3+2", "Unlimited"')
    status: Literal["pending", "accepted", "declined", "cancelled"]
    game_id: str | None
    created_at: int


class Challenges(Out):
    """The visitor's pending challenges."""

    incoming: list[ChallengeOut]
    outgoing: list[ChallengeOut]


class MyGamesOut(Out):
    """Everything "My games" lists."""

    your_turn: list[MyGame] = Field(description="active games where you are to move, oldest first")
    waiting: list[MyGame] = Field(description="active games waiting for your opponent")
    open: list[MyGame] = Field(description="your games that nobody joined yet")
    challenges: Challenges
    finished: list[MyGame] = Field(description="your last 20 finished games, newest first")
    turn_count: int
    now: int = Field(description="the server's time (epoch ms), to age the entries by")


class ChallengeIn(Strict):
    """``POST /api/challenges``: whom, which game and options, the challenger's seat, rated."""

    to: StrictStr = Field(max_length=100)
    game: StrictStr
    options: dict[str, Any] = Field(default_factory=dict)
    seat: Seat = "random"
    rated: bool = False
    time_control: TimeControlField = Field(
        None, description="as for POST /api/games (default: unlimited)"
    )


class ChallengeAnswerOut(Out):
    """A challenge accepted (with its game), declined or cancelled."""

    id: str
    status: Literal["accepted", "declined", "cancelled"]
    game_id: str | None
    url: str | None
