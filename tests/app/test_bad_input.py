"""No input produces a 500 (issue 14): each class of bad input gets its precise 4xx in the one error
shape, changes nothing, and leaves a websocket usable. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import base64
import json
import logging
import random
from typing import Any, cast

import httpx
import pytest
import websockets
from fastapi import FastAPI

import games
from app.routes.ws.game import _game_reader
from app.schemas import ErrorOut
from app.schemas.messages import CLIENT_MESSAGE
from app.services import Visitor
from games.bench import random_game
from games.record import make_record
from tests.app.conftest import ClientFactory
from tests.support.gameplay import quick_game, rows_of, start_game, table_counts
from tests.support.server import LiveServer
from tests.support.wsclient import GameSocket, TestVisitor

TOO_LARGE = str(1 << 63)  # one past the largest BIGINT
JSON = {"content-type": "application/json"}


def assert_refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """``response`` is the one error shape with ``status`` and ``code``; its ``error`` object."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    ErrorOut.model_validate(body)
    assert list(body) == ["error"] and body["error"]["code"] == code, body
    return body["error"]


def cursor_of(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def record_of(seed: int, plies: int | None = None, **fields: Any) -> dict[str, Any]:
    """A record of a random quick game (cut after ``plies`` moves if given), ``fields`` replaced."""
    slug, options = quick_game()
    rules = games.get(slug, **options)
    _states, moves = random_game(rules, random.Random(seed))
    players = [{"seat": 1, "name": "Ann"}, {"seat": 2, "name": "Bo"}]
    if plies is None:
        return {**make_record(rules, moves, players), **fields}
    return {**make_record(rules, moves[:plies], players, result={}), **fields}


# --- the archive's numbers and text (items 1 to 4) -----------------------------------------------


@pytest.mark.parametrize(
    ("query", "code", "field"),
    [
        ("to=9999999999999999999", "bad_filter", "to"),
        (f"from={TOO_LARGE}", "bad_filter", "from"),
        ("from=%C2%B2", "bad_filter", "from"),  # "²".isdigit(), yet int("²") fails
        ("to=%D9%A3", "bad_filter", "to"),  # an Arabic-Indic three
        ("to=" + "9" * 5000, "bad_filter", "to"),  # int() refuses over 4,300 digits
        ("limit=%C2%B2", "bad_filter", "limit"),
        ("limit=" + "1" * 5000, "bad_filter", "limit"),
        ("limit=-1", "bad_filter", "limit"),
        ("player=%00", "bad_filter", "player"),  # PostgreSQL text cannot hold NUL
        ("player=Ann%1B", "bad_filter", "player"),
        ("cursor=" + cursor_of(f"{TOO_LARGE}:abc"), "bad_cursor", None),
        ("cursor=" + cursor_of("9" * 5000 + ":abc"), "bad_cursor", None),
        ("cursor=" + cursor_of("²:abc"), "bad_cursor", None),
        ("cursor=" + cursor_of("12:a\x00b"), "bad_cursor", None),
    ],
)
async def test_archive_numbers_and_text_out_of_bounds_are_refused(
    clients: ClientFactory, query: str, code: str, field: str | None
) -> None:
    client = await clients()
    error = assert_refused(await client.get(f"/api/archive?{query}"), 422, code)
    assert error.get("field") == field


async def test_archive_bounds_themselves_are_accepted(clients: ClientFactory) -> None:
    client = await clients()
    largest = str((1 << 63) - 1)
    for query in (f"from={largest}", f"to={largest}", "limit=100", "from=0"):
        response = await client.get(f"/api/archive?{query}")
        assert response.status_code == 200, (query, response.text)
    paged = await client.get("/api/archive", params={"cursor": cursor_of(f"{largest}:abc")})
    assert paged.status_code == 200, paged.text


# --- option names that are parameter names (item 5) ---------------------------------------------


@pytest.mark.parametrize("name", ["slug", "self", "options", "more"])
async def test_an_option_named_like_a_parameter_is_an_unknown_option(
    clients: ClientFactory, app: FastAPI, name: str
) -> None:
    client = await clients("Ann")
    slug, options = quick_game()
    before = await table_counts(app)
    created = await client.post("/api/games", json={"game": slug, "options": {**options, name: 1}})
    assert assert_refused(created, 422, "bad_option")["field"] == f"options.{name}"
    replayed = await client.post(
        "/api/replay", json={"game": slug, "options": {name: 1}, "moves": []}
    )
    assert_refused(replayed, 422, "invalid_record")
    record = record_of(1)
    imported = await client.post(
        "/api/archive/import", json={**record, "options": {**record["options"], name: 1}}
    )
    assert assert_refused(imported, 422, "invalid_record")["ply"] is None
    assert await table_counts(app) == before


# --- a record's result of the wrong type (item 6) ------------------------------------------------


@pytest.mark.parametrize(
    "result",
    [
        {"winner": 1, "reason": []},
        {"winner": 1, "reason": {}},
        {"winner": [], "reason": "resignation"},
        {"winner": True, "reason": "resignation"},
        {"winner": 1.0, "reason": "resignation"},
        {"winner": "1", "reason": "resignation"},
        [],
        "resignation",
    ],
)
async def test_a_result_of_the_wrong_type_is_an_invalid_record(
    clients: ClientFactory, app: FastAPI, result: Any
) -> None:
    client = await clients("Ann")  # importing needs a chosen name
    before = await table_counts(app)
    imported = await client.post("/api/archive/import", json=record_of(2, 2, result=result))
    assert assert_refused(imported, 422, "invalid_record")["ply"] is None
    assert await table_counts(app) == before


async def test_a_record_holding_nul_text_is_refused_not_a_500(
    clients: ClientFactory, app: FastAPI
) -> None:
    """NUL is valid JSON text, but no field allows it (PostgreSQL's text cannot hold it): a record
    holding one is refused whole, in the one error shape, and nothing is stored (issue 26)."""
    client = await clients("Ann")
    before = await table_counts(app)
    result = {"winner": 2, "reason": "resignation", "colour": "\x00", "scores": None}
    imported = await client.post("/api/archive/import", json=record_of(3, 2, result=result))
    assert (imported.status_code, imported.json()["error"]["code"]) == (422, "bad_json")
    assert await table_counts(app) == before


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"game": "valaturna", "public": "yes"}, "invalid_request", "public"),
        ({"game": "valaturna", "public": 1}, "invalid_request", "public"),
        ({"game": "valaturna", "rated": 1}, "invalid_request", "rated"),
        ({"game": "valaturna", "takebacks": "no"}, "invalid_request", "takebacks"),
        ({"game": "valaturna", "options": {"size": "5"}}, "bad_option", None),
        ({"game": "valaturna", "options": {"size": 5.0}}, "bad_option", None),
        ({"game": "valaturna", "options": {"size": True}}, "bad_option", None),
    ],
)
async def test_a_field_of_the_wrong_type_is_refused_not_read(
    clients: ClientFactory, app: FastAPI, body: dict[str, Any], code: str, field: str | None
) -> None:
    """The protocol says a field of the wrong type is refused: never read as another value
    (``"yes"`` as true, ``"5"`` as 5), and nothing is made (issue 26)."""
    client = await clients("Ann")
    before = await table_counts(app)
    answer = await client.post("/api/games", json=body)
    assert answer.json()["error"]["code"] == code, answer.text
    if field is not None:
        assert field in answer.json()["error"]["message"], answer.text
    assert await table_counts(app) == before


