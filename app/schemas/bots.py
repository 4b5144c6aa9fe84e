"""Playing the computer: the request that starts a game against a bot, and the bots' list
(``docs/protocol.md``, "Bots")."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictStr

from app.schemas.requests import Seat, Strict, TimeControlField
from app.schemas.responses import Out

Level = Literal["beginner", "easy", "medium", "hard"]


class BotGameIn(Strict):
    """``POST /api/bots/games``: the game, its options, the bot's level, the player's own seat,
    rated or casual, and the time control."""

    game: StrictStr
    options: dict[str, Any] = Field(default_factory=dict)
    level: Level = "beginner"
    seat: Seat = Field("random", description='your seat: 1 (you move first), 2 or "random"')
    rated: bool = Field(False, description="rated games need an account, as against a person")
    time_control: TimeControlField = Field(
        None, description="as for POST /api/games: unlimited by default"
    )


class BotLevelOut(Out):
    """What one level plays in one game: its algorithm and its budget (``games.bots.LEVELS``), and
    the bot's rating there (null before its first rated game)."""

    game: str
    title: str
    algorithm: Literal["greedy", "mcts"] = Field(
        description="greedy: one ply with the game's evaluator; mcts: UCT with cut-off playouts"
    )
    simulations: int = Field(description="tree simulations per move (0 for greedy)")
    candidates: int = Field(description="moves considered at a node")
    temperature: float = Field(description="how freely it samples among near-best moves")
    rating: int | None
    provisional: bool
    games: int


class BotOut(Out):
    """One bot: an account of its own, one per level."""

    level: Level
    username: str
    display_name: str
    url: str = Field(description="its profile page")
    games: list[BotLevelOut]


class BotTokenOut(Out):
    """``POST /api/bots/token``: a session of the account for a program, shown once."""

    token: str = Field(description="the session cookie's value: send it as the cookie named below")
    cookie: str = Field(description="the cookie's name: hexmoot_session")
    session: str = Field(description="its public id: DELETE /api/account/sessions/{id} revokes it")


class BotsOut(Out):
    """``GET /api/bots``: every bot, weakest first."""

    bots: list[BotOut]
