"""Settings read from the environment (pydantic-settings); one ``Settings`` object per app."""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything an operator may tune; each field is read from the same-named variable."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = "sqlite+aiosqlite:///./data/hexmoot.db"
    host: str = "127.0.0.1"
    port: int = 8000
    secret_key: str = Field(default="dev-only-secret-change-me", min_length=16)
    cookie_secure: bool = False

    # Games with no event for this long are ended as abandoned (seconds).
    abandon_after: float = 7 * 24 * 3600.0
    abandon_check_every: float = 60.0
    # Worker processes for the rules of games with slow positions (Jotun), and the seconds a
    # worker call may take before its pool is replaced (``rules_timeout``, 503); see
    # app/runtime/rules.py.
    rules_workers: int = 1
    rules_timeout: float = 30.0

    # Websocket limits.
    ws_idle_timeout: float = 60.0
    ws_max_message_bytes: int = 16 * 1024
    ws_rate_messages: int = 50
    ws_rate_window: float = 5.0
    ws_max_sockets_per_visitor: int = 32
    ws_resync_gap: int = 200  # a reconnect missing more events than this gets a snapshot

    state_cache_size: int = 2048

    # Pub/sub: in-memory (one process) unless a Redis URL is given (several processes).
    redis_url: str | None = None
    redis_prefix: str = "hexmoot:"

    # Garbage collector thresholds (gen0, gen1, gen2). A full collection walks every object of
    # the process, thousands of sockets included, and stops every game for hundreds of
    # milliseconds; rarer collections keep the move round trip short. Empty: Python's defaults.
    gc_thresholds: tuple[int, int, int] | None = (50_000, 50, 1000)

    # Package "records" (issue 14): the seconds a replay of untrusted input may take in a rules
    # worker before it answers ``rules_timeout`` (503): a ``POST /api/replay`` window (at most 32
    # views: well under a second), and an imported record (every ply's canonical text: about 4 s
    # of CPU for a 697-ply Jotun size-6 game, where each capture's text needs a search).
    replay_timeout: float = 5.0
    import_timeout: float = 20.0

    def is_sqlite(self) -> bool:
        """Whether the database is SQLite."""
        return self.database_url.startswith("sqlite")


@lru_cache
def get_settings() -> Settings:
    """The settings of the environment, read once."""
    return Settings()
