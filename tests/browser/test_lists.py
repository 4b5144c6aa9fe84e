"""The lists in Chromium (issue 15, package "lists"): the archive's page 2 has its own URL, the lobby
shows a creator's waiting game with Cancel, the lobby makes no request while idle (its timers run on
Playwright's fake clock: half an hour passes at once), each list entry says when its game last
moved and idle ones drop out, and the header takes one row on a 390 px phone with 44 px targets."""

from __future__ import annotations

import random
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, Heartbeats, Screenshots
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer

LONG_NAME = "Wolfeschlegelsteinhausen"[:24]


def finished(server: LiveServer, names: tuple[str, str], slug: str = "exxit") -> str:
    """A public game between ``names``, seat 2 resigning at once; its id."""
    with (
        httpx.Client(base_url=server.url, timeout=PATIENCE) as one,
        httpx.Client(base_url=server.url, timeout=PATIENCE) as two,
    ):
        for client, name in ((one, names[0]), (two, names[1])):
            client.put("/api/me", json={"name": name}).raise_for_status()
        options = {"variant": "beginner"} if slug == "exxit" else {"size": 5}
        made = one.post("/api/games", json={"game": slug, "options": options, "seat": 1})
        made.raise_for_status()
        game_id: str = made.json()["id"]
        token = {"token": made.json()["join_token"]}
        two.post(f"/api/games/{game_id}/join", json=token).raise_for_status()
        two.post(f"/api/games/{game_id}/resign", json={"msg_id": "r"}).raise_for_status()
    return game_id


def rows(page: Page) -> list[str]:
    expect(page.locator("#rows [data-game]").first).to_be_visible()
    return page.locator("#rows [data-game]").evaluate_all("(rs) => rs.map((r) => r.dataset.game)")


def test_the_archive_page_two_can_be_bookmarked(server: LiveServer, guests: Guests) -> None:
    made = [finished(server, ("Pagella", "Bo")) for _ in range(5)]
    page = guests.page()
    page.goto(server.url + "/archive?player=PAGE&limit=2")
    expect(page.locator('input[name="player"]')).to_have_value("PAGE")
    first = rows(page)
    assert len(first) == 2 and set(first) <= set(made)
    page.locator("#more").click()
    expect(page.locator("#page-no")).to_have_text("Page 2")
    query = parse_qs(urlsplit(page.url).query)
    assert query["player"] == ["PAGE"] and query["page"] == ["2"] and query["cursor"]
    second = rows(page)
    assert len(second) == 2 and set(second) <= set(made) - set(first)
    # The URL opened afresh (a bookmark, a shared link) shows page 2 with its filter.
    other = guests.page()
    other.goto(page.url)
    expect(other.locator("#page-no")).to_have_text("Page 2")
    assert rows(other) == second
    expect(other.locator('input[name="player"]')).to_have_value("PAGE")
    expect(other.locator("#first-page")).to_be_visible()
    # Page 3, then Back twice: page 2, then page 1; Forward: page 2 again.
    page.locator("#more").click()
    expect(page.locator("#page-no")).to_have_text("Page 3")
    page.go_back()
    expect(page.locator("#page-no")).to_have_text("Page 2")
    assert rows(page) == second
    page.go_back()
    expect(page.locator("#page-no")).to_have_text("Page 1")
    assert rows(page) == first
    page.go_forward()
    expect(page.locator("#page-no")).to_have_text("Page 2")


