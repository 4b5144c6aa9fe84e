"""No page is ever wider than its viewport: at 390x844 (a phone, touch) and at 1280x800, every page
and every game-page state of tests/browser/states.py, finished games of all five included (a
finished Valaturna's result line is the known long one).

A page passes when ``document.documentElement.scrollWidth`` is at most the viewport's width and no
element reaches past the viewport's right edge unless an ancestor within the viewport clips or
scrolls it (an SVG board clips its own drawing; a scrolling move list scrolls). Each test checks
every state, then fails once naming each page and its widest elements. The phone is in the dark
theme, the desktop in the light one, so the screenshots (``--screenshots DIR``) show both.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

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
VIEWPORTS: dict[str, dict[str, Any]] = {
    "390": {**PHONE, "color_scheme": "dark"},
    "1280": {**DESKTOP, "color_scheme": "light"},
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
    def __init__(self, screenshots: Screenshots, viewport: str) -> None:
        self.screenshots = screenshots
        self.viewport = viewport
        self.width = VIEWPORTS[viewport]["width"]
        self.lines: list[str] = []

    def __call__(self, page: Page, name: str) -> None:
        self.lines += [f"{name} at {self.viewport}: {line}" for line in overflow(page, self.width)]
        self.screenshots.page(page, f"overflow-{name}-{self.viewport}")

    def assert_none(self) -> None:
        assert not self.lines, f"{len(self.lines)} pages too wide:\n" + "\n".join(self.lines)


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_empty_lists_fit(
    empty_server: LiveServer, guests: Guests, screenshots: Screenshots, viewport: str
) -> None:
    found = Findings(screenshots, viewport)
    visit_empty_site(guests, empty_server, found, **VIEWPORTS[viewport])
    found.assert_none()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_site_pages_fit(
    world: World, guests: Guests, screenshots: Screenshots, viewport: str
) -> None:
    found = Findings(screenshots, viewport)
    visit_site_pages(guests, world, found, **VIEWPORTS[viewport])
    found.assert_none()


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("slug", SLUGS)
def test_game_page_states_fit(
    world: World, guests: Guests, screenshots: Screenshots, slug: str, viewport: str
) -> None:
    found = Findings(screenshots, viewport)
    visit_game_states(guests, world, slug, found, **VIEWPORTS[viewport])
    found.assert_none()
