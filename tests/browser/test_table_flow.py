"""Clocks and the table in Debian's Chromium, against a real server whose clock a file moves: a 1+0
game lost on time on both pages, a draw offered and accepted in Harmijan, a takeback seen by a
spectator, a rematch with the seats swapped, and the two chat rooms kept apart."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from app.domain.timecontrol import LAG_CAP_MS
from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, Screenshots
from tests.support.databases import fresh_database
from tests.support.patience import PATIENCE
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser
#: 60 s less the 5 s the test moves the server's clock, less the real time the move took to arrive.


class Clocked:
    """A server whose clock stands still but when the test moves it, by writing milliseconds
    into a file: a player is charged the seconds the test says, not also the real seconds the
    machine took to draw the pages in between."""

    def __init__(self, server: LiveServer, offset: Path) -> None:
        self.server, self.offset, self.ms = server, offset, 0

    def advance(self, seconds: float) -> None:
        self.ms += int(seconds * 1000)
        self.offset.write_text(str(self.ms))


@pytest.fixture(scope="module")
def clocked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clocked]:
    directory = tmp_path_factory.mktemp("clocked")
    offset = directory / "offset"
    offset.write_text("0")
    with fresh_database("sqlite", directory) as url:
        env = {**QUOTAS_OFF, "CLOCK_OFFSET_FILE": str(offset), "CLOCK_FROZEN": "1"}
        server = LiveServer(url, env)
        server.start()
        try:
            yield Clocked(server, offset)
        finally:
            server.stop()


def seat_page(page: Page, server: LiveServer, name: str) -> Page:
    page.goto(server.url + "/")
    page.fill("#name", name)
    page.evaluate(
        "(n) => fetch('/api/me', {method: 'PUT', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({name: n})})",
        name,
    )
    return page


def start(
    guests: Guests, server: LiveServer, slug: str, options: dict[str, Any], **extra: Any
) -> tuple[Page, Page, ApiGame]:
    """Ann creates (seat 1) through the page's own cookie, Bob joins; both watch the game page."""
    ann = seat_page(guests.page(), server, "Ann")
    bob = seat_page(guests.page(width=390, height=844), server, "Bob")
    body = {"game": slug, "options": options, "seat": 1, **extra}
    made = ann.evaluate(
        "async (b) => (await fetch('/api/games', {method: 'POST', headers: {'Content-Type':"
        " 'application/json'}, body: JSON.stringify(b)})).json()",
        body,
    )
    joined = bob.evaluate(
        "async ([id, token]) => (await fetch(`/api/games/${id}/join`, {method: 'POST', headers:"
        " {'Content-Type': 'application/json'}, body: JSON.stringify({token})})).status",
        [made["id"], made["join_token"]],
    )
    assert joined == 200
    for page in (ann, bob):
        page.goto(f"{server.url}/games/{made['id']}")
        expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    api = ApiGame.of_pages(server, made["id"], {1: ann, 2: bob})
    return ann, bob, api


def spectator(guests: Guests, server: LiveServer, game_id: str) -> Page:
    cy = seat_page(guests.page(), server, "Cy")
    cy.goto(f"{server.url}/games/{game_id}")
    expect(cy.locator("#conn")).to_have_attribute("data-state", "open")
    return cy


def test_a_1_0_game_lost_on_time(
    clocked: Clocked, guests: Guests, screenshots: Screenshots
) -> None:
    server = clocked.server
    ann, bob, api = start(
        guests,
        server,
        "exxit",
        {"variant": "beginner"},
        time_control={"kind": "realtime", "base": 60, "increment": 0},
    )
    expect(ann.locator("#time-control")).to_have_text("1+0")
    api.play_random(random.Random(1), 2)  # both first moves: Ann's clock runs
    for page in (ann, bob):
        expect(page.locator('.clock[data-clock="1"]')).to_have_class("clock running")
    screenshots.page(ann, "clock-running")
    clocked.advance(5)  # Ann thinks for 5 s of the server's clock, then moves: Bob's clock runs
    api.play_random(random.Random(2), 1)
    for page in (ann, bob):
        expect(page.locator('.clock[data-clock="2"]')).to_have_class("clock running")
        expect(page.locator('.clock[data-clock="1"] .time')).to_have_text("0:55")
    screenshots.page(bob, "clock-running-390")
    clocked.advance(3)  # Bob thinks for 3 s, then moves: Ann's clock runs again
    api.play_random(random.Random(3), 1)
    expect(ann.locator('.clock[data-clock="1"]')).to_have_class("clock running")
    clocked.advance(45)  # Ann has under ten seconds left
    ann.reload()
    expect(ann.locator('.clock[data-clock="1"] .time')).to_have_text(re.compile(r"^\d\.\d$"))
    expect(ann.locator('.clock[data-clock="1"]')).to_have_class("clock running low")
    screenshots.page(ann, "clock-low")
    # Past the deadline and any lag allowance: the server flags Ann with nobody acting.
    clocked.advance(10 + LAG_CAP_MS / 1000)
    for page in (ann, bob):
        expect(page.locator("#result")).to_contain_text("Ann ran out of time")
        expect(page.locator('.clock[data-clock="1"] .time')).to_have_text("0.0")
    screenshots.page(bob, "lost-on-time-390")
    # The replay shows each ply's clocks: after ply 3, Ann had 55 s and Bob his minute.
    ann.click("#nav-back")
    expect(ann.locator("#review-banner")).to_be_visible()
    # the views come from POST /api/replay, whose worker process may be starting: no hurry
    expect(ann.locator('.clock[data-clock="1"] .time')).to_have_text("0:55")
    expect(ann.locator('.clock[data-clock="2"] .time')).to_have_text("1:00")
    ann.click("#nav-first")
    expect(ann.locator('.clock[data-clock="1"] .time')).to_have_text("1:00")


