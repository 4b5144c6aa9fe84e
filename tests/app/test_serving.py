"""How the server is served (``app/serve.py``) and what one request may cost it.

Every test runs against real server processes started the production way (``python -m app.serve``):
websocket frames above the protocol's limit are refused before they are read, request bodies are
capped per route (``app/http_limits.py``), slow clients are cut off, forwarded headers are believed
only from configured proxies, and the access log never shows a join token. Memory is the server
process's resident set (psutil), measured around each flood.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import psutil
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from app.errors import STATUS
from app.schemas import ErrorOut
from tests.app.conftest import ClientFactory
from tests.support.contract import checked
from tests.support.databases import fresh_database
from tests.support.patience import PATIENCE
from tests.support.server import ROOT, LiveServer, free_port, live_server

MiB = 1024 * 1024
# How long a server may take to notice what it must notice (never a timing assertion).
DEADLINE = PATIENCE
# What an answered flood may add to the server's memory (the probe saw 839 MiB for 100 MB).
RSS_SLACK = 40 * MiB
SECRET = "SECRET0123456789abcdefSECRET"


@pytest.fixture(scope="module")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fresh_database("sqlite", tmp_path_factory.mktemp("serving")) as url:
        yield url


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[LiveServer]:
    """The production configuration with a short head timeout and the access log on."""
    env = {"HEADER_TIMEOUT": "1", "KEEP_ALIVE_TIMEOUT": "1", "LOG_LEVEL": "info"}
    with live_server(database_url, env) as running:
        yield running


def rss(server: LiveServer) -> int:
    """The server process's resident memory, in bytes."""
    return psutil.Process(server.pid).memory_info().rss


def assert_error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text[:300]
    error = ErrorOut.model_validate(response.json()).error
    assert error.code == code and error.message
    assert STATUS[error.code] == status


async def warm_up(server: LiveServer) -> None:
    """A few ordinary requests, so that what the first ones allocate is not counted as growth."""
    async with checked(httpx.AsyncClient(base_url=server.url, timeout=PATIENCE)) as client:
        for _ in range(3):
            await client.put("/api/me", json={"name": "Warm"})
            await client.post("/api/replay", json={"game": "exxit", "moves": []})


# --- websocket frames ------------------------------------------------------------------------


async def send_huge_frame(url: str, size: int) -> int | None:
    """Open a socket, send one text frame of ``size`` bytes, return the close code it gets."""
    async with websockets.connect(url, max_size=None, open_timeout=DEADLINE) as connection:
        try:
            await asyncio.wait_for(connection.send("x" * size), DEADLINE)
            await asyncio.wait_for(connection.wait_closed(), DEADLINE)
        except ConnectionClosed:
            pass
        return connection.close_code


async def test_a_frame_far_above_the_message_limit_is_refused_before_it_is_read(
    server: LiveServer,
) -> None:
    await warm_up(server)
    before = rss(server)
    codes = await asyncio.gather(
        *(send_huge_frame(server.ws_url + "/ws/live", 15_000_000) for _ in range(20))
    )
    growth = rss(server) - before
    print(f"RSS growth under 20 sockets sending 15 MB frames: {growth / MiB:.1f} MiB")
    assert codes == [1009] * 20
    assert growth < RSS_SLACK


async def test_a_message_just_over_the_limit_is_still_answered_politely(
    server: LiveServer,
) -> None:
    async with websockets.connect(server.ws_url + "/ws/live", max_size=None) as connection:
        assert "live" in await connection.recv()
        await connection.send("x" * (16 * 1024 + 1))
        assert "message_too_large" in await connection.recv()
        await connection.send('{"type": "ping"}')
        assert "pong" in await connection.recv()


# --- request bodies --------------------------------------------------------------------------


async def chunks(total: int, size: int = 64 * 1024) -> AsyncIterator[bytes]:
    """``total`` bytes in chunks, never held in memory at once."""
    sent = 0
    while sent < total:
        piece = min(size, total - sent)
        sent += piece
        yield b" " * piece


async def test_a_100_mb_body_is_refused_before_it_is_read(server: LiveServer) -> None:
    await warm_up(server)
    async with checked(httpx.AsyncClient(base_url=server.url, timeout=DEADLINE)) as client:
        before = rss(server)
        response = await client.put(
            "/api/me",
            content=chunks(100_000_000),
            headers={"Content-Type": "application/json", "Content-Length": str(100_000_000)},
        )
        growth = rss(server) - before
        print(f"RSS growth under a 100 MB body to PUT /api/me: {growth / MiB:.1f} MiB")
        assert_error(response, 413, "body_too_large")
        assert growth < RSS_SLACK
        me = (await client.get("/api/me")).json()
        assert me["named"] is False  # nothing changed


