"""Taps on a phone land where they were meant (issue 25): on a touch screen whose board cells are
narrower than a fingertip (a size-7 board on a 390 px phone: about 24 px), the first tap on the
board plays nothing and opens a magnifier (the loupe, drawn by the board's own renderer) around the
tap, whose cells are wide enough for a finger; a tap there chooses that cell, and only a cell the
server offers. Boards whose cells are wide enough (Exxit's field) play at the first tap.

Playwright's touch emulation (``has_touch``, ``is_mobile``, ``locator.tap()``) on the real page."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.boardpage import create, mover_page, wait_moves, wait_steps
from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, Screenshots
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

PHONE: dict[str, Any] = {
    "width": 390,
    "height": 844,
    "has_touch": True,
    "is_mobile": True,
    "device_scale_factor": 3,
}


def state(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        "({ prefix: window.hexmoot.entry.prefix, moves: window.hexmoot.state.moves.length })"
    )
    return result


def cell_width(page: Page, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    assert box is not None
    return float(box["width"])


def tap_in_loupe(page: Page, cell: str) -> None:
    n = len(state(page)["prefix"])
    page.locator(f'.loupe .hit[data-id="{cell}"]').tap()
    page.wait_for_function(
        """(n) => { const S = window.hexmoot.state, E = window.hexmoot.entry;
          return S.moves.length > 0 && E.prefix.length === 0
            || (E.prefix.length === n + 1 && E.steps && E.steps.msg_id === E.stepsId); }""",
        arg=n,
    )


def test_a_tap_on_small_cells_magnifies_then_chooses(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    g = create(server, api_games, "valaturna", {"size": 7})
    page = mover_page(guests, server, g, **PHONE)
    assert cell_width(page, '#board .hit[data-id="g7"]') < 40  # smaller than a fingertip
    page.locator('#board .hit[data-id="g7"]').tap()
    loupe = page.locator(".loupe")
    expect(loupe).to_be_visible()
    assert state(page) == {"prefix": [], "moves": 0}  # the first tap played nothing
    assert cell_width(page, '.loupe .hit[data-id="g7"]') >= 56  # a fingertip's room
    # the magnified cells are the board's: the same marks, the names to find one's way
    assert page.locator(".loupe .dest.dot").count() > 0
    expect(page.locator('.loupe .loupe-name:text-is("g7")')).to_have_count(1)
    screenshots.page(page, "phone-loupe")
    tap_in_loupe(page, "g8")
    assert state(page)["prefix"] == ["g8"]
    # the move wants another click: the loupe stays, drawing the pending black stack
    expect(loupe).to_be_visible()
    expect(page.locator('.loupe [data-at="g8"] .piece.top.pc-B')).to_have_count(1)
    # g8 is no longer offered: a tap on it does nothing
    page.locator('.loupe .hit[data-id="g8"]').tap()
    assert state(page)["prefix"] == ["g8"]
    tap_in_loupe(page, "g10")
    wait_moves(page, 1)
    assert page.evaluate("window.hexmoot.state.moves") == ["g8/g10"]
    expect(loupe).to_have_count(0)  # the move is complete: the loupe is gone


def test_every_cell_of_the_loupe_chooses_itself(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    """A tap on the board near a cell, then on that cell in the loupe, chooses exactly it: for a
    cell and each of its neighbours."""
    g = create(server, api_games, "valaturna", {"size": 7})
    page = mover_page(guests, server, g, **PHONE)
    for cell in ("d5", "d4", "d6", "c4", "c5", "e5", "e6"):
        page.locator(f'#board .hit[data-id="{cell}"]').tap()
        expect(page.locator(".loupe")).to_be_visible()
        assert state(page)["prefix"] == []
        tap_in_loupe(page, cell)
        assert state(page)["prefix"] == [cell]
        page.locator("#cancel-move").tap()  # outside the board: the loupe closes too
        wait_steps(page, 0)
        expect(page.locator(".loupe")).to_have_count(0)


def test_a_closed_loupe_and_a_tap_elsewhere(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "harmijan", {"size": 7})
    page = mover_page(guests, server, g, **PHONE)
    page.locator('#board .hit[data-id="g7"]').tap()
    expect(page.locator(".loupe")).to_be_visible()
    page.locator(".loupe-close").tap()
    expect(page.locator(".loupe")).to_have_count(0)
    assert state(page) == {"prefix": [], "moves": 0}
    page.locator('#board .hit[data-id="b2"]').tap()  # another part of the board
    expect(page.locator('.loupe .loupe-name:text-is("b2")')).to_have_count(1)
    page.locator('#board .hit[data-id="l3"]').tap()  # moves the loupe there
    expect(page.locator('.loupe .loupe-name:text-is("l3")')).to_have_count(1)
    assert state(page) == {"prefix": [], "moves": 0}


def test_jotun_move_by_finger(server: LiveServer, guests: Guests, api_games: list[ApiGame]) -> None:
    g = create(server, api_games, "jotun", {"size": 6})
    for text in ("f6", "white", "a1", "f8", "k1"):  # Black's f6 may move to f7 or f9
        g.play(text)
    page = mover_page(guests, server, g, **PHONE)
    assert cell_width(page, '#board .hit[data-id="f6"]') < 40
    page.locator('#board .hit[data-id="f6"]').tap()
    tap_in_loupe(page, "f6")  # pick the stack up
    expect(page.locator('.loupe .hand [data-at="f6"]')).to_have_count(1)
    target = page.eval_on_selector(".loupe .hit.can", "e => e.dataset.id")
    tap_in_loupe(page, target)
    wait_moves(page, 6)
    assert page.evaluate("window.hexmoot.state.moves[5]").startswith("f6-")


def test_wide_cells_play_at_the_first_tap(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "exxit", {"variant": "beginner"})
    page = mover_page(guests, server, g, **PHONE)
    assert cell_width(page, '#board .hit[data-id="0,0"]') >= 40
    page.locator('#board .hit[data-id="0,0"]').tap()
    wait_moves(page, 1)
    expect(page.locator(".loupe")).to_have_count(0)


def test_a_mouse_plays_at_the_first_click_whatever_the_cell_size(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "valaturna", {"size": 7})
    page = mover_page(guests, server, g, width=390, height=844)
    page.locator('#board .hit[data-id="g7"]').click()
    wait_steps(page, 1)
    assert state(page)["prefix"] == ["g7"]
    expect(page.locator(".loupe")).to_have_count(0)
