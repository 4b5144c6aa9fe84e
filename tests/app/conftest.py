"""Fixtures of the server tests: every test runs on SQLite and on the PostgreSQL server.

Databases are built by the Alembic migrations (a new SQLite file, or a new PostgreSQL database
that is dropped afterwards). ``app`` is the real application with its lifespan running, driven
in-process through httpx; ``server`` is a real uvicorn process on a free loopback port.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from tests.support.contract import COUNTS, checked
from tests.support.databases import BACKENDS, fresh_database
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import LiveServer
from tests.support.server import live_server as run_server

SECRET = "test-secret-key-0123456789abcdef"


@pytest.fixture(scope="session", autouse=True)
def quotas_off() -> Iterator[None]:
    """No quotas for the session (in-process apps and every uvicorn process it starts)."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in QUOTAS_OFF.items():
            patch.setenv(name, value)
        yield


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def database_url(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fresh_database(backend, tmp_path_factory.mktemp(backend)) as url:
        yield url


def make_settings(database_url: str, **overrides: Any) -> Settings:
    return Settings(
        database_url=database_url,
        secret_key=SECRET,
        ws_rate_messages=100_000,
        **overrides,
    )


@pytest.fixture(scope="module")
async def app(database_url: str) -> AsyncIterator[FastAPI]:
    application = create_app(make_settings(database_url))
    async with application.router.lifespan_context(application):
        yield application


ClientFactory = Callable[..., Any]


@pytest.fixture
async def clients(app: FastAPI) -> AsyncIterator[ClientFactory]:
    """``await clients("Ann")``: a new visitor (own cookie jar), named if a name is given; every
    answer it gets is checked against the documented contract (``tests/support/contract.py``)."""
    made: list[httpx.AsyncClient] = []

    async def make(name: str | None = None) -> httpx.AsyncClient:
        client = checked(
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")
        )
        made.append(client)
        if name is not None:
            response = await client.put("/api/me", json={"name": name})
            assert response.status_code == 200, response.text
        return client

    yield make
    for client in made:
        await client.aclose()


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[LiveServer]:
    with run_server(database_url) as running:
        yield running


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How many answers and messages this process checked against the contract (none are
    counted here under pytest-xdist: its workers check them)."""
    if COUNTS:
        terminalreporter.write_line(
            f"contract: {COUNTS['http']} HTTP answers and {COUNTS['ws']} websocket messages checked"
        )
