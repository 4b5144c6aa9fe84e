"""The last declined offer of a game, and rated games made public (issue 25).

``games.declined``: the offer the opponent last declined and who declined it, until the game moves
on (so the offerer is told, even after reconnecting).

A rated game is always public: its rating is public (profiles, leaderboards), so the game behind
it is too. Rated games created private before (every accepted rated challenge) become public.

Revision ID: 3e5f7a9b1c2d
Revises: 7c1d2e3f4a5b
Create Date: 2026-11-25 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3e5f7a9b1c2d"
down_revision: str | None = "7c1d2e3f4a5b"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GAMES = sa.table("games", sa.column("public", sa.Boolean()), sa.column("rated", sa.Boolean()))


def upgrade() -> None:
    """Apply: the new column; every rated game public."""
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("declined", sa.JSON(), nullable=True))
    op.execute(GAMES.update().where(GAMES.c.rated.is_(True)).values(public=True))


def downgrade() -> None:
    """Revert: drop the column (rated games stay public: which were private is not kept)."""
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("declined")
