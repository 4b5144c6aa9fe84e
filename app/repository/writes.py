"""Every write of the app, as changes for the :class:`~app.repository.writer.Writer` to commit.

Each change is a callable run on the writer's connection inside its transaction. A game's change
(:class:`GameChange`) starts with a version-guarded UPDATE of the game row: it takes the row's
write lock, so a concurrent writer of the same game waits and then finds the version moved on, and
the unique keys on (game, ply) and (game, version) refuse a writer in another process. Either way
the change raises :class:`~app.repository.writer.Stale` and stores nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, insert, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from app.models import Event, Game, Move, Player
from app.repository.writer import Stale

Row = dict[str, Any]


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
    events: list[Row]
    moves: list[Row] = field(default_factory=list)
    players: tuple[PlayerName, ...] = ()

    def __call__(self, conn: Connection) -> None:
        save_players(conn, self.players)
        conn.execute(insert(Game), [self.game])
        if self.moves:
            conn.execute(insert(Move), self.moves)
        conn.execute(insert(Event), self.events)


@dataclass(frozen=True)
class GameChange:
    """One change of a game: the row's new values if it is still at ``base``, plus new rows."""

    game_id: str
    base: int
    values: dict[str, Any]
    events: list[Row]
    move: Row | None = None
    players: tuple[PlayerName, ...] = ()  # seated by this change: their rows come first

    def __call__(self, conn: Connection) -> None:
        """Execute the change inside the writer's transaction; Stale if raced."""
        save_players(conn, self.players)
        result = conn.execute(
            update(Game)
            .where(Game.id == self.game_id, Game.version == self.base)
            .values(**self.values)
        )
        if result.rowcount != 1:
            raise Stale
        try:
            if self.move is not None:
                conn.execute(insert(Move), [self.move])
            conn.execute(insert(Event), self.events)
        except IntegrityError as exc:  # another process took this ply or version
            raise Stale from exc
