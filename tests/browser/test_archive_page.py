"""The archive page in Chromium (issue 28): every game a card with a mini board of its final
position, filtered and sorted through the form, each choice in the URL, and a URL opened afresh
showing the same list. Screenshots (light, dark, a 390 px phone) when asked for."""

from __future__ import annotations

import random
import re
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.sync_api import Page, expect

import games
from games.bench import random_game
from games.record import make_record
from tests.browser.conftest import Guests
from tests.browser.helpers import Screenshots
from tests.support.gameplay import smallest_options
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def imported(server: LiveServer) -> dict[str, dict[str, object]]:
    """Two short records of each game imported by one guest: their archive entries by id."""
    rng = random.Random(2028)
    with httpx.Client(base_url=server.url, timeout=PATIENCE) as client:
        client.put("/api/me", json={"name": "Curator"}).raise_for_status()
        for i, slug in enumerate(sorted(games.names()) * 2):
            rules = games.get(slug, **smallest_options(slug))
            _states, moves = random_game(rules, rng, max_plies=rng.randrange(4, 40))
            players = [{"seat": 1, "name": f"Mira{i}"}, {"seat": 2, "name": "Osk"}]
            record = make_record(rules, moves, players)
            if record["result"] is None:
                record = make_record(
                    rules, moves, players, {"winner": 1 + i % 2, "reason": "resignation"}
                )
            client.post("/api/archive/import", json=record).raise_for_status()
        listed = client.get("/api/archive", params={"limit": 100, "player": "mira"}).json()
    return {g["id"]: g for g in listed["games"]}


def cards(page: Page) -> list[str]:
    """The ids of the cards shown, once the newest load is done and each card has its board."""
    expect(page.locator("#rows")).not_to_have_attribute("aria-busy", "true")
    entries = page.locator("#rows .archive-entry")
    expect(entries.first).to_be_visible()
    expect(page.locator("#rows .archive-entry:not([data-board])")).to_have_count(0)
    return entries.evaluate_all("(es) => es.map((e) => e.dataset.game)")


def test_filter_and_sort_with_mini_boards(
    server: LiveServer,
    guests: Guests,
    imported: dict[str, dict[str, object]],
    screenshots: Screenshots,
) -> None:
    page = guests.page()
    page.goto(server.url + "/archive?player=mira")
    shown = cards(page)
    assert set(shown) == set(imported)
    # Each card's board is the Board of /live, an SVG with cells.
    first = page.locator("#rows .archive-entry").first
    expect(first.locator("svg.board-svg")).to_be_visible()
    assert first.locator("svg.board-svg [data-id]").count() > 0
    expect(first.locator(".archive-result")).not_to_be_empty()
    screenshots.page(page, "archive-light")

    # A game and its option set, then the longest first: the URL says so.
    page.select_option("#f-game", "jotun")
    options = ",".join(f"{k}={v}" for k, v in sorted(smallest_options("jotun").items()))
    page.select_option("#f-options", options)
    page.select_option('select[name="sort"]', "longest")
    page.locator("#filters button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"sort=longest"))
    query = parse_qs(urlsplit(page.url).query)
    assert query["game"] == ["jotun"] and query["options"] == [options]
    jotuns = sorted(
        (g for g in imported.values() if g["game"] == "jotun"),
        key=lambda g: (g["moves"], g["finished_at"], g["id"]),
        reverse=True,
    )
    expect(page.locator("#rows .archive-entry")).to_have_count(len(jotuns))
    assert cards(page) == [g["id"] for g in jotuns]
    assert all(
        page.locator("#rows .archive-entry").evaluate_all(
            "(es) => es.map((e) => e.dataset.slug === 'jotun')"
        )
    )

    # A length range from the more filters, the shortest first.
    page.locator("#more-filters summary").click()
    page.fill('input[name="min_moves"]', "10")
    page.select_option('select[name="sort"]', "shortest")
    page.locator("#filters button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"sort=shortest"))
    wanted = [g["id"] for g in reversed(jotuns) if int(g["moves"]) >= 10]  # type: ignore[call-overload]
    if wanted:
        assert cards(page) == wanted
    else:
        expect(page.locator("#empty")).to_be_visible()

    # The URL opened afresh shows the same filters and list; Back returns to the previous list.
    again = guests.page()
    again.goto(page.url)
    expect(again.locator("#f-options")).to_have_value(options)
    expect(again.locator('input[name="min_moves"]')).to_have_value("10")
    if wanted:
        assert cards(again) == wanted
    page.go_back()
    expect(page.locator('select[name="sort"]')).to_have_value("longest")
    assert cards(page) == [g["id"] for g in jotuns]

    # A refused filter says why, in the protocol's words.
    guests.console.allow("status of 422")  # the browser's own note of the refused request
    page.goto(server.url + "/archive?min_moves=9&max_moves=3")
    expect(page.locator("#error")).to_contain_text("min_moves")


def test_the_archive_in_dark_and_on_a_phone(
    server: LiveServer,
    guests: Guests,
    imported: dict[str, dict[str, object]],
    screenshots: Screenshots,
) -> None:
    dark = guests.page(color_scheme="dark")
    dark.goto(server.url + "/archive?player=mira&limit=8")
    assert len(cards(dark)) == 8
    screenshots.page(dark, "archive-dark")
    phone = guests.page(width=390, height=844, is_mobile=True, has_touch=True)
    phone.goto(server.url + "/archive?player=mira&limit=4&sort=longest")
    assert len(cards(phone)) == 4
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px phone"
    screenshots.page(phone, "archive-phone")
