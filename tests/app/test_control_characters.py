"""A NUL is refused in every text of every route: each string field of each operation's body, each
path parameter and each query parameter, walked from the OpenAPI document, against a real server
on PostgreSQL (which cannot store a NUL: asyncpg's refusal was a 500). The answer is a 4xx in the
one error shape, with ``Connection`` kept; a path or query parameter holding any control character
is refused (or ignored) by its route with its own code, and a socket message holding a NUL is
``bad_message`` (issue 26).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.accounts import signup
from tests.support.databases import fresh_database
from tests.support.gameplay import quick_game, start_game
from tests.support.server import LiveServer, live_server
from tests.support.wsclient import TestVisitor

NUL = "ann\x00x"
BAD_TEXTS = (NUL, "bell\x07", "esc\x1b[0m", "del\x7f")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with (
        fresh_database("postgres", tmp_path_factory.mktemp("nul")) as url,
        live_server(url) as live,
    ):
        yield live


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield method, path, operation


def body_fields(document: dict[str, Any], operation: dict[str, Any]) -> list[str]:
    """The top-level fields of the operation's JSON body, if it has a model."""
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    schema = content.get("schema", {})
    for option in [schema, *schema.get("anyOf", [])]:
        if "$ref" in option:
            model = document["components"]["schemas"][option["$ref"].rsplit("/", 1)[-1]]
            return list(model.get("properties", {}))
    return []


def refused(answer: httpx.Response, what: str) -> dict[str, Any]:
    assert 400 <= answer.status_code < 500, (what, answer.status_code, answer.text)
    assert answer.headers.get("connection") != "close", what
    error: dict[str, Any] = answer.json()["error"]
    assert set(error) >= {"code", "message"}, (what, error)
    return error


async def test_every_text_of_every_route_refuses_control_characters(server: LiveServer) -> None:
    ann = TestVisitor(server.url)
    try:
        await ann.start("Ann")
        await signup(ann.http, "nul_ann")
        slug, options = quick_game()
        game_id = (await start_game(ann.http, None, slug, options))["id"]
        document = (await ann.http.get("/openapi.json")).json()
        tried = 0
        for method, path, operation in operations(document):
            params = operation.get("parameters", [])
            real = re.sub(r"\{game_id\}", game_id, path)
            real = re.sub(r"\{\w+\}", "x", real)
            for name in body_fields(document, operation):
                answer = await ann.http.request(method, real, json={name: NUL})
                error = refused(answer, f"{method} {path} {name}")
                assert answer.status_code == 422, (path, name, error)
                assert "NUL" in error["message"], (path, name, error)
                tried += 1
            for param in params:
                where = param["in"]
                if where == "path":  # its route's own answer (game_not_found...), never a 500
                    for text in ("a%00b", "a%07b", "a%7Fb"):
                        bad_path = path.replace(f"{{{param['name']}}}", text)
                        bad_path = re.sub(r"\{game_id\}", game_id, bad_path)
                        bad_path = re.sub(r"\{\w+\}", "x", bad_path)
                        answer = await ann.http.request(method, bad_path)
                        what = f"{method} {path} {param['name']}={text}"
                        assert 400 <= answer.status_code < 500, (what, answer.text)
                        if path.startswith("/api/"):
                            refused(answer, what)
                        tried += 1
                elif where == "query":  # its route's own code (bad_filter...), or ignored
                    for text in BAD_TEXTS:
                        answer = await ann.http.request(
                            method, real, params={param["name"]: text}, json={}
                        )
                        what = f"{method} {path} query {param['name']}={text!r}"
                        assert answer.status_code < 500, (what, answer.text)
                        # a page of "x" (no such game) is the HTML 404 page, whatever the query
                        page_404 = answer.status_code == 404 and not path.startswith("/api/")
                        if answer.status_code >= 400 and not page_404:
                            refused(answer, what)
                        tried += 1
        # The three that answered 500 on PostgreSQL, by name.
        for route, body in (
            ("/api/account/login", {"username": NUL, "password": "whatever it is"}),
            ("/api/account/recover", {"username_or_email": NUL}),
            ("/api/challenges", {"to": NUL, "game": slug, "options": options}),
        ):
            error = refused(await ann.http.post(route, json=body), route)
            assert error["code"] == "invalid_request", (route, error)
        assert tried > 100
        # A socket's messages.
        socket = await ann.open(game_id)
        await socket.expect("snapshot")
        await socket.send({"type": "chat", "text": NUL, "msg_id": "c1"})
        error = await socket.expect("error")
        assert error["code"] == "bad_message" and "NUL" in error["message"], error
        for text in BAD_TEXTS[1:]:  # the chat's own refusal of the other control characters
            await socket.send({"type": "chat", "text": text, "msg_id": "c2"})
            error = await socket.expect("error")
            assert error["code"] == "bad_chat", error
        # Nothing of it was stored: the chat is empty, the game as it was.
        chat = (await ann.http.get(f"/api/games/{game_id}/chat")).json()
        assert chat["lines"] == []
        assert (await ann.http.get("/api/account")).status_code == 200
    finally:
        await ann.close()
