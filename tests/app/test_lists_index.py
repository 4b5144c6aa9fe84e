"""The archive's player filter on a few thousand games (issue 15, package "lists"): on PostgreSQL the
prefix ``LIKE`` is answered by the pattern indexes of migration 5b8f0c3d1e72, not a sequential scan;
on SQLite the migration adds nothing, and the filter finds the same games either way."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from app.db import make_engine
from app.repository.archive import ArchiveFilter, archive_query

COLUMNS = (
    "id, slug, options, public, status, version, ply_count, imported, created_at,"
    " last_activity_at, finished_at, player1_key, player2_key, player1_name, player2_name,"
    " result, result_json"
)
INSERT = sa.text(
    f"INSERT INTO games ({COLUMNS}) VALUES (:id, 'exxit', '{{}}', true, 'finished', 3, 1,"
    " false, :i, :i, :done, :p1, :p2, 'P', 'Q', '1', '{}')"
)


async def test_the_player_prefix_uses_an_index_on_postgresql(
    backend: str, database_url: str
) -> None:
    engine = make_engine(database_url)
    try:
        async with engine.begin() as conn:
            rows = [
                {"id": f"idx{i}", "i": i, "done": 10**6 + i, "p1": f"p{i}x", "p2": f"q{i}y"}
                for i in range(1, 4001)
            ]
            await conn.execute(INSERT, rows)
            if backend == "postgres":
                await conn.execute(sa.text("ANALYZE games"))
            query = archive_query(ArchiveFilter(player="q3999"), None, 21)
            found = (await conn.execute(query)).scalars().all()
            assert list(found) == ["idx3999"]
            indexes = await conn.run_sync(lambda c: sa.inspect(c).get_indexes("games"))
            names = {index["name"] for index in indexes}
            if backend == "postgres":
                assert {"ix_games_player1_prefix", "ix_games_player2_prefix"} <= names
                sql = str(
                    query.compile(
                        dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}
                    )
                ).replace("%%", "%")
                plan = "\n".join(r[0] for r in await conn.execute(sa.text("EXPLAIN " + sql)))
                assert "Seq Scan" not in plan, plan
                assert "ix_games_player2_prefix" in plan, plan
            else:
                assert "ix_games_player1_prefix" not in names
            await conn.rollback()
    finally:
        await engine.dispose()
