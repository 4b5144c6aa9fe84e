"""What the board draws, checked in Chromium on the site's own modules: stacks (owner disc, height,
Jotun's strength badge, the band of pieces below), coordinates (labels on the lines they name,
Exxit's cell names), the pending position of a multi-step move, flipping, the legend, the text
description and the last-move animation (none under prefers-reduced-motion)."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import games
from games.bench import random_game
from tests.browser.conftest import Guests
from tests.browser.helpers import Screenshots
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

SETUP = """async () => {
  const { Board } = await import('/static/js/board.js');
  const { renderLegend } = await import('/static/js/legend.js');
  window.T = { Board, renderLegend };
  document.body.replaceChildren();
}"""

DRAW = """([view, steps, opts]) => {
  const fig = document.createElement('div');
  fig.className = 'board-wrap';
  fig.style.width = (opts && opts.width) || '640px';
  fig.style.margin = '8px';
  document.body.appendChild(fig);
  const board = new T.Board(fig, { onToken: (t) => (window.clicked = t), ...(opts || {}) });
  board.setView(view, steps);
  const legend = document.createElement('div');
  fig.appendChild(legend);
  T.renderLegend(legend, view);
  window.B = board;
  return document.querySelectorAll('.board-wrap').length - 1;
}"""


def hexview(cells: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A small Jotun-like hex view with the given cells."""
    return {
        "game": "jotun",
        "board": {"kind": "hex", "side": 2},
        "cells": cells,
        "rows": [],
        "to_move": 1,
        "colours": {"1": "black", "2": "white"},
        "phase": "play",
        "last_move": None,
        "counters": [],
        "outcome": None,
        **extra,
    }


def cell(cid: str, q: int, r: int, stack: list[str], **extra: Any) -> dict[str, Any]:
    return {"id": cid, "q": q, "r": r, "stack": stack, **extra}


def ready(guests: Guests, server: LiveServer, **kwargs: Any) -> Any:
    page = guests.page(width=1400, height=1000, **kwargs)
    page.goto(server.url + "/rules/jotun")  # any page with the board's stylesheet
    page.evaluate(SETUP)
    return page


def test_stack_shows_owner_height_strength_and_pieces_below(
    server: LiveServer, guests: Guests
) -> None:
    page = ready(guests, server)
    view = hexview(
        [
            cell("a1", 0, 0, ["white", "white", "black"], strength=2),
            cell("a2", 1, 0, ["black"], strength=1),
            cell("a3", 0, 1, ["white"] * 4 + ["black"] * 5, strength=5),
        ]
    )
    page.evaluate(DRAW, [view, None, None])
    got = page.evaluate(
        """() => [...document.querySelectorAll(".pieces .stack")].map((g) => ({
          top: g.querySelector('.piece.top').getAttribute('class'),
          r: Number(g.querySelector('.piece.top').getAttribute('r')),
          height: g.querySelector('text.height')?.textContent ?? null,
          strength: g.querySelector('.strength text')?.textContent ?? null,
          band: [...g.querySelectorAll('.seg')].map((s) => s.getAttribute('class').slice(-1)),
        }))"""
    )
    assert got[0]["top"].endswith("pc-B") and got[0]["r"] > 7  # the owner is the full disc
    assert got[0]["height"] == "3" and got[0]["strength"] == "2"
    assert got[0]["band"] == ["W", "W"]  # the pieces below, bottom first
    assert got[1]["height"] is None and got[1]["strength"] is None  # a lone stone: nothing to add
    assert got[2]["height"] == "9" and got[2]["strength"] == "5"
    assert got[2]["band"] == ["W", "B"]  # over 7 pieces below: one segment per run
    names = page.eval_on_selector_all(".hit", "els => els.map(e => e.getAttribute('aria-label'))")
    assert names[0] == "a1, black, height 3, strength 2 (1 black over 2 white)"


