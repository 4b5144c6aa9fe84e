"""axe-core finds no serious or critical violation on any page, in any state, in light and dark.

The pages and game-page states are those of tests/browser/states.py: the lobby, /live and the
archive (empty and full, filtered, a second page, a refused range), the rules index and the five
rules pages, the 404 pages, and for each of the five games its page while waiting (creator,
visitor), on the mover's turn with a first click made, on the opponent's turn, to a spectator, in
review of a ply, and finished. The theme comes from the system (``color_scheme``) in the
parametrized tests, and from the site's own toggle in the last test. Each test checks every state
and then fails once, listing each violation (state, rule, element, what is wrong). Screenshots of
every state on request (``--screenshots DIR``).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import assert_no_serious_axe, serious_axe
from tests.browser.conftest import Guests
from tests.browser.helpers import Screenshots
from tests.browser.states import (
    SLUGS,
    World,
    visit_empty_site,
    visit_game_states,
    visit_site_pages,
)
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

THEMES = ("light", "dark")


class Findings:
    """The serious violations of every state checked, and a screenshot of each state."""

    def __init__(self, screenshots: Screenshots, theme: str) -> None:
        self.screenshots = screenshots
        self.theme = theme
        self.lines: list[str] = []

    def __call__(self, page: Page, name: str) -> None:
        theme = page.evaluate("document.documentElement.dataset.theme")
        assert theme == self.theme, f"{name}: the page shows the {theme} theme"
        self.lines += serious_axe(page, f"{name} ({self.theme})")
        self.screenshots.page(page, f"a11y-{name}-{self.theme}")

    def assert_none(self) -> None:
        assert not self.lines, f"{len(self.lines)} serious axe violations:\n" + "\n".join(
            self.lines
        )


@pytest.mark.parametrize("theme", THEMES)
def test_empty_lists(
    empty_server: LiveServer, guests: Guests, screenshots: Screenshots, theme: str
) -> None:
    found = Findings(screenshots, theme)
    visit_empty_site(guests, empty_server, found, color_scheme=theme)
    found.assert_none()


@pytest.mark.parametrize("theme", THEMES)
def test_site_pages(world: World, guests: Guests, screenshots: Screenshots, theme: str) -> None:
    found = Findings(screenshots, theme)
    visit_site_pages(guests, world, found, color_scheme=theme)
    found.assert_none()


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("slug", SLUGS)
def test_game_page_states(
    world: World, guests: Guests, screenshots: Screenshots, slug: str, theme: str
) -> None:
    found = Findings(screenshots, theme)
    visit_game_states(guests, world, slug, found, color_scheme=theme)
    found.assert_none()


def test_the_theme_toggle_both_ways(world: World, guests: Guests) -> None:
    """The site's own toggle, against the system's scheme: a lobby and a finished game's page, and
    the toggle's name, which says which theme it switches to."""
    pages = [("lobby", "/"), ("finished", f"/games/{world.finished['valaturna'].id}")]
    for system, toggled in (("light", "dark"), ("dark", "light")):
        page = guests.page(color_scheme=system)
        for name, path in pages:
            page.goto(world.server.url + path)
            if name == "finished":
                expect(page.locator("#result")).to_be_visible()
            if page.evaluate("document.documentElement.dataset.theme") != toggled:
                page.click("#theme-toggle")
            assert page.evaluate("document.documentElement.dataset.theme") == toggled
            # the toggle's name says what it does next
            expect(page.locator("#theme-toggle")).to_have_attribute(
                "aria-label", f"Switch to {system} theme"
            )
            assert_no_serious_axe(page, f"{name} (system {system}, toggled to {toggled})")
