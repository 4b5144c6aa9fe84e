"""Every write of the app, as changes for the :class:`~app.repository.writer.Writer` to commit.

Each change is a callable run on the writer's connection inside its transaction. A game's change
(:class:`GameChange`) starts with a version-guarded UPDATE of the game row: it takes the row's
write lock, so a concurrent writer of the same game waits and then finds the version moved on, and
the unique keys on (game, ply) and (game, version) refuse a writer in another process. Either way
the change raises :class:`~app.repository.writer.Stale` and stores nothing.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

import orjson
from sqlalchemy import JSON, Connection, Update, bindparam, delete, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from app.domain.clock import to_ms
from app.domain.ratings import Glicko, rate
from app.domain.timecontrol import Clocks, TimeControl, credit
from app.models import ChatLine, CreationKey, Event, Game, Lease, Move, Player, Rating, RatingChange
from app.repository.outage import Unanswered
from app.repository.writer import RowChanged, Stale

Row = dict[str, Any]


class EventRow(TypedDict):
    """A row of ``events``: one version of a game, what happened, who sent it and when."""

    game_id: str
    version: int
    kind: str
    payload: dict[str, Any]
    player_id: str | None
    msg_id: str | None
    created_at: int


@dataclass(frozen=True)
class PlayerName:
    """A guest's row as it should be after the write: created, or renamed and seen now."""

    id: str
    name: str
    now: int


def save_players(conn: Connection, players: Sequence[PlayerName]) -> None:
    """Create or rename player rows (one upsert each: no read, no race between two processes)."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    for player in players:
        statement = dialect.insert(Player).values(
            id=player.id, name=player.name, created_at=player.now, last_seen_at=player.now
        )
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=[Player.id],
                set_={"name": player.name, "last_seen_at": player.now},
            )
        )


@dataclass(frozen=True)
class Rename:
    """A guest takes a name."""

    player: PlayerName

    def __call__(self, conn: Connection) -> None:
        save_players(conn, [self.player])


@dataclass(frozen=True)
class NewGame:
    """A game's first rows: the game, its events and moves (a created game, an imported one), and
    the players it seats."""

    game: Row
    events: list[EventRow]
    moves: list[Row] = field(default_factory=list)
    players: tuple[PlayerName, ...] = ()
    #: The creation's ``creation_keys`` row, when it came with an ``Idempotency-Key``: a second
    #: creation under the same key fails on its primary key, and writes nothing.
    key: Row | None = None
    #: Other areas' writes in the same transaction (an import's statistics and explorer counts).
    after: tuple[Callable[[Connection], object], ...] = ()

    def __call__(self, conn: Connection) -> None:
        save_players(conn, self.players)
        conn.execute(insert(Game), [self.game])
        if self.moves:
            conn.execute(insert(Move), self.moves)
        conn.execute(insert(Event), self.events)
        for write in self.after:
            write(conn)
        if self.key is not None:
            conn.execute(insert(CreationKey), [self.key])


@dataclass(frozen=True)
class ForgetCreationKeys:
    """Delete the creation keys older than ``cutoff`` (ms): how many."""

    cutoff: int

    def __call__(self, conn: Connection) -> int:
        result = conn.execute(delete(CreationKey).where(CreationKey.created_at < self.cutoff))
        return int(result.rowcount)


@dataclass(frozen=True)
class RatedResult:
    """A rated game's result, to rate in the transaction that records it: the game, the two
    seats' accounts and usernames, and what seat 1 scored (1, 0.5 or 0)."""

    slug: str
    accounts: tuple[int, int]
    usernames: tuple[str, str]
    score1: float
    now: int

    def apply(self, conn: Connection, game_id: str) -> list[Row]:
        """Rate both accounts once for ``game_id``: read their ratings (locked on PostgreSQL, so
        two games of one player finishing together are rated one after the other), write the new
        ones and the game's ``rating_changes`` row (its key is the game: a second rating of the
        same game fails the transaction). Returns the result's ``ratings``."""
        # Both rows exist first (a first game inserts its start), so that the locking read
        # below finds them: a row being inserted by another transaction cannot be locked.
        dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
        start = Glicko()
        for account in self.accounts:
            conn.execute(
                dialect.insert(Rating)
                .values(
                    account_id=account,
                    slug=self.slug,
                    rating=start.rating,
                    deviation=start.deviation,
                    volatility=start.volatility,
                    games=0,
                    wins=0,
                    losses=0,
                    draws=0,
                    updated_at=self.now,
                )
                .on_conflict_do_nothing(index_elements=[Rating.account_id, Rating.slug])
            )
        query = select(Rating).where(Rating.slug == self.slug, Rating.account_id.in_(self.accounts))
        if conn.dialect.name == "postgresql":
            query = query.with_for_update()
        rows = {row.account_id: row for row in conn.execute(query)}
        before = [
            Glicko(rows[a].rating, rows[a].deviation, rows[a].volatility) for a in self.accounts
        ]
        after = rate(before[0], before[1], self.score1)
        for account, new, score in zip(
            self.accounts, after, (self.score1, 1.0 - self.score1), strict=True
        ):
            conn.execute(
                update(Rating)
                .where(Rating.account_id == account, Rating.slug == self.slug)
                .values(
                    rating=new.rating,
                    deviation=new.deviation,
                    volatility=new.volatility,
                    updated_at=self.now,
                    games=Rating.games + 1,
                    wins=Rating.wins + int(score == 1.0),
                    losses=Rating.losses + int(score == 0.0),
                    draws=Rating.draws + int(score == 0.5),
                )
            )
        conn.execute(
            insert(RatingChange).values(
                game_id=game_id,
                slug=self.slug,
                account1_id=self.accounts[0],
                account2_id=self.accounts[1],
                before1=before[0].rating,
                after1=after[0].rating,
                before2=before[1].rating,
                after2=after[1].rating,
                deviation1=after[0].deviation,
                deviation2=after[1].deviation,
                created_at=self.now,
            )
        )
        return [
            {
                "seat": seat,
                "username": username,
                "before": round(old.rating),
                "after": round(new.rating),
                "deviation": round(new.deviation),
                "provisional": new.provisional,
            }
            for seat, username, old, new in zip((1, 2), self.usernames, before, after, strict=True)
        ]