def test_a_draw_offered_and_accepted_in_harmijan(
    clocked: Clocked, guests: Guests, screenshots: Screenshots
) -> None:
    ann, bob, api = start(guests, clocked.server, "harmijan", {"size": 5})
    api.play_random(random.Random(2), 4)
    # both pages have heard the fourth move before either is asked whose turn it is
    for page in (ann, bob):
        page.wait_for_function("() => window.hexmoot.state.moves.length === 4")
    seat = int(ann.evaluate("window.hexmoot.state.game.to_move"))
    pages = {1: ann, 2: bob}
    offerer, answerer = pages[seat], pages[3 - seat]
    expect(pages[3 - seat].locator("#offer-draw")).to_be_hidden()  # not on their turn
    offerer.click("#offer-draw")
    expect(answerer.locator("#offer")).to_contain_text("offers a draw")
    expect(offerer.locator("#offer")).to_contain_text("You offered a draw")
    screenshots.page(answerer, "draw-offered")
    answerer.click("#offer-accept")
    for page in (ann, bob):
        expect(page.locator("#result")).to_contain_text("Draw")
        expect(page.locator("#result")).to_contain_text("agreed by both players")


def test_a_takeback_seen_by_a_spectator(clocked: Clocked, guests: Guests) -> None:
    ann, bob, api = start(guests, clocked.server, "exxit", {"variant": "beginner"})
    api.play_random(random.Random(3), 3)
    cy = spectator(guests, clocked.server, api.id)
    for page in (ann, bob, cy):
        page.wait_for_function("(n) => window.hexmoot.state.moves.length === n", arg=3)
    last = 3 - int(ann.evaluate("window.hexmoot.state.game.to_move"))
    pages = {1: ann, 2: bob}
    pages[last].click("#offer-takeback")
    expect(pages[3 - last].locator("#offer")).to_contain_text("take back a move")
    pages[3 - last].click("#offer-accept")
    for page in (ann, bob, cy):
        page.wait_for_function("(n) => window.hexmoot.state.moves.length === n", arg=2)
    assert cy.evaluate("window.hexmoot.state.game.to_move") == last


def test_a_rematch_with_the_seats_swapped(clocked: Clocked, guests: Guests) -> None:
    ann, bob, api = start(guests, clocked.server, "exxit", {"variant": "beginner"})
    api.play_random(random.Random(4), 2)
    ann.click("#resign")
    ann.click("#resign-yes")
    expect(bob.locator("#offer-rematch")).to_be_visible()
    bob.click("#offer-rematch")
    expect(ann.locator("#offer")).to_contain_text("offers a rematch")
    ann.click("#offer-accept")
    old = api.id
    for page in (ann, bob):
        page.wait_for_url(lambda url: old not in url and "/games/" in url)
        expect(page.locator("#conn")).to_have_attribute("data-state", "open")
        expect(page.locator("#rematch-link")).to_contain_text("Rematch of the previous game")
    assert ann.evaluate("window.hexmoot.state.you.seat") == 2
    assert bob.evaluate("window.hexmoot.state.you.seat") == 1
    new_id = ann.url.rsplit("/", 1)[1]
    with httpx.Client(base_url=clocked.server.url, timeout=PATIENCE) as http:
        assert http.get(f"/api/games/{old}").json()["game"]["rematch_id"] == new_id


def test_chat_rooms_kept_apart(clocked: Clocked, guests: Guests, screenshots: Screenshots) -> None:
    ann, bob, api = start(guests, clocked.server, "exxit", {"variant": "beginner"})
    cy = spectator(guests, clocked.server, api.id)
    expect(ann.locator("#chat-title")).to_have_text("Chat with your opponent")
    expect(cy.locator("#chat-title")).to_have_text("Spectators' chat")
    ann.fill("#chat-input", "good luck <b>Bob</b>")
    ann.click("#chat-send")
    expect(bob.locator("#chat-log")).to_contain_text("Ann: good luck <b>Bob</b>")
    cy.fill("#chat-input", "go Bob!")
    cy.click("#chat-send")
    expect(cy.locator("#chat-log")).to_contain_text("Cy: go Bob!")
    expect(cy.locator("#chat-log")).not_to_contain_text("good luck")
    for page in (ann, bob):
        expect(page.locator("#chat-log")).not_to_contain_text("go Bob")
    bob.check("#mute")
    expect(bob.locator("#chat-log")).not_to_contain_text("good luck")
    screenshots.page(cy, "chat-spectators")
    screenshots.page(bob, "chat-players-390")
