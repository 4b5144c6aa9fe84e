"""Fixtures of the browser tests: a real uvicorn server on a fresh migrated SQLite database, and
Debian's headless Chromium driven by Playwright. Every page opened through ``guests`` is watched for
console errors, and the test fails if any appears. Screenshots are taken only on request
(``--screenshots DIR`` or ``HEXMOOT_SCREENSHOTS=DIR``, see tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.browser.helpers import ApiGame, ConsoleErrors, Screenshots, launch
from tests.support.databases import fresh_database
from tests.support.patience import PATIENCE_MS
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import LiveServer

# Every wait of a page, and every `expect`, gives up only after PATIENCE (tests/support/patience.py).
expect.set_options(timeout=PATIENCE_MS)


def _sqlite_server(directory: Path) -> Iterator[LiveServer]:
    with fresh_database("sqlite", directory) as url:
        live = LiveServer(url, QUOTAS_OFF)
        live.start()
        try:
            yield live
        finally:
            live.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A running server on SQLite, shared by the tests of one module."""
    yield from _sqlite_server(tmp_path_factory.mktemp("browser"))


@pytest.fixture(scope="module")
def empty_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A second server that never gets a game: the lists in their empty state."""
    yield from _sqlite_server(tmp_path_factory.mktemp("empty"))


@pytest.fixture(scope="module")
def world(server: LiveServer) -> Iterator[Any]:
    """The module server's games in every state a page shows (``tests.browser.states.World``;
    imported here, since that module imports this one's ``Guests``)."""
    from tests.browser.states import world_of

    with world_of(server) as built:
        yield built


@pytest.fixture()
def api_games() -> Iterator[list[ApiGame]]:
    """Games a test makes through the API (``ApiGame``), closed after it."""
    made: list[ApiGame] = []
    yield made
    for game in made:
        game.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium for one module. Not for the whole session: while Playwright's sync API is open,
    asyncio sees its loop running in this thread, and the async server tests that an xdist worker
    may run next could not start theirs."""
    with sync_playwright() as pw:
        b = launch(pw)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture()
def console() -> Iterator[ConsoleErrors]:
    """Console errors of the pages a test opens; none may appear."""
    errors = ConsoleErrors()
    yield errors
    assert errors.errors == [], errors.errors


class Guests:
    """New browser contexts (one guest each, with its own cookie), closed at the end."""

    def __init__(self, browser: Browser, console: ConsoleErrors) -> None:
        self.browser = browser
        self.console = console
        self.contexts: list = []

    def page(self, width: int = 1280, height: int = 900, **kwargs: object) -> Page:
        context = self.browser.new_context(viewport={"width": width, "height": height}, **kwargs)
        context.set_default_timeout(PATIENCE_MS)
        self.contexts.append(context)
        return self.console.watch(context.new_page())

    def close(self) -> None:
        for c in self.contexts:
            c.close()


@pytest.fixture()
def guests(browser: Browser, console: ConsoleErrors) -> Iterator[Guests]:
    g = Guests(browser, console)
    try:
        yield g
    finally:
        g.close()


@pytest.fixture(scope="session")
def screenshots(pytestconfig: pytest.Config) -> Screenshots:
    """Saves screenshots into ``--screenshots DIR`` when given, else takes none."""
    directory = pytestconfig.getoption("screenshots")
    return Screenshots(Path(directory) if directory else None)
