"""A ``redis-server`` of the test's own, on a free port, to stop or kill (SIGKILL) and restart.

Tests that take Redis away never touch the shared one on 6379.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.patience import PATIENCE
from tests.support.server import free_port, listens


class RedisServer:
    """A ``redis-server`` of the test's own on a free port, to stop or kill (SIGKILL) and restart
    (on the same port)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no"),
            ],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline and self.process.poll() is None:
            # Ours, not another process that took the port first (ours then exits, ending the loop).
            if listens(self.process.pid, self.port):
                with (
                    contextlib.suppress(OSError),
                    socket.create_connection(("127.0.0.1", self.port)),
                ):
                    return
            time.sleep(0.02)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        """SIGTERM: Redis's own shutdown, which closes every client's connection (it saves
        nothing: no persistence is configured)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait()

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


@contextmanager
def redis_server() -> Iterator[RedisServer]:
    """A started :class:`RedisServer`, killed on exit."""
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.kill()
