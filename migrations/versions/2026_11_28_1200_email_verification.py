"""Verified email addresses (issue 26): an address gets no mail but its verification link until
that link is opened.

``accounts.email_verified_at``: when the account's current address was verified (null: not).
``verification_tokens``: the links mailed to verify an address, as ``recovery_tokens`` (the sha256 of
a 256-bit token, single use, an expiry), each with the address it was mailed to.

Decided: every address stored before this migration counts as NOT verified. Until now any address
typed in was accepted and mailed, so a stored address proves nothing: it may be a stranger's, given
to make the site mail them. Its owner sees "unverified" on the settings page and gets the link by
resending it there; until then no digest and no recovery link goes to it (an account that forgot its
password before verifying is in the same place as one that never gave an address). Migrations send
no mail, so no link goes out unasked.

Revision ID: f4ae43e5a0b4
Revises: 3e5f7a9b1c2d
Create Date: 2026-11-28 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "f4ae43e5a0b4"
down_revision: str | None = "3e5f7a9b1c2d"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply: the column (null for every account: not verified) and the table of links."""
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("email_verified_at", sa.BigInteger(), nullable=True))

    op.create_table(
        "verification_tokens",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.Column("used_at", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("verification_tokens", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_verification_tokens_account_id"), ["account_id"], unique=False
        )


def downgrade() -> None:
    """Revert: drop them (which addresses were verified is lost)."""
    with op.batch_alter_table("verification_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_verification_tokens_account_id"))

    op.drop_table("verification_tokens")
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.drop_column("email_verified_at")
