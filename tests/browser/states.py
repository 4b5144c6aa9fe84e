"""Every page of the site and every state of the game page, set up once per module and visited
one by one, for the checks that must hold everywhere (tests/browser/test_a11y.py: axe-core in both
themes, and no page wider than a phone or a desktop).

A :class:`World` holds games made through the HTTP API: for each of the five games one waiting for
an opponent, one in play (past its opening; the same game, or one at its opening for Valaturna,
whose only moves of several clicks are the opening's two stones, gives the seat to move a first
click to make), and one played to the end.
The visit functions open a page in a state, wait until it shows that state, and hand it to
``check(page, name)``; a test collects what its checks find and fails once with the whole list.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame
from tests.support.accounts import signup_page
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer

SLUGS = ["jotun", "valaturna", "harmijan", "sgolte", "exxit"]
# The default boards (Valaturna's long result line among them); Jotun's smallest plays out fast.
OPTIONS: dict[str, dict[str, Any]] = {"jotun": {"size": 4}}
WORDS = {"pass", "black", "white"}

Check = Callable[[Page, str], None]


@dataclass
class Waiting:
    """A public game waiting for its opponent; ``cookies`` are its creator's, ``saved`` what the
    lobby keeps in the creator's localStorage after creating it (the invite link, the token)."""

    id: str
    cookies: list[dict[str, Any]]
    saved: dict[str, str]


@dataclass
class World:
    server: LiveServer
    waiting: dict[str, Waiting] = field(default_factory=dict)
    playing: dict[str, ApiGame] = field(default_factory=dict)
    # a game whose seat to move has a move of several clicks, and that move's first click
    clicking: dict[str, tuple[ApiGame, str]] = field(default_factory=dict)
    finished: dict[str, ApiGame] = field(default_factory=dict)
    extra: list[ApiGame] = field(default_factory=list)

    def close(self) -> None:
        for g in [*self.playing.values(), *self.finished.values(), *self.extra]:
            g.close()


# A loaded machine (parallel workers, several Chromiums) can take longer than httpx's default 5 s to
# answer a move; these clients wait longer.
TIMEOUT = httpx.Timeout(PATIENCE)


def _created(
    server: LiveServer, slug: str, time_control: dict[str, Any] | None = None
) -> tuple[httpx.Client, dict[str, Any]]:
    """A public game of ``slug`` created by guest "Api1" in seat 1: its client and the answer."""
    client = httpx.Client(base_url=server.url, timeout=TIMEOUT)
    client.put("/api/me", json={"name": "Api1"}).raise_for_status()
    body = {"game": slug, "options": OPTIONS.get(slug, {}), "seat": 1, "public": True}
    made = client.post("/api/games", json={**body, "time_control": time_control})
    made.raise_for_status()
    return client, made.json()


def open_game(server: LiveServer, slug: str) -> Waiting:
    """A public game of ``slug`` waiting for its second player."""
    client, body = _created(server, slug)
    cookies = [{"name": k, "value": v, "url": server.url} for k, v in client.cookies.items()]
    client.close()
    saved = {"join_token": body["join_token"], "invite_url": body["invite_url"]}
    return Waiting(body["id"], cookies, saved)


def new_game(server: LiveServer, slug: str, time_control: dict[str, Any] | None = None) -> ApiGame:
    """A game of ``slug`` between guests Api1 (seat 1) and Api2 (seat 2), as ``ApiGame.create``
    makes it, with patient clients."""
    first, body = _created(server, slug, time_control)
    second = httpx.Client(base_url=server.url, timeout=TIMEOUT)
    second.put("/api/me", json={"name": "Api2"}).raise_for_status()
    second.post(
        f"/api/games/{body['id']}/join", json={"token": body["join_token"]}
    ).raise_for_status()
    return ApiGame(server, body["id"], {1: first, 2: second})


def multi_click_start(g: ApiGame) -> str | None:
    """A first click of the seat to move that is not yet a whole move (more clicks follow)."""
    state = g.state()
    for token in g.rules.steps(state, []).next:
        if token not in WORDS and g.rules.steps(state, [token]).next:
            return str(token)
    return None


