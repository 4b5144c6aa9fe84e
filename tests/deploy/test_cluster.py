"""The production topology through its proxy (issue 27): deploy/cluster.py starts it as ``make
cluster`` does, Debian's nginx with deploy/nginx.conf in front of two ``python -m app.serve``
processes on a PostgreSQL database of the test's own and the local Redis under a prefix of its own,
and real HTTP and websocket clients talk to nginx.

Client addresses: the whole of 127.0.0.0/8 is this machine's loopback, so a test can connect from
127.0.0.2 (or .3, ...) while nginx reaches the app processes from 127.0.0.1, the one proxy they
believe: what the app makes of a client's address is then visible, and each test's per-address
counts are its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, closing
from typing import Any

import httpx
import psutil
import pytest
import websockets

from app.config import Settings
from app.http_limits import BODY_LIMIT, IMPORT_LIMIT, REPLAY_LIMIT
from app.static_files import IMMUTABLE, REVALIDATE
from deploy.cluster import NGINX_CONF, Cluster, answers, free_port
from tests.deploy.conftest import SECRET_KEY, ClusterFactory, accepted
from tests.deploy.nginxconf import find, parse, seconds, value
from tests.support.databases import PG_ADMIN_URL, drop_database
from tests.support.gameplay import MovePicker, assert_each_event_once, quick_game, start_game
from tests.support.patience import PATIENCE
from tests.support.wsclient import GameSocket, TestVisitor

#: Login attempts allowed per client address (a minute), in this module's cluster only.
LOGINS_PER_ADDRESS = 3
HTTP = find(parse(NGINX_CONF.read_text()), "http").block
SERVER = find(HTTP, "server").block
#: nginx's connections at once per client address.
CONNECTIONS_PER_ADDRESS = int(find(HTTP, "limit_conn", "per_address").args[1])


@pytest.fixture(scope="module")
def cluster(start_cluster: ClusterFactory) -> Iterator[Cluster]:
    with start_cluster(env={"RATE_LOGIN_PER_IP": f"{LOGINS_PER_ADDRESS}/minute"}) as running:
        yield running


@asynccontextmanager
async def client(base_url: str, address: str = "127.0.0.1") -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client connecting from ``address`` (one of the loopback range's)."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=base_url, transport=transport, timeout=PATIENCE) as http:
        yield http


async def poll(condition: Callable[[], bool], what: str) -> None:
    """Wait until ``condition()`` holds (PATIENCE at most)."""
    end = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < end, f"not in time: {what}"
        await asyncio.sleep(0.05)


# --- games through the proxy, across processes ------------------------------------------------


async def play(socket: GameSocket, text: str, version: int, msg_id: str) -> int:
    """Send a move; its ack's version."""
    await socket.send({"type": "move", "move": text, "version": version, "msg_id": msg_id})
    answer = await socket.expect("ack", "error")
    assert answer["type"] == "ack" and answer["msg_id"] == msg_id, answer
    version: int = answer["version"]
    return version


async def play_a_whole_game(cluster: Cluster, visitors: dict[str, TestVisitor], seed: int) -> None:
    """Ann and Bo play a game to its end through nginx, Carl watching; every socket sees every
    move, and each app process, asked directly afterwards, has the whole game."""
    slug, options = quick_game()
    body = await start_game(visitors["Ann"].http, visitors["Bo"].http, slug, options)
    game_id = body["id"]
    # nginx gives a new socket to the process holding the fewest (least_conn): the players'
    # sockets, opened one after the other while no other is open, land on different processes.
    sockets = {}
    for who, visitor in visitors.items():
        sockets[who] = await visitor.open(game_id)
        snapshot = await sockets[who].expect("snapshot")
        assert snapshot["version"] == 2 and snapshot["game"]["status"] == "active"
    await poll(lambda: sum(accepted(cluster, game_id)) == len(sockets), "the access lines")
    assert all(accepted(cluster, game_id)), accepted(cluster, game_id)

    picker = MovePicker(slug, options, seed=seed)
    players = {1: sockets["Ann"], 2: sockets["Bo"]}
    version = 2
    while (seat := picker.to_move()) is not None:
        text = picker.pick()
        version = await play(players[seat], text, version, f"g{seed}-{len(picker.moves)}")
        picker.play(text)
    outcome = picker.rules.outcome(picker.state)
    assert outcome is not None
    # Every move reached every socket, in order, whichever process it was played on.
    for who, game_socket in sockets.items():
        while not game_socket.events() or game_socket.events()[-1]["version"] < version:
            await game_socket.expect("event")
        events = game_socket.events()
        assert_each_event_once([e["version"] for e in events], 2, version, who)
        assert [e["data"]["move"] for e in events if e["kind"] == "move"] == picker.moves, who
        assert events[-1]["kind"] == "result" and events[-1]["data"] == outcome.to_json(), who
    for visitor in visitors.values():
        await visitor.close_sockets()

    for app in cluster.apps:
        async with client(app.url) as direct:
            snapshot = (await direct.get(f"/api/games/{game_id}")).json()
        assert snapshot["version"] == version, app.name
        assert snapshot["game"]["status"] == "finished", app.name


