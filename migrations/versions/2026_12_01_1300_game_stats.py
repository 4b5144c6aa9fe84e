"""game_stats: the statistics page's counters (issue 28)

One row per (game, option set, imported, kind, bucket) with its count ``n`` of finished public
games (``app.domain.stats``), added to in the transaction that finishes or imports a game. The
upgrade fills it from the archive with ``python -m app.stats rebuild``'s code; the downgrade drops
the table (the archive keeps everything it was computed from).

Revision ID: 5b1f0c2d9e47
Revises: 7c2e9b4a1d03
Create Date: 2026-11-30 14:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5b1f0c2d9e47"
down_revision: str | None = "7c2e9b4a1d03"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply: the table, filled from the games finished before."""
    op.create_table(
        "game_stats",
        sa.Column("slug", sa.String(length=32), nullable=False),
        sa.Column("options_key", sa.String(length=64), nullable=False),
        sa.Column("imported", sa.Boolean(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("bucket", sa.String(length=240), nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("slug", "options_key", "imported", "kind", "bucket"),
    )
    # The rebuild command's own code, not a copy: the counters of the games finished before must
    # be the ones the app keeps for the games that finish after.
    from app.services.stats import rebuild

    rebuild(op.get_bind())


def downgrade() -> None:
    """Revert: drop the table."""
    op.drop_table("game_stats")
