"""Pages in a real browser (each page in both themes and on a phone: tests/browser/test_a11y.py): the
game page's own JavaScript and CSS under 100 KB, live mini boards that follow moves, the archive's
filters, the rules diagrams, and the hover preview of a Jotun path.

Games are set up through the HTTP API with httpx clients (each its own guest cookie); a browser
context takes over a guest by receiving that cookie. Screenshots are taken on request only
(``--screenshots DIR``).
"""

from __future__ import annotations

import random

import httpx
import pytest
from playwright.sync_api import Route, expect

from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, ConsoleErrors, Screenshots
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

SLUGS = ["jotun", "valaturna", "harmijan", "sgolte", "exxit"]


def test_theme_toggle_is_remembered(server: LiveServer, guests: Guests) -> None:
    page = guests.page(color_scheme="light")
    page.goto(server.url + "/rules/jotun")
    page.click("#theme-toggle")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.goto(server.url + "/")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"


def test_game_page_scripts_and_styles_stay_under_100_kb(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    g = ApiGame.create(server, "valaturna", {})
    api_games.append(g)
    page = guests.page()
    page.goto(f"{server.url}/games/{g.id}")
    page.wait_for_function("() => window.hexmoot.state.view !== null")
    sizes = page.evaluate(
        """() => performance.getEntriesByType('resource')
            .filter(e => /\\/static\\/.*\\.(js|css)$/.test(new URL(e.name).pathname))
            .map(e => [new URL(e.name).pathname, e.decodedBodySize])"""
    )
    names = {name for name, _ in sizes}
    assert {"/static/js/game.js", "/static/js/board.js", "/static/css/board.css"} <= names
    total = sum(size for _, size in sizes)
    print(f"game page JS+CSS: {total} bytes uncompressed over {len(sizes)} files")
    assert total < 100_000, sizes
    # nothing is fetched from another origin
    others = page.evaluate(
        "() => performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(location.origin))"
    )
    assert others == []


def test_live_boards_follow_moves_and_filter_by_game(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    rng = random.Random(11)
    jotun = ApiGame.create(server, "jotun", {"size": 4})
    exxit = ApiGame.create(server, "exxit", {"variant": "beginner"})
    api_games += [jotun, exxit]
    jotun.play_random(rng, 3)
    page = guests.page()
    page.goto(server.url + "/live")
    card = page.locator(f'.mini[data-id="{jotun.id}"]')
    expect(card).to_contain_text("move 3")
    jotun.play_random(rng, 1)
    expect(card).to_contain_text("move 4")  # updated over /ws/live, no reload
    page.select_option("#filter-game", "exxit")
    expect(card).to_be_hidden()
    expect(page.locator(f'.mini[data-id="{exxit.id}"]')).to_be_visible()
    assert page.url.endswith("?game=exxit")
    screenshots.page(page, "live-filtered")
    page.select_option("#filter-game", "")
    expect(card).to_be_visible()


def test_archive_filters_and_pages(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], console: ConsoleErrors
) -> None:
    finished = []
    for _ in range(3):
        g = ApiGame.create(server, "valaturna", {"size": 5})
        api_games.append(g)
        g.play("e3/e7")
        g.play("white")
        g.play("pass")
        g.play("pass")
        finished.append(g.id)
    page = guests.page()
    page.goto(server.url + "/archive?game=valaturna&player=Api1")
    for gid in finished:
        expect(page.locator(f'article[data-game="{gid}"]')).to_be_visible()
    page.click("#more-filters summary")  # the result is among the filters folded away
    page.select_option('select[name="result"]', "draw")
    page.click('#filters button[type="submit"]')
    expect(page.locator("#empty")).to_contain_text("No finished game matches")
    page.select_option('select[name="result"]', "")
    page.fill('input[name="player"]', "")
    page.click('#filters button[type="submit"]')
    expect(page.locator(f'article[data-game="{finished[0]}"]')).to_be_visible()
    # paging by the server's cursor
    page.goto(server.url + "/archive?game=valaturna&limit=2")
    expect(page.locator("#rows article")).to_have_count(2)
    page.click("#more")
    expect(page.locator("#rows article")).to_have_count(1)
    page.click("#first-page")
    expect(page.locator("#rows article")).to_have_count(2)
    # a filter the server refuses is shown, not swallowed (the browser logs the 422 itself)
    console.allow(r"status of 422")
    page.goto(server.url + "/archive?limit=0")
    expect(page.locator("#error")).not_to_be_empty()


def test_rules_pages_draw_their_diagrams(server: LiveServer, guests: Guests) -> None:
    page = guests.page()
    for slug in SLUGS:
        page.goto(f"{server.url}/rules/{slug}")
        boards = page.locator(".diagram .d-board svg.board-svg")
        expect(boards.first).to_be_visible()
        assert boards.count() >= 2
        assert page.locator(".diagram .d-board .stack").count() > 0
    assert httpx.get(f"{server.url}/rules/chess", timeout=PATIENCE).status_code == 404


def test_jotun_hover_previews_the_path(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    rng = random.Random(5)
    g = ApiGame.create(server, "jotun", {"size": 4})
    api_games.append(g)
    # Play seeded random moves until the player to move has a stack whose move has a path preview.
    for _ in range(200):
        state = g.state()
        prefixes = g.rules.steps(state, [])
        origins = [t for t in prefixes.next if len(g.rules.steps(state, [t]).next) > 0]
        found = None
        for origin in origins:
            answer = g.rules.steps(state, [origin])
            for dest, hint in answer.hints.items():
                if len(hint.get("path", [])) > 2:
                    found = (origin, dest, hint)
                    break
            if found:
                break
        if found:
            break
        g.play_random(rng, 1)
    assert found, "no position with a path preview was reached"
    origin, dest, hint = found
    seat = g.rules.to_move(g.state())
    page = guests.page()
    page.context.add_cookies(g.cookie(seat))
    page.goto(f"{server.url}/games/{g.id}")
    page.wait_for_selector("#board svg.active")
    # a cell the server did not offer cannot be clicked into a move
    dead = page.evaluate(
        "() => [...document.querySelectorAll('#board .hit:not(.can)')].map(e => e.dataset.id)[0]"
    )
    page.locator(f'#board .hit[data-id="{dead}"]').click()
    assert page.evaluate("window.hexmoot.entry.prefix") == []
    expect(page.locator("#board .chosen")).to_have_count(0)
    # a typed move the rules refuse is answered with the server's reason, and changes nothing
    page.click("#typed summary")  # the typed box is a disclosure of its own
    page.fill("#move-input", "z9")
    page.press("#move-input", "Enter")
    expect(page.locator("#error")).to_contain_text("z9")
    assert page.evaluate("window.hexmoot.state.moves.length") == len(g.moves)
    page.locator(f'#board .hit.can[data-id="{origin}"]').click()
    target = page.locator(f'#board .hit.can[data-id="{dest}"]')
    target.hover()
    expect(page.locator("#board .preview-path")).to_have_count(1)
    expect(page.locator("#hint")).to_contain_text(hint["move"])
    screenshots.element(page.locator("#board"), "jotun-hover-preview")
    expect(page.locator("#cancel-move")).to_be_visible()
    page.click("#cancel-move")  # a multi-click move can be cancelled before its last click
    expect(page.locator("#board .chosen")).to_have_count(0)
    expect(page.locator(f'#board .hit.can[data-id="{origin}"]')).to_have_count(1)


def test_review_during_a_live_game_and_back(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    rng = random.Random(2)
    g = ApiGame.create(server, "valaturna", {"size": 5})
    api_games.append(g)
    g.play("e3/e7")
    g.play("black")  # seat 2 takes black and moves first; seat 1 is white
    g.play_random(rng, 3)  # black, white, black: seat 1 (white) to move
    assert g.rules.to_move(g.state()) == 1
    page = guests.page()
    page.context.add_cookies(g.cookie(1))
    page.goto(f"{server.url}/games/{g.id}")
    page.wait_for_selector("#board svg.active")  # our move: the board offers its cells
    page.click('#moves button[data-ply="2"]')
    page.wait_for_function("() => window.hexmoot.state.shown === 2")
    expect(page.locator("#review-banner")).to_be_visible()
    expect(page.locator("#board svg.active")).to_have_count(0)  # no move entry while reviewing
    assert page.url.endswith("?ply=2")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => window.hexmoot.state.shown === 1")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.hexmoot.state.shown === 2")
    screenshots.page(page, "review-during-game")
    page.click("#typed summary")  # the typed box is a disclosure of its own
    page.fill("#move-input", "pass")  # typing a move works while reviewing
    page.press("#move-input", "Enter")
    page.wait_for_function("() => window.hexmoot.state.moves.length === 6")
    assert page.evaluate("window.hexmoot.state.shown") == 2  # still reviewing
    g.refresh()
    assert g.moves[-1] == "pass"
    g.play_random(rng, 1)  # the opponent answers
    page.wait_for_function("() => window.hexmoot.state.moves.length === 7")
    page.click("#back-to-game")
    page.wait_for_function("() => window.hexmoot.state.shown === 7")
    expect(page.locator("#review-banner")).to_be_hidden()
    page.wait_for_selector("#board svg.active")
    assert "ply=" not in page.url


def test_pie_choice_is_two_clear_buttons(
    server: LiveServer, guests: Guests, api_games: list[ApiGame], screenshots: Screenshots
) -> None:
    g = ApiGame.create(server, "jotun", {"size": 5})
    api_games.append(g)
    g.play("e5")
    page = guests.page()
    page.context.add_cookies(g.cookie(2))
    page.goto(f"{server.url}/games/{g.id}")
    buttons = page.locator("#choices button")
    expect(buttons).to_have_count(2)
    expect(buttons.nth(0)).to_have_text("Play black")
    expect(buttons.nth(1)).to_have_text("Play white")
    expect(page.locator("#status")).to_contain_text("take black or white")
    screenshots.page(page, "pie-choice")
    buttons.nth(1).click()
    page.wait_for_function("() => window.hexmoot.state.moves.length === 2")
    expect(page.locator('#players [data-seat="2"]')).to_contain_text("white")
    expect(page.locator("#announce")).to_contain_text("white")


def test_join_a_public_game_from_its_page_and_copy_the_invite(
    server: LiveServer, guests: Guests
) -> None:
    host, friend = guests.page(), guests.page()
    host.context.grant_permissions(["clipboard-read", "clipboard-write"])
    host.goto(server.url + "/?game=harmijan")
    host.click("#create")
    host.wait_for_url("**/games/*")
    expect(host.locator("#invite")).to_be_visible()
    host.click("#copy-invite")
    expect(host.locator("#copy-invite")).to_have_text("Copied")
    assert host.evaluate("navigator.clipboard.readText()") == host.input_value("#invite-url")
    # a visitor who found the public game without its link joins from the game page itself
    friend.goto(host.url.split("?")[0])
    friend.fill("#join-name", "Cy")
    friend.click("#join-button")
    expect(friend.locator("#players")).to_contain_text("Cy (you)")
    expect(host.locator("#players")).to_contain_text("Cy")
    expect(host.locator("#invite")).to_be_hidden()


def test_a_creation_whose_answer_is_lost_is_sent_again_and_makes_one_game(
    server: LiveServer, guests: Guests, console: ConsoleErrors
) -> None:
    """The lobby's Create reaches the server, which makes the game, but its answer never reaches
    the page (the connection reset on the way back). The page sends it again by itself, with the
    same Idempotency-Key, and lands on that game: the player has one new game, not two."""
    console.allow("ERR_CONNECTION_RESET")
    host = guests.page()
    keys: list[str | None] = []
    lost: list[int] = []

    def lose_the_first_answer(route: Route) -> None:
        keys.append(route.request.headers.get("idempotency-key"))
        answer = route.fetch()  # the request reaches the server: the game is made
        if not lost:
            lost.append(answer.status)
            route.abort("connectionreset")
        else:
            route.fulfill(response=answer)

    host.route("**/api/games", lose_the_first_answer)
    host.goto(server.url + "/?game=harmijan")
    host.click("#create")
    host.wait_for_url("**/games/*")
    expect(host.locator("#invite")).to_be_visible()
    assert lost == [201] and len(keys) == 2 and keys[0] and keys[0] == keys[1], (lost, keys)
    mine = host.evaluate("fetch('/api/me/games').then((r) => r.json())")
    assert [g["id"] for g in mine["open"]] == [host.url.split("?")[0].rsplit("/", 1)[1]], mine


_WATCH_CSP = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(
  `${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
"""


def test_no_page_breaks_its_content_security_policy(
    server: LiveServer, guests: Guests, api_games: list[ApiGame]
) -> None:
    """Every page is served under the policy (no inline script or style) and runs without a
    single violation: the securitypolicyviolation events of each page, and its console."""
    rng = random.Random(7)
    live = ApiGame.create(server, "jotun", {"size": 4})
    done = ApiGame.create(server, "valaturna", {"size": 5})
    api_games += [live, done]
    live.play_random(rng, 4)
    for text in ("e3/e7", "white", "pass", "pass"):
        done.play(text)
    page = guests.page()
    page.context.add_cookies(live.cookie(live.rules.to_move(live.state())))
    page.add_init_script(_WATCH_CSP)
    visits = [
        ("/", "#open-games"),
        ("/live", f'.mini[data-id="{live.id}"]'),
        ("/archive?game=valaturna", f'article[data-game="{done.id}"]'),
        ("/archive/import", "#import-form"),
        ("/dumps", "#readme"),
        (f"/games/{live.id}", "#board svg.active"),
        (f"/games/{done.id}", "#moves button"),  # the replay of a finished game
        (f"/games/{done.id}?ply=2", "#review-banner"),
        *((f"/rules/{slug}", ".diagram svg.board-svg") for slug in SLUGS),
    ]
    for path, ready in visits:
        response = page.goto(server.url + path)
        assert response is not None
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        expect(page.locator(ready).first).to_be_visible()
        if path == f"/games/{live.id}":
            page.locator("#board .hit.can").first.hover()
            page.locator("#board .hit.can").first.click()
        page.click("#theme-toggle")  # the one script of every page's head
        assert page.evaluate("window.__csp") == [], path