def test_real_jotun_view_draws_strength_when_the_rules_give_it(
    server: LiveServer, guests: Guests
) -> None:
    rules = games.get("jotun", size=5)
    states, _ = random_game(rules, random.Random("board-strength"), max_plies=60)
    view = rules.view(states[-1])
    page = ready(guests, server)
    page.evaluate(DRAW, [view, None, None])
    drawn = page.eval_on_selector_all(
        ".pieces .stack",
        "els => els.map(g => [Number(g.dataset.height), g.dataset.strength ?? null])",
    )
    want = [
        [len(c["stack"]), str(c["strength"]) if "strength" in c else None]
        for c in view["cells"]
        if c["stack"]
    ]
    assert drawn == want
    assert any(c.get("strength", len(c["stack"])) != len(c["stack"]) for c in view["cells"])
    badges = page.eval_on_selector_all(
        ".pieces .strength text", "els => els.map(e => e.textContent)"
    )
    assert badges == [
        str(c["strength"]) for c in view["cells"] if c["stack"] and c["strength"] != len(c["stack"])
    ]


def test_pending_changes_are_drawn_as_the_real_position(server: LiveServer, guests: Guests) -> None:
    page = ready(guests, server)
    view = hexview([cell("a1", 0, 0, ["black"]), cell("a2", 1, 0, []), cell("b1", 0, 1, [])])
    steps = {
        "prefix": ["a1", "a2"],
        "next": ["b1"],
        "hints": {},
        "changes": {"a1": [], "a2": ["black"]},
    }
    page.evaluate(DRAW, [view, steps, None])
    at = page.eval_on_selector_all(".pieces [data-at]", "els => els.map(e => e.dataset.at)")
    assert at == ["a2"]  # the stone is at its destination, full size, not at its origin
    assert page.locator(".marks .pending").count() == 2
    assert page.locator(".ghost").count() == 0


def test_exxit_field_shows_the_coordinates_typed_moves_use_when_asked(
    server: LiveServer, guests: Guests
) -> None:
    rules = games.get("exxit")
    states, _ = random_game(rules, random.Random("board-exxit"), max_plies=30)
    view = rules.view(states[-1])
    page = ready(guests, server)
    page.evaluate(DRAW, [view, None, None])  # a board one plays on: no names until asked
    assert page.locator(".coords .coord").count() == 0
    page.evaluate("B.setCoordinates(true)")
    coords = page.eval_on_selector_all(".coords .coord", "els => els.map(e => e.textContent)")
    assert coords == [c["id"] for c in view["cells"]]
    # legible: at least 7 px tall on a 640 px board
    height = page.evaluate("document.querySelector('.coord').getBoundingClientRect().height")
    assert height >= 7
    page.evaluate("B.setCoordinates(false)")
    assert page.locator(".coords .coord").count() == 0
    # a board nobody plays on (a diagram) shows them from the start
    page.evaluate(
        """(view) => { document.body.replaceChildren();
          new T.Board(document.body, {}).setView(view); }""",
        view,
    )
    assert page.locator(".coords .coord").count() == len(view["cells"])


