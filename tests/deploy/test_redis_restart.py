"""A Redis restart under live play, through nginx with two app processes (issue 27): Redis stopped
and started again on its port, and Redis SIGKILLed and started again.

Several games, each with its two players and a spectator, every socket opened through nginx, which
spreads them over both processes (least_conn); which process holds each socket is read from the
access lines, and at least one game must have its players on different processes. While Redis is
away, moves are committed and acknowledged, their events reach the sockets of the process that
committed them, and new sockets open (docs/protocol.md, "Health"): a late spectator per game.
Once Redis is back, and without any client reconnecting:

- live play resumes by itself: a move played on one process reaches the opponent and the
  spectator on the other process as a live ``event`` (each process's pub/sub listener reconnects
  and resubscribes);
- every socket catches up on what it missed before any further move (an unprompted ``catchup``,
  docs/protocol.md, "Reconnecting"), and ends up holding every event of its game exactly once,
  checked by version.

The times from Redis's return to every socket's catch-up and to the first event delivered live
across processes are printed (``-s`` shows them), never asserted: a busy machine must not fail the
test.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest

from deploy.cluster import Cluster
from tests.deploy.conftest import ClusterFactory, accepted
from tests.support.gameplay import MovePicker, assert_each_event_once, quick_game, start_game
from tests.support.patience import PATIENCE
from tests.support.redisserver import RedisServer, redis_server
from tests.support.wsclient import GameSocket, TestVisitor

GAMES = 3
#: Moves acknowledged in every game before Redis goes, and after play has resumed.
MOVES_PER_ROUND = 2
#: Moves in every game while Redis is away: one by each seat.
MOVES_IN_THE_GAP = 2
#: Seconds between a client's pings (docs/protocol.md, "Limits and heartbeats": the server closes
#: a socket silent for 60 s), so that a slow wait ends in its own failure, not in an idle close.
HEARTBEAT = 25


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture
def cluster(start_cluster: ClusterFactory, own_redis: RedisServer) -> Iterator[Cluster]:
    # The processes write their presence again every second: the counts a restart of Redis
    # wiped come back sooner (the test polls for them, it never sleeps for the refresh).
    with start_cluster(redis_url=own_redis.url, env={"PRESENCE_REFRESH": "1"}) as running:
        yield running


async def poll(condition: Callable[[], bool | Awaitable[bool]], what: str) -> None:
    """Wait until ``condition()`` holds (PATIENCE at most)."""
    end = time.monotonic() + PATIENCE
    while True:
        held = condition()
        if held if isinstance(held, bool) else await held:
            return
        assert time.monotonic() < end, f"not in time: {what}"
        await asyncio.sleep(0.02)


class Watcher:
    """One socket of a game, a player's or the spectator's, on app process ``process``, read in
    the background: the version of every event it is sent (live or in a catch-up, repeats
    included), and when each live one arrived. It never reconnects: a drop fails the test."""

    def __init__(self, name: str, socket: GameSocket, process: int) -> None:
        self.name = name
        self.socket = socket
        self.process = process
        self.start = self.version = 0  # the first snapshot's, then the last held
        self.received: list[int] = []
        self.live: dict[int, float] = {}  # version: when its event came live
        self.catchups = 0  # unprompted ones
        self.spectators: int | None = None  # the last count it was sent
        self.unexpected: list[dict[str, Any]] = []
        self.answers: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.reader: asyncio.Task[None] | None = None
        self.heartbeat: asyncio.Task[None] | None = None

    async def begin(self, first: dict[str, Any]) -> None:
        assert first["type"] == "snapshot", first
        self.start = self.version = first["version"]
        self.reader = asyncio.create_task(self.read())
        self.heartbeat = asyncio.create_task(self.ping())

    async def ping(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            await self.socket.send({"type": "ping"})

    def stop(self) -> None:
        for task in (self.reader, self.heartbeat):
            if task is not None:
                task.cancel()

    def take(self, version: int) -> None:
        self.received.append(version)
        self.version = max(self.version, version)

    async def read(self) -> None:
        while True:
            message = await self.socket.recv(wait=10 * PATIENCE)
            kind = message["type"]
            if kind == "event":
                self.live[message["version"]] = time.monotonic()
                self.take(message["version"])
            elif kind == "catchup":
                self.catchups += 1
                for event in message["events"]:
                    self.take(event["version"])
                self.version = max(self.version, message["version"])
            elif kind in ("ack", "error") and message.get("msg_id") in self.answers:
                self.answers.pop(message["msg_id"]).set_result(message)
            elif kind == "spectators":
                self.spectators = message["count"]
            elif kind == "snapshot":
                self.unexpected.append(message)

    def holds(self, version: int) -> bool:
        """Whether it holds ``version`` (its reader's failure, a dropped socket, is raised)."""
        assert self.reader is not None
        if self.reader.done():
            self.reader.result()
            raise AssertionError(f"{self.name}'s reader stopped")
        return self.version >= version

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message``; its answer (``ack`` or ``error``)."""
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.answers[message["msg_id"]] = answer
        await self.socket.send(message)
        async with asyncio.timeout(PATIENCE):
            return await answer


class Table:
    """One game: its players' and its spectator's sockets, the moves acknowledged, and for each
    move's version the process its mover's socket is on and when it was sent."""

    def __init__(self, game_id: str, seed: int) -> None:
        self.game_id = game_id
        self.picker = MovePicker(*quick_game(), seed=seed)
        self.version = 2
        self.players: dict[int, Watcher] = {}
        self.watchers: list[Watcher] = []
        self.acked: list[str] = []
        self.moved_from: dict[int, int] = {}  # version: the mover's process
        self.sent_at: dict[int, float] = {}  # version: when its move was sent

    async def open(self, cluster: Cluster, visitor: TestVisitor, name: str) -> Watcher:
        """Open ``visitor``'s socket through nginx, and find the process that accepted it."""
        before = accepted(cluster, self.game_id)
        socket = await visitor.open(self.game_id)
        first = await socket.recv()
        await poll(
            lambda: sum(accepted(cluster, self.game_id)) == sum(before) + 1, "the access line"
        )
        now = accepted(cluster, self.game_id)
        process = next(i for i, count in enumerate(now) if count > before[i])
        watcher = Watcher(name, socket, process)
        await watcher.begin(first)
        self.watchers.append(watcher)
        return watcher

    @property
    def across(self) -> bool:
        """Whether its two players' sockets are on different processes."""
        return self.players[1].process != self.players[2].process

    async def play(self) -> int:
        """The player to move plays a move, acknowledged; its event's version."""
        seat = self.picker.to_move()
        assert seat is not None, "the game ended: choose a longer one"
        text, version = self.picker.pick(), self.version + 1
        mover = self.players[seat]
        self.moved_from[version] = mover.process
        self.sent_at[version] = time.monotonic()
        message = {"type": "move", "move": text, "version": self.version, "msg_id": f"m{version}"}
        # Redis away or not, a committed move is acknowledged (docs/protocol.md, "Health").
        answer = await mover.request(message)
        assert answer["type"] == "ack" and answer["version"] == version, answer
        self.picker.play(text)
        self.acked.append(text)
        self.version = version
        return version

    async def held_by(self, watchers: list[Watcher], version: int, what: str) -> None:
        await poll(lambda: all(w.holds(version) for w in watchers), f"{what} in {self.game_id}")


async def seat_games(cluster: Cluster) -> tuple[list[TestVisitor], list[Table]]:
    """GAMES games, each with both players' sockets and a spectator's open through nginx."""
    visitors: list[TestVisitor] = []
    tables = []
    for g in range(GAMES):
        ann, bo, carl = [await TestVisitor(cluster.url).start(f"{n}{g}") for n in ("A", "B", "C")]
        visitors += [ann, bo, carl]
        created = await start_game(ann.http, bo.http, *quick_game())
        table = Table(created["id"], seed=g)
        table.players[1] = await table.open(cluster, ann, f"seat 1 of game {g}")
        table.players[2] = await table.open(cluster, bo, f"seat 2 of game {g}")
        await table.open(cluster, carl, f"spectator of game {g}")
        tables.append(table)
    return visitors, tables


async def listeners(cluster: Cluster) -> list[bool]:
    """Whether each app process's pub/sub listener is subscribed now (its ``/healthz``)."""
    found = []
    for app in cluster.apps:
        async with httpx.AsyncClient(base_url=app.url, timeout=PATIENCE) as direct:
            found.append((await direct.get("/healthz")).json()["redis"]["listener"])
    return found


async def play_round(table: Table) -> None:
    for _ in range(MOVES_PER_ROUND):
        await table.play()
    await table.held_by(table.watchers, table.version, "a round of moves")


async def play_in_the_gap(cluster: Cluster, table: Table, late: TestVisitor) -> None:
    """Moves while Redis is away: each acknowledged, its event on the sockets of its mover's
    process; then a late spectator's socket opens (its process subscribes the game's channel
    once Redis is back)."""
    for _ in range(MOVES_IN_THE_GAP):
        version = await table.play()
        beside = [w for w in table.watchers if w.process == table.moved_from[version]]
        await table.held_by(beside, version, "a move on its own process, Redis away")
    await table.open(cluster, late, f"late spectator of {table.game_id}")


async def resume(table: Table) -> None:
    """Play until two moves in a row, one by each seat, reach every socket of the game live;
    a move that some socket got in a catch-up instead (its process was not yet listening) does
    not count."""
    in_a_row = 0
    while in_a_row < 2:
        version = await table.play()
        await table.held_by(table.watchers, version, "a move after Redis's return")
        in_a_row = in_a_row + 1 if all(version in w.live for w in table.watchers) else 0


def crossings(table: Table, since: float) -> dict[Watcher, list[float]]:
    """For each socket of the game, when the events of moves sent after ``since`` by a player on
    the other process came to it live."""
    return {
        watcher: [
            at
            for version, at in watcher.live.items()
            if table.sent_at.get(version, 0.0) >= since
            and table.moved_from[version] != watcher.process
        ]
        for watcher in table.watchers
    }


async def check(http: httpx.AsyncClient, tables: list[Table]) -> None:
    """Every acknowledged move stored; every socket holds every event of its game exactly once."""
    for table in tables:
        await table.held_by(table.watchers, table.version, "the last move")
        stored = (await http.get(f"/api/games/{table.game_id}")).json()
        assert stored["game"]["moves"] == table.acked, table.game_id
        assert stored["version"] == table.version, table.game_id
        for watcher in table.watchers:
            who = (watcher.name, watcher.socket.log)
            assert_each_event_once(watcher.received, watcher.start, table.version, who)
            assert watcher.unexpected == [], watcher.name


@pytest.mark.parametrize("outage", ["stop", "kill"])
async def test_live_play_resumes_by_itself_after_redis_restarts(
    cluster: Cluster, own_redis: RedisServer, outage: str
) -> None:
    visitors, tables = await seat_games(cluster)
    try:
        # nginx gave a new socket to the process holding the fewest: a game's two players, whose
        # sockets open one after the other, land on different processes.
        assert any(table.across for table in tables), [
            [w.process for w in t.watchers] for t in tables
        ]
        await asyncio.gather(*(play_round(table) for table in tables))

        gone = time.monotonic()
        await asyncio.to_thread(own_redis.stop if outage == "stop" else own_redis.kill)
        # Both processes know Redis is gone: the moves below are played in the gap.
        await poll(lambda: _none(listeners(cluster)), "both listeners down")
        late = [await TestVisitor(cluster.url).start(f"D{g}") for g in range(GAMES)]
        visitors += late
        await asyncio.gather(
            *(play_in_the_gap(cluster, t, d) for t, d in zip(tables, late, strict=True))
        )

        # Redis's return is counted from the command that starts it again: its own start-up, a few
        # ms, is counted in the times printed, never left out of them.
        back = time.monotonic()
        await asyncio.to_thread(own_redis.start)
        # Every socket catches up on the moves of the gap by itself, before any other move.
        for table in tables:
            await table.held_by(table.watchers, table.version, "the moves of the gap")
        caught_up = time.monotonic()
        await asyncio.gather(*(resume(table) for table in tables))
        crossed = [crossings(table, back) for table in tables]
        first = min(at for game in crossed for times in game.values() for at in times)
        # The cross-process case was exercised: in a game whose players are on different
        # processes, every socket got live a move played on the other process.
        assert any(
            table.across and all(game.values()) for table, game in zip(tables, crossed, strict=True)
        ), [[w.process for w in t.watchers] for t in tables]

        await asyncio.gather(*(play_round(table) for table in tables))
        await check(visitors[0].http, tables)
        assert all(await listeners(cluster))
        # The spectator counts the restart wiped are counted again and sent to every socket: two
        # spectators in each game, the first one and the one that came in the gap.
        told = lambda: [[w.spectators for w in t.watchers] for t in tables]  # noqa: E731
        try:
            await poll(lambda: all(n == 2 for game in told() for n in game), "spectator counts")
        except AssertionError:
            raise AssertionError(f"not every socket was told 2 spectators: {told()}") from None
        catchups = [w.catchups for t in tables for w in t.watchers]
        print(
            f"\nRedis {outage}, away {(back - gone) * 1000:.0f} ms; after its restart, every socket"
            f" caught up in {(caught_up - back) * 1000:.0f} ms, the first event across processes"
            f" came in {(first - back) * 1000:.0f} ms; unprompted catch-ups per socket {catchups}"
        )
    finally:
        for table in tables:
            for watcher in table.watchers:
                watcher.stop()
        for visitor in visitors:
            await visitor.close()


async def _none(flags: Awaitable[list[bool]]) -> bool:
    return not any(await flags)
