"""The statistics page's counters and answer (issue 28), through a real server on SQLite and
PostgreSQL: games played here and imported count once each, in the transaction of their result;
the figures agree with the archive's own list and with Wilson's formula worked by hand; a rebuild
from the archive gives exactly the counters kept incrementally; bad input is one precise 422."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from app.db import make_engine
from app.domain import stats as domain
from app.repository.stats import all_counters
from app.services.stats import rebuild
from tests.support.gameplay import MovePicker, resigned_record
from tests.support.server import LiveServer, alembic, live_server

SLUG, OPTIONS, KEY = "jotun", {"size": 4}, "size=4"


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[LiveServer]:
    """A live server that reads the counters at every request (no answer cached)."""
    with live_server(database_url, {"STATS_CACHE_SECONDS": "0"}) as running:
        yield running


@pytest.fixture
async def visitors(server: LiveServer) -> AsyncIterator[Callable[..., Any]]:
    made: list[httpx.AsyncClient] = []

    async def make(name: str) -> httpx.AsyncClient:
        client = httpx.AsyncClient(base_url=server.url, timeout=60)
        made.append(client)
        assert (await client.put("/api/me", json={"name": name})).status_code == 200
        return client

    yield make
    for client in made:
        await client.aclose()


async def play(
    a: httpx.AsyncClient, b: httpx.AsyncClient, plies: int, pie: str, public: bool = True
) -> str:
    """A Jotun size-4 game: ``plies`` seeded legal moves (the pie's choice ``pie``), then the seat
    to move resigns. Its id."""
    body = {"game": SLUG, "options": OPTIONS, "seat": 1, "public": public}
    created = (await a.post("/api/games", json=body)).json()
    game_id = created["id"]
    joined = await b.post(f"/api/games/{game_id}/join", json={"token": created["join_token"]})
    assert joined.status_code == 200, joined.text
    picker = MovePicker(SLUG, OPTIONS, seed=plies)
    seats, version = {1: a, 2: b}, 2
    for ply in range(plies):
        text = pie if ply == 1 else picker.pick()
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


def by_hand(wins: int, games: int) -> tuple[float, float]:
    """Wilson's 95 % interval, worked from its textbook formula."""
    z, p = 1.959963984540054, wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    return (centre - spread) / (1 + z * z / games), (centre + spread) / (1 + z * z / games)


async def test_played_and_imported_games_count_once_each(
    server: LiveServer, visitors: Callable[..., Any], database_url: str
) -> None:
    ann, bob = await visitors("Ann"), await visitors("Bob")
    before = (await ann.get(f"/api/stats/{SLUG}?options={KEY}")).json()
    assert before["games"] == 0 and before["first_player"]["rate"] is None
    await play(ann, bob, 4, "black")
    await play(ann, bob, 5, "white")
    await play(ann, bob, 6, "black")
    await play(ann, bob, 3, "black", public=False)  # not in the archive: not counted
    for seed in (1, 2):
        record = resigned_record(SLUG, OPTIONS, 7, seed)
        answer = await ann.post("/api/archive/import", json=record)
        assert answer.status_code == 201, answer.text

    listed = (await ann.get(f"/api/archive?game={SLUG}&options={KEY}&limit=100")).json()["games"]
    assert len(listed) == 5
    stats = (await ann.get(f"/api/stats/{SLUG}?options={KEY}")).json()
    assert stats["games"] == 5 and stats["options"] == OPTIONS and stats["has_pie"] is True
    wins = sum(1 for g in listed if g["result"]["winner"] == 1)
    first = stats["first_player"]
    assert (first["games"], first["wins"], first["draws"]) == (5, wins, 0)
    assert (first["low"], first["high"]) == pytest.approx(by_hand(wins, 5))
    assert [m["month"] for m in stats["months"]] == [domain.month_of(listed[0]["finished_at"])]
    assert stats["months"][0]["first_player"]["wins"] == wins

    taken = sum(1 for g in listed if g["pie_taken"])
    assert stats["pie"]["swapped"]["games"] == 5 and stats["pie"]["swapped"]["swaps"] == taken
    black = sum(1 for g in listed if g["result"]["colour"] == "black")
    colours = {c["colour"]: c for c in stats["colours"]}
    assert colours["black"]["wins"] == black and colours["white"]["wins"] == 5 - black

    lengths = sorted(g["moves"] for g in listed)
    assert stats["lengths"]["games"] == 5 and stats["lengths"]["median"] == lengths[2]
    assert sum(b["games"] for b in stats["lengths"]["bins"]) == 5
    assert stats["reasons"] == {"games": 5, "reasons": [{"reason": "resignation", "games": 5}]}

    firsts: dict[str, int] = {}
    for g in listed:
        firsts[g["first_move"]] = firsts.get(g["first_move"], 0) + 1
    shown = {m["move"]: m for m in stats["first_moves"]["moves"]}
    assert {m: e["games"] for m, e in shown.items()} == firsts
    assert all(e["cells"] == [e["move"]] for e in shown.values())  # a Jotun setup: one cell
    assert sum(c["games"] for c in stats["cells"]) == 5
    assert stats["board"]["game"] == SLUG and stats["board"]["phase"] == "setup"

    here = (await ann.get(f"/api/stats/{SLUG}?options={KEY}&source=here")).json()
    imported = (await ann.get(f"/api/stats/{SLUG}?options={KEY}&source=imported")).json()
    assert (here["games"], imported["games"]) == (3, 2)
    assert imported["first_player"]["wins"] == 2  # both records: seat 2 resigned

    # The counters kept as games finished are exactly the ones a rebuild computes.
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            kept = await conn.run_sync(all_counters)
        async with engine.begin() as conn:
            assert await conn.run_sync(rebuild) == 5
        async with engine.connect() as conn:
            rebuilt = await conn.run_sync(all_counters)
            finished = await conn.scalar(sa.text("SELECT count(*) FROM games"))
    finally:
        await engine.dispose()
    assert finished == 6
    assert kept == rebuilt
    assert sum(n for k, n in kept.items() if k[3] == "reason") == 5

    # The migration that made the table counts the games finished before it.
    alembic(database_url, "downgrade", "0adc8ecc52b4")
    alembic(database_url, "upgrade", "head")
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            assert await conn.run_sync(all_counters) == kept
    finally:
        await engine.dispose()


async def test_games_ending_together_all_count(
    server: LiveServer, visitors: Callable[..., Any]
) -> None:
    """Six Sgolte games resigned at once: each adds its own 1 (the database adds; nobody reads a
    count to write it back), so none is lost to another's write."""
    ann, bob = await visitors("Cy"), await visitors("Di")
    options = {"size": 5, "variant": "standard"}
    ids = []
    for _ in range(6):
        body = {"game": "sgolte", "options": options, "seat": 1}
        created = (await ann.post("/api/games", json=body)).json()
        joined = await bob.post(
            f"/api/games/{created['id']}/join", json={"token": created["join_token"]}
        )
        assert joined.status_code == 200, joined.text
        ids.append(created["id"])
    answers = await asyncio.gather(
        *(ann.post(f"/api/games/{i}/resign", json={"version": 2, "msg_id": "r"}) for i in ids)
    )
    assert [a.status_code for a in answers] == [200] * 6
    stats = (await ann.get("/api/stats/sgolte?options=size=5,variant=standard")).json()
    assert stats["games"] == 6 and stats["first_player"]["wins"] == 0
    assert stats["reasons"]["reasons"] == [{"reason": "resignation", "games": 6}]
    assert stats["lengths"]["bins"] == [{"start": 0, "end": 0, "games": 6}]
    assert stats["pie"]["swapped"]["games"] == 0 and stats["first_moves"]["distinct"] == 0


@pytest.mark.parametrize(
    ("path", "code", "field"),
    [
        ("/api/stats/chess", "unknown_game", "game"),
        ("/api/stats/jotun?options=size=9", "bad_filter", "options"),
        ("/api/stats/jotun?options=depth=4", "bad_filter", "options"),
        ("/api/stats/jotun?source=elsewhere", "bad_filter", "source"),
        ("/api/stats/jotun?sort=newest", "bad_filter", "sort"),
        # the page's link with a bad option set or source: the same answer, not a page
        ("/stats/jotun?options=size=9", "bad_filter", "options"),
        ("/stats/jotun?source=elsewhere", "bad_filter", "source"),
    ],
)
async def test_bad_input_is_one_precise_422(
    server: LiveServer, path: str, code: str, field: str
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as client:
        answer = await client.get(path)
    assert answer.status_code == 422
    body = answer.json()
    assert (body["error"]["code"], body["error"]["field"]) == (code, field)


async def test_the_page_of_no_game_is_the_404_page(server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.url) as client:
        answer = await client.get("/stats/chess?options=size=9")
    assert answer.status_code == 404 and answer.headers["content-type"].startswith("text/html")


async def test_every_game_answers_with_its_defaults(server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.url) as client:
        for slug, colours in (("exxit", ["red", "black"]), ("sgolte", ["black", "white"])):
            answer = await client.get(f"/api/stats/{slug}")
            assert answer.status_code == 200, answer.text
            body = answer.json()
            assert [c["colour"] for c in body["colours"]] == colours
            assert (body["pie"] is None) == (slug == "exxit")
            assert "max-age=5" in answer.headers["cache-control"]


# --- the pure part ---------------------------------------------------------------------------


def test_wilson_matches_the_worked_formula() -> None:
    for wins, games in ((0, 1), (1, 1), (7, 10), (50, 100), (3, 1000)):
        assert domain.wilson(wins, games) == pytest.approx(by_hand(wins, games))
    assert domain.wilson(0, 0) is None


def test_a_game_adds_one_to_each_kind() -> None:
    game = domain.Finished(
        finished_at=1_795_000_999_000,
        length=12,
        first_move="a1",
        pie_taken=True,
        result="2",
        reason="timeout",
        first_colour="white",
    )
    assert domain.increments(game) == {
        ("month", "2026-11|white|2"): 1,
        ("length", "12"): 1,
        ("reason", "timeout"): 1,
        ("first", "2|taken|a1"): 1,
    }
    assert domain.first_colour(True, None, None) is None
    assert domain.first_colour(False, None, "red") == "red"


def test_the_length_histogram_has_round_bars() -> None:
    bins = domain.figures([("length", str(n), 1) for n in range(3, 95)], [], False)["lengths"]
    assert len(bins["bins"]) <= domain.MAX_BINS
    widths = {b["end"] - b["start"] + 1 for b in bins["bins"]}
    assert widths == {5}
    assert bins["bins"][0]["start"] == 0 and bins["bins"][-1]["end"] == 94
    assert sum(b["games"] for b in bins["bins"]) == 92
