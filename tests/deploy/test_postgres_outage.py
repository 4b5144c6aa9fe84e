"""PostgreSQL refusing connections for a few seconds costs nothing (issue 27).

Through the real cluster (nginx and two app processes), on a PostgreSQL server of the test's own
(:mod:`tests.support.postgresserver`, never the shared one): timed games (10+2) between visitors
whose sockets go through nginx, then the server is stopped for ``OUTAGE_S`` seconds. Meanwhile a
move sent on a socket is answered ``unavailable`` (and the socket stays open), creating a game is
answered 503 ``unavailable`` with ``Retry-After``, and ``/healthz`` through nginx says
``degraded`` with 503 (nginx passes it on, and does not set the processes aside). Nothing is
half-applied: the games' versions and moves are those from before. Once the server is back, the
same moves resent with the same ``msg_id`` are acknowledged, play goes on, and the clock of each
player to move did not run while the database was away (it lost at most the real time outside
the outage); no game is flagged.

The outage's length, the time from the server's return to the first acknowledged move, and the
clocks' losses are printed (``-s`` shows them), never asserted. The outage itself is held with a
sleep: it is the scenario (the database away for a few seconds), not a wait for a timer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from app.db import make_engine
from app.repository.outage import database_unavailable
from deploy.cluster import Cluster, ensure_database
from tests.deploy.conftest import ClusterFactory
from tests.deploy.test_failover import (
    BASE_S,
    CLOCK_SLACK_MS,
    INCREMENT_S,
    TIME_CONTROL,
    Table,
    check,
    close,
    play_round,
    seat_games,
)
from tests.support.gameplay import quick_game
from tests.support.patience import PATIENCE
from tests.support.postgresserver import PostgresServer, postgres_server

#: How long the database stays away: above OUTAGE_AFTER (3 s), the outage the clocks are credited.
OUTAGE_S = 5.0


@pytest.fixture
def postgres() -> Iterator[PostgresServer]:
    with postgres_server() as server:
        yield server


@pytest.fixture
def cluster(start_cluster: ClusterFactory, postgres: PostgresServer) -> Iterator[Cluster]:
    url = ensure_database(postgres.url(), "hexmoot")  # the cluster runs the migrations itself
    # A silent database is given up on after DATABASE_TIMEOUT: 2 s instead of 5, so that each
    # request of the silent outage below waits less (a statement here takes milliseconds).
    with start_cluster(database_url=url, env={"DATABASE_TIMEOUT": "2"}) as running:
        yield running


async def stored(client: httpx.AsyncClient, game_id: str) -> dict[str, Any]:
    answer = await client.get(f"/api/games/{game_id}")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def clock_at_turn(table: Table, seat: int) -> int:
    """What ``seat``'s clock showed when its turn began: after its last move (ms)."""
    left = BASE_S * 1000
    events = table.players[seat].events
    for version in sorted(events):
        data = events[version]["data"]
        if events[version]["kind"] == "move" and data.get("seat") == seat and "clock" in data:
            left = data["clock"]
    return left


