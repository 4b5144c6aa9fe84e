"""Challenges' SQL: reads on the caller's ``AsyncSession``, writes as changes for the writer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Account, Challenge

PENDING_SHOWN = 50


async def get_challenge(session: AsyncSession, challenge_id: str) -> Challenge | None:
    """The challenge with this id."""
    result = await session.execute(
        select(Challenge)
        .where(Challenge.id == challenge_id)
        .execution_options(populate_existing=True)
    )
    return result.scalar_one_or_none()


async def pending_of(session: AsyncSession, account_id: int) -> Sequence[Challenge]:
    """The pending challenges an account sent or received, newest first."""
    result = await session.execute(
        select(Challenge)
        .where(
            Challenge.status == "pending",
            or_(Challenge.challenger_id == account_id, Challenge.challenged_id == account_id),
        )
        .order_by(Challenge.created_at.desc())
        .limit(PENDING_SHOWN)
    )
    return result.scalars().all()


async def accounts_by_id(session: AsyncSession, ids: Sequence[int]) -> dict[int, Account]:
    """The accounts with these ids."""
    result = await session.execute(select(Account).where(Account.id.in_(ids)))
    return {account.id: account for account in result.scalars()}


@dataclass(frozen=True)
class NewChallenge:
    """A challenge sent."""

    row: dict[str, Any]

    def __call__(self, conn: Connection) -> None:
        conn.execute(insert(Challenge).values(**self.row))


@dataclass(frozen=True)
class CloseChallenge:
    """A pending challenge answered or cancelled; the number of rows changed (0: it was not
    pending any more, so whoever closed it first wins)."""

    challenge_id: str
    status: str
    now: int

    def __call__(self, conn: Connection) -> int:
        result = conn.execute(
            update(Challenge)
            .where(Challenge.id == self.challenge_id, Challenge.status == "pending")
            .values(status=self.status, answered_at=self.now)
        )
        return int(result.rowcount)


@dataclass(frozen=True)
class ChallengeGame:
    """The game an accepted challenge started."""

    challenge_id: str
    game_id: str

    def __call__(self, conn: Connection) -> None:
        conn.execute(
            update(Challenge).where(Challenge.id == self.challenge_id).values(game_id=self.game_id)
        )
