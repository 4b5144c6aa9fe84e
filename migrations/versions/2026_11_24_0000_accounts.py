"""Accounts, sessions, recovery tokens, ratings, rating changes, challenges; games.rated (issue 16)

Also two indexes on the seats' player ids: the archive and the profiles find a player identity's
games by player id (an account's players, or one guest), no longer by the name a seat was taken with.

Revision ID: 94db19a30b5d
Revises: 5b8f0c3d1e72
Create Date: 2026-11-24 00:03:53.757072
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "94db19a30b5d"
down_revision: str | None = "5b8f0c3d1e72"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply: the new tables, the rated flag (false for every game so far) and the indexes."""
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("username", sa.String(length=24), nullable=False),
        sa.Column("username_key", sa.String(length=64), nullable=False),
        sa.Column("display_name", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("email_key", sa.String(length=254), nullable=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("last_seen_at", sa.BigInteger(), nullable=False),
        sa.Column("password_changed_at", sa.BigInteger(), nullable=False),
        sa.Column("digest_sent_at", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("player_id"),
        sa.UniqueConstraint("username_key"),
    )
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_accounts_email_key"), ["email_key"], unique=False)

    op.create_table(
        "account_sessions",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("last_seen_at", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.Column("revoked_at", sa.BigInteger(), nullable=True),
        sa.Column("user_agent", sa.String(length=200), nullable=True),
        sa.Column("ip", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("account_sessions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_account_sessions_account_id"), ["account_id"], unique=False
        )

    op.create_table(
        "challenges",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("challenger_id", sa.Integer(), nullable=False),
        sa.Column("challenged_id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(length=32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seat", sa.String(length=8), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("game_id", sa.String(length=16), nullable=True),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("answered_at", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(["challenged_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["challenger_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_challenges_challenged_id"), ["challenged_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_challenges_challenger_id"), ["challenger_id"], unique=False
        )

    op.create_table(
        "rating_changes",
        sa.Column("game_id", sa.String(length=16), nullable=False),
        sa.Column("slug", sa.String(length=32), nullable=False),
        sa.Column("account1_id", sa.Integer(), nullable=False),
        sa.Column("account2_id", sa.Integer(), nullable=False),
        sa.Column("before1", sa.Float(), nullable=False),
        sa.Column("after1", sa.Float(), nullable=False),
        sa.Column("before2", sa.Float(), nullable=False),
        sa.Column("after2", sa.Float(), nullable=False),
        sa.Column("deviation1", sa.Float(), nullable=False),
        sa.Column("deviation2", sa.Float(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account1_id"],
            ["accounts.id"],
        ),
        sa.ForeignKeyConstraint(
            ["account2_id"],
            ["accounts.id"],
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id"),
    )
    with op.batch_alter_table("rating_changes", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_rating_changes_account1_id"), ["account1_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_rating_changes_account2_id"), ["account2_id"], unique=False
        )

    op.create_table(
        "ratings",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(length=32), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", "slug"),
    )
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.create_index("ix_ratings_board", ["slug", "rating"], unique=False)

    op.create_table(
        "recovery_tokens",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.Column("used_at", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("recovery_tokens", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_recovery_tokens_account_id"), ["account_id"], unique=False
        )

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("rated", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.create_index("ix_games_p1_id", ["player1_id", "finished_at", "id"], unique=False)
        batch_op.create_index("ix_games_p2_id", ["player2_id", "finished_at", "id"], unique=False)


def downgrade() -> None:
    """Revert: drop them."""
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_p2_id")
        batch_op.drop_index("ix_games_p1_id")
        batch_op.drop_column("rated")

    with op.batch_alter_table("recovery_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_recovery_tokens_account_id"))

    op.drop_table("recovery_tokens")
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.drop_index("ix_ratings_board")

    op.drop_table("ratings")
    with op.batch_alter_table("rating_changes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_rating_changes_account2_id"))
        batch_op.drop_index(batch_op.f("ix_rating_changes_account1_id"))

    op.drop_table("rating_changes")
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_challenges_challenger_id"))
        batch_op.drop_index(batch_op.f("ix_challenges_challenged_id"))

    op.drop_table("challenges")
    with op.batch_alter_table("account_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_account_sessions_account_id"))

    op.drop_table("account_sessions")
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_accounts_email_key"))

    op.drop_table("accounts")
