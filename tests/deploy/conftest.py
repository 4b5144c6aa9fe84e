"""What the cluster tests share: one way to start the production topology on a database of the
test's own (:data:`start_cluster`), and which app process accepted which socket (:func:`accepted`).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Protocol

import pytest

from deploy.cluster import REDIS, Cluster
from tests.support.databases import fresh_database
from tests.support.patience import PATIENCE
from tests.support.quotas import QUOTAS_OFF

SECRET_KEY = "test-secret-key-0123456789abcdef"


class ClusterFactory(Protocol):
    """Starts a :class:`Cluster`; ``env`` adds to the app processes' environment."""

    def __call__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        redis_url: str = REDIS,
        database_url: str | None = None,
    ) -> AbstractContextManager[Cluster]: ...


@pytest.fixture(scope="session")
def start_cluster(tmp_path_factory: pytest.TempPathFactory) -> ClusterFactory:
    """nginx and two app processes with the quotas off and a Redis prefix of their own (on the
    shared Redis, unless ``redis_url`` names the test's own), stopped on leaving the context. Their
    database is ``database_url`` (a PostgreSQL of the test's own), or else a fresh database on the
    shared server, dropped on leaving."""

    @contextmanager
    def start(
        *,
        env: Mapping[str, str] | None = None,
        redis_url: str = REDIS,
        database_url: str | None = None,
    ) -> Iterator[Cluster]:
        database: AbstractContextManager[str] = (
            fresh_database("postgres", tmp_path_factory.mktemp("cluster"))
            if database_url is None
            else nullcontext(database_url)
        )
        with (
            database as url,
            Cluster(
                url,
                secret_key=SECRET_KEY,
                redis_url=redis_url,
                redis_prefix=f"test-{secrets.token_hex(4)}:",
                env={**QUOTAS_OFF, "WS_RATE_MESSAGES": "100000", **(env or {})},
                timeout=PATIENCE,
            ) as running,
        ):
            yield running

    return start


def accepted(cluster: Cluster, game_id: str | None = None) -> list[int]:
    """How many websockets of the game (``/ws/live``'s when ``game_id`` is None) each app process
    accepted so far, from its access lines (a socket refused after it opened included)."""
    path = "/ws/live" if game_id is None else f"/ws/games/{game_id}"
    line = f'"WebSocket {path}" [accepted]'
    return [app.log().count(line) for app in cluster.apps]