# --- JSON nested too deeply, lone surrogates (items 7 and 10) ------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "code"),
    [
        ("/api/archive/import", b"[" * 100_000, "bad_json"),
        ("/api/replay", b"[" * 100_000, "bad_json"),
        ("/api/archive/import", b'{"format": "\\udfff"}', "bad_json"),
        ("/api/replay", b'{"game": "exxit", "moves": ["\\ud800"]}', "bad_json"),
        ("/api/games", b"[" * 8_000, "bad_json"),  # under the 8 KiB cap (100,000: 413)
        ("/api/games", b'{"game": "exxit", "options": {"\\udfff": 1}}', "invalid_request"),
        (
            "/api/games",
            b'{"game": "exxit", "options": {"variant": ' + b"[" * 40 + b"]" * 40 + b"}}",
            "invalid_request",
        ),
        ("/api/replay", b'{"game": "exxit", "moves": ' + b"[" * 40 + b"]" * 40 + b"}", "bad_json"),
        ("/api/archive/import", b"1" * 5000, "bad_json"),  # int() refuses over 4,300 digits
        ("/api/games", b'{"game": ' + b"1" * 5000 + b"}", "bad_json"),
    ],
)
async def test_bodies_too_deep_or_not_unicode_are_refused(
    clients: ClientFactory, app: FastAPI, path: str, body: bytes, code: str
) -> None:
    client = await clients("Ann")
    before = await table_counts(app)
    assert_refused(await client.post(path, content=body, headers=JSON), 422, code)
    assert await table_counts(app) == before


