"""The 404 page, the rules index and a game page's link to its own rules, in a real browser: light,
dark and a 390 px phone, none wider than its viewport. Screenshots on request (``--screenshots``)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, ConsoleErrors, Screenshots
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

SLUGS = ["exxit", "harmijan", "jotun", "sgolte", "valaturna"]


def test_error_pages_and_the_rules_index_in_both_themes_and_on_a_phone(
    server: LiveServer, guests: Guests, console: ConsoleErrors, screenshots: Screenshots
) -> None:
    console.allow(r"status of 404")  # the browser reports the page's own 404 status
    views = [("light", 1280, 900), ("dark", 1280, 900), ("light", 390, 844), ("dark", 390, 844)]
    for theme, width, height in views:
        page = guests.page(width=width, height=height, color_scheme=theme)
        for name, path in (("nothing", "/nothing"), ("game", "/games/nosuchgame")):
            response = page.goto(server.url + path)
            assert response is not None and response.status == 404
            expect(page.locator("h1")).to_have_text("Page not found")
            expect(page.get_by_role("link", name="Go to the lobby")).to_have_attribute("href", "/")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            screenshots.page(page, f"error-{name}-{theme}-{width}")
        page.goto(server.url + "/rules")
        cards = page.locator(".rules-cards li")
        expect(cards).to_have_count(5)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        screenshots.page(page, f"rules-index-{theme}-{width}")
    # The header's Rules link on a wide page, the footer's on a phone (the header keeps one row).
    page.locator("a[href='/rules']:visible").first.click()
    expect(page).to_have_url(server.url + "/rules")
    page.get_by_role("link", name="Valaturna").click()
    expect(page).to_have_url(server.url + "/rules/valaturna")
    expect(page.locator("h1")).to_have_text("Valaturna")


def test_a_game_page_links_to_its_own_rules(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    for slug in ("harmijan", "exxit"):
        g = ApiGame.create(server, slug, {})
        try:
            page = guests.page()
            page.goto(f"{server.url}/games/{g.id}")
            link = page.locator("#rules-link")
            expect(link).to_be_visible()
            expect(link).to_have_attribute("href", f"/rules/{slug}")
            screenshots.element(page.locator(".game-head"), f"rules-link-{slug}")
            link.click()
            expect(page).to_have_url(f"{server.url}/rules/{slug}")
        finally:
            g.close()
