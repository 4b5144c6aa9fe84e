"""Profiles and leaderboards: a player's ratings per game, its finished public games, its record
against the visitor, and each game's best ratings (established first, provisional ones marked)."""

from __future__ import annotations

from collections import Counter
from typing import Literal, TypedDict

from app.domain.ratings import PROVISIONAL_DEVIATION
from app.errors import AppError, ErrorCode, excerpt
from app.identity.usernames import username_key
from app.models import Game, Rating
from app.repository import accounts as account_reads
from app.repository import players as reads
from app.runtime.rules import known_games, slugs, title
from app.schemas.players import (
    HeadToHead,
    LeaderboardEntry,
    LeaderboardOut,
    ProfileGame,
    ProfileOut,
    RatingOut,
)
from app.services.core import Core, Visitor

PROFILE_GAMES = 50
Outcome = Literal["won", "lost", "draw"]


class Figures(TypedDict):
    """What a profile and a leaderboard both show of a rating."""

    rating: int
    deviation: int
    provisional: bool
    games: int
    wins: int
    losses: int
    draws: int


def _figures(rating: Rating) -> Figures:
    return Figures(
        rating=round(rating.rating),
        deviation=round(rating.deviation),
        provisional=rating.deviation > PROVISIONAL_DEVIATION,
        games=rating.games,
        wins=rating.wins,
        losses=rating.losses,
        draws=rating.draws,
    )


def _rating(rating: Rating) -> RatingOut:
    return RatingOut(game=rating.slug, title=title(rating.slug), **_figures(rating))


def _outcome(game: Game, ids: set[str]) -> tuple[int, Outcome]:
    seat = 1 if game.player1_id in ids else 2
    winner = (game.result_json or {}).get("winner")
    return seat, "draw" if winner is None else ("won" if winner == seat else "lost")


class PlayerService:
    """Profiles and leaderboards."""

    def __init__(self, core: Core) -> None:
        self.core = core

    async def profile(self, raw_username: str, visitor: Visitor) -> ProfileOut:
        """The public profile of an account, and its record against ``visitor``."""
        missing = AppError(
            ErrorCode.PLAYER_NOT_FOUND, f"no player is called {excerpt(raw_username)}"
        )
        if not 1 <= len(raw_username) <= 100 or not raw_username.isprintable():
            raise missing
        async with self.core.sessions() as session:
            account = await account_reads.account_by_key(session, username_key(raw_username))
            if account is None:
                raise missing
            ids = await account_reads.account_player_ids(session, account.id)
            ratings = await reads.ratings_of(session, account.id)
            games = await reads.public_finished(session, ids, PROFILE_GAMES)
            yours = await account_reads.identity_ids(session, visitor.id, visitor.account_id)
            shared = [] if set(yours) & set(ids) else await reads.between(session, ids, yours)
        mine = set(ids)
        entries = []
        for game in games:
            seat, outcome = _outcome(game, mine)
            entries.append(
                ProfileGame(
                    id=game.id,
                    game=game.slug,
                    title=title(game.slug),
                    opponent=game.player2_name if seat == 1 else game.player1_name,
                    outcome=outcome,
                    reason=game.reason,
                    rated=bool(game.rated),
                    moves=game.ply_count,
                    finished_at=game.finished_at,
                    url=f"/games/{game.id}",
                )
            )
        head_to_head = None
        if not set(yours) & mine:
            counts = Counter(_outcome(game, mine)[1] for game in shared)
            head_to_head = HeadToHead(
                wins=counts["won"], losses=counts["lost"], draws=counts["draw"]
            )
        return ProfileOut(
            username=account.username,
            display_name=account.display_name,
            created_at=account.created_at,
            ratings=sorted((_rating(r) for r in ratings), key=lambda r: r.title),
            games=entries,
            head_to_head=head_to_head,
        )

    async def leaderboard(self, slug: str) -> LeaderboardOut:
        """A game's best ratings: established ones by rating, then the provisional ones."""
        if slug not in slugs():
            raise AppError(
                ErrorCode.UNKNOWN_GAME, f"unknown game {excerpt(slug)} (known: {known_games()})"
            )
        async with self.core.sessions() as session:
            rows = await reads.leaderboard(session, slug)
        ranked = sorted(rows, key=lambda row: row[0].deviation > PROVISIONAL_DEVIATION)
        players = [
            LeaderboardEntry(
                rank=rank,
                username=account.username,
                display_name=account.display_name,
                **_figures(rating),
            )
            for rank, (rating, account) in enumerate(ranked[: reads.LEADERBOARD_SIZE], start=1)
        ]
        return LeaderboardOut(game=slug, title=title(slug), players=players)