async def test_two_players_and_a_spectator_play_whole_games_across_both_processes(
    cluster: Cluster,
) -> None:
    visitors = {name: await TestVisitor(cluster.url).start(name) for name in ("Ann", "Bo", "Carl")}
    try:
        for seed in (1, 2):
            await play_a_whole_game(cluster, visitors, seed)
    finally:
        for visitor in visitors.values():
            await visitor.close()


# --- compression and static files ---------------------------------------------------------------


async def raw_get(
    http: httpx.AsyncClient, path: str, encoding: str
) -> tuple[httpx.Response, bytes]:
    """The answer and its bytes as sent (httpx would decode gzip itself)."""
    async with http.stream("GET", path, headers={"Accept-Encoding": encoding}) as response:
        return response, b"".join([chunk async for chunk in response.aiter_raw()])


async def test_nginx_compresses_what_the_app_sends_plain(cluster: Cluster) -> None:
    async with client(cluster.url) as http:
        # A page and an API answer from the app, a module nginx serves itself.
        for path in ("/", "/api/catalogue", "/static/js/game.js"):
            packed, data = await raw_get(http, path, "gzip")
            plain, as_is = await raw_get(http, path, "identity")
            assert packed.status_code == plain.status_code == 200, path
            assert packed.headers["content-encoding"] == "gzip", path
            assert "accept-encoding" in packed.headers["vary"].lower(), path
            assert "content-encoding" not in plain.headers, path
            # Compressed once: one gunzip gives the text itself.
            text = gzip.decompress(data)
            if path == "/":  # a page names its guest: compare its start
                assert text.startswith(b"<!doctype html>") and as_is.startswith(b"<!doctype html>")
            else:
                assert text == as_is, path


def static_urls(page: str) -> list[str]:
    urls = re.findall(r'(?:src|href)="(/static/[^"?]+\?v=[0-9a-f]+)"', page)
    assert urls, page
    return sorted(set(urls))


async def test_nginx_serves_the_static_files_as_the_app_does(cluster: Cluster) -> None:
    app = cluster.apps[0]
    async with client(cluster.url) as proxied, client(app.url) as direct:
        created = await start_game(proxied, None, *quick_game())
        urls = set()
        for page in ("/", f"/games/{created['id']}", "/live", "/archive"):
            answer = await proxied.get(page)
            assert answer.status_code == 200, page
            urls |= set(static_urls(answer.text))
        for url in sorted(urls):
            path = url.split("?")[0]
            # The page's own URL (current hash), the plain path ES modules import each other by,
            # an earlier hash, and a `v` that would climb out of nginx's directory.
            variants = {
                url: IMMUTABLE,
                path: REVALIDATE,
                f"{path}?v=0a1b": REVALIDATE,
                f"{path}?v=../../static": REVALIDATE,
            }
            for variant, policy in variants.items():
                by_nginx, by_app = await proxied.get(variant), await direct.get(variant)
                assert by_nginx.status_code == by_app.status_code == 200, variant
                assert by_nginx.content == by_app.content, variant
                assert (
                    by_nginx.headers["cache-control"] == by_app.headers["cache-control"] == policy
                )
                assert by_nginx.headers["x-content-type-options"] == "nosniff"
                # nginx answered from its directory: the app puts its policy on every answer.
                assert "content-security-policy" not in by_nginx.headers, variant
                assert "content-security-policy" in by_app.headers, variant


# --- forwarded headers --------------------------------------------------------------------------


async def login(http: httpx.AsyncClient, headers: dict[str, str] | None = None) -> int:
    """A failed login attempt (a username nobody has); its status."""
    body = {"username": f"nobody{secrets.token_hex(4)}", "password": "not the password"}
    answer = await http.post("/api/account/login", json=body, headers=headers or {})
    return answer.status_code


