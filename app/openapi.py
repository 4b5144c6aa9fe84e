"""OpenAPI links: how one answer's values feed the next request (``install(app)``).

FastAPI's generated document describes each route alone. The links added here say that the ``id`` and
``join_token`` of a created game open its snapshot, join, moves, resignation, steps and record; that
``steps`` names the moves that may follow; that an imported record's ``id`` opens its snapshot. A
client generator reads them, and so does the property-based fuzzer (schemathesis's stateful phase,
``tests/app/test_fuzz_http.py``), which is how its random sequences reach real games.

The document also names the values the server accepts where the models cannot say it: the installed
games' slugs and the seats a creator may ask for; and it lists the refusals no route states: on
every operation that changes something, the 403 ``bad_origin`` that ``app/security.py`` answers
before any route runs; on every one whose body the framework reads, the 400 ``bad_request`` of a
body that is not UTF-8.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

from app.schemas.requests import RAW_BODY
from app.security import UNSAFE_METHODS
from app.services import installed

GAME = "/api/games/{game_id}"
CREATE = ("post", "/api/games")
SNAPSHOT = ("get", GAME)
JOIN = ("post", GAME + "/join")
CANCEL = ("post", GAME + "/cancel")
MOVE = ("post", GAME + "/moves")
RESIGN = ("post", GAME + "/resign")
STEPS = ("get", GAME + "/steps")
RECORD = ("get", "/games/{game_id}/record.json")
IMPORT = ("post", "/api/archive/import")
CHALLENGE = ("post", "/api/challenges")
OFFER = ("post", GAME + "/offer")
ANSWER = ("post", GAME + "/answer")
ABORT = ("post", GAME + "/abort")
CHAT = ("post", GAME + "/chat")
_ANSWERS = {
    name: ("post", f"/api/challenges/{{challenge_id}}/{name.lower()}")
    for name in ("Accept", "Decline", "Cancel")
}

#: Where the game's id and token come from, per source of a link.
_CREATED = {"game_id": "$response.body#/id", "token": "$response.body#/join_token"}
_SAME_GAME = {"game_id": "$request.path.game_id"}

#: (source, its success status) -> {link name: (target, parameters, request body)}. A parameter's
#: name is the target's (``game_id`` in the path, ``token`` in the query); the body's values are
#: merged into the generated body.
LINKS: dict[tuple[tuple[str, str], str], dict[str, tuple[tuple[str, str], dict[str, str], Any]]] = {
    (CREATE, "201"): {
        "Join": (JOIN, {"game_id": "$response.body#/id"}, {"token": "$response.body#/join_token"}),
        "Steps": (STEPS, _CREATED, None),
    },
    # A joined game's first move comes from its steps (the answer to join names no move). Cancel
    # follows join, not create: after create it ended most of the fuzzer's games before anyone
    # joined (38 of 84 in one run, and no move was reached); after join it must be refused
    # (game_started) and change nothing. A creator's successful cancel is tests/app/test_cancel.py's.
    (JOIN, "200"): {
        "Steps": (STEPS, {"game_id": "$response.body#/id"}, None),
        "Cancel": (CANCEL, {"game_id": "$response.body#/id"}, None),
    },
    (STEPS, "200"): {
        # The first token that may follow; in several games one token is a whole move.
        "Deeper": (STEPS, {**_SAME_GAME, "prefix": "$response.body#/next/0"}, None),
        "MoveNext": (
            MOVE,
            _SAME_GAME,
            {"move": "$response.body#/next/0", "version": "$response.body#/version"},
        ),
        "MoveComplete": (
            MOVE,
            _SAME_GAME,
            {"move": "$response.body#/move", "version": "$response.body#/version"},
        ),
    },
    # A challenge sent is answered, or withdrawn, by its id.
    (CHALLENGE, "201"): {
        name: (target, {"challenge_id": "$response.body#/id"}, None)
        for name, target in _ANSWERS.items()
    },
    (MOVE, "200"): {
        "Steps": (STEPS, _SAME_GAME, None),
        "Resign": (RESIGN, _SAME_GAME, {"version": "$response.body#/version"}),
        # The table (issue 17): an offer of any kind, an abort, a chat line in the game.
        "Offer": (OFFER, _SAME_GAME, None),
        "Abort": (ABORT, _SAME_GAME, None),
        "Chat": (CHAT, _SAME_GAME, None),
    },
    # An offer is answered (or withdrawn) by its kind.
    (OFFER, "200"): {
        "Answer": (ANSWER, _SAME_GAME, {"kind": "$response.body#/offer/kind"}),
    },
    (RESIGN, "200"): {
        "Record": (RECORD, _SAME_GAME, None),
        "Move": (MOVE, _SAME_GAME, {"version": "$response.body#/version"}),
        "Rematch": (OFFER, _SAME_GAME, {"kind": "rematch"}),
    },
    (IMPORT, "201"): {
        "Snapshot": (SNAPSHOT, {"game_id": "$response.body#/id"}, None),
        "Record": (RECORD, {"game_id": "$response.body#/id"}, None),
    },
}


_ERROR_OUT = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
#: The answer of a request that changes something sent by another site's page (``app/security.py``
#: refuses it by its method, whatever the route: so it is documented by method, in one place).
BAD_ORIGIN = {
    "description": "bad_origin: the request came from another site's page",
    "content": _ERROR_OUT,
}
#: The answer of a body that is not UTF-8, where the framework reads the body (the import and the
#: replay read theirs themselves, and call it ``bad_json``).
BAD_REQUEST = {"description": "bad_request: the body is not UTF-8", "content": _ERROR_OUT}


def add_refusals(document: dict[str, Any]) -> None:
    """Put the refusals no route states on the operations that can answer them: :data:`BAD_ORIGIN`
    on every one that changes something, :data:`BAD_REQUEST` on every one whose body the framework
    reads (not :data:`~app.schemas.requests.RAW_BODY`)."""
    for operations in document.get("paths", {}).values():
        for method, operation in operations.items():
            answers = operation.get("responses", {})
            if method.upper() in UNSAFE_METHODS:
                answers.setdefault("403", BAD_ORIGIN)
            body = operation.get("requestBody")
            if body is not None and body.get("description") != RAW_BODY:
                answers.setdefault("400", BAD_REQUEST)


def add_links(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with :data:`LINKS` on its answers, and the accepted game slugs and seats named."""
    paths = document.get("paths", {})

    def operation_id(route: tuple[str, str]) -> str:
        method, path = route
        return str(paths[path][method]["operationId"])

    for (source, status), links in LINKS.items():
        method, path = source
        answer = paths[path][method]["responses"][status]
        found = answer.setdefault("links", {})
        for name, (target, parameters, body) in links.items():
            link: dict[str, Any] = {"operationId": operation_id(target), "parameters": parameters}
            if body is not None:
                link["requestBody"] = body
            found[name] = link
    schemas = document.get("components", {}).get("schemas", {})
    create = schemas.get("CreateIn", {}).get("properties", {})
    if "game" in create:
        create["game"]["enum"] = sorted(installed())
    if "seat" in create:
        create["seat"]["enum"] = [1, 2, "random"]
    return document


def install(app: FastAPI) -> None:
    """Make ``app``'s OpenAPI document carry the links (after the error handlers' own rewrite)."""
    build: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = add_links(build())
            add_refusals(app.openapi_schema)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
