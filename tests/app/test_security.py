"""Secrets, headers and origins (issue 14): the secret key a server refuses to start without, the
timed and rotated guest cookie, the security headers of every answer, URLs never built from the
Host header, websocket origins, and private games that answer exactly as missing ones."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from fastapi import FastAPI
from itsdangerous import URLSafeSerializer, URLSafeTimedSerializer
from websockets.exceptions import InvalidStatus

from app.config import InsecureSettings, Settings
from app.domain.clock import FakeClock
from app.identity import COOKIE, COOKIE_MAX_AGE
from app.main import create_app
from tests.app.conftest import SECRET, ClientFactory, make_settings
from tests.support.contract import checked
from tests.support.databases import fresh_database
from tests.support.gameplay import quick_game, rows_of
from tests.support.server import ROOT, LiveServer, free_port, live_server
from tests.support.wsclient import TestVisitor

DAY = 24 * 3600
# An unknown game's page is the 404 error page (issue 15); a real game's page is made per test.
PAGES = ["/", "/live", "/archive", "/games/Xk3v9QaT2bPw", "/rules", "/rules/jotun", "/rules/exxit"]


# --- the secret key ----------------------------------------------------------------------------


@pytest.mark.parametrize("secret", ["", "change-me", "x" * 31, "é" * 15])
def test_no_start_without_a_secret_of_32_bytes(secret: str) -> None:
    settings = Settings(database_url="sqlite+aiosqlite://", secret_key=secret)
    with pytest.raises(InsecureSettings, match="SECRET_KEY must hold at least 32 bytes"):
        create_app(settings)
    create_app(Settings(database_url="sqlite+aiosqlite://", secret_key="é" * 16))  # 32 bytes


def test_dev_mode_runs_on_a_random_key_of_its_process(caplog: pytest.LogCaptureFixture) -> None:
    settings = Settings(database_url="sqlite+aiosqlite://", secret_key="", dev_mode=True)
    first, second = settings.signing_key(), settings.signing_key()
    assert len(first) >= 32 and first != second
    assert "SECRET_KEY is unset" in caplog.text
    create_app(settings)


def test_a_server_without_secret_key_exits_naming_it(tmp_path: Path) -> None:
    """A real uvicorn process: no SECRET_KEY, no DEV_MODE, so it exits and says why."""
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEV_MODE")}
    env["DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp_path}/none.db"
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory"]
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port)],
        cwd=tmp_path,  # no .env file here
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        output, _ = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("the server started without a SECRET_KEY")
    assert process.returncode != 0
    assert b"SECRET_KEY must hold at least 32 bytes" in output


# --- the cookie --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fresh_database("sqlite", tmp_path_factory.mktemp("security")) as url:
        yield url


@pytest.fixture
async def clocked(sqlite_url: str) -> AsyncIterator[tuple[FastAPI, FakeClock]]:
    clock = FakeClock(start=1_800_000_000_000)
    application = create_app(
        make_settings(sqlite_url, secret_key_previous="previous-key-" + "p" * 20), clock=clock
    )
    async with application.router.lifespan_context(application):
        yield application, clock


def client_of(application: FastAPI, cookie: str | None = None) -> httpx.AsyncClient:
    client = checked(
        httpx.AsyncClient(transport=httpx.ASGITransport(app=application), base_url="http://t")
    )
    if cookie is not None:
        client.cookies.set(COOKIE, cookie)
    return client


def set_cookie(response: httpx.Response) -> str | None:
    for header in response.headers.get_list("set-cookie"):
        if header.startswith(f"{COOKIE}="):
            return header
    return None


def issued_at(header: str) -> int:
    value = header.split(";")[0].split("=", 1)[1]
    return (
        URLSafeTimedSerializer(SECRET, salt="hexmoot-guest")
        .loads(value, return_timestamp=True)[1]
        .timestamp()
    )


async def test_the_cookie_carries_its_issue_time_and_is_reissued_after_30_days(
    clocked: tuple[FastAPI, FakeClock],
) -> None:
    application, clock = clocked
    async with client_of(application) as client:
        first = await client.get("/api/me")
        header = set_cookie(first)
        assert header is not None and "Secure" not in header
        assert issued_at(header) == clock.now() // 1000
        guest = first.json()["id"]
        clock.advance(29 * DAY)
        quiet = await client.get("/api/me")
        assert quiet.json()["id"] == guest and set_cookie(quiet) is None
        clock.advance(2 * DAY)
        renewed = await client.get("/api/me")
        header = set_cookie(renewed)
        assert renewed.json()["id"] == guest and header is not None
        assert issued_at(header) == clock.now() // 1000


async def test_cookies_without_issue_time_are_kept_and_reissued(
    clocked: tuple[FastAPI, FakeClock],
) -> None:
    application, clock = clocked
    guest = "ab" * 16
    today = URLSafeSerializer(SECRET, salt="hexmoot-guest").dumps(guest)
    async with client_of(application, today) as client:
        response = await client.get("/api/me")
    header = set_cookie(response)
    assert response.json()["id"] == guest and header is not None
    assert issued_at(header) == clock.now() // 1000


async def test_the_previous_key_is_accepted_and_replaced(
    clocked: tuple[FastAPI, FakeClock],
) -> None:
    application, clock = clocked
    guest = "cd" * 16
    old = URLSafeTimedSerializer("previous-key-" + "p" * 20, salt="hexmoot-guest").dumps(guest)
    async with client_of(application, old) as client:
        response = await client.get("/api/me")
    header = set_cookie(response)
    assert response.json()["id"] == guest and header is not None
    assert issued_at(header) == clock.now() // 1000  # signed with today's key
    forged = URLSafeTimedSerializer("another-key-" + "q" * 20, salt="hexmoot-guest").dumps(guest)
    async with client_of(application, forged) as client:
        assert (await client.get("/api/me")).json()["id"] != guest


async def test_an_expired_cookie_counts_as_none(clocked: tuple[FastAPI, FakeClock]) -> None:
    application, clock = clocked
    async with client_of(application) as client:
        guest = (await client.get("/api/me")).json()["id"]
        clock.advance(COOKIE_MAX_AGE + 1)
        response = await client.get("/api/me")
        assert response.json()["id"] != guest and set_cookie(response) is not None


@pytest.mark.parametrize(
    ("origin", "flag", "secure"),
    [
        (None, None, False),
        ("http://hexmoot.example", None, False),
        ("https://hexmoot.example", None, True),
        ("https://hexmoot.example", False, False),
        (None, True, True),
    ],
)
async def test_cookie_secure_follows_the_public_origin(
    sqlite_url: str, origin: str | None, flag: bool | None, secure: bool
) -> None:
    settings = make_settings(sqlite_url, public_origin=origin, cookie_secure=flag)
    application = create_app(settings)
    async with application.router.lifespan_context(application), client_of(application) as c:
        header = set_cookie(await c.get("/api/me"))
    assert header is not None and ("; Secure" in header) is secure


# --- headers -----------------------------------------------------------------------------------


async def test_every_answer_carries_the_security_headers(sqlite_url: str) -> None:
    application = create_app(make_settings(sqlite_url))

    async def boom() -> None:
        raise RuntimeError("a bug")

    application.add_api_route("/boom", boom)
    transport = httpx.ASGITransport(app=application, raise_app_exceptions=False)
    async with (
        application.router.lifespan_context(application),
        httpx.AsyncClient(transport=transport, base_url="http://t") as client,
    ):
        answers = [await client.get(path) for path in PAGES]
        answers += [
            await client.get("/api/catalogue"),
            await client.get("/static/js/game.js"),
            await client.get("/static/img/favicon.svg"),
            await client.get("/healthz"),
            await client.get("/nothing/here"),
            await client.post("/api/games", json={"game": "nope"}),
            await client.get("/boom"),
        ]
    assert {a.status_code for a in answers} >= {200, 404, 422, 500}
    for answer in answers:
        headers = answer.headers
        csp = headers["content-security-policy"]
        assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp, answer.url
        assert "unsafe-inline" not in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"


async def test_pages_hold_no_inline_script_or_style(clients: ClientFactory) -> None:
    client = await clients()
    game = (await client.post("/api/games", json={"game": "exxit"})).json()["url"]
    for path in [*PAGES, game, "/rules/valaturna", "/rules/harmijan", "/rules/sgolte"]:
        html = (await client.get(path)).text
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), path
        assert not re.search(r"\son[a-z]+\s*=", html, re.IGNORECASE), path
        assert "javascript:" not in html.lower(), path
        assert not re.search(r"\sstyle\s*=|<style", html, re.IGNORECASE), path


async def test_no_url_is_built_from_the_host_header(clients: ClientFactory) -> None:
    client = await clients()
    for path in PAGES:
        response = await client.get(path, headers={"Host": "evil.example"})
        assert response.status_code == (404 if path.startswith("/games/") else 200), path
        assert "evil.example" not in response.text, path
        assert 'src="/static/' in response.text


# --- websocket origins -------------------------------------------------------------------------


async def _handshake(url: str, origin: str | None) -> int:
    """The HTTP status of a websocket handshake (101 when accepted)."""
    headers = {} if origin is None else {"Origin": origin}
    try:
        async with websockets.connect(url, additional_headers=headers) as connection:
            await connection.recv()
            return 101
    except InvalidStatus as refused:
        return refused.response.status_code


async def test_websockets_from_other_origins_are_refused(server: LiveServer) -> None:
    ann = await TestVisitor(server.url).start("Ann")
    slug, options = quick_game()
    created = await ann.http.post("/api/games", json={"game": slug, "options": options})
    game = created.json()["id"]
    own = server.url  # http://127.0.0.1:PORT
    for path in (f"/ws/games/{game}", "/ws/live"):
        url = server.ws_url + path
        assert await _handshake(url, "http://evil.example") == 403
        assert await _handshake(url, "null") == 403
        assert await _handshake(url, own.replace("http:", "https:")) == 403
        assert await _handshake(url, own) == 101
        assert await _handshake(url, None) == 101  # no browser: nothing to protect
    await ann.close()


async def test_public_origin_is_the_one_origin_allowed(sqlite_url: str) -> None:
    with live_server(sqlite_url, {"PUBLIC_ORIGIN": "https://hexmoot.example"}) as running:
        url = running.ws_url + "/ws/live"
        assert await _handshake(url, "https://hexmoot.example") == 101
        assert await _handshake(url, "https://HEXMOOT.example:443") == 101
        assert await _handshake(url, running.url) == 403
        assert await _handshake(url, "http://hexmoot.example") == 403


# --- private games stay hidden -----------------------------------------------------------------


def _same_apart_from_the_id(
    hidden: httpx.Response, missing: httpx.Response, ids: tuple[str, str]
) -> None:
    def shape(response: httpx.Response, game_id: str) -> tuple[int, str, str]:
        kind = response.headers.get("content-type", "")
        return (response.status_code, kind, response.text.replace(game_id, "ID"))

    assert shape(hidden, ids[0]) == shape(missing, ids[1])


async def test_a_private_game_answers_as_a_missing_one(
    clients: ClientFactory, app: FastAPI, server: LiveServer
) -> None:
    slug, options = quick_game()
    ann, eve = await clients("Ann"), await clients("Eve")
    created = await ann.post("/api/games", json={"game": slug, "options": options, "public": False})
    game = created.json()["id"]
    missing = "Zz" + game[2:] if not game.startswith("Zz") else "Yy" + game[2:]
    before = await rows_of(app.state.sessionmaker, game)
    for token in (None, "x" * 43, "ü" * 10):
        body: dict[str, Any] = {} if token is None else {"token": token}
        params = {} if token is None else {"token": token}
        requests: list[tuple[str, str, dict[str, Any]]] = [
            ("POST", "/api/games/{}/join", {"json": body}),
            ("GET", "/api/games/{}", {"params": params}),
            ("GET", "/api/games/{}/steps", {"params": params}),
            ("GET", "/games/{}/record.json", {"params": params}),
            ("POST", "/api/games/{}/moves", {"json": {"move": "a1", "version": 1, "msg_id": "m"}}),
            ("POST", "/api/games/{}/resign", {"json": {"msg_id": "r"}}),
            ("GET", "/games/{}", {"params": params}),
        ]
        for method, path, kwargs in requests:
            hidden = await eve.request(method, path.format(game), **kwargs)
            absent = await eve.request(method, path.format(missing), **kwargs)
            _same_apart_from_the_id(hidden, absent, (game, missing))
    assert await rows_of(app.state.sessionmaker, game) == before

    # The websocket, on a real server: the same error, then the same close.
    eve_live = await TestVisitor(server.url).start("Eve")
    ann_live = await TestVisitor(server.url).start("Ann")
    created = await ann_live.http.post(
        "/api/games", json={"game": slug, "options": options, "public": False}
    )
    game = created.json()["id"]
    missing = "Zz" + game[2:] if not game.startswith("Zz") else "Yy" + game[2:]
    answers = []
    for game_id in (game, missing):
        for token in (None, "x" * 43):
            socket = await eve_live.open(game_id, token=token)
            first = await socket.recv()
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await socket.recv()
            text = json.dumps(first).replace(game_id, "ID")
            answers.append((text, closed.value.rcvd.code if closed.value.rcvd else None))
    assert answers[0] == answers[2] and answers[1] == answers[3]
    assert '"game_not_found"' in answers[0][0]
    await eve_live.close()
    await ann_live.close()


async def test_a_public_game_with_a_wrong_token_is_refused(clients: ClientFactory) -> None:
    slug, options = quick_game()
    ann, bo = await clients("Ann"), await clients("Bo")
    created = await ann.post("/api/games", json={"game": slug, "options": options})
    refused = await bo.post(f"/api/games/{created.json()['id']}/join", json={"token": "x"})
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "bad_token")
