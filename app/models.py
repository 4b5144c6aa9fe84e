"""Tables, SQLAlchemy 2 style. Times are integer milliseconds since the epoch (UTC) on every backend.

A guest is a ``Player`` row; an account, later, will own players through ``Player.account_id``, so a
guest's games follow it when it signs up. A game stores its options and, in ``moves``, the canonical
text of every ply: the position is always the replay of that list. ``events`` numbers every change of
a game (its ``version``) so that a reconnecting client can be sent exactly what it missed.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAME_MAX = 32
MOVE_TEXT_MAX = 200
CHAT_MAX = 300


class Base(DeclarativeBase):
    """Declarative base; ``Base.metadata`` is what the migrations create."""


class Player(Base):
    """A visitor: a guest, or one of an account's players.

    A row whose ``account_id`` is set is *owned*: the account's primary player (``Account.player_id``)
    or a guest the account claimed. An owned player acts only through a session of its account; a
    guest cookie naming it counts as no cookie.
    """

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_MAX))
    account_id: Mapped[int | None] = mapped_column(Integer, index=True)
    created_at: Mapped[int] = mapped_column(BigInteger)
    last_seen_at: Mapped[int] = mapped_column(BigInteger)


class Game(Base):
    """One game: options, seats, status, version and result. Moves live in ``moves``."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    slug: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    public: Mapped[bool] = mapped_column(Boolean)
    join_token: Mapped[str | None] = mapped_column(String(64))
    creator_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    # waiting (for an opponent), active, finished
    status: Mapped[str] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(Integer, default=0)
    ply_count: Mapped[int] = mapped_column(Integer, default=0)
    to_move: Mapped[int | None] = mapped_column(Integer)
    player1_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    player2_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    # Names as they were when the seat was taken; *_key is the lowercased name for search.
    player1_name: Mapped[str | None] = mapped_column(String(NAME_MAX))
    player2_name: Mapped[str | None] = mapped_column(String(NAME_MAX))
    player1_key: Mapped[str | None] = mapped_column(String(NAME_MAX))
    player2_key: Mapped[str | None] = mapped_column(String(NAME_MAX))
    # "1", "2" (the winning seat) or "draw"; the reason and the full result object.
    result: Mapped[str | None] = mapped_column(String(8))
    reason: Mapped[str | None] = mapped_column(String(32))
    result_json: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    imported: Mapped[bool] = mapped_column(Boolean, default=False)
    # Chosen at creation; only a game between two accounts can be rated (issue 16).
    rated: Mapped[bool] = mapped_column(Boolean, server_default=false())
    # The time control (None: unlimited), both seats' clocks, and when the seat to move flags
    # (issue 17): the deadline scheduler's queue is this indexed column.
    time_control: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    clocks: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    deadline_at: Mapped[int | None] = mapped_column(BigInteger)
    # The pending offer (draw, takeback or rematch) and who made it; see app.services.table.
    offer: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # The offer the opponent last declined, and who declined it, until the game moves on.
    declined: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Takebacks may be asked (always in casual games; in rated ones if both players allowed them).
    takebacks: Mapped[bool] = mapped_column(Boolean, server_default=true())
    # The game this one is a rematch of, and this game's rematch: linked both ways.
    rematch_of: Mapped[str | None] = mapped_column(String(16))
    rematch_id: Mapped[str | None] = mapped_column(String(16))
    # Each seat's disconnection: since when it is away, and the grace left (see app.services.table).
    away: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # The name of the guest who imported the record (None for games played here).
    imported_by: Mapped[str | None] = mapped_column(String(NAME_MAX))
    created_at: Mapped[int] = mapped_column(BigInteger)
    last_activity_at: Mapped[int] = mapped_column(BigInteger)
    finished_at: Mapped[int | None] = mapped_column(BigInteger)
    # What the archive filters and sorts by (app.domain.archive), written once when the game
    # finishes: none is touched by a move, so no move updates the indexes below.
    length: Mapped[int | None] = mapped_column(Integer)
    first_move: Mapped[str | None] = mapped_column(String(MOVE_TEXT_MAX))
    pie_taken: Mapped[bool | None] = mapped_column(Boolean)
    winner_colour: Mapped[str | None] = mapped_column(String(8))
    options_key: Mapped[str | None] = mapped_column(String(64))
    time_key: Mapped[str | None] = mapped_column(String(32))

    __table_args__ = (
        # The archive: each filter has an index that starts with it and ends with the date order,
        # (finished_at, id), so a page of it reads only its own rows (docs/protocol.md, "Archive").
        Index("ix_games_archive", "status", "finished_at", "id"),
        Index("ix_games_archive_slug", "status", "slug", "finished_at", "id"),
        Index("ix_games_archive_result", "status", "result", "finished_at", "id"),
        Index("ix_games_archive_length", "status", "length", "finished_at", "id"),
        Index("ix_games_archive_options", "status", "slug", "options_key", "finished_at", "id"),
        Index("ix_games_archive_first", "status", "slug", "first_move", "finished_at", "id"),
        Index("ix_games_archive_colour", "status", "winner_colour", "finished_at", "id"),
        Index("ix_games_archive_pie", "status", "pie_taken", "finished_at", "id"),
        Index("ix_games_archive_rated", "status", "rated", "finished_at", "id"),
        Index("ix_games_archive_time", "status", "time_key", "finished_at", "id"),
        Index("ix_games_archive_imported", "status", "imported", "finished_at", "id"),
        Index("ix_games_player1", "player1_key", "finished_at", "id"),
        Index("ix_games_player2", "player2_key", "finished_at", "id"),
        # The player filter's prefix (LIKE 'ali%') on PostgreSQL (migration 5b8f0c3d1e72).
        Index(
            "ix_games_player1_prefix",
            "player1_key",
            postgresql_ops={"player1_key": "varchar_pattern_ops"},
        ).ddl_if(dialect="postgresql"),
        Index(
            "ix_games_player2_prefix",
            "player2_key",
            postgresql_ops={"player2_key": "varchar_pattern_ops"},
        ).ddl_if(dialect="postgresql"),
        # A player identity's games (an account's players, or one guest): the archive, profiles.
        Index("ix_games_p1_id", "player1_id", "finished_at", "id"),
        Index("ix_games_p2_id", "player2_id", "finished_at", "id"),
        Index("ix_games_activity", "status", "last_activity_at"),
        Index("ix_games_open", "status", "public", "created_at"),
        Index("ix_games_deadline", "deadline_at"),
    )

    def seat_of(self, player_id: str) -> int | None:
        """The seat ``player_id`` holds here, or None."""
        if self.player1_id == player_id:
            return 1
        if self.player2_id == player_id:
            return 2
        return None


