"""A whole short game played from the keyboard alone, by two guests on two pages: Valaturna's
opening (two points), the colour choice, a placement, and two passes that end it. Every step is a
key press: Tab to reach the board or a button, arrows along the board, Enter to act. No click, no
typed move, and nothing through the API after the seats are taken."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, Screenshots
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

ACTIVE = "document.activeElement"


@pytest.fixture()
def game(server: LiveServer) -> Iterator[ApiGame]:
    g = ApiGame.create(server, "valaturna", {"size": 5})
    yield g
    g.close()


def tab_to(page: Page, test: str, limit: int = 80) -> None:
    """Press Tab until the focused element passes ``test`` (a JS expression over ``el``)."""
    for _ in range(limit):
        if page.evaluate(f"(() => {{ const el = {ACTIVE}; return Boolean(el && ({test})); }})()"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {test}")


def offered(page: Page) -> list[str]:
    return list(page.evaluate("window.hexmoot.entry.steps ? window.hexmoot.entry.steps.next : []"))


def focused_cell(page: Page) -> str | None:
    return page.evaluate(f"{ACTIVE} && {ACTIVE}.dataset ? {ACTIVE}.dataset.id || null : null")


def confirm_with_enter(page: Page) -> None:
    """The move's confirm takes the focus: Enter plays it."""
    expect(page.locator("#play-move")).to_be_focused()
    page.keyboard.press("Enter")


def arrow_to_an_offered_cell(page: Page) -> str:
    """From the board's tab stop, walk the rows with the arrow keys (right along a row, down to the
    next, left along it: a snake) until the focused cell is one the server offers; Enter there."""
    tab_to(page, "el.getAttribute('role') === 'gridcell'")
    want = set(offered(page))
    for _ in range(10):  # at most one row's width up, to start from the top row
        before = focused_cell(page)
        page.keyboard.press("ArrowUp")
        if focused_cell(page) == before:
            break
    direction = "ArrowRight"
    for _ in range(400):
        cell = focused_cell(page)
        assert cell is not None, "focus left the board"
        if cell in want:
            label = page.evaluate(f"{ACTIVE}.getAttribute('aria-label')")
            assert "you can play here" in label or "you can pick" in label, label
            page.keyboard.press("Enter")
            return cell
        page.keyboard.press(direction)
        if focused_cell(page) == cell:  # the row's end: down one, and back the other way
            page.keyboard.press("ArrowDown")
            direction = "ArrowLeft" if direction == "ArrowRight" else "ArrowRight"
    raise AssertionError(f"the arrows never reached any of {sorted(want)}")


def wait_turn(page: Page) -> None:
    page.wait_for_function(
        """() => { const s = window.hexmoot.entry;
            return s.steps && s.steps.next.length && s.stepsId === s.steps.msg_id; }"""
    )


def test_a_whole_short_game_from_the_keyboard(
    server: LiveServer, guests: Guests, game: ApiGame, screenshots: Screenshots
) -> None:
    pages: dict[int, Page] = {}
    for seat in (1, 2):
        page = guests.page(width=1280, height=900)
        page.context.add_cookies(game.cookie(seat))  # type: ignore[arg-type]
        page.goto(f"{server.url}/games/{game.id}")
        expect(page.locator("#status")).not_to_be_empty()
        pages[seat] = page
    first, second = pages[1], pages[2]

    # the opening: seat 1 puts down two points, each from the keyboard
    wait_turn(first)
    arrow_to_an_offered_cell(first)
    first.wait_for_function("() => window.hexmoot.entry.prefix.length === 1")
    wait_turn(first)
    arrow_to_an_offered_cell(first)  # the second point completes the opening: its confirm
    confirm_with_enter(first)
    first.wait_for_function("() => window.hexmoot.state.moves.length === 1")

    # the colour choice: seat 2 tabs to "Play black" and presses Enter
    wait_turn(second)
    tab_to(second, "el.dataset && el.dataset.token === 'black'")
    second.keyboard.press("Enter")
    second.wait_for_function("() => window.hexmoot.state.moves.length === 2")

    # the seat to move places a stone with the arrows; then both pass, by keyboard, which ends it
    def mover() -> Page:
        snapshot = game.clients[1].get(f"/api/games/{game.id}").raise_for_status().json()
        return pages[snapshot["game"]["to_move"]]

    page = mover()
    wait_turn(page)
    placed = arrow_to_an_offered_cell(page)
    confirm_with_enter(page)
    page.wait_for_function("() => window.hexmoot.state.moves.length === 3")
    for ply in (4, 5):
        page = mover()
        wait_turn(page)
        tab_to(page, "el.dataset && el.dataset.token === 'pass'")
        page.keyboard.press("Enter")
        confirm_with_enter(page)
        page.wait_for_function(f"() => window.hexmoot.state.moves.length === {ply}")

    for page in (first, second):
        page.wait_for_function("() => window.hexmoot.state.game.status === 'finished'")
        expect(page.locator("#result")).to_contain_text("wins")
    assert game.clients[1].get(f"/api/games/{game.id}").json()["game"]["moves"][2:] == [
        placed,
        "pass",
        "pass",
    ]
    # the position in words, for a screen reader, names the stone just placed
    expect(second.locator("#position-text")).to_contain_text(placed)
    screenshots.page(second, "keyboard-game-over")
