"""Building and sending a move on the real game page (issue 25): the confirm and its setting, a
move confirmed while offline, the result where the eye is, and the small words that go with them.
Players click and tap cells as people do; each test checks what the page shows."""

from __future__ import annotations

import random
import re
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, ConsoleErrors, Screenshots, click_to_confirm
from tests.support.accounts import signup_page
from tests.support.server import LiveServer


def seat_page(
    guests: Guests,
    server: LiveServer,
    g: ApiGame,
    seat: int,
    confirm: str | None = None,
    turn: bool = True,
    **kw: Any,
) -> Page:
    page = guests.page(**kw)
    page.context.add_cookies(g.cookie(seat))
    if confirm is not None:
        page.add_init_script(f"localStorage.setItem('hexmoot-confirm', '{confirm}')")
    page.goto(f"{server.url}/games/{g.id}")
    expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    if turn:
        page.wait_for_selector("#board svg.active .hit.can, #choices button")
    return page


def made(
    server: LiveServer, made_games: list[ApiGame], slug: str, options: dict[str, Any], **extra: Any
) -> ApiGame:
    """A game with both seats taken (``extra``: more of the create body, a time control say)."""
    clients = {seat: httpx.Client(base_url=server.url, timeout=60) for seat in (1, 2)}
    for seat, client in clients.items():
        client.put("/api/me", json={"name": f"Api{seat}"}).raise_for_status()
    body = {"game": slug, "options": options, "seat": 1, "public": True, **extra}
    answer = clients[1].post("/api/games", json=body).raise_for_status().json()
    clients[2].post(
        f"/api/games/{answer['id']}/join", json={"token": answer["join_token"]}
    ).raise_for_status()
    g = ApiGame(server, answer["id"], clients)
    made_games.append(g)
    return g