class Move(Base):
    """One ply. The unique (game, ply) makes a second writer of the same ply fail in the database."""

    __tablename__ = "moves"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    ply: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(MOVE_TEXT_MAX))
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[int] = mapped_column(BigInteger)
    # A timed game's clock: the mover's time left after this move, and the time it was charged.
    clock_ms: Mapped[int | None] = mapped_column(BigInteger)
    spent_ms: Mapped[int | None] = mapped_column(BigInteger)

    __table_args__ = (UniqueConstraint("game_id", "ply", name="uq_moves_game_ply"),)


class Event(Base):
    """A numbered change of a game: create, join, move, resign, undo (a takeback), result. Chat is
    no event: it has its own table and sequence (``ChatLine``).

    (game, version) is the key, so two writers of one version cannot both commit; (game, player,
    msg_id) finds the event a retried client message already produced.
    """

    __tablename__ = "events"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    msg_id: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (UniqueConstraint("game_id", "player_id", "msg_id", name="uq_events_msg"),)


# --- Accounts (issue 16) ------------------------------------------------------------------------


class Account(Base):
    """A registered player: a unique username, a password hash, its players and settings.

    ``username_key`` is the username under NFKC and case folding: two usernames that differ only in
    case or compatibility forms are the same account. ``player_id`` is the primary player, the one
    that takes seats while a session of the account is used. ``email_verified_at``: when the
    current address was proven its owner's (its verification link opened); None while it is not,
    and then nothing but a verification link is ever mailed to it.
    """

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(24))
    username_key: Mapped[str] = mapped_column(String(64), unique=True)
    display_name: Mapped[str] = mapped_column(String(NAME_MAX))
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    email: Mapped[str | None] = mapped_column(String(254))
    email_key: Mapped[str | None] = mapped_column(String(254), index=True)
    email_verified_at: Mapped[int | None] = mapped_column(BigInteger)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[int] = mapped_column(BigInteger)
    last_seen_at: Mapped[int] = mapped_column(BigInteger)
    password_changed_at: Mapped[int] = mapped_column(BigInteger)
    digest_sent_at: Mapped[int | None] = mapped_column(BigInteger)
    # A bot's level ("beginner" .. "hard"; issue 29); None for a person. Nobody logs into a bot.
    bot: Mapped[str | None] = mapped_column(String(16))