def _centre(page: Any, selector: str) -> tuple[float, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_valaturna_labels_sit_on_the_lines_they_name(server: LiveServer, guests: Guests) -> None:
    rules = games.get("valaturna", size=7)
    states, _ = random_game(rules, random.Random("labels"), max_plies=4)
    view = rules.view(states[-1])
    page = ready(guests, server)
    page.evaluate(DRAW, [view, None, {"width": "900px"}])
    pos = {c["id"]: _centre(page, f'.hit[data-id="{c["id"]}"]') for c in view["cells"]}
    labels = page.eval_on_selector_all(
        ".label",
        """els => els.map(e => { const b = e.getBoundingClientRect();
           return [e.textContent, e.classList.contains('row'), b.x + b.width / 2, b.y + b.height / 2]; })""",
    )
    # Row l's letter is on row l's line (same height as l3).
    (lx, ly) = next((x, y) for t, row, x, y in labels if row and t == "l")
    assert abs(ly - pos["l3"][1]) < 2 and lx < pos["l1"][0]
    # Line 3 ends at m3 in the bottom row: its number is straight below m3, and no other point
    # (l4, which the old diagonal placement sat under) is nearer to it.
    bottom = [(x, y) for t, row, x, y in labels if not row and t == "3" and y > pos["m3"][1]]
    assert len(bottom) == 1
    bx, by = bottom[0]
    assert abs(bx - pos["m3"][0]) < 2
    nearest = sorted(pos, key=lambda cid: math.dist(pos[cid], (bx, by)))
    assert nearest[0] == "m3" and math.dist(pos[nearest[1]], (bx, by)) > 1.5 * math.dist(
        pos["m3"], (bx, by)
    )
    # Line 10 ends on the lower right edge at j10 (running i10 -> j10 south-east): its number
    # continues that line beyond j10, and a dotted stub of the line leads to it.
    (ax, ay), (mx, my) = pos["i10"], pos["j10"]
    ten = [(x, y) for t, row, x, y in labels if not row and t == "10" and y > pos["g1"][1]]
    assert len(ten) == 1
    bx, by = ten[0]
    cross = (mx - ax) * (by - ay) - (my - ay) * (bx - ax)
    assert abs(cross) / math.dist((ax, ay), (mx, my)) < 2  # on the line, within 2 px
    assert (bx - mx) * (mx - ax) + (by - my) * (my - ay) > 0  # beyond j10
    assert page.locator(".cells .stub").count() > 0


def test_flip_turns_the_board_and_keeps_text_upright(server: LiveServer, guests: Guests) -> None:
    rules = games.get("jotun", size=5)
    view = rules.view(random_game(rules, random.Random("flip"), max_plies=20)[0][-1])
    page = ready(guests, server)
    page.evaluate(DRAW, [view, None, None])

    def offset() -> tuple[float, float]:
        a, e = _centre(page, '.hit[data-id="a1"]'), _centre(page, '.hit[data-id="e5"]')
        return a[0] - e[0], a[1] - e[1]

    before = offset()
    page.evaluate("B.setFlipped(true)")
    after = offset()
    assert math.dist(before, (-after[0], -after[1])) < 2  # a1 turned about the centre
    upright = page.eval_on_selector_all(
        "text", "els => els.every(e => !e.getAttribute('transform') && !e.closest('[transform]'))"
    )
    assert upright
    # the row letters are still upright text reading "a".."i", now at the right-hand side
    a = _centre(page, '.label.row >> text="a"')
    assert a[0] > _centre(page, '.hit[data-id="a1"]')[0]


ANIMATE = (
    """([v1, v2]) => { B.setView(v1); B.setView(v2); return document.getAnimations().length; }"""
)


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_last_move_animates_unless_reduced_motion(
    motion: str, server: LiveServer, guests: Guests
) -> None:
    rules = games.get("jotun", size=5)
    states, _ = random_game(rules, random.Random("animate"), max_plies=12)
    v1, v2 = rules.view(states[10]), rules.view(states[11])
    page = ready(guests, server, reduced_motion=motion)
    page.evaluate(DRAW, [v1, None, None])
    running = page.evaluate(ANIMATE, [v1, v2])
    if motion == "reduce":
        assert running == 0
    else:
        assert running > 0


def test_describe_and_legend(server: LiveServer, guests: Guests) -> None:
    view = hexview(
        [
            cell("a1", 0, 0, ["white", "black"], strength=1),
            cell("a2", 1, 0, [], mark="territory-white"),
            cell("b1", 0, 1, ["white"], strength=1),
        ],
        last_move={
            "text": "b1-a1",
            "cells": ["b1", "a1"],
            "effects": [
                {"id": "a1", "roles": ["destination"], "delta": 2},
                {"id": "b1", "roles": ["origin"], "delta": -1},
            ],
        },
    )
    page = ready(guests, server)
    page.evaluate(DRAW, [view, None, None])
    text = page.evaluate("B.describe()")
    assert "Black: 1 stack, a1 (height 2, strength 1 (1 black over 1 white))" in text
    assert "White: 1 stack, b1" in text and "White territory: 1 cells" in text
    legend = page.inner_text(".legend")
    for words in ("black", "white", "strength", "territory", "last move", "you can play here"):
        assert words in legend
    for words in ("where it went", "where it came from"):
        assert words in legend
    # territory tints the whole cell, under every mark (the last move's included)
    order = page.evaluate(
        "[...document.querySelectorAll('.board-wrap > svg :is(.last, .territory)')]"
        ".map(e => e.classList[0])"
    )
    assert order == ["territory", "last", "last"]
    assert page.locator(".board-wrap > svg .cells .territory").count() == 1


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_game_board_in_both_themes(
    theme: str, server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    """Pictures of every game's board and legend, desktop and phone width, for a person to judge."""
    for width, name in ((1400, "wide"), (390, "phone")):
        page = guests.page(width=width, height=900, color_scheme=theme)
        page.goto(server.url + "/rules/jotun")
        page.evaluate(SETUP)
        page.evaluate(
            "document.body.style.background = getComputedStyle(document.body).backgroundColor"
        )
        for slug, options in (
            ("jotun", {"size": 5}),
            ("valaturna", {"size": 7}),
            ("harmijan", {"size": 6}),
            ("sgolte", {"size": 6}),
            ("exxit", {}),
        ):
            rules = games.get(slug, **options)
            states, _ = random_game(rules, random.Random(f"shot-{slug}"), max_plies=90)
            view = rules.view(states[int(len(states) * 0.8)])
            i = page.evaluate(DRAW, [view, None, {"width": f"{min(width - 20, 700)}px"}])
            assert page.locator(".board-wrap").nth(i).locator(".hit").count() == len(view["cells"])
            screenshots.element(page.locator(".board-wrap").nth(i), f"{slug}-{theme}-{name}")


def test_exxit_rules_diagrams_show_legible_cell_names(server: LiveServer, guests: Guests) -> None:
    for width in (1280, 390):
        page = guests.page(width=width, height=900)
        page.goto(server.url + "/rules/exxit")
        boards = page.locator(".d-board svg")
        assert boards.count() >= 2
        for i in range(boards.count()):
            names = boards.nth(i).locator(".coords .coord")
            assert names.count() == boards.nth(i).locator(".hits .hit").count() > 0
            box = names.first.bounding_box()
            assert box is not None and box["height"] >= 7, (width, i)


def test_offered_cells_are_announced(server: LiveServer, guests: Guests) -> None:
    page = ready(guests, server)
    view = hexview([cell("a1", 0, 0, []), cell("a2", 1, 0, ["white"]), cell("b1", 0, 1, [])])
    page.evaluate(
        """(view) => {
          window.said = [];
          document.body.appendChild(Object.assign(document.createElement('div'), { id: 'b' }));
          window.B = new T.Board(document.getElementById('b'), {
            onToken: () => {}, onAnnounce: (t) => window.said.push(t) });
          B.setView(view, { prefix: [], next: ['a1', 'b1', 'a2'], hints: {} });
          B.setSteps({ prefix: [], next: ['a1', 'b1', 'a2'], hints: {} });  // the same: said once
          B.setSteps({ prefix: ['a1'], next: ['b1'], hints: {} });
        }""",
        view,
    )
    assert page.evaluate("window.said") == ["3 cells offered: a1, b1, a2", "1 cell offered: b1"]
    label = page.get_attribute('.hit[data-id="a2"]', "aria-label")
    assert label == "a2, white"


def test_small_boards_keep_owner_and_height_only(server: LiveServer, guests: Guests) -> None:
    """A /live-sized board drops the band, the strength badge and the rings; a large one keeps them."""
    view = hexview(
        [cell("a1", 0, 0, ["white", "black"], strength=1)]
        + [cell(f"x{q}", q, 0, []) for q in range(1, 9)]
    )
    page = ready(guests, server)
    for width, tiny in (("200px", True), ("900px", False)):
        i = page.evaluate(DRAW, [view, None, {"width": width}])
        svg = page.locator(".board-wrap").nth(i).locator("svg").first
        page.wait_for_function(
            "([i, tiny]) => document.querySelectorAll('.board-wrap')[i].querySelector('svg')"
            ".classList.contains('tiny') === tiny",
            arg=[i, tiny],
        )
        band = svg.locator(".pieces .band")
        assert band.is_visible() is not tiny
        assert svg.locator(".pieces .strength").is_visible() is not tiny
        assert svg.locator(".pieces text.height").is_visible()
