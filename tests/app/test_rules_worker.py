"""The rules worker process dies with its server, even when the server is killed outright."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil

from tests.support.databases import fresh_database
from tests.support.server import ROOT, LiveServer


def test_a_killed_server_takes_its_rules_worker_with_it(tmp_path: Path) -> None:
    with fresh_database("sqlite", tmp_path) as url:
        server = LiveServer(url, {"RULES_WORKERS": "1"})
        server.start()
        children: list[psutil.Process] = []
        try:
            # Jotun's replays run in the worker: this starts it.
            answer = httpx.post(
                server.url + "/api/replay",
                json={"game": "jotun", "options": {}, "moves": []},
                timeout=60,
            )
            assert answer.status_code == 200, answer.text
            assert server.process is not None
            children = psutil.Process(server.process.pid).children(recursive=True)
            assert children, "the replay should have started a worker process"
            server.kill()
            deadline = time.monotonic() + 30
            alive = children
            while alive and time.monotonic() < deadline:
                alive = [c for c in alive if _alive(c)]
                time.sleep(0.1)
            assert not alive, f"worker processes outlived their server: {alive}"
        finally:
            server.stop()
            for child in children:  # never leave a stray process behind, even on failure
                if child.is_running():
                    child.kill()


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


WATCHED_CHILD = (
    "import sys; from app.runtime.rules import _watch_parent; _watch_parent(int(sys.argv[1]))"
)
PARENT = (
    "import os, subprocess, sys, time\n"
    f"child = subprocess.Popen([sys.executable, '-c', {WATCHED_CHILD!r}, str(os.getpid())])\n"
    "print(child.pid, flush=True)\n"
    "time.sleep(600)\n"
)


def test_without_the_kernels_help_an_orphaned_worker_notices_by_itself() -> None:
    """The fallback for platforms without ``PR_SET_PDEATHSIG``: a thread watching the parent."""
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    child: psutil.Process | None = None
    try:
        assert parent.stdout is not None
        child = psutil.Process(int(parent.stdout.readline()))
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 30
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(child), "the orphaned worker lived on"
    finally:
        parent.kill()
        if child is not None:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()
