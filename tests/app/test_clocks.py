"""Clocks and deadlines on SQLite and PostgreSQL, on a fake clock (nothing here sleeps): flags
with nobody connected, one flag per deadline with two apps on one database, outages credited,
correspondence deadlines, disconnections and claims; and a real server SIGKILLed mid-game, moved
through time by its clock file, costs nobody clock time."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from app.db import make_engine
from app.domain.clock import FakeClock
from app.main import create_app
from app.models import Event
from app.runtime.hub import game_channel
from tests.app.conftest import make_settings
from tests.support.contract import checked
from tests.support.databases import fresh_database
from tests.support.gameplay import quick_game
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer
from tests.support.table import Seats
from tests.support.wsclient import TestVisitor

REDIS = "redis://127.0.0.1:6379/0"
BLITZ_1_0 = {"kind": "realtime", "base": 60, "increment": 0}
_starts = itertools.count()


def fresh_clock() -> FakeClock:
    """A fake clock later than every earlier test's (leases and beats in the shared database
    were written on those clocks)."""
    return FakeClock(start=1_800_000_000_000 + next(_starts) * 30 * 86_400_000)


@contextlib.asynccontextmanager
async def running(database_url: str, clock: FakeClock, **overrides: Any) -> AsyncIterator[FastAPI]:
    application = create_app(make_settings(database_url, **overrides), clock=clock)
    async with application.router.lifespan_context(application):
        yield application


def client(app: FastAPI) -> httpx.AsyncClient:
    return checked(
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")
    )


async def results_per_game(database_url: str, ids: list[str]) -> list[int]:
    """How many ``result`` events each of the games ``ids`` has (sorted; one game may have none)."""
    engine = make_engine(database_url)
    async with engine.connect() as conn:
        counts = await conn.execute(
            select(Event.game_id, func.count())
            .where(Event.game_id.in_(ids), Event.kind == "result")
            .group_by(Event.game_id)
        )
        found = sorted(n for _, n in counts)
    await engine.dispose()
    return found


class Table(Seats):
    """Two named players of one game on one app, in a quick game unless ``slug`` names one."""

    @classmethod
    async def start(
        cls, app: FastAPI, time_control: dict[str, Any] | None, slug: str = "", **extra: Any
    ) -> Table:
        first, second = client(app), client(app)
        for name, c in (("Ann", first), ("Bob", second)):
            assert (await c.put("/api/me", json={"name": name})).status_code == 200
        game, options = quick_game() if not slug else (slug, {})
        body = {"game": game, "options": options, "time_control": time_control, **extra}
        seats = await Seats.sit(first, second, body, seed=3)
        return cls(seats.id, seats.seats, seats.picker)


async def result_after(app: FastAPI, game_id: str, clock: FakeClock, seconds: float) -> Any:
    """Move the clock on and wait (on the hub, not on a timer) for the game's ``result``."""
    async with app.state.hub.subscribe(game_channel(game_id)) as subscription:
        clock.advance(seconds)
        while True:
            text = await asyncio.wait_for(subscription.get(), 20)
            assert text is not None
            message = json.loads(text)
            if message.get("kind") == "result":
                return message


async def test_a_flag_with_nobody_connected(database_url: str) -> None:
    clock = fresh_clock()
    async with running(database_url, clock) as app:
        table = await Table.start(app, BLITZ_1_0)
        await table.play(2)  # both first moves: the clock starts, seat 1 to move
        snapshot = await table.snapshot()
        clock_out = snapshot["game"]["clock"]
        assert clock_out["running"] and clock_out["remaining"] == [60_000, 60_000]
        clock.advance(59.5)
        assert (await table.snapshot())["game"]["clock"]["remaining"][0] == 500
        # Flagged once no lag allowance can cover a move any more: at most 5 s past the deadline.
        message = await result_after(app, table.id, clock, 0.5 + 5)
        result = message["data"]
        assert (result["winner"], result["reason"]) == (2, "timeout")
        state = message["state"]
        assert state["status"] == "finished" and state["clock"]["remaining"] == [0, 60_000]
        assert not state["clock"]["running"] and state["clock"]["deadline"] is None
        finished = (await table.snapshot())["game"]
        assert finished["result"]["reason"] == "timeout"
        await table.close()


