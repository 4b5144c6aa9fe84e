"""Helpers for the tests of what the game page's board draws: games set up through the HTTP API,
a seat's page (a browser context holding that guest's cookie), clicks on cells as a player makes
them, and what the board's SVG shows on each cell."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import httpx
from playwright.sync_api import Page, expect

import games
from games.bench import random_game
from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame
from tests.support.server import LiveServer

#: Every drawn stack of the board: cell -> its pieces' colour letters (top first), whether it is
#: drawn lifted (picked up to move) and the layer it sits in.
DRAWN = """() => Object.fromEntries([...document.querySelectorAll('#board g[data-at]')].map((g) => [
  g.dataset.at,
  { top: g.querySelector('.piece.top').getAttribute('class').slice(-1),
    height: Number(g.querySelector('.stack').dataset.height),
    lifted: g.dataset.lifted === 'true',
    layer: g.parentNode.getAttribute('class') },
]))"""

#: What the last move left marked on each cell: cell -> the classes of its marks, and the badges.
MARKS = """() => {
  const marks = {};
  for (const el of document.querySelectorAll('#board [data-cell]')) {
    (marks[el.dataset.cell] ||= []).push(el.getAttribute('class'));
  }
  const badges = Object.fromEntries([...document.querySelectorAll('#board .delta')].map(
    (b) => [b.dataset.cell, { delta: Number(b.dataset.delta), text: b.textContent }]));
  return { marks, badges };
}"""


def create(server: LiveServer, made: list[ApiGame], slug: str, options: dict[str, Any]) -> ApiGame:
    """A game with both seats taken; its clients wait for a cold server's first rules call."""
    g = ApiGame.create(server, slug, options)
    for client in g.clients.values():
        client.timeout = httpx.Timeout(60)
    made.append(g)
    return g


def seat_page(guests: Guests, server: LiveServer, g: ApiGame, seat: int, **kw: Any) -> Page:
    """The game page as the guest of ``seat`` (``seat`` 0: a spectator), connected."""
    page = guests.page(**kw)
    # these tests look at what is drawn click by click: the last click plays, as "never" says
    # (tests/browser/test_game_entry.py proves the confirm itself)
    page.add_init_script("localStorage.setItem('hexmoot-confirm', 'never')")
    if seat:
        page.context.add_cookies(g.cookie(seat))  # type: ignore[arg-type]
    page.goto(f"{server.url}/games/{g.id}")
    expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    return page


def mover_page(guests: Guests, server: LiveServer, g: ApiGame, **kw: Any) -> Page:
    """The page of the seat to move, once the board offers its first clicks."""
    seat = g.picker.to_move()
    assert seat is not None
    page = seat_page(guests, server, g, seat, **kw)
    wait_steps(page, 0)
    return page


def wait_steps(page: Page, n: int) -> None:
    """Until the page holds the server's answer for a prefix of ``n`` clicks."""
    page.wait_for_function(
        """(n) => { const S = window.hexmoot.state, E = window.hexmoot.entry;
          return E.prefix.length === n && E.steps && E.steps.msg_id === E.stepsId; }""",
        arg=n,
    )


def click(page: Page, token: str, via: Callable[[Any], None] | None = None) -> None:
    """Click the cell ``token`` as a player does and wait for the next steps (or the move)."""
    before = page.evaluate(
        "[window.hexmoot.entry.prefix.length, window.hexmoot.state.moves.length]"
    )
    cell = page.locator(f'#board .hit[data-id="{token}"]')
    (via or (lambda loc: loc.click()))(cell)
    page.wait_for_function(
        """([n, m]) => { const S = window.hexmoot.state, E = window.hexmoot.entry;
          return S.moves.length > m
            || (E.prefix.length === n + 1 && E.steps && E.steps.msg_id === E.stepsId); }""",
        arg=before,
    )


def wait_moves(page: Page, n: int) -> None:
    """Until the page has ``n`` moves and draws the position after them."""
    page.wait_for_function(
        """(n) => { const S = window.hexmoot.state, E = window.hexmoot.entry;
          return S.moves.length === n && window.hexmoot.board.view === S.view; }""",
        arg=n,
    )


def drawn(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(DRAWN)
    return result


def marks(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(MARKS)
    return result


def tokens(g: ApiGame, text: str) -> tuple[str, ...]:
    """The clicks that enter ``text`` in the game's current position."""
    state = g.state()
    result: tuple[str, ...] = g.rules.move_tokens(state, g.rules.parse_move(state, text))
    return result


def find_moves(
    slug: str, options: dict[str, Any], wanted: Callable[[dict[str, Any]], bool], plies: int = 120
) -> list[str]:
    """The moves of a seeded random game up to the first move (past the opening) whose view's
    ``last_move`` is ``wanted``; a search over fixed seeds, so always the same game."""
    rules = games.get(slug, **options)
    for seed in range(60):
        states, texts = random_game(rules, random.Random(f"drawing-{seed}"), max_plies=plies)
        for i in range(4, len(texts)):
            if wanted(rules.view(states[i + 1])["last_move"]):
                return list(texts[: i + 1])
    raise AssertionError(f"no {slug} game of the seeds has the move wanted")


def roles_of(last: dict[str, Any]) -> dict[str, Sequence[str]]:
    return {e["id"]: e["roles"] for e in last["effects"]}
