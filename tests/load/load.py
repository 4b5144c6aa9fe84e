"""The websocket load generator: N games, 2 players and S spectators each, random legal moves.

Everything runs on loopback against a :class:`Target`: a real uvicorn process on a fresh migrated
database, the cluster (nginx in front of N processes), or the floor (tests/load/floor.py, a bare
fan-out). Bounded: at most 2,000 games and 300 s per step. A move's round trip runs from the
moment its player sends it until the opponent and every spectator of the game have received its
event.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import random
import statistics
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx
import psutil
import websockets
from websockets.asyncio.client import ClientConnection

import games
from app.identity import COOKIE

MAX_GAMES = 2000
MAX_SECONDS = 300.0


class Site(Protocol):
    """What the generator needs of a server: its base URLs."""

    @property
    def url(self) -> str: ...

    @property
    def ws_url(self) -> str: ...


@dataclass
class Target:
    """What a step loads: the site's URLs, the processes whose CPU and memory it reports (each
    with its children: a rules worker, nginx's workers), and the client addresses its sockets
    come from (nginx counts connections per address; all of 127.0.0.0/8 is this machine).
    ``bare``: the floor, which has no HTTP API (its games are made up here, its seats are
    cookies)."""

    name: str
    url: str
    ws_url: str
    pids: Sequence[int]
    sources: Sequence[str] = ("127.0.0.1",)
    bare: bool = False


@dataclass
class Game:
    """One game of the run, as the generator tracks it."""

    id: str
    rules: games.Rules[Any, Any]
    rng: random.Random
    state: Any = None
    version: int = 2
    busy: bool = False
    over: bool = False
    players: dict[int, ClientConnection] = field(default_factory=dict)
    # version -> (sent at, receivers still waiting)
    inflight: dict[int, tuple[float, int]] = field(default_factory=dict)


@dataclass
class Stats:
    """Round trips and errors of one step."""

    round_trips: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    sent: int = 0


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


async def _visitor_cookie(client: httpx.AsyncClient, name: str) -> str:
    client.cookies.clear()
    response = await client.put("/api/me", json={"name": name})
    response.raise_for_status()
    return f"{COOKIE}={response.cookies[COOKIE]}"


def bare_games(
    count: int, slug: str, options: dict[str, Any], seed: int
) -> tuple[list[Game], dict[str, tuple[str, str]]]:
    """The floor's games: made up here, as :func:`setup_games` makes Hexmoot's over HTTP."""
    made = [
        Game(f"g{i}", games.get(slug, **options), random.Random(seed + i)) for i in range(count)
    ]
    for game in made:
        game.state = game.rules.initial_state()
    return made, {game.id: ("seat=1", "seat=2") for game in made}


async def setup_games(
    server: Site,
    count: int,
    slug: str,
    options: dict[str, Any],
    seed: int,
    time_control: dict[str, Any] | None = None,
) -> tuple[list[Game], dict[str, tuple[str, str]]]:
    """Create ``count`` started games (with ``time_control``, unlimited by default); returns them
    and each game's two player cookies."""
    games_out: list[Game] = []
    cookies: dict[str, tuple[str, str]] = {}
    limit = asyncio.Semaphore(32)

    async def one(i: int) -> None:
        # No kept-alive connection: on a loaded machine a client can stay silent past the server's
        # keep-alive timeout and send its next request as the server closes it (a ReadError).
        fresh = httpx.Limits(max_keepalive_connections=0)
        async with (
            limit,
            httpx.AsyncClient(base_url=server.url, timeout=60, limits=fresh) as client,
        ):
            first = await _visitor_cookie(client, f"Load{i}a")
            created = await client.post(
                "/api/games",
                json={"game": slug, "options": options, "seat": 1, "time_control": time_control},
                headers={"Cookie": first},
            )
            created.raise_for_status()
            body = created.json()
            second = await _visitor_cookie(client, f"Load{i}b")
            joined = await client.post(
                f"/api/games/{body['id']}/join",
                json={"token": body["join_token"]},
                headers={"Cookie": second},
            )
            joined.raise_for_status()
            rules = games.get(slug, **options)
            game = Game(body["id"], rules, random.Random(seed + i))
            game.state = rules.initial_state()
            games_out.append(game)
            cookies[game.id] = (first, second)

    await asyncio.gather(*(one(i) for i in range(count)))
    return games_out, cookies