def in_play(server: LiveServer, slug: str, rng: random.Random) -> tuple[ApiGame, str | None]:
    """A game past its opening (4 plies or more), if possible one whose seat to move has a move of
    several clicks (with that move's first click). Its clocks run (3 days per move: a deadline
    to show, none to reach), and its players said a word in their chat."""
    g = new_game(server, slug, {"kind": "correspondence", "days": 3})
    g.clients[1].post(f"/api/games/{g.id}/chat", json={"text": "Good luck!"}).raise_for_status()
    g.play_random(rng, 4)
    for _ in range(40):
        start = multi_click_start(g)
        if start is not None:
            return g, start
        g.play_random(rng, 1)
        if g.picker.to_move() is None:
            raise AssertionError(f"{slug}: the game ended while looking for a multi-click move")
    return g, None


def build_world(server: LiveServer) -> World:
    world = World(server)
    rng = random.Random(15)
    try:
        for slug in SLUGS:
            world.waiting[slug] = open_game(server, slug)
            g, start = in_play(server, slug, rng)
            world.playing[slug] = g
            if start is None:  # only the opening takes several clicks (Valaturna's two stones)
                g = new_game(server, slug)
                world.extra.append(g)
                start = multi_click_start(g)
                assert start is not None, f"{slug}: no move of several clicks"
            world.clicking[slug] = (g, start)
            done = new_game(server, slug)
            world.finished[slug] = done
            done.play_to_the_end(rng)
    except BaseException:
        world.close()
        raise
    return world


@contextmanager
def world_of(server: LiveServer) -> Iterator[World]:
    world = build_world(server)
    try:
        yield world
    finally:
        world.close()


def _game_ready(page: Page) -> None:
    page.wait_for_function("() => window.hexmoot && window.hexmoot.state.view !== null")
    expect(page.locator("#conn")).to_have_attribute("data-state", "open")


def _as(guests: Guests, cookies: list[dict[str, Any]] | None, **context: Any) -> Page:
    page = guests.page(**context)
    if cookies:
        page.context.add_cookies(cookies)
    return page


def visit_game_states(
    guests: Guests, world: World, slug: str, check: Check, **context: Any
) -> None:
    """The game page of ``slug`` in each state: waiting (its creator, a visitor), the seat to move
    with a first click made, the opponent, a spectator, the review of ply 2, and finished (a player
    and a spectator). ``context`` goes to each new browser context (viewport, colour scheme)."""
    url = world.server.url
    waiting = world.waiting[slug]
    page = _as(guests, waiting.cookies, **context)
    page.add_init_script(
        f"localStorage.setItem('hexmoot-game-{waiting.id}', '{json.dumps(waiting.saved)}')"
    )
    page.goto(f"{url}/games/{waiting.id}")
    _game_ready(page)
    expect(page.locator("#invite")).to_be_visible()
    check(page, f"{slug}-waiting-creator")

    visitor = _as(guests, None, **context)
    visitor.goto(f"{url}/games/{waiting.id}")
    _game_ready(visitor)
    expect(visitor.locator("#join")).to_be_visible()
    check(visitor, f"{slug}-waiting-visitor")

    g, start = world.clicking[slug]
    seat = g.picker.to_move()
    assert seat is not None
    mover = _as(guests, g.cookie(seat), **context)
    mover.goto(f"{url}/games/{g.id}")
    _game_ready(mover)
    mover.locator(f'#board svg.active .hit.can[data-id="{start}"]').click()
    mover.wait_for_function(
        """() => { const S = window.hexmoot.entry;
                   return S.prefix.length === 1 && S.steps && S.steps.msg_id === S.stepsId; }"""
    )
    expect(mover.locator("#cancel-move")).to_be_visible()
    nxt = mover.locator("#board svg.active .hit.can")
    if nxt.count():
        nxt.first.hover()  # the preview and its hint line
    check(mover, f"{slug}-your-turn-clicked")

    g = world.playing[slug]
    seat = g.picker.to_move()
    assert seat is not None
    opponent = _as(guests, g.cookie(3 - seat), **context)
    opponent.goto(f"{url}/games/{g.id}")
    _game_ready(opponent)
    expect(opponent.locator("#resign-box")).to_be_visible()
    check(opponent, f"{slug}-opponents-turn")

    spectator = _as(guests, None, **context)
    spectator.goto(f"{url}/games/{g.id}")
    _game_ready(spectator)
    check(spectator, f"{slug}-spectator")
    spectator.goto(f"{url}/games/{g.id}?ply=2")
    _game_ready(spectator)
    expect(spectator.locator("#review-banner")).to_be_visible()
    check(spectator, f"{slug}-review")

    done = world.finished[slug]
    player = _as(guests, done.cookie(1), **context)
    player.goto(f"{url}/games/{done.id}")
    _game_ready(player)
    expect(player.locator("#result")).to_be_visible()
    check(player, f"{slug}-finished-player")
    spectator.goto(f"{url}/games/{done.id}")
    _game_ready(spectator)
    expect(spectator.locator("#result")).to_be_visible()
    check(spectator, f"{slug}-finished-spectator")


