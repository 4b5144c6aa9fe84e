"""``python -m tests.load.bench``: the server under websocket load, a slow rules call, then the
archive at 100,000 games; and the flag latency of real-time clocks (deadline to the ``timeout``
event at the player).

Defaults: the target on a 2-core machine with SQLite, 500 games with 2 spectators each (2,000
sockets), at 100 moves per second for 20 s, then at 200, 300 and 400 to show where it saturates;
each rate is a step on a fresh database (``--rates`` picks others). Loopback only; bounded in games
(2,000) and time (300 s a step). Figures, never pass/fail."""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import games
from tests.load.archive import archive_bench
from tests.load.flags import flag_latency
from tests.load.load import load_step
from tests.load.stall import stall_bench
from tests.support.databases import fresh_database
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import live_server


def _options(slug: str, pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        options[name] = value
    return games.get(slug, **options).options


async def _load(args: argparse.Namespace, directory: Path) -> None:
    options = _options(args.game, args.options)
    print(
        f"load: {args.games} games of {args.game} {options}, 2 players + {args.spectators} "
        f"spectators each, {args.seconds:g} s per step, backend {args.backend}"
    )
    # Each rate without clocks, then with real-time clocks running (3 hours + 2 s: no game
    # flags during the step, but every move is charged), side by side in one run.
    steps = [(rate, None) for rate in args.rates]
    steps += [(rate, CLOCKED) for rate in args.clocked_rates]
    for rate, control in steps:
        with fresh_database(args.backend, directory) as url, live_server(url, QUOTAS_OFF) as server:
            figures = await load_step(
                server,
                games_count=args.games,
                spectators=args.spectators,
                rate=rate,
                seconds=args.seconds,
                slug=args.game,
                options=options,
                seed=args.seed,
                time_control=control,
            )
        label = "clocks" if control else "no clock"
        print(
            f"  rate {rate:>5g}/s {label:>8}: {figures['moves_per_s']:6.1f} moves/s done "
            f"({figures['moves_completed']}/{figures['moves_sent']}), "
            f"round trip p50 {figures['p50_ms']:.1f} ms p99 {figures['p99_ms']:.1f} ms "
            f"max {figures['max_ms']:.1f} ms | server CPU {figures['server_cpu_pct']:.0f}% "
            f"RSS {figures['server_rss_mb']:.0f} MB | generator CPU "
            f"{figures['client_cpu_pct']:.0f}% | {figures['sockets']} sockets"
            + (f" | errors {figures['errors']}" if figures["errors"] else "")
        )
        if args.json:
            print(json.dumps(figures))


CLOCKED = {"kind": "realtime", "base": 10_800, "increment": 2}


async def _flags(args: argparse.Namespace, directory: Path) -> None:
    with fresh_database(args.backend, directory) as url, live_server(url, QUOTAS_OFF) as server:
        figures = await flag_latency(
            server, args.flag_games, args.flag_spread, "exxit", {"variant": "beginner"}, args.seed
        )
    print(
        f"  {figures['games']} games flagged: deadline to the timeout event at the player, "
        f"p50 {figures['p50_ms']:.0f} ms p99 {figures['p99_ms']:.0f} ms "
        f"max {figures['max_ms']:.0f} ms (min {figures['min_ms']:.0f} ms)"
    )
    if args.json:
        print(json.dumps(figures))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m tests.load.bench", description=__doc__)
    parser.add_argument("--only", choices=["load", "flags", "stall", "archive"], default=None)
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
    parser.add_argument("--archive-games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="also print each step as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hexmoot-bench-") as tmp:
        directory = Path(tmp)
        if args.only in (None, "load"):
            asyncio.run(_load(args, directory))
        if args.only in (None, "flags"):
            print(f"flags: {args.flag_games} games of 30+0 left to run out, {args.backend}")
            asyncio.run(_flags(args, directory))
        if args.only in (None, "stall"):
            print("stall: one slow Jotun click while another socket pings, rules inline vs worker")
            asyncio.run(stall_bench(args.backend, directory, min(args.repeat, 3)))
        if args.only in (None, "archive"):
            with fresh_database(args.backend, directory) as url:
                asyncio.run(archive_bench(url, args.archive_games, args.repeat, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
