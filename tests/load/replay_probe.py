"""Issue 14's replay probe: another player's HTTP move round trip, at rest and under two request
loops of ``POST /api/replay`` on the 697-ply Jotun size-6 record (its costliest window).

    .venv/bin/python -m tests.load.replay_probe

Prints the round trip's p50 and p90 in both phases, the replays' answers and the server's main
process CPU (the replays run in its rules worker, so this is what they cost the event loop).
"""

from __future__ import annotations

import json
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psutil

from tests.support.databases import fresh_database
from tests.support.gameplay import MovePicker
from tests.support.server import live_server

RECORD: dict[str, Any] = json.loads(
    (Path(__file__).parents[1] / "app" / "data" / "jotun-size6-697-plies.json").read_text()
)
REPLAY = {
    "game": "jotun",
    "options": RECORD["options"],
    "moves": RECORD["moves"],
    "from": 665,
    "count": 32,
}
MOVES = 40


def round_trips(url: str, count: int) -> list[float]:
    """Milliseconds of each of ``count`` HTTP moves of an Exxit game between two guests."""
    with (
        httpx.Client(base_url=url, timeout=60) as ann,
        httpx.Client(base_url=url, timeout=60) as bo,
    ):
        ann.put("/api/me", json={"name": "Ann"})
        bo.put("/api/me", json={"name": "Bo"})
        game = ann.post("/api/games", json={"game": "exxit", "options": {}, "seat": 1}).json()
        joined = bo.post(f"/api/games/{game['id']}/join", json={"token": game["join_token"]})
        assert joined.status_code == 200, joined.text
        picker = MovePicker("exxit", {}, seed=1)
        times: list[float] = []
        version = 2
        for i in range(count):
            if picker.to_move() is None:
                break
            who = ann if picker.to_move() == 1 else bo
            text = picker.pick()
            body = {"move": text, "version": version, "msg_id": f"m{i}"}
            start = time.perf_counter()
            answer = who.post(f"/api/games/{game['id']}/moves", json=body)
            times.append((time.perf_counter() - start) * 1000)
            assert answer.status_code == 200, answer.text
            version = answer.json()["version"]
            picker.play(text)
        return times


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    return f"p50 {statistics.median(ordered):.1f} ms, p90 {ordered[int(0.9 * len(ordered))]:.1f} ms"


def main() -> None:
    with (
        tempfile.TemporaryDirectory() as directory,
        fresh_database("sqlite", Path(directory)) as url,
        live_server(url) as server,
    ):
        assert server.process is not None
        rest = round_trips(server.url, MOVES)
        stop = threading.Event()
        answers: list[tuple[int, int]] = []

        def loop() -> None:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                while not stop.is_set():
                    answer = client.post("/api/replay", json=REPLAY)
                    answers.append((answer.status_code, len(answer.content)))

        process = psutil.Process(server.process.pid)
        before = process.cpu_times()
        threads = [threading.Thread(target=loop) for _ in range(2)]
        for thread in threads:
            thread.start()
        while len(answers) < 2:  # both loops under way
            time.sleep(0.05)
        loaded = round_trips(server.url, MOVES)
        stop.set()
        for thread in threads:
            thread.join()
        after = process.cpu_times()
        cpu = (after.user + after.system) - (before.user + before.system)
        print(f"another player's move round trip at rest: {summary(rest)}")
        print(f"under two POST /api/replay loops: {summary(loaded)}")
        statuses = sorted({status for status, _ in answers})
        print(
            f"replays: {len(answers)} (statuses {statuses}), largest answer "
            f"{max(size for _, size in answers)} bytes; server main process CPU meanwhile "
            f"{cpu:.2f} s, {MOVES} moves included"
        )


if __name__ == "__main__":
    main()
