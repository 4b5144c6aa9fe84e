"""The board renderer draws real views of every engine: seeded random games from the rules package,
rendered in Chromium by static/js/board.js, checked cell by cell in both themes (screenshots on
request: ``--screenshots DIR``)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import games
from games.bench import random_game
from tests.browser.conftest import Guests
from tests.browser.helpers import Screenshots
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

OPTIONS: dict[str, dict[str, Any]] = {
    "jotun": {"size": 5},
    "valaturna": {"size": 7},
    "harmijan": {"size": 6},
    "sgolte": {"size": 6},
    "exxit": {},
}

RENDER = """async (views) => {
  const { Board } = await import('/static/js/board.js');
  // Styled through the CSSOM: the pages' Content-Security-Policy refuses inline style attributes.
  const grid = document.createElement("div");
  grid.id = "grid";
  Object.assign(grid.style, {display: "grid", gridTemplateColumns: "repeat(3,1fr)", gap: "8px", padding: "8px"});
  document.body.replaceChildren(grid);
  const out = [];
  for (const [name, view] of views) {
    const fig = document.createElement('figure');
    fig.style.margin = '0';
    fig.innerHTML = `<figcaption>${name}</figcaption>`;
    document.getElementById('grid').appendChild(fig);
    new Board(fig).setView(view);
    const svg = fig.querySelector('svg');
    out.push({
      hits: [...svg.querySelectorAll('.hit')].map(e => e.dataset.id),
      stacks: svg.querySelectorAll('.stack').length,
      heights: [...svg.querySelectorAll('text.height')].map(e => Number(e.textContent)),
      rows: [...new Set([...svg.querySelectorAll('.label.row')].map(e => e.textContent))],
      numbers: [...new Set([...svg.querySelectorAll('.label.number')].map(e => Number(e.textContent)))],
      last: [...svg.querySelectorAll('.last')].map(e => e.dataset.cell),
      badges: [...svg.querySelectorAll('.delta')].map(e => [e.dataset.cell, Number(e.dataset.delta)]),
    });
  }
  return out;
}"""


def sample_views() -> list[tuple[str, dict[str, Any]]]:
    views = []
    for slug in games.names():
        rules = games.get(slug, **OPTIONS.get(slug, {}))
        states, _ = random_game(rules, random.Random(f"board-{slug}"), max_plies=80)
        for fraction in (0.3, 0.99):
            views.append((slug, rules.view(states[int(len(states) * fraction)])))
    return views


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_renderer_draws_every_cell_stack_and_label(
    theme: str, server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    views = sample_views()
    page = guests.page(width=1400, height=1000, color_scheme=theme)
    page.goto(server.url + "/rules/jotun")  # any page with the board's stylesheet
    drawn = page.evaluate(RENDER, [[name, view] for name, view in views])
    for (slug, view), got in zip(views, drawn, strict=True):
        assert got["hits"] == [c["id"] for c in view["cells"]], slug
        occupied = [c for c in view["cells"] if c["stack"]]
        assert got["stacks"] == len(occupied), slug
        assert sorted(got["heights"]) == sorted(
            len(c["stack"]) for c in occupied if len(c["stack"]) > 1
        )
        assert got["rows"] == [row["label"] for row in view["rows"]], slug
        if view["rows"]:  # every number a cell name uses is written around the board
            numbers = {int(c["id"][1:]) for c in view["cells"]}
            assert set(got["numbers"]) == numbers, slug
        if view["last_move"]:  # a mark on each cell it moved from, through or to; a badge on
            # each stack it changed otherwise, with the change of height
            effects = view["last_move"]["effects"]
            moved = {"origin", "path", "destination", "placed", "replaced", "freed"}
            changed = {"fed", "eaten", "ate", "flipped", "sown", "prisoner", "freed", "changed"}
            assert got["last"] == [e["id"] for e in effects if moved & set(e["roles"])], slug
            assert got["badges"] == [
                [e["id"], e["delta"]] for e in effects if changed & set(e["roles"])
            ], slug
    screenshots.page(page, f"boards-{theme}")
