"""The game page's layout as a player meets it (issue 25), in every game at its largest board, on a
1366x768 laptop and a 390x844 phone: during your turn the whole board, the prompt and the confirm
are on the first screen (on the phone with both players' names and clocks too), and from the first
click of a move to its confirm the board neither moves nor resizes. Screenshots of each, in light
and dark, on request (``--screenshots DIR``)."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, Screenshots, click_to_confirm
from tests.support.server import LiveServer

# Each game at its largest board: the hardest to fit.
LARGEST = [
    ("valaturna", {"size": 7}),
    ("harmijan", {"size": 7}),
    ("sgolte", {"size": 7, "variant": "standard"}),
    ("jotun", {"size": 6}),
    ("exxit", {"variant": "standard"}),
]
SCREENS = {"laptop": (1366, 768), "phone": (390, 844)}


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, f"{selector} is not shown"
    return found


def on_first_screen(page: Page, selector: str, height: int) -> None:
    b = box(page, selector)
    assert b["y"] >= 0 and b["y"] + b["height"] <= height, f"{selector} ends at {b} past {height}"


def to_play_phase(g: ApiGame, rng: random.Random) -> None:
    """Past the opening and the pie choice, a few moves into the game."""
    for _ in range(40):
        if g.rules.view(g.state())["phase"] == "play" and len(g.moves) >= 4:
            return
        g.play_random(rng, 1)


def seat_page(
    guests: Guests, server: LiveServer, g: ApiGame, seat: int, screen: str, scheme: str
) -> Page:
    width, height = SCREENS[screen]
    kw: dict[str, Any] = {"color_scheme": scheme}
    if screen == "phone":
        kw.update(device_scale_factor=2, is_mobile=True, has_touch=True)
    page = guests.page(width=width, height=height, **kw)
    page.context.add_cookies(g.cookie(seat))
    page.add_init_script("localStorage.setItem('hexmoot-confirm', 'always')")
    page.goto(f"{server.url}/games/{g.id}")
    expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    return page


@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize(("slug", "options"), LARGEST, ids=[s for s, _ in LARGEST])
def test_the_board_fits_and_never_moves_while_a_move_is_built(
    slug: str,
    options: dict[str, Any],
    screen: str,
    server: LiveServer,
    guests: Guests,
    api_games: list[ApiGame],
    screenshots: Screenshots,
) -> None:
    rng = random.Random(f"layout-{slug}")
    g = ApiGame.create(server, slug, options)
    api_games.append(g)
    for client in g.clients.values():  # a cold server's first Jotun calls can be slow
        client.timeout = httpx.Timeout(60)
    to_play_phase(g, rng)
    seat = g.rules.to_move(g.state())
    width, height = SCREENS[screen]
    for scheme in ("dark", "light"):  # dark only looked at; light plays the move
        page = seat_page(guests, server, g, seat, screen, scheme)
        page.wait_for_selector("#board svg.active .hit.can, #choices button")
        board = box(page, "#board svg")
        assert board["y"] + board["height"] <= height, f"the board ends at {board}"
        assert board["x"] >= 0 and board["x"] + board["width"] <= width
        on_first_screen(page, "#prompt-line", height)
        if screen == "phone":  # the names (and the clocks' place) above and below the board
            on_first_screen(page, "#seat-top .name", height)
            on_first_screen(page, "#seat-bottom .name", height)
            if slug != "exxit":  # Exxit's field starts small, and grows
                assert board["width"] >= width - 8, "the board uses the phone's full width"
        screenshots.view(page, f"layout-{slug}-{screen}-{scheme}-turn")
        if scheme == "dark":
            continue

        # one move, click by click, never the pass: the board stays where it was
        def still(page: Page = page, board: dict[str, float] = board) -> None:
            assert box(page, "#board svg") == board, "the board moved while the move was built"

        page.wait_for_selector("#board svg.active .hit.can, #choices button")
        click_to_confirm(page, rng, still)
        play = page.locator("#play-move")
        expect(play).to_be_visible()
        on_first_screen(page, "#play-move", height)
        assert box(page, "#play-move")["height"] >= 44
        assert box(page, "#board svg") == board
        screenshots.view(page, f"layout-{slug}-{screen}-{scheme}-confirm")
        before = len(g.moves)
        play.click()
        page.wait_for_function("(n) => window.hexmoot.state.moves.length > n", arg=before)
        if slug != "exxit":  # a field grows with its tiles
            assert box(page, "#board svg") == board, "the board moved when the move was played"
        g.refresh()
