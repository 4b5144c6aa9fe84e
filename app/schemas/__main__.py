"""``python -m app.schemas [DIR]``: write the protocol's JSON Schemas (default ``docs/``).

``view.schema.json`` is the view every game's rules emit; ``messages.schema.json`` holds the
websocket messages both ways. ``tests/app/test_schemas.py`` fails when a file is out of date.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from app.schemas.messages import ClientMessage, ServerMessage
from app.schemas.view import View

DOCS = Path(__file__).resolve().parents[2] / "docs"


def view_schema() -> dict[str, Any]:
    """The JSON Schema of a view."""
    schema = TypeAdapter(View).json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def messages_schema() -> dict[str, Any]:
    """The JSON Schema of the websocket messages: ``client`` and ``server`` unions under ``$defs``."""
    client = TypeAdapter(ClientMessage).json_schema(ref_template="#/$defs/{model}")
    server = TypeAdapter(ServerMessage).json_schema(ref_template="#/$defs/{model}")
    defs = {**client.pop("$defs", {}), **server.pop("$defs", {})}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Hexmoot websocket messages",
        "anyOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": {"ClientMessage": client, "ServerMessage": server, **dict(sorted(defs.items()))},
    }


def render(schema: dict[str, Any]) -> str:
    """The file's text: stable key order, two-space indents, a final newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


FILES = {"view.schema.json": view_schema, "messages.schema.json": messages_schema}


def main(argv: list[str]) -> None:
    """Write every schema file into the directory given, or ``docs/``."""
    target = Path(argv[0]) if argv else DOCS
    for name, build in FILES.items():
        (target / name).write_text(render(build()), encoding="utf-8")
        print(f"wrote {target / name}")


if __name__ == "__main__":
    main(sys.argv[1:])
