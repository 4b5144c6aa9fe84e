"""games.imported_by: who imported a record; imported results cleaned

An imported game names the guest who imported it (issue 14: imports are marked with who made
them). Games played here, and records imported before this column, have none.

Imports used to store a server reason's result as the record gave it: any extra key, and text that
cannot be encoded back (a lone surrogate such as ``"\ud800"``), which made every answer carrying
the game fail. Those results keep only the protocol's keys, with such text replaced. The JSON is
rewritten row by row in Python, so that the same migration runs on SQLite and PostgreSQL; the
downgrade keeps the cleaned results (what was dropped is not worth keeping).

Revision ID: 7d1e5c2a9b40
Revises: 2424c61f9505
Create Date: 2026-11-23 19:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "7d1e5c2a9b40"
down_revision: str | None = "2424c61f9505"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


RESULT_KEYS = ("winner", "colour", "reason", "scores")

games = sa.table(
    "games",
    sa.column("id", sa.String(16)),
    sa.column("imported", sa.Boolean()),
    sa.column("result_json", sa.JSON()),
)


def _encodable(value: Any) -> Any:
    """``value`` with every text made UTF-8 encodable (a lone surrogate becomes ``?``)."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, list):
        return [_encodable(v) for v in value]
    if isinstance(value, dict):
        return {_encodable(k): _encodable(v) for k, v in value.items()}
    return value


def _clean_imported_results() -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(games.c.id, games.c.result_json).where(games.c.imported == sa.true())
    )
    for game_id, result in rows.all():
        if not isinstance(result, dict):
            continue
        cleaned = {k: _encodable(result.get(k)) for k in RESULT_KEYS}
        if cleaned != result:
            bind.execute(games.update().where(games.c.id == game_id).values(result_json=cleaned))


def upgrade() -> None:
    """Apply: add the nullable column (a guest name, at most 32 characters); clean the results."""
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("imported_by", sa.String(32), nullable=True))
    _clean_imported_results()


def downgrade() -> None:
    """Revert: drop it."""
    with op.batch_alter_table("games") as batch:
        batch.drop_column("imported_by")
