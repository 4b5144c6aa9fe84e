"""The rules pages in Chromium, as a newcomer sees them: what their diagrams draw, checked against
the rules engines.

* Jotun's worked moves (a placement, a straight run, a rest point with feeding, a turn, a jump,
  eating, being eaten): each figure draws its "before" board with the stacks of the position and the
  move's path outlined (origin, cells passed, turn, stacks jumped over, end), and its "after" board
  with the stacks the engine gives after the move, the path highlighted and every other stack the
  move changed outlined. Stacks are read from the SVG (owner, height, the band of pieces underneath,
  the strength badge), marks by the cell they are drawn on.
* Harmijan's scoring examples: the stones drawn, the creatures outlined as scoring being exactly
  the engine's repeated shapes, and the table's values and the verdict being the engine's score.
* Every page says the goal first, has the rule anchors that the game page's refusals link to
  (``/rules/<game>#<rule>``: opening one scrolls to it) and links back to play its game. That
  each fits a phone and has no serious axe violation, in either theme, is checked with every other
  page in tests/browser/test_a11y.py.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from playwright.sync_api import Locator, expect

from games import harmijan, jotun
from games.hexgrid import direction_between, distance, hex_board
from games.positions import position
from games.seats import COLOURS
from tests.app.test_rules_diagrams import RULE_ANCHORS, SHAPE_NAMES, ended, parse_class
from tests.browser.conftest import Guests
from tests.browser.helpers import Screenshots
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

SLUGS = ["jotun", "valaturna", "harmijan", "sgolte", "exxit"]
THEMES = ("light", "dark")
PHONE = {"width": 390, "height": 844, "is_mobile": True, "has_touch": True}
DESKTOP = {"width": 1366, "height": 768}

#: Jotun's figures, in page order: the move, and the position before it (Black to move, side 5).
JOTUN_FIGURES: list[tuple[str, dict[str, str]]] = [
    ("f5", {"f4": "B", "e5": "W", "e6": "W"}),  # a placement
    ("e5-e1", {"e5": "B", "e6": "W"}),  # a straight run to the edge
    ("g3-e5", {"g3": "B", "d4": "B"}),  # a rest point, and feeding
    ("g3-e2", {"g3": "B", "d4": "B", "f1": "B"}),  # a turn
    ("h2-e5", {"h2": "B", "g3": "BB", "f4": "BB", "d4": "B"}),  # a jump over friends
    ("h2-f4", {"h2": "BB", "f5": "WW", "f6": "WW", "e4": "B"}),  # eating
    ("h2-f4", {"h2": "WB", "f5": "WW", "f6": "W", "e4": "B"}),  # being eaten
]

# What one board draws: each occupied cell's pieces bottom to top as letters (the band along the
# rim lists the pieces under the top one, left = bottom; an unmixed stack is its top times its
# height) and its strength badge, and each cell's marks (classes "last" and "mark-*") by the cell
# whose hit area is nearest to the mark's centre.
_DRAWN = """(el) => {
  const svg = el.querySelector("svg.board-svg");
  const centre = (n) => { const b = n.getBBox(); return [b.x + b.width / 2, b.y + b.height / 2]; };
  const hits = [...svg.querySelectorAll(".hits .hit")].map((h) => [h.dataset.id, centre(h)]);
  const cellAt = ([x, y]) => {
    let best = null, far = Infinity;
    for (const [id, [hx, hy]] of hits) {
      const d = (hx - x) ** 2 + (hy - y) ** 2;
      if (d < far) [best, far] = [id, d];
    }
    return best;
  };
  const letter = (n) => [...n.classList].find((c) => c.startsWith("pc-")).slice(3);
  const stacks = {}, strengths = {}, marks = {};
  for (const g of svg.querySelectorAll(".pieces [data-at]")) {
    const s = g.querySelector(".stack");
    const under = [...s.querySelectorAll(".band .seg")].map(letter);
    stacks[g.dataset.at] = under.length ? under.join("") + s.dataset.top : s.dataset.top.repeat(+s.dataset.height);
    if (s.dataset.strength) strengths[g.dataset.at] = +s.dataset.strength;
  }
  for (const m of svg.querySelectorAll(".marks > *")) {
    const names = [...m.classList].filter((c) => c === "last" || c.startsWith("mark-"));
    if (!names.length) continue;
    const id = cellAt(centre(m));
    marks[id] = [...(marks[id] || []), ...names].sort();
  }
  return { stacks, strengths, marks, label: svg.getAttribute("aria-label") };
}"""


def drawn(board: Locator) -> dict[str, Any]:
    """What a diagram's board draws (see ``_DRAWN``), once the board script has drawn it."""
    expect(board.locator("svg.board-svg .hits .hit").first).to_be_attached()
    result: dict[str, Any] = board.evaluate(_DRAWN)
    return result


def strengths(stacks: dict[str, str]) -> dict[str, int]:
    """Jotun's strength of each stack: its pieces of its top colour."""
    return {cell: pieces.count(pieces[-1]) for cell, pieces in stacks.items()}