class Run:
    """Sockets, readers and the move scheduler of one load run."""

    def __init__(self, target: Target, spectators: int) -> None:
        self.target = target
        self.spectators = spectators
        self.stats = Stats()
        self.sockets: list[ClientConnection] = []
        self.readers: list[asyncio.Task[None]] = []

    async def connect(self, game: Game, cookies: tuple[str, str], limit: asyncio.Semaphore) -> None:
        url = f"{self.target.ws_url}/ws/games/{game.id}"
        async with limit:
            for seat, cookie in ((1, cookies[0]), (2, cookies[1])):
                ws = await self._open(url, {"Cookie": cookie})
                json.loads(await ws.recv())  # snapshot
                game.players[seat] = ws
                self._read(ws, game, seat)
            for _ in range(self.spectators):
                ws = await self._open(url, {})
                json.loads(await ws.recv())
                self._read(ws, game, None)

    async def _open(self, url: str, headers: dict[str, str]) -> ClientConnection:
        """A socket from the next of the target's client addresses, in turn."""
        source = self.target.sources[len(self.sockets) % len(self.target.sources)]
        return await websockets.connect(
            url, additional_headers=headers, local_addr=(source, 0), open_timeout=60
        )

    def _read(self, ws: ClientConnection, game: Game, seat: int | None) -> None:
        self.sockets.append(ws)
        self.readers.append(asyncio.create_task(self._reader(ws, game, seat)))

    async def _reader(self, ws: ClientConnection, game: Game, seat: int | None) -> None:
        try:
            async for raw in ws:
                now = time.perf_counter()
                message = json.loads(raw)
                kind = message.get("type")
                if kind == "event" and message.get("kind") == "move":
                    version = message["version"]
                    entry = game.inflight.get(version)
                    mover = message["data"]["seat"]
                    if entry is not None and seat != mover:
                        sent_at, waiting = entry
                        if waiting <= 1:
                            del game.inflight[version]
                            self.stats.round_trips.append(now - sent_at)
                        else:
                            game.inflight[version] = (sent_at, waiting - 1)
                elif kind == "ack":
                    game.version = message["version"]
                    game.busy = False
                elif kind == "error":
                    code = message.get("code", "?")
                    self.stats.errors[code] = self.stats.errors.get(code, 0) + 1
                    if message.get("version"):
                        game.version = message["version"]
                    game.busy = False
        except websockets.ConnectionClosed:
            return

    async def send_move(self, game: Game) -> None:
        seat = game.rules.to_move(game.state)
        if seat is None:
            game.over = True
            return
        move = game.rules.random_move(game.state, game.rng)
        text = game.rules.format_move(game.state, move)
        game.state = game.rules.apply(game.state, move)
        game.busy = True
        # The move's event will carry version + 1; the opponent and the spectators must see it.
        game.inflight[game.version + 1] = (time.perf_counter(), 1 + self.spectators)
        self.stats.sent += 1
        await game.players[seat].send(
            json.dumps(
                {
                    "type": "move",
                    "move": text,
                    "version": game.version,
                    "msg_id": f"{game.id}-{self.stats.sent}",
                }
            )
        )
        if game.rules.to_move(game.state) is None:
            game.over = True

    async def drive(self, all_games: list[Game], rate: float, seconds: float) -> float:
        """Send moves at ``rate`` per second in total for ``seconds``; the wall time taken."""
        interval = 1.0 / rate
        start = time.perf_counter()
        next_at = start
        turn = 0
        while time.perf_counter() - start < seconds:
            ready = None
            for _ in range(len(all_games)):
                candidate = all_games[turn % len(all_games)]
                turn += 1
                if not candidate.busy and not candidate.over:
                    ready = candidate
                    break
            if ready is not None:
                await self.send_move(ready)
            next_at += interval
            delay = next_at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            elif delay < -1.0:
                next_at = time.perf_counter()  # the generator itself fell behind: do not burst
        # Let the last round trips land.
        deadline = time.perf_counter() + 5.0
        while any(g.inflight for g in all_games) and time.perf_counter() < deadline:  # noqa: ASYNC110 - bounded drain
            await asyncio.sleep(0.05)
        return time.perf_counter() - start

    async def keepalive(self, period: float = 20.0) -> None:
        """Ping every socket once per ``period``: the server closes sockets silent for 60 s.

        The pings are spread evenly over the period, as browsers' timers started at different
        moments spread them; 2,000 pings in one burst would measure the generator, not the site.
        """
        while True:
            sockets = list(self.sockets)
            gap = period / max(1, len(sockets))
            for ws in sockets:
                await asyncio.sleep(gap)
                with contextlib.suppress(websockets.ConnectionClosed):
                    await ws.send('{"type":"ping"}')
            if not sockets:
                await asyncio.sleep(period)

    async def close(self) -> None:
        for reader in self.readers:
            reader.cancel()
        await asyncio.gather(*(ws.close() for ws in self.sockets), return_exceptions=True)
        await asyncio.gather(*self.readers, return_exceptions=True)


