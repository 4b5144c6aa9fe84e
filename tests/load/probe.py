"""``python -m tests.load.probe``: the outside probe of issue 14, repeated as figures.

Each probe starts its own real uvicorn process (or two) on loopback, on a fresh migrated database,
does to it what a stranger or a failure would, and prints one line: its figures and the figure the
issue quotes from the first probe. Nothing passes or fails: a refused request, a closed socket or a
timeout is a figure, and an exception ends only its own probe (printed, then the next one runs).

    python -m tests.load.probe                        # every probe, as the issue measured them
    python -m tests.load.probe --quick                # scaled down (about 5 minutes), said so
    python -m tests.load.probe --only replay redis    # some of them
    python -m tests.load.probe --server-env NAME=VALUE   # extra settings for every server

Memory is the resident set of the server's main process (the event loop), CPU its user + system
seconds (and those of its children, the rules workers, apart). Servers log at ``warning`` into a
file (``--logs DIR`` keeps them); each line ends with the number of tracebacks the server logged.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import secrets
import signal
import statistics
import subprocess
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import httpx
import psutil
import websockets
from websockets.asyncio.client import ClientConnection

import games
from app.identity import COOKIE
from tests.load.load import percentile
from tests.support.databases import fresh_database
from tests.support.server import LiveServer, free_port

DATA = Path(__file__).parent / "data"
REPLAY_RECORD = (
    DATA / "jotun-6-697.json"
)  # `python -m games random jotun --options size=6 --seed 5`
HTTP_TIMEOUT = 30.0
WS_TIMEOUT = 10.0
MiB = 2**20


# ---------------------------------------------------------------------------------------------
# Servers, clients and small helpers


@dataclass
class Context:
    """What every probe gets: where to put databases and logs, how big to go."""

    directory: Path
    logs: Path
    quick: bool
    server_env: dict[str, str]
    probe: str = ""
    servers: int = 0

    def scale(self, full: Any, quick: Any) -> Any:
        return quick if self.quick else full


@dataclass
class Running:
    """A started server and the file its stderr goes to."""

    server: LiveServer
    log: Path

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def ws(self) -> str:
        return self.server.ws_url

    @property
    def process(self) -> psutil.Process:
        assert self.server.process is not None
        return psutil.Process(self.server.process.pid)

    def rss(self) -> float:
        """The main process's resident set, MiB."""
        try:
            return float(self.process.memory_info().rss) / MiB
        except psutil.Error:
            return float("nan")

    def cpu(self) -> tuple[float, float]:
        """CPU seconds (user + system) of the main process and of its children now alive."""
        proc = self.process
        own = proc.cpu_times()
        children = 0.0
        for child in proc.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                times = child.cpu_times()
                children += times.user + times.system
        return own.user + own.system, children

    def tracebacks(self) -> int:
        """Errors the server logged with a traceback (a chained exception counts once)."""
        try:
            lines = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return 0
        count, previous = 0, ""
        for line in lines:
            if line.startswith("Traceback (most recent call last)") and not previous.startswith(
                ("The above exception", "During handling")
            ):
                count += 1
            if line.strip():
                previous = line
        return count


@contextlib.contextmanager
def _server_output(log: Path, level: str | None) -> Iterator[None]:
    """Start uvicorn with its stderr in ``log`` (and, if given, another log level).

    :class:`LiveServer` lets its child inherit our stderr and logs at ``warning``; the probe wants
    its own output readable and, for the access log, uvicorn's default level (``info``), as
    ``make run`` and the container serve. The command line is otherwise the one LiveServer builds.
    """
    original = subprocess.Popen

    def popen(args: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        args = list(args)
        if level is not None:
            if "--log-level" in args:
                args[args.index("--log-level") + 1] = level
            else:
                args += ["--log-level", level]
        kwargs["stdout"] = kwargs["stderr"] = log.open("ab")  # uvicorn's access log: stdout
        return original(args, **kwargs)

    with mock.patch.object(subprocess, "Popen", popen):  # as LiveServer calls it
        yield


@contextlib.asynccontextmanager
async def serving(
    ctx: Context,
    backend: str = "sqlite",
    env: dict[str, str] | None = None,
    count: int = 1,
    log_level: str | None = None,
) -> AsyncIterator[list[Running]]:
    """``count`` started servers sharing one fresh database of ``backend``; stopped on exit."""
    with fresh_database(backend, ctx.directory) as url:
        running: list[Running] = []
        try:
            for _ in range(count):
                ctx.servers += 1
                log = ctx.logs / f"{ctx.probe}-server-{ctx.servers}.log"
                log.write_bytes(b"")
                # LOG_LEVEL for `python -m app.serve`; the patched command line for plain uvicorn.
                level_env = {"LOG_LEVEL": log_level} if log_level else {}
                server = LiveServer(url, {**(env or {}), **level_env, **ctx.server_env})
                with _server_output(log, log_level):
                    await asyncio.to_thread(server.start)
                running.append(Running(server, log))
            yield running
        finally:
            for one in running:
                await asyncio.to_thread(one.server.stop)


class RssSampler:
    """The peak resident set of a server while a probe runs (sampled every 50 ms)."""

    def __init__(self, running: Running) -> None:
        self.running = running
        self.start = running.rss()
        self.peak = self.start
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            self.peak = max(self.peak, self.running.rss())
            await asyncio.sleep(0.05)

    def __enter__(self) -> RssSampler:
        self._task = asyncio.create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
        self.peak = max(self.peak, self.running.rss())


def client(running: Running, cookie: str | None = None) -> httpx.AsyncClient:
    headers = {"Cookie": cookie} if cookie else {}
    return httpx.AsyncClient(base_url=running.url, timeout=HTTP_TIMEOUT, headers=headers)


async def named(running: Running, name: str) -> httpx.AsyncClient:
    """A client with a guest cookie and a name (the name makes it a player, as a browser does)."""
    http = client(running)
    answer = await http.put("/api/me", json={"name": name})
    answer.raise_for_status()
    return http


def cookie_of(http: httpx.AsyncClient) -> str:
    return f"{COOKIE}={http.cookies[COOKIE]}"


async def ws_connect(
    running: Running,
    path: str,
    cookie: str | None = None,
    origin: str | None = "own",
    **kwargs: Any,
) -> ClientConnection:
    """A websocket to ``path``; by default with the site's own ``Origin``, as a browser sends."""
    headers = {"Cookie": cookie} if cookie else {}
    if origin == "own":
        origin = running.url
    return await asyncio.wait_for(
        websockets.connect(
            running.ws + path,
            additional_headers=headers,
            origin=origin,  # type: ignore[arg-type]
            max_size=None,
            open_timeout=WS_TIMEOUT,
            **kwargs,
        ),
        WS_TIMEOUT + 1,
    )


def refusal(exc: BaseException) -> str:
    """A short name for how a connection or request was refused."""
    if isinstance(exc, websockets.InvalidStatus):
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, websockets.ConnectionClosed):
        return f"closed {exc.rcvd.code}" if exc.rcvd is not None else "closed, no close frame"
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return "timeout"
    return type(exc).__name__


