"""explorer: the opening explorer's positions, continuations and games (issue 28)

Three tables keyed by game, option set and the rules' position key (folded over the board's
symmetries): ``explorer_positions`` and ``explorer_moves`` count the finished public games that
reached a position, or played a continuation from it, within the first 24 plies, with their wins
by colour, draws and total length; ``explorer_games`` lists those games, newest first. A finishing
game adds itself in the transaction of its result. The tables start empty: the games finished
before this migration are counted by ``python -m app.explorer rebuild``. The downgrade drops them.

Revision ID: 5d2f7c1a9e30
Revises: 5b1f0c2d9e47
Create Date: 2026-11-30 14:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5d2f7c1a9e30"
down_revision: str | None = "5b1f0c2d9e47"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _counts() -> list[sa.Column[int]]:
    return [
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("first_wins", sa.Integer(), nullable=False),
        sa.Column("second_wins", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("length", sa.BigInteger(), nullable=False),
    ]


def upgrade() -> None:
    """Apply: the three tables."""
    op.create_table(
        "explorer_positions",
        sa.Column("slug", sa.String(length=32), nullable=False),
        sa.Column("options_key", sa.String(length=64), nullable=False),
        sa.Column("position", sa.String(length=16), nullable=False),
        *_counts(),
        sa.PrimaryKeyConstraint("slug", "options_key", "position"),
    )
    op.create_table(
        "explorer_moves",
        sa.Column("slug", sa.String(length=32), nullable=False),
        sa.Column("options_key", sa.String(length=64), nullable=False),
        sa.Column("position", sa.String(length=16), nullable=False),
        sa.Column("child", sa.String(length=16), nullable=False),
        sa.Column("move", sa.String(length=200), nullable=False),
        *_counts(),
        sa.PrimaryKeyConstraint("slug", "options_key", "position", "child"),
    )
    op.create_table(
        "explorer_games",
        sa.Column("slug", sa.String(length=32), nullable=False),
        sa.Column("options_key", sa.String(length=64), nullable=False),
        sa.Column("position", sa.String(length=16), nullable=False),
        sa.Column("finished_at", sa.BigInteger(), nullable=False),
        sa.Column("game_id", sa.String(length=16), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("slug", "options_key", "position", "finished_at", "game_id"),
    )


def downgrade() -> None:
    """Revert: drop the tables (the explorer is then empty until rebuilt)."""
    op.drop_table("explorer_games")
    op.drop_table("explorer_moves")
    op.drop_table("explorer_positions")