async def test_a_late_move_its_lag_allowance_covers_is_accepted_not_flagged(
    database_url: str,
) -> None:
    """The protocol accepts a move that arrives after the deadline when its lag allowance covers
    it, so the server may not flag at the deadline itself (it did, 10-15 ms after it, and such a
    move could never arrive in time): it flags only past the deadline plus min(quota, 5 s)."""
    clock = fresh_clock()
    async with running(database_url, clock) as app:
        table = await Table.start(app, BLITZ_1_0)
        await table.play(2)  # the clock runs: seat 1 to move, 60 s, a lag quota of 400 ms
        shown = (await table.snapshot())["game"]["clock"]["deadline"]
        clock.advance(60.1)  # 100 ms past the deadline shown
        assert clock.now() == shown + 100
        assert await app.state.service.deadlines.playing.flag_due() == 0  # the sweep, now
        version = (await table.snapshot())["version"]
        move = table.picker.pick()
        late = await table.seats[1].post(
            f"/api/games/{table.id}/moves",
            json={"move": move, "version": version, "msg_id": "late", "lag": 250},
        )
        assert late.status_code == 200, late.text
        game = (await table.snapshot())["game"]
        assert game["status"] == "active" and game["clock"]["remaining"][0] == 150
        await table.close()


async def test_moves_charge_the_mover_and_add_the_increment(database_url: str) -> None:
    clock = fresh_clock()
    async with running(database_url, clock) as app:
        table = await Table.start(app, {"kind": "realtime", "base": 60, "increment": 5})
        await table.play(2)
        clock.advance(7.25)
        await table.play(1)
        game = (await table.snapshot())["game"]
        assert game["clock"]["remaining"] == [60_000 - 7_250 + 5_000, 60_000]
        record = (await table.seats[1].get(f"/games/{table.id}/record.json")).json()
        assert record["time_control"] == {"kind": "realtime", "base": 60, "increment": 5}
        assert record["clocks"][:3] == [None, None, {"seat": 1, "left": 57_750}]
        await table.close()


async def test_a_late_move_flags_its_mover(database_url: str) -> None:
    clock = fresh_clock()
    async with running(database_url, clock) as app:
        # No scheduler in this app: the move itself finds the time gone.
        app.state.deadlines_task.cancel()
        table = await Table.start(app, BLITZ_1_0)
        await table.play(2)
        clock.advance(61)
        move = table.picker.pick()
        version = (await table.snapshot())["version"]
        late = await table.seats[1].post(
            f"/api/games/{table.id}/moves", json={"move": move, "version": version, "msg_id": "x"}
        )
        assert late.status_code == 409, late.text
        assert late.json()["error"]["code"] == "game_over", late.text
        game = (await table.snapshot())["game"]
        assert (game["result"]["winner"], game["result"]["reason"]) == (2, "timeout")
        await table.close()


async def test_a_correspondence_deadline(database_url: str) -> None:
    clock = fresh_clock()
    async with running(database_url, clock) as app:
        table = await Table.start(app, {"kind": "correspondence", "days": 1})
        await table.play(2)
        clock.advance(23 * 3600)
        await table.play(1)  # a fresh day for seat 2
        game = (await table.snapshot())["game"]
        assert game["clock"]["remaining"] == [86_400_000, 86_400_000]
        assert game["clock"]["label"] == "1 day per move"
        message = await result_after(app, table.id, clock, 86_400)
        assert (message["data"]["winner"], message["data"]["reason"]) == (1, "timeout")
        await table.close()


async def test_an_outage_costs_no_clock_time(database_url: str) -> None:
    clock = fresh_clock()
    async with running(database_url, clock) as app:
        table = await Table.start(app, BLITZ_1_0)
        await table.play(2)
        clock.advance(5)  # seat 1 thinks for 5 s
        await app.state.service.deadlines.beat()  # the site's last sign of life
        game_id = table.id
        await table.close()
    clock.advance(600)  # the site is down for 10 minutes: no process beats
    async with running(database_url, clock) as app:
        async with client(app) as c:
            game = (await c.get(f"/api/games/{game_id}")).json()["game"]
        assert game["status"] == "active"
        remaining = game["clock"]["remaining"]
        assert 54_000 <= remaining[0] <= 55_000 and remaining[1] == 60_000
        assert game["clock"]["deadline"] == clock.now() + remaining[0]