def counts(counter: Counter[Any]) -> str:
    return ", ".join(f"{key}: {n}" for key, n in counter.most_common()) or "none"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def pick_move(rules: games.Rules[Any, Any], state: Any, rng: random.Random) -> str:
    """A random legal move's text, a pass only when nothing else is legal (games stay open)."""
    texts = [rules.format_move(state, m) for m in rules.legal_moves(state)]
    return rng.choice([t for t in texts if t != "pass"] or texts)


async def start_game(
    running: Running, slug: str, options: dict[str, Any], public: bool = True
) -> tuple[str, dict[int, httpx.AsyncClient], dict[str, Any]]:
    """A started game between two named guests; its id, each seat's client, the create answer."""
    first = await named(running, f"Ann{secrets.token_hex(2)}")
    second = await named(running, f"Bo{secrets.token_hex(2)}")
    created = await first.post(
        "/api/games", json={"game": slug, "options": options, "seat": 1, "public": public}
    )
    created.raise_for_status()
    body = created.json()
    joined = await second.post(f"/api/games/{body['id']}/join", json={"token": body["join_token"]})
    joined.raise_for_status()
    return body["id"], {1: first, 2: second}, body


@dataclass
class Position:
    """A game as its server holds it now (read over HTTP)."""

    version: int
    to_move: int | None
    state: Any
    rules: games.Rules[Any, Any]


async def position(http: httpx.AsyncClient, game_id: str) -> Position:
    answer = await http.get(f"/api/games/{game_id}")
    answer.raise_for_status()
    snap = answer.json()
    rules = games.get(snap["game"]["game"], **snap["game"]["options"])
    state = rules.initial_state()
    for text in snap["game"]["moves"]:
        state = rules.play(state, text)
    return Position(snap["version"], rules.to_move(state), state, rules)