def test_the_creator_sees_cancel_and_everyone_sees_it_go(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    ann, bo = guests.page(), guests.page(width=390, height=844)
    made = ann.request.post(
        server.url + "/api/games",
        data={"game": "exxit", "options": {"variant": "beginner"}, "seat": 1},
    )
    assert made.ok, made.text()
    game_id = made.json()["id"]
    for page in (ann, bo):
        page.goto(server.url + "/")
    mine = ann.locator(f'#open-games li[data-game="{game_id}"]')
    theirs = bo.locator(f'#open-games li[data-game="{game_id}"]')
    expect(mine.locator("[data-cancel]")).to_have_text("Cancel")
    expect(mine.locator("[data-join]")).to_have_count(0)
    expect(mine).to_contain_text("created just now")
    expect(theirs.locator("[data-join]")).to_have_text("Join")
    expect(theirs.locator("[data-cancel]")).to_have_count(0)
    box = theirs.locator("[data-join]").bounding_box()
    assert box is not None and box["height"] >= 44
    screenshots.page(ann, "lists-lobby-cancel")
    screenshots.page(bo, "lists-lobby-join-390")
    mine.locator("[data-cancel]").click()
    expect(mine).to_have_count(0)
    expect(theirs).to_have_count(0)  # over the live socket, no reload
    snapshot = ann.request.get(f"{server.url}/api/games/{game_id}").json()
    assert snapshot["game"]["status"] == "cancelled"


def test_the_idle_lobby_makes_no_request_and_ages_its_entries(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    game = ApiGame.create(server, "exxit", {"variant": "beginner"})
    api_games.append(game)
    game.play_random(random.Random(4), 2)
    page = guests.page()
    beats = Heartbeats(page)
    page.clock.install()
    page.goto(server.url + "/")
    card = page.locator(f'#live-games .mini[data-id="{game.id}"]')
    expect(card.locator("time")).to_have_text("moved just now")
    assert card.locator("time").get_attribute("datetime")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    # Someone creates a game: it reaches the lobby over the socket.
    with httpx.Client(base_url=server.url, timeout=PATIENCE) as other:
        made = other.post(
            "/api/games", json={"game": "exxit", "options": {"variant": "beginner"}, "seat": 1}
        ).raise_for_status()
    waiting = page.locator(f'#open-games li[data-game="{made.json()["id"]}"]')
    expect(waiting.locator("[data-join]")).to_be_visible()
    beats.idle(210_000)  # 3.5 min: the creation came a few seconds later
    expect(card.locator("time")).to_have_text("moved 3 min ago")
    expect(waiting.locator("time")).to_have_text("created 3 min ago")
    # 28 more minutes, no move: past the 30 minute cut-off both leave, with no message.
    beats.idle(28 * 60_000)
    # the socket stayed up: every ping of the half hour was answered, and it never reconnected
    assert beats.pongs > 60 and len(beats.on("/ws/live")) == 1
    expect(card).to_have_count(0)
    expect(waiting).to_have_count(0)
    expect(page.locator("#live-games p.muted", has_text="No game")).to_be_visible()
    assert requests == [], requests


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_lists_fit_a_phone_and_the_header_takes_one_row(
    server: LiveServer,
    guests: Guests,
    api_games: list[ApiGame],
    screenshots: Screenshots,
    theme: str,
) -> None:
    rng = random.Random(15)
    game = ApiGame.create(server, "valaturna", {"size": 5})
    api_games.append(game)
    game.play_random(rng, 3)
    long_game = ApiGame.create(server, "valaturna", {"size": 5})
    api_games.append(long_game)
    finished(server, (LONG_NAME, LONG_NAME[::-1]), "valaturna")
    with httpx.Client(base_url=server.url, timeout=PATIENCE) as host:
        host.put("/api/me", json={"name": LONG_NAME}).raise_for_status()
        host.post(
            "/api/games", json={"game": "jotun", "options": {"size": 4}, "seat": 1}
        ).raise_for_status()
    for width, height in ((390, 844), (1280, 900)):
        page = guests.page(width=width, height=height, color_scheme=theme)
        for path in ("/", "/live", "/archive"):
            page.goto(server.url + path)
            if path == "/archive":
                expect(page.locator("#rows [data-game]").first).to_be_visible()
            else:
                expect(page.locator(".mini").first).to_be_visible()
            assert page.evaluate("document.documentElement.scrollWidth") <= width, path
            header = page.locator(".site-header")
            tops = header.locator(":scope > a, :scope > button, nav a").evaluate_all(
                "(els) => els.map((e) => Math.round(e.getBoundingClientRect().top))"
            )
            assert len(set(tops)) == 1, (path, width, tops)  # one row
            sizes = header.locator("a, button").evaluate_all(
                "(els) => els.filter((e) => e.offsetParent).map((e) => [e.textContent, "
                "e.getBoundingClientRect().width, e.getBoundingClientRect().height])"
            )
            assert all(w >= 44 and h >= 44 for _t, w, h in sizes), sizes
            name = path.strip("/") or "lobby"
            screenshots.page(page, f"lists-{name}-{theme}-{width}")
