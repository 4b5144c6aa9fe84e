"""Helpers for the browser tests: launching Debian's Chromium, playing by clicking, playing the
same games through the HTTP API, and screenshots on request."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Locator, Page, Playwright, WebSocket, expect

from tests.support.gameplay import MovePicker
from tests.support.server import LiveServer

# Debian's chromium-headless-shell: the same Blink as the `chromium` package, without the browser
# around it (what Playwright itself uses for headless runs). It costs about half the processor time
# per page (tests/browser/test_game_page.py: 46 core-seconds for 80), the largest share of the
# suite's. It has no desktop notifications: a test of those asks for `chromium` (FULL_CHROMIUM).
CHROMIUM = "/usr/bin/chromium-headless-shell"
FULL_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def launch(pw: Playwright, executable: str = CHROMIUM) -> Browser:
    """Headless Debian Chromium with the flags the CI machines need."""
    return pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)


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


class Screenshots:
    """Pictures of what the tests show, for a person to look at; no test reads them.

    Taken only when asked for (``pytest --screenshots DIR`` or ``HEXMOOT_SCREENSHOTS=DIR``):
    writing full-page PNGs on every run costs time and proves nothing.
    """

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)

    def page(self, page: Page, name: str) -> None:
        """The whole page, with CSS transitions finished (a settled picture, no waiting)."""
        if self.directory is not None:
            page.screenshot(
                path=self.directory / f"{name}.png", full_page=True, animations="disabled"
            )

    def view(self, page: Page, name: str) -> None:
        """What the window shows: the first screen, as a player sees it before scrolling."""
        if self.directory is not None:
            page.screenshot(path=self.directory / f"{name}.png", animations="disabled")

    def file(self, data: bytes, name: str) -> None:
        """A file the page made (an image it saved), to look at beside the screenshots."""
        if self.directory is not None:
            (self.directory / name).write_bytes(data)

    def element(self, locator: Locator, name: str) -> None:
        """One element, e.g. the board."""
        if self.directory is not None:
            locator.screenshot(path=self.directory / f"{name}.png", animations="disabled")


class ApiGame:
    """A game played through the HTTP API (``POST /api/games/{id}/moves``) by its two seats, each an
    httpx client with that guest's cookie; seeded random legal moves come from ``MovePicker``."""

    def __init__(self, server: LiveServer, game_id: str, clients: dict[int, httpx.Client]) -> None:
        self.server = server
        self.id = game_id
        self.clients = clients
        game = clients[1].get(f"/api/games/{game_id}").raise_for_status().json()["game"]
        self.slug: str = game["game"]
        self.picker = MovePicker(self.slug, game["options"], seed=0)
        self.rules = self.picker.rules
        self.version = 0
        self.refresh()

    @classmethod
    def create(
        cls, server: LiveServer, slug: str, options: dict[str, Any], public: bool = True
    ) -> ApiGame:
        """A new game: guest Api1 creates it in seat 1, guest Api2 joins it in seat 2."""
        clients = {seat: httpx.Client(base_url=server.url, timeout=60) for seat in (1, 2)}
        for seat, client in clients.items():
            client.put("/api/me", json={"name": f"Api{seat}"}).raise_for_status()
        made = clients[1].post(
            "/api/games", json={"game": slug, "options": options, "seat": 1, "public": public}
        )
        made.raise_for_status()
        game_id = made.json()["id"]
        clients[2].post(
            f"/api/games/{game_id}/join", json={"token": made.json()["join_token"]}
        ).raise_for_status()
        return cls(server, game_id, clients)

    @classmethod
    def of_pages(cls, server: LiveServer, game_id: str, players: dict[int, Page]) -> ApiGame:
        """The game that these pages' guests sit at (seat -> page), driven by their cookies."""
        clients = {
            seat: httpx.Client(
                base_url=server.url,
                cookies={c["name"]: c["value"] for c in page.context.cookies()},
                timeout=60,
            )
            for seat, page in players.items()
        }
        return cls(server, game_id, clients)

    def refresh(self) -> None:
        """Catch up with the server: its version, and the moves played elsewhere (on a page)."""
        snapshot = self.clients[1].get(f"/api/games/{self.id}").raise_for_status().json()
        self.version = snapshot["version"]
        for text in snapshot["game"]["moves"][len(self.moves) :]:
            self.picker.play(text)

    @property
    def moves(self) -> list[str]:
        return self.picker.moves

    def state(self) -> Any:
        return self.picker.state

    def play(self, text: str) -> None:
        """Play ``text`` for the seat to move; the server's canonical text is recorded."""
        seat = self.picker.to_move()
        assert seat is not None, "the game is over"
        answer = self.clients[seat].post(
            f"/api/games/{self.id}/moves",
            json={"move": text, "version": self.version, "msg_id": f"t-{len(self.moves)}"},
        )
        answer.raise_for_status()
        self.version = answer.json()["version"]
        self.picker.play(answer.json()["move"])

    def play_random(self, rng: random.Random, plies: int) -> None:
        """Up to ``plies`` seeded random legal moves (fewer if the game ends)."""
        self.picker.rng = rng
        for _ in range(plies):
            if self.picker.to_move() is None:
                return
            self.play(self.picker.pick())

    def play_to_the_end(self, rng: random.Random) -> None:
        """Seeded random legal moves until the rules end the game."""
        self.play_random(rng, 10_000)
        assert self.picker.to_move() is None

    def cookie(self, seat: int) -> list[dict[str, Any]]:
        """The seat's guest cookie, for a browser context to take that guest over."""
        jar = self.clients[seat].cookies
        return [{"name": name, "value": jar[name], "url": self.server.url} for name in jar]

    def close(self) -> None:
        for c in self.clients.values():
            c.close()