@dataclass(frozen=True)
class GameChange:
    """One change of a game: the row's new values if it is still at ``base``, plus new rows."""

    game_id: str
    base: int
    values: dict[str, Any]
    events: list[EventRow]
    move: Row | None = None
    players: tuple[PlayerName, ...] = ()  # seated by this change: their rows come first
    rated: RatedResult | None = None  # a rated game's result: rated in this transaction
    undo_after: int | None = None  # a takeback: the moves after this ply are removed
    # The whole row the change was computed from, when that was a cached copy (:func:`row_values`):
    # written only if the database's row still holds exactly these values, else RowChanged.
    expect: Row | None = None
    #: Other areas' writes in the same transaction, after the game's (the statistics' counters, the
    #: explorer's).
    after: tuple[Callable[[Connection], object], ...] = ()

    def __call__(self, conn: Connection) -> None:
        """Execute the change inside the writer's transaction; Stale if raced, RowChanged if the
        row is not ``expect``."""
        if self.expect is not None:
            _unchanged(conn, self.game_id, self.expect)
        save_players(conn, self.players)
        result = conn.execute(
            _guarded_update(tuple(self.values)),
            {"game_id": self.game_id, "base": self.base, **_set(self.values)},
        )
        if result.rowcount != 1:
            raise Stale
        if self.rated is not None:
            # The result (the row's and the event's, one dict) gains the ratings, written with it.
            ratings = self.rated.apply(conn, self.game_id)
            self.values["result_json"]["ratings"] = ratings
            for event in self.events:
                if event["kind"] == "result":
                    event["payload"] = {**event["payload"], "ratings": ratings}
            conn.execute(
                update(Game)
                .where(Game.id == self.game_id)
                .values(result_json=self.values["result_json"])
            )
        if self.undo_after is not None:
            conn.execute(
                delete(Move).where(Move.game_id == self.game_id, Move.ply > self.undo_after)
            )
        try:
            if self.move is not None:
                conn.execute(_INSERT_MOVE, [self.move])
            conn.execute(_INSERT_EVENT, self.events)
        except IntegrityError as exc:  # another process took this ply or version
            raise Stale from exc
        for write in self.after:
            write(conn)


