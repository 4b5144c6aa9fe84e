"""The statistics page in Chromium (issue 28): reached from the rules page and the archive, it
shows how many games each figure rests on, the first player's win rate with its 95 % Wilson
interval, the pie's heat map drawn on the game's own board, the first moves, the lengths and the
reasons games ended; its selectors put the option set and the source in the URL. Screenshots
(light, dark, a 390 px phone) when asked for."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

import games
from games.bench import random_game
from games.record import make_record
from tests.browser.axe import assert_no_serious_axe
from tests.browser.conftest import Guests
from tests.browser.helpers import Screenshots
from tests.support.databases import fresh_database
from tests.support.patience import PATIENCE
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import LiveServer

SLUG, OPTIONS, KEY = "jotun", {"size": 4}, "size=4"
GAMES = 7


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server on SQLite whose statistics are read afresh at every request."""
    with fresh_database("sqlite", Path(tmp_path_factory.mktemp("stats"))) as url:
        live = LiveServer(url, {**QUOTAS_OFF, "STATS_CACHE_SECONDS": "0"})
        live.start()
        try:
            yield live
        finally:
            live.stop()


@pytest.fixture(scope="module")
def finished(server: LiveServer) -> list[dict[str, Any]]:
    """Seven Jotun size-4 games imported (random legal moves, then a resignation when the moves
    leave the game open): their archive entries."""
    rng = random.Random(28)
    rules = games.get(SLUG, **OPTIONS)
    with httpx.Client(base_url=server.url, timeout=PATIENCE) as client:
        client.put("/api/me", json={"name": "Curator"}).raise_for_status()
        for i in range(GAMES):
            _states, moves = random_game(rules, rng, max_plies=rng.randrange(6, 40))
            players = [{"seat": 1, "name": f"Ada{i}"}, {"seat": 2, "name": "Bea"}]
            record = make_record(rules, moves, players)
            if record["result"] is None:
                result = {"winner": 1 + i % 2, "reason": "resignation"}
                record = make_record(rules, moves, players, result)
            client.post("/api/archive/import", json=record).raise_for_status()
        listed = client.get("/api/archive", params={"game": SLUG, "options": KEY, "limit": 100})
    return list(listed.json()["games"])


def wilson_words(wins: int, games_: int) -> str:
    """The page's words for a 95 % Wilson interval, worked from the textbook formula."""
    z, p = 1.959963984540054, wins / games_
    centre = p + z * z / (2 * games_)
    spread = z * math.sqrt(p * (1 - p) / games_ + z * z / (4 * games_ * games_))
    low, high = ((centre + s * spread) / (1 + z * z / games_) for s in (-1, 1))
    return f"{low * 100:.1f}\u2013{high * 100:.1f}\u00a0%"


def test_the_page_shows_the_figures_and_the_heat_map(
    server: LiveServer, guests: Guests, finished: list[dict[str, Any]], screenshots: Screenshots
) -> None:
    assert len(finished) == GAMES
    page = guests.page()
    # Reached from the game's rules page.
    page.goto(server.url + "/rules/jotun")
    page.get_by_role("link", name="Jotun statistics").click()
    expect(page).to_have_url(re.compile(r"/stats/jotun$"))
    # The default option set (size 5) has no game yet; the page says so once its script runs
    # (and listens to the selectors).
    expect(page.locator("#stats-games")).to_contain_text("0 games")
    page.select_option("#stats-options", KEY)
    expect(page).to_have_url(re.compile(r"options=size%3D4"))
    expect(page.locator("#stats-games")).to_have_text(f"{GAMES} finished games of Jotun (size=4).")

    # The first player's win rate, with its interval and the games it rests on.
    wins = sum(1 for g in finished if g["result"]["winner"] == 1)
    row = page.locator("#stats-wins table.stats-table tbody tr").first
    expect(row.locator("th")).to_have_text("First player")
    expect(row.locator("td").nth(0)).to_have_text(f"{wins / GAMES * 100:.1f}\u00a0%")
    expect(row.locator("td").nth(1)).to_have_text(wilson_words(wins, GAMES))
    expect(row.locator("td").nth(2)).to_have_text(f"{wins} of {GAMES}")
    chart = page.locator("#stats-wins svg.chart").first
    expect(chart).to_have_attribute("aria-label", re.compile(wilson_words(wins, GAMES)))

    # The pie: how often seat 2 swapped, over the games that reached the choice.
    chose = [g for g in finished if g["pie_taken"] is not None]
    swaps = sum(1 for g in chose if g["pie_taken"])
    swapped = page.locator("#stats-pie tbody tr").first
    expect(swapped.locator("td").nth(2)).to_have_text(f"{swaps} of {len(chose)}")

    # The heat map: the game's board, one coloured cell per cell a first move placed on.
    firsts = Counter(g["first_move"] for g in finished)
    board = page.locator("#heat-board svg.board-svg")
    expect(board).to_be_visible()
    assert board.locator(".hit[data-id]").count() == 37  # Jotun size 4: 37 cells
    expect(board.locator(".heat")).to_have_count(len(firsts))
    cells = board.locator(".heat").evaluate_all("(es) => es.map((e) => e.dataset.cell)")
    assert set(cells) == set(firsts)

    # Each first move with its count; the lengths and the reasons with theirs.
    top, count = firsts.most_common(1)[0]
    expect(page.locator("#first-moves tbody tr").first.locator("td").first).to_have_text(str(count))
    assert top in page.locator("#first-moves tbody th").all_inner_texts()
    expect(page.locator("#stats-lengths p").first).to_contain_text(f"{GAMES} games")
    reasons = Counter(g["result"]["reason"] for g in finished)
    reason_rows = page.locator("#stats-reasons tbody tr")
    expect(reason_rows).to_have_count(len(reasons))
    for reason, n in reasons.items():
        expect(reason_rows.filter(has_text=reason).locator("td").first).to_have_text(str(n))
    assert_no_serious_axe(page, "statistics, light")
    screenshots.page(page, "stats-light")

    # Games played here only: none yet, and the page says so.
    page.select_option("#stats-source", "here")
    expect(page).to_have_url(re.compile(r"source=here"))
    expect(page.locator("#stats-games")).to_contain_text("0 games")


def test_the_page_in_dark_and_on_a_phone(
    server: LiveServer, guests: Guests, finished: list[dict[str, Any]], screenshots: Screenshots
) -> None:
    dark = guests.page(color_scheme="dark")
    dark.goto(server.url + "/archive")
    dark.locator(".archive-stats").get_by_role("link", name="Jotun", exact=True).click()
    expect(dark).to_have_url(re.compile(r"/stats/jotun$"))
    dark.goto(server.url + f"/stats/jotun?options={KEY}")
    expect(dark.locator("#stats-games")).to_contain_text(f"{GAMES} finished games")
    expect(dark.locator("#heat-board .heat").first).to_be_visible()
    assert_no_serious_axe(dark, "statistics, dark")
    screenshots.page(dark, "stats-dark")
    phone = guests.page(width=390, height=844, is_mobile=True, has_touch=True)
    phone.goto(server.url + f"/stats/jotun?options={KEY}")
    expect(phone.locator("#heat-board .heat").first).to_be_visible()
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px phone"
    assert_no_serious_axe(phone, "statistics, phone")
    screenshots.page(phone, "stats-phone")