class AccountSession(Base):
    """A login: the sha256 of the cookie's random token, revocable and expiring."""

    __tablename__ = "account_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[int] = mapped_column(BigInteger)
    last_seen_at: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[int] = mapped_column(BigInteger)
    revoked_at: Mapped[int | None] = mapped_column(BigInteger)
    user_agent: Mapped[str | None] = mapped_column(String(200))
    ip: Mapped[str | None] = mapped_column(String(64))


class RecoveryToken(Base):
    """A password recovery link: the sha256 of its token, single-use and expiring."""

    __tablename__ = "recovery_tokens"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[int] = mapped_column(BigInteger)
    used_at: Mapped[int | None] = mapped_column(BigInteger)


class VerificationToken(Base):
    """A link verifying an address: the sha256 of its token, the address it was mailed to,
    single-use and expiring. It verifies only that address, and only while the account has it."""

    __tablename__ = "verification_tokens"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    email: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[int] = mapped_column(BigInteger)
    used_at: Mapped[int | None] = mapped_column(BigInteger)


class Rating(Base):
    """An account's Glicko-2 rating in one game."""

    __tablename__ = "ratings"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    slug: Mapped[str] = mapped_column(String(32), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (Index("ix_ratings_board", "slug", "rating"),)


class RatingChange(Base):
    """What a rated game did to its players' ratings. Keyed by the game: at most one per game, so
    a game can never be rated twice."""

    __tablename__ = "rating_changes"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    slug: Mapped[str] = mapped_column(String(32))
    account1_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    account2_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    before1: Mapped[float] = mapped_column(Float)
    after1: Mapped[float] = mapped_column(Float)
    before2: Mapped[float] = mapped_column(Float)
    after2: Mapped[float] = mapped_column(Float)
    deviation1: Mapped[float] = mapped_column(Float)
    deviation2: Mapped[float] = mapped_column(Float)
    created_at: Mapped[int] = mapped_column(BigInteger)


class Challenge(Base):
    """A direct challenge from one account to another, until it is answered or cancelled."""

    __tablename__ = "challenges"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    challenger_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    challenged_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    slug: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seat: Mapped[str] = mapped_column(String(8))
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    # The game's time control (None: unlimited; issue 17).
    time_control: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # pending, accepted, declined, cancelled
    status: Mapped[str] = mapped_column(String(16))
    game_id: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[int] = mapped_column(BigInteger)
    answered_at: Mapped[int | None] = mapped_column(BigInteger)


# --- Clocks and the table (issue 17) ----------------------------------------------------------


class ChatLine(Base):
    """A chat line of a game, in one of its two rooms: ``players`` or ``spectators``.

    Chat is not part of the game: it has its own sequence per room (``seq``), never the game's
    version, so a chat line cannot make a pending move stale; the unique key refuses a second
    writer of the same number.
    """

    __tablename__ = "chat_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    room: Mapped[str] = mapped_column(String(12))
    seq: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    name: Mapped[str] = mapped_column(String(NAME_MAX))
    seat: Mapped[int | None] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(CHAT_MAX))
    created_at: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (UniqueConstraint("game_id", "room", "seq", name="uq_chat_seq"),)


