"""The import page (issue 28): a record uploaded or pasted joins the archive, marked imported; a
refusal names the first bad ply and its move, and imports nothing. A guest on a phone in the dark
theme, and one on a desktop in the light one."""

from __future__ import annotations

import json

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.axe import assert_no_serious_axe
from tests.browser.conftest import Guests
from tests.browser.helpers import ConsoleErrors, Screenshots
from tests.support.gameplay import resigned_record
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser


def a_record(plies: int, seed: int) -> dict[str, object]:
    """A record of a random Exxit game cut after ``plies``, seat 2 resigning."""
    return resigned_record("exxit", {"variant": "beginner"}, plies, seed)


def archived(server: LiveServer) -> int:
    """How many games the archive lists."""
    return len(httpx.get(f"{server.url}/api/archive", timeout=30).json()["games"])


def test_a_record_pasted_or_uploaded_is_imported_and_a_bad_one_names_its_ply(
    server: LiveServer, guests: Guests, screenshots: Screenshots, console: ConsoleErrors
) -> None:
    console.allow("status of 422")  # the browser's own note of the refusal below
    before = archived(server)
    phone = guests.page(width=390, height=844, color_scheme="dark", has_touch=True)
    phone.goto(f"{server.url}/archive")
    phone.click("text=Import a game")
    expect(phone.locator("h1")).to_have_text("Import a game")

    # A move that is no move at ply 5: the page names the ply and its text, nothing is imported.
    record = a_record(8, seed=1)
    moves = list(record["moves"])  # type: ignore[call-overload]
    record["moves"] = [*moves[:4], "zz9", *moves[5:]]
    phone.fill("#record", json.dumps(record, indent=1))
    phone.click("#import")
    expect(phone.locator("#name-error")).to_contain_text("Choose the name")
    phone.fill("#name", "Ann")
    phone.click("#import")
    expect(phone.locator("#record-error")).to_contain_text("Ply 5 (zz9) is the first bad one")
    assert phone.url.endswith("/archive/import")
    assert_no_serious_axe(phone, "the import page with a refusal (390 px, dark)")
    screenshots.page(phone, "import-refused-phone-dark")
    assert archived(server) == before

    # Not JSON at all: said in words, before anything is sent.
    phone.fill("#record", "{ not json")
    phone.click("#import")
    expect(phone.locator("#record-error")).to_contain_text("This is not JSON")

    # The same game whole, as a file: it lands on its game page, marked as imported by Ann.
    good = a_record(8, seed=1)
    phone.set_input_files(
        "#record-file",
        files=[
            {
                "name": "game.json",
                "mimeType": "application/json",
                "buffer": json.dumps(good).encode(),
            }
        ],
    )
    expect(phone.locator("#record")).to_have_value(json.dumps(good))
    phone.click("#import")
    phone.wait_for_url("**/games/*")
    expect(phone.locator("#imported")).to_have_text("Imported by Ann")
    expect(phone.locator("#players")).to_contain_text("Sam")
    assert archived(server) == before + 1

    # A desktop in the light theme: the page as it first shows, a name already chosen kept.
    desk = guests.page(color_scheme="light")
    desk.goto(f"{server.url}/archive/import")
    expect(desk.locator("#name")).to_have_value("")
    assert_no_serious_axe(desk, "the import page (1280 px, light)")
    screenshots.page(desk, "import-desktop-light")
    desk.fill("#name", "Bo")
    desk.fill("#record", json.dumps(a_record(6, seed=2)))
    desk.click("#import")
    desk.wait_for_url("**/games/*")
    expect(desk.locator("#imported")).to_have_text("Imported by Bo")
    desk.goto(f"{server.url}/archive/import")
    expect(desk.locator("#name")).to_have_value("Bo")