async def test_a_chunked_body_is_cut_off_at_the_cap(server: LiveServer) -> None:
    await warm_up(server)
    async with checked(httpx.AsyncClient(base_url=server.url, timeout=DEADLINE)) as client:
        before = rss(server)
        response = await client.put(  # no Content-Length: chunked transfer encoding
            "/api/me", content=chunks(50_000_000), headers={"Content-Type": "application/json"}
        )
        assert "content-length" not in response.request.headers
        growth = rss(server) - before
        print(f"RSS growth under a 50 MB chunked body to PUT /api/me: {growth / MiB:.1f} MiB")
        assert_error(response, 413, "body_too_large")
        assert growth < RSS_SLACK
        assert (await client.get("/api/me")).json()["named"] is False


# --- slow clients ----------------------------------------------------------------------------


def closed_by_server(sock: socket.socket, trickle: bytes = b"") -> bool:
    """Whether the server closes ``sock`` before the deadline, while one byte of ``trickle`` is
    sent now and then (as long as there is some)."""
    sock.settimeout(0.25)
    deadline = time.monotonic() + DEADLINE
    sent = 0
    while time.monotonic() < deadline:
        try:
            if sent < len(trickle):
                sock.sendall(trickle[sent : sent + 1])
                sent += 1
            data = sock.recv(65536)
        except TimeoutError:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return True
        if data == b"":
            return True
    return False


def connect(server: LiveServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=DEADLINE)


HEAD = b"GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\n"


async def test_a_connection_trickling_its_request_head_is_closed(server: LiveServer) -> None:
    trickle = HEAD + b"X-Slow: " + b"a" * 10_000
    with connect(server) as silent, connect(server) as slow:
        assert await asyncio.to_thread(closed_by_server, slow, trickle)
        assert await asyncio.to_thread(closed_by_server, silent)


async def test_a_keep_alive_connection_trickling_its_next_head_is_closed(
    server: LiveServer,
) -> None:
    with connect(server) as sock:
        sock.sendall(HEAD + b"\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            answer += sock.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200")
        trickle = HEAD + b"X-Slow: " + b"a" * 10_000
        assert await asyncio.to_thread(closed_by_server, sock, trickle)


async def test_a_huge_request_head_is_refused(server: LiveServer) -> None:
    """431 and closed (the client may see the reset of a close with its bytes still unread)."""
    with connect(server) as sock:
        sock.sendall(HEAD + b"X-Big: " + b"a" * (256 * 1024) + b"\r\n\r\n")
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
        assert answer == b"" or answer.startswith(b"HTTP/1.1 431"), answer[:100]


async def test_a_body_trickled_past_body_timeout_is_refused_and_closed(database_url: str) -> None:
    """A complete head, then a body that never arrives whole: 408 ``body_timeout`` after
    BODY_TIMEOUT, the connection closed, nothing changed (the visitor's name is the same)."""
    env = {"BODY_TIMEOUT": "1", "LOG_LEVEL": "warning"}
    with live_server(database_url, env) as slow_server:
        async with checked(httpx.AsyncClient(base_url=slow_server.url, timeout=PATIENCE)) as client:
            await client.put("/api/me", json={"name": "Ann"})
            cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
            with connect(slow_server) as sock:
                sock.sendall(
                    b"PUT /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/json\r\nContent-Length: 100\r\n"
                    + f"Cookie: {cookie}\r\n\r\n".encode()
                    + b'{"name": "Tr'
                )
                answer = b""
                while chunk := await asyncio.to_thread(sock.recv, 65536):  # until it is closed
                    answer += chunk
            assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
            error = json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]
            assert error["code"] == "body_timeout" and STATUS[error["code"]] == 408
            assert (await client.get("/api/me")).json()["name"] == "Ann"


async def test_a_slow_body_after_a_complete_head_is_still_answered(server: LiveServer) -> None:
    """The head timeout is about the head: a body may take its time (over twice HEADER_TIMEOUT)."""

    async def slow_body() -> AsyncIterator[bytes]:
        for piece in (b'{"name"', b': "Slow', b' Ann"}'):
            yield piece
            await asyncio.sleep(1.0)

    async with checked(httpx.AsyncClient(base_url=server.url, timeout=DEADLINE)) as client:
        response = await client.put(
            "/api/me", content=slow_body(), headers={"Content-Type": "application/json"}
        )
    assert response.status_code == 200, response.text
    assert response.json()["name"] == "Slow Ann"


