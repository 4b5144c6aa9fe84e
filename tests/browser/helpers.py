"""Helpers for the browser tests: launching Debian's Chromium, and playing by clicking."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, Playwright

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

    def watch(self, page: Page) -> Page:
        page.on(
            "console",
            lambda m: self.errors.append(f"{page.url}: {m.text}") if m.type == "error" else None,
        )
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
