"""Two guests start a game of each game by clicking, pie choice included, while a third watches; the
game then ends, and the archive lists it and its replay steps through it.

The page is the wiring under test, so only the first plies are clicked: moves are chosen with a
seeded ``random.Random`` among the cells and words the page offers, so the page (not the test)
decides what is legal. A game that ends by the rules is then played to its end through the HTTP API
with the same guests' cookies (seeded legal moves from tests/support/gameplay.py), and every page
must show that end as it arrives over its websocket. Rules to the end of whole games are proven in
tests/games/test_conformance.py; every ply's replay view in tests/browser/test_replay_api.py.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

import games
from tests.browser.conftest import Guests
from tests.browser.helpers import (
    ApiGame,
    Screenshots,
    create_game,
    join_game,
    move_count,
    play_one_move,
)
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser


@dataclass(frozen=True)
class Plan:
    """How one game is played: options, how many plies by clicking, and how it ends."""

    slug: str
    options: dict[str, str]
    plies: int  # plies entered by clicking before the ending
    ending: str  # "natural": the rest over HTTP until the rules end it; "pass": both pass; "resign"
    invite: bool  # the second player arrives by the invite link (else by the lobby's Join)


# Six plies reach past the pie choice (ply 2) and enter multi-click moves: Valaturna's two-stone
# opening, Harmijan's opening and its from-to-shot moves.
PLANS = [
    Plan("jotun", {"size": "4"}, 6, "resign", True),
    Plan("valaturna", {"size": "5"}, 6, "pass", False),
    Plan("harmijan", {"size": "5"}, 6, "natural", True),
    Plan("sgolte", {"size": "5", "variant": "standard"}, 6, "natural", False),
    Plan("exxit", {"variant": "beginner"}, 6, "natural", True),
]
REPLAY_STEPS = 8  # plies the replay is stepped through one by one from the start


def moves_of(page: Page) -> list[str]:
    return list(page.evaluate("window.hexmoot.state.moves"))


def wait_moves(page: Page, moves: list[str]) -> None:
    page.wait_for_function(
        "(m) => JSON.stringify(window.hexmoot.state.moves) === JSON.stringify(m)", arg=moves
    )


def status_of(page: Page) -> str:
    return str(page.evaluate("window.hexmoot.state.game.status"))


# Every game whose engine is in this tree (all five once the rules engines have landed).
PLAYABLE = [p for p in PLANS if p.slug in games.names()]


@pytest.mark.parametrize("plan", PLAYABLE, ids=[p.slug for p in PLAYABLE])
def test_play_watch_archive_replay(
    plan: Plan, server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    rng = random.Random(f"hexmoot-{plan.slug}")
    ann, bo, cy = guests.page(), guests.page(), guests.page()
    game_id = create_game(ann, server, plan, "Ann")
    screenshots.page(ann, f"{plan.slug}-waiting")
    join_game(bo, server, ann, game_id, plan, "Bo")
    cy.goto(f"{server.url}/games/{game_id}")
    expect(cy.locator("#conn")).to_have_attribute("data-state", "open")
    expect(ann.locator("#spectators")).to_have_text("1 watching")

    players = {1: ann, 2: bo}
    played: list[str] = []
    while len(played) < plan.plies:
        assert status_of(ann) == "active"
        seat = int(ann.evaluate("window.hexmoot.state.game.to_move"))
        played.append(play_one_move(players[seat], rng))
        for page in (ann, bo, cy):  # every move reaches both players and the spectator
            wait_moves(page, played)
    if plan.slug != "exxit":
        assert played[1] in ("black", "white")  # the pie choice, clicked as a button
    screenshots.element(ann.locator("#board"), f"{plan.slug}-board-mid")
    screenshots.page(cy, f"{plan.slug}-spectator-mid")

    if plan.ending == "pass":
        for i in range(2):
            seat = int(ann.evaluate("window.hexmoot.state.game.to_move"))
            page = players[seat]
            page.click('#choices button[data-token="pass"]')
            # a pass is confirmed (no clock here), and the one that ends the game says so
            expect(page.locator("#play-move")).to_have_text("Pass")
            ending = page.locator("#confirm-text")
            if i == 1:
                expect(ending).to_contain_text("This ends the game: ")
                expect(ending).to_contain_text(" wins ")
            else:
                expect(ending).not_to_contain_text("ends the game")
            page.click("#play-move")
            played.append("pass")
            for watcher in (ann, bo, cy):  # ann's to_move is read next: it must have the pass
                wait_moves(watcher, played)
    elif plan.ending == "resign":
        seat = int(ann.evaluate("window.hexmoot.state.game.to_move"))
        page = players[seat]
        page.click("#resign")
        expect(page.locator("#resign-confirm")).to_be_visible()
        page.click("#resign-yes")
    else:  # the rest of a seeded game through the API, as the same two guests
        api = ApiGame.of_pages(server, game_id, players)
        try:
            assert api.moves == played
            api.play_to_the_end(rng)
        finally:
            api.close()
        played = api.moves
        assert len(played) > plan.plies
        for page in (ann, bo, cy):
            wait_moves(page, played)
    for page in (ann, bo, cy):
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#board svg.active")).to_have_count(0)  # no move is offered
    assert status_of(cy) == "finished"
    result = cy.inner_text("#result")
    outcome = httpx.get(f"{server.url}/api/games/{game_id}", timeout=PATIENCE).json()["game"][
        "result"
    ]
    # winner first, then why in words (tests/browser/test_game_page.py checks each game's terms)
    winner = {1: "Ann", 2: "Bo", None: "Draw"}[outcome["winner"]]
    assert winner in result.split(" — ")[0] and " — " in result, result
    if plan.ending == "resign":
        assert "resigned" in result
    screenshots.page(cy, f"{plan.slug}-finished")
    assert moves_of(cy) == played

    # The archive lists the game; its replay steps through it.
    cy.goto(f"{server.url}/archive?game={plan.slug}")
    row = cy.locator(f'article[data-game="{game_id}"]')
    expect(row).to_be_visible()
    screenshots.page(cy, f"{plan.slug}-archive")
    row.locator("a.mini-board").click()
    cy.wait_for_url(f"**/games/{game_id}?ply=0")
    cy.wait_for_function("() => window.hexmoot.state.shown === 0")
    n = len(played)

    def step(key: str, ply: int) -> None:
        cy.keyboard.press(key)
        cy.wait_for_function("(p) => window.hexmoot.state.shown === p", arg=ply)
        if ply > 0:  # the board shows the position after that ply
            last = cy.evaluate("window.hexmoot.board.view.last_move")
            assert last is not None and last["text"] == played[ply - 1], (ply, last)

    for ply in range(1, min(REPLAY_STEPS, n - 1) + 1):
        step("ArrowRight", ply)
    cy.locator("#ply-slider").fill(str(n - 1))
    cy.wait_for_function("(p) => window.hexmoot.state.review === p", arg=n - 1)
    step("ArrowLeft", n - 2)
    step("ArrowRight", n - 1)
    step("ArrowRight", n)
    assert "ply=" not in cy.url  # the last position is the live one
    cy.click("#nav-first")
    cy.wait_for_function("() => window.hexmoot.state.review === 0")
    cy.locator("#ply-slider").fill(str(n // 2))
    cy.wait_for_function("(p) => window.hexmoot.state.review === p", arg=n // 2)
    assert cy.url.endswith(f"?ply={n // 2}")
    step("ArrowLeft", n // 2 - 1)
    screenshots.page(cy, f"{plan.slug}-replay")
    with cy.expect_download() as download:
        cy.click("#download")
    record = json.loads(Path(download.value.path()).read_text())
    assert record["game"] == plan.slug
    assert record["moves"] == played
    assert [p["name"] for p in record["players"]] == ["Ann", "Bo"]
    # a permalink opens at its ply
    cy.goto(f"{server.url}/games/{game_id}?ply=3")
    cy.wait_for_function("() => window.hexmoot.state.review === 3")
    assert move_count(cy) == n