@pytest.mark.parametrize("mode", ["fast", "immediate", "silent"])
async def test_a_database_outage_under_play(
    postgres: PostgresServer, cluster: Cluster, mode: str
) -> None:
    """``fast``: PostgreSQL ends its sessions, as a restart does; ``immediate``: as a crash;
    ``silent``: it stops answering without closing anything (every process of it stopped with
    SIGSTOP, as a hung server or a cut network that drops packets), so only the app's own time
    limits tell it is away."""
    visitors, tables = await seat_games(cluster)
    proxy = httpx.AsyncClient(base_url=cluster.url, timeout=PATIENCE)
    creator = visitors[0].http
    try:
        await play_round(tables)
        before = {t.game_id: await stored(proxy, t.game_id) for t in tables}
        health = await proxy.get("/healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok", health.text
        # The move each player to move will send: during the outage, and again after it.
        pending: dict[str, dict[str, Any]] = {}
        for table in tables:
            ply = len(table.acked) + 1
            move = table.picker.pick()
            pending[table.game_id] = {
                "type": "move",
                "move": move,
                "version": table.version,
                "msg_id": f"m{ply}",
            }
        sockets = {id(p): p.socket for t in tables for p in t.players.values()}

        stopping = time.monotonic()
        if mode == "silent":
            postgres.freeze()
        else:
            await asyncio.to_thread(postgres.stop, mode)
        down = time.monotonic()

        # A move on a socket: refused, retryable, the socket open.
        for table in tables:
            seat = table.picker.to_move()
            assert seat is not None
            answer = await table.players[seat].request(pending[table.game_id])
            assert answer["type"] == "error" and answer["code"] == "unavailable", answer
        # An HTTP write: 503 unavailable with Retry-After, in the one error shape.
        slug, options = quick_game()
        body = {"game": slug, "options": options, "time_control": TIME_CONTROL, "seat": 1}
        created = await creator.post("/api/games", json=body)
        assert created.status_code == 503, created.text
        assert created.json()["error"]["code"] == "unavailable", created.text
        assert int(created.headers["retry-after"]) >= 1
        # /healthz through nginx, from both processes in turn: degraded, 503, passed on.
        for _ in range(4):
            health = await proxy.get("/healthz")
            assert health.status_code == 503, health.text
            assert health.json()["status"] == "degraded", health.text
            assert health.json()["database"]["ok"] is False, health.text
        # The rest of the outage.
        await asyncio.sleep(max(0.0, OUTAGE_S - (time.monotonic() - down)))
        # Still the same sockets: none was dropped.
        assert all(p.socket is sockets[id(p)] for t in tables for p in t.players.values())
        assert all(not p.resumed_at for t in tables for p in t.players.values())

        starting = time.monotonic()
        if mode == "silent":
            postgres.thaw()
        else:
            await asyncio.to_thread(postgres.start)
        up = time.monotonic()
        outage = starting - down  # surely away: from the stop's end to the start's beginning

        # Nothing half-applied: every game as it was.
        for table in tables:
            after = await stored(proxy, table.game_id)
            assert after["version"] == before[table.game_id]["version"]
            assert after["game"]["moves"] == before[table.game_id]["game"]["moves"]
        # The same moves, the same msg_ids: acknowledged now (an unavailable answer: again).
        first_ack: float | None = None
        losses = []
        for table in tables:
            seat = table.picker.to_move()
            assert seat is not None
            player = table.players[seat]
            message = pending[table.game_id]
            left = clock_at_turn(table, seat)
            turn_began = table.acked_at[len(table.acked)]
            while True:
                answer = await player.request(message)
                if answer.get("code") != "unavailable":
                    break
                await asyncio.sleep(0.1)
            assert answer["type"] == "ack", answer
            acked = time.monotonic()
            first_ack = first_ack or acked
            ply = len(table.acked) + 1
            table.sent_at[ply] = turn_began  # the clock ran from its turn's start, at most
            table.acked_at[ply] = acked
            table.picker.play(message["move"])
            table.acked.append(message["move"])
            table.version = answer["version"]
            # What the mover's clock lost, against the real time outside the outage.
            event = await wait_for_event(player, answer["version"])
            charged = left - (event["data"]["clock"] - INCREMENT_S * 1000)
            outside = (acked - turn_began - outage) * 1000
            losses.append((charged, outside))
            assert charged <= outside + CLOCK_SLACK_MS, (table.game_id, charged, outside, outage)
        assert first_ack is not None
        print(
            f"\n{mode} stop: database away {outage:.2f} s (stop took {down - stopping:.2f} s, start"
            f" {up - starting:.2f} s); first move acknowledged {first_ack - up:.2f} s after the"
            " start returned; clock lost vs real time outside the outage (ms): "
            + ", ".join(f"{c:.0f}/{o:.0f}" for c, o in losses)
        )
        health = await proxy.get("/healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok", health.text
        created = await creator.post("/api/games", json=body)
        assert created.status_code == 201, created.text
        # Play goes on, and every move, event and clock adds up; nobody flagged.
        await play_round(tables)
        await check(cluster, tables)
    finally:
        await proxy.aclose()
        await close(visitors, tables)


async def wait_for_event(player: Any, version: int) -> dict[str, Any]:
    """The event of ``version`` once the player's reader has it (PATIENCE at most)."""
    end = time.monotonic() + PATIENCE
    while version not in player.events:
        assert time.monotonic() < end, f"no event {version}"
        await asyncio.sleep(0.02)
    event: dict[str, Any] = player.events[version]
    return event


async def test_pooled_connections_survive_a_restart(postgres: PostgresServer) -> None:
    """The app's engine (``pool_pre_ping``): connections pooled before the server restarted are
    replaced, not handed out dead; the pre-ping's cost per checkout is printed."""
    url = await asyncio.to_thread(ensure_database, postgres.url(), "pool")
    engine = make_engine(url)
    bare = make_engine(url)
    bare.pool._pre_ping = False  # the same pool without the ping, to measure it
    try:

        async def hold(seconds: float) -> None:
            async with engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
                await asyncio.sleep(seconds)

        await asyncio.gather(*(hold(0.05) for _ in range(10)))  # ten connections pooled
        assert engine.pool.checkedin() >= 10
        await asyncio.to_thread(postgres.stop)
        with pytest.raises(Exception) as refused:
            async with engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        assert database_unavailable(refused.value), repr(refused.value)
        await asyncio.to_thread(postgres.start)
        failures = 0
        for _ in range(20):  # every pooled connection died with the server
            try:
                await asyncio.gather(*(hold(0) for _ in range(10)))
            except Exception:
                failures += 1
        assert failures == 0
        timings = {}
        for name, which in (("pre-ping", engine), ("no ping", bare)):
            started = time.perf_counter()
            for _ in range(500):
                async with which.connect() as conn:
                    await conn.execute(text("SELECT 1"))
            timings[name] = (time.perf_counter() - started) / 500 * 1e6
        print(
            f"\ncheckout + SELECT 1: {timings['pre-ping']:.0f} us with pool_pre_ping,"
            f" {timings['no ping']:.0f} us without"
        )
    finally:
        await engine.dispose()
        await bare.dispose()
