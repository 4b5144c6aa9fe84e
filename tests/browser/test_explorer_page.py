"""The opening explorer's page in Chromium (issue 28): the continuations of imported Valaturna games
as a table, walked by clicking a row and then a cell of the board, the counts shown at each step
(mirrored openings merged), Back, the archive's games that reached the position, and a replay's
"Explore from here". Screenshots (light, dark, a 390 px phone) when asked for."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.sync_api import Page, expect

import games
from games.record import make_record
from tests.browser.conftest import Guests
from tests.browser.helpers import ConsoleErrors, Screenshots
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer

OPENINGS = [  # moves, winning seat: e7/e3 is the half turn of e3/e7, and e5 its own image
    (["e3/e7", "white", "e5"], 1),
    (["e7/e3", "white", "e5"], 2),
    (["e3/e7", "white", "e4"], 1),
    (["e3/e6", "black"], 2),
]


@pytest.fixture(scope="module")
def imported(server: LiveServer) -> list[str]:
    """The four openings imported as finished games (resigned): their ids, in order."""
    rules = games.get("valaturna", {"size": 5})
    ids = []
    with httpx.Client(base_url=server.url, timeout=PATIENCE) as client:
        client.put("/api/me", json={"name": "Curator"}).raise_for_status()
        for i, (moves, winner) in enumerate(OPENINGS):
            players = [{"seat": 1, "name": f"Vera{i}"}, {"seat": 2, "name": "Oto"}]
            result = {"winner": winner, "reason": "resignation"}
            answer = client.post(
                "/api/archive/import", json=make_record(rules, moves, players, result)
            )
            answer.raise_for_status()
            ids.append(answer.json()["id"])
    return ids


def rows(page: Page) -> dict[str, str]:
    """The continuations shown: move -> games."""
    expect(page.locator("#x-summary")).not_to_be_empty()
    found = {}
    for row in page.locator("#x-moves tr").all():
        found[row.locator("th").inner_text().strip()] = row.locator("td").first.inner_text()
    return found


def test_walk_two_plies_and_find_the_games(
    server: LiveServer, guests: Guests, imported: list[str], screenshots: Screenshots
) -> None:
    page = guests.page()
    page.goto(server.url + "/explorer/valaturna?options=size=5")
    expect(page.locator("#x-summary")).to_contain_text("4 finished games")
    assert rows(page) == {"e3/e7": "3", "e3/e6": "1"}  # e7/e3 merged into e3/e7
    expect(page.locator("#x-board svg.board-svg")).to_be_visible()
    bar = page.locator("#x-moves tr").first.locator(".result-bar")
    expect(bar).to_have_attribute("aria-label", "67% Black won, 0% drawn, 33% White won")
    screenshots.page(page, "explorer-light")

    # Ply 1 by its row, ply 2 the same way: the counts follow, and the URL holds the moves.
    page.get_by_role("button", name="e3/e7", exact=True).click()
    expect(page.locator("#x-path li")).to_have_count(2)
    assert rows(page) == {"white": "3"}
    page.get_by_role("button", name="white", exact=True).click()
    expect(page.locator("#x-path li")).to_have_count(3)
    assert rows(page) == {"e5": "2", "e4": "1"}
    expect(page.locator("#x-summary")).to_contain_text("3 finished games")
    assert parse_qs(urlsplit(page.url).query)["moves"] == ["e3/e7 white"]
    screenshots.page(page, "explorer-ply2")

    # Ply 3 by a click on the board's cell e5, offered because a continuation starts there.
    page.locator('#x-board [data-id="e5"]').click()
    expect(page.locator("#x-path li")).to_have_count(4)
    expect(page.locator("#x-summary")).to_contain_text("2 finished games")
    expect(page.locator("#x-recent li")).to_have_count(2)

    # The games that reached this position, in the archive (position search).
    page.locator("#x-games").click()
    expect(page).to_have_url(re.compile(r"/archive\?.*position="))
    expect(page.locator("#rows .archive-entry")).to_have_count(2)
    assert set(
        page.locator("#rows .archive-entry").evaluate_all("(es) => es.map((e) => e.dataset.game)")
    ) == {imported[0], imported[1]}

    # Back in the browser's history, then the explorer's own Back.
    page.go_back()
    expect(page.locator("#x-path li")).to_have_count(4)
    page.locator("#x-back").click()
    expect(page.locator("#x-path li")).to_have_count(3)
    assert rows(page) == {"e5": "2", "e4": "1"}


def test_explore_from_a_replay_and_search_by_moves(
    server: LiveServer,
    guests: Guests,
    console: ConsoleErrors,
    imported: list[str],
    screenshots: Screenshots,
) -> None:
    console.allow(r"status of 422")  # the refused move list below, as the browser reports it
    page = guests.page()
    page.goto(f"{server.url}/games/{imported[1]}?ply=2")
    link = page.locator("#explore")
    expect(link).to_be_visible()
    screenshots.page(page, "explorer-replay-link")
    link.click()
    # The mirrored game's position: the same counts, each continuation written on this board
    # (e4, played on the other orientation, is e6 here).
    expect(page.locator("#x-path li")).to_have_count(3)
    assert parse_qs(urlsplit(page.url).query)["moves"] == ["e7/e3 white"]
    assert rows(page) == {"e5": "2", "e6": "1"}

    # A pasted move list (a record's, numbered) shows its position; a bad one says which move.
    page.locator("#x-search summary").click()
    page.fill("#x-search-text", "1. e3/e6 2. black")
    page.get_by_role("button", name="Show this position").click()
    expect(page.locator("#x-summary")).to_contain_text("1 finished game reached")
    page.fill("#x-search-text", "e3/e6 e5")
    page.get_by_role("button", name="Show this position").click()
    expect(page.locator("#x-error")).to_contain_text("Move 2")

    dark = guests.page(color_scheme="dark")
    dark.goto(server.url + "/explorer/valaturna?options=size=5&moves=e3/e7+white")
    expect(dark.locator("#x-moves tr")).to_have_count(2)
    screenshots.page(dark, "explorer-dark")
    phone = guests.page(width=390, height=844, is_mobile=True, has_touch=True)
    phone.goto(server.url + "/explorer/valaturna?options=size=5&moves=e3/e7+white")
    expect(phone.locator("#x-moves tr")).to_have_count(2)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px phone"
    screenshots.page(phone, "explorer-phone")
