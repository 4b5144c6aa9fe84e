"""People, challenges and the table's answers in Debian's Chromium (issue 25), against a real server
whose chat allows three lines a minute: a spectator who never chose a name chats, and a refused
line is told at the chat box until the game moves on; a declined draw is told to the offerer until
the next move; a challenge reaches the challenged player on the lobby, whose Accept takes both
players to the game (and a declined one is told to the challenger); accounts' names link to their
profiles on the lobby, /live, My games and the archive; the phone header keeps the your-turn count
in sight and Rules in reach; and npm's axe-core catches a name that leaves out its visible
text."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import AXE_VERSION, assert_no_serious_axe, axe_violations
from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, Screenshots
from tests.support.accounts import signup_page
from tests.support.databases import fresh_database
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

BEGINNER = {"variant": "beginner"}


@pytest.fixture(scope="module")
def people(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose chat takes three lines a minute per visitor, so a fourth is refused."""
    with fresh_database("sqlite", tmp_path_factory.mktemp("people")) as url:
        server = LiveServer(url, {**QUOTAS_OFF, "RATE_CHAT_PER_VISITOR": "3/minute"})
        server.start()
        try:
            yield server
        finally:
            server.stop()


def opened(page: Page, server: LiveServer, path: str) -> Page:
    page.goto(server.url + path)
    if path.startswith("/games/"):
        expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    return page


def post(page: Page, server: LiveServer, path: str, body: dict[str, Any]) -> Any:
    answer = page.request.post(f"{server.url}{path}", data=body)
    assert answer.ok, answer.text()
    return answer.json()


def named(page: Page, server: LiveServer, name: str) -> Page:
    page.goto(server.url + "/")
    answer = page.request.put(f"{server.url}/api/me", data={"name": name})
    assert answer.ok, answer.text()
    return page


