"""``POST /api/replay`` (app/routes/replay.py): the views of the plies asked, for review and replay.

Every bad input gets a precise error (code ``invalid_record``, the first bad ply when a move is at
fault) and nothing else; a good one gives one view per ply, ply 0 first, equal to the rules' own,
each naming the move that led to it, to the end of whole games (the replay the game page steps
through; tests/browser/test_play.py clicks through a few of those plies in a browser). An answer
holds at most 32 views: ``all_views`` follows ``next`` page by page.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import games
from games.bench import random_game
from tests.support.gameplay import smallest_options
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=PATIENCE) as c:
        yield c


def error_of(answer: httpx.Response, code: str = "invalid_record") -> dict[str, object]:
    assert answer.status_code == 422, answer.text
    error: dict[str, object] = answer.json()["error"]
    assert error["code"] == code
    return error


def all_views(client: httpx.Client, slug: str, options: object, moves: list[str]) -> list[object]:
    """Every view of ``moves``, ply 0 first, page by page."""
    views: list[object] = []
    first: int | None = 0
    while first is not None:
        body = {"game": slug, "options": options, "moves": moves, "from": first}
        answer = client.post("/api/replay", json=body)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        assert page["from"] == first == len(views) and page["total"] == len(moves) + 1
        assert 1 <= len(page["views"]) <= 32
        views += page["views"]
        first = page["next"]
    return views


@pytest.mark.parametrize("slug", games.names())
def test_views_of_every_ply_match_the_rules(slug: str, client: httpx.Client) -> None:
    rules = games.get(slug)
    states, moves = random_game(rules, random.Random(f"replay-{slug}"), max_plies=30)
    answer = client.post(
        "/api/replay", json={"game": slug, "options": rules.options, "moves": moves}
    )
    assert answer.status_code == 200, answer.text
    views = answer.json()["views"]
    assert len(views) == len(moves) + 1
    assert views == [rules.view(s) for s in states]


@pytest.mark.parametrize("slug", games.names())
def test_every_ply_of_a_whole_game_names_its_move(slug: str, client: httpx.Client) -> None:
    rules = games.get(slug, **smallest_options(slug))
    states, moves = random_game(rules, random.Random(f"replay-whole-{slug}"))
    assert rules.outcome(states[-1]) is not None  # a whole game, to its end
    views: list[Any] = all_views(client, slug, rules.options, moves)
    assert views[0]["last_move"] is None
    assert [view["last_move"]["text"] for view in views[1:]] == moves
    assert views[-1] == rules.view(states[-1])


@pytest.mark.parametrize(
    ("body", "message", "ply"),
    [
        (b"not json", "the body must be JSON", None),
        (b"[1, 2]", "the body must be a JSON object", None),
        (b'{"game": "jotun", "moves": "e5"}', "moves must be a list of move texts", None),
        (b'{"game": "jotun", "moves": ["e5", 3]}', "moves must be a list of move texts", None),
        (b'{"game": "chess", "moves": []}', "unknown game 'chess'", None),
        (
            b'{"game": "jotun", "options": {"size": 9}, "moves": []}',
            "option 'size' cannot be 9",
            None,
        ),
        (b'{"game": "jotun", "options": [], "moves": []}', "options must be an object", None),
        (b'{"game": "jotun", "moves": ["e5", "white", "e5"]}', "ply 3:", 3),
        (b'{"game": "jotun", "moves": ["e5", "purple"]}', "ply 2:", 2),
    ],
)
def test_bad_input_is_named(
    body: bytes, message: str, ply: int | None, client: httpx.Client
) -> None:
    # Not JSON is bad_json, as for an import (issue 26); the rest is the record's fault.
    code = "bad_json" if body == b"not json" else "invalid_record"
    error = error_of(client.post("/api/replay", content=body), code)
    assert message in str(error["message"])
    assert error["ply"] == ply


def test_limits(client: httpx.Client) -> None:
    too_many = {"game": "jotun", "moves": ["e5"] * 2001}
    assert "at most 2000 moves" in str(
        error_of(client.post("/api/replay", json=too_many))["message"]
    )
    huge = b'{"game": "jotun", "moves": [], "pad": "' + b"x" * (1 << 20) + b'"}'
    answer = client.post("/api/replay", content=huge)  # over the route's 128 KiB: never read
    assert answer.status_code == 413, answer.text
    assert answer.json()["error"]["code"] == "body_too_large"
