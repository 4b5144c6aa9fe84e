"""The contract check (issue 26): every HTTP answer and websocket message the app tests receive is
validated against the model ``docs/protocol.md`` documents for it, with every object closed.

The sources of truth are the ones clients read: the OpenAPI document the app serves (each
operation's answers, per status code, the errors in the one error shape included) and the JSON
Schema of the websocket messages (``python -m app.schemas``, ``docs/messages.schema.json``). Both
are validated as JSON Schema (``jsonschema_rs``) after :func:`closed` has made every object that
lists its properties refuse any other key: "the server sends the keys documented here and no
others" holds even where a model would let an extra key through.

An HTTP answer fails the check when its status is not among its operation's documented ones, when
its content type is not the documented one, or when its body does not fit the status's schema. A
path no operation matches (static files, ``/openapi.json``, an unknown path) is the protocol's only
as far as its errors go: a JSON error there must be the one shape; a documented path asked with a
method it does not take must answer 405 in that shape.

Tests route their clients through it: :func:`checked` hooks an httpx client, :func:`checked_session`
a requests session, :func:`check_prepared` checks an answer that schemathesis got, and
``tests/support/wsclient`` checks each message a :class:`GameSocket` receives. :data:`COUNTS` counts what was checked.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import jsonschema_rs
import requests

#: What this process checked: ``http`` answers and ``ws`` messages.
COUNTS: Counter[str] = Counter()
#: What the error answers of a path outside the document are checked against.
ERROR_OUT = {"$ref": "#/components/schemas/ErrorOut"}
#: Paths that answer JSON whatever happens (``docs/protocol.md``, Conventions).
JSON_PATHS = ("/api/", "/ws/", "/healthz", "/openapi.json")


class ContractError(AssertionError):
    """An answer or a message that the documented contract does not allow."""


def closed(schema: Any) -> Any:
    """A copy of ``schema`` in which every object schema that lists ``properties`` and says
    nothing of other keys refuses them (``additionalProperties: false``)."""
    if isinstance(schema, list):
        return [closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    copied = {key: closed(value) for key, value in schema.items()}
    if "properties" in copied and "additionalProperties" not in copied:
        copied["additionalProperties"] = False
    return copied


@dataclass
class Operation:
    """One documented operation: its method, path template and answers per status."""

    method: str
    template: str
    responses: dict[str, Any]
    pattern: re.Pattern[str] = field(init=False)

    def __post_init__(self) -> None:
        parts = re.split(r"(\{[^}]+\})", self.template)
        regex = "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts if p)
        self.pattern = re.compile(regex)


class Contract:
    """The protocol's answers and messages, closed, as validators built on first use."""

    def __init__(self, openapi: dict[str, Any], messages: dict[str, Any]) -> None:
        self.document = closed(copy.deepcopy(openapi))
        self.components = self.document.get("components", {})
        operations = [
            Operation(method.upper(), template, operation.get("responses", {}))
            for template, methods in self.document.get("paths", {}).items()
            for method, operation in methods.items()
        ]
        # A literal segment wins over a parameter, as it does in the app (/api/games/open).
        self.operations = sorted(operations, key=lambda o: o.template.count("{"))
        defs = closed(copy.deepcopy(messages))["$defs"]
        self.messages = jsonschema_rs.Draft202012Validator(
            {"$ref": "#/$defs/ServerMessage", "$defs": defs}
        )
        # Each type's own model, for a precise report (the union only says "none of them").
        mapping = defs["ServerMessage"]["discriminator"]["mapping"]
        self.message_types = {
            kind: jsonschema_rs.Draft202012Validator({"$ref": ref, "$defs": defs})
            for kind, ref in mapping.items()
        }
        self._validators: dict[str, jsonschema_rs.Draft202012Validator] = {}

    def operation(self, method: str, path: str) -> tuple[Operation | None, bool]:
        """The operation answering ``method`` on ``path`` (HEAD as GET), and whether any
        operation's template matches ``path`` at all."""
        method = "GET" if method == "HEAD" else method
        matching = [o for o in self.operations if o.pattern.fullmatch(path)]
        return next((o for o in matching if o.method == method), None), bool(matching)

    def _validator(self, schema: dict[str, Any]) -> jsonschema_rs.Draft202012Validator:
        key = json.dumps(schema, sort_keys=True)
        if key not in self._validators:
            root = {**schema, "components": self.components}
            self._validators[key] = jsonschema_rs.Draft202012Validator(root)
        return self._validators[key]

    def check_http(
        self, method: str, path: str, status: int, content_type: str, body: bytes
    ) -> None:
        """Refuse an HTTP answer that its operation does not document (:class:`ContractError`)."""
        COUNTS["http"] += 1
        where = f"{method} {path} -> {status}"
        operation, path_known = self.operation(method, path)
        if operation is None:
            if path_known:
                where += " (a method the path does not take)"
                if status != 405:
                    raise ContractError(f"{where}: expected 405")
            # The protocol's paths always answer JSON; elsewhere, a JSON error is the one shape.
            if status >= 400 and (path.startswith(JSON_PATHS) or "json" in content_type):
                self._check_json(where, ERROR_OUT, body)
            return
        answer = operation.responses.get(str(status))
        if answer is None:
            documented = ", ".join(sorted(operation.responses))
            raise ContractError(
                f"{where}: status {status} is not documented for {operation.method} "
                f"{operation.template} (only {documented}): {body[:300]!r}"
            )
        content = answer.get("content") or {}
        if not content:
            if body and method != "HEAD":
                raise ContractError(f"{where}: documented without a body, got {body[:300]!r}")
            return
        media = content_type.split(";", 1)[0].strip()
        if media not in content:
            raise ContractError(f"{where}: content type {media!r}, documented {sorted(content)}")
        schema = content[media].get("schema")
        if media == "application/json" and schema is not None and method != "HEAD":
            self._check_json(where, schema, body)

    def _check_json(self, where: str, schema: dict[str, Any], body: bytes) -> None:
        try:
            value = json.loads(body)
        except ValueError as exc:
            raise ContractError(f"{where}: no JSON ({exc}): {body[:300]!r}") from exc
        self._validate(self._validator(schema), value, where)

    def check_message(self, message: Any, where: str = "websocket") -> None:
        """Refuse a websocket message that is not one of the server's documented messages."""
        COUNTS["ws"] += 1
        kind = message.get("type") if isinstance(message, dict) else None
        validator = self.message_types.get(kind, self.messages) if isinstance(kind, str) else None
        self._validate(validator or self.messages, message, f"{where} ({kind})")

    @staticmethod
    def _validate(validator: jsonschema_rs.Draft202012Validator, value: Any, where: str) -> None:
        try:
            errors = list(validator.iter_errors(value))
        except ValueError as exc:  # a value jsonschema_rs cannot read (a lone surrogate)
            raise ContractError(f"{where}: {exc}: {value!r:.300}") from exc
        if errors:
            found = "; ".join(
                f"at /{'/'.join(map(str, e.instance_path))}: {e.message}" for e in errors[:5]
            )
            raise ContractError(f"{where}: {found}\nin {json.dumps(value)[:600]}")


