"""Errors on page paths answer an HTML page (status kept, a way home); the protocol's paths keep the
JSON error shape. The game page cases run on SQLite and PostgreSQL (the ``backend`` fixture)."""

from __future__ import annotations

import re

import httpx
import pytest
from fastapi import FastAPI

from app.errors import ErrorCode
from app.schemas import ErrorOut
from tests.app.conftest import ClientFactory

HTML = "text/html; charset=utf-8"
GAMES = ("exxit", "harmijan", "jotun", "sgolte", "valaturna")


def assert_page(response: httpx.Response, status: int) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == HTML
    assert 'href="/"' in response.text and 'href="/rules"' in response.text
    assert "error-page" in response.text
    assert '"error"' not in response.text and "Traceback" not in response.text


def assert_json(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    assert ErrorOut.model_validate(response.json()).error.code == code


@pytest.mark.parametrize("path", ["/nothing", "/rules/chess", "/no/such/page", "/games/not!an!id"])
async def test_unknown_pages_answer_an_html_404_with_a_way_home(
    clients: ClientFactory, path: str
) -> None:
    client = await clients()
    response = await client.get(path, headers={"accept": "text/html"})
    assert_page(response, 404)
    assert_page(await client.get(path), 404)  # any Accept: a page path is a page


async def test_the_error_page_quotes_nothing_of_the_path(clients: ClientFactory) -> None:
    client = await clients()
    bad = "\u00e9" * 5_000
    for path in (f"/rules/{bad}", f"/{bad}", "/rules/<script>alert(1)</script>"):
        response = await client.get(path)
        assert_page(response, 404)
        assert "\u00e9\u00e9" not in response.text and "<script>alert" not in response.text


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/api/nothing-here", "not_found"),
        ("/api/games/nosuchgame", "game_not_found"),
        ("/games/nosuchgame/record.json", "game_not_found"),
        ("/ws/nothing", "not_found"),
        ("/healthz/x", "not_found"),
        ("/openapi.json/x", "not_found"),
        ("/static/no-such.js", "not_found"),
    ],
)
async def test_protocol_paths_keep_the_json_shape(
    clients: ClientFactory, path: str, code: str
) -> None:
    client = await clients()
    assert_json(await client.get(path, headers={"accept": "text/html"}), 404, code)


async def test_a_wrong_method_on_a_page_stays_json(clients: ClientFactory) -> None:
    client = await clients()
    assert_json(await client.post("/live"), 405, "method_not_allowed")


async def test_an_unknown_or_hidden_game_page_is_a_404_page(clients: ClientFactory) -> None:
    ann = await clients("Ann")
    stranger = await clients("Eve")
    assert_page(await stranger.get("/games/nosuchgame"), 404)
    created = await ann.post("/api/games", json={"game": "exxit", "public": False})
    assert created.status_code == 201, created.text
    body = created.json()
    game_id, token = body["id"], body["join_token"]
    hidden = await stranger.get(f"/games/{game_id}")
    unknown = await stranger.get("/games/nosuchgame")
    assert_page(hidden, 404)
    assert hidden.text.replace(game_id, "ID") == unknown.text.replace("nosuchgame", "ID")
    assert_page(await stranger.get(f"/games/{game_id}", params={"token": "x" * 43}), 404)
    for client, params in (
        (ann, {}),
        (stranger, {"token": token}),
        (stranger, {"join": token}),
    ):
        page = await client.get(f"/games/{game_id}", params=params)
        assert page.status_code == 200 and f'data-id="{game_id}"' in page.text
    public = (await ann.post("/api/games", json={"game": "jotun", "public": True})).json()
    assert (await stranger.get(f"/games/{public['id']}")).status_code == 200


def _failing_routes(app: FastAPI) -> tuple[str, str]:
    async def fail() -> None:
        raise RuntimeError("secret internals: /etc/hexmoot")

    page, api = f"/test-failure-{id(app)}", f"/api/test-failure-{id(app)}"
    app.add_api_route(page, fail)
    app.add_api_route(api, fail)
    return page, api


async def test_a_500_is_a_page_on_page_paths_and_json_on_api_paths(app: FastAPI) -> None:
    page, api = _failing_routes(app)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        html = await client.get(page, headers={"accept": "text/html"})
        as_json = await client.get(api, headers={"accept": "text/html"})
    assert_page(html, 500)
    assert_json(as_json, 500, ErrorCode.INTERNAL_ERROR.value)
    for leak in ("secret", "Traceback", "RuntimeError"):
        assert leak not in html.text and leak not in as_json.text
    assert "content-security-policy" in html.headers


async def test_the_rules_index_lists_the_five_games(clients: ClientFactory) -> None:
    client = await clients()
    index = await client.get("/rules")
    assert index.status_code == 200 and index.headers["content-type"] == HTML
    links = re.findall(r'href="(/rules/[a-z]+)"', index.text)
    assert sorted(set(links)) == [f"/rules/{slug}" for slug in GAMES]
    for link in sorted(set(links)):
        assert (await client.get(link)).status_code == 200
    home = await client.get("/")
    nav = re.search(r'<nav aria-label="Site">(.*?)</nav>', home.text, re.S)
    # Rules is in the header on every screen (a phone too: issue 25)
    assert nav is not None and '<a href="/rules">Rules</a>' in nav.group(1)