async def test_a_database_outage_under_a_living_process_costs_no_clock_time(
    database_url: str,
) -> None:
    """Issue 27: the process lives on while its database is away (every write refused, as a
    stopped PostgreSQL refuses them); its timers run through the outage and fail. Once the
    database is back, whichever comes first (a sign of life, a deadline look, the move) credits
    the outage: no flag, and the mover is charged only its time before it."""
    clock = fresh_clock()
    # OUTAGE_AFTER 30 s, not 3: the sign of life written before the outage must count even when a
    # busy machine answers it seconds late (a beat answered later than OUTAGE_AFTER of real time
    # vouches for nothing), and the outage below lasts 600 s of the game's clock all the same.
    async with running(database_url, clock, outage_after=30.0) as app:
        table = await Table.start(app, BLITZ_1_0)
        await table.play(2)
        clock.advance(5)  # seat 1 thinks for 5 s
        core = app.state.service.core
        await app.state.service.deadlines.beat()  # the site's last sign of life
        write = core.writer.write

        async def refused(change: Any) -> Any:
            raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")

        core.writer.write = refused
        try:
            clock.advance(600)  # the database is away 10 minutes: seat 1's deadline passes
            end = asyncio.get_running_loop().time() + PATIENCE
            while not core.outage_suspected:  # the timers met the outage
                assert asyncio.get_running_loop().time() < end, "no timer met the outage"
                await asyncio.sleep(0.01)
        finally:
            core.writer.write = write
        await table.play(1)  # seat 1 moves at once, as the database returns
        async with client(app) as c:
            game = (await c.get(f"/api/games/{table.id}")).json()["game"]
        assert game["status"] == "active"
        remaining = game["clock"]["remaining"]
        assert 54_000 <= remaining[0] <= 55_000 and remaining[1] == 60_000, remaining
        assert not core.outage_suspected
        await table.close()


async def test_two_apps_on_one_database_flag_each_game_once(
    database_url: str, backend: str
) -> None:
    clock = fresh_clock()
    async with running(database_url, clock) as first, running(database_url, clock) as second:
        tables = [await Table.start(first if i % 2 else second, BLITZ_1_0) for i in range(6)]
        for table in tables:
            await table.play(2)
        holders = [await app.state.service.deadlines.holds_lease() for app in (first, second)]
        assert sorted(holders) == [False, True]
        async with contextlib.AsyncExitStack() as stack:
            subs = [
                await stack.enter_async_context(app.state.hub.subscribe(game_channel(t.id)))
                for app in (first, second)
                for t in tables
            ]
            clock.advance(61)
            results = 0
            pending = {asyncio.ensure_future(s.get()): s for s in subs}
            while results < len(tables):
                done, _ = await asyncio.wait(pending, timeout=20, return_when="FIRST_COMPLETED")
                assert done, "no flag within 20 s"
                for task in done:
                    sub = pending.pop(task)
                    message = json.loads(task.result())
                    if message.get("kind") == "result":
                        results += 1
                    pending[asyncio.ensure_future(sub.get())] = sub
            for task in pending:
                task.cancel()
        assert await results_per_game(database_url, [t.id for t in tables]) == [1] * len(tables)
        for table in tables:
            await table.close()


async def test_the_lease_passes_on_when_its_holder_stops(database_url: str) -> None:
    """The process holding the deadlines lease goes away: once the lease expires, the other one
    takes it and flags the game that came due meanwhile."""
    clock = fresh_clock()
    stacks = [contextlib.AsyncExitStack(), contextlib.AsyncExitStack()]
    apps = [await stack.enter_async_context(running(database_url, clock)) for stack in stacks]
    holds = [await app.state.service.deadlines.holds_lease() for app in apps]
    assert sorted(holds) == [False, True]
    holder, survivor = (0, 1) if holds[0] else (1, 0)
    table = await Table.start(apps[survivor], BLITZ_1_0)
    await table.play(2)
    await stacks[holder].aclose()  # the holder stops without a word
    message = await result_after(apps[survivor], table.id, clock, 61)
    assert message["data"]["reason"] == "timeout"
    assert await apps[survivor].state.service.deadlines.holds_lease()
    await table.close()
    await stacks[survivor].aclose()


