"""Suite-wide options and the grouping that makes the suite safe and quick under pytest-xdist.

``make pytest`` runs ``pytest -n auto --dist loadgroup``. The server and browser tests share
module-scoped fixtures (a migrated database, a uvicorn process, a Chromium): each module, and each
database backend of it, is one xdist group, so one worker builds those fixtures once instead of
every worker building them for the few tests it happens to receive. The rules tests have no such
fixtures and are spread one by one.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

GROUPED = ("app", "browser")  # folders under tests/ whose modules share module-scoped fixtures


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--screenshots",
        metavar="DIR",
        default=os.environ.get("HEXMOOT_SCREENSHOTS") or None,
        help="browser tests save screenshots of what they show into DIR "
        "(default: $HEXMOOT_SCREENSHOTS; none are taken without it)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("xdist"):
        return
    tests = Path(__file__).parent
    for item in items:
        relative = item.path.relative_to(tests) if item.path.is_relative_to(tests) else None
        if relative is None or relative.parts[0] not in GROUPED:
            continue
        callspec = getattr(item, "callspec", None)
        backend = callspec.params.get("backend", "") if callspec is not None else ""
        item.add_marker(pytest.mark.xdist_group(f"{relative.as_posix()}:{backend}"))
