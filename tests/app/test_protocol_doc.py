"""``docs/protocol.md`` agrees with the code: its examples, its message lists, its routes and errors.

Every JSON example in the document is fenced as `` ```json Model`` and validated against that model
of ``app.schemas``. An example may abbreviate: an object with a ``"..."`` key stands for an object
whose other keys are left out, and the text ``"..."`` in a list for more items; only what is
written is checked.
"""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute, APIWebSocketRoute
from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import is_typeddict

from app.config import Settings
from app.errors import STATUS, ErrorCode
from app.main import create_app
from app.routes import api, health, pages, replay, ws
from app.schemas import messages, requests, responses, view
from app.schemas.messages import CLIENT_MESSAGE, ClientMessage, ServerMessage

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
TEXT = PROTOCOL.read_text(encoding="utf-8")
ELIDED = "..."


def schema_models() -> dict[str, Any]:
    """Every model and TypedDict of the protocol, by name."""
    found: dict[str, Any] = {}
    for module in (requests, responses, messages, view):
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


def test_every_route_is_documented_and_every_documented_route_exists() -> None:
    served = set()
    for router in (api.router, health.router, pages.router, replay.router, ws.router):
        for route in router.routes:
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
    assert stale["message"] == f"the game is at version {event['version']}, not {sent['version']}"
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