async def test_the_disconnect_grace_and_the_claim(database_url: str) -> None:
    clock = fresh_clock()
    async with running(database_url, clock, away_grace=30) as app:
        table = await Table.start(app, BLITZ_1_0)
        await table.play(2)
        service = app.state.service
        game = (await table.snapshot())["game"]
        bob = game["players"][1]
        bob_id = (await table.seats[2].get("/api/me")).json()["id"]
        ann_id = (await table.seats[1].get("/api/me")).json()["id"]
        await service.table.arrived(table.id, 1, ann_id)  # Ann's page is open throughout
        await service.table.arrived(table.id, 2, bob_id)
        early = await table.seats[1].post(f"/api/games/{table.id}/claim")
        assert early.status_code == 409 and early.json()["error"]["code"] == "cannot_claim"
        await service.table.left(table.id, 2, bob_id)  # Bob's last socket drops
        away = (await table.snapshot())["game"]["away"]
        assert away[0] is None and away[1] == {"since": clock.now(), "grace": 30_000}
        clock.advance(20)
        await service.table.arrived(table.id, 2, bob_id)  # back after 20 s: 10 s of grace left
        await service.table.left(table.id, 2, bob_id)
        clock.advance(9)
        refused = await table.seats[1].post(f"/api/games/{table.id}/claim")
        assert refused.status_code == 409 and "1 s" in refused.json()["error"]["message"], (
            refused.text
        )
        clock.advance(1)
        claimed = await table.seats[1].post(f"/api/games/{table.id}/claim")
        assert claimed.status_code == 200, claimed.text
        result = (await table.snapshot())["game"]["result"]
        assert (result["winner"], result["reason"]) == (1, "disconnect"), bob
        await table.close()


async def test_a_player_who_never_opened_a_socket_is_away(database_url: str) -> None:
    """Absence is no open socket (issue 26): Bob joined over HTTP and never opened the game, so he
    is away from the start, and Ann may claim the win once his grace is used up (she was told
    "Your opponent is connected", and the game could only be aborted or wait to be abandoned)."""
    clock = fresh_clock()
    async with running(database_url, clock, away_grace=30) as app:
        table = await Table.start(app, BLITZ_1_0)
        started = clock.now()
        ann_id = (await table.seats[1].get("/api/me")).json()["id"]
        await app.state.service.table.arrived(table.id, 1, ann_id)
        away = (await table.snapshot())["game"]["away"]
        assert away == [None, {"since": started, "grace": 30_000}]
        clock.advance(29)
        early = await table.seats[1].post(f"/api/games/{table.id}/claim")
        assert early.status_code == 409 and "1 s" in early.json()["error"]["message"], early.text
        clock.advance(1)
        claimed = await table.seats[1].post(f"/api/games/{table.id}/claim")
        assert claimed.status_code == 200, claimed.text
        result = (await table.snapshot())["game"]["result"]
        assert (result["winner"], result["reason"]) == (1, "disconnect")
        await table.close()


async def test_sigkill_and_restart_cost_no_clock_time(backend: str, tmp_path: Path) -> None:
    """A real server, its clock moved by a file: SIGKILLed during a real-time game, down for ten
    minutes of its clock, restarted: neither player lost clock time."""
    offset = tmp_path / "offset"
    offset.write_text("0")
    env = {"CLOCK_OFFSET_FILE": str(offset), "CLOCK_FROZEN": "1"}
    # A database of its own: the other tests' fake clocks run years ahead of this real one.
    with fresh_database(backend, tmp_path) as database_url:
        await _sigkill_and_restart(database_url, offset, env)


async def _sigkill_and_restart(database_url: str, offset: Path, env: dict[str, str]) -> None:
    server = LiveServer(database_url, env)
    server.start()
    try:
        async with (
            checked(httpx.AsyncClient(base_url=server.url, timeout=PATIENCE)) as ann,
            checked(httpx.AsyncClient(base_url=server.url, timeout=PATIENCE)) as bob,
        ):
            await ann.put("/api/me", json={"name": "Ann"})
            await bob.put("/api/me", json={"name": "Bob"})
            slug, options = quick_game()
            body = {"game": slug, "options": options, "time_control": BLITZ_1_0}
            table = await Seats.sit(ann, bob, body, seed=3)
            await table.play(2)
            before = (await table.snapshot())["game"]["clock"]
            server.kill()
            offset.write_text(str(600_000))  # noqa: ASYNC240 - ten minutes pass while it is down
            server.start()
            after = (await table.snapshot())["game"]
            assert after["status"] == "active"
            # The server's clock stands still but for the ten minutes it was down (however long the
            # busy machine takes to restart it): not a millisecond of them is charged.
            assert after["clock"]["remaining"] == before["remaining"], (before, after["clock"])
            assert after["clock"]["remaining"][1] == 60_000
    finally:
        server.stop()


