"""Fresh databases for tests, built by running the Alembic migrations (never ``create_all``).

``HEXMOOT_TEST_PG`` overrides the PostgreSQL server URL (default: the local ``test`` database);
each call makes a new database on it and drops it afterwards.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PG_ADMIN_URL = os.environ.get("HEXMOOT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ("sqlite", "postgres")


def migrate(url: str) -> None:
    """Run ``alembic upgrade head`` on ``url`` in a child process (Alembic's env runs its own loop)."""
    env = {**os.environ, "DATABASE_URL": url}
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )


def sqlite_url(directory: Path) -> str:
    """A SQLite URL for a new file in ``directory``."""
    return f"sqlite+aiosqlite:///{directory / f'hexmoot-{secrets.token_hex(4)}.db'}"


async def _pg_admin(statement: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN_URL)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def _run_admin(statement: str) -> None:
    # A fresh loop in a thread, so this works inside and outside a running event loop.
    import threading

    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(_pg_admin(statement))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


@contextmanager
def fresh_database(backend: str, directory: Path) -> Iterator[str]:
    """Yield the URL of a new, migrated database of ``backend``; a PostgreSQL one is dropped after."""
    if backend == "sqlite":
        url = sqlite_url(directory)
        migrate(url)
        yield url
        return
    if backend != "postgres":
        raise ValueError(f"unknown backend {backend!r}")
    name = f"hexmoot_test_{secrets.token_hex(6)}"
    _run_admin(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    url = f"{base}/{name}".replace("postgresql://", "postgresql+asyncpg://", 1)
    try:
        migrate(url)
        yield url
    finally:
        _run_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
