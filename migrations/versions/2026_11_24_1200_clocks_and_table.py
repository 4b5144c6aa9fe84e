"""Clocks and the table (issue 17): time controls, clocks and deadlines, offers, takebacks, rematch
links and disconnections on games; each move's clock; a challenge's time control; chat lines;
leases.

Every game so far is unlimited (no time control, no clocks, no deadline), allows takebacks and has
no offer, rematch or disconnection.

Revision ID: 7c1d2e3f4a5b
Revises: 94db19a30b5d
Create Date: 2026-11-24 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7c1d2e3f4a5b"
down_revision: str | None = "94db19a30b5d"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply: the new columns and tables, and the deadline index."""
    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=16), nullable=False),
        sa.Column("room", sa.String(length=12), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=True),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("text", sa.String(length=300), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "room", "seq", name="uq_chat_seq"),
    )
    op.create_table(
        "leases",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=True),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.Column("beat_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_control", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("clocks", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("deadline_at", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("offer", sa.JSON(), nullable=True))
        batch_op.add_column(
            sa.Column("takebacks", sa.Boolean(), server_default=sa.true(), nullable=False)
        )
        batch_op.add_column(sa.Column("rematch_of", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("rematch_id", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("away", sa.JSON(), nullable=True))
        batch_op.create_index("ix_games_deadline", ["deadline_at"], unique=False)
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("clock_ms", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("spent_ms", sa.BigInteger(), nullable=True))
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_control", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Revert: drop them."""
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_column("time_control")
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.drop_column("spent_ms")
        batch_op.drop_column("clock_ms")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_deadline")
        for column in (
            "away",
            "rematch_id",
            "rematch_of",
            "takebacks",
            "offer",
            "deadline_at",
            "clocks",
            "time_control",
        ):
            batch_op.drop_column(column)
    op.drop_table("leases")
    op.drop_table("chat_lines")
