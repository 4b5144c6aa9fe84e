"""games.imported_by: who imported a record

An imported game names the guest who imported it (issue 14: imports are marked with who made
them). Games played here, and records imported before this column, have none.

Revision ID: 7d1e5c2a9b40
Revises: 2424c61f9505
Create Date: 2026-11-23 19:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7d1e5c2a9b40"
down_revision: str | None = "2424c61f9505"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply: add the nullable column (a guest name, at most 32 characters)."""
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("imported_by", sa.String(32), nullable=True))


def downgrade() -> None:
    """Revert: drop it."""
    with op.batch_alter_table("games") as batch:
        batch.drop_column("imported_by")
