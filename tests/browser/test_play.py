"""Two guests play a short complete game of each game by clicking on the board, pie choice included,
while a third watches; then the archive lists the game and its replay steps through every ply.

Moves are chosen with a seeded ``random.Random`` among the cells and words the page offers, so the
page (not the test) decides what is legal: the test only ever clicks highlighted cells.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import games
from tests.browser.conftest import Guests
from tests.browser.helpers import create_game, join_game, move_count, play_one_move
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser


@dataclass(frozen=True)
class Plan:
    """How one game is played: options, how many plies by clicking, and how it ends."""

    slug: str
    options: dict[str, str]
    plies: int  # plies entered by clicking before the ending (fewer if the game ends first)
    ending: str  # "natural": play on until the rules end it; "pass": both pass; "resign"
    invite: bool  # the second player arrives by the invite link (else by the lobby's Join)


PLANS = [
    Plan("jotun", {"size": "4"}, 40, "resign", True),
    Plan("valaturna", {"size": "5"}, 12, "pass", False),
    Plan("harmijan", {"size": "5"}, 200, "natural", True),
    Plan("sgolte", {"size": "5", "variant": "standard"}, 200, "natural", False),
    Plan("exxit", {"variant": "beginner"}, 200, "natural", True),
]


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
    plan: Plan, server: LiveServer, guests: Guests, artifacts: Path
) -> None:
    rng = random.Random(f"hexmoot-{plan.slug}")
    ann, bo, cy = guests.page(), guests.page(), guests.page()
    game_id = create_game(ann, server, plan, "Ann")
    ann.screenshot(path=artifacts / f"{plan.slug}-waiting.png", full_page=True)
    join_game(bo, server, ann, game_id, plan, "Bo")
    cy.goto(f"{server.url}/games/{game_id}")
    expect(cy.locator("#conn")).to_have_attribute("data-state", "open")
    expect(ann.locator("#spectators")).to_have_text("1 watching")

    players = {1: ann, 2: bo}
    played: list[str] = []
    shot_at = 10 if plan.plies < 40 else 30
    while len(played) < plan.plies and status_of(ann) == "active":
        seat = int(ann.evaluate("window.hexmoot.state.game.to_move"))
        played.append(play_one_move(players[seat], rng))
        for page in (ann, bo, cy):  # every move reaches both players and the spectator
            wait_moves(page, played)
        if len(played) == shot_at:
            ann.locator("#board").screenshot(path=artifacts / f"{plan.slug}-board-mid.png")
            cy.screenshot(path=artifacts / f"{plan.slug}-spectator-mid.png", full_page=True)
        if plan.ending == "natural" and status_of(cy) == "finished":
            break
    if len(played) == 2:
        assert played[1] in ("black", "white")  # the pie choice, clicked as a button
    assert plan.slug == "exxit" or "black" in played or "white" in played

    if plan.ending == "pass":
        for _ in range(2):
            seat = int(ann.evaluate("window.hexmoot.state.game.to_move"))
            page = players[seat]
            page.click('#choices button[data-token="pass"]')
            played.append("pass")
            wait_moves(cy, played)
    elif plan.ending == "resign":
        seat = int(ann.evaluate("window.hexmoot.state.game.to_move"))
        page = players[seat]
        page.click("#resign")
        expect(page.locator("#resign-confirm")).to_be_visible()
        page.click("#resign-yes")
    for page in (ann, bo, cy):
        expect(page.locator("#result")).to_be_visible()
    assert status_of(cy) == "finished"
    result = cy.inner_text("#result")
    if plan.ending == "resign":
        assert "resignation" in result
    cy.screenshot(path=artifacts / f"{plan.slug}-finished.png", full_page=True)
    assert moves_of(cy) == played

    # The archive lists the game; its replay steps through every ply.
    cy.goto(f"{server.url}/archive?game={plan.slug}")
    row = cy.locator(f'tr[data-game="{game_id}"]')
    expect(row).to_be_visible()
    cy.screenshot(path=artifacts / f"{plan.slug}-archive.png", full_page=True)
    row.locator("a").click()
    cy.wait_for_url(f"**/games/{game_id}?ply=0")
    cy.wait_for_function("window.hexmoot.state.shown === 0")
    n = len(played)
    for ply in range(1, n + 1):
        cy.keyboard.press("ArrowRight")
        cy.wait_for_function("(p) => window.hexmoot.state.shown === p", arg=ply)
        last = cy.evaluate("window.hexmoot.board.view.last_move")
        if played[ply - 1] not in ("black", "white", "pass") and last is not None:
            assert last["text"] == played[ply - 1], (ply, last)
    assert "ply=" not in cy.url  # the last position is the live one
    cy.click("#nav-first")
    cy.wait_for_function("window.hexmoot.state.review === 0")
    cy.locator("#ply-slider").fill(str(n // 2))
    cy.wait_for_function("(p) => window.hexmoot.state.review === p", arg=n // 2)
    assert cy.url.endswith(f"?ply={n // 2}")
    cy.keyboard.press("ArrowLeft")
    cy.wait_for_function("(p) => window.hexmoot.state.review === p", arg=n // 2 - 1)
    cy.screenshot(path=artifacts / f"{plan.slug}-replay.png", full_page=True)
    with cy.expect_download() as download:
        cy.click("#download")
    record = json.loads(Path(download.value.path()).read_text())
    assert record["game"] == plan.slug
    assert record["moves"] == played
    assert [p["name"] for p in record["players"]] == ["Ann", "Bo"]
    # a permalink opens at its ply
    cy.goto(f"{server.url}/games/{game_id}?ply=3")
    cy.wait_for_function("window.hexmoot.state.review === 3")
    assert move_count(cy) == n
