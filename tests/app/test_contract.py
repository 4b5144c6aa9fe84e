"""The contract check itself (``tests/support/contract.py``): it refuses what the protocol does not
document, so that the app tests routed through it would catch a drift."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.support.contract import ContractError, checked, closed, contract

ERROR = {"error": {"code": "game_not_found", "message": "no game 'x'"}}
ME = {"id": "3f2a", "name": "Ann", "named": True, "account": None}


def answer(method: str, path: str, status: int, body: Any, content_type: str = "") -> None:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    contract().check_http(method, path, status, content_type or "application/json", data)


def test_documented_answers_pass() -> None:
    answer("GET", "/api/me", 200, ME)
    answer("HEAD", "/api/me", 200, b"")
    answer("GET", "/api/games/Xk3v9QaT2bPw", 404, ERROR)
    answer("GET", "/api/games/open", 200, {"games": []})  # the literal path, not a game id
    answer("DELETE", "/api/account/sessions/3c1f", 204, b"")
    answer("GET", "/rules", 200, b"<!doctype html>", "text/html; charset=utf-8")
    answer("GET", "/static/js/board.js", 200, b"export {}", "text/javascript")
    answer("GET", "/nothing/here", 404, {"error": {"code": "not_found", "message": "no"}})
    answer("DELETE", "/api/me", 405, {"error": {"code": "method_not_allowed", "message": "no"}})


@pytest.mark.parametrize(
    ("method", "path", "status", "body", "why"),
    [
        ("GET", "/api/me", 200, {**ME, "admin": False}, "'admin' was unexpected"),
        ("GET", "/api/me", 200, {**ME, "named": "yes"}, 'is not of type "boolean"'),
        ("GET", "/api/me", 200, {"id": "3f2a", "name": "Ann"}, "is a required property"),
        ("GET", "/api/me", 418, ERROR, "status 418 is not documented"),
        ("GET", "/api/games/x", 404, {"error": {**ERROR["error"], "hint": 1}}, "'hint' was"),
        ("GET", "/api/games/x", 404, {"detail": "Not Found"}, "'detail' was unexpected"),
        ("GET", "/api/games/x", 404, {"error": {"code": "nope", "message": "x"}}, "nope"),
        ("DELETE", "/api/me", 404, ERROR, "expected 405"),
        ("GET", "/nothing", 404, {"detail": "Not Found"}, "'detail' was unexpected"),
        ("DELETE", "/api/account/sessions/3c1f", 204, b"{}", "without a body"),
        ("GET", "/api/me", 200, b"<html>", "no JSON"),
    ],
)
def test_an_undocumented_answer_is_refused(
    method: str, path: str, status: int, body: Any, why: str
) -> None:
    with pytest.raises(ContractError, match=why):
        answer(method, path, status, body)


def test_an_answer_of_another_content_type_is_refused() -> None:
    with pytest.raises(ContractError, match="content type 'text/html'"):
        answer("GET", "/api/me", 200, b"<html>", "text/html")
    with pytest.raises(ContractError, match="no JSON"):  # the protocol's paths answer JSON
        answer("GET", "/api/nothing", 404, b"<html>", "text/html")


def test_objects_are_closed_even_where_a_model_would_take_more() -> None:
    """A schema that lists its properties refuses others; one that types its values does not."""
    schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {}}}}
    assert closed(schema)["additionalProperties"] is False
    assert closed(schema)["properties"]["a"]["additionalProperties"] is False
    mapping = {"type": "object", "additionalProperties": {"type": "integer"}}
    assert closed(mapping) == mapping


def test_websocket_messages_are_checked_against_their_type() -> None:
    pong = {"type": "pong"}
    contract().check_message(pong)
    with pytest.raises(ContractError, match="'at' was unexpected"):
        contract().check_message({**pong, "at": 1})
    with pytest.raises(ContractError):
        contract().check_message({"type": "gossip"})
    error = {"type": "error", "code": "stale_version", "message": "m", "version": 3}
    with pytest.raises(ContractError, match="at /version"):
        contract().check_message({**error, "version": "3"})


async def test_a_checked_client_refuses_a_drifting_answer() -> None:
    """The wrapper the app tests' clients go through raises on an answer the contract refuses."""

    async def me(_request: Request) -> Response:
        return JSONResponse({**ME, "email": "ann@example.org"})

    drifting = Starlette(routes=[Route("/api/me", me)])
    transport = httpx.ASGITransport(app=drifting)
    async with checked(httpx.AsyncClient(transport=transport, base_url="http://t")) as client:
        with pytest.raises(ContractError, match="'email' was unexpected"):
            await client.get("/api/me")