class Reader:
    """A websocket whose messages a background task collects, each with its arrival time."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self.queue: asyncio.Queue[tuple[float, dict[str, Any]]] = asyncio.Queue()
        self.closed: str | None = None
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        try:
            async for raw in self.connection:
                self.queue.put_nowait((time.perf_counter(), json.loads(raw)))
        except websockets.ConnectionClosed as exc:
            self.closed = refusal(exc)
        finally:
            if self.closed is None:
                code = self.connection.close_code
                self.closed = f"closed {code}"

    async def next(
        self, match: Callable[[dict[str, Any]], bool], wait: float = WS_TIMEOUT
    ) -> tuple[float, dict[str, Any]]:
        """The first message (from now on) that ``match`` accepts; others are dropped."""
        deadline = time.perf_counter() + wait
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError
            try:
                at, message = await asyncio.wait_for(self.queue.get(), min(left, 0.5))
            except TimeoutError:
                if self.task.done() and self.queue.empty():
                    raise websockets.ConnectionClosedError(None, None) from None
                continue
            if match(message):
                return at, message

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.connection.close(), 5)
        self.task.cancel()
        with contextlib.suppress(BaseException):
            await self.task


def is_event(version: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("type") == "event" and m.get("version") == version


def answers(msg_id: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("type") in ("ack", "error") and m.get("msg_id") == msg_id


def answer_text(message: dict[str, Any]) -> str:
    if message.get("type") == "ack":
        return f"ack duplicate={str(message.get('duplicate')).lower()}"
    return f"error {message.get('code')}"


# ---------------------------------------------------------------------------------------------
# 1. bodies


async def probe_bodies(ctx: Context) -> str:
    # A name, and an unknown field whose 100 MB name the validation error repeats.
    size = 100_000_000
    body = b'{"name": "Ann", "' + b"y" * (size - 22) + b'": 1}'
    statuses: Counter[str] = Counter()
    sizes: list[int] = []
    async with serving(ctx) as (srv,):
        async with httpx.AsyncClient(base_url=srv.url, timeout=120) as http:
            await http.get("/api/me")
            before = srv.rss()
            with RssSampler(srv) as sampler:
                for _ in range(5):
                    try:
                        answer = await http.put(
                            "/api/me", content=body, headers={"Content-Type": "application/json"}
                        )
                        statuses[str(answer.status_code)] += 1
                        sizes.append(len(answer.content))
                    except httpx.HTTPError as exc:
                        statuses[type(exc).__name__] += 1
                await asyncio.sleep(1.0)
            after = srv.rss()
        return (
            f"5 x 100 MB PUT /api/me: server RSS {before:.0f} MiB before, {after:.0f} after, "
            f"peak {sampler.peak:.0f} (growth {after - before:+.0f} MiB); answers {counts(statuses)}; "
            f"error body {max(sizes, default=0):,} bytes"
            f" | issue: 285 -> 1,124 MiB, errors echo the input | tracebacks {srv.tracebacks()}"
        )


# ---------------------------------------------------------------------------------------------
# 2. frames


async def probe_frames(ctx: Context) -> str:
    sockets = 20
    frame = "x" * 15_000_000
    outcomes: Counter[str] = Counter()
    async with serving(ctx) as (srv,):
        game_id, _players, _ = await start_game(srv, "exxit", {"variant": "beginner"})
        before = srv.rss()

        async def one() -> None:
            try:
                ws = await ws_connect(srv, f"/ws/games/{game_id}", compression=None)
            except Exception as exc:
                outcomes[f"connect refused ({refusal(exc)})"] += 1
                return
            try:
                await asyncio.wait_for(ws.recv(), WS_TIMEOUT)  # snapshot
                await asyncio.wait_for(ws.send(frame), 60)
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if message.get("type") == "error":
                        outcomes[f"error {message.get('code')}"] += 1
                        return
            except Exception as exc:
                outcomes[refusal(exc)] += 1
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 5)

        with RssSampler(srv) as sampler:
            await asyncio.gather(*(one() for _ in range(sockets)))
            await asyncio.sleep(1.0)
        after = srv.rss()
        return (
            f"{sockets} sockets x 15 MB frame: RSS growth peak {sampler.peak - before:+.0f} MiB "
            f"({before:.0f} -> peak {sampler.peak:.0f}, {after:.0f} after); answers "
            f"{counts(outcomes)} | issue: frames up to 16 MiB buffered before the 16 KiB check"
            f" | tracebacks {srv.tracebacks()}"
        )


# ---------------------------------------------------------------------------------------------
# 3. replay


class Duel:
    """Two players on websockets; ``round_trip`` times one move from send to the opponent's event."""

    def __init__(self, srv: Running, slug: str, options: dict[str, Any], seed: int) -> None:
        self.srv = srv
        self.slug = slug
        self.options = options
        self.rng = random.Random(seed)
        self.sent = 0
        self.readers: dict[int, Reader] = {}
        self.http: dict[int, httpx.AsyncClient] = {}

    async def new_game(self) -> None:
        await self.close()
        self.game_id, self.http, _ = await start_game(self.srv, self.slug, self.options)
        for seat, http in self.http.items():
            ws = await ws_connect(self.srv, f"/ws/games/{self.game_id}", cookie_of(http))
            self.readers[seat] = Reader(ws)
            await self.readers[seat].next(lambda m: m.get("type") == "snapshot")
        self.pos = await position(self.http[1], self.game_id)

    async def round_trip(self) -> float:
        if self.pos.to_move is None:
            await self.new_game()
        mover = self.pos.to_move
        assert mover is not None
        text = pick_move(self.pos.rules, self.pos.state, self.rng)
        self.sent += 1
        msg_id = f"d{self.sent}"
        version = self.pos.version
        sent_at = time.perf_counter()
        await self.readers[mover].connection.send(
            json.dumps({"type": "move", "move": text, "version": version, "msg_id": msg_id})
        )
        at, _event = await self.readers[3 - mover].next(is_event(version + 1), 60)
        _, ack = await self.readers[mover].next(answers(msg_id), 60)
        if ack.get("type") != "ack":
            raise RuntimeError(f"move refused: {ack}")
        self.pos.state = self.pos.rules.play(self.pos.state, text)
        self.pos.version = ack["version"]
        self.pos.to_move = self.pos.rules.to_move(self.pos.state)
        return at - sent_at

    async def close(self) -> None:
        for reader in self.readers.values():
            await reader.close()
        for http in self.http.values():
            await http.aclose()
        self.readers, self.http = {}, {}


async def _round_trips(srv: Running, seconds: float) -> tuple[list[float], str]:
    """Paced moves for ``seconds`` in a fresh game, the same moves each call (the same seed):
    a position's cost changes as a game goes on, so both sides of a comparison play the same."""
    duel = Duel(srv, "valaturna", {"side": 7}, seed=1)
    trips: list[float] = []
    note = ""
    try:
        await duel.new_game()
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            trips.append(await duel.round_trip())
            await asyncio.sleep(0.05)
    except Exception as exc:
        note = f" (stopped: {refusal(exc)})"
    finally:
        await duel.close()
    return trips, note


def _trip_figures(trips: list[float]) -> str:
    if not trips:
        return "no round trip"
    return (
        f"p50 {ms(statistics.median(trips))} p99 {ms(percentile(trips, 0.99))} ({len(trips)} moves)"
    )


async def probe_replay(ctx: Context) -> str:
    record = json.loads(REPLAY_RECORD.read_text())
    body = json.dumps(record).encode()
    async with serving(ctx) as (srv,):
        # Twice in a row: the first call may pay for starting a rules worker.
        figures = []
        async with httpx.AsyncClient(base_url=srv.url, timeout=120) as http:
            await http.get("/api/me")
            for _ in range(2):
                own0, kids0 = srv.cpu()
                start = time.perf_counter()
                answer = await http.post(
                    "/api/replay", content=body, headers={"Content-Type": "application/json"}
                )
                wall = time.perf_counter() - start
                own1, kids1 = srv.cpu()
                figures.append(
                    f"{answer.status_code}, {len(answer.content):,} bytes, CPU "
                    f"{own1 - own0:.2f} s main + {max(0.0, kids1 - kids0):.2f} s workers, "
                    f"{wall:.2f} s wall"
                )
        one = (
            f"a {len(body):,}-byte {len(record['moves'])}-ply Jotun size-6 replay, twice: "
            + "; ".join(figures)
        )

        window = ctx.scale(30.0, 10.0)
        rest, rest_note = await _round_trips(srv, window)

        statuses: Counter[str] = Counter()
        stop = asyncio.Event()

        async def attacker() -> None:
            async with httpx.AsyncClient(base_url=srv.url, timeout=120) as attack:
                while not stop.is_set():
                    try:
                        hit = await attack.post(
                            "/api/replay",
                            content=body,
                            headers={"Content-Type": "application/json"},
                        )
                        statuses[str(hit.status_code)] += 1
                    except httpx.HTTPError as exc:
                        statuses[type(exc).__name__] += 1

        # Both sides are timed for the same window, so that the loops' requests (seconds each)
        # overlap the moves whatever their number.
        loops = [asyncio.create_task(attacker()) for _ in range(2)]
        try:
            await asyncio.sleep(1.0)
            loaded, loaded_note = await _round_trips(srv, window)
        finally:
            stop.set()
            for loop in loops:
                loop.cancel()
            await asyncio.gather(*loops, return_exceptions=True)
        return (
            f"{one} | another player's round trip (Valaturna, {window:g} s each): at rest {_trip_figures(rest)}"
            f"{rest_note}, under two replay loops {_trip_figures(loaded)}{loaded_note}; the "
            f"loops' answers in {window + 1:g} s {counts(statuses)} | issue: 0.67 s CPU, 12 MB; 50 ms -> 1.7 s"
            f" | tracebacks {srv.tracebacks()}"
        )