def test_a_spectator_who_never_chose_a_name_chats(
    people: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    game = ApiGame.create(people, "exxit", BEGINNER)
    api_games.append(game)
    guests.console.allow("status of 429")  # Chromium's own line for the refused line's answer
    cy = opened(guests.page(), people, f"/games/{game.id}")
    expect(cy.locator("#chat-title")).to_have_text("Spectators' chat")
    me = cy.evaluate("fetch('/api/me').then((r) => r.json())")
    assert me["named"] is False and me["name"].startswith("Guest-")
    for text in ("hello from the stands", "second", "third"):
        cy.fill("#chat-input", text)
        cy.click("#chat-send")
        expect(cy.locator("#chat-log")).to_contain_text(f"{me['name']}: {text}")
        expect(cy.locator("#chat-input")).to_have_value("")
    expect(cy.locator("#chat-error")).to_be_hidden()
    # The fourth line in a minute is refused: said at the chat box, not the page's error line.
    cy.fill("#chat-input", "fourth")
    cy.click("#chat-send")
    error = cy.locator("#chat #chat-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text(re.compile("try again", re.IGNORECASE))
    expect(cy.locator("#chat-input")).to_have_value("fourth")  # kept, to send later
    expect(cy.locator("#error")).to_have_text("")
    screenshots.page(cy, "people-chat-refused")
    # The game moves on: the refusal no longer applies, and goes.
    game.play_random(random.Random(1), 1)
    expect(error).to_be_hidden()


def seated(
    guests: Guests, server: LiveServer, slug: str, options: dict[str, Any]
) -> tuple[Page, Page, ApiGame]:
    """Ann (seat 1) and Bob (seat 2, on a phone) at a new game, each on its page."""
    ann = named(guests.page(), server, "Ann")
    bob = named(guests.page(width=390, height=844), server, "Bob")
    made = post(ann, server, "/api/games", {"game": slug, "options": options, "seat": 1})
    post(bob, server, f"/api/games/{made['id']}/join", {"token": made["join_token"]})
    for page in (ann, bob):
        opened(page, server, f"/games/{made['id']}")
    return ann, bob, ApiGame.of_pages(server, made["id"], {1: ann, 2: bob})


def test_a_declined_draw_is_told_to_the_offerer_until_the_game_moves_on(
    people: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    ann, bob, api = seated(guests, people, "harmijan", {"size": 5})
    api.play_random(random.Random(2), 4)
    seat = api.picker.to_move()
    assert seat is not None
    pages, names = {1: ann, 2: bob}, {1: "Ann", 2: "Bob"}
    offerer, answerer = pages[seat], pages[3 - seat]
    offerer.click("#offer-draw")
    expect(answerer.locator("#offer")).to_contain_text("offers a draw")
    answerer.click("#offer-decline")
    told = offerer.locator("#offer")
    expect(told.locator("#offer-text")).to_have_text(f"{names[3 - seat]} declined your draw offer.")
    expect(told.locator("button:visible")).to_have_count(0)
    expect(answerer.locator("#offer")).to_be_hidden()
    screenshots.page(offerer, f"people-draw-declined-{'390' if seat == 2 else '1280'}")
    offerer.reload()  # told from the table's state, not from the moment alone
    expect(offerer.locator("#offer-text")).to_have_text(
        f"{names[3 - seat]} declined your draw offer."
    )
    api.refresh()
    api.play_random(random.Random(3), 1)  # the game moves on
    expect(offerer.locator("#offer")).to_be_hidden()


def test_a_challenge_reaches_the_lobby_and_both_players_go_to_the_game(
    people: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    ann = guests.page()
    bob = guests.page(width=390, height=844)
    for page, name in ((ann, "ann_pf"), (bob, "bob_pf")):
        page.goto(people.url + "/")
        signup_page(page, people.url, name)
    opened(bob, people, "/")  # Bob is on the lobby, not on My games
    opened(ann, people, "/my")

    def challenge() -> None:
        ann.fill("#challenge-to", "bob_pf")
        ann.select_option("#challenge-game", "exxit")
        ann.select_option("#challenge-seat", "1")
        ann.click("#challenge-form button[type=submit]")
        expect(ann.locator("#challenges li")).to_contain_text("You challenged bob_pf")

    challenge()
    notice = bob.locator('#notices [data-notice^="c:"]')
    expect(notice).to_contain_text("ann_pf challenges you to Exxit")
    expect(notice.get_by_role("link", name="ann_pf")).to_have_attribute("href", "/players/ann_pf")
    screenshots.page(bob, "people-challenge-notice-390")
    notice.get_by_role("button", name="Decline").click()
    expect(notice).to_have_count(0)
    told = ann.locator('#notices [data-notice^="a:"]')
    expect(told).to_contain_text("bob_pf declined your challenge to Exxit")
    screenshots.page(ann, "people-challenge-declined")
    told.get_by_role("button", name="Hide this notice").click()
    expect(told).to_have_count(0)

    challenge()
    expect(notice).to_contain_text("ann_pf challenges you to Exxit")
    notice.get_by_role("button", name="Accept").click()
    bob.wait_for_url("**/games/*")
    game_id = bob.url.rsplit("/", 1)[1]
    ann.wait_for_url(f"**/games/{game_id}")  # told over /ws/me, with no click of hers
    for page in (ann, bob):
        expect(page.locator("#conn")).to_have_attribute("data-state", "open")
        expect(page.locator("#players")).to_contain_text("(you)")
    screenshots.page(ann, "people-challenge-accepted")


def test_accounts_names_link_to_their_profiles(
    people: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    host = guests.page()
    host.goto(people.url + "/")
    signup_page(host, people.url, "host_pf")
    made = post(host, people, "/api/games", {"game": "exxit", "options": BEGINNER, "seat": 1})
    visitor = named(guests.page(), people, "Gus")
    lobby = visitor.locator(f'#open-games li[data-game="{made["id"]}"]')
    expect(lobby.locator("a.person")).to_have_attribute("href", "/players/host_pf")
    post(visitor, people, f"/api/games/{made['id']}/join", {"token": made["join_token"]})
    api = ApiGame.of_pages(people, made["id"], {1: host, 2: visitor})
    api.play_random(random.Random(4), 2)
    opened(visitor, people, "/live")
    card = visitor.locator(f'.mini[data-id="{made["id"]}"]')
    expect(card.locator("a.person")).to_have_text("host_pf")
    expect(card).to_contain_text("vs Gus")  # a guest's name is plain text
    expect(card.locator("a.person")).to_have_count(1)
    opened(visitor, people, "/my")
    mine = visitor.locator(f'#my li[data-id="{made["id"]}"]')
    expect(mine.locator("a.person")).to_have_attribute("href", "/players/host_pf")
    screenshots.page(visitor, "people-my-games")
    seat = api.picker.to_move()
    assert seat is not None
    version = api.clients[seat].get(f"/api/games/{made['id']}").json()["version"]
    api.clients[seat].post(
        f"/api/games/{made['id']}/resign", json={"version": version, "msg_id": "r"}
    ).raise_for_status()
    opened(visitor, people, "/archive")
    row = visitor.locator(f'#rows article[data-game="{made["id"]}"]')
    expect(row.locator("a.person")).to_have_attribute("href", "/players/host_pf")
    row.locator("a.person").click()
    expect(visitor).to_have_url(people.url + "/players/host_pf")
    expect(visitor.locator("h1")).to_contain_text("host_pf")


@pytest.mark.parametrize("width", [390, 360, 1366])
def test_the_header_keeps_the_count_in_sight_and_rules_in_reach(
    people: LiveServer,
    guests: Guests,
    api_games: list[ApiGame],
    screenshots: Screenshots,
    width: int,
) -> None:
    """Twelve games on the visitor's turn (a two-digit count): the count is on screen, clear of
    the account link; Rules is in the header; the header is one row; axe finds nothing serious
    (the My games link's name holds what it shows)."""
    first = ApiGame.create(people, "exxit", BEGINNER)  # seat 1 (Exxit's first mover) is ours
    api_games.append(first)
    cookie = first.cookie(1)
    client = first.clients[1]
    for _ in range(11):
        made = client.post(
            "/api/games", json={"game": "exxit", "options": BEGINNER, "seat": 1}
        ).json()
        first.clients[2].post(
            f"/api/games/{made['id']}/join", json={"token": made["join_token"]}
        ).raise_for_status()
    page = guests.page(width=width, height=844 if width < 1000 else 768)
    page.context.add_cookies(cookie)
    page.goto(people.url + "/live")
    badge = page.locator("#turn-badge")
    expect(badge).to_have_text("12")
    expect(badge).to_be_in_viewport(ratio=1)
    account = page.locator(".account-link")
    b, a = badge.bounding_box(), account.bounding_box()
    assert b is not None and a is not None
    assert b["x"] + b["width"] <= a["x"], (b, a)  # the count is clear of the account icon
    expect(page.locator('.site-header nav a[href="/rules"]')).to_be_visible()
    expect(page.get_by_role("link", name=re.compile(r"^My games 12"))).to_be_visible()
    tops = (
        page.locator(".site-header")
        .locator(":scope > a, :scope > button, nav a")
        .evaluate_all(
            "(els) => els.filter((e) => e.offsetParent).map((e) => Math.round(e.getBoundingClientRect().top))"
        )
    )
    assert len(set(tops)) == 1, tops
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert_no_serious_axe(page, f"header at {width}")
    screenshots.element(page.locator(".site-header"), f"people-header-{width}")


def test_axe_is_the_pinned_version_and_catches_a_name_without_its_visible_text(
    guests: Guests,
) -> None:
    """The old header's mistake on a bare page: the newer axe-core runs label-content-name-mismatch
    by default and calls it serious."""
    page = guests.page()
    page.set_content(
        '<main><a href="/my" id="mine" aria-label="My games">Mine</a>'
        '<a href="/live">Live</a></main>'
    )
    found = axe_violations(page)
    assert page.evaluate("axe.version") == AXE_VERSION
    rules = {v["id"]: v for v in found}
    assert "label-content-name-mismatch" in rules, found
    assert rules["label-content-name-mismatch"]["impact"] == "serious"
    assert [n["target"] for n in rules["label-content-name-mismatch"]["nodes"]] == ["#mine"]
