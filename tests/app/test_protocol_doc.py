"""``docs/protocol.md`` agrees with the code: its examples, its message lists, its routes and errors.

Every JSON example in the document is fenced as `` ```json Model`` and validated against that model
of ``app.schemas``. An example may abbreviate: an object with a ``"..."`` key stands for an object
whose other keys are left out, and the text ``"..."`` in a list for more items; only what is
written is checked.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute, APIWebSocketRoute
from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import is_typeddict

from app import routes as app_routes
from app import schemas
from app.config import Settings
from app.errors import STATUS, ErrorCode
from app.main import create_app
from app.openapi import BAD_REQUEST
from app.schemas.messages import CLIENT_MESSAGE, ClientMessage, ServerMessage
from app.security import UNSAFE_METHODS
from tests.support.gameplay import MovePicker, quick_game
from tests.support.server import LiveServer
from tests.support.wsclient import GameSocket, TestVisitor

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
TEXT = PROTOCOL.read_text(encoding="utf-8")
ELIDED = "..."


def schema_models() -> dict[str, Any]:
    """Every model and TypedDict of the protocol, by name."""
    found: dict[str, Any] = {}
    modules = [
        importlib.import_module(f"app.schemas.{info.name}")
        for info in pkgutil.iter_modules(schemas.__path__)
        if not info.name.startswith("_")
    ]
    for module in modules:
        for name, obj in vars(module).items():
            if isinstance(obj, type) and (
                (issubclass(obj, BaseModel) and obj.__module__ == module.__name__)
                or is_typeddict(obj)
            ):
                found[name] = obj
    return found


MODELS = schema_models()
EXAMPLES = re.findall(r"^```json(?: (\w+))?\n(.*?)^```", TEXT, re.MULTILINE | re.DOTALL)


def _abbreviated(value: object) -> bool:
    return value == ELIDED or (isinstance(value, dict) and ELIDED in value)


def unchecked(error: Any) -> bool:
    """Whether a validation error only concerns what an example chose to leave out."""
    if error["type"] == "extra_forbidden" and error["loc"][-1] == ELIDED:
        return True
    return _abbreviated(error.get("input"))


def test_every_example_names_a_model() -> None:
    assert len(EXAMPLES) > 20
    unnamed = [body[:60] for name, body in EXAMPLES if not name]
    assert not unnamed, f"json examples without a model name: {unnamed}"
    unknown = sorted({name for name, _ in EXAMPLES if name not in MODELS})
    assert not unknown, f"examples name no model of app.schemas: {unknown}"


@pytest.mark.parametrize(
    ("model", "body"), EXAMPLES, ids=[f"{i}-{name}" for i, (name, _) in enumerate(EXAMPLES)]
)
def test_every_example_fits_its_model(model: str, body: str) -> None:
    example = json.loads(body)
    try:
        TypeAdapter(MODELS[model]).validate_python(example)
    except ValidationError as exc:
        real = [e for e in exc.errors() if not unchecked(e)]
        assert not real, f"{model} example disagrees with the code: {real}"


def _union_members(union: Any) -> list[type[BaseModel]]:
    members = typing.get_args(typing.get_args(union)[0])
    return [m for m in members if issubclass(m, BaseModel)]


def test_every_server_message_has_an_example() -> None:
    shown = {name for name, _ in EXAMPLES}
    missing = [m.__name__ for m in _union_members(ServerMessage) if m.__name__ not in shown]
    assert not missing, f"server messages with no example in docs/protocol.md: {missing}"


def test_the_client_message_table_is_the_union() -> None:
    section = TEXT.split("### Client → server\n", 1)[1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| `(\{.*?\})` \|", section, re.MULTILINE)
    types = set()
    for row in rows:
        message = CLIENT_MESSAGE.validate_python(json.loads(row))
        types.add(message.type)
    union = {
        typing.get_args(m.model_fields["type"].annotation)[0] for m in _union_members(ClientMessage)
    }
    assert types == union


@pytest.fixture(scope="module")
def app() -> FastAPI:
    """The app's routes only: its lifespan (database, hub) is not needed to read them."""
    return create_app(Settings(database_url="sqlite+aiosqlite://", secret_key="x" * 32))


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)


def route_sections() -> dict[tuple[str, str], str]:
    """``(METHOD, path shape)`` -> the text of each route's section of the document."""
    parts = re.split(r"^#{2,3} ", TEXT, flags=re.MULTILINE)
    sections = {}
    for part in parts:
        match = re.match(r"(?:.*?)`(GET|POST|PUT|DELETE|WS) (/[^`?\s]*)", part.split("\n", 1)[0])
        if match:
            sections[(match.group(1), _shape(match.group(2)))] = part
    return sections


