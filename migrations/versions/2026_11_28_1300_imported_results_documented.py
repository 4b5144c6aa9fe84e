"""Results of games imported before issue 14 put in the documented shape (issue 26)

Imports used to store a server reason's result as the record gave it. ``7d1e5c2a9b40`` kept only
the protocol's keys, but not their types: a result could lack ``colour``, or carry a ``winner`` or
``scores`` of any type, and every answer and message carrying the game passed it on in a shape the
protocol does not document. Each such result is rebuilt from what the game's row says for sure: the
winner from ``games.result`` (``"1"``, ``"2"``; anything else is no winner), the reason from
``games.reason`` (or the stored one), the colour if it is text, the scores if they are the
protocol's (integers, or lists of integers), else null. Results written by the server are left
alone. Row by row in Python, as ``7d1e5c2a9b40``; the downgrade keeps the rebuilt results.

Revision ID: 9c3b7e1d2f60
Revises: f4ae43e5a0b4
Create Date: 2026-11-28 13:00:00
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "9c3b7e1d2f60"
down_revision: str | None = "f4ae43e5a0b4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

games = sa.table(
    "games",
    sa.column("id", sa.String(16)),
    sa.column("imported", sa.Boolean()),
    sa.column("result", sa.String(8)),
    sa.column("reason", sa.String(32)),
    sa.column("result_json", sa.JSON()),
)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _scores(value: Any) -> list[Any] | None:
    """``value`` if it is the protocol's scores (one integer, or one list of integers, a seat)."""
    if not isinstance(value, list):
        return None
    for score in value:
        if not _integer(score) and not (
            isinstance(score, list) and all(_integer(s) for s in score)
        ):
            return None
    return value


def documented(result: dict[str, Any], winner: str | None, reason: str | None) -> dict[str, Any]:
    """The stored ``result`` of an imported game in the protocol's shape."""
    stored_reason = result.get("reason")
    return {
        "winner": {"1": 1, "2": 2}.get(winner or ""),
        "colour": result.get("colour") if isinstance(result.get("colour"), str) else None,
        "reason": reason or (stored_reason if isinstance(stored_reason, str) else "unknown"),
        "scores": _scores(result.get("scores")),
    }


def upgrade() -> None:
    """Apply: rebuild every imported result that is not in the documented shape."""
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(games.c.id, games.c.result, games.c.reason, games.c.result_json).where(
            games.c.imported == sa.true()
        )
    )
    for game_id, winner, reason, result in rows.all():
        if result is None:
            continue
        rebuilt = documented(result if isinstance(result, dict) else {}, winner, reason)
        if rebuilt != result:
            bind.execute(games.update().where(games.c.id == game_id).values(result_json=rebuilt))


def downgrade() -> None:
    """Revert: nothing (the rebuilt results are kept)."""
