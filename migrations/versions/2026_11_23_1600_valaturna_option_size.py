"""valaturna option side is now size

Valaturna's board option was renamed ``side`` -> ``size`` so that every game names its board size
alike. The rules still read ``side`` (``games.valaturna.Rules.RENAMED_OPTIONS``); this renames the key
in the stored games so that the database holds the current name only.

The JSON is rewritten row by row in Python, not with a dialect's JSON functions, so that the same
migration runs on SQLite and PostgreSQL.

Revision ID: 2424c61f9505
Revises: b3c1a2ba13cb
Create Date: 2026-11-23 16:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "2424c61f9505"
down_revision: str | None = "b3c1a2ba13cb"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SLUG = "valaturna"

games = sa.table(
    "games",
    sa.column("id", sa.String(16)),
    sa.column("slug", sa.String(32)),
    sa.column("options", sa.JSON()),
)


def _rename(old: str, new: str) -> None:
    """Rename the key ``old`` to ``new`` in the options of every Valaturna game that has it."""
    bind = op.get_bind()
    rows = bind.execute(sa.select(games.c.id, games.c.options).where(games.c.slug == SLUG))
    for game_id, options in rows.all():
        if not isinstance(options, dict) or old not in options:
            continue
        renamed: dict[str, Any] = {new if k == old else k: v for k, v in options.items()}
        bind.execute(games.update().where(games.c.id == game_id).values(options=renamed))


def upgrade() -> None:
    """Apply: ``{"side": N}`` becomes ``{"size": N}``."""
    _rename("side", "size")


def downgrade() -> None:
    """Revert: ``{"size": N}`` becomes ``{"side": N}`` again."""
    _rename("size", "side")