def move_count(page: Page) -> int:
    """The number of moves in the page's move list."""
    return int(page.evaluate("window.hexmoot.state.moves.length"))


_READY = """(n) => {
  const S = window.hexmoot.state;
  if (S.moves.length > n) return "moved";
  if (window.hexmoot.entry.sending) return null;
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
        handle = page.wait_for_function(_READY, arg=n)
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


_OFFERED = """() => {
  if (!document.getElementById('play-move').hidden) return "confirm";
  if (window.hexmoot.entry.sending) return null;
  const cells = [...document.querySelectorAll('#board svg.active .hit.can')].map((e) => e.dataset.id);
  const words = [...document.querySelectorAll('#choices button')].map((e) => e.dataset.token);
  return cells.length || words.length ? JSON.stringify({ cells, words }) : null;
}"""


def click_to_confirm(
    page: Page, rng: random.Random, each: Callable[[], None] | None = None
) -> list[str]:
    """Click random offered cells (words when there are none; never a pass unless it is all)
    until the page shows the move's confirm; ``each()`` runs after every click's answer. Returns
    the tokens clicked."""
    clicked: list[str] = []
    for _ in range(60):
        offered = page.wait_for_function(_OFFERED).json_value()
        if offered == "confirm":
            return clicked
        choice = json.loads(offered)
        cells, words = choice["cells"], choice["words"]
        if cells:
            token = rng.choice(cells)
            page.locator(f'#board .hit.can[data-id="{token}"]').click()
        else:
            token = rng.choice([w for w in words if w != "pass"] or words)
            page.click(f'#choices button[data-token="{token}"]')
        clicked.append(token)
        page.wait_for_function(
            "() => window.hexmoot.entry.steps !== null"
            " || !document.getElementById('play-move').hidden"
            " || window.hexmoot.entry.sending !== null"
        )
        if each is not None:
            each()
    raise AssertionError("no confirm after 60 clicks")


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


class Heartbeats:
    """Counts the pings a page's sockets send and the pongs they hear, so that a test moving the
    fake clock (``page.clock``) far ahead can let each ping be answered, as it would be in a real
    tab left idle: ``run_for`` fires the page's timers in one go, and a pong cannot arrive in the
    middle of it, so a long jump would make the heartbeat (static/js/socket.js) declare the socket
    dead and reconnect, and the server's real clock would then disagree with the page's."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.pings = 0
        self.pongs = 0
        self.sockets: list[WebSocket] = []
        page.on("websocket", self._watch)

    def _watch(self, ws: WebSocket) -> None:
        self.sockets.append(ws)
        ws.on("framesent", lambda payload: self._count(payload, "ping"))
        ws.on("framereceived", lambda payload: self._count(payload, "pong"))

    def _count(self, payload: str | bytes, kind: str) -> None:
        if isinstance(payload, str) and f'"{kind}"' in payload:
            if kind == "ping":
                self.pings += 1
            else:
                self.pongs += 1

    def idle(self, ms: int, step: int = 5_000) -> None:
        """Move the page's fake clock ``ms`` ahead in steps of the heartbeat's check interval,
        waiting after each step for the answer to any ping it sent (a network event, not a timer)."""
        while ms > 0:
            self.page.clock.run_for(min(step, ms))
            ms -= step
            deadline = time.monotonic() + 10
            while self.pongs < self.pings:  # each of the page's sockets hears its own pong
                assert time.monotonic() < deadline, "a ping was never answered"
                self.page.wait_for_timeout(20)

    def on(self, path: str) -> list[WebSocket]:
        """The sockets the page opened to ``path`` (``/ws/live``; every page also has ``/ws/me``)."""
        return [ws for ws in self.sockets if ws.url.split("?")[0].endswith(path)]
