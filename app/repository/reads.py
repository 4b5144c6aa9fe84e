"""Every read of the app: SELECTs on an ``AsyncSession`` the caller opens (writes: :mod:`.writes`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.models import ChatLine, CreationKey, Event, Game, Move, Player


async def get_player(session: AsyncSession, player_id: str) -> Player | None:
    """The player row of a guest, if it was ever written."""
    return await session.get(Player, player_id)


async def creation_key(session: AsyncSession, player_id: str, key: str) -> CreationKey | None:
    """The game creation a visitor sent under ``key`` (its ``Idempotency-Key``), if any is kept."""
    result = await session.execute(
        select(CreationKey)
        .where(CreationKey.player_id == player_id, CreationKey.key == key)
        .execution_options(populate_existing=True)
    )
    return result.scalar_one_or_none()


async def get_game(session: AsyncSession, game_id: str) -> Game | None:
    """The game row, read afresh from the database (never from the session's identity map)."""
    result = await session.execute(
        select(Game).where(Game.id == game_id).execution_options(populate_existing=True)
    )
    return result.scalar_one_or_none()


async def move_texts(session: AsyncSession, game_id: str) -> list[str]:
    """The canonical texts of a game's moves, in ply order."""
    result = await session.execute(
        select(Move.text).where(Move.game_id == game_id).order_by(Move.ply)
    )
    return list(result.scalars())


async def move_clocks(
    session: AsyncSession, game_id: str, ply_count: int
) -> list[dict[str, int] | None]:
    """Each ply's clock (its mover's seat and time left after it), in ply order; None where no
    clock ran."""
    result = await session.execute(
        select(Move.seat, Move.clock_ms)
        .where(Move.game_id == game_id, Move.ply <= ply_count)
        .order_by(Move.ply)
    )
    return [None if left is None else {"seat": seat, "left": left} for seat, left in result]


async def move_seats(session: AsyncSession, game_id: str, ply_count: int) -> list[int]:
    """The seat that played each ply, in ply order."""
    result = await session.execute(
        select(Move.seat).where(Move.game_id == game_id, Move.ply <= ply_count).order_by(Move.ply)
    )
    return list(result.scalars())


async def event_of_message(
    session: AsyncSession, game_id: str, player_id: str, msg_id: str
) -> tuple[Event, int] | None:
    """The event a client message already produced, with the version its ack reported."""
    event = (
        await session.execute(
            select(Event).where(
                Event.game_id == game_id, Event.player_id == player_id, Event.msg_id == msg_id
            )
        )
    ).scalar_one_or_none()
    if event is None:
        return None
    following = await session.get(Event, (game_id, event.version + 1))
    ack = (
        event.version + 1 if following is not None and following.kind == "result" else event.version
    )
    return event, ack


async def events_after(session: AsyncSession, game_id: str, since: int) -> Sequence[Event]:
    """A game's events with a version above ``since``, in order."""
    result = await session.execute(
        select(Event).where(Event.game_id == game_id, Event.version > since).order_by(Event.version)
    )
    return result.scalars().all()


async def events_between(
    session: AsyncSession, game_id: str, since: int, until: int
) -> Sequence[Event]:
    """A game's events with a version above ``since`` and up to ``until`` (the version of the game
    row the caller read), in order: never an event the caller's game row does not hold yet."""
    result = await session.execute(
        select(Event)
        .where(Event.game_id == game_id, Event.version > since, Event.version <= until)
        .order_by(Event.version)
    )
    return result.scalars().all()


async def open_games(
    session: AsyncSession, since: int | None = None, limit: int = 100
) -> Sequence[Game]:
    """Public games waiting for an opponent (created at ``since`` or later, if given: a waiting
    game has no event after its creation, so its creation is its last activity), newest first."""
    query = select(Game).where(Game.status == "waiting", Game.public.is_(True))
    if since is not None:
        query = query.where(Game.created_at >= since)
    result = await session.execute(query.order_by(Game.created_at.desc()).limit(limit))
    return result.scalars().all()


async def live_games(session: AsyncSession, since: int, limit: int = 100) -> Sequence[Game]:
    """Public games in progress with an event at ``since`` or later, most recently active first."""
    result = await session.execute(
        select(Game)
        .where(Game.status == "active", Game.public.is_(True), Game.last_activity_at >= since)
        .order_by(Game.last_activity_at.desc())
        .limit(limit)
    )
    return result.scalars().all()


async def idle_games(session: AsyncSession, cutoff: int, limit: int = 100) -> Sequence[Game]:
    """Unfinished games with no event since ``cutoff``."""
    result = await session.execute(
        select(Game)
        .where(
            Game.status.in_(("waiting", "active")),
            Game.last_activity_at < cutoff,
            # A running clock ends its game on time: idleness is the deadline's business then.
            Game.deadline_at.is_(None),
        )
        .order_by(Game.last_activity_at)
        .limit(limit)
    )
    return result.scalars().all()


async def due_games(session: AsyncSession, now: int, limit: int = 100) -> list[str]:
    """The ids of the active games whose deadline has passed at ``now``, the earliest first."""
    result = await session.execute(
        select(Game.id)
        .where(Game.deadline_at <= now, Game.status == "active")
        .order_by(Game.deadline_at)
        .limit(limit)
    )
    return list(result.scalars().all())


async def next_deadline(session: AsyncSession) -> int | None:
    """The earliest deadline of any game, if any."""
    result = await session.execute(select(func.min(Game.deadline_at)))
    return result.scalar_one_or_none()


async def database_status(engine: AsyncEngine) -> dict[str, Any]:
    """A health report: reachable or not, the backend, and the migration revision."""
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
            try:
                revision = (
                    await conn.execute(text("SELECT version_num FROM alembic_version"))
                ).scalar()
            except Exception:
                revision = None
        return {"ok": True, "backend": engine.dialect.name, "revision": revision}
    except Exception as exc:
        return {"ok": False, "backend": engine.dialect.name, "error": type(exc).__name__}


# --- quotas ------------------------------------------------------------------------------------


async def open_games_of(session: AsyncSession, creator_id: str) -> tuple[int, int | None]:
    """How many games ``creator_id`` created that nobody has joined yet (public or private), and
    the last activity of the longest idle of them (None if there are none)."""
    from sqlalchemy import func  # here, so the quota's one query stays in one block

    row = (
        await session.execute(
            select(func.count(), func.min(Game.last_activity_at)).where(
                Game.status == "waiting", Game.creator_id == creator_id
            )
        )
    ).one()
    return int(row[0]), row[1]


async def last_move_seats(session: AsyncSession, game_id: str, ply_count: int, n: int) -> list[int]:
    """The seats that played the last ``n`` plies of the game's ``ply_count``, the last first."""
    result = await session.execute(
        select(Move.seat)
        .where(Move.game_id == game_id, Move.ply <= ply_count, Move.ply > ply_count - n)
        .order_by(Move.ply.desc())
    )
    return list(result.scalars().all())


async def chat_lines(session: AsyncSession, game_id: str, room: str, limit: int) -> list[ChatLine]:
    """The last ``limit`` lines of a game's chat room, oldest first."""
    result = await session.execute(
        select(ChatLine)
        .where(ChatLine.game_id == game_id, ChatLine.room == room)
        .order_by(ChatLine.seq.desc())
        .limit(limit)
    )
    return list(reversed(result.scalars().all()))