# ---------------------------------------------------------------------------------------------
# 4. create


async def probe_create(ctx: Context) -> str:
    seconds = ctx.scale(20.0, 5.0)
    async with serving(ctx) as (srv,):
        others: set[str] = set()
        for i in range(5):
            other = await named(srv, f"Other{i}")
            made = await other.post("/api/games", json={"game": "exxit"})
            if made.status_code == 201:
                others.add(made.json()["id"])
            await other.aclose()
        statuses: Counter[str] = Counter()
        theirs: set[str] = set()
        retry_after: set[str] = set()
        async with client(srv) as guest:
            await guest.get("/api/me")
            deadline = time.perf_counter() + seconds
            start = time.perf_counter()

            async def worker() -> None:
                while time.perf_counter() < deadline:
                    try:
                        answer = await guest.post("/api/games", json={"game": "exxit"})
                    except httpx.HTTPError as exc:
                        statuses[type(exc).__name__] += 1
                        continue
                    statuses[str(answer.status_code)] += 1
                    if answer.status_code == 201:
                        theirs.add(answer.json()["id"])
                    elif "retry-after" in answer.headers:
                        retry_after.add(answer.headers["retry-after"])

            await asyncio.gather(*(worker() for _ in range(4)))
            wall = time.perf_counter() - start
            listed = (await guest.get("/api/games/open")).json()["games"]
        ids = [entry["id"] for entry in listed]
        mine = sum(1 for i in ids if i in theirs)
        seen_others = sum(1 for i in ids if i in others)
        return (
            f"one guest creating for {wall:.0f} s: {len(theirs)} games accepted "
            f"({len(theirs) / wall:.0f}/s); answers {counts(statuses)}"
            f"{'; Retry-After ' + '/'.join(sorted(retry_after)) if retry_after else ''}; "
            f"open list: {mine} of {len(ids)} entries theirs, {seen_others} of the 5 other "
            f"visitors' games shown | issue: 2,000 games at 109/s, the list only theirs"
            f" | tracebacks {srv.tracebacks()}"
        )


# ---------------------------------------------------------------------------------------------
# 5. sockets


async def probe_sockets(ctx: Context) -> str:
    total = 1500
    outcomes: Counter[str] = Counter()
    opened: list[ClientConnection] = []
    limit = asyncio.Semaphore(25)
    async with serving(ctx) as (srv,):

        async def one() -> None:
            async with limit:
                try:
                    ws = await ws_connect(srv, "/ws/live")
                except Exception as exc:
                    outcomes[refusal(exc)] += 1
                    return
                try:
                    first = json.loads(await asyncio.wait_for(ws.recv(), WS_TIMEOUT))
                    if first.get("type") == "live":
                        outcomes["accepted"] += 1
                        opened.append(ws)
                        return
                    outcomes[f"error {first.get('code')}"] += 1
                except Exception as exc:
                    outcomes[refusal(exc)] += 1
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 5)

        start = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(total)))
        wall = time.perf_counter() - start
        still = sum(1 for ws in opened if ws.close_code is None)
        await asyncio.gather(
            *(asyncio.wait_for(ws.close(), 10) for ws in opened), return_exceptions=True
        )
        return (
            f"{total} anonymous sockets to /ws/live from one client in {wall:.0f} s: "
            f"{outcomes['accepted']} accepted ({still} still open at the end); all answers "
            f"{counts(outcomes)} | issue: 1,500 accepted | tracebacks {srv.tracebacks()}"
        )


# ---------------------------------------------------------------------------------------------
# 6. spectators


async def probe_spectators(ctx: Context) -> str:
    watchers = ctx.scale(800, 200)
    got = Counter[str]()
    outcomes: Counter[str] = Counter()
    sockets: list[ClientConnection] = []
    readers: list[asyncio.Task[None]] = []
    phase = ["join"]

    async def read(ws: ClientConnection) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in ws:
                got[phase[0]] += 1
                if '"type":"spectators"' in str(raw).replace(" ", ""):
                    got[phase[0] + "-spectators"] += 1

    async def quiet(max_wait: float) -> None:
        deadline = time.perf_counter() + max_wait
        last = -1
        while time.perf_counter() < deadline:
            now = sum(got.values())
            if now == last:
                return
            last = now
            await asyncio.sleep(2.0)

    async with serving(ctx) as (srv,):
        game_id, _players, _ = await start_game(srv, "exxit", {"variant": "beginner"})
        limit = asyncio.Semaphore(20)

        async def join() -> None:
            async with limit:
                try:
                    ws = await ws_connect(srv, f"/ws/games/{game_id}")
                except Exception as exc:
                    outcomes[refusal(exc)] += 1
                    return
                sockets.append(ws)
                readers.append(asyncio.create_task(read(ws)))
                outcomes["connected"] += 1

        start = time.perf_counter()
        with RssSampler(srv) as sampler:
            await asyncio.gather(*(join() for _ in range(watchers)))
            await quiet(60)
            joined_in = time.perf_counter() - start
            alive = sum(1 for ws in sockets if ws.close_code is None)
            phase[0] = "leave"

            async def leave(ws: ClientConnection) -> None:
                async with limit:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.close(), 10)

            await asyncio.gather(*(leave(ws) for ws in sockets))
            await quiet(30)
            for task in readers:
                task.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
        cpu, _ = srv.cpu()
        total = got["join"] + got["leave"]
        return (
            f"{watchers} watchers joining one game: {outcomes['connected']} connected, "
            f"{alive} still open after joining; messages received by all watchers "
            f"{got['join']:,} while joining ({got['join-spectators']:,} spectator counts, "
            f"{joined_in:.0f} s) + {got['leave']:,} while leaving = {total:,}; server peak RSS "
            f"{sampler.peak:.0f} MiB, CPU {cpu:.1f} s; refused {counts(outcomes - Counter(connected=outcomes['connected']))}"
            f" | issue: 800 watchers -> 339k messages | tracebacks {srv.tracebacks()}"
        )


