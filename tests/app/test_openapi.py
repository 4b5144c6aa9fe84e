"""``/openapi.json`` shows what every JSON route answers, and its errors in the one shape only."""

from __future__ import annotations

import json
from typing import Any

from app.schemas import ErrorOut
from tests.app.conftest import ClientFactory

ERROR = "#/components/schemas/ErrorOut"
#: Each JSON route: its success status and model, and the error statuses it can answer (every route
#: that changes something can answer 403 ``bad_origin``: ``app/security.py``; every route whose body
#: the framework reads, 400 ``bad_request`` for a body that is not UTF-8).
EXPECTED: dict[tuple[str, str], tuple[int, str, set[int]]] = {
    ("get", "/healthz"): (200, "HealthOut", set()),
    ("get", "/api/me"): (200, "MeOut", set()),
    ("put", "/api/me"): (200, "MeOut", {400, 403, 413, 422}),
    ("get", "/api/catalogue"): (200, "CatalogueOut", set()),
    ("post", "/api/games"): (201, "CreatedOut", {400, 403, 413, 422, 429}),
    ("get", "/api/games/open"): (200, "OpenGamesOut", set()),
    ("post", "/api/games/{game_id}/offer"): (200, "OfferAnswerOut", {400, 403, 404, 409, 413, 422}),
    ("post", "/api/games/{game_id}/answer"): (
        200,
        "OfferAnswerOut",
        {400, 403, 404, 409, 413, 422},
    ),
    ("post", "/api/games/{game_id}/abort"): (200, "EndedOut", {403, 404, 409}),
    ("post", "/api/games/{game_id}/claim"): (200, "EndedOut", {403, 404, 409}),
    ("post", "/api/games/{game_id}/chat"): (201, "ChatSaidOut", {400, 403, 404, 413, 422, 429}),
    ("get", "/api/games/{game_id}/chat"): (200, "ChatLog", {404}),
    ("get", "/api/games/{game_id}"): (200, "Snapshot", {404}),
    ("post", "/api/games/{game_id}/join"): (200, "JoinedOut", {400, 403, 404, 409, 413, 422}),
    ("post", "/api/games/{game_id}/cancel"): (200, "CancelledOut", {403, 404, 409}),
    ("post", "/api/games/{game_id}/moves"): (200, "AckOut", {400, 403, 404, 409, 413, 422}),
    ("post", "/api/games/{game_id}/resign"): (200, "AckOut", {400, 403, 404, 409, 413, 422}),
    ("get", "/api/games/{game_id}/steps"): (200, "StepsOut", {404, 422}),
    ("get", "/games/{game_id}/record.json"): (200, "RecordOut", {404}),
    ("get", "/games/{game_id}/abstractplay.json"): (200, "AbstractPlayOut", {404, 409}),
    # a PNG: no model
    ("get", "/games/{game_id}/card.png"): (200, "", {404, 422, 429}),
    ("get", "/api/live"): (200, "LiveOut", set()),
    ("get", "/api/archive"): (200, "ArchiveOut", {422}),
    ("get", "/api/archive/boards"): (200, "ArchiveBoardsOut", {422}),
    ("get", "/api/archive/players"): (200, "ArchivePlayersOut", {422}),
    ("post", "/api/archive/import"): (201, "ImportedOut", {403, 413, 422, 429, 503}),
    ("post", "/api/replay"): (200, "ReplayOut", {403, 413, 422, 429, 503}),
    # accounts (issue 16)
    ("post", "/api/account/signup"): (201, "AccountOut", {400, 403, 409, 413, 422, 429}),
    ("post", "/api/account/login"): (200, "LoginOut", {400, 401, 403, 413, 422, 429}),
    ("post", "/api/account/logout-all"): (200, "LoggedOutOut", {400, 401, 403, 413, 422}),
    ("get", "/api/account/sessions"): (200, "SessionsOut", {401}),
    ("delete", "/api/account/sessions/{session_id}"): (204, "", {401, 403, 404}),
    ("post", "/api/account/password"): (200, "OkOut", {400, 401, 403, 413, 422}),
    ("put", "/api/account/settings"): (200, "AccountOut", {400, 401, 403, 413, 422}),
    ("put", "/api/account/email"): (200, "AccountOut", {400, 401, 403, 409, 413, 422, 429}),
    ("post", "/api/account/email/resend"): (202, "OkOut", {400, 401, 403, 409, 413, 422, 429}),
    ("post", "/api/account/email/verify"): (200, "VerifiedOut", {400, 403, 413, 422, 429}),
    ("post", "/api/account/claim"): (200, "ClaimedOut", {400, 401, 403, 413, 422}),
    ("post", "/api/account/logout"): (200, "OkOut", {400, 403, 413, 422}),
    ("get", "/api/account"): (200, "AccountOut", {401}),
    ("get", "/api/me/games"): (200, "MyGamesOut", set()),
    ("post", "/api/challenges"): (201, "ChallengeOut", {400, 403, 404, 413, 422, 429}),
    ("post", "/api/challenges/{challenge_id}/accept"): (200, "ChallengeAnswerOut", {403, 404, 409}),
    ("post", "/api/challenges/{challenge_id}/decline"): (
        200,
        "ChallengeAnswerOut",
        {403, 404, 409},
    ),
    ("post", "/api/challenges/{challenge_id}/cancel"): (200, "ChallengeAnswerOut", {403, 404, 409}),
    ("get", "/api/players/{username}"): (200, "ProfileOut", {404}),
    ("post", "/api/account/recover"): (202, "OkOut", {400, 403, 409, 413, 422, 429}),
    ("post", "/api/account/reset"): (200, "OkOut", {400, 403, 413, 422, 429}),
    ("get", "/api/leaderboards/{slug}"): (200, "LeaderboardOut", {422}),
    ("post", "/api/bots/games"): (201, "CreatedOut", {400, 403, 413, 422, 429}),
    ("get", "/api/bots"): (200, "BotsOut", set()),
    ("post", "/api/bots/token"): (200, "BotTokenOut", {401, 403}),
    ("get", "/api/stats/{game}"): (200, "StatsOut", {422}),
    # NDJSON, a line per game (ExportLine) then ExportNext: no one model for the whole body
    ("get", "/api/archive/export"): (200, "", {422, 429}),
    ("get", "/api/explorer/{game}"): (200, "ExplorerOut", {422, 429}),
}
HTML_PAGES = {
    "/",
    "/rules",
    "/rules/{slug}",
    "/games/{game_id}",
    "/games/{game_id}/card",
    "/live",
    "/archive",
    "/archive/import",
    "/explorer/{game}",
    "/dumps",
    "/login",
    "/signup",
    "/settings",
    "/my",
    "/players/{username}",
    "/leaderboards",
    "/leaderboards/{slug}",
    "/bots",
    "/stats/{game}",
    "/account/recover",
    "/account/reset",
    "/account/verify",
}