# --- forwarded headers and the access log ----------------------------------------------------


def access_lines(server: LiveServer, marker: str) -> list[str]:
    """The lines of the server's log that mention ``marker``, once they are there."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        lines = [line for line in server.log().splitlines() if marker in line]
        if lines:
            return lines
        time.sleep(0.05)
    return []


async def test_forwarded_headers_from_an_untrusted_peer_are_ignored(server: LiveServer) -> None:
    headers = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
    async with checked(httpx.AsyncClient(base_url=server.url, timeout=PATIENCE)) as client:
        response = await client.get("/api/catalogue?probe=untrusted", headers=headers)
    assert response.status_code == 200
    lines = access_lines(server, "probe=untrusted")
    assert lines and all("127.0.0.1" in line for line in lines)
    assert "203.0.113.9" not in server.log()


async def test_forwarded_headers_from_a_configured_proxy_are_believed(database_url: str) -> None:
    env = {"FORWARDED_ALLOW_IPS": "127.0.0.1", "LOG_LEVEL": "info"}
    with live_server(database_url, env) as proxied:
        headers = {"X-Forwarded-For": "203.0.113.9"}
        async with checked(httpx.AsyncClient(base_url=proxied.url, timeout=PATIENCE)) as client:
            response = await client.get("/api/catalogue?probe=trusted", headers=headers)
        assert response.status_code == 200
        lines = access_lines(proxied, "probe=trusted")
        assert lines and all("203.0.113.9" in line for line in lines)


async def test_the_log_never_shows_a_join_token(server: LiveServer) -> None:
    async with checked(httpx.AsyncClient(base_url=server.url, timeout=PATIENCE)) as client:
        await client.get(f"/api/games/nosuchgame1?token={SECRET}")
        await client.get(f"/games/nosuchgame2?join={SECRET}&x=1")
        await client.get(f"/games/nosuchgame3/record.json?a=1&Token={SECRET}")
    try:
        async with websockets.connect(
            server.ws_url + f"/ws/games/nosuchgame4?since=1&token={SECRET}"
        ) as connection:
            await connection.recv()
    except ConnectionClosed:
        pass
    for marker in ("nosuchgame1", "nosuchgame2", "nosuchgame3", "nosuchgame4"):
        assert access_lines(server, marker), marker
    log = server.log()
    assert SECRET not in log
    assert "/api/games/nosuchgame1?token=[redacted]" in log
    assert "/games/nosuchgame2?join=[redacted]&x=1" in log
    assert "/ws/games/nosuchgame4?since=1&token=[redacted]" in log


# --- per-route caps and short errors (in process) --------------------------------------------

JSON = {"Content-Type": "application/json"}


@pytest.mark.parametrize(
    ("path", "cap", "code"),
    [
        ("/api/games", 8 * 1024, "body_too_large"),
        ("/api/replay", 128 * 1024, "body_too_large"),
        ("/api/archive/import", 1024 * 1024, "record_too_large"),
    ],
)
@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
async def test_each_route_caps_its_body(
    clients: ClientFactory, path: str, cap: int, code: str, chunked: bool
) -> None:
    client = await clients()

    def body(size: int) -> bytes | AsyncIterator[bytes]:
        return chunks(size, 1000) if chunked else b" " * size

    over = await client.post(path, content=body(cap + 1), headers=JSON)
    assert_error(over, 413, code)
    at_cap = await client.post(path, content=body(cap), headers=JSON)
    assert at_cap.status_code == 422, at_cap.text  # read, and refused as no JSON object


# 10 KB where the route's cap allows it (the URL, replay, import), 7 KB under the 8 KiB body cap.
BAD = "\u00e9" * 5_000
SMALL_BAD = "x" * 7_000


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/games", {"game": SMALL_BAD}),
        ("POST", "/api/games", {"game": "exxit", "seat": SMALL_BAD}),
        ("POST", "/api/games", {"game": "exxit", "options": {SMALL_BAD: 1}}),
        ("POST", "/api/games", {"game": "exxit", "options": {"variant": SMALL_BAD}}),
        ("POST", "/api/games", {"game": "exxit", SMALL_BAD: 1}),
        ("POST", "/api/games", {"game": [SMALL_BAD]}),
        ("PUT", "/api/me", {"name": SMALL_BAD}),
        ("POST", "/api/games/x/join", {"token": SMALL_BAD}),
        ("POST", "/api/games/x/moves", {"move": "a", "version": 1, "msg_id": SMALL_BAD}),
        ("POST", f"/api/games/{BAD}/moves", {"move": "a", "version": 1, "msg_id": "x"}),
        ("GET", f"/api/games/{BAD}", None),
        ("GET", f"/api/games/x/steps?prefix={BAD}", None),
        ("GET", f"/api/archive?game={BAD}", None),
        ("GET", f"/api/archive?player={BAD}", None),
        ("GET", f"/api/archive?result={BAD}", None),
        ("GET", f"/api/archive?cursor={BAD}", None),
        # /rules/{BAD} is the HTML error page, which quotes nothing: tests/app/test_error_pages.py
        ("POST", "/api/replay", {"game": BAD, "moves": []}),
        ("POST", "/api/replay", {"game": "exxit", "moves": [BAD]}),
        ("POST", "/api/replay", {"game": "exxit", "moves": [{BAD: 1}]}),
        ("POST", "/api/replay", {"game": "exxit", "options": {BAD: BAD}, "moves": []}),
        ("POST", "/api/archive/import", {"format": BAD}),
        ("POST", "/api/archive/import", {"format": "hexmoot-record/1", "game": BAD}),
    ],
)
async def test_an_error_quotes_no_more_than_an_excerpt_of_a_bad_value(
    clients: ClientFactory, method: str, path: str, body: object
) -> None:
    client = await clients()
    response = await client.request(method, path, json=body)
    assert 400 <= response.status_code < 500, response.text[:300]
    error = ErrorOut.model_validate(response.json()).error
    assert len(response.content) < 400, response.text[:1000]
    assert "input" not in response.json()["error"]
    assert error.message


# --- the other way to serve ------------------------------------------------------------------


def test_the_factory_still_serves_with_plain_uvicorn(database_url: str) -> None:
    """``uvicorn app.main:create_app --factory`` works too (without app.serve's limits, with the
    app's own: the body caps)."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "SECRET_KEY": "test-secret-key-0123456789abcdef",
    }
    command = [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory"]
    command += ["--port", str(port), "--log-level", "warning"]
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    health: httpx.Response | None = None
    try:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline and process.poll() is None:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1.0)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        assert health is not None and health.status_code == 200
        big = httpx.put(f"http://127.0.0.1:{port}/api/me", content=b" " * 9000, headers=JSON)
        assert_error(big, 413, "body_too_large")
    finally:
        process.terminate()
        process.wait(timeout=DEADLINE)