async def test_lone_surrogates_in_typed_bodies_change_nothing(
    clients: ClientFactory, app: FastAPI
) -> None:
    ann, bo = await clients("Ann"), await clients("Bo")
    slug, options = quick_game()
    waiting = await start_game(ann, None, slug, options)
    game = await start_game(ann, bo, slug, options)
    before = await rows_of(app.state.sessionmaker, game["id"])
    waiting_before = await rows_of(app.state.sessionmaker, waiting["id"])
    refused = [
        await ann.put("/api/me", content=b'{"name": "A\\udfff"}', headers=JSON),
        await bo.post(
            f"/api/games/{waiting['id']}/join", content=b'{"token": "\\udfff"}', headers=JSON
        ),
        await ann.post(
            f"/api/games/{game['id']}/moves",
            content=b'{"move": "x", "version": 3, "msg_id": "\\udfff"}',
            headers=JSON,
        ),
        await ann.post(
            f"/api/games/{game['id']}/resign",
            content=b'{"version": 3, "msg_id": "\\ud800x"}',
            headers=JSON,
        ),
    ]
    # A NUL in a message id: PostgreSQL text cannot hold it, and a stale move looks the id up.
    for msg_id in ("\x00", "m\x1f"):
        stale = await ann.post(
            f"/api/games/{game['id']}/moves", json={"move": "x", "version": 99, "msg_id": msg_id}
        )
        refused.append(stale)
    for response in refused:
        assert_refused(response, 422, "invalid_request")
    assert await rows_of(app.state.sessionmaker, game["id"]) == before
    assert await rows_of(app.state.sessionmaker, waiting["id"]) == waiting_before
    assert (await ann.get("/api/me")).json()["name"] == "Ann"


# --- tokens that are not ASCII (item 8) ----------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/api/games/{id}", "/games/{id}/record.json", "/api/games/{id}/steps"]
)
@pytest.mark.parametrize("token", ["é", "\u2603" * 40, "\x00"])
async def test_a_token_that_is_not_ascii_opens_no_private_game(
    clients: ClientFactory, path: str, token: str
) -> None:
    ann, eve = await clients("Ann"), await clients()
    slug, options = quick_game()
    created = await ann.post("/api/games", json={"game": slug, "options": options, "public": False})
    assert created.status_code == 201, created.text
    url = path.format(id=created.json()["id"])
    assert_refused(await eve.get(url, params={"token": token}), 404, "game_not_found")


# --- names whose lower-case key is longer than the name (item 9) ---------------------------------


async def test_a_name_whose_key_does_not_fit_is_refused_and_the_visitor_still_plays(
    clients: ClientFactory, app: FastAPI
) -> None:
    slug, options = quick_game()
    client = await clients()
    for name in ("İ" * 24, "İ" * 13, "Ann" + "İ" * 11):
        assert (
            assert_refused(await client.put("/api/me", json={"name": name}), 422, "bad_name")[
                "field"
            ]
            == "name"
        )
    assert (await client.get("/api/me")).json()["named"] is False
    created = await client.post("/api/games", json={"game": slug, "options": options})
    assert created.status_code == 201, created.text
    # The longest name that fits (12 times "İ" lower-cases to 24 characters) plays and is found.
    fits = "İ" * 12
    assert (await client.put("/api/me", json={"name": fits})).status_code == 200
    other = await clients("Bo")
    game = await start_game(client, other, slug, options)
    resigned = await client.post(f"/api/games/{game['id']}/resign", json={"msg_id": "r"})
    assert resigned.status_code == 200, resigned.text
    found = await client.get("/api/archive", params={"player": fits})
    assert [g["id"] for g in found.json()["games"]] == [game["id"]]
    record = record_of(4, players=[{"seat": 1, "name": "İ" * 24}, {"seat": 2, "name": "Bo"}])
    imported = await client.post("/api/archive/import", json=record)
    assert assert_refused(imported, 422, "invalid_record")["ply"] is None


# --- the game socket (item 10) --------------------------------------------------------------------


async def _ping(socket: GameSocket) -> None:
    await socket.send({"type": "ping"})
    assert (await socket.expect("pong", "error"))["type"] == "pong"


