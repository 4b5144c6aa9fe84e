"""A PostgreSQL server of the test's own, to stop and start again on the same port (issue 27).

Tests that take the database away never touch the shared server on 5432: :class:`PostgresServer`
runs ``initdb`` into a temporary directory and ``pg_ctl`` on a free port of 127.0.0.1, with trust
authentication, its Unix socket in that directory, and ``fsync`` off (a test's data need not
survive a power cut, only the server's crash). ``initdb`` and ``postgres`` refuse to run as root, so as root they run as the
``postgres`` user (``runuser``), which owns the directory; as anyone else, as that user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from deploy.cluster import ensure_database, free_port, listens, port_is_free
from tests.support.databases import migrate
from tests.support.patience import PATIENCE

#: The server's settings: loopback only; no fsync (the machine does not crash under a test, and
#: the WAL in the OS's cache survives the server's crash). ``synchronous_commit`` stays on: off, an
#: immediate stop (a crash) loses commits already acknowledged, which the tests check never happens.
SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "fsync": "off",
    "full_page_writes": "off",
    "max_connections": "100",
}


def binaries() -> Path:
    """The directory of the newest installed PostgreSQL's programs (Debian's layout), or of the
    ``pg_ctl`` on the PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name))
    if found:
        return Path(found[-1])
    pg_ctl = shutil.which("pg_ctl")
    if pg_ctl is None:
        raise RuntimeError("PostgreSQL's programs (initdb, pg_ctl) are not installed")
    return Path(pg_ctl).parent


class PostgresServer:
    """A PostgreSQL server in a temporary directory on a free port: :meth:`start`, :meth:`stop`
    (fast by default, or immediate) and start again on the same port; :meth:`close` removes it."""

    def __init__(self) -> None:
        self.bin = binaries()
        self.directory = Path(tempfile.mkdtemp(prefix="hexmoot-pg-"))
        self.data = self.directory / "data"
        self.log_path = self.directory / "server.log"
        self.port = free_port()
        self._as_postgres: list[str] = []
        if os.geteuid() == 0:  # initdb and postgres refuse root: run them as postgres
            self._as_postgres = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.directory, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                  "--locale=C", "--no-sync")  # fmt: skip

    def _run(self, program: str, *args: str) -> None:
        command = [*self._as_postgres, str(self.bin / program), *args]
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.directory)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr}{self.log()}")

    def url(self, database: str = "postgres") -> str:
        """A ``postgresql://`` URL of ``database`` on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def log(self) -> str:
        """The server's log so far."""
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def pid(self) -> int | None:
        """The postmaster's pid while it runs."""
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def start(self, attempts: int = 3) -> None:
        """Start the server on its port and wait until it accepts connections. Only the first
        start may move to another port (if another process took the chosen one first); a start
        again stays on the port the URLs given out name."""
        first = self.pid() is None and not self.log_path.exists()
        for attempt in range(attempts):
            options = " ".join(
                [f"-p {self.port}", f"-k {self.directory}"]
                + [f"-c {name}={value}" for name, value in SETTINGS.items()]
            )
            try:
                self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log_path), "-o", options,
                          "-w", "-t", str(int(PATIENCE)), "start")  # fmt: skip
            except RuntimeError:
                if not first or port_is_free(self.port) or attempt == attempts - 1:
                    raise
                self.port = free_port()
                continue
            pid = self.pid()
            if pid is not None and listens(pid, self.port):
                return
            raise RuntimeError(f"postgres is not listening on {self.port}: {self.log()}")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: ``fast`` (sessions are ended, as a restart does) or ``immediate``
        (as a crash)."""
        if self.pid() is None:
            return
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", str(int(PATIENCE)),
                  "stop")  # fmt: skip

    def processes(self) -> list[int]:
        """The postmaster and every process it started (its backends, its workers)."""
        root = self.pid()
        if root is None:
            return []
        found, frontier = [root], [root]
        while frontier:
            parents, frontier = set(frontier), []
            for stat in glob.glob("/proc/[0-9]*/stat"):
                with contextlib.suppress(OSError, ValueError, IndexError):
                    fields = Path(stat).read_text().rsplit(")", 1)[1].split()
                    if int(fields[1]) in parents:
                        frontier.append(int(Path(stat).parent.name))
            found += frontier
        return found

    def freeze(self) -> None:
        """Make the server silent without closing anything (SIGSTOP to all its processes): the
        kernel still completes new TCP connections, and nothing is answered, as a hung server or
        a network that drops packets. :meth:`thaw` lets it go on where it stopped."""
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        """Undo :meth:`freeze` (SIGCONT)."""
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    def create_database(self, name: str = "hexmoot") -> str:
        """A new database ``name`` on this server, migrated (``alembic upgrade head``); its
        SQLAlchemy URL."""
        url = ensure_database(self.url(), name)
        migrate(url)
        return url

    def close(self) -> None:
        """Stop the server at once if it runs, and remove its directory."""
        self.thaw()
        with contextlib.suppress(RuntimeError):
            self.stop("immediate")
        shutil.rmtree(self.directory, ignore_errors=True)


@contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """A started :class:`PostgresServer`, stopped and removed on exit."""
    server = PostgresServer()
    try:
        server.start()
        yield server
    finally:
        server.close()
