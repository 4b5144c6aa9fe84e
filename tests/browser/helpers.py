"""Helpers for the browser tests: launching Debian's Chromium, and playing by clicking."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, Playwright, expect

from tests.support.server import LiveServer

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "browser"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def launch(pw: Playwright) -> Browser:
    """Headless Debian Chromium with the flags the CI machines need."""
    return pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


class ConsoleErrors:
    """Collects console errors and uncaught exceptions of every page it watches."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed: list[re.Pattern[str]] = []

    def allow(self, pattern: str) -> None:
        """Accept console errors matching ``pattern`` (e.g. the browser's own report of a refused
        websocket while a test has cut the network on purpose)."""
        self.allowed.append(re.compile(pattern))

    def _console(self, page: Page, text: str) -> None:
        if not any(p.search(text) for p in self.allowed):
            self.errors.append(f"{page.url}: {text}")

    def watch(self, page: Page) -> Page:
        page.on("console", lambda m: self._console(page, m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"{page.url}: {e}"))
        return page


def move_count(page: Page) -> int:
    """The number of moves in the page's move list."""
    return int(page.evaluate("window.hexmoot.state.moves.length"))


_READY = """(n) => {
  const S = window.hexmoot.state;
  if (S.moves.length > n) return "moved";
  if (S.sending) return null;
  if (!document.getElementById('play-move').hidden) return "play";
  if (document.querySelector('#choices button')) return "choice";
  if (document.querySelector('#board svg.active .hit.can')) return "cell";
  return null;
}"""


def play_one_move(page: Page, rng: random.Random, avoid: tuple[str, ...] = ("pass",)) -> str:
    """Enter one move by clicking: a random legal cell or word each step; returns its text.

    Words in ``avoid`` are clicked only when nothing else is offered.
    """
    n = move_count(page)
    for _ in range(60):
        handle = page.wait_for_function(_READY, arg=n, timeout=20_000)
        what = handle.json_value()
        if what == "moved":
            return str(page.evaluate(f"window.hexmoot.state.moves[{n}]"))
        if what == "play":
            page.click("#play-move")
            continue
        cells = page.eval_on_selector_all(
            "#board svg.active .hit.can", "els => els.map(e => e.dataset.id)"
        )
        words = page.eval_on_selector_all("#choices button", "els => els.map(e => e.dataset.token)")
        preferred = [w for w in words if w not in avoid]
        options: list[tuple[str, Any]] = [("cell", c) for c in cells] + [
            ("word", w) for w in preferred
        ]
        if not options:
            options = [("word", w) for w in words]
        kind, token = rng.choice(options)
        if kind == "cell":
            page.locator(f'#board .hit[data-id="{token}"]').click()
        else:
            page.click(f'#choices button[data-token="{token}"]')
    raise AssertionError("no move was completed after 60 clicks")


def create_game(page: Page, server: LiveServer, plan: Any, name: str) -> str:
    """Create ``plan``'s game from the lobby as seat 1, named ``name``; returns the game id."""
    page.goto(server.url + "/")
    page.fill("#name", name)
    page.check(f'input[name="game"][value="{plan.slug}"]')
    for option, value in plan.options.items():
        page.select_option(f"#opt-{option}", value)
    page.select_option("#seat", "1")
    page.click("#create")
    page.wait_for_url("**/games/*")
    expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    return page.url.rsplit("/", 1)[1]


def join_game(
    page: Page, server: LiveServer, host: Page, game_id: str, plan: Any, name: str
) -> None:
    """Take the second seat: by the host's invite link if ``plan.invite``, else from the lobby."""
    if plan.invite:
        expect(host.locator("#invite")).to_be_visible()
        link = host.input_value("#invite-url")
        assert f"/games/{game_id}?join=" in link
        page.goto(link)
        page.fill("#join-name", name)
        page.click("#join-button")
    else:
        page.goto(server.url + "/")
        page.fill("#name", name)
        page.click(f'[data-join="{game_id}"]')
        page.wait_for_url(f"**/games/{game_id}")
    expect(page.locator("#players")).to_contain_text(name)
