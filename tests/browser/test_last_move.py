"""The last move says what it did, on the real game page (issue 25): after a move clicked by its
player, the mover's page and a spectator's mark the cells as the view's ``last_move.effects`` say:
where the move went (loud, filled), where it came from (a quiet outline), what it captured (its own
mark), and a badge with the change of height on every stack it changed, until the next move. The
move plays out slowly enough to follow (about half a second, sliding along its path), and not at
all under reduced motion. Also: quieter dots when many cells are open, territory tinting whole
cells, and Exxit's cell names shown only when asked (``board.setCoordinates``)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.boardpage import (
    click,
    create,
    find_moves,
    marks,
    mover_page,
    seat_page,
    tokens,
    wait_moves,
)
from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, Screenshots
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

ARRIVED = {"destination", "placed", "replaced", "freed"}
BADGED = {"fed", "eaten", "ate", "flipped", "sown", "prisoner", "freed", "changed"}


def _count(last: dict[str, Any], role: str) -> int:
    return sum(role in e["roles"] for e in last["effects"])


# One move per game that shows what its game's moves do, found in seeded random games.
CASES: list[tuple[str, dict[str, Any], Callable[[dict[str, Any]], bool]]] = [
    # a Jotun move that feeds three stacks or more and eats one or more
    ("jotun", {"size": 5}, lambda lm: _count(lm, "fed") >= 3 and _count(lm, "eaten") >= 1),
    ("valaturna", {"size": 5}, lambda lm: _count(lm, "flipped") >= 2),
    ("harmijan", {"size": 5}, lambda lm: _count(lm, "captured") >= 1),  # a bite
    ("sgolte", {"size": 5, "variant": "standard"}, lambda lm: _count(lm, "captured") >= 1),
    ("exxit", {"variant": "beginner"}, lambda lm: _count(lm, "prisoner") >= 1),
]


def expected_marks(
    last: dict[str, Any], field: bool
) -> tuple[dict[str, list[str]], dict[str, int]]:
    """The marks and badges each cell must show for ``last`` (the view's last move)."""
    want: dict[str, list[str]] = {}
    badges: dict[str, int] = {}
    for e in last["effects"]:
        roles = set(e["roles"])
        cls: list[str] = []
        if roles & ARRIVED:
            cls.append("last last-to edge" if field else "last last-to")
        elif "origin" in roles:
            cls.append("last last-from")
        elif "path" in roles:
            cls.append("last last-path")
        if "captured" in roles:
            cls.append("last-captured")
        if roles & BADGED:
            cls.append(f"delta {'up' if e['delta'] > 0 else 'down' if e['delta'] < 0 else 'even'}")
            badges[e["id"]] = e["delta"]
        want[e["id"]] = cls
    return want, badges


def play_last_by_clicking(page: Page, g: ApiGame, text: str) -> None:
    n = len(g.moves)
    for token in tokens(g, text):
        click(page, token)
    wait_moves(page, n + 1)
    g.refresh()


@pytest.mark.parametrize(("slug", "options", "wanted"), CASES, ids=[c[0] for c in CASES])
def test_each_cell_says_what_the_last_move_did(
    slug: str,
    options: dict[str, Any],
    wanted: Callable[[dict[str, Any]], bool],
    server: LiveServer,
    guests: Guests,
    api_games: list[ApiGame],
    screenshots: Screenshots,
) -> None:
    moves = find_moves(slug, options, wanted)
    g = create(server, api_games, slug, options)
    for text in moves[:-1]:
        g.play(text)
    watcher = seat_page(guests, server, g, 0)
    mover = mover_page(guests, server, g)
    play_last_by_clicking(mover, g, moves[-1])
    wait_moves(watcher, len(moves))
    last = mover.evaluate("window.hexmoot.board.view.last_move")
    assert last["text"] == moves[-1] and wanted(last)
    want, badges = expected_marks(last, field=slug == "exxit")
    for page in (mover, watcher):
        got = marks(page)
        assert got["marks"] == want
        assert {c: b["delta"] for c, b in got["badges"].items()} == badges
        for c, b in got["badges"].items():
            sign = "+" if badges[c] > 0 else "\u2212" if badges[c] < 0 else "\u00b1"
            assert b["text"] == f"{sign}{abs(badges[c])}"
    if slug == "jotun":  # fed three or more, ate one or more: a badge on each, not only the path
        assert len(badges) == _count(last, "fed") + _count(last, "eaten") >= 4
    looks = mover.evaluate(
        """() => {
          const style = (sel) => { const el = document.querySelector(sel);
            return el && { fill: getComputedStyle(el).fill, stroke: getComputedStyle(el).stroke }; };
          return { to: style('#board .last-to'), from: style('#board .last-from'),
                   captured: style('#board .last-captured .cap-ring') };
        }"""
    )
    if looks["from"]:  # the destination is filled, the origin only outlined
        assert looks["from"]["fill"] == "none"
        if slug != "exxit":  # a field's tile keeps its colour: its destination is a thick edge
            assert looks["to"]["fill"] != "none"
    if looks["captured"] and looks["from"]:  # a capture does not look like an origin
        assert looks["captured"]["stroke"] != looks["from"]["stroke"]
    screenshots.element(watcher.locator("#board"), f"last-move-{slug}")  # for a person to look at
    # the marks stay until the next move, and then mark that one instead
    g.play_random(random.Random(1), 1)
    wait_moves(mover, len(moves) + 1)
    after = mover.evaluate("window.hexmoot.board.view.last_move")
    assert set(marks(mover)["marks"]) == {e["id"] for e in after["effects"]}


RECORD_ANIMATIONS = """() => {
  window.animations = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (frames, opts) {
    window.animations.push({ at: this.dataset ? this.dataset.at || null : null, frames: frames.length,
      duration: typeof opts === 'number' ? opts : opts.duration });
    return animate.call(this, frames, opts);
  };
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_move_slides_along_its_path_unless_reduced_motion(
    motion: str, server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    moves = find_moves("jotun", {"size": 5}, CASES[0][2])
    g = create(server, api_games, "jotun", {"size": 5})
    for text in moves[:-1]:
        g.play(text)
    watcher = seat_page(guests, server, g, 0, reduced_motion=motion)
    watcher.evaluate(RECORD_ANIMATIONS)
    # the position before the move is drawn first: a snapshot arriving after the move (a busy
    # machine) would draw it already made, with nothing to animate
    wait_moves(watcher, len(moves) - 1)
    g.play(moves[-1])
    wait_moves(watcher, len(moves))
    made = watcher.evaluate("window.animations")
    assert watcher.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches") == (
        motion == "reduce"
    )
    if motion == "reduce":
        assert made == []
        assert watcher.evaluate("document.getAnimations().length") == 0
        return
    last = watcher.evaluate("window.hexmoot.board.view.last_move")
    (destination,) = (e["id"] for e in last["effects"] if "destination" in e["roles"])
    slide = [a for a in made if a["at"] == destination]
    # from the origin through every cell it entered: a keyframe per cell of its trail
    assert slide and slide[0]["frames"] == len(last["cells"])
    assert all(400 <= a["duration"] <= 600 for a in made)


def offered_dots(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        """() => { const dots = [...document.querySelectorAll('#board .dest.dot')];
          return { n: dots.length, r: [...new Set(dots.map((d) => Number(d.getAttribute('r'))))],
                   quiet: dots.every((d) => d.classList.contains('quiet')),
                   opacity: dots.length ? Number(getComputedStyle(dots[0]).opacity) : null }; }"""
    )
    return result


def test_many_open_cells_get_quieter_dots(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    # Valaturna's opening on the big board: all 127 points are open
    big = mover_page(guests, server, create(server, api_games, "valaturna", {"size": 7}))
    many = offered_dots(big)
    assert many["n"] == 127 and many["quiet"]
    # Jotun in play: placements everywhere
    g = create(server, api_games, "jotun", {"size": 5})
    g.play("e5")
    g.play("white")
    jotun = offered_dots(mover_page(guests, server, g))
    assert jotun["n"] > 40 and jotun["quiet"]
    # a Harmijan stone's few destinations keep the full dots
    h = create(server, api_games, "harmijan", {"size": 6})
    h.play("f5,f6/c3,c4")
    h.play("black")
    page = mover_page(guests, server, h)
    click(page, "f5")
    few = offered_dots(page)
    assert 0 < few["n"] <= 20 and not few["quiet"]
    assert max(jotun["r"]) < min(few["r"]) and max(many["r"]) < min(few["r"])
    assert jotun["opacity"] < few["opacity"]


def test_territory_tints_whole_cells(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "jotun", {"size": 5})
    g.play_random(random.Random(3), 12)
    page = seat_page(guests, server, g, 0)
    wait_moves(page, len(g.moves))
    view = page.evaluate("window.hexmoot.board.view")
    territory = [c["id"] for c in view["cells"] if c.get("mark", "").startswith("territory-")]
    assert territory
    sizes = page.evaluate(
        """() => [...document.querySelectorAll('#board .cells .territory')].map((t) => {
          const box = t.getBBox();
          return [box.width, box.height]; })"""
    )
    cell = page.evaluate(
        "(() => { const b = document.querySelector('#board .cells .cell').getBBox();"
        " return [b.width, b.height]; })()"
    )
    assert len(sizes) == len(territory)
    assert all(abs(w - cell[0]) < 0.1 and abs(h - cell[1]) < 0.1 for w, h in sizes)
    # nothing drawn over the board for territory any more
    assert page.locator("#board .terr, #board .marks .territory").count() == 0


def test_exxit_cell_names_only_when_asked(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "exxit", {"variant": "beginner"})
    g.play("0,0")
    page = mover_page(guests, server, g)
    names = page.locator("#board .coords .coord")
    expect(names).to_have_count(0)  # off by default on the game page
    cells = page.evaluate("window.hexmoot.board.view.cells.map((c) => c.id)")
    page.evaluate("window.hexmoot.board.setCoordinates(true)")
    assert names.all_text_contents() == cells
    box = names.first.bounding_box()
    assert box is not None and box["height"] >= 7
    click(page, page.eval_on_selector("#board .hit.can", "e => e.dataset.id"))  # still shown
    assert page.locator("#board .coords .coord").count() > 0
    page.evaluate("window.hexmoot.board.setCoordinates(false)")
    expect(names).to_have_count(0)
