"""Profiles and leaderboards: answers (``docs/protocol.md``, "Players")."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.schemas.responses import Out


class RatingOut(Out):
    """A player's rating in one game (Glicko-2, rounded)."""

    game: str
    title: str
    rating: int
    deviation: int
    provisional: bool = Field(description="deviation above 110: not measured yet")
    games: int
    wins: int
    losses: int
    draws: int


class ProfileGame(Out):
    """A finished public game of the player, from its side."""

    id: str
    game: str
    title: str
    opponent: str | None
    outcome: Literal["won", "lost", "draw"]
    reason: str | None
    rated: bool
    moves: int
    finished_at: int | None
    url: str


class HeadToHead(Out):
    """The player's record against you (every finished game between you, private ones too)."""

    wins: int
    losses: int
    draws: int


class ProfileOut(Out):
    """A player's public profile."""

    username: str
    display_name: str
    created_at: int
    ratings: list[RatingOut]
    games: list[ProfileGame] = Field(description="the last 50 finished public games, newest first")
    head_to_head: HeadToHead | None = Field(description="null when you are this player")


class LeaderboardEntry(Out):
    """One place of a leaderboard."""

    rank: int
    username: str
    display_name: str
    rating: int
    deviation: int
    provisional: bool
    games: int
    wins: int
    losses: int
    draws: int


class LeaderboardOut(Out):
    """A game's best ratings: established ones by rating, then provisional ones (at most 100)."""

    game: str
    title: str
    players: list[LeaderboardEntry]
