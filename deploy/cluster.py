"""The production topology on one machine, without Docker: ``make cluster`` runs
``python -m deploy.cluster``, and tests and the benchmark drive the same :class:`Cluster`.

What ``compose.yaml`` runs in containers, here as processes of this machine:

- a PostgreSQL database of the cluster's own on the local server (``hexmoot_cluster``, made if
  absent: :func:`ensure_database`), migrated once before any app process starts (compose: the
  ``migrate`` service);
- the processed copy of ``static/`` that nginx serves, ``python -m app.static_files build``
  (compose: the ``static`` service);
- N app processes, ``python -m app.serve`` on loopback ports, sharing that database and the local
  Redis under a prefix of their own, each believing ``X-Forwarded-For`` from the proxy's address
  only (``FORWARDED_ALLOW_IPS``);
- nginx from Debian's package in front, in the foreground, with ``deploy/nginx.conf`` itself: a
  link to it in a temporary prefix directory, beside the two includes written for this machine
  (where nginx listens, and the app processes' addresses) and nginx's pid and scratch files.

Ctrl-C stops everything, nginx first. The children run in sessions of their own, so the terminal's
interrupt reaches this launcher only, which stops them in that order. If the launcher itself is
killed (SIGKILL, nothing of it runs), the kernel sends each child SIGTERM (``PR_SET_PDEATHSIG``):
nothing is left listening on the cluster's ports.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import create_async_engine

ROOT = Path(__file__).resolve().parent.parent
#: prctl(2)'s option: the signal a process receives when the thread that started it ends.
PR_SET_PDEATHSIG = 1
NGINX_CONF = Path(__file__).resolve().with_name("nginx.conf")
#: The address nginx connects to the app processes from, the one proxy they believe.
PROXY_ADDRESS = "127.0.0.1"
POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS = "redis://127.0.0.1:6379/0"
#: Where ``make cluster`` keeps the SECRET_KEY it made, when the environment has none (git ignores
#: ``data/``): guests stay signed in across runs.
SECRET_FILE = ROOT / "data" / "cluster-secret-key"


class ClusterError(RuntimeError):
    """A part of the cluster could not be started."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (another process may take it first: the cluster
    then chooses again)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def port_is_free(port: int) -> bool:
    """Whether 127.0.0.1:``port`` can be bound now."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` listens on TCP ``port``, read from Linux's ``/proc`` (elsewhere,
    taken as true). A server that answers on its port is ours only if this holds: another process
    may take the port between :func:`free_port` and our bind, and answer while ours exits."""
    if not Path("/proc").is_dir():
        return True
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:  # it exited
        return False
    inodes = set()
    for fd in descriptors:
        with contextlib.suppress(OSError):  # closed meanwhile
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link.startswith("socket:["):
                inodes.add(link[len("socket:[") : -1])
    for table in ("tcp", "tcp6"):
        try:
            rows = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:  # sl, local address:port (hex), remote, state, ..., inode (10th)
            fields = row.split()
            if len(fields) < 10:
                continue
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port and inode in inodes:
                return True  # 0A: LISTEN
    return False


def find_nginx() -> str:
    """The nginx binary (Debian puts it in /usr/sbin, which a user's PATH may lack)."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise ClusterError("nginx is not installed: `make nginx` installs Debian's package")
    return found


def ensure_database(server: str, name: str) -> str:
    """The SQLAlchemy URL of database ``name`` on the PostgreSQL ``server`` (a ``postgresql://``
    URL of a database to connect to first), created if it does not exist."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        raise ClusterError(f"not a plain database name: {name!r}")
    admin = server.replace("postgresql://", "postgresql+asyncpg://", 1)

    async def create() -> None:
        # CREATE DATABASE cannot run inside a transaction.
        engine = create_async_engine(admin, isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as conn:
                exists = await conn.scalar(
                    text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name}
                )
                if not exists:
                    await conn.execute(text(f'CREATE DATABASE "{name}"'))
        finally:
            await engine.dispose()

    try:
        asyncio.run(create())
    except (OSError, SQLAlchemyError) as error:
        raise ClusterError(f"cannot make database {name!r} on {server}: {error}") from error
    return f"{admin.rsplit('/', 1)[0]}/{name}"


def secret_key(path: Path = SECRET_FILE) -> str:
    """SECRET_KEY from the environment, else the one kept in ``path``, made there the first time."""
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_urlsafe(32))
    return path.read_text().strip()


def run_step(what: str, command: list[str], env: Mapping[str, str]) -> None:
    """Run a one-shot step to the end; its output is shown only if it fails."""
    done = subprocess.run(command, cwd=ROOT, env=dict(env), capture_output=True, text=True)
    if done.returncode != 0:
        raise ClusterError(f"{what} failed ({done.returncode}):\n{done.stdout}{done.stderr}")


