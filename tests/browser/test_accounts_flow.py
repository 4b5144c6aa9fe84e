"""Players who come back, in Debian's Chromium: a guest plays, signs up on the page and finds the
game in My games; the account logs in on a second browser, sees the same games and the your-turn
badge change live, with a notification while that page is hidden; a challenge is sent, appears
live and is accepted; a rated game ends and both pages show both ratings changed, once; an address
given at sign-up shows as unverified until the link mailed to it is opened (issue 26)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.axe import serious_axe
from tests.browser.conftest import Guests
from tests.browser.helpers import (
    CHROMIUM_ARGS,
    FULL_CHROMIUM,
    ApiGame,
    ConsoleErrors,
    Screenshots,
    play_one_move,
)
from tests.support.accounts import VERIFY_PAGE, signup_page
from tests.support.databases import fresh_database
from tests.support.patience import PATIENCE_MS
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import LiveServer, live_server
from tests.support.smtp import SmtpServer, smtp

__all__ = ["smtp"]

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery staple"


@pytest.fixture()
def notifying(browser: Browser, console: ConsoleErrors) -> Iterator[Guests]:
    """Guests in the whole of Debian's Chromium, for the one test that watches desktop
    notifications: the headless shell the others use has none."""
    full = browser.browser_type.launch(
        executable_path=FULL_CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )
    guests = Guests(full, console)
    try:
        yield guests
    finally:
        guests.close()
        full.close()


# Makes the page believe it is hidden, and records the notifications it shows.
HIDDEN_WITH_NOTIFICATIONS = """
Object.defineProperty(document, "hidden", { get: () => true });
Object.defineProperty(document, "visibilityState", { get: () => "hidden" });
window.__notes = [];
const Real = window.Notification;
class Recorded extends Real {
  constructor(title, options) { super(title, options); window.__notes.push({ title, body: options && options.body }); }
}
Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
Recorded.requestPermission = (...a) => Real.requestPermission(...a);
window.Notification = Recorded;
"""


def _post(page: Page, server: LiveServer, path: str, body: dict[str, Any]) -> Any:
    answer = page.request.post(f"{server.url}{path}", data=body)
    assert answer.ok, answer.text()
    return answer.json()


def _mine(page: Page, game_id: str) -> None:
    expect(page.locator(f'#my li[data-id="{game_id}"]').first).to_be_visible()


def test_a_guest_signs_up_and_finds_its_game_then_a_second_browser_sees_the_turn_live(
    server: LiveServer, notifying: Guests, screenshots: Screenshots
) -> None:
    guests = notifying
    ann = guests.page()
    ann.goto(server.url + "/")
    made = _post(
        ann,
        server,
        "/api/games",
        {"game": "exxit", "options": {"variant": "beginner"}, "seat": 1, "public": True},
    )
    opponent = httpx.Client(base_url=server.url, timeout=30)
    try:
        opponent.put("/api/me", json={"name": "Bob"}).raise_for_status()
        opponent.post(
            f"/api/games/{made['id']}/join", json={"token": made["join_token"]}
        ).raise_for_status()
        ann.goto(f"{server.url}/games/{made['id']}")
        expect(ann.locator("#conn")).to_have_attribute("data-state", "open")
        game = ApiGame.of_pages(server, made["id"], {1: ann})
        game.clients[2] = opponent
        rng = random.Random(4)
        while game.picker.to_move() == 2:  # the guest plays a move by clicking
            game.play(game.picker.pick())
        play_one_move(ann, rng)
        game.refresh()

        # Sign up on the page: the game stays this player's.
        ann.goto(server.url + "/signup")
        ann.fill("#username", "ann_flow")
        ann.fill("#password", PASSWORD)
        ann.click("#signup-form button[type=submit]")
        ann.wait_for_url("**/my")
        _mine(ann, made["id"])
        expect(ann.locator("#account-nav")).to_contain_text("ann_flow")
        screenshots.page(ann, "my-games")

        # A second browser logs in, hidden, with notifications allowed.
        context = guests.browser.new_context(viewport={"width": 390, "height": 844})
        context.set_default_timeout(PATIENCE_MS)
        guests.contexts.append(context)
        context.grant_permissions(["notifications"], origin=server.url)
        context.add_init_script(HIDDEN_WITH_NOTIFICATIONS)
        phone = guests.console.watch(context.new_page())
        phone.goto(server.url + "/login")
        phone.fill("#username", "ANN_FLOW")
        phone.fill("#password", PASSWORD)
        phone.click("#login-form button[type=submit]")
        phone.wait_for_url("**/my")
        _mine(phone, made["id"])
        expect(phone.locator("#turn-badge")).to_be_hidden()
        # The opponent moves until it is Ann's turn: both badges say so, live.
        game.refresh()
        while game.picker.to_move() == 2:
            game.play(game.picker.pick())
        for page in (ann, phone):
            expect(page.locator("#turn-badge")).to_have_text("1")
            expect(page.locator(f'#your-turn li[data-id="{made["id"]}"]')).to_be_visible()
        assert phone.title().startswith("(1) ")
        phone.wait_for_function("() => window.__notes.length > 0")
        notes = phone.evaluate("window.__notes")
        assert notes[0]["title"] == "Your turn" and "Bob" in notes[0]["body"]
        assert ann.evaluate(
            "window.__notes === undefined"
        )  # the visible page shows no notification
        screenshots.page(phone, "my-games-phone")
    finally:
        opponent.close()


def test_a_challenge_is_sent_appears_and_is_accepted(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    cy, dee = guests.page(), guests.page()
    for page, name in ((cy, "cy_flow"), (dee, "dee_flow")):
        page.goto(server.url + "/")
        signup_page(page, server.url, name)
    dee.goto(server.url + "/my")
    expect(dee.locator("#challenges-empty")).to_be_visible()
    cy.goto(server.url + "/players/dee_flow")
    cy.click("text=Challenge dee_flow")
    cy.wait_for_url("**/my?challenge=dee_flow*")
    expect(cy.locator("#challenge-to")).to_have_value("dee_flow")
    cy.select_option("#challenge-game", "exxit")
    cy.select_option("#challenge-seat", "1")
    cy.click("#challenge-form button[type=submit]")
    expect(cy.locator("#challenges li")).to_contain_text("You challenged dee_flow")
    incoming = dee.locator("#challenges li")
    expect(incoming).to_contain_text("cy_flow challenges you to Exxit")
    screenshots.page(dee, "my-games-challenge")
    incoming.locator("button", has_text="Accept").click()
    dee.wait_for_url("**/games/*")
    game_id = dee.url.rsplit("/", 1)[1]
    expect(dee.locator("#players")).to_contain_text("(you)")
    # The challenger's page is taken to the game too (challenge_answered on /ws/me).
    cy.wait_for_url(f"**/games/{game_id}")
    expect(cy.locator("#players")).to_contain_text("(you)")
    cy.goto(server.url + "/my")
    _mine(cy, game_id)  # the challenger's list has the game
    expect(cy.locator("#challenges-empty")).to_be_visible()


def test_a_rated_game_ends_and_both_see_their_ratings_change_once(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    eve, fay = guests.page(), guests.page()
    for page, name in ((eve, "eve_flow"), (fay, "fay_flow")):
        page.goto(server.url + "/")
        signup_page(page, server.url, name)
    made = _post(
        eve,
        server,
        "/api/games",
        {"game": "exxit", "options": {"variant": "beginner"}, "seat": 1, "rated": True},
    )
    _post(fay, server, f"/api/games/{made['id']}/join", {"token": made["join_token"]})
    game = ApiGame.of_pages(server, made["id"], {1: eve, 2: fay})
    try:
        game.play_random(random.Random(2), 2)
        for page in (eve, fay):
            page.goto(f"{server.url}/games/{made['id']}")
            expect(page.locator("#conn")).to_have_attribute("data-state", "open")
        fay.click("#resign")
        fay.click("#resign-yes")
        for page, mine in ((eve, "Your rating: 1500 → 1662"), (fay, "Your rating: 1500 → 1338")):
            expect(page.locator("#rating-change")).to_contain_text(mine)
        expect(eve.locator("#rating-change")).to_contain_text("fay_flow's rating: 1500 → 1338")
        screenshots.page(eve, "rated-result")
        profile = eve.request.get(f"{server.url}/api/players/eve_flow").json()
        assert [(r["game"], r["games"]) for r in profile["ratings"]] == [("exxit", 1)]
        snapshot = eve.request.get(f"{server.url}/api/games/{made['id']}").json()
        assert len(snapshot["game"]["result"]["ratings"]) == 2
        fay.reload()  # a reload shows the same change: it is stored with the result
        expect(fay.locator("#rating-change")).to_contain_text("Your rating: 1500 → 1338")
    finally:
        game.close()


@pytest.fixture(scope="module")
def mail_server(tmp_path_factory: pytest.TempPathFactory, smtp: SmtpServer) -> Iterator[LiveServer]:
    """A server on a fresh SQLite database that mails through the loopback SMTP server."""
    env = {**QUOTAS_OFF, "SMTP_HOST": "127.0.0.1", "SMTP_PORT": str(smtp.port)}
    with (
        fresh_database("sqlite", tmp_path_factory.mktemp("mail")) as url,
        live_server(url, env) as running,
    ):
        yield running


def _both_themes(page: Page, screenshots: Screenshots, name: str, found: list[str]) -> None:
    """axe-core's serious violations (into ``found``) and a screenshot of the page in the light
    theme, then the dark one (the system's choice, which the page follows live); light after."""
    for theme in ("light", "dark"):
        page.emulate_media(color_scheme=theme)
        expect(page.locator("html")).to_have_attribute("data-theme", theme)
        found += serious_axe(page, f"{name} ({theme})")
        screenshots.page(page, f"{name}-{theme}")
    page.emulate_media(color_scheme="light")


def test_an_address_shows_unverified_until_its_mailed_link_is_opened(
    mail_server: LiveServer, smtp: SmtpServer, guests: Guests, screenshots: Screenshots
) -> None:
    address = "gil@example.org"
    found: list[str] = []
    gil = guests.page()
    gil.goto(mail_server.url + "/signup")
    gil.fill("#username", "gil_flow")
    gil.fill("#password", PASSWORD)
    gil.fill("#email", address)
    gil.click("#signup-form button[type=submit]")
    gil.wait_for_url("**/my")

    gil.goto(mail_server.url + "/settings")
    expect(gil.locator("#email-unverified")).to_be_visible()
    expect(gil.locator("#email-unverified")).to_contain_text("Unverified")
    expect(gil.locator("#email-pending")).to_have_text(address)
    expect(gil.locator("#email-verified")).to_be_hidden()
    expect(gil.locator("#email")).to_have_value(address)
    _both_themes(gil, screenshots, "settings-email-unverified", found)
    gil.click("#email-resend")
    expect(gil.locator("#resend-done")).to_contain_text("Sent: check your mail")
    first, newest = smtp.inbox.wait_for(address, 2)

    # The older link was spent by the newer: its page says so (the API's 403 is expected).
    guests.console.allow(r"status of 403")
    gil.goto(mail_server.url + smtp.inbox.link(first, VERIFY_PAGE))
    expect(gil.locator("#verify-error")).to_contain_text("unknown, expired or used already")
    expect(gil.locator("#verify-done")).to_be_hidden()
    _both_themes(gil, screenshots, "verify-refused", found)

    # The newest link, opened on a phone that is not logged in, verifies the address.
    phone = guests.page(width=390, height=844)
    phone.goto(mail_server.url + smtp.inbox.link(newest, VERIFY_PAGE))
    expect(phone.locator("#verify-done")).to_be_visible()
    expect(phone.locator("#verify-done")).to_contain_text(f"Verified {address} is confirmed")
    _both_themes(phone, screenshots, "verify-done-phone", found)

    gil.goto(mail_server.url + "/settings")
    expect(gil.locator("#email-verified")).to_be_visible()
    expect(gil.locator("#email-unverified")).to_be_hidden()
    _both_themes(gil, screenshots, "settings-email-verified", found)

    # A new address is unverified again, and gets its own link.
    gil.fill("#email", "gil.new@example.org")
    gil.click("#email-form button[type=submit]")
    expect(gil.locator("#email-done")).to_have_text("Saved: we sent it a link to confirm it")
    expect(gil.locator("#email-unverified")).to_be_visible()
    expect(gil.locator("#email-pending")).to_have_text("gil.new@example.org")
    smtp.inbox.wait_for("gil.new@example.org", 1)
    assert not found, "serious axe violations:\n" + "\n".join(found)
