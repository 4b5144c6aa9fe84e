"""The game page around the board (issue 15): the prompt above the board, one confirm button apart
from the typed-move box, refusals with their rule, result lines that wrap and read naturally, the
move list in colour columns numbered as the replay counts, joining a full game, the creator's
cancel, offline detection (the browser's and the socket's heartbeat), and the tab title on your turn.

Games are set up through the HTTP API (``ApiGame``, each seat its own guest cookie) and a browser
context takes a seat over by receiving that cookie; screenshots only on request.
"""

from __future__ import annotations

import random
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.browser.boardpage import create
from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, ConsoleErrors, Screenshots
from tests.support.gameplay import smallest_options
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

SLUGS = ["jotun", "valaturna", "harmijan", "sgolte", "exxit"]


def seat_page(guests: Guests, server: LiveServer, g: ApiGame, seat: int, **kw: Any) -> Page:
    page = guests.page(**kw)
    page.context.add_cookies(g.cookie(seat))
    page.goto(f"{server.url}/games/{g.id}")
    expect(page.locator("#conn")).to_have_attribute("data-state", "open")
    return page


def no_overflow(page: Page) -> None:
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page is {width[0]} px wide in a {width[1]} px viewport"


def find_confirm(g: ApiGame, rng: random.Random) -> list[str]:
    """Play on until the side to move has a click prefix that is a complete move which still
    has continuations (the page then asks to confirm it); returns that prefix."""
    for _ in range(60):
        state = g.state()
        todo: list[list[str]] = [[t] for t in g.rules.steps(state, []).next]
        while todo:
            prefix = todo.pop(0)
            answer = g.rules.steps(state, prefix)
            if answer.complete and answer.next:
                return prefix
            if len(prefix) < 3:
                todo.extend([*prefix, t] for t in answer.next[:6])
        g.play_random(rng, 1)
    raise AssertionError("no confirmable prefix found")