async def _timed_game(
    http: dict[int, httpx.AsyncClient], control: dict[str, Any], plies: int = 2
) -> str:
    """A game ``http[1]`` created in seat 1 and ``http[2]`` joined, ``plies`` moves into it."""
    slug, options = quick_game()
    body = {"game": slug, "options": options, "time_control": control}
    table = await Seats.sit(http[1], http[2], body, seed=3)
    await table.play(plies)
    return table.id


async def test_two_server_processes_flag_each_deadline_once(backend: str, tmp_path: Path) -> None:
    """Two real servers on one database and one Redis, their clocks moved together past six
    deadlines: each game gets exactly one ``result`` (a ``timeout``), and each socket hears it,
    whichever server it is connected to."""
    offset = tmp_path / "offset"
    offset.write_text("0")
    env = {
        "CLOCK_OFFSET_FILE": str(offset),
        "REDIS_URL": REDIS,
        "REDIS_PREFIX": f"test-{secrets.token_hex(4)}:",
    }
    with fresh_database(backend, tmp_path) as database_url:
        servers = [LiveServer(database_url, env), LiveServer(database_url, env)]
        for server in servers:
            server.start()
        visitors: list[TestVisitor] = []
        try:
            ids = []
            for i in range(6):
                server = servers[i % 2]
                ann = await TestVisitor(server.url).start("Ann")
                bob = await TestVisitor(server.url).start("Bob")
                visitors += [ann, bob]
                ids.append(await _timed_game({1: ann.http, 2: bob.http}, BLITZ_1_0))
            # Each game watched by its seat 2 on the *other* server.
            sockets = []
            for i, game_id in enumerate(ids):
                watcher = TestVisitor(servers[(i + 1) % 2].url)
                watcher.http.cookies = visitors[2 * i + 1].http.cookies
                visitors.append(watcher)
                socket = await watcher.open(game_id)
                await socket.expect("snapshot")
                sockets.append(socket)
            offset.write_text(str(61_000))
            for socket in sockets:
                while True:
                    event = await socket.expect("event")
                    if event["kind"] == "result":
                        assert event["data"]["reason"] == "timeout", event
                        break
        finally:
            for visitor in visitors:
                await visitor.close()
            for server in servers:
                server.stop()
        assert await results_per_game(database_url, ids) == [1] * len(ids)


async def test_a_dropped_socket_can_be_claimed_after_its_grace(
    backend: str, tmp_path: Path
) -> None:
    """A real server: Bob's only socket drops; Ann may not claim the win until his grace (60 s of
    the server's clock) is used up; then she may, and the game is hers (``disconnect``)."""
    offset = tmp_path / "offset"
    offset.write_text("0")
    with fresh_database(backend, tmp_path) as database_url:
        server = LiveServer(database_url, {"CLOCK_OFFSET_FILE": str(offset), "CLOCK_FROZEN": "1"})
        server.start()
        ann = await TestVisitor(server.url).start("Ann")
        bob = await TestVisitor(server.url).start("Bob")
        try:
            game_id = await _timed_game({1: ann.http, 2: bob.http}, BLITZ_1_0)
            watching = await ann.open(game_id)
            await watching.expect("snapshot")
            dropping = await bob.open(game_id)
            await dropping.expect("snapshot")
            # Bob, away from the start (he joined over HTTP), is back once his socket opens.
            while (await watching.expect("table"))["away"][1] is not None:
                pass
            await dropping.close()  # the socket drops
            while True:  # Ann's page is told, over the ordinary socket
                table = await watching.expect("table")
                if table["away"][1] is not None:
                    break
            # His whole grace: the server's clock stood still while he joined and opened the page
            # (test_a_player_who_never_opened_a_socket_is_away charges that moment).
            assert table["away"][1]["grace"] == 60_000
            early = await ann.http.post(f"/api/games/{game_id}/claim")
            assert early.status_code == 409, early.text
            assert early.json()["error"]["code"] == "cannot_claim"
            offset.write_text(str(61_000))
            claimed = await ann.http.post(f"/api/games/{game_id}/claim")
            assert claimed.status_code == 200, claimed.text
            result = (await ann.http.get(f"/api/games/{game_id}")).json()["game"]["result"]
            assert (result["winner"], result["reason"]) == (1, "disconnect")
        finally:
            await ann.close()
            await bob.close()
            server.stop()
