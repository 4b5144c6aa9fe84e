"""bot_accounts: the computer opponent's accounts are marked by their level (issue 29)

``accounts.bot`` names a bot account's level (``beginner``, ``easy``, ``medium``, ``hard``); it is
null for every person, so every existing row stays a person's. The bot accounts themselves are
made idempotently when a server starts (``app.services.bots``), not here: a migration that wrote
them would duplicate what the app must do anyway on a database migrated before a level existed.
The downgrade drops the column (the bot accounts would then look like people nobody can log into).

Revision ID: 7c2e9b4a1d03
Revises: 0adc8ecc52b4
Create Date: 2026-12-01 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7c2e9b4a1d03"
down_revision: str | None = "0adc8ecc52b4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply: the column."""
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bot", sa.String(length=16), nullable=True))


def downgrade() -> None:
    """Revert: drop the column."""
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.drop_column("bot")