def test_prompt_beside_the_board_and_one_clear_confirm(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    g = create(server, api_games, "jotun", {"size": 5})
    rng = random.Random(5)
    g.play_random(rng, 4)
    prefix = find_confirm(g, rng)
    seat = g.rules.to_move(g.state())
    for width, height in ((1366, 768), (390, 844)):
        page = seat_page(guests, server, g, seat, width=width, height=height)
        page.wait_for_selector("#board svg.active .hit.can")
        prompt = page.locator("#prompt")
        expect(prompt).not_to_be_empty()
        first = prompt.inner_text()
        line = page.locator("#prompt-line").bounding_box()
        board = page.locator("#board").bounding_box()
        assert line and board
        if width > 860:  # beside the board, level with its top half
            assert line["x"] >= board["x"] + board["width"]
            assert board["y"] - 60 <= line["y"] <= board["y"] + board["height"] / 2
        else:  # right under it
            assert line["y"] >= board["y"] + board["height"]
        assert line["y"] + line["height"] <= height  # on the first screen
        for i, token in enumerate(prefix):
            page.locator(f'#board .hit.can[data-id="{token}"]').click()
            if i == 0:
                expect(prompt).not_to_have_text(first)  # each click has its own prompt
        play = page.locator("#play-move")
        expect(play).to_be_visible()
        expect(play).to_have_text(re.compile(r"^Play \S"))
        expect(page.locator("#cancel-move")).to_be_visible()
        box = play.bounding_box()
        assert box and box["y"] + box["height"] <= height and box["height"] >= 44
        turn = page.locator("#turn-bar").bounding_box()
        assert turn and turn["y"] <= box["y"] <= turn["y"] + turn["height"]  # by the prompt
        # the typed box is apart: collapsed, with its own labelled button and the game's example
        typed = page.locator("#typed")
        expect(typed).to_be_visible()
        expect(page.locator("#move-input")).to_be_hidden()
        page.click("#typed summary")
        expect(page.locator("#send-typed")).to_have_text("Send typed move")
        catalogue = httpx.get(f"{server.url}/api/catalogue", timeout=PATIENCE).json()["games"]
        example = next(c for c in catalogue if c["slug"] == "jotun")["notation"][0]
        expect(page.locator("#move-input")).to_have_attribute("placeholder", f"e.g. {example}")
        assert page.locator("#typed #play-move").count() == 0
        no_overflow(page)
        screenshots.page(page, f"confirm-{width}")
        page.click("#cancel-move")
        expect(play).to_be_hidden()
        page.context.close()


def test_refusal_in_plain_words_with_its_rule(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "jotun", {"size": 5})
    g.play("e5")
    g.play("black")
    seat = g.rules.to_move(g.state())
    assert seat is not None
    refused = g.clients[seat].post(
        f"/api/games/{g.id}/moves", json={"move": "e5", "version": g.version, "msg_id": "x-1"}
    )
    assert refused.status_code >= 400
    error = refused.json()["error"]
    page = seat_page(guests, server, g, seat)
    page.click("#typed summary")
    page.fill("#move-input", "e5")
    page.click("#send-typed")
    expect(page.locator("#error")).to_have_text(error["message"])
    rule = page.locator("#error-rule")
    if error.get("rule"):
        expect(rule.locator("a")).to_have_attribute("href", f"/rules/jotun#{error['rule']}")
        expect(rule).to_be_visible()
    else:
        expect(rule).to_be_hidden()


@pytest.mark.parametrize("slug", SLUGS)
def test_result_line_wraps_and_reads_naturally(
    slug: str,
    server: LiveServer,
    guests: Guests,
    api_games: list[ApiGame],
    screenshots: Screenshots,
) -> None:
    g = create(server, api_games, slug, smallest_options(slug))
    g.play_to_the_end(random.Random(11))
    result = g.clients[1].get(f"/api/games/{g.id}").json()["game"]["result"]
    for width, scheme in ((1280, "light"), (390, "dark")):
        page = seat_page(guests, server, g, 1, width=width, height=844, color_scheme=scheme)
        line = page.locator("#result")
        expect(line).to_be_visible()
        text = line.inner_text()
        if result["winner"] is None:
            assert text.startswith("Draw")
        else:
            name = f"Api{result['winner']}"
            assert text.startswith(f"{result['colour'].capitalize()} ({name}) wins"), text
        assert " — " in text and "-" not in text.split(" — ")[1], text  # a phrase, not a code
        if isinstance((result["scores"] or [None])[0], int):
            win = result["winner"] or 1
            mine, theirs = result["scores"][win - 1], result["scores"][2 - win]
            assert f"{mine}\u2013{theirs}" in text  # an en dash
        no_overflow(page)
        screenshots.page(page, f"finished-{slug}-{width}-{scheme}")
        page.context.close()


def test_move_list_columns_and_numbering_match_the_replay(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    g = create(server, api_games, "valaturna", {"size": 5})
    g.play("e3/e7")
    g.play("black")  # seat 2 takes black, and black moves first
    g.play_random(random.Random(4), 9)
    page = seat_page(guests, server, g, 1)
    moves = page.locator("#moves")
    assert moves.get_attribute("aria-label") is None
    heads = moves.locator("thead th")
    expect(heads.nth(1)).to_contain_text("Black")
    expect(heads.nth(1)).to_contain_text("Api2")
    expect(heads.nth(2)).to_contain_text("White")
    rows = moves.locator("tbody tr")
    expect(rows.nth(0).locator("th")).to_have_text("Opening")
    expect(rows.nth(1).locator("th")).to_have_text("Choice")
    expect(rows.nth(2).locator("th")).to_have_text("1.")
    expect(rows).to_have_count(2 + 5)  # plies 3..11: five rows, the last with one move
    page.click('#moves button[data-ply="7"]')
    expect(page.locator("#review-text")).to_have_text(
        re.compile(r"after 3\. Black \(ply 7 of 11\)")
    )
    current = moves.locator('button[aria-current="true"]')
    expect(current).to_have_attribute("data-ply", "7")
    row = moves.locator("tbody tr", has=page.locator('button[aria-current="true"]'))
    expect(row.locator("th")).to_have_text("3.")
    page.click('#moves button[data-ply="2"]')
    expect(page.locator("#review-text")).to_contain_text("after the choice (ply 2 of 11)")
    screenshots.page(page, "move-list")


def test_move_list_scrolls_to_the_current_move(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "exxit", {"variant": "beginner"})
    g.play_to_the_end(random.Random(2))
    page = seat_page(guests, server, g, 1)
    box = page.locator("#moves")
    page.wait_for_selector("#moves thead th:nth-child(3)")  # the columns, once the first is known
    page.keyboard.press("Home")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    visible = """() => {
      const box = document.getElementById('moves').getBoundingClientRect();
      const cur = document.querySelector('#moves [aria-current="true"]');
      if (!cur) return false;
      const r = cur.getBoundingClientRect();
      return r.top >= box.top && r.bottom <= box.bottom;
    }"""
    page.wait_for_function(visible)
    assert box.evaluate("e => e.scrollTop") < 40
    page.click("#nav-last")
    page.wait_for_function(visible)


def make_game(server: LiveServer, client: httpx.Client, slug: str = "jotun") -> dict[str, Any]:
    made = client.post("/api/games", json={"game": slug, "options": {}, "seat": 1, "public": False})
    made.raise_for_status()
    return dict(made.json())


def test_full_game_invite_says_you_watch_and_the_creator_can_cancel(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    creator = guests.page()
    creator.goto(server.url + "/")  # a guest cookie
    cookies = {c["name"]: c["value"] for c in creator.context.cookies()}
    with httpx.Client(base_url=server.url, cookies=cookies) as client:
        made = make_game(server, client)
    creator.goto(server.url + made["invite_url"])
    expect(creator.locator("#join")).to_be_hidden()  # no Join for one's own game
    expect(creator.locator("#cancel-game")).to_be_visible()
    friend, third = guests.page(), guests.page()
    friend.goto(server.url + made["invite_url"])
    friend.fill("#join-name", "Bo")
    friend.click("#join-button")
    expect(friend.locator("#players")).to_contain_text("Bo (you)")
    expect(friend.locator("#prompt-line")).to_be_focused()  # focus goes where the next step is
    expect(creator.locator("#cancel-game")).to_be_hidden()
    third.goto(server.url + made["invite_url"])
    expect(third.locator("#full-notice")).to_have_text("This game is full: you are watching.")
    expect(third.locator("#join")).to_be_hidden()
    expect(third.locator("#spectators")).to_contain_text("watching")
    screenshots.page(third, "full-game-invite")


def test_creator_cancels_a_waiting_game(server: LiveServer, guests: Guests) -> None:
    creator = guests.page()
    creator.goto(server.url + "/")
    cookies = {c["name"]: c["value"] for c in creator.context.cookies()}
    with httpx.Client(base_url=server.url, cookies=cookies) as client:
        made = make_game(server, client, "sgolte")
        creator.goto(server.url + made["url"])
        creator.click("#cancel-game")
        expect(creator.locator("#status")).to_have_text("This game was cancelled.")
        expect(creator.locator("#cancel-game")).to_be_hidden()
        expect(creator.locator("#prompt-line")).to_be_focused()
        game = client.get(f"/api/games/{made['id']}").json()["game"]
        assert game["status"] == "cancelled"


def test_offline_is_visible_and_a_move_waits_queued(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], console: ConsoleErrors
) -> None:
    console.allow(r"WebSocket connection to 'ws://[^']*/ws/(games/[^']*|me)' failed")
    g = create(server, api_games, "sgolte", {"size": 5, "variant": "standard"})
    seat = g.rules.to_move(g.state())
    assert seat is not None
    page = seat_page(guests, server, g, seat)
    page.wait_for_selector("#board svg.active .hit.can")
    cell = str(page.eval_on_selector("#board svg.active .hit.can", "e => e.dataset.id"))
    page.context.set_offline(True)
    expect(page.locator("#conn")).to_have_text("offline")
    page.click("#typed summary")
    page.fill("#move-input", cell)
    page.click("#send-typed")
    expect(page.locator("#queued")).to_contain_text("queued")
    page.context.set_offline(False)
    expect(page.locator("#conn")).to_have_text("connected")
    expect(page.locator("#queued")).to_be_hidden()
    g.refresh()
    assert g.moves[-1:] == [cell] or len(g.moves) == 1


def test_a_silent_socket_is_shown_offline_by_the_heartbeat(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "exxit", {"variant": "beginner"})
    silent = {"on": False}

    def relay(ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()
        ws.on_message(lambda m: upstream.send(m))
        upstream.on_message(lambda m: None if silent["on"] else ws.send(m))

    page = guests.page()
    page.context.add_cookies(g.cookie(1))
    page.clock.install()
    page.route_web_socket(re.compile(r"/ws/games/"), relay)
    page.goto(f"{server.url}/games/{g.id}")
    expect(page.locator("#conn")).to_have_text("connected")
    silent["on"] = True  # the network goes quiet: no close, nothing heard
    page.clock.run_for(41_000)  # a ping at 25 s, unanswered for 10 s
    expect(page.locator("#conn")).to_have_text("offline")
    silent["on"] = False
    page.clock.run_for(31_000)  # the next ping is answered
    expect(page.locator("#conn")).to_have_text("connected")


def test_your_turn_shows_in_the_tab_title_and_icon(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = create(server, api_games, "harmijan", {"size": 5})
    waiting = 2 if g.rules.to_move(g.state()) == 1 else 1
    page = seat_page(guests, server, g, waiting)
    expect(page).to_have_title(re.compile(r"^Harmijan · Hexmoot$"))
    assert "turn.svg" not in str(page.get_attribute('link[rel="icon"]', "href"))
    g.play_random(random.Random(1), 1)
    expect(page).to_have_title(re.compile(r"^● Your turn · Harmijan · Hexmoot$"))
    assert "turn.svg" in str(page.get_attribute('link[rel="icon"]', "href"))
