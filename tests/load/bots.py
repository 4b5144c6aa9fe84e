"""``python -m tests.load.bots``: how long a bot takes to answer through a real server, per game and
level, and what its search costs everyone else (figures, never pass or fail).

One server (``python -m app.serve`` on a fresh migrated SQLite database, ``BOT_WORKERS=1``). For
each game at its default options and each level, a guest starts a game against the bot
(``POST /api/bots/games``, seat 1) and plays seeded random legal moves on the game socket; the
figure is the time from the ack of the guest's move (or the bot's previous move, when it moves
twice: after its pie choice) to the ``event`` of the bot's answer, over
``--replies`` answers (the pie's setup and choice included). Meanwhile a second guest pings the
server on a socket of its own every 50 ms: the ping's round trip while the bots search says whether
the search stays off the event loop.

    python -m tests.load.bots                    # every game and level, 4 answers each
    python -m tests.load.bots --games exxit --levels hard --replies 10
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from pathlib import Path

import games
from tests.support.databases import fresh_database
from tests.support.gameplay import MovePicker
from tests.support.server import LiveServer
from tests.support.wsclient import GameSocket, TestVisitor

LEVELS = ("beginner", "easy", "medium", "hard")


async def _pinger(socket: GameSocket, rtts: list[float]) -> None:
    while True:
        sent = time.perf_counter()
        await socket.send({"type": "ping"})
        await socket.expect("pong")
        rtts.append(time.perf_counter() - sent)
        await asyncio.sleep(0.05)


async def _replies(url: str, slug: str, level: str, count: int) -> tuple[list[float], str]:
    """The bot's answer times over ``count`` answers (fewer if the game ends); how it ended."""
    ann = await TestVisitor(url).start("Ann")
    times: list[float] = []
    try:
        made = await ann.http.post(
            "/api/bots/games", json={"game": slug, "options": {}, "level": level, "seat": 1}
        )
        made.raise_for_status()
        socket = await ann.open(made.json()["id"])
        version = (await socket.expect("snapshot"))["version"]
        picker = MovePicker(slug, {}, seed=7)
        mark = time.perf_counter()  # the guest's last ack, or the bot's last move
        while len(times) < count:
            if picker.to_move() is None:
                return times, "ended by the rules"
            if picker.to_move() == 1:
                text = picker.pick()
                message = {
                    "type": "move",
                    "move": text,
                    "version": version,
                    "msg_id": f"m{version}",
                }
                await socket.send(message)
                ack = await socket.expect("ack", "error")
                if ack["type"] != "ack":
                    return times, f"refused: {ack['code']}"
                mark = time.perf_counter()
                version = ack["version"]
                picker.play(text)
                continue
            while True:  # the bot's move (after its pie choice it may move again)
                event = await socket.expect("event")
                version = event["version"]
                if event["kind"] == "move" and event["data"]["seat"] == 2:
                    now = time.perf_counter()
                    times.append(now - mark)
                    mark = now
                    picker.play(event["data"]["move"])
                    break
                if event["kind"] == "result":
                    return times, f"ended: {event['data']['reason']}"
        return times, "played"
    finally:
        await ann.close()


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    median, most = statistics.median(ordered) * 1000, ordered[-1] * 1000
    return f"p50 {median:6.0f} ms  p99 {p99 * 1000:6.0f} ms  max {most:6.0f} ms"


async def _run(slugs: list[str], levels: list[str], count: int, url: str) -> None:
    watcher = await TestVisitor(url).start("Watcher")
    idle = await watcher.open_path("/ws/live")
    rtts: list[float] = []
    pinging = asyncio.create_task(_pinger(idle, rtts))
    try:
        for slug in slugs:
            for level in levels:
                before = len(rtts)
                times, how = await _replies(url, slug, level, count)
                pings = rtts[before:]
                print(
                    f"{slug:10} {level:8} answers {len(times):2}  {_ms(times)}"
                    f"   | other socket's ping: {_ms(pings)}  ({how})",
                    flush=True,
                )
    finally:
        pinging.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pinging
        await watcher.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.load.bots", description=__doc__)
    parser.add_argument("--games", nargs="*", default=list(games.names()))
    parser.add_argument("--levels", nargs="*", default=list(LEVELS))
    parser.add_argument("--replies", type=int, default=4)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as directory,
        fresh_database("sqlite", Path(directory)) as database_url,
    ):
        server = LiveServer(database_url, {"BOT_WORKERS": "1"})
        server.start()
        try:
            asyncio.run(_run(args.games, args.levels, args.replies, server.url))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
