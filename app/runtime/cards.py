"""The picture of a position a shared link shows (issue 28: Open Graph's ``og:image``), made by the
page's own renderer: Debian's headless Chromium loads the game's card page from this process
(``/games/{id}/card``, the board drawn by ``static/js/board.js`` as on the game page) and saves a
screenshot of it.

Chromium runs as a subprocess (``--screenshot``: no driver library), one at a time per process, with
a wall-clock cap; each picture is written once into ``CARDS_DIR`` under a name that says what it
shows, so it is made once and served from the file afterwards. Without Chromium the site still
works: the picture is answered ``unavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import tempfile
from pathlib import Path

log = logging.getLogger("hexmoot.cards")

#: The picture's size in CSS pixels: Open Graph's and Twitter's large card (1.91 : 1).
WIDTH, HEIGHT = 1200, 630
#: Chromium's own flags: headless without a sandbox (a container's user namespace may not allow
#: one, and it loads only this site's own pages), without anything that calls out to the network.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--mute-audio",
    f"--window-size={WIDTH},{HEIGHT}",
    # the page's module scripts and its fonts are in before the screenshot, without a fixed wait
    "--virtual-time-budget=5000",
)
#: The browsers looked for, in order, when ``CARD_BROWSER`` is not set.
BROWSERS = ("chromium-headless-shell", "chromium")


class CardUnavailable(Exception):
    """No picture can be made here now (no browser, or it failed): the reason, in words."""


class CardRenderer:
    """Makes and keeps the pictures: ``image(name, url)`` is the PNG of ``url`` kept as ``name``."""

    def __init__(self, directory: Path, browser: str | None, timeout: float) -> None:
        self.directory = directory
        self.browser = browser if browser else _found()
        self.timeout = timeout
        self._one = asyncio.Lock()  # a screenshot costs a browser start: one at a time

    async def image(self, name: str, url: str) -> bytes:
        """The picture kept as ``name``, made from ``url`` first if it is not kept yet."""
        path = self.directory / name
        with contextlib.suppress(FileNotFoundError):
            return path.read_bytes()
        async with self._one:
            with contextlib.suppress(FileNotFoundError):  # made while this one waited
                return path.read_bytes()
            data = await self._screenshot(url)
            self.directory.mkdir(parents=True, exist_ok=True)
            # written whole under another name, then renamed: a reader never sees half a file
            fd, partial = tempfile.mkstemp(dir=self.directory, suffix=".part")
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(partial, path)
            return data

    async def _screenshot(self, url: str) -> bytes:
        if self.browser is None:
            raise CardUnavailable("no browser to draw the picture with (CARD_BROWSER)")
        with tempfile.TemporaryDirectory(prefix="hexmoot-card-") as work:
            out = Path(work) / "card.png"
            try:
                process = await asyncio.create_subprocess_exec(
                    self.browser,
                    *FLAGS,
                    f"--user-data-dir={work}/profile",
                    f"--screenshot={out}",
                    url,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.PIPE,
                    env={**os.environ, "HOME": work},
                )
            except OSError as exc:
                raise CardUnavailable(f"the browser could not start: {exc}") from exc
            try:
                async with asyncio.timeout(self.timeout):
                    _, errors = await process.communicate()
            except TimeoutError:
                process.kill()
                await process.wait()
                raise CardUnavailable(f"the browser took over {self.timeout:g} s") from None
            if process.returncode != 0 or not out.exists():
                tail = errors.decode(errors="replace").strip().splitlines()[-1:]
                log.warning("card: the browser failed (%s): %s", process.returncode, tail)
                raise CardUnavailable("the browser could not draw the picture")
            return out.read_bytes()


def _found() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None