# A move's statements are built once, not per change: building one, and its cache key, cost more
# than SQLite's running it (issue 27). The UPDATE is one per set of columns a change writes.
_INSERT_MOVE = insert(Move)
_INSERT_EVENT = insert(Event)


@functools.lru_cache(maxsize=256)
def _guarded_update(columns: tuple[str, ...]) -> Update:
    """``UPDATE games SET <columns> WHERE id = :game_id AND version = :base``, its values bound
    as ``set_<column>`` (:func:`_set`)."""
    table = Game.__table__
    return (
        update(Game)
        .where(Game.id == bindparam("game_id"), Game.version == bindparam("base"))
        .values({name: bindparam(f"set_{name}", type_=table.c[name].type) for name in columns})
    )


def _set(values: Row) -> Row:
    """``values`` as :func:`_guarded_update`'s parameters."""
    return {f"set_{name}": value for name, value in values.items()}


def row_values(game: Game) -> Row:
    """Every column of a game row, as the database gives it back (JSON values through JSON: a
    tuple reads back as a list), to compare with the row the database holds (``expect``). Through
    orjson: a move makes one, and the standard library's round trip cost several times more."""
    return {
        name: orjson.loads(orjson.dumps(getattr(game, name), option=orjson.OPT_NON_STR_KEYS))
        if name in _JSON_COLUMNS
        else getattr(game, name)
        for name in _GAME_COLUMNS
    }


_GAME_COLUMNS = tuple(column.key for column in Game.__table__.columns)
_JSON_COLUMNS = frozenset(
    column.key for column in Game.__table__.columns if isinstance(column.type, JSON)
)
_READ_ROW = select(Game.__table__).where(Game.id == bindparam("game_id"))
_LOCK_ROW = _READ_ROW.with_for_update()


def _unchanged(conn: Connection, game_id: str, expect: Row) -> None:
    """RowChanged unless the game row is exactly ``expect`` (locked first on PostgreSQL, so it
    cannot change between this look and the change's UPDATE; SQLite's writer holds the lock)."""
    query = _LOCK_ROW if conn.dialect.name == "postgresql" else _READ_ROW
    row = conn.execute(query, {"game_id": game_id}).mappings().one_or_none()
    if row is None or dict(row) != expect:
        raise RowChanged


# --- the table and the clocks (issue 17) ----------------------------------------------------


@dataclass(frozen=True)
class SetTable:
    """Change what surrounds a game without changing the game (an offer made or withdrawn, a
    disconnection, a rematch link): the row's ``values`` if it is still at ``version``, which
    stays (the game itself did not change). Stale if the game moved on."""

    game_id: str
    version: int
    values: dict[str, Any]

    def __call__(self, conn: Connection) -> None:
        result = conn.execute(
            update(Game)
            .where(Game.id == self.game_id, Game.version == self.version)
            .values(**self.values)
        )
        if result.rowcount != 1:
            raise Stale


@dataclass(frozen=True)
class NewChatLine:
    """A chat line, numbered next in its room (the unique key refuses a second writer of the
    same number: Stale, and the caller tries again).

    A line names its speaker's player row, which a guest who never named itself, created or
    joined a game does not have yet: ``speaker`` is that row, written first if it is missing
    (never renamed here)."""

    line: Row
    speaker: PlayerName

    def __call__(self, conn: Connection) -> int:
        dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
        conn.execute(
            dialect.insert(Player)
            .values(
                id=self.speaker.id,
                name=self.speaker.name,
                created_at=self.speaker.now,
                last_seen_at=self.speaker.now,
            )
            .on_conflict_do_nothing(index_elements=[Player.id])
        )
        last = conn.execute(
            select(ChatLine.seq)
            .where(ChatLine.game_id == self.line["game_id"], ChatLine.room == self.line["room"])
            .order_by(ChatLine.seq.desc())
            .limit(1)
        ).scalar_one_or_none()
        seq = (last or 0) + 1
        try:
            conn.execute(insert(ChatLine).values(**self.line, seq=seq))
        except IntegrityError as exc:
            if not _unique_violation(exc):
                raise  # no race: a bug to see, never "try again"
            raise Stale from exc
        return seq


