"""Playing the computer in the browser (issue 29): a person picks "The computer" in the lobby's
form, the game opens with the bot seated, the person clicks moves on the real board and the bot's
replies arrive and are drawn, on the person's page and on a spectator's. The bots' page lists every
level; both pages pass axe, and are pictured in both themes and on a phone when screenshots are
asked for.

Moves are chosen with a seeded ``random.Random`` among the cells and words the page offers (the
page, not the test, decides what is legal); the bot plays at the Beginner level, one ply of
search, so each reply comes at once.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import assert_no_serious_axe
from tests.browser.boardpage import DRAWN, wait_moves
from tests.browser.conftest import Guests
from tests.browser.helpers import Screenshots, move_count, play_one_move
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844, "is_mobile": True, "has_touch": True}
LOOKS: dict[str, dict[str, Any]] = {
    "light": {"color_scheme": "light"},
    "dark": {"color_scheme": "dark"},
    "390-dark": {**PHONE, "color_scheme": "dark"},
    "390-light": {**PHONE, "color_scheme": "light"},
}


def choose_the_computer(page: Page, server: LiveServer, level: str = "beginner") -> None:
    """The lobby's form filled in for a Beginner Exxit game against the computer, as seat 1."""
    page.goto(server.url + "/")
    page.fill("#name", "Ann")
    page.check('input[name="game"][value="exxit"]')
    page.select_option("#opt-variant", "beginner")
    page.select_option("#opponent", level)
    page.select_option("#seat", "1")


def drawn_board(page: Page) -> dict[str, Any]:
    board: dict[str, Any] = page.evaluate(DRAWN)
    return board


def test_a_person_plays_the_computer_and_a_spectator_sees_its_replies(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    page = guests.page()
    choose_the_computer(page, server)
    expect(page.locator("#create")).to_have_text("Play the computer")
    expect(page.locator("#visibility-option")).to_be_hidden()
    page.click("#create")
    page.wait_for_url("**/games/*")
    game_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    expect(page.locator("#players")).to_contain_text("Beginner bot")
    expect(page.locator("#players")).to_contain_text("Ann")

    watcher = guests.page()
    watcher.goto(f"{server.url}/games/{game_id}")
    expect(watcher.locator("#conn")).to_have_attribute("data-state", "open")

    rng = random.Random(4)
    for _ in range(3):  # the opening, the bot's pie choice, then moves of play
        before = move_count(page)
        play_one_move(page, rng)
        # The bot's reply arrives on the socket and the board draws the position after it.
        wait_moves(page, before + 2)
    moves = page.evaluate("window.hexmoot.state.moves")
    wait_moves(watcher, len(moves))
    assert watcher.evaluate("window.hexmoot.state.moves") == moves
    assert drawn_board(watcher) == drawn_board(page)
    expect(page.locator("#status")).to_contain_text("Your move")
    screenshots.page(page, "bot-game-played")
    screenshots.page(watcher, "bot-game-spectator")


def test_the_bots_page_and_the_lobby_form_in_every_look(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    for name, look in LOOKS.items():
        page = guests.page(**look)
        page.goto(server.url + "/bots")
        expect(page.locator("h1")).to_have_text("Play the computer")
        for level in ("Beginner", "Easy", "Medium", "Hard"):
            expect(page.locator(f"#bot-{level.lower()}")).to_contain_text(f"{level} bot")
        expect(page.locator("#bot-hard").locator("..").locator("tbody tr")).to_have_count(5)
        size = page.viewport_size
        assert size is not None
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], name
        assert_no_serious_axe(page, f"/bots {name}")
        screenshots.page(page, f"bots-page-{name}")
        # "Play" on a bot's panel opens the lobby with it chosen.
        page.get_by_role("link", name="Play the Easy bot").click()
        page.wait_for_url("**/?opponent=easy")
        expect(page.locator("#opponent")).to_have_value("easy")
        expect(page.locator("#create")).to_have_text("Play the computer")
        assert_no_serious_axe(page, f"the lobby {name}")
        screenshots.view(page, f"bots-lobby-{name}")
        # A game against the bot, pictured in this look too.
        choose_the_computer(page, server, "easy")
        page.click("#create")
        page.wait_for_url("**/games/*")
        expect(page.locator("#players")).to_contain_text("Easy bot")
        screenshots.view(page, f"bot-game-{name}")