# ---------------------------------------------------------------------------------------------
# 7. slowloris


async def probe_slowloris(ctx: Context) -> str:
    connections = ctx.scale(300, 100)
    seconds = ctx.scale(65.0, 25.0)
    every = 5.0
    request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4000
    states: Counter[str] = Counter()
    async with serving(ctx) as (srv,):
        deadline = time.perf_counter() + seconds

        async def trickle() -> None:
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", srv.server.port), WS_TIMEOUT
                )
            except Exception as exc:
                states[f"connect {refusal(exc)}"] += 1
                return
            answered = False
            try:
                for byte in request:
                    writer.write(bytes([byte]))
                    await writer.drain()
                    left = deadline - time.perf_counter()
                    if left <= 0:
                        break
                    try:
                        data = await asyncio.wait_for(reader.read(1024), min(every, left))
                    except TimeoutError:
                        continue
                    if not data:
                        states["closed by server" + (" after answering" if answered else "")] += 1
                        return
                    answered = True
                states["still open" + (" (answered)" if answered else "")] += 1
            except (ConnectionError, OSError) as exc:
                states[f"reset ({type(exc).__name__})"] += 1
            finally:
                writer.close()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(writer.wait_closed(), 2)

        tasks = [asyncio.create_task(trickle()) for _ in range(connections)]
        await asyncio.sleep(min(10.0, seconds / 2))
        start = time.perf_counter()
        async with client(srv) as http:
            try:
                health = (await http.get("/healthz")).status_code
                health_text = f"/healthz meanwhile {health} in {ms(time.perf_counter() - start)}"
            except httpx.HTTPError as exc:
                health_text = f"/healthz meanwhile {type(exc).__name__}"
        await asyncio.gather(*tasks)
        open_count = states["still open"] + states["still open (answered)"]
        return (
            f"{connections} connections trickling a header byte every {every:g} s: {open_count} "
            f"still open after {seconds:g} s{' (--quick: fewer, shorter)' if ctx.quick else ''}; "
            f"{counts(states)}; {health_text} | issue: 300 of 300 open after 65 s"
            f" | tracebacks {srv.tracebacks()}"
        )


# ---------------------------------------------------------------------------------------------
# 8. imports


def fake_result(i: int) -> dict[str, Any]:
    return {
        "format": "hexmoot-record/1",
        "game": "exxit",
        "options": {"variant": "beginner"},
        "players": [{"seat": 1, "name": f"A{i}"}, {"seat": 2, "name": f"B{i}"}],
        "moves": [],
        "result": {"winner": 1, "colour": None, "reason": "resignation", "scores": None},
    }


async def probe_imports(ctx: Context) -> str:
    total = 300
    statuses: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    async with serving(ctx) as (srv,), client(srv) as anonymous:
        start = time.perf_counter()
        for i in range(total):
            try:
                answer = await anonymous.post("/api/archive/import", json=fake_result(i))
            except httpx.HTTPError as exc:
                statuses[type(exc).__name__] += 1
                continue
            statuses[str(answer.status_code)] += 1
            if answer.status_code >= 400:
                with contextlib.suppress(Exception):
                    codes[answer.json()["error"]["code"]] += 1
        wall = time.perf_counter() - start
        accepted = statuses["201"]
        archive = (await anonymous.get("/api/archive", params={"limit": 100})).json()
        return (
            f"{total} fake 'A beat B' imports from one anonymous client: {accepted} accepted "
            f"({accepted / wall:.0f}/s, {total / wall:.0f} requests/s); answers {counts(statuses)}"
            f"{'; codes ' + counts(codes) if codes else ''}; first archive page "
            f"{len(archive.get('games', []))} games | issue: 300 accepted at 155/s"
            f" | tracebacks {srv.tracebacks()}"
        )


# ---------------------------------------------------------------------------------------------
# 9. redis


class RedisServer:
    """A redis-server of the probe's own on a free port (no persistence)."""

    def __init__(self, log: Path) -> None:
        self.port = free_port()
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no"),
            ],
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket_to(self.port) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


@contextlib.contextmanager
def socket_to(port: int) -> Iterator[Any]:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
        yield s


async def http_move(
    players: dict[int, httpx.AsyncClient],
    game_id: str,
    rng: random.Random,
    tag: str,
    pos: Position | None = None,
) -> tuple[str, int | None]:
    """One HTTP move by the seat to move (of ``pos``, else read fresh); its answer and version."""
    if pos is None:
        pos = await position(players[1], game_id)
    if pos.to_move is None:
        return "game over", None
    text = pick_move(pos.rules, pos.state, rng)
    answer = await players[pos.to_move].post(
        f"/api/games/{game_id}/moves",
        json={"move": text, "version": pos.version, "msg_id": tag},
    )
    code = ""
    if answer.status_code >= 400:
        with contextlib.suppress(Exception):
            code = " " + answer.json()["error"]["code"]
    return f"{answer.status_code}{code}", pos.version + 1


