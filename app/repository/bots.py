"""The bots' SQL: their accounts, the games they play, the leases of those games.

A bot is an account whose ``bot`` column names its level; its password hash is no hash at all
(:data:`NO_PASSWORD`), which argon2 refuses to verify, so nobody can log into it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, and_, delete, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Account, Game, Lease, Player, Rating

#: The password hash of a bot: not an argon2 hash, so no password matches it.
NO_PASSWORD = "!bot: nobody logs in"
#: The bots' levels, weakest first, and their player ids (fixed: the archive filters by them).
BOT_LEVELS = ("beginner", "easy", "medium", "hard")
BOT_PLAYER_IDS = tuple(f"bot-{level}" for level in BOT_LEVELS)
#: The prefix of a bot game's lease (``leases.name`` holds 32 characters; game ids 16).
LEASE_PREFIX = "bot:"


@dataclass(frozen=True)
class BotRow:
    """One bot account as :class:`EnsureBots` makes it."""

    level: str
    username: str
    display_name: str
    player_id: str


@dataclass(frozen=True)
class EnsureBots:
    """Create the bot accounts that do not exist yet (idempotent, and harmless when two processes
    start at once: every insert skips a row that is there)."""

    bots: tuple[BotRow, ...]
    now: int

    def __call__(self, conn: Connection) -> None:
        dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
        for bot in self.bots:
            conn.execute(
                dialect.insert(Player)
                .values(
                    id=bot.player_id,
                    name=bot.display_name,
                    created_at=self.now,
                    last_seen_at=self.now,
                )
                .on_conflict_do_nothing(index_elements=[Player.id])
            )
            key = bot.username.casefold()
            conn.execute(
                dialect.insert(Account)
                .values(
                    username=bot.username,
                    username_key=key,
                    display_name=bot.display_name,
                    player_id=bot.player_id,
                    password_hash=NO_PASSWORD,
                    settings={},
                    bot=bot.level,
                    created_at=self.now,
                    last_seen_at=self.now,
                    password_changed_at=self.now,
                )
                .on_conflict_do_nothing(index_elements=[Account.username_key])
            )
            account_id = conn.execute(
                select(Account.id).where(Account.username_key == key)
            ).scalar_one()
            conn.execute(
                update(Player)
                .where(Player.id == bot.player_id, Player.account_id.is_(None))
                .values(account_id=account_id)
            )


@dataclass(frozen=True)
class DropLeases:
    """Forget the leases of bot games that ended (their rows would otherwise stay forever)."""

    game_ids: tuple[str, ...]

    def __call__(self, conn: Connection) -> int:
        names = [f"{LEASE_PREFIX}{game_id}" for game_id in self.game_ids]
        return int(conn.execute(delete(Lease).where(Lease.name.in_(names))).rowcount or 0)


async def bot_accounts(session: AsyncSession) -> Sequence[Account]:
    """Every bot account."""
    result = await session.execute(select(Account).where(Account.bot.is_not(None)))
    return result.scalars().all()


async def bot_games(session: AsyncSession, player_ids: Sequence[str]) -> Sequence[Game]:
    """The active games a bot (one of ``player_ids``) is seated in."""
    if not player_ids:
        return []
    result = await session.execute(
        select(Game).where(
            Game.status == "active",
            or_(Game.player1_id.in_(player_ids), Game.player2_id.in_(player_ids)),
        )
    )
    return result.scalars().all()


async def bot_games_of(session: AsyncSession, player_id: str) -> int:
    """How many active games ``player_id`` plays against a bot."""
    bots = BOT_PLAYER_IDS
    result = await session.execute(
        select(func.count())
        .select_from(Game)
        .where(
            Game.status == "active",
            or_(
                and_(Game.player1_id == player_id, Game.player2_id.in_(bots)),
                and_(Game.player2_id == player_id, Game.player1_id.in_(bots)),
            ),
        )
    )
    return int(result.scalar_one())


async def ended_leases(session: AsyncSession) -> Sequence[str]:
    """The ids of the games whose bot lease is left though they are no longer active."""
    rows = await session.execute(select(Lease.name).where(Lease.name.like(f"{LEASE_PREFIX}%")))
    names = [name[len(LEASE_PREFIX) :] for name in rows.scalars().all()]
    if not names:
        return []
    active = await session.execute(
        select(Game.id).where(Game.id.in_(names), Game.status == "active")
    )
    return sorted(set(names) - set(active.scalars().all()))


async def bot_ratings(session: AsyncSession, account_ids: Sequence[int]) -> Sequence[Rating]:
    """The bots' ratings, in every game they were rated in."""
    if not account_ids:
        return []
    result = await session.execute(
        select(Rating).where(and_(Rating.account_id.in_(account_ids), Rating.games > 0))
    )
    return result.scalars().all()


__all__ = [
    "BOT_LEVELS",
    "BOT_PLAYER_IDS",
    "LEASE_PREFIX",
    "NO_PASSWORD",
    "BotRow",
    "DropLeases",
    "EnsureBots",
    "bot_accounts",
    "bot_games",
    "bot_games_of",
    "bot_ratings",
    "ended_leases",
]
