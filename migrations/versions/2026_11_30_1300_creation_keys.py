"""creation_keys: a game creation's Idempotency-Key (issue 27)

A visitor whose ``POST /api/games`` got no answer (a dropped connection, a proxy timeout, a
process killed after its commit) can send it again with the same ``Idempotency-Key`` and get the
game the first one made, not a second game. A row holds the visitor, the key, the sha256 of the
request's body and the game; it is swept a day after (its ``created_at`` index). No row exists
before this migration; the downgrade drops the table, after which a key is ignored again.

Revision ID: 0adc8ecc52b4
Revises: 3e8a6d2b7c51
Create Date: 2026-11-30 13:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0adc8ecc52b4"
down_revision: str | None = "3e8a6d2b7c51"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply: the table and its sweep's index."""
    op.create_table(
        "creation_keys",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("game_id", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("player_id", "key"),
    )
    with op.batch_alter_table("creation_keys", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_creation_keys_created_at"), ["created_at"], unique=False
        )


def downgrade() -> None:
    """Revert: drop the table (a key sent again then makes a new game)."""
    with op.batch_alter_table("creation_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_creation_keys_created_at"))

    op.drop_table("creation_keys")