def _tree(processes: list[psutil.Process]) -> Iterator[psutil.Process]:
    """``processes`` and their children, those still running."""
    for process in processes:
        with contextlib.suppress(psutil.Error):
            yield from [process, *process.children(recursive=True)]


def _tree_cpu(processes: list[psutil.Process]) -> float:
    """The CPU seconds of ``processes`` and their children so far."""
    total = 0.0
    for one in _tree(processes):
        with contextlib.suppress(psutil.Error):
            times = one.cpu_times()
            total += times.user + times.system
    return total


def tree_rss(processes: list[psutil.Process]) -> float:
    """The resident memory of ``processes`` and their children, in MiB."""
    total = 0
    for one in _tree(processes):
        with contextlib.suppress(psutil.Error):
            total += one.memory_info().rss
    return total / 2**20


async def load_step(
    target: Target,
    *,
    games_count: int,
    spectators: int,
    rate: float,
    seconds: float,
    slug: str,
    options: dict[str, Any],
    seed: int,
    time_control: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One measured step: set up, connect, drive, measure; the figures. With ``time_control``
    every game's clocks run (and each move is charged) once both players have moved."""
    games_count = min(games_count, MAX_GAMES)
    seconds = min(seconds, MAX_SECONDS)
    if target.bare:
        all_games, cookies = bare_games(games_count, slug, options, seed)
    else:
        all_games, cookies = await setup_games(
            target, games_count, slug, options, seed, time_control
        )
    run = Run(target, spectators)
    limit = asyncio.Semaphore(50)
    keepalive = asyncio.create_task(run.keepalive())
    await asyncio.gather(*(run.connect(g, cookies[g.id], limit) for g in all_games))
    servers = [psutil.Process(pid) for pid in target.pids]
    me = psutil.Process()
    # The generator's own garbage collections would stall its 2,000 readers and be counted as
    # server latency: collect now, then keep the collector off for the bounded drive.
    gc.collect()
    gc.disable()
    try:
        server_cpu0, me_cpu0 = _tree_cpu(servers), me.cpu_times()
        wall = await run.drive(all_games, rate, seconds)
        server_cpu1, me_cpu1 = _tree_cpu(servers), me.cpu_times()
    finally:
        gc.enable()
    trips = [t * 1000 for t in run.stats.round_trips]
    figures = {
        "target": target.name,
        "games": games_count,
        "sockets": len(run.sockets),
        "target_rate": rate,
        "moves_sent": run.stats.sent,
        "moves_completed": len(trips),
        "moves_per_s": len(trips) / wall,
        "p50_ms": percentile(trips, 0.50),
        "p99_ms": percentile(trips, 0.99),
        "max_ms": max(trips) if trips else float("nan"),
        "mean_ms": statistics.fmean(trips) if trips else float("nan"),
        "errors": dict(run.stats.errors),
        "server_cpu_pct": 100 * (server_cpu1 - server_cpu0) / wall,
        "server_rss_mb": tree_rss(servers),
        "client_cpu_pct": 100
        * ((me_cpu1.user + me_cpu1.system) - (me_cpu0.user + me_cpu0.system))
        / wall,
    }
    keepalive.cancel()
    await run.close()
    return figures