def _routers() -> list[APIRouter]:
    """The router of every module of ``app.routes``."""
    found = []
    for info in pkgutil.iter_modules(app_routes.__path__):
        module = importlib.import_module(f"app.routes.{info.name}")
        if isinstance(getattr(module, "router", None), APIRouter):
            found.append(module.router)
    return found


def test_every_route_is_documented_and_every_documented_route_exists() -> None:
    """Every JSON route and socket of every module of ``app.routes``."""
    served = set()
    for route in (route for router in _routers() for route in router.routes):
        if isinstance(route, APIRoute) and route.response_class is not HTMLResponse:
            served |= {(m, _shape(route.path)) for m in route.methods}
        elif isinstance(route, APIWebSocketRoute):
            served.add(("WS", _shape(route.path)))
    assert ("GET", "/api/games/{}") in served and ("WS", "/ws/live") in served
    assert set(route_sections()) == served


def test_each_route_documents_the_error_statuses_it_answers(app: FastAPI) -> None:
    """The codes a route's section names have exactly the statuses its OpenAPI entry lists."""
    openapi = app.openapi()
    for (method, shape), text in route_sections().items():
        if method == "WS":
            continue
        path = next(p for p in openapi["paths"] if _shape(p) == shape)
        answers = openapi["paths"][path][method.lower()]["responses"]
        listed = {
            int(status) for status, answer in answers.items() if "ErrorOut" in json.dumps(answer)
        }
        named = re.findall(r"`([a-z_]+)`", text)
        documented = {STATUS[ErrorCode(c)] for c in named if c in ErrorCode.__members__.values()}
        if method in UNSAFE_METHODS:  # bad_origin: named once, in the security section
            documented.add(STATUS[ErrorCode.BAD_ORIGIN])
        if answers.get("400") == BAD_REQUEST:  # a body not UTF-8: named once, in the conventions
            documented.add(STATUS[ErrorCode.BAD_REQUEST])
        if path != "/healthz":  # unavailable: named once, in "The database out of reach"
            documented.add(STATUS[ErrorCode.UNAVAILABLE])
        assert documented == listed, (method, shape)


# --- the examples tell one real game ----------------------------------------------------------


def example(model: str) -> Any:
    """The one example of ``model``."""
    bodies = [json.loads(body) for name, body in EXAMPLES if name == model]
    assert len(bodies) == 1, model
    return bodies[0]


def test_the_examples_use_real_versions() -> None:
    """While a game is played the move at ply p is version p + 2 (creation 1, join 2): every
    example that shows a move, an ack or a live entry agrees, and the socket's examples tell one
    story (snapshot, the move sent, its event, its ack, a stale resend, a catch-up)."""
    event = example("EventMsg")
    assert event["version"] == event["data"]["ply"] + 2
    assert event["state"]["ply_count"] == event["data"]["ply"]
    ack_out = example("AckOut")
    assert ack_out["version"] == ack_out["ply"] + 2
    entry = example("LiveOut")["games"][0]
    assert entry["version"] == entry["moves"] + 2
    catchup = example("CatchupMsg")
    versions = [e["version"] for e in catchup["events"]]
    assert versions == list(range(catchup["since"] + 1, catchup["version"] + 1))
    for e in catchup["events"]:
        assert e["version"] == e["data"]["ply"] + 2
    assert catchup["events"][-1]["data"] == event["data"]
    assert catchup["state"]["ply_count"] == event["data"]["ply"]
    snapshot = example("SnapshotMsg")
    sent = json.loads(re.findall(r'^\| `(\{"type": "move".*?\})` \|', TEXT, re.MULTILINE)[0])
    assert sent["version"] == snapshot["version"] == event["version"] - 1
    assert sent["move"] == event["data"]["move"]
    assert example("AckMsg")["version"] == event["version"]
    assert example("StepsAnswerMsg")["version"] == snapshot["version"]
    stale = example("ErrorMsg")
    assert stale["version"] == event["version"]
    assert stale["message"] == f"The game is at version {event['version']}, not {sent['version']}"
    # The route headings' bodies agree with their answers too.
    heading = re.search(r"`POST /api/games/\{id\}/moves` `(\{.*?\})`", TEXT)
    assert heading is not None
    body = json.loads(heading.group(1))
    assert (body["version"], body["move"]) == (ack_out["version"] - 1, ack_out["move"])