def visit_site_pages(guests: Guests, world: World, check: Check, **context: Any) -> None:
    """Every page but the game page: the lobby with open games (and another game's options in
    its form), /live, the archive (all, filtered, a second page, a refused range), the rules index
    and each rules page, and the 404 pages."""
    url = world.server.url
    # the browser's own console note of a 404 page or a refused filter
    guests.console.allow(r"status of (404|400|422)")
    page = _as(guests, None, **context)
    page.goto(url + "/")
    expect(page.locator("#open-games [data-join]")).to_have_count(len(SLUGS))
    expect(page.locator("#live-games .mini").first).to_be_visible()
    check(page, "lobby")
    page.check('input[name="game"][value="sgolte"]')
    expect(page.locator("#opt-variant")).to_be_visible()
    check(page, "lobby-sgolte-form")

    page.goto(url + "/live")
    expect(page.locator("#live .mini")).to_have_count(len(world.playing) + len(world.extra))
    check(page, "live")

    page.goto(url + "/archive")
    expect(page.locator("#rows [data-game]")).to_have_count(len(SLUGS))
    archive_done(page)
    check(page, "archive")
    page.goto(url + "/archive?game=valaturna&player=api")
    expect(page.locator("#rows [data-game]")).to_have_count(1)
    archive_done(page)
    check(page, "archive-filtered")
    page.goto(url + "/archive?limit=2")
    expect(page.locator("#rows [data-game]")).to_have_count(2)
    page.click("#more")
    expect(page.locator("#first-page")).to_be_visible()
    archive_done(page)
    check(page, "archive-page-2")
    page.goto(url + "/archive?from=2026-02-01&to=2026-01-01")
    expect(page.locator("#error")).not_to_be_empty()
    archive_done(page)
    check(page, "archive-backwards-range")

    page.goto(url + "/rules")
    expect(page.locator("main h1")).to_be_visible()
    check(page, "rules-index")
    for slug in SLUGS:
        page.goto(f"{url}/rules/{slug}")
        expect(page.locator(".diagram svg.board-svg").first).to_be_visible()
        check(page, f"rules-{slug}")

    for name, path in (("404", "/nothing"), ("404-game", "/games/nosuchgame")):
        response = page.goto(url + path)
        assert response is not None and response.status == 404, path
        check(page, name)

    # Accounts, My games, players (issue 16): as a guest, then signed in.
    for name, path in (
        ("login", "/login"),
        ("signup", "/signup"),
        ("settings-guest", "/settings"),
        ("my-guest", "/my"),
        ("recover", "/account/recover"),
        ("reset", "/account/reset?token=x"),
        ("leaderboards", "/leaderboards"),
        ("leaderboard-exxit", "/leaderboards/exxit"),
    ):
        page.goto(url + path)
        expect(page.locator("main h1")).to_be_visible()
        check(page, name)
    account = f"Player {secrets.token_hex(3)}"
    signup_page(page, url, account)
    for name, path in (
        ("my-account", "/my"),
        ("settings-account", "/settings"),
        ("profile", f"/players/{account}"),
    ):
        page.goto(url + path)
        expect(page.locator("main h1")).to_be_visible()
        if name == "settings-account":
            expect(page.locator("#sessions li")).to_have_count(1)
        check(page, name)


def visit_empty_site(guests: Guests, server: LiveServer, check: Check, **context: Any) -> None:
    """The lobby, /live and the archive of a site with no game at all."""
    page = _as(guests, None, **context)
    page.goto(server.url + "/")
    expect(page.locator("#open-games")).not_to_contain_text("Loading")
    check(page, "lobby-empty")
    page.goto(server.url + "/live")
    expect(page.locator("#empty")).to_be_visible()
    check(page, "live-empty")
    page.goto(server.url + "/archive")
    expect(page.locator("#empty")).to_contain_text("No finished game")
    archive_done(page)
    check(page, "archive-empty")


def archive_done(page: Page) -> None:
    """Until the archive's newest list is shown with its boards (``#rows`` no longer busy)."""
    expect(page.locator("#rows")).not_to_have_attribute("aria-busy", "true")