async def test_the_app_sees_the_clients_address_never_one_it_claims(cluster: Cluster) -> None:
    """Login attempts are counted per client address: through nginx, from 127.0.0.2, each claiming
    another address in X-Forwarded-For, they are all counted as 127.0.0.2's (nginx replaces the
    header), and 127.0.0.3 still has its own; a client reaching an app process directly is not a
    proxy, so its X-Forwarded-For is not believed either."""
    async with client(cluster.url, "127.0.0.2") as two:
        for n in range(LOGINS_PER_ADDRESS):
            spoofed = {"X-Forwarded-For": f"203.0.113.{n + 1}"}
            assert await login(two, spoofed) == 401
        assert await login(two, {"X-Forwarded-For": "203.0.113.99"}) == 429
    # The app believed nginx: the address it counted was 127.0.0.2, not nginx's 127.0.0.1.
    async with client(cluster.url, "127.0.0.3") as three:
        assert await login(three) == 401
    # Straight to an app process, claiming to be 127.0.0.2, whose attempts are used up: counted as
    # its own address (127.0.0.4), since only 127.0.0.1 is a proxy.
    async with client(cluster.apps[1].url, "127.0.0.4") as four:
        assert await login(four, {"X-Forwarded-For": "127.0.0.2"}) == 401


async def test_a_claimed_https_is_not_believed_through_the_proxy(cluster: Cluster) -> None:
    """The websocket origin check compares the page's Origin with the request's own scheme and
    Host: had the app believed a client's X-Forwarded-Proto of https, the http origin of the
    proxy's own pages would be foreign, and the socket refused."""
    url = cluster.url.replace("http", "ws", 1) + "/ws/live"
    headers = {"Origin": cluster.url, "X-Forwarded-Proto": "https"}
    async with websockets.connect(url, additional_headers=headers) as live:
        first = json.loads(await asyncio.wait_for(live.recv(), PATIENCE))
        assert first["type"] == "live"


# --- limits -------------------------------------------------------------------------------------


def http_head(port: int, head: str, address: str) -> socket.socket:
    """A connection from ``address`` to nginx that has sent ``head`` and nothing more."""
    connection = socket.create_connection(
        ("127.0.0.1", port), timeout=PATIENCE, source_address=(address, 0)
    )
    connection.sendall(head.encode())
    return connection


def status_of(connection: socket.socket) -> int:
    with closing(connection):
        line = connection.makefile("rb").readline()
    return int(line.split()[1])


def still_open(connection: socket.socket) -> bool:
    """Whether the server has neither closed ``connection`` nor answered on it (a held request
    that nginx gave up on gets its 408 and a close)."""
    connection.setblocking(False)
    try:
        connection.recv(1, socket.MSG_PEEK)  # its answer, or b"" for its end
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        connection.settimeout(PATIENCE)
    return False


def refusal_of(connection: socket.socket) -> tuple[int, dict[str, str], dict[str, Any]]:
    """The status, headers and JSON body of an answer nginx gives and then closes the connection
    with (a request sent with ``Connection: close``, or one it refuses)."""
    with closing(connection), connection.makefile("rb") as answer:
        status = int(answer.readline().split()[1])
        headers = {}
        while (line := answer.readline().strip()) != b"":
            name, _, field = line.decode().partition(":")
            headers[name.lower()] = field.strip()
        body = answer.read(int(headers["content-length"]))
    return status, headers, json.loads(body)


def assert_error_shape(body: dict[str, Any], code: str) -> None:
    """The protocol's one error shape: {"error": {"code", "message"}}, nothing else."""
    assert body.keys() == {"error"} and body["error"].keys() == {"code", "message"}
    assert body["error"]["code"] == code and body["error"]["message"]


def post_head(path: str, length: int) -> str:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    )


@pytest.mark.parametrize(
    ("path", "cap", "code"),
    [
        ("/api/games", BODY_LIMIT, "body_too_large"),
        ("/api/replay", REPLAY_LIMIT, "body_too_large"),
        ("/api/archive/import", IMPORT_LIMIT, "record_too_large"),
    ],
)
async def test_bodies_over_the_apps_caps(cluster: Cluster, path: str, cap: int, code: str) -> None:
    """Just over its cap, a body reaches the app, which answers with its own error; over twice the
    cap, nginx refuses it as soon as its length is known, before reading it."""
    async with client(cluster.url) as http:
        answer = await http.post(
            path, content=b"x" * (cap + 1), headers={"Content-Type": "application/json"}
        )
    assert answer.status_code == 413
    assert_error_shape(answer.json(), code)
    status, headers, body = await asyncio.to_thread(
        lambda: refusal_of(http_head(cluster.port, post_head(path, 2 * cap + 1), "127.0.0.1"))
    )
    assert status == 413
    assert headers["content-type"] == "application/json"
    assert_error_shape(body, code)  # nginx's own refusal, in the app's words