def test_the_client_message_table_says_which_fields_are_optional() -> None:
    """Each row names every field of its message as required or optional, as the model has it."""
    section = TEXT.split("### Client → server\n", 1)[1].split("\n### ", 1)[0]
    for row, fields in re.findall(r"^\| `(\{.*?\})` \| (.*) \|$", section, re.MULTILINE):
        message = CLIENT_MESSAGE.validate_python(json.loads(row))
        model = type(message).model_fields
        stated = dict(re.findall(r"`(\w+)` (required|optional)", fields))
        expected = {
            name: "required" if info.is_required() else "optional"
            for name, info in model.items()
            if name != "type"
        }
        assert stated == expected, (message.type, stated, expected)


# --- what the document says, against a real server (SQLite and PostgreSQL) -------------------

#: Over HTTP a malformed body is ``invalid_request`` where a socket says ``bad_message``.
HTTP_TWIN_CODE = {"bad_message": "invalid_request"}


async def over_http(visitor: TestVisitor, game_id: str, message: dict[str, Any]) -> Any:
    """The HTTP twin of a socket message: its response."""
    body = {k: v for k, v in message.items() if k != "type"}
    base = f"/api/games/{game_id}"
    if message["type"] == "move":
        return await visitor.http.post(f"{base}/moves", json=body)
    if message["type"] == "resign":
        return await visitor.http.post(f"{base}/resign", json=body)
    assert message["type"] == "steps"
    return await visitor.http.get(f"{base}/steps", params={"prefix": message["prefix"]})


async def over_socket(socket: GameSocket, message: dict[str, Any]) -> dict[str, Any]:
    await socket.send(message)
    return await socket.expect("error", "ack", "steps")


async def test_every_socket_error_has_its_http_twin(server: LiveServer) -> None:
    """Each refusal of a socket's ``move``, ``resign`` or ``steps`` is the same ``code`` over
    HTTP, with the status the error table gives it."""
    ann, bo, carl = [await TestVisitor(server.url).start(n) for n in ("Ann", "Bo", "Carl")]
    slug, options = quick_game()
    try:
        game_id, token = await created(ann, slug, options)
        joined = await bo.http.post(f"/api/games/{game_id}/join", json={"token": token})
        assert joined.status_code == 200
        waiting_id, _ = await created(ann, slug, options)
        picker = MovePicker(slug, options, seed=5)
        first = picker.pick()
        other = next(t for t in (picker.pick() for _ in range(100)) if t != first)
        picker.play(first)
        assert (await over_http(ann, game_id, move(first, 2, "m0"))).status_code == 200
        sockets = {who: await who.open(game_id) for who in (ann, bo, carl)}
        waiting = await ann.open(waiting_id)
        for socket in (*sockets.values(), waiting):
            await socket.expect("snapshot")
        legal = picker.pick()
        cases: list[tuple[TestVisitor, str, dict[str, Any], str]] = [
            (carl, game_id, move(legal, 3, "c1"), "not_a_player"),
            (carl, game_id, {"type": "resign", "version": 3, "msg_id": "c2"}, "not_a_player"),
            (ann, game_id, move(legal, 3, "a1"), "not_your_turn"),
            (bo, game_id, move("@@", 3, "b1"), "invalid_move"),
            (bo, game_id, move(legal, 2, "b2"), "stale_version"),
            (ann, game_id, move(other, 2, "m0"), "msg_id_reused"),
            (ann, game_id, {"type": "resign", "msg_id": "m0"}, "msg_id_reused"),
            (bo, game_id, {"type": "steps", "prefix": ["nowhere"]}, "illegal_steps"),
            (bo, game_id, {**move(legal, 3, "b3"), "colour": "red"}, "bad_message"),
            (bo, game_id, {"type": "move", "move": legal, "msg_id": "b4"}, "bad_message"),
            (ann, waiting_id, move(legal, 1, "w1"), "not_started"),
            (ann, waiting_id, {"type": "resign", "msg_id": "w2"}, "not_started"),
        ]
        illegal = picker.illegal()
        if illegal is not None:
            cases.append((bo, game_id, move(illegal, 3, "b5"), "illegal_move"))
        for who, target, message, code in cases:
            socket = sockets[who] if target == game_id else waiting
            answer = await over_socket(socket, message)
            assert answer["type"] == "error" and answer["code"] == code, (message, answer)
            response = await over_http(who, target, message)
            twin = HTTP_TWIN_CODE.get(code, code)
            assert response.json()["error"]["code"] == twin, (message, response.text)
            assert response.status_code == STATUS[ErrorCode(twin)], (message, response.text)
        # A game that is over, and one that does not exist.
        resigned = await over_http(bo, game_id, {"type": "resign", "msg_id": "b6"})
        assert resigned.status_code == 200
        late = move(legal, resigned.json()["version"], "b7")
        assert (await over_socket(sockets[bo], late))["code"] == "game_over"
        response = await over_http(bo, game_id, late)
        assert (response.status_code, response.json()["error"]["code"]) == (409, "game_over")
        # A private game is refused to a stranger as if it did not exist, on both.
        hidden = await ann.http.post(
            "/api/games", json={"game": slug, "options": options, "seat": 1, "public": False}
        )
        hidden_id = hidden.json()["id"]
        stranger = await carl.open(hidden_id)
        assert (await stranger.expect("error"))["code"] == "game_not_found"
        for message in (move(first, 1, "h1"), {"type": "resign", "msg_id": "h2"}):
            response = await over_http(carl, hidden_id, message)
            assert (response.status_code, response.json()["error"]["code"]) == (
                404,
                "game_not_found",
            ), message
        nowhere = await ann.open("Nowhere1234")
        assert (await nowhere.expect("error"))["code"] == "game_not_found"
        response = await over_http(ann, "Nowhere1234", move(legal, 2, "x"))
        assert (response.status_code, response.json()["error"]["code"]) == (404, "game_not_found")
    finally:
        for visitor in (ann, bo, carl):
            await visitor.close()