async def _watch(srv: Running, game_id: str, wait: float = WS_TIMEOUT) -> Reader:
    """A spectator socket that has received its first message."""
    reader = Reader(await ws_connect(srv, f"/ws/games/{game_id}"))
    try:
        await reader.next(lambda m: m.get("type") in ("snapshot", "catchup"), wait)
    except BaseException:
        await reader.close()
        raise
    return reader


async def probe_redis(ctx: Context) -> str:
    redis = RedisServer(ctx.logs / "redis-redis-server.log")
    redis.start()
    rng = random.Random(9)
    try:
        env = {"REDIS_URL": f"redis://127.0.0.1:{redis.port}/0"}
        async with serving(ctx, "postgres", env, count=2) as (one, two):
            game_id, players, _ = await start_game(one, "valaturna", {"side": 7})
            watcher = await _watch(two, game_id)
            status, version = await http_move(players, game_id, rng, "before")
            start = time.perf_counter()
            assert version is not None
            await watcher.next(is_event(version), 10)
            before = f"before: move {status}, on process 2 in {ms(time.perf_counter() - start)}"
            pos = await position(players[1], game_id)

            await asyncio.to_thread(redis.kill)
            killed = time.perf_counter()
            await asyncio.sleep(1.0)
            try:
                during_move, _ = await asyncio.wait_for(
                    http_move(players, game_id, rng, "during", pos), 20
                )
            except Exception as exc:
                during_move = refusal(exc)
            async with client(one) as probe_client:
                try:
                    health = await probe_client.get("/healthz", timeout=15)
                    during_health = f"{health.status_code} {health.text}"
                except httpx.HTTPError as exc:
                    during_health = type(exc).__name__
            try:
                fresh = await _watch(two, game_id, 12)
                during_socket = "accepted"
                await fresh.close()
            except Exception as exc:
                during_socket = f"failed ({refusal(exc)})"
            await asyncio.sleep(max(0.0, 6.0 - (time.perf_counter() - killed)))
            outage = time.perf_counter() - killed

            # After the restart, each try: a new socket on process 2, a move on process 1, and
            # whether the move reaches the new socket and the one open since before the outage.
            await asyncio.to_thread(redis.start)
            restarted = time.perf_counter()
            # When both processes' listeners are back (their /healthz says ok again).
            healthy: dict[str, float] = {}
            while time.perf_counter() - restarted < 30 and len(healthy) < 2:
                for name, running in (("1", one), ("2", two)):
                    if name in healthy:
                        continue
                    async with client(running) as health_client:
                        with contextlib.suppress(httpx.HTTPError):
                            answer = await health_client.get("/healthz", timeout=2)
                            if answer.json().get("status") == "ok":
                                healthy[name] = time.perf_counter() - restarted
                await asyncio.sleep(0.05)
            back = ", ".join(f"process {n} {t:.2f} s" for n, t in sorted(healthy.items()))
            after: Counter[str] = Counter()
            reached: dict[str, float] = {}
            tries = 0
            window = ctx.scale(60.0, 30.0)
            while time.perf_counter() - restarted < window and len(reached) < 2:
                tries += 1
                try:
                    new: Reader | None = await _watch(two, game_id, 5)
                except Exception as exc:
                    new = None
                    after[f"new socket on 2 {refusal(exc)}"] += 1
                try:
                    status, version = await asyncio.wait_for(
                        http_move(players, game_id, rng, f"after{tries}"), 20
                    )
                except Exception as exc:
                    status, version = refusal(exc), None
                after[f"move {status}"] += 1
                if version is not None and status.startswith("200"):
                    for name, reader in (("old", watcher), ("new", new)):
                        if reader is None or name in reached:
                            continue
                        with contextlib.suppress(Exception):
                            await reader.next(is_event(version), 3)
                            reached[name] = time.perf_counter() - restarted
                if new is not None:
                    await new.close()
                if len(reached) < 2:
                    await asyncio.sleep(0.5)
            await watcher.close()
            for http in players.values():
                await http.aclose()

            def flow(name: str) -> str:
                return f"{reached[name]:.1f} s" if name in reached else f"never within {window:g} s"

            return (
                f"Redis killed for {outage:.0f} s under 2 processes on PostgreSQL: {before}; "
                f"during the outage: HTTP move {during_move}, /healthz {during_health}, new "
                f"socket on process 2 {during_socket}; after the restart, /healthz ok again on "
                f"{back or 'neither within 30 s'}, then a move on process 1 "
                f"reached a new socket on process 2 after {flow('new')}, the socket open since "
                f"before the outage after {flow('old')} ({counts(after)})"
                f" | issue: no move acknowledged, moves 500, /healthz ok, sockets fail"
                f" | tracebacks {one.tracebacks()} + {two.tracebacks()}"
            )
    finally:
        redis.kill()


# ---------------------------------------------------------------------------------------------
# 10. reconnect


async def probe_reconnect(ctx: Context) -> str:
    tries = ctx.scale(60, 30)
    rng = random.Random(10)
    outcomes: Counter[str] = Counter()
    twice = 0
    async with serving(ctx) as (srv,):
        game_id, players, _ = await start_game(srv, "valaturna", {"side": 7})
        for i in range(tries):
            try:
                pos = await position(players[1], game_id)
                if pos.to_move is None:
                    game_id, players, _ = await start_game(srv, "valaturna", {"side": 7})
                    pos = await position(players[1], game_id)
                assert pos.to_move is not None
                cookie = cookie_of(players[pos.to_move])
                path = f"/ws/games/{game_id}"
                text = pick_move(pos.rules, pos.state, rng)
                msg_id = f"rc{i}"
                move = json.dumps(
                    {"type": "move", "move": text, "version": pos.version, "msg_id": msg_id}
                )
                ws = await ws_connect(srv, path, cookie)
                await asyncio.wait_for(ws.recv(), WS_TIMEOUT)  # snapshot
                await ws.send(move)
                await asyncio.wait_for(ws.close(), 5)
                again = Reader(await ws_connect(srv, f"{path}?since={pos.version}", cookie))
                seen: Counter[int] = Counter()
                _, first = await again.next(lambda m: True)
                if first.get("type") == "catchup":
                    seen.update(e["version"] for e in first["events"])
                else:
                    seen.update(range(pos.version + 1, first.get("version", 0) + 1))
                await again.connection.send(move)  # the ack had not arrived: resend, as told
                deadline = time.perf_counter() + 3.0
                acked = False
                while time.perf_counter() < deadline:
                    try:
                        _, message = await again.next(lambda m: True, 0.5 if acked else 3.0)
                    except TimeoutError:
                        break
                    if message.get("type") == "event":
                        seen[message["version"]] += 1
                    elif message.get("msg_id") == msg_id:
                        acked = True
                        outcomes[answer_text(message)] += 1
                await again.close()
                if any(n > 1 for n in seen.values()):
                    twice += 1
            except Exception as exc:
                outcomes[f"failed ({refusal(exc)})"] += 1
        for http in players.values():
            await http.aclose()
        return (
            f"{tries} tries of move -> drop socket -> reconnect since=V -> resend: {twice} "
            f"received an event twice; answers to the resend {counts(outcomes)}"
            f" | issue: 15 of 60 twice | tracebacks {srv.tracebacks()}"
        )


