"""games.player1_key, player2_key: prefix indexes for the archive's player filter (PostgreSQL)

The archive finds a player by the start of a name in any case (``player1_key LIKE 'ali%'``, the
keys being lower-cased names). PostgreSQL uses a plain b-tree index for ``LIKE`` only under the C
collation; under any other (``en_US.UTF-8``, ``C.UTF-8``) it read every finished game (a sequential
scan, checked with EXPLAIN on 5,000 games). An index with ``varchar_pattern_ops`` answers the prefix
on each seat (a BitmapOr of the two). SQLite gets none: its ``LIKE`` is case-insensitive and
uses no index unless the column is NOCASE, and an embedded database's archive is small.

Revision ID: 5b8f0c3d1e72
Revises: 7d1e5c2a9b40
Create Date: 2026-11-23 22:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "5b8f0c3d1e72"
down_revision: str | None = "7d1e5c2a9b40"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = {"ix_games_player1_prefix": "player1_key", "ix_games_player2_prefix": "player2_key"}


def upgrade() -> None:
    """Apply: the two pattern indexes, on PostgreSQL only."""
    if op.get_bind().dialect.name != "postgresql":
        return
    for name, column in INDEXES.items():
        op.create_index(name, "games", [column], postgresql_ops={column: "varchar_pattern_ops"})


def downgrade() -> None:
    """Revert: drop them."""
    if op.get_bind().dialect.name != "postgresql":
        return
    for name in INDEXES:
        op.drop_index(name, table_name="games")
