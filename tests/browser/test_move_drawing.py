"""The move being built, drawn on the real game page (issue 25): after each click the board shows
the position the clicks leave (the steps' ``changes``), read from the SVG: the stack drawn on each
cell (``g[data-at]`` and its pieces), a stack picked up to move drawn lifted over its cell, what a
capture removes gone from the board; and the pie choice's prompt says what each colour gets.

Games are set up through the HTTP API (each seat its own guest) and the seat to move plays by
clicking cells on its page, as a player does."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.boardpage import click, create, drawn, mover_page, wait_moves
from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser


def test_valaturna_opening_shows_the_black_stack_then_previews_the_white(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "valaturna", {"size": 5})
    page = mover_page(guests, server, g)
    click(page, "e3")
    assert drawn(page) == {"e3": {"top": "B", "height": 1, "lifted": False, "layer": "pieces"}}
    expect(page.locator("#prompt")).to_have_text("Place the white stack")
    page.locator('#board .hit[data-id="e7"]').hover()  # the white stack the next click puts down
    expect(page.locator("#board .overlay .ghost .piece.top.pc-W")).to_have_count(1)
    click(page, "e7")
    wait_moves(page, 1)
    got = drawn(page)
    assert (got["e3"]["top"], got["e7"]["top"]) == ("B", "W")


def test_harmijan_opening_shows_each_stone_in_its_colour(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "harmijan", {"size": 6})
    page = mover_page(guests, server, g)
    want: dict[str, str] = {}
    for cell, colour in (("f5", "B"), ("f6", "B"), ("c3", "W")):
        click(page, cell)
        want[cell] = colour
        assert {c: d["top"] for c, d in drawn(page).items()} == want  # never an outline
        assert all(d["layer"] == "pieces" for d in drawn(page).values())
    click(page, "c4")
    wait_moves(page, 1)
    assert {c: d["top"] for c, d in drawn(page).items()} == {**want, "c4": "W"}


def test_harmijan_moved_stone_leaves_its_origin(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "harmijan", {"size": 6})
    g.play("f5,f6/c3,c4")
    g.play("black")
    page = mover_page(guests, server, g)
    click(page, "f5")
    assert drawn(page)["f5"] == {"top": "B", "height": 1, "lifted": True, "layer": "hand"}
    click(page, "e5")
    expect(page.locator("#prompt")).to_have_text("Place the new stone in line with it")
    got = drawn(page)
    assert "f5" not in got  # gone from its origin, neither drawn there nor lifted
    assert got["e5"]["top"] == "B" and not got["e5"]["lifted"]
    click(page, "e7")
    wait_moves(page, 3)
    assert "f5" not in drawn(page) and drawn(page)["e7"]["top"] == "B"


def test_sgolte_placed_stone_shows_and_a_captured_stone_leaves(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "sgolte", {"size": 5, "variant": "standard"})
    # the rules' example 3: Black c5 c7 against the white group c2 d3 e3 e4 e5
    for text in ("c5", "white", "c2", "c7", "d3", "a1", "e3", "i5", "e4", "i1", "e5"):
        g.play(text)
    page = mover_page(guests, server, g)
    click(page, "c6")  # a merging placement: the capture is chosen next
    assert drawn(page)["c6"]["top"] == "B"
    expect(page.locator("#prompt")).to_have_text(
        "Choose the line to capture: click its first stone"
    )
    for n, captured in enumerate(("c2", "d3", "e4")):
        click(page, captured)
        got = drawn(page)
        assert captured not in got  # off the board at once
        # and not offered again: no ring of a legal target on it
        ring = page.locator(f'#board .hit.can[data-id="{captured}"]')
        if n < 2:
            expect(ring).to_have_count(0)
        assert got["c6"]["top"] == "B"
    expect(page.locator("#prompt")).to_contain_text("Re-place 3 stones")
    for cell in ("c2", "d3", "e4"):
        click(page, cell)
    wait_moves(page, 12)
    got = drawn(page)
    assert all(got[c]["top"] == "B" for c in ("c2", "c6", "d3", "e4"))


def test_jotun_picked_stack_is_lifted_until_its_destination(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "jotun", {"size": 4})
    for text in ("d4", "white", "a1", "g4", "d1"):
        g.play(text)
    page = mover_page(guests, server, g)
    click(page, "d4")
    got = drawn(page)
    assert got["d4"] == {"top": "B", "height": 1, "lifted": True, "layer": "hand"}
    lift = page.evaluate(
        """() => {
          const g = document.querySelector('#board .hand [data-at="d4"]');
          const cell = document.querySelector('#board .hit[data-id="d4"]').getBoundingClientRect();
          const disc = g.querySelector('.piece.top').getBoundingClientRect();
          return { raised: cell.y + cell.height / 2 - (disc.y + disc.height / 2),
                   shadow: !!document.querySelector('#board .lift-shadow') };
        }"""
    )
    assert lift["raised"] > 3 and lift["shadow"]  # drawn above its cell, its shadow left there
    expect(page.locator("#prompt")).to_have_text("Pick where the stack stops")
    name = page.get_attribute('#board .hit[data-id="d4"]', "aria-label")
    assert name is not None and "picked up" in name
    destination = page.eval_on_selector("#board .hit.can", "e => e.dataset.id")
    click(page, destination)
    wait_moves(page, 6)
    got = drawn(page)
    assert "d4" not in got and not any(d["lifted"] for d in got.values())


def test_exxit_dancer_is_lifted(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "exxit", {"variant": "beginner"})
    g.play("0,0")
    g.play("1,-1")
    page = mover_page(guests, server, g)  # Red must dance 0,0>1,-1
    click(page, "0,0")
    assert drawn(page)["0,0"] == {"top": "R", "height": 1, "lifted": True, "layer": "hand"}
    click(page, "1,-1")
    wait_moves(page, 3)
    got = drawn(page)
    assert "0,0" not in got and got["1,-1"] == {
        "top": "R",
        "height": 2,
        "lifted": False,
        "layer": "pieces",
    }


@pytest.mark.parametrize(
    ("slug", "options", "setup", "prompt"),
    [
        ("jotun", {"size": 4}, "d4", "Black owns the stack on d4; White moves next"),
        (
            "sgolte",
            {"size": 5, "variant": "standard"},
            "e5",
            "Black owns the stone on e5; White moves next",
        ),
        (
            "valaturna",
            {"size": 5},
            "e3/e7",
            "Black owns the stack on e3 and moves first; White owns the stack on e7",
        ),
        (
            "harmijan",
            {"size": 6},
            "f5,f6/c3,c4",
            "Black owns the stones on f5 and f6 and moves first; White owns the stones on c3 and c4",
        ),
    ],
)
def test_the_pie_choice_says_once_what_each_colour_gets(
    slug: str,
    options: dict[str, object],
    setup: str,
    prompt: str,
    server: LiveServer,
    guests: Guests,
    api_games: list[ApiGame],
) -> None:
    g = create(server, api_games, slug, dict(options))
    g.play(setup)
    page = mover_page(guests, server, g)
    expect(page.locator("#prompt")).to_have_text(prompt)
    expect(page.locator("#choices button")).to_have_count(2)
