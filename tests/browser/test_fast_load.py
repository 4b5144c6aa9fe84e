"""Fast to load (issue 15), in Chromium: the lobby follows /ws/live instead of polling /api/live,
every page loads only from its own origin through versioned static URLs, and each page's own JS and
CSS stay under 100 KB (measured uncompressed and as sent, gzipped, in a fresh browser context per
page, so that nothing comes from the cache of another page).

Games are played through the HTTP API (``ApiGame``); the lobby's timers run on Playwright's fake
clock, so a minute in which the old lobby polled /api/live four times passes at once.
"""

from __future__ import annotations

import random
from urllib.parse import urlsplit

from playwright.sync_api import Request, WebSocket, expect

from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, Heartbeats, Screenshots
from tests.support.server import LiveServer

BOARD = """(id) => {
  const svg = document.querySelector(`#live-games .mini[data-id="${id}"] svg`);
  return svg ? svg.innerHTML : null;
}"""


def test_lobby_follows_the_live_socket_and_never_polls(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    rng = random.Random(15)
    game = ApiGame.create(server, "jotun", {"size": 4})
    api_games.append(game)
    game.play_random(rng, 2)
    page = guests.page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(urlsplit(r.url).path))
    beats = Heartbeats(page)
    page.clock.install()
    page.goto(server.url + "/")
    card = page.locator(f'#live-games .mini[data-id="{game.id}"]')
    expect(card).to_contain_text("2 moves")
    # A minute passes: the old lobby fetched /api/live on load and every 15 s after.
    beats.idle(60_000)
    before = page.evaluate(BOARD, game.id)
    game.play_random(rng, 1)
    expect(card).to_contain_text("3 moves")  # from the socket, no reload, no poll
    page.wait_for_function(f"(b) => ({BOARD})({game.id!r}) !== b", arg=before)
    beats.idle(60_000)
    assert len(beats.on("/ws/live")) == 1  # one socket all along: the update came over it
    assert "/api/live" not in requests, requests
    assert "/api/games/open" not in requests  # the open list comes over the socket too
    for theme in ("light", "dark"):
        for width in (1280, 390):
            shot = guests.page(width=width, height=900 if width > 390 else 844, color_scheme=theme)
            shot.goto(server.url + "/")
            expect(shot.locator(f'#live-games .mini[data-id="{game.id}"]')).to_be_visible()
            assert shot.evaluate("document.documentElement.scrollWidth") <= width
            screenshots.page(shot, f"fastload-lobby-{theme}-{width}")


def test_lobby_shows_four_live_games_and_the_empty_line(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    for _ in range(5):
        api_games.append(ApiGame.create(server, "valaturna", {"size": 5}))
    page = guests.page()
    page.goto(server.url + "/")
    expect(page.locator("#live-games .mini:visible")).to_have_count(4)
    expect(page.locator("#live-games p.muted", has_text="No game")).to_be_hidden()


def test_every_page_loads_from_its_own_origin_only(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    rng = random.Random(3)
    game = ApiGame.create(server, "exxit", {})
    api_games.append(game)
    game.play_random(rng, 4)
    seen: list[str] = []

    def on_request(r: Request) -> None:
        seen.append(r.url)

    def on_socket(ws: WebSocket) -> None:
        seen.append(ws.url)

    origin = urlsplit(server.url).netloc
    budgets: dict[str, tuple[int, int]] = {}
    every: set[str] = set()
    for path in ("/", "/live", "/archive", f"/games/{game.id}", "/rules", "/rules/jotun"):
        page = (
            guests.page()
        )  # a fresh context: a cold cache, so every file the page needs is listed
        page.on("request", on_request)
        page.on("websocket", on_socket)
        page.goto(server.url + path, wait_until="networkidle")
        expect(page.locator("main")).to_be_visible()
        assets = {
            name: (decoded, encoded)
            for name, decoded, encoded in page.evaluate(
                """() => performance.getEntriesByType('resource')
                    .filter(e => /\\/static\\/(js|css)\\//.test(new URL(e.name).pathname))
                    .map(e => [new URL(e.name).pathname, e.decodedBodySize, e.encodedBodySize])"""
            )
        }
        every |= set(assets)
        uncompressed = sum(d for d, _ in assets.values())
        sent = sum(e for _, e in assets.values())
        budgets[path] = (uncompressed, sent)
        assert uncompressed < 100_000, (path, assets)
        assert sent < uncompressed / 2, (path, assets)
        # the page's own <script src> and <link href> are versioned (cached a year)
        links = page.evaluate(
            """() => [...document.querySelectorAll('script[src], link[href]')]
                .map(e => e.getAttribute('src') || e.getAttribute('href'))"""
        )
        assert links and all("?v=" in link for link in links), links
        page.context.close()
    print("each page's own JS+CSS, bytes (uncompressed, sent gzipped):", budgets)
    foreign = [url for url in seen if urlsplit(url).netloc != origin]
    assert not foreign, foreign
    assert any(url.startswith("ws://") for url in seen)  # the sockets were watched too
    assert {"/static/js/game.js", "/static/js/lobby.js", "/static/css/site.css"} <= every