async def test_connections_per_address_are_limited(cluster: Cluster) -> None:
    """Connections held by one address (requests whose bodies never come, which nginx waits for
    without troubling the app) count against its limit; the next request is refused with 429, and
    another address is not.

    nginx closes a held connection after ``client_body_timeout`` (10 s) without a byte, which frees
    its place: on a busy machine some of the held ones may go before the address is full, so each
    try first replaces those nginx has closed."""

    def probe(address: str) -> int:
        return status_of(
            http_head(cluster.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", address)
        )

    def hold(count: int) -> list[socket.socket]:
        return [
            http_head(cluster.port, post_head("/api/games", 10), "127.0.0.5") for _ in range(count)
        ]

    def topped_up(held: list[socket.socket], count: int) -> list[socket.socket]:
        """The held connections nginx has not closed, and new ones up to ``count``."""
        alive = [c for c in held if still_open(c)]
        for connection in set(held) - set(alive):
            connection.close()
        return alive + hold(count - len(alive))

    close = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    held = await asyncio.to_thread(hold, CONNECTIONS_PER_ADDRESS - 1)
    try:
        held = await asyncio.to_thread(topped_up, held, CONNECTIONS_PER_ADDRESS - 1)
        assert await asyncio.to_thread(probe, "127.0.0.5") == 200  # one more is allowed
        # Once nginx has read every held request's head, the address is full.
        end = time.monotonic() + PATIENCE
        while True:
            held = await asyncio.to_thread(topped_up, held, CONNECTIONS_PER_ADDRESS)
            status, headers, body = await asyncio.to_thread(
                lambda: refusal_of(http_head(cluster.port, close, "127.0.0.5"))
            )
            if status == 429:
                break
            assert status == 200 and time.monotonic() < end, status
            await asyncio.sleep(0.05)
        assert headers["content-type"] == "application/json"
        assert_error_shape(body, "rate_limited")
        assert await asyncio.to_thread(probe, "127.0.0.6") == 200
    finally:
        for connection in held:
            connection.close()


# --- the configuration's figures that no test can wait for ----------------------------------


def test_websockets_outlast_the_protocols_idle_limit() -> None:
    """A socket may be silent for the protocol's 60 s before the app closes it (4000): nginx's own
    timeouts on the socket (its default, 60 s, would race the app's) are well above that."""
    websocket = find(SERVER, "location", "/ws/").block
    idle = Settings().ws_idle_timeout
    for name in ("proxy_read_timeout", "proxy_send_timeout", "send_timeout"):
        assert seconds(value(websocket, name)[0]) >= 2 * idle, name
    assert value(websocket, "proxy_buffering") == ["off"]


def test_idle_connections_to_the_app_close_on_nginxs_side_first() -> None:
    upstream = find(HTTP, "upstream").block
    assert seconds(value(upstream, "keepalive_timeout")[0]) < Settings().keep_alive_timeout


def test_with_no_app_process_answering_nginx_says_unavailable(cluster: Cluster) -> None:
    """While every app process is down (a deploy gone wrong), nginx answers requests and socket
    handshakes with the app's own retryable refusal: 503 `unavailable`, `Retry-After: 1`."""
    for app in cluster.apps:
        app.stop()
    try:
        for head in (
            "GET /api/games/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /ws/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        ):
            status, headers, body = refusal_of(http_head(cluster.port, head, "127.0.0.7"))
            assert (status, headers["content-type"]) == (503, "application/json"), head
            assert headers["retry-after"] == "1"
            assert_error_shape(body, "unavailable")
    finally:
        for app in cluster.apps:
            app.restart(PATIENCE)


def test_a_killed_launcher_takes_its_processes_along() -> None:
    """``make cluster``'s launcher SIGKILLed (nothing of it runs): nginx and the app processes it
    started end too, and nothing is left listening on the cluster's port."""
    port, name = free_port(), f"hexmoot_launcher_{secrets.token_hex(4)}"
    env = {**os.environ, "SECRET_KEY": SECRET_KEY, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "deploy.cluster", "--port", str(port), "--database", name]
    command += ["--postgres", PG_ADMIN_URL, "--redis-prefix", f"test-{secrets.token_hex(4)}:"]
    launcher = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    children: list[psutil.Process] = []
    try:
        assert launcher.stdout is not None
        end = time.monotonic() + PATIENCE
        while not (line := launcher.stdout.readline().decode()).startswith("Hexmoot: "):
            assert line and time.monotonic() < end, "the cluster did not start"
        children = psutil.Process(launcher.pid).children(recursive=True)
        assert len(children) >= 3 and answers(f"http://127.0.0.1:{port}/healthz")
        launcher.kill()
        launcher.wait()
        _, alive = psutil.wait_procs(children, timeout=PATIENCE)
        assert alive == []
        assert not answers(f"http://127.0.0.1:{port}/healthz")
    finally:
        launcher.kill()  # if a check above failed: the launcher and whatever outlived it
        for child in children:
            with contextlib.suppress(psutil.Error):
                child.kill()
        drop_database(name)