async def test_versions_frames_and_optional_fields_are_as_documented(server: LiveServer) -> None:
    """The move at ply p is version p + 2 (in acks, events and the live list); a binary frame is
    read as text, one that is not UTF-8 is ``bad_json``; optional fields may be ``null``."""
    ann, bo = [await TestVisitor(server.url).start(n) for n in ("Ann", "Bo")]
    slug, options = quick_game()
    try:
        game_id, token = await created(ann, slug, options)
        assert (await bo.http.post(f"/api/games/{game_id}/join", json={"token": token})).is_success
        sockets = {1: await ann.open(game_id), 2: await bo.open(game_id)}
        for socket in sockets.values():
            assert (await socket.expect("snapshot"))["version"] == 2
        picker = MovePicker(slug, options, seed=7)
        version = 2
        for ply in range(1, 5):
            seat = picker.to_move()
            assert seat is not None
            text = picker.pick()
            ack = await over_socket(sockets[seat], move(text, version, f"p{ply}"))
            assert ack["type"] == "ack" and ack["version"] == ply + 2, ack
            picker.play(text)
            version = ack["version"]
        for socket in sockets.values():
            while len(socket.events()) < 4:
                await socket.expect("event")
            assert [(e["version"], e["data"]["ply"]) for e in socket.events()] == [
                (ply + 2, ply) for ply in range(1, 5)
            ]
        live = (await ann.http.get("/api/live")).json()["games"]
        entry = next(g for g in live if g["id"] == game_id)
        assert entry["version"] == entry["moves"] + 2 == 6
        socket = sockets[1]
        await socket.connection.send(b'{"type": "ping"}')
        assert (await socket.expect("pong", "error"))["type"] == "pong"
        await socket.connection.send(b"\xff\xfe{}")
        assert (await socket.expect("pong", "error"))["code"] == "bad_json"
        steps = await over_socket(socket, {"type": "steps", "prefix": [], "msg_id": None})
        assert steps["type"] == "steps" and steps["msg_id"] is None
        await socket.send({"type": "ping", "msg_id": None})
        assert (await socket.expect("pong", "error"))["type"] == "pong"
        seat = picker.to_move()
        assert seat is not None
        resign = {"type": "resign", "version": None, "msg_id": "r1"}
        ended = await over_socket(sockets[seat], resign)
        assert ended["type"] == "ack" and ended["version"] == version + 2
    finally:
        await ann.close()
        await bo.close()


async def created(visitor: TestVisitor, slug: str, options: dict[str, Any]) -> tuple[str, str]:
    response = await visitor.http.post(
        "/api/games", json={"game": slug, "options": options, "seat": 1}
    )
    assert response.status_code == 201, response.text
    return response.json()["id"], response.json()["join_token"]


def move(text: str, version: int, msg_id: str) -> dict[str, Any]:
    return {"type": "move", "move": text, "version": version, "msg_id": msg_id}


def test_each_route_gives_its_errors_the_status_of_the_table() -> None:
    """In every "Errors:" list, each code follows the HTTP status the error table gives it."""
    codes = {code.value for code in ErrorCode}
    lists = re.findall(r"Errors: (.*?)(?:\n\n|\n#)", TEXT, re.DOTALL)
    assert len(lists) >= 8
    for text in lists:
        status = None
        for number, code in re.findall(r"\b(\d{3})\b|`([a-z_]+)`", text):
            if number:
                status = int(number)
            elif code in codes:
                assert status == STATUS[ErrorCode(code)], (code, status, text[:60])
