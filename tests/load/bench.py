"""``python -m tests.load.bench``: the server under websocket load, a slow rules call, then the
archive at 1,000,000 games; and the flag latency of real-time clocks (deadline to the ``timeout``
event at the player).

Defaults: the target on a 2-core machine with SQLite, 500 games with 2 spectators each (2,000
sockets), at 100 moves per second for 20 s, then at 200, 300 and 400 to show where it saturates;
each rate is a step on a fresh database (``--rates`` picks others). Loopback only; bounded in games
(2,000) and time (300 s a step). Figures, never pass/fail."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import platform
import secrets
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import games
from deploy.cluster import ROOT, Cluster
from tests.load.archive import archive_bench
from tests.load.failover import failover_bench
from tests.load.flags import flag_latency
from tests.load.floor import FloorServer
from tests.load.idle import idle_step
from tests.load.load import Target, load_step
from tests.load.stall import stall_bench
from tests.support.databases import fresh_database
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import LiveServer, live_server

Figures = dict[str, Any]
#: Where a run's figures go unless ``--out`` says otherwise (git ignores ``data/``).
RESULTS = ROOT / "data" / "bench"


class Report:
    """A run's figures: printed as each step ends, written to a JSON file at the end, and compared
    with an earlier run's file step by step (``--compare``)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.steps: list[Figures] = []
        self.ratios: list[Figures] = []
        self.meta = {
            "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "commit": _commit(),
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
            "arguments": {k: v for k, v in vars(args).items() if k not in ("out", "compare")},
        }

    def add(self, section: str, figures: Figures) -> None:
        figures = {"section": section, **figures}
        self.steps.append(figures)
        if section == "load":
            print(f"  {_key(figures):<40} {_describe(figures)}", flush=True)

    def ratio(self, label: str, one: Figures, base: Figures) -> None:
        ratio = {
            "label": label,
            "p50": one["p50_ms"] / base["p50_ms"],
            "p99": one["p99_ms"] / base["p99_ms"],
        }
        self.ratios.append(ratio)
        print(f"  {label}: p50 {ratio['p50']:.1f}x, p99 {ratio['p99']:.1f}x", flush=True)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        body = {**self.meta, "steps": self.steps, "ratios": self.ratios}
        path.write_text(json.dumps(body, indent=1) + "\n")
        print(f"figures written to {path}")

    def compare(self, path: Path) -> None:
        """Each load step of this run against the same step of the run in ``path``."""
        earlier = {
            _key(f): f for f in json.loads(path.read_text())["steps"] if f["section"] == "load"
        }
        print(f"against {path} (this run ÷ that one):")
        for figures in self.steps:
            before = earlier.get(_key(figures)) if figures["section"] == "load" else None
            if before is None:
                continue
            parts = [
                f"{name} {figures[field] / before[field]:.2f}x"
                for name, field in (
                    ("p50", "p50_ms"),
                    ("p99", "p99_ms"),
                    ("moves/s", "moves_per_s"),
                )
                if before[field]
            ]
            print(f"  {_key(figures):<40} " + ", ".join(parts))


def _key(figures: Figures) -> str:
    """A load step's name, the same in every run: target, rate, clocks."""
    clocks = " clocks" if figures.get("clocks") else ""
    return f"{figures['target']} {figures['target_rate']:g}/s{clocks}"


def _describe(figures: Figures) -> str:
    return (
        f"{figures['moves_per_s']:6.1f} moves/s done "
        f"({figures['moves_completed']}/{figures['moves_sent']}), "
        f"round trip p50 {figures['p50_ms']:.2f} ms p99 {figures['p99_ms']:.2f} ms "
        f"max {figures['max_ms']:.1f} ms | server CPU {figures['server_cpu_pct']:.0f}% "
        f"RSS {figures['server_rss_mb']:.0f} MB | generator CPU "
        f"{figures['client_cpu_pct']:.0f}% | {figures['sockets']} sockets"
        + (f" | errors {figures['errors']}" if figures["errors"] else "")
    )


