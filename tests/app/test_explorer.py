"""The opening explorer (issue 28) through a real server, on SQLite and PostgreSQL: games played
and imported are counted when they finish, mirrored openings merge and are shown in the
orientation asked, the archive finds the games that reached a position, a rebuild from the archive
gives exactly the counts kept incrementally, and bad input is one precise error, never a 500."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

import games
from app.db import make_engine
from app.explorer import rebuild
from app.models import ExplorerGame, ExplorerMove, ExplorerPosition
from app.repository import explorer as explorer_reads
from app.repository.archive import ArchiveFilter, archive_query
from games.record import make_record
from tests.support.server import LiveServer

VALATURNA = {"size": 5}
OPTIONS = "size=5"


@pytest.fixture
async def visitors(server: LiveServer) -> AsyncIterator[Callable[..., Any]]:
    """``await visitors("Ann")``: a client of the live server with its own cookies, named."""
    made: list[httpx.AsyncClient] = []

    async def make(name: str | None = None) -> httpx.AsyncClient:
        client = httpx.AsyncClient(base_url=server.url, timeout=60)
        made.append(client)
        if name is not None:
            assert (await client.put("/api/me", json={"name": name})).status_code == 200
        return client

    yield make
    for client in made:
        await client.aclose()


async def play_line(
    a: httpx.AsyncClient,
    b: httpx.AsyncClient,
    moves: Sequence[str],
    loser: int,
    public: bool = True,
    before_resigning: asyncio.Barrier | None = None,
    slug: str = "valaturna",
    options: dict[str, Any] = VALATURNA,
) -> str:
    """A game (Valaturna, side 5, unless told) of ``a`` (seat 1) against ``b``: ``moves``, then
    seat ``loser`` resigns (once all are at ``before_resigning``, if given). Its id."""
    body = {"game": slug, "options": options, "seat": 1, "public": public}
    created = (await a.post("/api/games", json=body)).json()
    game_id = created["id"]
    joined = await b.post(f"/api/games/{game_id}/join", json={"token": created["join_token"]})
    assert joined.status_code == 200, joined.text
    rules = games.get(slug, options)
    state = rules.initial_state()
    seats = {1: a, 2: b}
    version = 2
    for ply, text in enumerate(moves):
        mover = seats[rules.to_move(state) or 1]
        answer = await mover.post(
            f"/api/games/{game_id}/moves",
            json={"move": text, "version": version, "msg_id": f"m{ply}"},
        )
        assert answer.status_code == 200, answer.text
        state = rules.play(state, text)
        version += 1
    if before_resigning is not None:
        await before_resigning.wait()
    answer = await seats[loser].post(
        f"/api/games/{game_id}/resign", json={"version": version, "msg_id": "r"}
    )
    assert answer.status_code == 200, answer.text
    return game_id


async def node(client: httpx.AsyncClient, moves: str = "", **params: str) -> dict[str, Any]:
    answer = await client.get(
        "/api/explorer/valaturna", params={"options": OPTIONS, "moves": moves, **params}
    )
    assert answer.status_code == 200, answer.text
    assert answer.headers["cache-control"].startswith("private, max-age=")
    body: dict[str, Any] = answer.json()
    return body


async def tables(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the explorer's three tables, sorted."""
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            out = {}
            for table in (ExplorerPosition, ExplorerMove, ExplorerGame):
                rows = (await conn.execute(sa.select(table.__table__))).all()
                out[table.__tablename__] = sorted(tuple(r) for r in rows)
            return out
    finally:
        await engine.dispose()


