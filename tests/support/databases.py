"""Fresh databases for tests, built by running the Alembic migrations (never ``create_all``).

``HEXMOOT_TEST_PG`` overrides the PostgreSQL server URL (default: the local ``test`` database);
each call makes a new database on it and drops it afterwards.

The migrations run once per test process and backend, into a template: a SQLite file, copied for
each new database, and a PostgreSQL database, each new one made with ``CREATE DATABASE ...
TEMPLATE`` (a file copy in the server). Running Alembic in a child process for each of the
suite's 150 databases cost about 3 s each. The template is the same migrations' result, so
nothing is proved less: ``tests/app/test_migrations.py`` runs them step by step on its own.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.server import alembic

ROOT = Path(__file__).resolve().parents[2]
PG_ADMIN_URL = os.environ.get("HEXMOOT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ("sqlite", "postgres")


def migrate(url: str) -> None:
    """Run ``alembic upgrade head`` on ``url`` in a child process (Alembic's env runs its own loop)."""
    alembic(url, "upgrade", "head")


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


def drop_database(name: str) -> None:
    """Drop the PostgreSQL database ``name`` (a test's own), its connections with it."""
    _run_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


#: This process's templates: backend -> a migrated SQLite file, or a PostgreSQL database's name.
_templates: dict[str, str] = {}


def _template(backend: str) -> str:
    """This process's migrated template of ``backend``, made at the first call."""
    if backend in _templates:
        return _templates[backend]
    if backend == "sqlite":
        directory = tempfile.mkdtemp(prefix="hexmoot-template-")
        atexit.register(shutil.rmtree, directory, True)
        path = Path(directory) / "template.db"
        migrate(f"sqlite+aiosqlite:///{path}")
        _templates[backend] = str(path)
        return str(path)
    name = f"hexmoot_template_{secrets.token_hex(6)}"
    _run_admin(f'CREATE DATABASE "{name}"')
    atexit.register(_run_admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    migrate(_pg_url(name))
    _templates[backend] = name
    return name


def _pg_url(name: str) -> str:
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    return f"{base}/{name}".replace("postgresql://", "postgresql+asyncpg://", 1)


@contextmanager
def fresh_database(backend: str, directory: Path) -> Iterator[str]:
    """Yield the URL of a new, migrated database of ``backend``; a PostgreSQL one is dropped after."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}")
    template = _template(backend)
    if backend == "sqlite":
        url = sqlite_url(directory)
        shutil.copyfile(template, url.removeprefix("sqlite+aiosqlite:///"))
        yield url
        return
    name = f"hexmoot_test_{secrets.token_hex(6)}"
    _run_admin(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    try:
        yield _pg_url(name)
    finally:
        drop_database(name)