# ---------------------------------------------------------------------------------------------
# 11. msgid


async def _mover_socket(srv: Running, game_id: str, http: httpx.AsyncClient) -> Reader:
    reader = Reader(await ws_connect(srv, f"/ws/games/{game_id}", cookie_of(http)))
    await reader.next(lambda m: m.get("type") in ("snapshot", "catchup"))
    return reader


async def _ws_move(
    reader: Reader,
    pos: Position,
    rng: random.Random,
    msg_id: str,
    text: str | None = None,
    version: int | None = None,
) -> dict[str, Any]:
    text = text or pick_move(pos.rules, pos.state, rng)
    await reader.connection.send(
        json.dumps(
            {
                "type": "move",
                "move": text,
                "version": pos.version if version is None else version,
                "msg_id": msg_id,
            }
        )
    )
    _, answer = await reader.next(answers(msg_id))
    return answer


async def probe_msgid(ctx: Context) -> str:
    rng = random.Random(11)
    async with serving(ctx) as (srv,):
        # A resign under the id of an earlier move.
        game_id, players, _ = await start_game(srv, "valaturna", {"side": 7})
        sockets = {seat: await _mover_socket(srv, game_id, players[seat]) for seat in (1, 2)}
        pos = await position(players[1], game_id)
        assert pos.to_move is not None
        mover = pos.to_move
        await _ws_move(sockets[mover], pos, rng, "m-1")
        before = await position(players[1], game_id)
        await sockets[mover].connection.send(json.dumps({"type": "resign", "msg_id": "m-1"}))
        _, answer = await sockets[mover].next(answers("m-1"))
        after = await position(players[1], game_id)
        resign = f"{answer_text(answer)} (game {'unchanged' if after.version == before.version else 'CHANGED'})"

        for reader in sockets.values():
            await reader.close()
        for http in players.values():
            await http.aclose()

        # A different move under an old id, sent with that id's version (as a retry is), in a
        # game of its own: the first case may have changed the first game.
        game_id, players, _ = await start_game(srv, "valaturna", {"side": 7})
        sockets = {seat: await _mover_socket(srv, game_id, players[seat]) for seat in (1, 2)}
        first = await position(players[1], game_id)
        first_mover = first.to_move
        assert first_mover is not None
        first_text = pick_move(first.rules, first.state, rng)
        await _ws_move(sockets[first_mover], first, rng, "m-1", text=first_text)
        then = await position(players[1], game_id)
        assert then.to_move is not None
        await _ws_move(sockets[then.to_move], then, rng, "o-1")
        now = await position(players[1], game_id)
        texts = [now.rules.format_move(now.state, m) for m in now.rules.legal_moves(now.state)]
        different = next(t for t in texts if t not in (first_text, "pass"))
        answer = await _ws_move(
            sockets[first_mover], now, rng, "m-1", text=different, version=first.version
        )
        again = await position(players[1], game_id)
        changed = "unchanged" if again.version == now.version else "CHANGED"
        reused = f"{answer_text(answer)} (game {changed})"
        for reader in sockets.values():
            await reader.close()
        for http in players.values():
            await http.aclose()
        local_tracebacks = srv.tracebacks()

    # Fifty retries of one msg_id on two processes at once.
    trials = 50
    pairs: Counter[str] = Counter()
    duplicates = 0
    env = {"REDIS_URL": "redis://127.0.0.1:6379/0", "REDIS_PREFIX": f"probe{secrets.token_hex(4)}:"}
    async with serving(ctx, "postgres", env, count=2) as (one, two):
        game_id, players, _ = await start_game(one, "valaturna", {"side": 7})
        socks = {
            (seat, n): await _mover_socket(srv_, game_id, players[seat])
            for seat in (1, 2)
            for n, srv_ in ((1, one), (2, two))
        }
        for i in range(trials):
            try:
                pos = await position(players[1], game_id)
                if pos.to_move is None:
                    break
                text = pick_move(pos.rules, pos.state, rng)
                msg_id = f"x{i}"
                got = await asyncio.gather(
                    _ws_move(socks[(pos.to_move, 1)], pos, rng, msg_id, text),
                    _ws_move(socks[(pos.to_move, 2)], pos, rng, msg_id, text),
                )
                texts_ = sorted(answer_text(a) for a in got)
                pairs[" + ".join(texts_)] += 1
                if any(a.get("duplicate") is True for a in got):
                    duplicates += 1
            except Exception as exc:
                pairs[f"failed ({refusal(exc)})"] += 1
        for reader in socks.values():
            await reader.close()
        for http in players.values():
            await http.aclose()
        cross_tracebacks = one.tracebacks() + two.tracebacks()
    return (
        f"resign under a move's msg_id: {resign}; different move under an old msg_id: {reused}; "
        f"{trials} retries of one msg_id on two processes at once: {duplicates} got duplicate: "
        f"true ({counts(pairs)}) | issue: both reuses acked as duplicates; 44 of 50 stale_version"
        f" | tracebacks {local_tracebacks} + {cross_tracebacks}"
    )