async def openapi(clients: ClientFactory) -> dict[str, Any]:
    client = await clients()
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def _ref(answer: dict[str, Any]) -> str | None:
    schema = answer.get("content", {}).get("application/json", {}).get("schema", {})
    ref: str | None = schema.get("$ref")
    return ref


async def test_every_json_route_names_its_answer_and_its_errors(clients: ClientFactory) -> None:
    document = await openapi(clients)
    seen = {}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            if path in HTML_PAGES:
                assert "text/html" in answers["200"]["content"], path
                # the HTML error page; a bad query (422) is a program's mistake: the one shape
                errors = {int(s) for s in answers if int(s) >= 400}
                assert all(
                    "text/html" in answers[str(s)]["content"]
                    or (s == 422 and _ref(answers[str(s)]) == ERROR)
                    for s in errors
                ), path
                continue
            success = {int(s) for s in answers if int(s) < 400}
            assert len(success) == 1, (method, path, answers)
            status = success.pop()
            model = (_ref(answers[str(status)]) or "").rsplit("/", 1)[-1]
            errors = {int(s) for s, a in answers.items() if _ref(a) == ERROR}
            seen[(method, path)] = (status, model, errors)
    # Every JSON route but /healthz (whose 503 is its HealthOut) may find the database out of
    # reach: 503 unavailable (issue 27).
    assert seen == {
        key: (status, model, errors if key[1] == "/healthz" else errors | {503})
        for key, (status, model, errors) in EXPECTED.items()
    }


async def test_the_document_knows_no_other_error_shape(clients: ClientFactory) -> None:
    document = await openapi(clients)
    text = json.dumps(document)
    assert "HTTPValidationError" not in text
    assert '"detail"' not in text
    schema = document["components"]["schemas"]["ErrorOut"]
    assert schema["required"] == ["error"]
    assert set(ErrorOut.model_json_schema()["$defs"]["ErrorBody"]["properties"]) == {
        "code",
        "message",
        "field",
        "version",
        "ply",
        "rule",
    }
    # The 503 of the health check is a HealthOut, not an error.
    health = document["paths"]["/healthz"]["get"]["responses"]
    assert _ref(health["503"]) == "#/components/schemas/HealthOut"


def _refs(node: object) -> list[str]:
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == "$ref"] + [
            r for v in node.values() for r in _refs(v)
        ]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


async def test_every_reference_resolves_and_raw_bodies_are_described(
    clients: ClientFactory,
) -> None:
    document = await openapi(clients)
    components = document["components"]["schemas"]
    for ref in _refs(document):
        assert ref.startswith("#/components/schemas/") and ref.rsplit("/", 1)[-1] in components
    for path in ("/api/archive/import", "/api/replay"):
        body = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]
        assert body["schema"], path
