"""Pytest fixtures built on the helpers; import the ones you need into a conftest or test module.

``live_server``: a real uvicorn process on a free loopback port with a fresh migrated SQLite database
(module scope). ``server_backend`` fixtures are parametrised over SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.databases import fresh_database
from tests.support.server import LiveServer
from tests.support.server import live_server as _live_server


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A running server on SQLite, shared by the tests of one module."""
    directory = tmp_path_factory.mktemp("live")
    with fresh_database("sqlite", directory) as url, _live_server(url) as server:
        yield server