async def test_counts_folding_search_and_rebuild(
    visitors: Callable[..., Any], database_url: str
) -> None:
    ann, bo = await visitors("Ann"), await visitors("Bo")
    # e3/e7 and e7/e3 are each other's half turn: one position, one continuation from the start.
    # Seat 1 makes the setup; "white" makes seat 1 Black, who moves first.
    first = await play_line(ann, bo, ["e3/e7", "white", "e5"], loser=2)  # Black (seat 1) wins
    second = await play_line(ann, bo, ["e7/e3", "white", "e5"], loser=1)  # White wins
    third = await play_line(ann, bo, ["e3/e6", "black"], loser=1)  # seat 2 (Black) wins
    await play_line(ann, bo, ["e3/e6", "black"], loser=2, public=False)  # private: not counted
    importer = await visitors("Importer")
    rules = games.get("valaturna", VALATURNA)
    players = [{"seat": 1, "name": "Imp"}, {"seat": 2, "name": "Ort"}]
    resigned = {"winner": 2, "reason": "resignation"}  # seat 2 took Black: Black wins
    record = make_record(rules, ["e7/e3", "black"], players, resigned)
    imported = await importer.post("/api/archive/import", json=record)
    assert imported.status_code == 201, imported.text
    fourth = imported.json()["id"]

    root = await node(ann)
    assert root["games"] == 4 and root["moves"] == [] and root["depth"] == 24
    assert root["colours"] == ["black", "white"]
    assert (root["first_wins"], root["second_wins"], root["draws"]) == (3, 1, 0)
    by_move = {c["move"]: c for c in root["continuations"]}
    # The mirrored setups merged under the text of the least-written one, e3/e7 ...
    assert set(by_move) == {"e3/e7", "e3/e6"}
    merged = by_move["e3/e7"]
    assert merged["games"] == 3 and merged["first_wins"] == 2 and merged["second_wins"] == 1
    assert merged["average_length"] == pytest.approx((3 + 3 + 2) / 3, abs=0.05)
    assert {g["id"] for g in merged["recent"]} == {first, second, fourth}
    assert by_move["e3/e6"]["games"] == 1 and by_move["e3/e6"]["first_wins"] == 1
    # ... and, asked from the mirrored setup, the continuations are written on it.
    mirrored = await node(ann, "e7/e3")
    same = await node(ann, "e3/e7")
    assert mirrored["position"] == same["position"] == merged["position"]
    assert mirrored["games"] == 3 and mirrored["moves"] == ["e7/e3"]
    assert {c["move"] for c in mirrored["continuations"]} == {"white", "black"}
    white = next(c for c in mirrored["continuations"] if c["move"] == "white")
    line = await node(ann, "e7/e3 white")
    assert white["games"] == 2 and line["games"] == 2
    assert [c["move"] for c in line["continuations"]] == ["e5"]  # the half turn of e5 is e5
    assert {g["id"] for g in line["recent"]} == {first, second}

    # The archive lists the games that reached a position (position search).
    found = await ann.get(
        "/api/archive",
        params={"game": "valaturna", "options": OPTIONS, "position": white["position"]},
    )
    assert found.status_code == 200, found.text
    assert [g["id"] for g in found.json()["games"]] == [second, first]  # newest first
    # paged one by one, and oldest first: the cursor follows the explorer rows' date order
    paged, cursor = [], None
    for _ in range(3):
        params = {"game": "valaturna", "options": OPTIONS, "position": white["position"]}
        params |= {"limit": "1", "sort": "oldest", **({"cursor": cursor} if cursor else {})}
        page = (await ann.get("/api/archive", params=params)).json()
        paged += [g["id"] for g in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert paged == [first, second]
    bare = await ann.get("/api/archive", params={"position": white["position"]})
    assert bare.status_code == 422 and bare.json()["error"]["field"] == "position"
    junk = await ann.get(
        "/api/archive", params={"game": "valaturna", "options": OPTIONS, "position": "x;"}
    )
    assert junk.status_code == 422 and junk.json()["error"]["code"] == "bad_filter"
    assert third  # counted at the root and under e3/e6 above

    # A rebuild from the archive gives exactly the rows kept as the games finished.
    kept = await tables(database_url)
    assert len(kept["explorer_games"]) == 4 + 4 + 3 + 3  # plies 0..n of each counted game
    assert await rebuild(database_url) == 4
    assert await tables(database_url) == kept


async def test_games_finishing_together_all_count(
    visitors: Callable[..., Any], database_url: str
) -> None:
    """Eight games of one opening (no other test plays it) resign at once: each adds its own
    counts to the same rows, none is lost (the upsert reads nothing), and the rebuild agrees."""
    together = asyncio.Barrier(8)
    pairs = [(await visitors(f"A{i}"), await visitors(f"B{i}")) for i in range(8)]
    await asyncio.gather(
        *(
            play_line(a, b, ["e2/e8", "white", "e5"], 1 + i % 2, before_resigning=together)
            for i, (a, b) in enumerate(pairs)
        )
    )
    after = await node(pairs[0][0], "e2/e8 white e5")
    assert (after["games"], after["first_wins"], after["second_wins"]) == (8, 4, 4)
    kept = await tables(database_url)
    await rebuild(database_url)
    assert await tables(database_url) == kept


async def test_a_game_whose_rules_run_in_a_worker_is_counted(
    visitors: Callable[..., Any],
) -> None:
    """Jotun's keys are computed by the rules runner's worker when the game ends (and its nodes
    replayed there): the game is counted like any other."""
    ann, bo = await visitors("Jo"), await visitors("Tun")
    opts = {"size": 4}
    await play_line(ann, bo, ["g4", "white", "a1"], 2, slug="jotun", options=opts)
    answer = await ann.get("/api/explorer/jotun", params={"options": "size=4", "moves": "g4"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["games"] == 1 and body["first_wins"] == 1
    assert [(c["move"], c["games"]) for c in body["continuations"]] == [("white", 1)]


@pytest.mark.parametrize(
    ("path", "params", "code", "field"),
    [
        ("/api/explorer/nope", {}, "unknown_game", "game"),
        ("/api/explorer/valaturna", {"options": "size=6"}, "bad_option", "options"),
        ("/api/explorer/valaturna", {"options": "colour=red"}, "bad_option", "options"),
        ("/api/explorer/valaturna", {"moves": "e5"}, "illegal_move", "moves"),
        ("/api/explorer/valaturna", {"moves": "e3/e7 zz"}, "illegal_move", "moves"),
        ("/api/explorer/valaturna", {"moves": " ".join(["pass"] * 25)}, "invalid_move", "moves"),
        ("/api/explorer/valaturna", {"moves": "e" * 201}, "invalid_move", "moves"),
        ("/api/explorer/valaturna", {"sort": "x"}, "bad_option", "sort"),
    ],
)
async def test_bad_input_is_one_precise_error(
    visitors: Callable[..., Any], path: str, params: dict[str, str], code: str, field: str
) -> None:
    client = await visitors()
    answer = await client.get(path, params=params)
    assert answer.status_code == 422, answer.text
    body = answer.json()["error"]
    assert body["code"] == code and body["field"] == field, body
    assert "message" in body


async def test_the_defaults_and_an_empty_node(visitors: Callable[..., Any]) -> None:
    """No options: the game's defaults; a position no game reached has no counts."""
    client = await visitors()
    answer = await client.get("/api/explorer/jotun", params={"moves": "a1 black"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["options"] == {"size": 5} and body["options_key"] == "size=5"
    assert body["games"] == 0 and body["continuations"] == [] and body["recent"] == []
    assert body["average_length"] is None and body["view"]["cells"]


async def test_every_explorer_read_uses_an_index(backend: str, database_url: str) -> None:
    """EXPLAIN of a node's reads and of the archive's position filter: each reads its rows from a
    primary key's range (on PostgreSQL with sequential scans discouraged, as its planner prefers
    them on tables this small)."""
    key = "j8qf-OFk3WLQQO-b"
    reads = {
        "position": explorer_reads.position_query("valaturna", OPTIONS, key),
        "children": explorer_reads.children_query("valaturna", OPTIONS, key, 100),
        "recent": explorer_reads.recent_query("valaturna", OPTIONS, {key: 5, "x" * 16: 3}),
        "archive": archive_query(
            ArchiveFilter(game="valaturna", options=OPTIONS, position=key), None, 21, backend
        ),
    }
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            if backend == "postgres":
                await conn.execute(sa.text("SET enable_seqscan = off"))
            for name, query in reads.items():
                dialect = postgresql.dialect() if backend == "postgres" else engine.dialect
                sql = str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
                explain = "EXPLAIN " if backend == "postgres" else "EXPLAIN QUERY PLAN "
                rows = (await conn.execute(sa.text(explain + sql))).all()
                plan = "\n".join(str(r[-1]) for r in rows)
                print(f"--- {backend} {name}\n{plan}")
                if backend == "postgres":
                    assert "Seq Scan" not in plan, (name, plan)
                else:
                    scans = [line for line in plan.splitlines() if "explorer_" in line]
                    assert scans and all("INDEX" in line for line in scans), (name, plan)
    finally:
        await engine.dispose()
