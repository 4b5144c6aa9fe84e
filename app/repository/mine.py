"""The SQL of a player's own lists ("My games"): the games of a set of player ids."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Game

#: The most games of each list "My games" shows (a player with more sees the oldest cut).
LIST_LIMIT = 100


async def current_games(session: AsyncSession, player_ids: Sequence[str]) -> Sequence[Game]:
    """The waiting and active games seating one of ``player_ids``, least recently active first."""
    if not player_ids:
        return []
    result = await session.execute(
        select(Game)
        .where(
            Game.status.in_(("waiting", "active")),
            or_(Game.player1_id.in_(player_ids), Game.player2_id.in_(player_ids)),
        )
        .order_by(Game.last_activity_at, Game.id)
        .limit(LIST_LIMIT)
    )
    return result.scalars().all()


async def finished_games(
    session: AsyncSession, player_ids: Sequence[str], limit: int
) -> Sequence[Game]:
    """The last ``limit`` finished games seating one of ``player_ids``, newest first (each seat's
    index, ``ix_games_p1_id`` and ``ix_games_p2_id``, answers its half)."""
    if not player_ids:
        return []
    result = await session.execute(
        select(Game)
        .where(
            Game.status == "finished",
            or_(Game.player1_id.in_(player_ids), Game.player2_id.in_(player_ids)),
        )
        .order_by(Game.finished_at.desc(), Game.id.desc())
        .limit(limit)
    )
    return result.scalars().all()