async def test_bad_socket_messages_are_answered_and_the_socket_stays_usable(
    server: LiveServer,
) -> None:
    ann = await TestVisitor(server.url).start("Ann")
    bo = await TestVisitor(server.url).start("Bo")
    try:
        slug, options = quick_game()
        created = await ann.http.post(
            "/api/games", json={"game": slug, "options": options, "seat": 1}
        )
        game_id = created.json()["id"]
        joined = await bo.http.post(
            f"/api/games/{game_id}/join", json={"token": created.json()["join_token"]}
        )
        assert joined.status_code == 200, joined.text
        socket = await ann.open(game_id)
        await socket.expect("snapshot")
        cases = [
            ('{"type": "ping", "msg_id": "\\udfff"}', "bad_message"),
            ('{"type": "move", "move": "a", "version": 3, "msg_id": "\\udfff"}', "bad_message"),
            ('{"type": "steps", "prefix": ["\\ud800"], "msg_id": "s"}', "bad_message"),
            ('{"type": "resign", "version": 99, "msg_id": "\\u0000"}', "bad_message"),
            # The table's messages (issue 17): malformed, then well formed but refused.
            ('{"type": "offer", "kind": "surrender"}', "bad_message"),
            ('{"type": "offer", "kind": "draw", "extra": 1}', "bad_message"),
            ('{"type": "answer", "kind": "draw", "accept": "yes"}', "bad_message"),
            ('{"type": "answer", "kind": "draw", "accept": true}', "no_offer"),
            ('{"type": "chat", "text": 5}', "bad_message"),
            ('{"type": "chat", "text": "  "}', "bad_chat"),
            ('{"type": "chat", "text": "\\u0007"}', "bad_chat"),
            ('{"type": "offer", "kind": "rematch"}', "game_not_over"),
            ('{"type": "offer", "kind": "takeback"}', "nothing_to_take_back"),
            ('{"type": "claim"}', "cannot_claim"),
            ("[" * 2000 + "]" * 2000, "bad_json"),  # RecursionError in json.loads
            ('{"type": "ping", "x": ' + "[" * 40 + "]" * 40 + "}", "bad_json"),  # parsed, too deep
            (
                '{"type": "move", "move": "a", "msg_id": "m", "version": ' + "9" * 5000 + "}",
                "bad_json",
            ),
        ]
        for text, code in cases:
            await socket.send(text)
            error = await socket.expect("error")
            assert error["code"] == code, (text[:60], error)
            await _ping(socket)
        state = (await ann.http.get(f"/api/games/{game_id}")).json()
        assert state["version"] == 2 and state["game"]["moves"] == []
    finally:
        await ann.close()
        await bo.close()


@pytest.mark.parametrize("since", ["%C2%B2", "9" * 5000, TOO_LARGE, "-1", "1e3"])
async def test_a_since_that_is_no_version_gets_a_snapshot(server: LiveServer, since: str) -> None:
    ann = await TestVisitor(server.url).start("Ann")
    try:
        slug, options = quick_game()
        created = await ann.http.post("/api/games", json={"game": slug, "options": options})
        game_id = created.json()["id"]
        url = f"{server.ws_url}/ws/games/{game_id}?since={since}"
        async with websockets.connect(url, additional_headers={"Cookie": ann.cookie}) as raw:
            socket = GameSocket(raw)
            assert (await socket.recv())["type"] == "snapshot"
            await _ping(socket)
    finally:
        await ann.close()


async def test_a_token_that_is_not_ascii_opens_no_private_game_socket(server: LiveServer) -> None:
    ann = await TestVisitor(server.url).start("Ann")
    try:
        slug, options = quick_game()
        created = await ann.http.post(
            "/api/games", json={"game": slug, "options": options, "public": False}
        )
        game_id = created.json()["id"]
        url = f"{server.ws_url}/ws/games/{game_id}?token=%C3%A9"
        async with websockets.connect(url) as raw:
            message = json.loads(await raw.recv())
            assert message["type"] == "error" and message["code"] == "game_not_found"
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await raw.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404
    finally:
        await ann.close()


class _RecordingSocket:
    """Stands in for ``app.routes.ws.transport.Socket``: hands out ``messages``, keeps what is sent."""

    def __init__(self, messages: list[Any]) -> None:
        self.messages = messages
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> Any:
        return self.messages.pop(0) if self.messages else None

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    async def error(self, exc: Any, msg_id: str | None = None) -> None:
        self.sent.append({"type": "error", **exc.to_json(), "msg_id": msg_id})


async def test_a_failure_while_answering_is_logged_and_the_reader_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class BrokenReading:
        async def steps(self, *_args: Any) -> Any:
            raise RuntimeError("a bug")

    class Broken:
        reading = BrokenReading()

    messages = [
        CLIENT_MESSAGE.validate_python({"type": "steps", "prefix": [], "msg_id": "s1"}),
        CLIENT_MESSAGE.validate_python({"type": "ping"}),
    ]
    socket = _RecordingSocket(messages)
    with caplog.at_level(logging.ERROR, logger="hexmoot"):
        await _game_reader(
            cast(Any, socket), cast(Any, Broken()), "g", Visitor("v" * 32, "Ann"), None
        )
    assert [(m["type"], m.get("code"), m.get("msg_id")) for m in socket.sent] == [
        ("error", "internal_error", "s1"),
        ("pong", None, None),
    ]
    failure = next(r for r in caplog.records if r.name == "hexmoot")
    assert failure.exc_info is not None and "a bug" in str(failure.exc_info[1])
