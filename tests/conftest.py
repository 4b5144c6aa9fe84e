"""Suite-wide options, and how pytest-xdist shares the tests out between its workers.

``make pytest`` runs ``pytest -n WORKERS`` (one more than the CPUs). The server and browser tests
share module-scoped fixtures (a migrated database, a uvicorn process, a Chromium): each of those
modules, and each database backend of it, goes whole to one worker, so the fixtures are built once,
as in a serial run, not once per worker that happens to receive a few of its tests. The rules tests
have no such fixtures and are shared out one by one, except the conformance suite's: the tests of
one game and option set go together, since they share its random games (played once per process,
``_games`` there).

This is a scheduler of our own rather than ``--dist loadgroup`` with ``xdist_group`` marks: xdist
(3.8) names a group by rewriting ``item._nodeid``, which pytest 9 no longer reads, so the groups
were silently ignored.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import signal
from typing import Any

import pytest

GROUPED = ("tests/app/", "tests/browser/", "tests/deploy/")  # modules sharing module fixtures
BACKENDS = ("sqlite", "postgres")  # tests/app/conftest.py's module-scoped `backend` parameter


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--screenshots",
        metavar="DIR",
        default=os.environ.get("HEXMOOT_SCREENSHOTS") or None,
        help="browser tests save screenshots of what they show into DIR "
        "(default: $HEXMOOT_SCREENSHOTS; none are taken without it)",
    )


#: Password hashes in the suite's servers and apps: argon2id with 1 pass over 1 MiB, not the
#: site's 3 over 64 MiB (``app/identity/passwords.py``). The suite signs up and logs in some three
#: hundred times, and the site's cost is about 0.1 s of CPU a hash. The defaults themselves are
#: checked in tests/app/test_accounts_core.py.
CHEAP_PASSWORD_HASHES = {"PASSWORD_HASH_TIME_COST": "1", "PASSWORD_HASH_MEMORY_KIB": "1024"}
#: No monthly dumps in the suite's servers and apps (each would write its index into ./data/dumps
#: at its start); tests/app/test_dumps.py builds them in a directory of its own.
NO_DUMPS = {"DUMPS_EVERY": "0"}


def pytest_configure(config: pytest.Config) -> None:
    for name, value in {**CHEAP_PASSWORD_HASHES, **NO_DUMPS}.items():
        os.environ.setdefault(name, value)


CONFORMANCE = "tests/games/test_conformance.py::"


def work_unit(nodeid: str) -> str:
    """What goes whole to one worker: a server or browser module (per backend), the conformance
    tests of one option set, else one test."""
    if nodeid.startswith(CONFORMANCE):
        return "conformance[" + nodeid.rsplit("[", 1)[-1]
    if not nodeid.startswith(GROUPED):
        return nodeid
    module = nodeid.split("::", 1)[0]
    params = re.search(r"\[(.*)\]$", nodeid)
    backend = [p for p in params.group(1).split("-") if p in BACKENDS] if params else []
    return f"{module}[{backend[0]}]" if backend else module


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    from xdist.scheduler import LoadScopeScheduling

    class ModuleFixtureScheduling(LoadScopeScheduling):  # type: ignore[misc]
        """xdist's loadscope with :func:`work_unit` as the scope."""

        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return ModuleFixtureScheduling(config, log)


# --- a test that hangs fails, with the stacks of what it waits for ------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> Any:
    """pytest-timeout (``timeout`` in pyproject.toml) fails a test that runs too long, printing
    the stacks of its threads. An async test that hangs sits in the event loop's ``select`` with
    every thread idle, so those stacks say nothing: print the stack of each asyncio task first."""
    result = yield
    fail = signal.getsignal(signal.SIGALRM)
    if callable(fail):  # pytest-timeout's signal method (its thread method has no event loop)

        def handler(signum: int, frame: Any) -> None:
            __tracebackhide__ = True
            _print_tasks(item.config.get_terminal_writer())
            fail(signum, frame)

        signal.signal(signal.SIGALRM, handler)
    return result


def _print_tasks(terminal: Any) -> None:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # the test hung outside the event loop
        return
    for task in asyncio.all_tasks(loop):
        stack = io.StringIO()
        task.print_stack(file=stack)
        terminal.sep("~", title=f"asyncio task {task.get_name()}")
        terminal.write(stack.getvalue())
