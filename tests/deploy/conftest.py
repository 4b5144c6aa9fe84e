"""What the cluster tests share: one way to start the production topology on a database of the
test's own (:data:`start_cluster`), and which app process accepted which socket (:func:`accepted`).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
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
        self, *, env: Mapping[str, str] | None = None, redis_url: str = REDIS
    ) -> AbstractContextManager[Cluster]: ...


@pytest.fixture(scope="session")
def start_cluster(tmp_path_factory: pytest.TempPathFactory) -> ClusterFactory:
    """nginx and two app processes on a fresh PostgreSQL database, with the quotas off and a Redis
    prefix of their own (on the shared Redis, unless ``redis_url`` names the test's own), stopped
    and the database dropped on leaving the context."""

    @contextmanager
    def start(*, env: Mapping[str, str] | None = None, redis_url: str = REDIS) -> Iterator[Cluster]:
        database = fresh_database("postgres", tmp_path_factory.mktemp("cluster"))
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