@functools.cache
def contract() -> Contract:
    """The contract of the code under test: the app's own OpenAPI document and message schema."""
    from app.config import Settings
    from app.main import create_app
    from app.schemas.__main__ import messages_schema

    app = create_app(Settings(database_url="sqlite+aiosqlite://", secret_key="contract" * 4))
    return Contract(app.openapi(), messages_schema())


async def check_httpx(response: httpx.Response) -> None:
    """httpx's response hook: read the answer and check it."""
    await response.aread()
    request = response.request
    contract().check_http(
        request.method,
        request.url.path,
        response.status_code,
        response.headers.get("content-type", ""),
        response.content,
    )


def checked(client: httpx.AsyncClient) -> httpx.AsyncClient:
    """``client``, every answer of which is checked against the contract."""
    client.event_hooks["response"] = [*client.event_hooks["response"], check_httpx]
    return client


def check_requests(response: requests.Response, *_args: Any, **_kwargs: Any) -> None:
    """requests' response hook: check the answer."""
    check_prepared(
        response.request,
        response.status_code,
        response.headers.get("content-type", ""),
        response.content,
    )


def check_prepared(
    request: requests.PreparedRequest, status: int, content_type: str, content: bytes
) -> None:
    """Check the answer to a request made by requests (or by schemathesis, which uses it)."""
    contract().check_http(
        str(request.method), unquote(urlsplit(str(request.url)).path), status, content_type, content
    )


def checked_session(session: requests.Session | None = None) -> requests.Session:
    """A requests session (``session``, or a new one) whose answers are checked."""
    session = session if session is not None else requests.Session()
    session.hooks["response"].append(check_requests)
    return session