def _unique_violation(exc: IntegrityError) -> bool:
    """Whether ``exc`` is a unique key's refusal (another writer took the row), not another
    constraint's (a foreign key, a NOT NULL)."""
    code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    if code is not None:
        return str(code) == "23505"  # PostgreSQL's unique_violation
    return "UNIQUE constraint failed" in str(exc.orig)


SITE = "site"  # the lease row whose beat_at is the site's last sign of life


def _lease_row(conn: Connection, name: str, now: int) -> None:
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    conn.execute(
        dialect.insert(Lease)
        .values(name=name, owner=None, expires_at=0, beat_at=now)
        .on_conflict_do_nothing(index_elements=[Lease.name])
    )


@dataclass(frozen=True)
class TakeLease:
    """Take or renew the lease ``name`` for ``owner`` until ``now + ttl``: only if it is free,
    expired or already ``owner``'s. Whether ``owner`` holds it."""

    name: str
    owner: str
    now: int
    ttl: int

    def __call__(self, conn: Connection) -> bool:
        _lease_row(conn, self.name, self.now)
        result = conn.execute(
            update(Lease)
            .where(
                Lease.name == self.name,
                or_(Lease.owner == self.owner, Lease.expires_at < self.now),
            )
            .values(owner=self.owner, expires_at=self.now + self.ttl, beat_at=self.now)
        )
        return bool(result.rowcount == 1)


@dataclass(frozen=True)
class Beat:
    """A process's sign of life: the site was up until now. ``settle``: first settle an outage
    (at a start, or after a failure made the process suspect one): if the site showed no sign of
    life for over ``after`` ms, it was down since its last one, and every running clock is
    credited with the time since (nobody's clock runs while the site is down). The site row is
    read locked (PostgreSQL) and rewritten in the same transaction, so two processes settling
    together credit once. Returns (the outage in ms, the games credited); (0, 0) when there was
    none.

    The time written is read from ``clock`` once the locked read has answered, never before the
    change is sent: a database that stopped answering without closing anything (a hung server,
    issue 27) answers a statement sent during its silence only when it is back, and a time taken
    before would claim a sign of life in the middle of the outage, and cut its credit short. For
    the same reason a plain sign of life answered over ``after`` ms after it was sent (``sent``,
    ``time.monotonic()``: the database's real delay, whatever the site's clock says) vouches for
    nothing: it raises :class:`~app.repository.outage.Unanswered` (nothing written), and the
    process settles the outage next."""

    sent: float
    clock: Callable[[], int]
    after: int
    settle: bool = False

    def __call__(self, conn: Connection) -> tuple[int, int]:
        _lease_row(conn, SITE, self.clock())
        query = select(Lease.beat_at).where(Lease.name == SITE)
        if conn.dialect.name == "postgresql":
            query = query.with_for_update()
        last = conn.execute(query).scalar_one()
        now = self.clock()
        outage = running = 0
        if self.settle and now - last > self.after:
            outage, running = now - last, self._credit(conn, last, now)
        elif not self.settle and (late := to_ms(time.monotonic() - self.sent)) > self.after:
            raise Unanswered(f"the database took {late} ms to answer a sign of life")
        conn.execute(
            update(Lease).where(Lease.name == SITE, Lease.beat_at < now).values(beat_at=now)
        )
        return outage, running

    @staticmethod
    def _credit(conn: Connection, last: int, now: int) -> int:
        """Credit every running clock with the time from ``last`` to ``now``; how many."""
        running = conn.execute(
            select(Game.id, Game.clocks, Game.to_move, Game.time_control).where(
                Game.deadline_at.is_not(None), Game.status == "active"
            )
        ).all()
        for game_id, raw, to_move, control in running:
            clocks = credit(Clocks.from_json(raw), last, now)
            flag_at = clocks.flag_at(to_move, TimeControl.stored(control))
            conn.execute(
                update(Game)
                .where(Game.id == game_id)
                .values(clocks=clocks.to_json(), deadline_at=flag_at)
            )
        return len(running)
