"""A real server process (``app.serve.main``, what ``python -m app.serve`` runs in production) on
a free loopback port; what it prints goes to a file that :meth:`LiveServer.log` reads.

Each server is forked from a process that imported ``app.serve`` once (multiprocessing's
forkserver, started at the first server of a test process), not started by a new interpreter:
importing the app costs about 2.5 s of CPU, and the suite starts well over a hundred servers. The
fork is made from a process with no thread and no event loop, before the server reads its
environment, so each one is what ``python -m app.serve`` would be with that environment.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from pathlib import Path

import httpx

from deploy.cluster import free_port, listens, port_is_free
from tests.support.patience import PATIENCE

ROOT = Path(__file__).resolve().parents[2]


# The modules every server (and every Alembic run) imports, imported once by the forkserver.
PRELOAD = ["app.serve", "alembic.config", "tests.support.server"]
_forkserver: multiprocessing.context.ForkServerContext | None = None
_running: set[BaseProcess] = set()


def _context() -> multiprocessing.context.ForkServerContext:
    global _forkserver
    if _forkserver is None:
        _forkserver = multiprocessing.get_context("forkserver")
        _forkserver.set_forkserver_preload(PRELOAD)
    return _forkserver


def _as_command(env: Mapping[str, str], log_path: str) -> None:
    """Make this forked process what a command run from the project's root would be: ``env`` as
    its whole environment, its output appended to ``log_path``."""
    os.chdir(ROOT)
    os.environ.clear()
    os.environ.update(env)
    fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def _serve(env: Mapping[str, str], log_path: str) -> None:
    """The server process: ``python -m app.serve`` (see :func:`_as_command`)."""
    _as_command(env, log_path)
    from app.serve import main

    main()


def _alembic(env: Mapping[str, str], argv: list[str], log_path: str) -> None:
    """``python -m alembic ARGV`` (see :func:`_as_command`)."""
    _as_command(env, log_path)
    from alembic.config import main

    main(argv=argv, prog="alembic")


def alembic(database_url: str, *argv: str) -> None:
    """Run ``alembic ARGV`` on ``database_url`` in a forked process, as ``python -m alembic`` would
    (its env.py runs its own event loop), and fail with its output if it fails. Forked like the
    servers: a new interpreter spent about a second of CPU importing Alembic and the app."""
    fd, log_path = tempfile.mkstemp(prefix="hexmoot-alembic-", suffix=".log")
    os.close(fd)
    try:
        env = {**os.environ, "DATABASE_URL": database_url}
        process = _context().Process(target=_alembic, args=(env, list(argv), log_path))
        process.start()
        process.join()
        if process.exitcode != 0:
            output = Path(log_path).read_text(errors="replace")
            raise RuntimeError(
                f"alembic {' '.join(argv)} exited with {process.exitcode}:\n{output}"
            )
    finally:
        os.unlink(log_path)


@atexit.register
def _kill_leftovers() -> None:
    """multiprocessing joins a live child at exit: a server a test left running must not hang the
    test process (registered after multiprocessing's own handler, so it runs first)."""
    for process in list(_running):
        if process.is_alive():
            process.kill()
            process.join()


class PortTaken(RuntimeError):
    """uvicorn could not bind its port: another process took it first."""


class OnLoopback:
    """A server listening on ``127.0.0.1:port``: ``url`` is its base HTTP URL, ``ws_url`` its
    websocket base."""

    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


class LiveServer(OnLoopback):
    """One uvicorn child process."""

    def __init__(self, database_url: str, env: Mapping[str, str] | None = None, port: int = 0):
        self.database_url = database_url
        self.port = port or free_port()
        self._choose_port = not port  # until the first start: a later restart keeps its port
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "SECRET_KEY": "test-secret-key-0123456789abcdef",
            "WS_RATE_MESSAGES": "100000",
            # Quiet by default (no access lines); a test of the logs asks for "info".
            "LOG_LEVEL": "warning",
            **(env or {}),
        }
        self.process: BaseProcess | None = None
        # stdout and stderr of every start, appended (a restart keeps the earlier lines).
        fd, name = tempfile.mkstemp(prefix="hexmoot-server-", suffix=".log")
        os.close(fd)
        self.log_path = Path(name)

    def start(self, timeout: float = PATIENCE, attempts: int = 3) -> None:
        """Start the process and wait until ``/healthz`` answers 200.

        Test processes running in parallel (pytest-xdist) pick ports at the same time; if ours was
        taken meanwhile, uvicorn exits at once, and a port of our own choosing is chosen again.
        """
        for attempt in range(attempts):
            try:
                self._start(timeout)
            except PortTaken:
                if not self._choose_port or attempt == attempts - 1:
                    raise
                self.port = free_port()
                self.env["PORT"] = str(self.port)
            else:
                self._choose_port = False
                return

    def _start(self, timeout: float) -> None:
        self.process = _context().Process(
            target=_serve, args=(dict(self.env), str(self.log_path)), name=f"server:{self.port}"
        )
        self.process.start()
        _running.add(self.process)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.process.is_alive():
                if not port_is_free(self.port):
                    raise PortTaken(self.port)
                raise RuntimeError(
                    f"the server exited with {self.process.exitcode}:\n{self.log()[-4000:]}"
                )
            try:
                # The answer must be our process's (see listens()).
                if (
                    httpx.get(self.url + "/healthz", timeout=1.0).status_code == 200
                    and self._listening()
                ):
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the server did not become healthy in time:\n{self.log()[-4000:]}")

    def _listening(self) -> bool:
        assert self.process is not None
        return listens(self.process.pid, self.port)

    def log(self) -> str:
        """Everything the process printed so far (stdout and stderr, every start)."""
        return self.log_path.read_text(errors="replace")

    @property
    def pid(self) -> int:
        """The server's process id (its memory is this process's)."""
        assert self.process is not None and self.process.pid is not None
        return self.process.pid

    def stop(self) -> None:
        """Terminate gracefully (SIGTERM), then kill if it lingers."""
        if self.process is None:
            return
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=10)
            if self.process.is_alive():
                self.process.kill()
                self.process.join()
        _running.discard(self.process)

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers run, as in a crash."""
        if self.process is not None and self.process.is_alive():
            os.kill(self.pid, signal.SIGKILL)
            self.process.join()
        if self.process is not None:
            _running.discard(self.process)


@contextmanager
def live_server(database_url: str, env: Mapping[str, str] | None = None) -> Iterator[LiveServer]:
    """A started :class:`LiveServer`, stopped on exit."""
    server = LiveServer(database_url, env)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        server.log_path.unlink(missing_ok=True)