def path_marks(rules: jotun.Rules, path: list[str]) -> dict[str, list[str]]:
    """The marks of a path on the "before" board, from the geometry of the engine's path: the
    origin, each cell entered (where the direction changes, a turn), the cells jumped over, the end."""
    grid = hex_board(rules.size)
    at = [grid.parse(name) for name in path]
    marks = {path[0]: "mark-path-from"}
    for i in range(1, len(path) - 1):
        turned = direction_between(at[i - 1], at[i]) != direction_between(at[i], at[i + 1])
        marks[path[i]] = "mark-path-turn" if turned else "mark-path-step"
    for a, b in itertools.pairwise(at):
        span = distance(a, b)
        for k in range(1, span):
            cell = (a[0] + (b[0] - a[0]) // span * k, a[1] + (b[1] - a[1]) // span * k)
            marks[grid.name(cell)] = "mark-path-jump"
    marks[path[-1]] = "mark-path-to"
    return {cell: [mark] for cell, mark in marks.items()}


def test_jotun_diagrams_draw_the_engine_s_moves(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    page = guests.page(**DESKTOP)
    page.goto(f"{server.url}/rules/jotun")
    figures = page.locator("figure.diagram")
    expect(figures).to_have_count(len(JOTUN_FIGURES))
    rules = jotun.Rules(size=5)
    for i, (text, stacks) in enumerate(JOTUN_FIGURES):
        figure = figures.nth(i)
        expect(figure.locator("figcaption .move")).to_have_text(text)
        state = rules.position(stacks, to_move="black")
        after = rules.apply(state, rules.parse_move(state, text))
        after_stacks = rules.stacks(after)
        last = rules.view(after)["last_move"]
        assert last is not None
        path = list(last["cells"])
        before_board, after_board = figure.locator(".d-board").all()
        expect(figure.locator(".d-label")).to_have_text(["Before", "After"])

        before = drawn(before_board)
        where = f"figure {i + 1}, {text}"
        assert before["stacks"] == stacks, where
        assert before["strengths"] == strengths(stacks), where
        assert before["marks"] == path_marks(rules, path), where
        assert before["label"].startswith("jotun diagram: "), where

        shown = drawn(after_board)
        assert shown["stacks"] == after_stacks, where
        assert shown["strengths"] == strengths(after_stacks), where
        changed = {
            cell
            for cell in {*stacks, *after_stacks} - set(path)
            if stacks.get(cell) != after_stacks.get(cell)
        }
        expected = {cell: ["last"] for cell in path}
        expected |= {cell: ["mark-changed"] for cell in changed}
        assert shown["marks"] == expected, where

        screenshots.element(figure, f"rules-jotun-figure-{i + 1}")


def test_harmijan_scoring_examples_are_the_engine_s_score(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    page = guests.page(**DESKTOP)
    page.goto(f"{server.url}/rules/harmijan")
    examples = page.locator(".scoring")
    expect(examples).to_have_count(2)
    rules = harmijan.Rules(size=6)
    for i in range(2):
        example = examples.nth(i)
        board = drawn(example.locator(".d-board"))
        state = position(rules, board["stacks"], "black")
        classes = {c: rules.classes(state.stones[COLOURS.index(c)]) for c in ("black", "white")}
        scored = {
            name
            for found in classes.values()
            for k in found
            for creature in k.to_json(rules.board)["creatures"]
            for name in creature
        }
        assert board["marks"] == {cell: ["mark-scored"] for cell in scored}, f"example {i + 1}"
        rows = example.locator(".score-table tbody tr")
        longest = max(len(found) for found in classes.values())
        expect(rows).to_have_count(longest)
        for r in range(longest):
            cells = rows.nth(r).locator("td").all_inner_texts()
            for colour, text in zip(("black", "white"), cells, strict=True):
                found = classes[colour]
                expected = None
                if r < len(found):
                    expected = (found[r].count, SHAPE_NAMES[found[r].shape], found[r].value)
                assert parse_class(text) == expected, f"example {i + 1}, {colour}: {text}"
        outcome = rules.outcome(ended(state))
        assert outcome is not None
        verdict = example.locator(".score-result").inner_text()
        lists = " against ".join(
            f"{colour.capitalize()} [{', '.join(str(k.value) for k in classes[colour])}]"
            for colour in ("black", "white")
        )
        assert verdict.startswith(lists), verdict
        winner = "draw" if outcome.colour is None else f"{outcome.colour.capitalize()} wins"
        assert winner in verdict, verdict
        screenshots.element(example, f"rules-harmijan-scoring-{i + 1}")


@pytest.mark.parametrize("slug", SLUGS)
def test_a_newcomer_finds_goal_turn_end_anchors_and_the_way_to_play(
    server: LiveServer, guests: Guests, slug: str
) -> None:
    page = guests.page(**DESKTOP)
    page.goto(f"{server.url}/rules/{slug}")
    headings = page.locator("article h2").all_inner_texts()
    assert headings[0] == "The goal", headings
    for word in ("Starting" if slug != "exxit" else "field", "turn", "this site", "end"):
        assert any(word.lower() in h.lower() for h in headings), (word, headings)
    for rule in sorted(RULE_ANCHORS[slug]):
        anchor = page.locator(f'[id="{rule}"]')
        expect(anchor).to_have_count(1)
        expect(anchor.locator(".rule-no").first).to_have_text(rule)
    # a refusal's link opens the page at its rule
    rule = sorted(RULE_ANCHORS[slug])[-1]
    page.goto(f"{server.url}/rules/{slug}#{rule}")
    expect(page.locator(f'[id="{rule}"]')).to_be_in_viewport()
    # and the page leads back to playing the game
    play = page.locator(f'article a[href="/?game={slug}"]')
    expect(play).to_be_visible()
    play.click()
    expect(page.locator("#new-game")).to_be_visible()
    expect(page.locator(f'#new-game input[name="game"][value="{slug}"]')).to_be_attached()