def _terminated_with(parent: int) -> Callable[[], None]:
    """What a child runs before its command: SIGTERM once the thread that started it ends (Linux's
    ``PR_SET_PDEATHSIG``), or now if ``parent`` is already gone."""

    def arrange() -> None:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the line above
            os.kill(os.getpid(), signal.SIGTERM)

    return arrange


class Child:
    """One long-running process of the cluster: its output goes, line by line, to ``log_path``
    (and to this process's stdout, each line after the child's name, when ``echo``).

    ``bound``: the child is sent SIGTERM when the thread that starts it ends (the launcher killed).
    Only for children started from a thread that lives as long as the cluster (the main one)."""

    def __init__(
        self,
        name: str,
        command: list[str],
        env: Mapping[str, str],
        log_path: Path,
        echo: bool,
        bound: bool = False,
    ) -> None:
        self.name = name
        self.command = command
        self.env = dict(env)
        self.log_path = log_path
        self.echo = echo
        self.bound = bound
        self.process: subprocess.Popen[bytes] | None = None
        self._pump: threading.Thread | None = None

    def start(self) -> None:
        """Start the process (in a session of its own: a Ctrl-C meant for the launcher spares it)."""
        self.process = subprocess.Popen(
            self.command,
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_terminated_with(os.getpid()) if self.bound else None,
        )
        assert self.process.stdout is not None
        self._pump = threading.Thread(target=self._copy, args=(self.process.stdout,), daemon=True)
        self._pump.start()

    def _copy(self, output: IO[bytes]) -> None:
        with self.log_path.open("ab") as log:
            for line in output:
                log.write(line)
                log.flush()
                if self.echo:
                    sys.stdout.write(f"{self.name:>6} | {line.decode(errors='replace')}")
                    sys.stdout.flush()

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def log(self) -> str:
        """Everything the process printed so far (every start of it)."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (a graceful stop for the app, a fast one for nginx), SIGKILL if it lingers."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._join()

    def kill(self) -> None:
        """SIGKILL: nothing of the process's own shutdown runs, as in a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._join()

    def _join(self) -> None:
        if self._pump is not None:
            self._pump.join(timeout=5)
            self._pump = None


class AppProcess(Child):
    """``python -m app.serve`` on 127.0.0.1:``port``."""

    def __init__(
        self,
        name: str,
        port: int,
        env: Mapping[str, str],
        log_path: Path,
        echo: bool,
        bound: bool = False,
    ):
        super().__init__(name, [sys.executable, "-m", "app.serve"], env, log_path, echo, bound)
        self.port = port
        self.env.update({"HOST": "127.0.0.1", "PORT": str(port)})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def restart(self, timeout: float) -> None:
        """Stop the process and start it again on the same port (a deploy's step)."""
        self.stop()
        self.start()
        wait_until(self, self.url + "/healthz", timeout)


def answers(url: str) -> bool:
    """Whether ``url`` answers 200 now."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def wait_until(child: Child, url: str, timeout: float) -> None:
    """Wait until ``url`` answers 200 from ``child`` itself (:func:`listens`); :class:`ClusterError`
    if ``child`` exits first, or after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    port = urllib.parse.urlsplit(url).port
    assert port is not None, url
    while not (answers(url) and listens(child.pid, port)):
        if not child.running():
            raise ClusterError(f"{child.name} exited:\n{child.log()[-4000:]}")
        if time.monotonic() > deadline:
            raise ClusterError(f"{child.name} did not answer {url} in time:\n{child.log()[-4000:]}")
        time.sleep(0.05)


