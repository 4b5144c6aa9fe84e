"""Error codes are one enumeration, documented with their HTTP status, and every error has one shape.

The HTTP cases run on SQLite and on PostgreSQL (the ``backend`` fixture), in process through httpx.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.errors import STATUS, AppError, ErrorCode
from app.schemas import ErrorOut
from tests.app.conftest import ClientFactory

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = ROOT / "docs" / "protocol.md"


def documented_codes() -> dict[str, int | None]:
    """The table of ``## Error codes`` in docs/protocol.md: code -> HTTP status (None: ``-``)."""
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text.split("\n## Error codes\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z_]+)` \| (\d{3}|-) \|", section, re.MULTILINE)
    assert rows, "docs/protocol.md has no error table"
    return {code: None if status == "-" else int(status) for code, status in rows}


def test_the_documented_table_is_the_enumeration() -> None:
    documented = documented_codes()
    assert sorted(documented) == sorted(code.value for code in ErrorCode)
    assert documented == {code.value: STATUS[code] for code in ErrorCode}
    assert set(STATUS) == set(ErrorCode)


def _code_and_status(call: ast.Call) -> tuple[str | None, int | None]:
    first = call.args[0] if call.args else None
    code = None
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        code = first.value
    elif isinstance(first, ast.Attribute) and isinstance(first.value, ast.Name):
        code = ErrorCode[first.attr].value if first.value.id == "ErrorCode" else None
    status_node = call.args[2] if len(call.args) > 2 else None
    for keyword in call.keywords:
        if keyword.arg == "status":
            status_node = keyword.value
    status = None
    if isinstance(status_node, ast.Constant) and isinstance(status_node.value, int):
        status = status_node.value
    return code, status


def test_every_code_the_source_raises_is_a_member_with_its_documented_status() -> None:
    """Read statically, so a code on a path no test reaches is checked too."""
    seen = set()
    for path in sorted((ROOT / "app").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name != "AppError" or not node.args:
                continue
            code, status = _code_and_status(node)
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            assert code is not None, f"{where}: the code is not a literal or an ErrorCode member"
            assert code in ErrorCode.__members__.values(), f"{where}: unknown code {code!r}"
            if status is not None:
                assert status == STATUS[ErrorCode(code)], f"{where}: {code} is not HTTP {status}"
            seen.add(code)
        for literal in re.findall(r'"code": "([a-z_]+)"', path.read_text(encoding="utf-8")):
            assert literal in ErrorCode.__members__.values(), f"{path}: unknown code {literal!r}"
    assert {"game_not_found", "bad_message", "invalid_request", "bad_filter"} <= seen


def test_app_error_takes_a_member_or_its_text_and_refuses_anything_else() -> None:
    assert AppError(ErrorCode.GAME_FULL, "full").code is ErrorCode.GAME_FULL
    error = AppError("stale_version", "the game is at version 3", 409, version=3)
    assert error.code is ErrorCode.STALE_VERSION and error.status == 409
    assert error.to_json() == {
        "code": "stale_version",
        "message": "the game is at version 3",
        "version": 3,
    }
    assert AppError("bad_name", "no").status == 422
    assert AppError("internal_error", "oops").status == 500
    with pytest.raises(ValueError, match="not a valid ErrorCode"):
        AppError("game_ful", "typo")
    with pytest.raises(ValueError, match="documented as HTTP 409, not 422"):
        AppError("game_full", "wrong status", 422)


JSON = {"content-type": "application/json"}
BAD_REQUESTS: list[tuple[str, str, str, dict[str, Any], int, str]] = [
    ("unknown path", "GET", "/api/nothing-here", {}, 404, "not_found"),
    # A GET of an unknown page (/no/such/page, /rules/chess, /games/not!an!id) is the HTML error
    # page: tests/app/test_error_pages.py.
    ("unknown static file", "GET", "/static/no-such.js", {}, 404, "not_found"),
    ("unknown game", "GET", "/api/games/nosuchgame", {}, 404, "game_not_found"),
    ("wrong method", "DELETE", "/api/me", {}, 405, "method_not_allowed"),
    ("wrong method on a page", "POST", "/live", {}, 405, "method_not_allowed"),
    (
        "invalid JSON body",
        "POST",
        "/api/games",
        {"content": b"{bad", "headers": JSON},
        422,
        "bad_json",
    ),
    (
        "a body that is not UTF-8",
        "POST",
        "/api/games",
        {"content": b'{"game": "\xff"}', "headers": JSON},
        400,
        "bad_request",
    ),
    ("a body that is no object", "POST", "/api/games", {"json": [1, 2]}, 422, "invalid_request"),
    ("wrong field type", "POST", "/api/games", {"json": {"game": 5}}, 422, "invalid_request"),
    ("missing field", "POST", "/api/games", {"json": {"options": {}}}, 422, "invalid_request"),
    (
        "unknown field",
        "POST",
        "/api/games",
        {"json": {"game": "exxit", "colour": "red"}},
        422,
        "invalid_request",
    ),
    ("unknown game slug", "POST", "/api/games", {"json": {"game": "chess"}}, 422, "unknown_game"),
    (
        "bad option",
        "POST",
        "/api/games",
        {"json": {"game": "exxit", "options": {"variant": "huge"}}},
        422,
        "bad_option",
    ),
    ("bad name", "PUT", "/api/me", {"json": {"name": "<b>"}}, 422, "bad_name"),
    (
        "too many prefix tokens",
        "GET",
        "/api/games/whatever/steps",
        {"params": [("prefix", "a1")] * 65},
        422,
        "invalid_request",
    ),
    ("bad archive filter", "GET", "/api/archive", {"params": {"limit": "0"}}, 422, "bad_filter"),
    ("bad cursor", "GET", "/api/archive", {"params": {"cursor": "@@"}}, 422, "bad_cursor"),
    (
        "oversized record",
        "POST",
        "/api/archive/import",
        {"content": b"{" + b" " * (1024 * 1024) + b"}", "headers": JSON},
        413,
        "record_too_large",
    ),
    ("record not JSON", "POST", "/api/archive/import", {"content": b"{x"}, 422, "bad_json"),
    ("bad replay body", "POST", "/api/replay", {"json": [1]}, 422, "invalid_record"),
]


@pytest.mark.parametrize(
    ("method", "path", "request_args", "status", "code"),
    [case[1:] for case in BAD_REQUESTS],
    ids=[case[0] for case in BAD_REQUESTS],
)
async def test_bad_requests_get_one_error_shape(
    clients: ClientFactory,
    method: str,
    path: str,
    request_args: dict[str, Any],
    status: int,
    code: str,
) -> None:
    client = await clients("Eve")  # named: importing needs a chosen name
    response = await client.request(method, path, **request_args)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = ErrorOut.model_validate(response.json()).error
    assert error.code == code and error.message
    assert STATUS[error.code] == status
    assert "detail" not in response.text
    if status == 405:
        assert response.headers["allow"]


async def test_an_unexpected_failure_is_a_500_without_its_traceback(app: FastAPI) -> None:
    async def fail() -> None:
        raise RuntimeError("secret internals: /etc/hexmoot")

    path = f"/api/test-failure-{id(app)}"
    app.add_api_route(path, fail)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        response = await client.get(path)
    assert response.status_code == 500
    error = ErrorOut.model_validate(response.json()).error
    assert error.code == ErrorCode.INTERNAL_ERROR
    for leak in ("secret", "Traceback", "RuntimeError", "detail"):
        assert leak not in response.text