def _commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


def _options(slug: str, pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        options[name] = value
    return games.get(slug, **options).options


async def _load(args: argparse.Namespace, directory: Path, report: Report) -> None:
    options = _options(args.game, args.options)
    print(
        f"load: {args.games} games of {args.game} {options}, 2 players + {args.spectators} "
        f"spectators each, {args.seconds:g} s per step, backend {args.backend}"
    )

    async def step(target: Target, rate: float, control: dict[str, Any] | None = None) -> Figures:
        figures = await load_step(
            target,
            games_count=args.games,
            spectators=args.spectators,
            rate=rate,
            seconds=args.seconds,
            slug=args.game,
            options=options,
            seed=args.seed,
            time_control=control,
        )
        figures["clocks"] = control is not None
        report.add("load", figures)
        return figures

    # Each rate on the floor, then on one process, side by side; then with real-time clocks
    # running (3 hours + 2 s: no game flags during the step, but every move is charged).
    for rate in args.rates:
        with FloorServer() as floor:
            bare = await step(
                Target("floor", floor.url, floor.ws_url, [floor.pid], bare=True), rate
            )
        with fresh_database(args.backend, directory) as url, live_server(url, QUOTAS_OFF) as server:
            one = await step(_one(server), rate)
        report.ratio(f"one process ÷ floor at {rate:g}/s", one, bare)
    for rate in args.clocked_rates:
        with fresh_database(args.backend, directory) as url, live_server(url, QUOTAS_OFF) as server:
            await step(_one(server), rate, CLOCKED)
    # The production shape: nginx in front of N processes on PostgreSQL and Redis.
    for rate in args.cluster_rates:
        with fresh_database("postgres", directory) as url, _cluster(url, args.processes) as cluster:
            target = Target(
                f"cluster of {args.processes}",
                cluster.url,
                cluster.url.replace("http", "ws", 1),
                [cluster.nginx.pid, *(app.pid for app in cluster.apps)],
                sources=SOURCES,
            )
            await step(target, rate)


def _one(server: LiveServer) -> Target:
    backend = "sqlite" if server.database_url.startswith("sqlite") else "postgres"
    return Target(f"one process {backend}", server.url, server.ws_url, [server.pid])


@contextlib.contextmanager
def _cluster(url: str, processes: int) -> Iterator[Cluster]:
    env = {**QUOTAS_OFF, "WS_RATE_MESSAGES": "100000", "LOG_LEVEL": "warning"}
    prefix = f"bench-{secrets.token_hex(4)}:"
    with Cluster(
        url, secret_key=secrets.token_urlsafe(32), processes=processes, redis_prefix=prefix, env=env
    ) as cluster:
        yield cluster


#: The cluster's clients come from 40 loopback addresses: nginx allows 320 connections at once
#: per address (deploy/nginx.conf), a real site's clients come from many.
SOURCES = tuple(f"127.0.0.{n}" for n in range(2, 42))


async def _idle(args: argparse.Namespace, directory: Path, report: Report) -> None:
    with fresh_database(args.backend, directory) as url, live_server(url, QUOTAS_OFF) as server:
        target = _one(server)
        target.sources = SOURCES
        figures = await idle_step(target, args.idle, 500, args.seed)
    report.add("idle", figures)
    print(
        f"  {figures['sockets']} sockets: server RSS {figures['rss_before_mb']:.0f} MB before, "
        f"{figures['rss_after_mb']:.0f} MB after ({figures['kb_per_socket']:.1f} KB a socket)"
    )


async def _failover(args: argparse.Namespace, directory: Path, report: Report) -> None:
    with fresh_database("postgres", directory) as url, _cluster(url, args.processes) as cluster:
        for figures in await failover_bench(cluster, args.failover_games, args.seed):
            report.add("failover", figures)
            print(
                f"  {figures['failure']}: {figures['dropped']} of {figures['sockets']} sockets "
                f"dropped, back in p50 {figures['p50_ms']:.0f} ms p99 {figures['p99_ms']:.0f} ms "
                f"max {figures['max_ms']:.0f} ms"
                + (f", {figures['still_down']} still down" if figures["still_down"] else "")
            )


CLOCKED = {"kind": "realtime", "base": 10_800, "increment": 2}


async def _flags(args: argparse.Namespace, directory: Path, report: Report) -> None:
    with fresh_database(args.backend, directory) as url, live_server(url, QUOTAS_OFF) as server:
        figures = await flag_latency(
            server, args.flag_games, args.flag_spread, "exxit", {"variant": "beginner"}, args.seed
        )
    print(
        f"  {figures['games']} games flagged: deadline to the timeout event at the player, "
        f"p50 {figures['p50_ms']:.0f} ms p99 {figures['p99_ms']:.0f} ms "
        f"max {figures['max_ms']:.0f} ms (min {figures['min_ms']:.0f} ms)"
    )
    report.add("flags", figures)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m tests.load.bench", description=__doc__)
    parser.add_argument(
        "--only", choices=["load", "idle", "failover", "flags", "stall", "archive"], default=None
    )
    parser.add_argument(
        "--clocked-rates",
        type=lambda s: [float(x) for x in s.split(",") if x],
        default=[100.0, 200.0],
        help="the load rates run again with real-time clocks running",
    )
    parser.add_argument("--flag-games", type=int, default=200)
    parser.add_argument("--flag-spread", type=float, default=10.0)
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--spectators", type=int, default=2)
    parser.add_argument(
        "--rates",
        type=lambda s: [float(x) for x in s.split(",")],
        default=[100.0, 200.0, 300.0, 400.0],
    )
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--game", default="exxit", choices=games.names())
    parser.add_argument("--options", nargs="*", default=[], metavar="NAME=VALUE")
    parser.add_argument("--archive-games", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cluster-rates",
        type=lambda s: [float(x) for x in s.split(",") if x],
        default=[100.0, 200.0, 300.0, 400.0],
        help="the load rates run on the cluster (nginx, N processes, PostgreSQL, Redis)",
    )
    parser.add_argument("--processes", type=int, default=2, help="the cluster's app processes")
    parser.add_argument("--idle", type=int, default=10_000, help="idle sockets on one process")
    parser.add_argument("--failover-games", type=int, default=250, help="games (2 sockets each)")
    parser.add_argument("--out", type=Path, default=None, help="the JSON file of the figures")
    parser.add_argument("--compare", type=Path, default=None, help="an earlier run's JSON file")
    args = parser.parse_args(argv)
    report = Report(args)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = args.out or RESULTS / f"bench-{stamp}.json"
    with tempfile.TemporaryDirectory(prefix="hexmoot-bench-") as tmp:
        directory = Path(tmp)
        if args.only in (None, "load"):
            asyncio.run(_load(args, directory, report))
        if args.only in (None, "idle"):
            print(f"idle: {args.idle} spectator sockets on one process, backend {args.backend}")
            asyncio.run(_idle(args, directory, report))
        if args.only in (None, "failover"):
            print(
                f"failover: {args.failover_games} games with both players' sockets through nginx, "
                f"{args.processes} processes; reconnection from the failure to the catch-up"
            )
            asyncio.run(_failover(args, directory, report))
        if args.only in (None, "flags"):
            print(f"flags: {args.flag_games} games of 30+0 left to run out, {args.backend}")
            asyncio.run(_flags(args, directory, report))
        if args.only in (None, "stall"):
            print("stall: one slow Jotun click while another socket pings, rules inline vs worker")
            for run in asyncio.run(stall_bench(args.backend, directory, min(args.repeat, 3))):
                report.add("stall", run)
        if args.only in (None, "archive"):
            with fresh_database(args.backend, directory) as url:
                asyncio.run(archive_bench(url, args.archive_games, args.repeat, args.seed))
    report.write(out)
    if args.compare is not None:
        report.compare(args.compare)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
