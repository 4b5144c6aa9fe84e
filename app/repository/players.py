"""Profiles' and leaderboards' SQL: ratings, a player's public finished games, head to head."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Account, Game, Rating

LEADERBOARD_SIZE = 100


async def ratings_of(session: AsyncSession, account_id: int) -> Sequence[Rating]:
    """An account's ratings, one per game it played rated."""
    result = await session.execute(
        select(Rating).where(Rating.account_id == account_id, Rating.games > 0)
    )
    return result.scalars().all()


async def leaderboard(session: AsyncSession, slug: str) -> Sequence[tuple[Rating, Account]]:
    """The best ratings of a game with their accounts, highest first."""
    result = await session.execute(
        select(Rating, Account)
        .join(Account, Account.id == Rating.account_id)
        .where(Rating.slug == slug, Rating.games > 0)
        .order_by(Rating.rating.desc(), Account.username_key)
        .limit(LEADERBOARD_SIZE * 4)
    )
    return [(rating, account) for rating, account in result.all()]


async def public_finished(
    session: AsyncSession, player_ids: Sequence[str], limit: int
) -> Sequence[Game]:
    """A player's last ``limit`` finished public games, newest first."""
    result = await session.execute(
        select(Game)
        .where(
            Game.status == "finished",
            Game.public.is_(True),
            or_(Game.player1_id.in_(player_ids), Game.player2_id.in_(player_ids)),
        )
        .order_by(Game.finished_at.desc(), Game.id.desc())
        .limit(limit)
    )
    return result.scalars().all()


async def between(
    session: AsyncSession, mine: Sequence[str], theirs: Sequence[str]
) -> Sequence[Game]:
    """Every finished game (public or not) between two identities."""
    result = await session.execute(
        select(Game).where(
            Game.status == "finished",
            or_(
                and_(Game.player1_id.in_(mine), Game.player2_id.in_(theirs)),
                and_(Game.player1_id.in_(theirs), Game.player2_id.in_(mine)),
            ),
        )
    )
    return result.scalars().all()


async def ratings_in(
    session: AsyncSession, slug: str, account_ids: Sequence[int]
) -> dict[int, Rating]:
    """The ratings of ``account_ids`` in one game (an account that never played it rated has
    none)."""
    result = await session.execute(
        select(Rating).where(Rating.slug == slug, Rating.account_id.in_(account_ids))
    )
    return {rating.account_id: rating for rating in result.scalars().all()}
