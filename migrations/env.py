"""Alembic environment, async: runs the migrations through the app's own engine factory."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from app.config import get_settings
from app.db import make_engine, normalise_url
from app.models import Base

config = context.config
target_metadata = Base.metadata


def database_url() -> str:
    """``-x url=...`` or the ``sqlalchemy.url`` option, else the settings' DATABASE_URL."""
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    return normalise_url(url or get_settings().database_url)


def run_migrations_offline() -> None:
    """Emit SQL without a connection (``alembic upgrade head --sql``)."""
    context.configure(url=database_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


async def run_migrations_online() -> None:
    """Connect with the async engine and run the migrations in its sync shim."""
    engine = make_engine(database_url())
    async with engine.connect() as connection:
        await connection.run_sync(_run)
    await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_migrations_online())
