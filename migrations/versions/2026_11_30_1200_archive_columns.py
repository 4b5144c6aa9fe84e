"""games: the archive's columns and their indexes (issue 28)

The archive filters by length, first move, pie choice, winner's colour, option set, time control,
rated and imported, and sorts by date or length. Each filter gets an index that starts with
``status`` and its column and ends with the date order, ``(finished_at, id)``, as the three
archive indexes before it. The values are written once, when a game finishes
(``app.domain.archive``): ``length`` copies ``ply_count`` then, so no move updates an index of
these.

The games finished before are filled here, in batches of 1,000 in Python (the values come from
JSON columns and the first two moves, read the same way on SQLite and PostgreSQL), with the
rules of ``app.domain.archive`` as they stand today: the pie's games are the four whose ply 2 is
the colour choice, and the pie counts as taken when seat 2 chose ``black``. Cancelled games keep
nulls: the archive never lists them. The downgrade drops the columns and their indexes.

Revision ID: 3e8a6d2b7c51
Revises: 9c3b7e1d2f60
Create Date: 2026-11-30 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "3e8a6d2b7c51"
down_revision: str | None = "9c3b7e1d2f60"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS: tuple[sa.Column[Any], ...] = (
    sa.Column("length", sa.Integer(), nullable=True),
    sa.Column("first_move", sa.String(200), nullable=True),
    sa.Column("pie_taken", sa.Boolean(), nullable=True),
    sa.Column("winner_colour", sa.String(8), nullable=True),
    sa.Column("options_key", sa.String(64), nullable=True),
    sa.Column("time_key", sa.String(32), nullable=True),
)
INDEXES = {
    "ix_games_archive_length": ["status", "length", "finished_at", "id"],
    "ix_games_archive_options": ["status", "slug", "options_key", "finished_at", "id"],
    "ix_games_archive_first": ["status", "slug", "first_move", "finished_at", "id"],
    "ix_games_archive_colour": ["status", "winner_colour", "finished_at", "id"],
    "ix_games_archive_pie": ["status", "pie_taken", "finished_at", "id"],
    "ix_games_archive_rated": ["status", "rated", "finished_at", "id"],
    "ix_games_archive_time": ["status", "time_key", "finished_at", "id"],
    "ix_games_archive_imported": ["status", "imported", "finished_at", "id"],
}
PIE_GAMES = frozenset({"jotun", "valaturna", "harmijan", "sgolte"})
BATCH = 1000

games = sa.table(
    "games",
    sa.column("id", sa.String(16)),
    sa.column("slug", sa.String(32)),
    sa.column("status", sa.String(16)),
    sa.column("options", sa.JSON()),
    sa.column("time_control", sa.JSON()),
    sa.column("result_json", sa.JSON()),
    sa.column("ply_count", sa.Integer()),
    *(sa.column(c.name, c.type) for c in COLUMNS),
)
moves = sa.table(
    "moves",
    sa.column("game_id", sa.String(16)),
    sa.column("ply", sa.Integer()),
    sa.column("text", sa.String(200)),
)


def columns(
    slug: str,
    options: Any,
    control: Any,
    result: Any,
    plies: int,
    first_two: list[str],
) -> dict[str, Any]:
    """A finished game's archive columns (``app.domain.archive.archive_columns`` of today)."""
    options = options if isinstance(options, dict) else {}
    result = result if isinstance(result, dict) else {}
    if not isinstance(control, dict) or control.get("kind") not in ("realtime", "correspondence"):
        time_key = "unlimited"
    elif control["kind"] == "realtime":
        time_key = f"realtime:{control.get('base')}:{control.get('increment')}"
    else:
        time_key = f"correspondence:{control.get('days')}"
    choice = first_two[1] if len(first_two) > 1 else None
    colour = result.get("colour")
    return {
        "length": plies,
        "first_move": first_two[0] if first_two else None,
        "pie_taken": (choice == "black")
        if slug in PIE_GAMES and choice in ("black", "white")
        else None,
        "winner_colour": colour if isinstance(colour, str) and result.get("winner") else None,
        "options_key": ",".join(f"{k}={options[k]}" for k in sorted(options))[:64],
        "time_key": time_key[:32],
    }


def upgrade() -> None:
    """Apply: the columns, the finished games' values, then the indexes."""
    with op.batch_alter_table("games") as batch:
        for column in COLUMNS:
            batch.add_column(column.copy())
    bind = op.get_bind()
    after = ""
    while True:
        rows = bind.execute(
            sa.select(
                games.c.id,
                games.c.slug,
                games.c.options,
                games.c.time_control,
                games.c.result_json,
                games.c.ply_count,
            )
            .where(games.c.status == "finished", games.c.id > after)
            .order_by(games.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            break
        after = rows[-1][0]
        first_two: dict[str, list[str]] = {}
        for game_id, _ply, text in bind.execute(
            sa.select(moves.c.game_id, moves.c.ply, moves.c.text)
            .where(moves.c.game_id.in_([r[0] for r in rows]), moves.c.ply <= 2)
            .order_by(moves.c.game_id, moves.c.ply)
        ):
            first_two.setdefault(game_id, []).append(text)
        for game_id, slug, options, control, result, plies in rows:
            values = columns(slug, options, control, result, plies, first_two.get(game_id, []))
            bind.execute(games.update().where(games.c.id == game_id).values(**values))
    for name, indexed in INDEXES.items():
        op.create_index(name, "games", indexed)


def downgrade() -> None:
    """Revert: drop the indexes and the columns."""
    for name in INDEXES:
        op.drop_index(name, table_name="games")
    with op.batch_alter_table("games") as batch:
        for column in COLUMNS:
            batch.drop_column(column.name)
