"""Tables, SQLAlchemy 2 style. Times are integer milliseconds since the epoch (UTC) on every backend.

A guest is a ``Player`` row; an account, later, will own players through ``Player.account_id``, so a
guest's games follow it when it signs up. A game stores its options and, in ``moves``, the canonical
text of every ply: the position is always the replay of that list. ``events`` numbers every change of
a game (its ``version``) so that a reconnecting client can be sent exactly what it missed.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAME_MAX = 32
MOVE_TEXT_MAX = 200


class Base(DeclarativeBase):
    """Declarative base; ``Base.metadata`` is what the migrations create."""


class Player(Base):
    """A visitor: a guest now, attachable to an account later."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_MAX))
    account_id: Mapped[int | None] = mapped_column(Integer, index=True)
    created_at: Mapped[int] = mapped_column(BigInteger)
    last_seen_at: Mapped[int] = mapped_column(BigInteger)


class Game(Base):
    """One game: options, seats, status, version and result. Moves live in ``moves``."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    slug: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    public: Mapped[bool] = mapped_column(Boolean)
    join_token: Mapped[str | None] = mapped_column(String(64))
    creator_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    # waiting (for an opponent), active, finished
    status: Mapped[str] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(Integer, default=0)
    ply_count: Mapped[int] = mapped_column(Integer, default=0)
    to_move: Mapped[int | None] = mapped_column(Integer)
    player1_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    player2_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    # Names as they were when the seat was taken; *_key is the lowercased name for search.
    player1_name: Mapped[str | None] = mapped_column(String(NAME_MAX))
    player2_name: Mapped[str | None] = mapped_column(String(NAME_MAX))
    player1_key: Mapped[str | None] = mapped_column(String(NAME_MAX))
    player2_key: Mapped[str | None] = mapped_column(String(NAME_MAX))
    # "1", "2" (the winning seat) or "draw"; the reason and the full result object.
    result: Mapped[str | None] = mapped_column(String(8))
    reason: Mapped[str | None] = mapped_column(String(32))
    result_json: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    imported: Mapped[bool] = mapped_column(Boolean, default=False)
    # The name of the guest who imported the record (None for games played here).
    imported_by: Mapped[str | None] = mapped_column(String(NAME_MAX))
    created_at: Mapped[int] = mapped_column(BigInteger)
    last_activity_at: Mapped[int] = mapped_column(BigInteger)
    finished_at: Mapped[int | None] = mapped_column(BigInteger)

    __table_args__ = (
        Index("ix_games_archive", "status", "finished_at", "id"),
        Index("ix_games_archive_slug", "status", "slug", "finished_at", "id"),
        Index("ix_games_archive_result", "status", "result", "finished_at", "id"),
        Index("ix_games_player1", "player1_key", "finished_at", "id"),
        Index("ix_games_player2", "player2_key", "finished_at", "id"),
        # The player filter's prefix (LIKE 'ali%') on PostgreSQL (migration 5b8f0c3d1e72).
        Index(
            "ix_games_player1_prefix",
            "player1_key",
            postgresql_ops={"player1_key": "varchar_pattern_ops"},
        ).ddl_if(dialect="postgresql"),
        Index(
            "ix_games_player2_prefix",
            "player2_key",
            postgresql_ops={"player2_key": "varchar_pattern_ops"},
        ).ddl_if(dialect="postgresql"),
        Index("ix_games_activity", "status", "last_activity_at"),
        Index("ix_games_open", "status", "public", "created_at"),
    )

    def seat_of(self, player_id: str) -> int | None:
        """The seat ``player_id`` holds here, or None."""
        if self.player1_id == player_id:
            return 1
        if self.player2_id == player_id:
            return 2
        return None


class Move(Base):
    """One ply. The unique (game, ply) makes a second writer of the same ply fail in the database."""

    __tablename__ = "moves"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    ply: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(MOVE_TEXT_MAX))
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (UniqueConstraint("game_id", "ply", name="uq_moves_game_ply"),)


class Event(Base):
    """A numbered change of a game: join, move, resign, result (later chat).

    (game, version) is the key, so two writers of one version cannot both commit; (game, player,
    msg_id) finds the event a retried client message already produced.
    """

    __tablename__ = "events"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    msg_id: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (UniqueConstraint("game_id", "player_id", "msg_id", name="uq_events_msg"),)