class Cluster:
    """nginx on 127.0.0.1:``port`` (0: a free port) in front of ``processes`` app processes on
    ``database_url`` and the Redis at ``redis_url``; ``env`` adds to (or overrides) the app
    processes' environment. :meth:`start` and :meth:`stop`, or use it as a context manager.

    ``url`` is the site through the proxy; ``apps`` are the app processes (each with its ``url``,
    reached directly, and its ``log()``), ``nginx`` the proxy; everything lives in ``directory``.
    ``bound``: the children end when the thread that started them does (see :class:`Child`).
    """

    def __init__(
        self,
        database_url: str,
        *,
        secret_key: str,
        processes: int = 2,
        port: int = 0,
        redis_url: str = REDIS,
        redis_prefix: str = "hexmoot-cluster:",
        env: Mapping[str, str] | None = None,
        echo: bool = False,
        timeout: float = 120.0,
        bound: bool = False,
    ) -> None:
        if processes < 1:
            raise ClusterError("a cluster needs at least one app process")
        self.database_url = database_url
        self.processes = processes
        self.port = port
        self._choose_port = not port
        self.timeout = timeout
        self.echo = echo
        self.bound = bound
        self.directory = Path(tempfile.mkdtemp(prefix="hexmoot-cluster-"))
        # nginx's workers run as another user (nobody) when it starts as root: they must reach
        # the static files and their scratch directories in here.
        self.directory.chmod(0o755)
        self.app_env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "SECRET_KEY": secret_key,
            "REDIS_URL": redis_url,
            "REDIS_PREFIX": redis_prefix,
            "FORWARDED_ALLOW_IPS": PROXY_ADDRESS,
            # One access line per request: which process served what.
            "LOG_LEVEL": "info",
            **(env or {}),
        }
        self.apps: list[AppProcess] = []
        self.nginx = Child(
            "nginx",
            [
                find_nginx(),
                "-p",
                f"{self.directory}/",
                "-c",
                str(self.directory / "nginx.conf"),
                "-e",
                "stderr",
                "-g",
                "daemon off;",
            ],
            os.environ,
            self.directory / "nginx.log",
            echo,
            bound,
        )

    @property
    def url(self) -> str:
        """The site, through nginx."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Migrate, build the static files, start the app processes, then nginx; each waited for."""
        try:
            run_step(
                "alembic upgrade head",
                [sys.executable, "-m", "alembic", "upgrade", "head"],
                self.app_env,
            )
            run_step(
                "the static files' build",
                [sys.executable, "-m", "app.static_files", "build", str(self.directory / "public")],
                self.app_env,
            )
            for number in range(1, self.processes + 1):
                self.apps.append(self._start_app(number))
            (self.directory / "nginx.conf").symlink_to(NGINX_CONF)
            (self.directory / "upstreams.conf").write_text(
                # max_fails=0, as in deploy/compose/upstreams.conf (see there).
                "".join(f"server 127.0.0.1:{app.port} max_fails=0;\n" for app in self.apps)
            )
            self._start_nginx()
        except BaseException:
            self.stop()
            raise

    def _start_app(self, number: int, attempts: int = 3) -> AppProcess:
        """App process ``number`` on a free port, chosen again if another process took it first."""
        for attempt in range(attempts):
            app = AppProcess(
                f"app{number}",
                free_port(),
                self.app_env,
                self.directory / f"app{number}.log",
                self.echo,
                self.bound,
            )
            app.start()
            try:
                wait_until(app, app.url + "/healthz", self.timeout)
            except ClusterError:
                app.stop()
                if port_is_free(app.port) or attempt == attempts - 1:
                    raise
            else:
                return app
        raise AssertionError("unreachable")

    def _start_nginx(self, attempts: int = 3) -> None:
        for attempt in range(attempts):
            if self._choose_port:
                self.port = free_port()
            (self.directory / "listen.conf").write_text(f"listen 127.0.0.1:{self.port};\n")
            self.nginx.start()
            try:
                wait_until(self.nginx, self.url + "/healthz", self.timeout)
            except ClusterError:
                self.nginx.stop()
                taken = "Address already in use" in self.nginx.log()
                if not (taken and self._choose_port) or attempt == attempts - 1:
                    raise
            else:
                return

    def stop(self) -> None:
        """Stop nginx, then every app process; remove the cluster's directory."""
        self.nginx.stop()
        for app in self.apps:
            app.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def wait(self) -> None:
        """Serve until interrupted, saying so when a process exits (the others go on serving)."""
        reported: set[str] = set()
        while True:
            for child in [self.nginx, *self.apps]:
                if not child.running() and child.name not in reported:
                    reported.add(child.name)
                    print(f"{child.name} exited ({child.log_path})", flush=True)
            time.sleep(0.5)

    def __enter__(self) -> Cluster:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    """``python -m deploy.cluster``: the cluster on this machine until Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m deploy.cluster", description=__doc__)
    parser.add_argument("--processes", type=int, default=2, help="app processes (default 2)")
    parser.add_argument("--port", type=int, default=8080, help="nginx's port (default 8080)")
    parser.add_argument("--database", default="hexmoot_cluster", help="the database's name")
    parser.add_argument("--postgres", default=POSTGRES, help="the PostgreSQL server to make it on")
    parser.add_argument("--redis", default=REDIS, help="the Redis server")
    parser.add_argument("--redis-prefix", default="hexmoot-cluster:")
    args = parser.parse_args(argv)

    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    cluster: Cluster | None = None
    try:
        cluster = Cluster(
            ensure_database(args.postgres, args.database),
            secret_key=secret_key(),
            processes=args.processes,
            port=args.port,
            redis_url=args.redis,
            redis_prefix=args.redis_prefix,
            echo=True,
            bound=True,  # everything runs in this main thread: killed, it takes them along
        )
        cluster.start()
        print(f"\nHexmoot: {cluster.url} (nginx, in {cluster.directory})", flush=True)
        for app in cluster.apps:
            print(f"  {app.name}: {app.url}", flush=True)
        print(
            f"database {args.database}, Redis prefix {args.redis_prefix!r}; Ctrl-C stops",
            flush=True,
        )
        cluster.wait()
    except KeyboardInterrupt:
        print("\nstopping", flush=True)
    except ClusterError as error:
        sys.exit(str(error))
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
