"""Data migrations, on SQLite and on PostgreSQL: stored games still replay after the migration."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

import games
from app.db import make_engine
from games.record import replay_moves
from tests.support.server import alembic

BEFORE_SIZE = "b3c1a2ba13cb"  # the revision before Valaturna's option side became size
SIZE = "2424c61f9505"

GAMES = sa.table(
    "games",
    sa.column("id", sa.String(16)),
    sa.column("slug", sa.String(32)),
    sa.column("options", sa.JSON()),
    sa.column("public", sa.Boolean()),
    sa.column("status", sa.String(16)),
    sa.column("version", sa.Integer()),
    sa.column("ply_count", sa.Integer()),
    sa.column("imported", sa.Boolean()),
    sa.column("created_at", sa.BigInteger()),
    sa.column("last_activity_at", sa.BigInteger()),
)


def row(game_id: str, slug: str, options: dict[str, Any]) -> dict[str, Any]:
    """A finished game's row with only the columns that have no default."""
    return {
        "id": game_id,
        "slug": slug,
        "options": options,
        "public": True,
        "status": "finished",
        "version": 0,
        "ply_count": 0,
        "imported": False,
        "created_at": 0,
        "last_activity_at": 0,
    }


async def stored_options(url: str) -> dict[str, Any]:
    """Every stored game's options by id."""
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            result = await conn.execute(sa.select(GAMES.c.id, GAMES.c.options))
            return {str(game_id): options for game_id, options in result.all()}
    finally:
        await engine.dispose()


async def test_valaturna_side_becomes_size_and_back(database_url: str) -> None:
    alembic(database_url, "downgrade", BEFORE_SIZE)
    engine = make_engine(database_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(sa.delete(GAMES))
            await conn.execute(
                sa.insert(GAMES),
                [
                    row("old-short", "valaturna", {"side": 5}),
                    row("old-default", "valaturna", {}),
                    row("jotun", "jotun", {"size": 4}),
                    row("other-side", "harmijan", {"size": 5}),
                ],
            )
    finally:
        await engine.dispose()

    alembic(database_url, "upgrade", SIZE)
    after = await stored_options(database_url)
    assert after == {
        "old-short": {"size": 5},
        "old-default": {},
        "jotun": {"size": 4},
        "other-side": {"size": 5},
    }
    # the migrated row replays: its rules are the short game's (e7 exists on side 5, not on 3)
    rules = games.get("valaturna", **after["old-short"])
    assert rules.options == {"size": 5} and len(rules.board) == 61
    final = replay_moves(rules, ["e3/e7", "black", "pass", "pass"])
    assert rules.outcome(final) is not None

    alembic(database_url, "downgrade", BEFORE_SIZE)
    assert (await stored_options(database_url))["old-short"] == {"side": 5}
    # the rules read the former name too, so an un-migrated row still replays
    assert games.get("valaturna", side=5).options == {"size": 5}

    alembic(database_url, "upgrade", "head")
    assert (await stored_options(database_url))["old-short"] == {"size": 5}


BEFORE_RATED_PUBLIC = "7c1d2e3f4a5b"  # the revision before a rated game was always public


async def test_rated_games_become_public(database_url: str) -> None:
    """Rated games stored private (every accepted rated challenge, before issue 25) become public;
    casual private games stay private; the declined column comes and goes."""
    alembic(database_url, "downgrade", BEFORE_RATED_PUBLIC)
    table = sa.table(
        "games",
        *(sa.column(c.name, c.type) for c in GAMES.columns),
        sa.column("rated", sa.Boolean()),
    )
    engine = make_engine(database_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(sa.delete(GAMES))
            await conn.execute(
                sa.insert(table),
                [
                    {**row("rated-private", "exxit", {}), "public": False, "rated": True},
                    {**row("casual-private", "exxit", {}), "public": False, "rated": False},
                    {**row("rated-public", "exxit", {}), "public": True, "rated": True},
                ],
            )
    finally:
        await engine.dispose()
    alembic(database_url, "upgrade", "head")
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            result = await conn.execute(sa.select(GAMES.c.id, GAMES.c.public))
            public = {str(game_id): bool(flag) for game_id, flag in result.all()}
            declined = await conn.execute(sa.text("SELECT declined FROM games"))
            assert [value for (value,) in declined.all()] == [None, None, None]
    finally:
        await engine.dispose()
    assert public == {"rated-private": True, "casual-private": False, "rated-public": True}
    alembic(database_url, "downgrade", BEFORE_RATED_PUBLIC)
    alembic(database_url, "upgrade", "head")


BEFORE_VERIFICATION = "3e5f7a9b1c2d"  # the revision before addresses were verified (issue 26)


async def test_addresses_stored_before_verification_count_as_unverified(database_url: str) -> None:
    """The migration's decision: an address typed in before issue 26 proves nothing (any address
    was accepted and mailed), so it is unverified until its owner opens a new link."""
    alembic(database_url, "downgrade", BEFORE_VERIFICATION)
    players = sa.table(
        "players",
        sa.column("id", sa.String(32)),
        sa.column("name", sa.String(32)),
        sa.column("account_id", sa.Integer()),
        sa.column("created_at", sa.BigInteger()),
        sa.column("last_seen_at", sa.BigInteger()),
    )
    accounts = sa.table(
        "accounts",
        *(
            sa.column(name, sa.String(254))
            for name in ("username", "username_key", "display_name", "player_id", "password_hash")
        ),
        sa.column("email", sa.String(254)),
        sa.column("email_key", sa.String(254)),
        sa.column("settings", sa.JSON()),
        *(sa.column(name, sa.BigInteger()) for name in ("created_at", "last_seen_at")),
        sa.column("password_changed_at", sa.BigInteger()),
    )
    engine = make_engine(database_url)
    try:
        async with engine.begin() as conn:
            for username, email in (("old_mail", "Old@Example.org"), ("old_none", None)):
                await conn.execute(
                    sa.insert(players).values(
                        id=f"p-{username}", name=username, created_at=0, last_seen_at=0
                    )
                )
                await conn.execute(
                    sa.insert(accounts).values(
                        username=username,
                        username_key=username,
                        display_name=username,
                        player_id=f"p-{username}",
                        password_hash="x",
                        email=email,
                        email_key=email.casefold() if email else None,
                        settings={"digest": True},
                        created_at=0,
                        last_seen_at=0,
                        password_changed_at=0,
                    )
                )
    finally:
        await engine.dispose()
    alembic(database_url, "upgrade", "head")
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            result = await conn.execute(
                sa.text(
                    "SELECT username, email, email_verified_at FROM accounts"
                    " WHERE username LIKE 'old_%' ORDER BY username"
                )
            )
            rows = [tuple(row) for row in result.all()]
            tokens = await conn.execute(sa.text("SELECT count(*) FROM verification_tokens"))
            assert tokens.scalar_one() == 0  # and no link was made (nor mailed)
    finally:
        await engine.dispose()
    assert rows == [("old_mail", "Old@Example.org", None), ("old_none", None, None)]
    alembic(database_url, "downgrade", BEFORE_VERIFICATION)
    alembic(database_url, "upgrade", "head")