def test_the_confirm_shows_the_move_and_enter_or_escape_answer_it(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    """In a game without a clock the default confirms: the last click draws the move and asks
    "Play …"; Escape cancels it (nothing is sent), Enter plays it."""
    g = made(server, api_games, "sgolte", {"size": 5, "variant": "standard"})
    rng = random.Random(4)
    page = seat_page(guests, server, g, 1)
    assert page.evaluate("localStorage.getItem('hexmoot-confirm')") is None
    expect(page.locator("#confirm-setting")).to_have_value("untimed")
    clicked = click_to_confirm(page, rng)
    play = page.locator("#play-move")
    expect(play).to_have_text(re.compile(r"^Play \S+$"))
    expect(page.locator("#confirm-text")).to_have_text("Your move is drawn on the board: play it?")
    expect(play).to_be_focused()
    drawn = page.eval_on_selector(f'#board [data-at="{clicked[0]}"]', "e => e.children.length")
    assert drawn > 0, "the placed stone is drawn while it is confirmed"
    screenshots.view(page, "confirm-sgolte")
    page.keyboard.press("Escape")
    expect(play).to_be_hidden()
    assert page.locator(f'#board [data-at="{clicked[0]}"]').count() == 0  # drawn no more
    g.refresh()
    assert g.moves == []  # nothing was sent
    click_to_confirm(page, random.Random(4))
    expect(play).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.hexmoot.state.moves.length === 1")
    g.refresh()
    assert len(g.moves) == 1


def test_confirm_setting_never_and_a_real_time_clock(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    """ "Never" sends the last click; the default sends it too in a real-time game (on a laptop),
    and the setting is remembered by the browser."""
    g = made(server, api_games, "sgolte", {"size": 5, "variant": "standard"})
    page = seat_page(guests, server, g, 1, confirm="never")
    expect(page.locator("#confirm-setting")).to_have_value("never")
    page.locator("#board svg.active .hit.can").first.click()
    page.wait_for_function("() => window.hexmoot.state.moves.length === 1")
    expect(page.locator("#play-move")).to_be_hidden()

    timed = made(
        server,
        api_games,
        "sgolte",
        {"size": 5, "variant": "standard"},
        time_control={"kind": "realtime", "base": 600, "increment": 5},
    )
    page = seat_page(guests, server, timed, 1)
    expect(page.locator("#confirm-setting")).to_have_value("untimed")
    page.locator("#board svg.active .hit.can").first.click()
    page.wait_for_function("() => window.hexmoot.state.moves.length === 1")
    # the choice is the browser's: chosen once, it holds on the next page
    page.select_option("#confirm-setting", "always")
    page.reload()
    expect(page.locator("#confirm-setting")).to_have_value("always")


def test_a_touch_screen_confirms_every_tap_move_even_with_a_clock(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    g = made(
        server,
        api_games,
        "sgolte",
        {"size": 5, "variant": "standard"},
        time_control={"kind": "realtime", "base": 600, "increment": 5},
    )
    page = seat_page(guests, server, g, 1, width=390, height=844, is_mobile=True, has_touch=True)
    expect(page.locator("#confirm-setting")).to_have_value("always")
    cell = str(page.eval_on_selector("#board svg.active .hit.can", "e => e.dataset.id"))
    page.locator(f'#board .hit.can[data-id="{cell}"]').tap()
    loupe = page.locator(".loupe")
    expect(loupe.or_(page.locator("#play-move:visible"))).to_be_visible()
    if loupe.is_visible():  # cells narrower than a fingertip: the tap opened the magnifier
        page.locator(f'.loupe .hit[data-id="{cell}"]').tap()
    expect(page.locator("#play-move")).to_be_visible()
    # both clocks and both names are on the first screen with the board and the confirm
    for selector in (
        "#seat-top .name",
        "#seat-bottom .name",
        '.clock[data-clock="1"]',
        '.clock[data-clock="2"]',
        "#play-move",
        "#board svg",
    ):
        b = page.locator(selector).bounding_box()
        assert b is not None and b["y"] >= 0 and b["y"] + b["height"] <= 844, (selector, b)
    screenshots.view(page, "confirm-phone-clock")
    page.locator("#play-move").tap()
    page.wait_for_function("() => window.hexmoot.state.moves.length === 1")


def test_a_move_confirmed_offline_is_queued_then_played_once(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], console: ConsoleErrors
) -> None:
    console.allow(r"WebSocket connection to 'ws://[^']*/ws/(games/[^']*|me)' failed")
    g = made(server, api_games, "sgolte", {"size": 5, "variant": "standard"})
    g.play_random(random.Random(2), 2)
    seat = g.rules.to_move(g.state())
    page = seat_page(guests, server, g, seat, confirm="always")
    click_to_confirm(page, random.Random(9))
    text = page.evaluate("window.hexmoot.entry.steps.move")
    page.context.set_offline(True)
    expect(page.locator("#conn")).to_have_text("offline")
    offline = page.locator("#offline")
    expect(offline).to_be_visible()
    expect(offline).to_contain_text("offline")
    expect(page.locator("#chat-send")).to_be_disabled()
    expect(page.locator("#offer-takeback")).to_be_disabled()
    page.click("#play-move")
    queued = page.locator("#queued")
    expect(queued).to_have_text(f"{text} is queued: it goes when the connection is back.")
    g.refresh()
    assert len(g.moves) == 2  # not sent yet
    page.context.set_offline(False)
    expect(page.locator("#conn")).to_have_text("connected")
    expect(queued).to_be_hidden()
    expect(offline).to_be_hidden()
    g.refresh()
    assert g.moves[2:] == [text]  # played, once


def test_the_result_reaches_a_player_scrolled_down_to_the_chat(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    g = made(server, api_games, "exxit", {"variant": "beginner"})
    g.play_random(random.Random(1), 2)
    ann = seat_page(guests, server, g, 1, turn=False, width=1366, height=768)
    ann.locator("#chat-input").scroll_into_view_if_needed()
    ann.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    g.clients[2].post(
        f"/api/games/{g.id}/resign", json={"version": g.version, "msg_id": "r-1"}
    ).raise_for_status()
    toast = ann.locator("#result-toast")
    expect(toast).to_be_visible()
    expect(toast).to_contain_text("Api2 resigned")
    b = toast.bounding_box()
    assert b is not None and b["y"] >= 0 and b["y"] + b["height"] <= 768  # in the window
    last = ann.locator("#moves .result-row")
    expect(last).to_have_text(re.compile("^(1\u20130|0\u20131), Api2 resigned$"))
    screenshots.view(ann, "result-toast")
    ann.click("#result-toast-show")
    expect(toast).to_be_hidden()
    expect(ann.locator("#result")).to_be_in_viewport()


def test_an_aborted_game_says_aborted(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = made(server, api_games, "exxit", {"variant": "beginner"})
    page = seat_page(guests, server, g, 1)
    page.click("#abort")
    result = page.locator("#result")
    expect(result).to_contain_text("Aborted")
    assert "Draw" not in result.inner_text()
    expect(page.locator("#status")).to_have_text("This game was aborted.")


def test_the_hover_readout_has_a_label(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = made(server, api_games, "exxit", {"variant": "beginner"})
    page = seat_page(guests, server, g, 1)
    page.locator("#board svg.active .hit.can").first.hover()
    hint = page.locator("#hint")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("Pointing at ")


def test_a_rated_game_shows_rated_ratings_and_names_that_link(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    """Two accounts and a spectator: the invitee reads who invites them to what; once seated,
    every page says Rated, shows each rating beside its player and links each name to a profile."""
    ann, bob, cy = guests.page(), guests.page(), guests.page()
    for page, name in ((ann, "ann_gp"), (bob, "bob_gp")):
        page.goto(server.url + "/")
        signup_page(page, server.url, name)
    body = {
        "game": "exxit",
        "options": {"variant": "beginner"},
        "seat": 1,
        "rated": True,
        "public": True,
        "time_control": {"kind": "realtime", "base": 300, "increment": 3},
    }
    made = ann.request.post(f"{server.url}/api/games", data=body).json()
    bob.goto(f"{server.url}{made['invite_url']}")
    invitation = bob.locator("#invitation")
    expect(invitation).to_contain_text("ann_gp invites you to play Exxit.")
    expect(invitation).to_contain_text("Variant beginner · 5+3 · rated.")
    expect(invitation.locator("a.person")).to_have_attribute("href", "/players/ann_gp")
    expect(invitation.locator('a[href="/rules/exxit"]')).to_be_visible()
    expect(invitation).to_contain_text("seat 2")
    screenshots.view(bob, "invitation")
    bob.click("#join-button")
    expect(bob.locator("#seat-bottom")).to_contain_text("(you)")
    cy.goto(f"{server.url}/games/{made['id']}")
    for page in (ann, bob, cy):
        if page is ann:
            page.goto(f"{server.url}/games/{made['id']}")
        expect(page.locator("#rated-tag")).to_be_visible()
        for seat, name in ((1, "ann_gp"), (2, "bob_gp")):
            bar = page.locator(f'.seat-bar[data-seat="{seat}"]')
            expect(bar.locator("a.person")).to_have_attribute("href", f"/players/{name}")
            expect(bar.locator(".rating")).to_have_text(re.compile(r"^1500\??$"))
    screenshots.view(cy, "rated-spectator")


def test_exxit_shows_its_cell_names_when_asked_or_while_a_move_is_typed(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    g = made(server, api_games, "exxit", {"variant": "beginner"})
    page = seat_page(guests, server, g, 1, width=1366, height=768)
    names = page.locator("#board svg .coords text")
    expect(names).to_have_count(0)  # the notation stays; the names wait to be asked for
    toggle = page.locator("#coords")
    expect(toggle).to_be_visible()
    toggle.check()
    expect(names.first).to_be_visible()
    screenshots.view(page, "exxit-coordinates")
    toggle.uncheck()
    expect(names).to_have_count(0)
    page.click("#typed summary")
    page.focus("#move-input")
    expect(names.first).to_be_visible()  # while a move is typed, the tiles are named
    page.locator("#prompt-line").focus()
    expect(names).to_have_count(0)
    # Leaving the box by a click on a tile plays that click: the board hides the names only once
    # the click has landed (a redraw between press and release would swallow it).
    page.focus("#move-input")
    expect(names.first).to_be_visible()
    cell = page.locator("#board .hit.can").first
    chosen = cell.get_attribute("data-id")
    cell.click()
    page.wait_for_function(
        "(id) => window.hexmoot.entry.prefix.includes(id) || window.hexmoot.entry.confirming",
        arg=chosen,
    )
    expect(names).to_have_count(0)