# ---------------------------------------------------------------------------------------------
# 12. host


SECURITY_HEADERS = (
    "content-security-policy",
    "x-content-type-options",
    "referrer-policy",
    "x-frame-options",
)


async def probe_host(ctx: Context) -> str:
    async with serving(ctx, log_level="info") as (srv,):
        async with client(srv) as http:
            page = await http.get("/", headers={"Host": "evil.example"})
            evil = page.text.count("evil.example")
            present = [h for h in SECURITY_HEADERS if h in page.headers]
            missing = [h for h in SECURITY_HEADERS if h not in page.headers]
            csp = page.headers.get("content-security-policy", "")

        game_id, players, created = await start_game(
            srv, "exxit", {"variant": "beginner"}, public=False
        )
        token = created["join_token"]
        bad = "wrong" * 8
        async with client(srv) as stranger:
            hidden = []
            checks: list[tuple[str, str, dict[str, Any]]] = [
                ("GET", "/api/games/{}", {"params": {"token": bad}}),
                ("POST", "/api/games/{}/join", {"json": {"token": bad}}),
                ("GET", "/games/{}/record.json", {"params": {"token": bad}}),
                ("GET", "/games/{}", {"params": {"token": bad}}),
            ]
            for method, path, extra in checks:
                statuses = [
                    (await stranger.request(method, path.format(g), **extra)).status_code
                    for g in (game_id, "AAAAAAAAAAAA")
                ]
                hidden.append(f"{method} {path.format('ID')} {statuses[0]}/{statuses[1]}")
            # The join token in query strings, as the invite link and the socket carry it.
            await stranger.get(f"/api/games/{game_id}", params={"token": token})
            await stranger.get(f"/games/{game_id}", params={"join": token})
        try:
            ws = await ws_connect(srv, f"/ws/games/{game_id}?token={token}")
            await asyncio.wait_for(ws.recv(), WS_TIMEOUT)
            await asyncio.wait_for(ws.close(), 5)
        except Exception:
            pass
        try:
            ws = await ws_connect(srv, "/ws/live", origin="http://evil.example")
            first = json.loads(await asyncio.wait_for(ws.recv(), WS_TIMEOUT))
            origin = f"accepted ({first.get('type')})"
            await asyncio.wait_for(ws.close(), 5)
        except Exception as exc:
            origin = f"refused ({refusal(exc)})"
        for http_ in players.values():
            await http_.aclose()
        await asyncio.sleep(0.5)
    log = srv.log.read_text(errors="replace")
    leaked = sum(1 for line in log.splitlines() if token in line)
    access = sum(1 for line in log.splitlines() if 'HTTP/1.1" ' in line or '"WebSocket ' in line)
    return (
        f"Host: evil.example: the page names evil.example {evil} times; security headers "
        f"present {present or 'none'}, missing {missing or 'none'}"
        f"{' (CSP ' + csp[:80] + ')' if csp else ''}; a private game with a wrong token vs a "
        f"nonexistent game: {', '.join(hidden)}; websocket with Origin "
        f"http://evil.example {origin}; the join token appears in {leaked} of {access} "
        f"access-log lines (uvicorn at log level info) | issue: <script src=http://evil.example>, "
        f"403 vs 404, foreign origins accepted, tokens logged | tracebacks {srv.tracebacks()}"
    )


# ---------------------------------------------------------------------------------------------


PROBES: dict[str, Callable[[Context], Awaitable[str]]] = {
    "bodies": probe_bodies,
    "frames": probe_frames,
    "replay": probe_replay,
    "create": probe_create,
    "sockets": probe_sockets,
    "spectators": probe_spectators,
    "slowloris": probe_slowloris,
    "imports": probe_imports,
    "redis": probe_redis,
    "reconnect": probe_reconnect,
    "msgid": probe_msgid,
    "host": probe_host,
}
LIMIT = 600.0  # seconds any one probe may take


async def run(names: list[str], ctx: Context) -> None:
    for name in names:
        ctx.probe = name
        start = time.perf_counter()
        try:
            line = await asyncio.wait_for(PROBES[name](ctx), LIMIT)
        except Exception as exc:
            last = traceback.extract_tb(exc.__traceback__)[-1]
            line = f"failed: {exc!r} (at {Path(last.filename).name}:{last.lineno})"
        print(f"{name} [{time.perf_counter() - start:.0f} s]: {line}", flush=True)


def _raise_file_limit() -> None:
    """Thousands of sockets need thousands of descriptors, here and in the server (inherited)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 8192 if hard == resource.RLIM_INFINITY else min(hard, 8192)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def main(argv: list[str] | None = None) -> int:
    """Run the probes; returns the exit code (0 even when the server refuses everything)."""
    parser = argparse.ArgumentParser(prog="python -m tests.load.probe", description=__doc__)
    parser.add_argument("--only", nargs="+", choices=list(PROBES), default=list(PROBES))
    parser.add_argument("--quick", action="store_true", help="smaller and shorter (about 5 min)")
    parser.add_argument("--server-env", nargs="*", default=[], metavar="NAME=VALUE")
    parser.add_argument("--logs", type=Path, default=None, help="keep the servers' logs here")
    args = parser.parse_args(argv)
    _raise_file_limit()
    server_env = dict(pair.partition("=")[::2] for pair in args.server_env)
    with tempfile.TemporaryDirectory(prefix="hexmoot-probe-") as tmp:
        logs = args.logs or Path(tmp) / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        ctx = Context(Path(tmp), logs, args.quick, server_env)
        print(
            f"probe: {', '.join(args.only)}{' (--quick)' if args.quick else ''}; "
            f"pid {os.getpid()}, {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}",
            flush=True,
        )
        asyncio.run(run(args.only, ctx))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
