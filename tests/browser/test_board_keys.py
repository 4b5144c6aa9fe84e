"""The board played from the keyboard in a live game (two guests): one tab stop, arrow keys along the
hex directions, Enter plays the focused cell, Escape cancels the clicks so far; each cell names
itself and its contents."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, Screenshots, move_count
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser


@pytest.fixture()
def seat_page(server: LiveServer, guests: Guests) -> Iterator[Any]:
    made: list[ApiGame] = []

    def open_as(slug: str, options: dict[str, Any], **kwargs: Any) -> tuple[ApiGame, Page]:
        game = ApiGame.create(server, slug, options)
        made.append(game)
        page = guests.page(**kwargs)
        page.context.add_cookies(game.cookie(1))  # type: ignore[arg-type]
        page.goto(f"{server.url}/games/{game.id}")
        page.wait_for_selector("#board svg.active .hit.can")
        return game, page

    yield open_as
    for g in made:
        g.close()


def focused(page: Page) -> str | None:
    return page.evaluate("document.activeElement && document.activeElement.dataset.id || null")


def test_keyboard_reaches_a_cell_and_enter_plays_it(
    seat_page: Any, screenshots: Screenshots
) -> None:
    _game, page = seat_page("jotun", {"size": 4})
    board = page.locator("#board svg")
    expect(board).to_have_attribute("role", "grid")
    assert page.locator('#board [tabindex="0"]').count() == 1  # one tab stop for the whole board
    page.locator('#board [tabindex="0"]').focus()
    assert focused(page) == "d4"  # the middle cell
    page.keyboard.press("ArrowRight")
    assert focused(page) == "d5"
    page.keyboard.press("ArrowDown")
    assert focused(page) == "e4"
    page.keyboard.press("ArrowDown")  # down again keeps the column: f4 is straight below d5
    assert focused(page) == "f4"
    page.keyboard.press("ArrowUp")
    assert focused(page) == "e4"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowLeft")
    assert focused(page) == "f3"
    page.keyboard.press("ArrowRight")
    label = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert label == "f4, empty, you can play here"
    assert (
        page.evaluate("window.hexmoot.state.review") is None
    )  # the arrows did not step the replay
    screenshots.page(page, "keys-focus")
    page.keyboard.press("Enter")
    expect(page.locator("#play-move")).to_be_focused()  # the confirm, then Enter plays it
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.hexmoot.state.moves.length === 1")
    assert page.evaluate("window.hexmoot.state.moves[0]") == "f4"
    assert move_count(page) == 1
    stone = page.locator('#board .hit[data-id="f4"]')
    expect(stone).to_have_attribute("aria-label", re.compile(r"^f4, black"))


def test_escape_cancels_the_clicks_so_far(seat_page: Any) -> None:
    _game, page = seat_page("harmijan", {"size": 5})
    page.locator('#board [tabindex="0"]').focus()
    first = focused(page)
    page.keyboard.press("Enter")
    expect(page.locator("#board .marks .chosen")).to_have_count(1)
    page.wait_for_function("() => window.hexmoot.entry.prefix.length === 1")
    assert focused(page) == first  # focus survives the redraw
    page.keyboard.press("Escape")
    expect(page.locator("#board .marks .chosen")).to_have_count(0)
    assert page.evaluate("window.hexmoot.entry.prefix.length") == 0