async def test_a_socket_error_quotes_no_more_than_an_excerpt(server: LiveServer) -> None:
    async with websockets.connect(server.ws_url + "/ws/live") as connection:
        assert "live" in await connection.recv()
        for message in ({"type": "x" * 15_000}, {"type": "ping", "y" * 15_000: 1}):
            await connection.send(json.dumps(message))
            answer = await connection.recv()
            assert len(answer) < 400, answer[:1000]
            assert json.loads(answer)["type"] == "error"


def test_uvicorn_sends_no_protocol_pings_of_its_own() -> None:
    """Liveness is the protocol's (the client's ``ping``, the idle timeout): uvicorn's own pings,
    20 s after each connection, hit every socket that connected together in one burst (80-110 ms
    stalls with 2,000 sockets in ``make bench``)."""
    from app.config import Settings
    from app.serve import server_config

    config = server_config(Settings(secret_key="k" * 32, database_url="sqlite+aiosqlite://"))
    assert config.ws_ping_interval is None
    assert config.ws_max_size == 16 * 1024 + 4 * 1024


async def test_a_socket_offered_permessage_deflate_goes_uncompressed(server: LiveServer) -> None:
    """The client offers permessage-deflate (websockets does by default); the server declines: the
    zlib state cost 41 KB on every socket, for frames of a few hundred bytes (``make bench``)."""
    async with websockets.connect(server.ws_url + "/ws/live", compression="deflate") as connection:
        assert connection.request is not None and connection.response is not None
        assert "permessage-deflate" in connection.request.headers["Sec-WebSocket-Extensions"]
        assert "Sec-WebSocket-Extensions" not in connection.response.headers
        assert "live" in await connection.recv()
