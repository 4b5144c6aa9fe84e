"""Every page in every state is read by axe-core and measured: axe finds no serious or critical
violation, and nothing is wider than the viewport. Each state is visited twice, on a 390x844
phone (touch) in the dark theme and at 1280x800 in the light one, so both themes and both widths
are checked in one visit each (the theme comes from the system, ``color_scheme``; the last test
uses the site's own toggle).

The pages and game-page states are those of tests/browser/states.py: the lobby, /live and the
archive (empty and full, filtered, a second page, a refused range), the rules index and the five
rules pages, the 404 pages, and for each of the five games its page while waiting (creator,
visitor), on the mover's turn with a first click made, on the opponent's turn, to a spectator, in
review of a ply, and finished (a finished Valaturna's result line is the known long one).

A page fits when ``document.documentElement.scrollWidth`` is at most the viewport's width and no
element reaches past the viewport's right edge unless an ancestor within the viewport clips or
scrolls it (an SVG board clips its own drawing; a scrolling move list scrolls). Each test checks
every state, then fails once, listing each violation (state, rule or widest elements, what is
wrong). Screenshots of every state on request (``--screenshots DIR``).
"""

from __future__ import annotations

from typing import Any

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

PHONE = {"width": 390, "height": 844, "is_mobile": True, "has_touch": True}
DESKTOP = {"width": 1280, "height": 800}
VIEWS: dict[str, dict[str, Any]] = {
    "390-dark": {**PHONE, "color_scheme": "dark"},
    "1280-light": {**DESKTOP, "color_scheme": "light"},
}

# The page's scroll width, and the innermost elements that reach past the right edge W, or whose
# text does (text overflowing a narrow box leaves the box's own rectangle inside), without an
# ancestor inside the viewport that clips or scrolls them; at most 8, described for a person.
_WIDE = """(W) => {
  const held = (el, self) => {
    for (let a = self ? el : el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== "visible" && a.getBoundingClientRect().right <= W + 0.5) return true;
    }
    return false;
  };
  const wide = new Set();
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.width && r.right > W + 0.5 && !held(el, false)) wide.add(el);
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    if (!t.textContent.trim() || !t.parentElement) continue;
    range.selectNodeContents(t);
    const r = range.getBoundingClientRect();
    if (r.width && r.right > W + 0.5 && !held(t.parentElement, true)) wide.add(t.parentElement);
  }
  const inner = [...wide].filter((el) => ![...wide].some((o) => o !== el && el.contains(o)));
  return {
    scroll: document.documentElement.scrollWidth,
    wide: inner.slice(0, 8).map((el) => {
      const r = el.getBoundingClientRect();
      const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
        [...el.classList].map((c) => "." + c).join("");
      const text = (el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 60);
      return `${name} [${Math.round(r.left)}..${Math.round(r.right)}, scroll ${el.scrollWidth}] "${text}"`;
    }),
  };
}"""


def overflow(page: Page, width: int) -> list[str]:
    """What makes the page wider than ``width``: nothing when it fits."""
    found = page.evaluate(_WIDE, width)
    if found["scroll"] <= width and not found["wide"]:
        return []
    return [f"{found['scroll']} px wide; past the edge: " + "; ".join(found["wide"])]


class Findings:
    """The serious axe violations and the overflows of every state checked, and a screenshot of
    each state."""

    def __init__(self, screenshots: Screenshots, view: str) -> None:
        self.screenshots = screenshots
        self.view = view
        self.theme = VIEWS[view]["color_scheme"]
        self.width = VIEWS[view]["width"]
        self.lines: list[str] = []

    def __call__(self, page: Page, name: str) -> None:
        theme = page.evaluate("document.documentElement.dataset.theme")
        assert theme == self.theme, f"{name}: the page shows the {theme} theme"
        self.lines += serious_axe(page, f"{name} ({self.view})")
        self.lines += [f"{name} at {self.view}: {line}" for line in overflow(page, self.width)]
        self.screenshots.page(page, f"state-{name}-{self.view}")

    def assert_none(self) -> None:
        assert not self.lines, f"{len(self.lines)} violations:\n" + "\n".join(self.lines)


@pytest.mark.parametrize("view", VIEWS)
def test_empty_lists(
    empty_server: LiveServer, guests: Guests, screenshots: Screenshots, view: str
) -> None:
    found = Findings(screenshots, view)
    visit_empty_site(guests, empty_server, found, **VIEWS[view])
    found.assert_none()


@pytest.mark.parametrize("view", VIEWS)
def test_site_pages(world: World, guests: Guests, screenshots: Screenshots, view: str) -> None:
    found = Findings(screenshots, view)
    visit_site_pages(guests, world, found, **VIEWS[view])
    found.assert_none()


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("slug", SLUGS)
def test_game_page_states(
    world: World, guests: Guests, screenshots: Screenshots, slug: str, view: str
) -> None:
    found = Findings(screenshots, view)
    visit_game_states(guests, world, slug, found, **VIEWS[view])
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
