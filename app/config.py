"""Settings read from the environment (pydantic-settings); one ``Settings`` object per app."""

from __future__ import annotations

import logging
import secrets
from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

log = logging.getLogger("hexmoot")

MIN_SECRET_BYTES = 32


class InsecureSettings(RuntimeError):
    """The settings would run the site insecurely (e.g. no SECRET_KEY): it refuses to start."""


class Settings(BaseSettings):
    """Everything an operator may tune; each field is read from the same-named variable."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = "sqlite+aiosqlite:///./data/hexmoot.db"
    # The monthly dumps of the archive (app/services/dumps.py): where they are written (shared by
    # the processes of one site, as compose's volume is), and how often one process looks for a
    # month to dump (0: never; the download page then lists what is there).
    dumps_dir: str = "./data/dumps"
    # The pictures of positions that shared links show (app/runtime/cards.py): where they are kept,
    # the browser that draws them (empty: chromium-headless-shell or chromium, found on the PATH),
    # how long it may take, and where it finds this process (empty: http://HOST:PORT).
    cards_dir: str = "./data/cards"
    card_browser: str = ""
    card_timeout: float = Field(default=30.0, gt=0)
    card_origin: str = ""
    dumps_every: float = Field(default=86400.0, ge=0)
    host: str = "127.0.0.1"
    port: int = 8000
    # Signs the guest cookie; at least 32 bytes outside DEV_MODE (see ``signing_key``).
    secret_key: str = ""
    # The cookie's Secure flag; unset, it follows PUBLIC_ORIGIN (on when that is https).
    cookie_secure: bool | None = None

    # Games with no event for this long are ended as abandoned (seconds).
    abandon_after: float = 7 * 24 * 3600.0
    abandon_check_every: float = 60.0
    # Clocks (issue 17). The deadline scheduler runs in the one process holding its lease (held
    # for ``deadline_lease`` seconds, renewed while alive); it looks for due deadlines at least
    # every ``deadline_poll`` seconds. Every process writes a sign of life every ``beat_every``
    # seconds; a start finding none for ``outage_after`` seconds credits every running clock with
    # the outage. A seated player whose sockets all closed may be claimed away after its grace
    # (``away_grace`` seconds per game, real-time games only).
    deadline_poll: float = Field(default=0.2, gt=0)
    deadline_lease: float = Field(default=3.0, gt=0)
    beat_every: float = Field(default=1.0, gt=0)
    outage_after: float = Field(default=3.0, gt=0)
    away_grace: float = Field(default=60.0, ge=0)
    # Tests move a real server's clock: the file holds milliseconds added to the system clock.
    clock_offset_file: str | None = None
    # With the offset file: the clock stands still but for the offset (see OffsetClock).
    clock_frozen: bool = False
    # Worker processes for the rules of games with slow positions (Jotun), and the seconds a
    # worker call may run before its worker is stopped and replaced (``rules_timeout``, 503); see
    # app/runtime/rules.py.
    rules_workers: int = 1
    rules_timeout: float = 30.0
    # The bots (issue 29, app/services/bots.py): worker processes for their searches (bounded; 0
    # searches inline, tests only), the seconds after which a search stops and plays its best
    # move so far (a safety net: a level is a budget, not a time), how long a process's lease on a
    # bot game lasts unless renewed (another process takes the game over once it lapses), and how
    # often every process sweeps for bot games whose turn it is (after a restart, a lost wake).
    bot_workers: int = Field(default=1, ge=0)
    bot_move_seconds: float = Field(default=10.0, gt=0)
    bot_lease: float = Field(default=10.0, gt=0)
    bot_sweep_every: float = Field(default=2.0, gt=0)
    # Games against a bot one visitor may play at once (0: no limit): each costs the bots' workers.
    bot_games_per_visitor: int = Field(default=5, ge=0)

    # Websocket limits.
    ws_idle_timeout: float = 60.0
    ws_max_message_bytes: int = 16 * 1024
    ws_rate_messages: int = 50
    ws_rate_window: float = 5.0
    # Concurrent sockets of one guest over the whole site: counted in Redis when REDIS_URL is set,
    # each process's sockets under a lease of PRESENCE_TTL seconds renewed every PRESENCE_REFRESH
    # (app/runtime/sockets.py); per process while Redis is unreachable.
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

    # --- Secrets, headers, origins (issue 14) ---------------------------------------------------
    # Development mode (``make run``): a missing or short SECRET_KEY is tolerated with a warning.
    dev_mode: bool = False
    # Password hashes (argon2id, app/identity/passwords.py): passes and memory (KiB). The defaults
    # are argon2-cffi's, RFC 9106's second recommended set; only the test suite lowers them.
    password_hash_time_cost: int = Field(default=3, ge=1)
    password_hash_memory_kib: int = Field(default=65536, ge=64)
    # The key cookies were signed with before SECRET_KEY was changed: still accepted, and cookies
    # signed with it are reissued with the new key. Remove it once COOKIE_REISSUE_AFTER has passed.
    secret_key_previous: str | None = None
    # The site's public origin (``https://hexmoot.example``): websockets must come from it, and
    # the cookie is Secure when it is https. Unset: the origin of each request's Host header.
    public_origin: str | None = None
    # A cookie older than this (seconds) is reissued with a fresh issue time on the next request.
    cookie_reissue_after: float = 30 * 24 * 3600.0

    # Redis outages and presence (issue 14, package "redis"): the pub/sub listener reconnects
    # after ``redis_backoff_min`` seconds, doubling up to ``redis_backoff_max``; a Redis command
    # (a publish after a commit, presence) gives up after ``redis_timeout``; a new subscription
    # waits at most ``redis_subscribe_timeout`` for Redis to confirm it. Each process's spectators
    # and sockets count for ``presence_ttl`` seconds after its last refresh (every
    # ``presence_refresh``): a process killed outright stops counting then.
    # A database that stops answering without closing anything (a hung server, a cut network
    # that drops packets: issue 27) is given up on after ``database_timeout`` seconds: the connect
    # and each statement, each. A move then is refused ``unavailable``, as when the database
    # refuses connections, and /healthz says degraded. (A statement of the site's takes
    # milliseconds; the migrations have no limit.) PostgreSQL only: SQLite is this process's file.
    database_timeout: float = Field(default=5.0, gt=0)
    redis_backoff_min: float = Field(default=0.1, gt=0)
    redis_backoff_max: float = Field(default=2.0, gt=0)
    redis_timeout: float = Field(default=2.0, gt=0)
    redis_subscribe_timeout: float = Field(default=5.0, gt=0)
    presence_ttl: float = Field(default=30.0, gt=0)
    presence_refresh: float = Field(default=10.0, gt=0)

    def secure_cookies(self) -> bool:
        """Whether the guest cookie carries ``Secure``: COOKIE_SECURE, else an https PUBLIC_ORIGIN."""
        if self.cookie_secure is not None:
            return self.cookie_secure
        return (self.public_origin or "").lower().startswith("https://")

    def signing_key(self) -> str:
        """SECRET_KEY, refused (:class:`InsecureSettings`) under 32 bytes outside DEV_MODE.

        In DEV_MODE a short key is used as it is and a missing one is replaced by a random key of
        this process (guest cookies then last until a restart), each with a warning: a forgotten
        DEV_MODE in production never falls back to a key anyone can read.
        """
        previous = self.secret_key_previous
        if previous and len(previous.encode()) < MIN_SECRET_BYTES and not self.dev_mode:
            raise InsecureSettings(
                f"SECRET_KEY_PREVIOUS must hold at least {MIN_SECRET_BYTES} bytes, as SECRET_KEY"
            )
        size = len(self.secret_key.encode())
        if size >= MIN_SECRET_BYTES:
            return self.secret_key
        if not self.dev_mode:
            raise InsecureSettings(
                f"SECRET_KEY must hold at least {MIN_SECRET_BYTES} bytes "
                f"({'it is unset' if size == 0 else f'it has {size}'}): set it to a random value, "
                "e.g. the output of `python -c 'import secrets; print(secrets.token_urlsafe(32))'`"
                ", or set DEV_MODE=1 on a development machine"
            )
        if size == 0:
            log.warning("DEV_MODE: SECRET_KEY is unset; guest cookies use a key of this process")
            return secrets.token_urlsafe(32)
        log.warning(
            "DEV_MODE: SECRET_KEY has %d bytes; production needs %d", size, MIN_SECRET_BYTES
        )
        return self.secret_key

    # Serving (app/serve.py: `python -m app.serve`, how uvicorn runs in production).
    # Seconds a client has to send a request's head (request line and headers), counted from its
    # connection or from the first byte of each request; a connection that takes longer is closed.
    header_timeout: float = 10.0
    # Seconds a client has to send a request's whole body once its head is in (a body trickled
    # slower is refused with 408 ``body_timeout`` and the connection closed).
    body_timeout: float = 30.0
    # Seconds an idle keep-alive connection is kept open between two requests.
    keep_alive_timeout: int = 5
    # The proxies whose X-Forwarded-For and X-Forwarded-Proto headers are believed: IP addresses
    # or networks, comma-separated ("127.0.0.1,10.0.0.0/8"), or "*". Empty (the default): nobody's,
    # and the client's address is the connection's own.
    forwarded_allow_ips: str = ""
    # The server log's level ("info" shows one access line per request, join tokens redacted).
    log_level: str = "info"

    # The opening explorer's in-process cache of answers: seconds an answer is reused (the counts
    # only grow as games finish), and how many answers are kept at most.
    explorer_cache_seconds: float = 30.0
    explorer_cache_size: int = 512

    # --- quotas and rate limits (package "quotas": app/runtime/limiter.py, docs/protocol.md) ---
    # Rates use the `limits` notation: "20/minute", several joined by ";" ("10/minute;100/day");
    # an empty string is no limit. They are counted in Redis (REDIS_URL, under REDIS_PREFIX) when
    # it is set, so every process shares them, and in this process's memory otherwise.
    open_games_per_visitor: int = 5  # games created and not yet joined, public or private; 0: none
    rate_create_per_visitor: str = "20/minute"
    rate_create_per_ip: str = "60/minute"
    rate_replay_per_visitor: str = "30/minute"
    rate_replay_per_ip: str = "120/minute"
    rate_import_per_visitor: str = "10/minute"
    rate_import_per_ip: str = "30/minute"
    # The streaming export (GET /api/archive/export): each answer reads up to 10,000 games.
    rate_export_per_visitor: str = "6/minute;60/hour"
    rate_export_per_ip: str = "20/minute;200/hour"
    # A game's picture for shared links (GET /games/{id}/card.png): made once per position by a
    # browser, then read from CARDS_DIR.
    rate_card_per_ip: str = "30/minute;300/hour"
    # The opening explorer (GET /api/explorer/{game}, issue 28): each node replays up to 24 plies
    # and reads a position's continuations; answers are cached (below) but counted here all the same.
    rate_explorer_per_visitor: str = "60/minute;1000/hour"
    rate_explorer_per_ip: str = "240/minute;4000/hour"
    # Accounts (issue 16): challenges sent, login attempts per client address and per attempted
    # username (whether or not it exists: the answer never tells), and sign-ups per address.
    rate_challenge_per_visitor: str = "20/hour"
    rate_login_per_ip: str = "20/minute;200/day"
    rate_login_per_account: str = "10/minute;100/day"
    rate_signup_per_ip: str = "5/minute;50/day"
    rate_chat_per_visitor: str = "5/10 seconds;30/minute"
    # Verification mails per account (issue 26): each new address given and each resend is one
    # (the link mailed at sign-up is counted by the sign-ups per address).
    rate_verify_per_account: str = "2/minute;10/day"
    # While Redis is unreachable each process counts the rates in its own memory (and the socket
    # limits on its own sockets: app/runtime/sockets.py); Redis is asked again after this many
    # seconds.
    limits_retry_after_outage: float = 5.0
    # Concurrent sockets from one client address over the whole site (anonymous sockets included;
    # counted in Redis with REDIS_URL, see ws_max_sockets_per_visitor).
    ws_max_sockets_per_ip: int = 256
    # A game's ``spectators`` count goes out at most once per this many seconds per process.
    spectators_every: float = 1.0

    # Package "records" (issue 14): the seconds of processor time a replay of untrusted input may
    # take in a rules worker before it answers ``rules_timeout`` (503): a ``POST /api/replay`` window (at most 32
    # views: well under a second), and an imported record (every ply's canonical text: about 4 s
    # of CPU for a 697-ply Jotun size-6 game, where each capture's text needs a search).
    replay_timeout: float = 5.0
    import_timeout: float = 20.0

    # --- the lists (issue 15, package "lists") -----------------------------------------------------
    # /live, the lobby and /ws/live leave out games with no event for this long (seconds): a game
    # nobody has moved in half an hour is the players' own business, not a live game to watch. The
    # browsers drop an entry that goes idle by themselves, without waiting for a message.
    live_idle_after: float = Field(default=30 * 60.0, gt=0)

    # --- the statistics page (issue 28) --------------------------------------------------------------
    # A game's statistics (``GET /api/stats/{game}``) are answered from a process's memory for this
    # many seconds before its counters are read again (0: read every time).
    stats_cache_seconds: float = Field(default=5.0, ge=0)

    # --- mail (issue 16): recovery links and turn digests ------------------------------------------
    # The SMTP server mail goes through; unset, every email feature is off (addresses are refused).
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_user: str | None = None
    smtp_password: str | None = None
    smtp_starttls: bool = False
    smtp_timeout: float = Field(default=10.0, gt=0)
    mail_from: str = "Hexmoot <noreply@localhost>"
    # A recovery link works once, for this many seconds.
    recovery_valid_for: float = Field(default=3600.0, gt=0)
    # A link verifying an address works once, for this many seconds (issue 26): a day, since it is
    # mailed unasked-for at a sign-up and may wait in the mailbox until its owner looks.
    verification_valid_for: float = Field(default=24 * 3600.0, gt=0)
    # A digest goes to an account away this long (seconds) with turns waiting, at most once per
    # ``digest_every``; every ``digest_check_every`` seconds a process looks for such accounts.
    digest_after: float = Field(default=3600.0, gt=0)
    digest_every: float = Field(default=4 * 3600.0, gt=0)
    digest_check_every: float = Field(default=300.0, gt=0)

    def site_url(self) -> str:
        """The site's address for links in mail: PUBLIC_ORIGIN, else this server's host and port."""
        if self.public_origin:
            return self.public_origin.rstrip("/")
        return f"http://{self.host}:{self.port}"

    def is_sqlite(self) -> bool:
        """Whether the database is SQLite."""
        return self.database_url.startswith("sqlite")


@lru_cache
def get_settings() -> Settings:
    """The settings of the environment, read once."""
    return Settings()