class Lease(Base):
    """A job that exactly one server process may run at a time (the deadline scheduler), held
    until ``expires_at`` and renewed by its ``owner``; ``beat_at`` is the site's last sign of life,
    from which a restart after an outage credits the clocks."""

    __tablename__ = "leases"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str | None] = mapped_column(String(64))
    expires_at: Mapped[int] = mapped_column(BigInteger)
    beat_at: Mapped[int] = mapped_column(BigInteger)


class CreationKey(Base):
    """A game creation's ``Idempotency-Key`` (issue 27): the game a visitor's key created, so that
    the same request sent again (its answer lost on the way) answers with that game instead of
    making another. ``fingerprint``: the sha256 of the request's body, so that the key reused for
    another request is refused. Kept a day (``CREATION_KEY_KEPT``), then swept."""

    __tablename__ = "creation_keys"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    created_at: Mapped[int] = mapped_column(BigInteger, index=True)


class GameStat(Base):
    """A counter of the statistics page (issue 28, ``app.domain.stats``): how many finished
    public games of one game and option set, played here or imported, fall in ``bucket`` of
    ``kind``. Only ever added to, by an upsert in the transaction that finishes (or imports) a
    game; ``python -m app.stats rebuild`` recomputes every row from the archive."""

    __tablename__ = "game_stats"

    slug: Mapped[str] = mapped_column(String(32), primary_key=True)
    options_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    imported: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    bucket: Mapped[str] = mapped_column(String(MOVE_TEXT_MAX + 40), primary_key=True)
    n: Mapped[int] = mapped_column(BigInteger)


class ExplorerPosition(Base):
    """A position of the opening explorer (issue 28): the finished public games of one game and
    option set that reached it within the first ``EXPLORER_DEPTH`` plies, and how they ended.
    ``position`` is the rules' ``position_key`` (folded over the board's symmetries). Wins are
    counted by colour, in the order of the game's colour pair (Black, White; Exxit: Red, Black); a
    win decided before the pie's choice has no colour and counts in ``games`` only. ``length`` is
    the games' total plies (divided by ``games``: the average). Written by upsert when a game
    finishes, in the transaction that records its result (``app.repository.explorer``)."""

    __tablename__ = "explorer_positions"

    slug: Mapped[str] = mapped_column(String(32), primary_key=True)
    options_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    position: Mapped[str] = mapped_column(String(16), primary_key=True)
    games: Mapped[int] = mapped_column(Integer)
    first_wins: Mapped[int] = mapped_column(Integer)
    second_wins: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    length: Mapped[int] = mapped_column(BigInteger)


class ExplorerMove(Base):
    """A continuation of the opening explorer: from ``position`` to ``child`` (both position keys),
    with the counts of :class:`ExplorerPosition` for the games that played it. ``move`` is the text
    the first game to play it wrote, in that game's orientation (the explorer maps it onto the
    position it shows)."""

    __tablename__ = "explorer_moves"

    slug: Mapped[str] = mapped_column(String(32), primary_key=True)
    options_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    position: Mapped[str] = mapped_column(String(16), primary_key=True)
    child: Mapped[str] = mapped_column(String(16), primary_key=True)
    move: Mapped[str] = mapped_column(String(MOVE_TEXT_MAX))
    games: Mapped[int] = mapped_column(Integer)
    first_wins: Mapped[int] = mapped_column(Integer)
    second_wins: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    length: Mapped[int] = mapped_column(BigInteger)


class ExplorerGame(Base):
    """A finished public game that reached ``position`` (first at ``ply``): the explorer's "a few
    of their games" and the archive's position search, newest first by the primary key."""

    __tablename__ = "explorer_games"

    slug: Mapped[str] = mapped_column(String(32), primary_key=True)
    options_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    position: Mapped[str] = mapped_column(String(16), primary_key=True)
    finished_at: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    game_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer)
