"""The archive's filters, sorts, mini boards and player search (issue 28), through a real server on
SQLite and PostgreSQL: every filter finds exactly the games a plain reading of the list says it
should, every sort pages in its order with cursors, and every malformed filter is one precise
``bad_filter``. The last test prints each filter's and each sort's query plan and checks that an
index answers it."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

import games
from app.db import make_engine
from app.repository.archive import SORT_KEYS, ArchiveFilter, archive_query
from games.bench import random_game
from games.record import make_record
from tests.support.accounts import signup
from tests.support.gameplay import MovePicker, smallest_options
from tests.support.server import LiveServer

Entry = dict[str, Any]


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


async def play(
    a: httpx.AsyncClient, b: httpx.AsyncClient, slug: str, plies: int, **extra: Any
) -> str:
    """A game of ``slug`` (smallest board) started by ``a`` against ``b``, ``plies`` seeded legal
    moves, then resigned by the seat to move: its id."""
    options = smallest_options(slug)
    body = {"game": slug, "options": options, "seat": 1, **extra}
    created = (await a.post("/api/games", json=body)).json()
    game_id = created["id"]
    joined = await b.post(f"/api/games/{game_id}/join", json={"token": created["join_token"]})
    assert joined.status_code == 200, joined.text
    picker = MovePicker(slug, options, seed=plies)
    seats = {1: a, 2: b}
    version = 2
    for ply in range(plies):
        text = picker.pick()
        if ply == 1 and text in ("black", "white"):
            text = "black"  # the pie taken, in the games that have one
        mover = seats[picker.to_move() or 1]
        answer = await mover.post(
            f"/api/games/{game_id}/moves",
            json={"move": text, "version": version, "msg_id": f"m{ply}"},
        )
        assert answer.status_code == 200, answer.text
        picker.play(text)
        version += 1
    resigner = seats[picker.to_move() or 1]
    answer = await resigner.post(
        f"/api/games/{game_id}/resign", json={"version": version, "msg_id": "r"}
    )
    assert answer.status_code == 200, answer.text
    return game_id


async def everything(client: httpx.AsyncClient, **params: Any) -> list[Entry]:
    """Every game of the archive under ``params``, page by page (two a page)."""
    seen: list[Entry] = []
    cursor = None
    while True:
        query = {**params, "limit": 2, **({"cursor": cursor} if cursor else {})}
        response = await client.get("/api/archive", params=query)
        assert response.status_code == 200, response.text
        seen += response.json()["games"]
        cursor = response.json()["next_cursor"]
        if cursor is None:
            return seen


async def test_filters_sorts_boards_and_players(visitors: Callable[..., Any]) -> None:
    archivist = await visitors("Archivist")
    rng = random.Random(28)
    imported: list[str] = []
    for i, slug in enumerate(sorted(games.names()) * 2):
        # short games (up to 30 plies, resigned when the rules leave them open): lengths vary
        rules = games.get(slug, **smallest_options(slug))
        _states, moves = random_game(rules, rng, max_plies=rng.randrange(2, 31))
        resigned = {"winner": 1 + i % 2, "reason": "resignation"}
        players = [{"seat": 1, "name": f"Imp{i}"}, {"seat": 2, "name": "Ort"}]
        record = make_record(rules, moves, players)
        if record["result"] is None:
            record = make_record(rules, moves, players, resigned)
        answer = await archivist.post("/api/archive/import", json=record)
        assert answer.status_code == 201, answer.text
        imported.append(answer.json()["id"])
    ann, bo, cy = await visitors(), await visitors(), await visitors()
    await signup(ann, "annbrowse")
    await signup(bo, "bobrowse")
    await signup(cy, "cybrowse")
    here = [
        await play(ann, bo, "jotun", 3),
        await play(bo, ann, "exxit", 2),
        await play(
            ann,
            cy,
            "sgolte",
            4,
            rated=True,
            time_control={"kind": "realtime", "base": 180, "increment": 2},
        ),
    ]

    newest = await everything(archivist)
    by_id = {e["id"]: e for e in newest}
    assert set(imported + here) <= set(by_id)
    # The columns written when a game finishes here, and at an import.
    jotun = by_id[here[0]]
    assert (jotun["moves"], jotun["pie_taken"], jotun["imported"]) == (3, True, False)
    assert jotun["first_move"] is not None and jotun["time_key"] == "unlimited"
    assert by_id[here[1]]["pie_taken"] is None  # Exxit has no pie
    rated = by_id[here[2]]
    assert (rated["rated"], rated["time"], rated["time_key"]) == (True, "3+2", "realtime:180:2")
    assert all(by_id[i]["imported"] and by_id[i]["first_move"] for i in imported)

    # Every sort pages in its order, and has every game once.
    def key(sort: str) -> Callable[[Entry], tuple[Any, ...]]:
        names, _ = SORT_KEYS[sort]  # type: ignore[index]
        return lambda e: tuple(e["moves"] if n == "length" else e[n] for n in names)

    for sort, (_names, descending) in SORT_KEYS.items():
        listed = await everything(archivist, sort=sort)
        assert [e["id"] for e in listed] == [
            e["id"] for e in sorted(newest, key=key(sort), reverse=descending)
        ], sort

    # Each filter finds exactly what reading the whole list says it should.
    first = by_id[imported[0]]
    cases: list[tuple[dict[str, Any], Callable[[Entry], bool]]] = [
        ({"game": "jotun"}, lambda e: e["game"] == "jotun"),
        (
            {
                "game": first["game"],
                "options": ",".join(f"{k}={v}" for k, v in first["options"].items()),
            },
            lambda e: e["game"] == first["game"] and e["options"] == first["options"],
        ),
        (
            {"game": first["game"], "first_move": first["first_move"]},
            lambda e: e["game"] == first["game"] and e["first_move"] == first["first_move"],
        ),
        ({"result": "1"}, lambda e: e["result"]["winner"] == 1),
        ({"result": "draw"}, lambda e: e["result"]["winner"] is None),
        ({"colour": "black"}, lambda e: e["result"]["colour"] == "black" and e["result"]["winner"]),
        ({"pie": "taken"}, lambda e: e["pie_taken"] is True),
        ({"pie": "declined"}, lambda e: e["pie_taken"] is False),
        ({"min_moves": 3, "max_moves": 40}, lambda e: 3 <= e["moves"] <= 40),
        ({"rated": "true"}, lambda e: e["rated"]),
        ({"rated": "false"}, lambda e: not e["rated"]),
        ({"time": "realtime"}, lambda e: e["time_key"].startswith("realtime:")),
        ({"time": "realtime:180:2"}, lambda e: e["time_key"] == "realtime:180:2"),
        ({"time": "unlimited"}, lambda e: e["time_key"] == "unlimited"),
        ({"imported": "true"}, lambda e: e["imported"]),
        ({"imported": "false"}, lambda e: not e["imported"]),
        (
            {"player": "imp"},
            lambda e: any((p["name"] or "").lower().startswith("imp") for p in e["players"]),
        ),
        ({"account": "annbrowse"}, lambda e: e["id"] in (here[0], here[1], here[2])),
        ({"account": "annbrowse", "opponent": "bobrowse"}, lambda e: e["id"] in (here[0], here[1])),
        (
            {"account": "AnnBrowse", "opponent": "cybrowse", "rated": "true"},
            lambda e: e["id"] == here[2],
        ),
        ({"account": "bobrowse", "opponent": "cybrowse"}, lambda e: False),
    ]
    for params, wanted in cases:
        for sort in ("newest", "shortest"):
            found = [e["id"] for e in await everything(archivist, sort=sort, **params)]
            expected = [e["id"] for e in await everything(archivist, sort=sort) if wanted(e)]
            assert found == expected, (params, sort)
    assert [e["id"] for e in await everything(archivist, pie="taken")] != []

    # Mini boards: the final position of each game asked, null for any other id.
    ids = [e["id"] for e in newest[:5]]
    boards = (
        await archivist.get("/api/archive/boards", params={"id": [*ids, "nosuchgame"]})
    ).json()
    assert set(boards["boards"]) == {*ids, "nosuchgame"} and boards["boards"]["nosuchgame"] is None
    assert all(boards["boards"][i]["cells"] for i in ids)

    # Accounts by the start of their username, in any case.
    found = (await archivist.get("/api/archive/players", params={"prefix": "ANNb"})).json()
    assert found == {"players": [{"username": "annbrowse", "name": "annbrowse"}]}
    none = (await archivist.get("/api/archive/players", params={"prefix": "%"})).json()
    assert none == {"players": []}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"game": "chess"}, "game"),
        ({"options": "size=5"}, "options"),
        ({"game": "jotun", "options": "size=7"}, "options"),
        ({"game": "jotun", "options": "size=5,variant=x"}, "options"),
        ({"game": "sgolte", "options": "size=5"}, "options"),
        ({"first_move": "e5"}, "first_move"),
        ({"game": "jotun", "first_move": "e\x015"}, "first_move"),
        ({"result": "win"}, "result"),
        ({"colour": "green"}, "colour"),
        ({"pie": "yes"}, "pie"),
        ({"min_moves": "-1"}, "min_moves"),
        ({"max_moves": "1e3"}, "max_moves"),
        ({"min_moves": "9", "max_moves": "3"}, "min_moves"),
        ({"rated": "1"}, "rated"),
        ({"imported": "yes"}, "imported"),
        ({"time": "blitz"}, "time"),
        ({"time": "realtime:3"}, "time"),
        ({"sort": "best"}, "sort"),
        ({"opponent": "bob"}, "opponent"),
        ({"guest": "0" * 32, "opponent_guest": "xyz"}, "opponent_guest"),
        ({"account": "ann", "opponent": "bob", "opponent_guest": "0" * 32}, "opponent_guest"),
        ({"from": "yesterday"}, "from"),
        ({"limit": "101"}, "limit"),
        ({"colur": "black"}, "colur"),
    ],
)
async def test_a_malformed_filter_is_refused_naming_it(
    visitors: Callable[..., Any], params: dict[str, str], field: str
) -> None:
    client = await visitors()
    response = await client.get("/api/archive", params=params)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("bad_filter", field), error


async def test_a_cursor_serves_only_its_own_sort(visitors: Callable[..., Any]) -> None:
    client = await visitors("Pager")
    for seed in range(3):
        rules = games.get("exxit", variant="beginner")
        _states, moves = random_game(rules, random.Random(seed))
        record = make_record(rules, moves, [{"seat": 1, "name": "Pg"}, {"seat": 2, "name": "Qh"}])
        assert (await client.post("/api/archive/import", json=record)).status_code == 201
    page = (await client.get("/api/archive", params={"sort": "longest", "limit": 1})).json()
    cursor = page["next_cursor"]
    assert cursor is not None
    for sort in ("newest", "oldest", "shortest"):
        refused = await client.get("/api/archive", params={"sort": sort, "cursor": cursor})
        assert refused.json()["error"]["code"] == "bad_cursor", sort
    ok = await client.get("/api/archive", params={"sort": "longest", "cursor": cursor})
    assert ok.status_code == 200


@pytest.mark.parametrize(
    "params",
    [{"id": []}, {"id": ["x" * 17]}, {"id": ["a\x00b"]}, {"id": [f"g{i}" for i in range(101)]}],
)
async def test_boards_refuse_what_is_no_list_of_ids(
    visitors: Callable[..., Any], params: dict[str, Any]
) -> None:
    client = await visitors()
    response = await client.get("/api/archive/boards", params=params)
    assert response.status_code == 422
    assert (response.json()["error"]["code"], response.json()["error"]["field"]) == (
        "bad_filter",
        "id",
    )


#: One filter (or sort) at a time, as the plan test asks the database about each.
PLANS: dict[str, ArchiveFilter] = {
    "newest": ArchiveFilter(),
    "oldest": ArchiveFilter(sort="oldest"),
    "longest": ArchiveFilter(sort="longest"),
    "shortest": ArchiveFilter(sort="shortest"),
    "game": ArchiveFilter(game="jotun"),
    "options": ArchiveFilter(game="jotun", options="size=4"),
    "first_move": ArchiveFilter(game="jotun", first_move="e5"),
    "player": ArchiveFilter(player="ann"),
    "account": ArchiveFilter(player_ids=("a" * 32, "b" * 32)),
    "head_to_head": ArchiveFilter(player_ids=("a" * 32,), opponent_ids=("b" * 32,)),
    "result": ArchiveFilter(result="1"),
    "colour": ArchiveFilter(colour="black"),
    "pie": ArchiveFilter(pie_taken=True),
    "length": ArchiveFilter(min_length=10, max_length=40),
    "dates": ArchiveFilter(start=10**12, end=2 * 10**12),
    "rated": ArchiveFilter(rated=True),
    "time": ArchiveFilter(time="realtime:180:2"),
    "time_kind": ArchiveFilter(time="realtime"),
    "imported": ArchiveFilter(imported=False),
}


async def test_every_filter_and_sort_uses_an_index(backend: str, database_url: str) -> None:
    """EXPLAIN of each filter alone and each sort: an index reads the rows (on PostgreSQL with
    sequential scans discouraged, as its planner prefers them on a table this small)."""
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            if backend == "postgres":
                await conn.execute(sa.text("SET enable_seqscan = off"))
            for name, filters in PLANS.items():
                query = archive_query(filters, None, 21, engine.dialect.name)
                dialect = (
                    postgresql.dialect() if backend == "postgres" else engine.sync_engine.dialect
                )
                sql = str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
                explain = "EXPLAIN " if backend == "postgres" else "EXPLAIN QUERY PLAN "
                rows = (await conn.execute(sa.text(explain + sql.replace("%%", "%")))).all()
                plan = "\n".join(str(r[-1]) for r in rows)
                print(f"--- {backend} {name}\n{plan}")
                if backend == "postgres":
                    assert "Seq Scan" not in plan, (name, plan)
                else:
                    scans = [line for line in plan.splitlines() if "games" in line]
                    assert scans and all("INDEX" in line for line in scans), (name, plan)
    finally:
        await engine.dispose()
