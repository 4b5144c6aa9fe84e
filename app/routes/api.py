"""The JSON API (``docs/protocol.md``): identity, games, live list, archive, records, import."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse, Response

from app.deps import ServiceDep, VisitorDep
from app.errors import AppError, ErrorCode
from app.parsing import loads, natural
from app.runtime.limiter import rate_limited
from app.runtime.rules import catalogue as game_catalogue
from app.schemas import CreateIn, JoinIn, MoveIn, NameIn, ResignIn, error_responses
from app.schemas.outgoing import (
    AckJson,
    LiveJson,
    OpenGamesJson,
    SnapshotJson,
    StepsJson,
)
from app.schemas.requests import RECORD_BODY
from app.schemas.responses import (
    AbstractPlayOut,
    AckOut,
    CancelledOut,
    CatalogueOut,
    CreatedOut,
    ImportedOut,
    JoinedOut,
    LiveOut,
    MeAccountOut,
    MeOut,
    OpenGamesOut,
    RecordOut,
    Snapshot,
    StepsOut,
)
from app.services import CREATION_KEY_PATTERN, CreationKeyed, Visitor

router = APIRouter()
IMPORT_MAX_BYTES = 1024 * 1024
# What a game id can be (the database is never asked about anything else, a NUL byte say).
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,16}")


@router.get("/api/me", response_model=MeOut)
async def me(visitor: VisitorDep, request: Request) -> MeOut:
    """The visitor's identity (``account``: null for a guest)."""
    return _me(visitor, named=not visitor.name.startswith("Guest-"))


@router.put("/api/me", response_model=MeOut, responses=error_responses(422))
async def rename(body: NameIn, visitor: VisitorDep, service: ServiceDep) -> MeOut:
    """Change the visitor's display name (an account's too)."""
    if visitor.account_id is not None:  # an account's display name
        return _me(await service.accounts.rename(visitor, body.name), named=True)
    return _me(await service.lifecycle.rename(visitor.id, body.name), named=True)


def _me(visitor: Visitor, *, named: bool) -> MeOut:
    """``visitor`` as ``/api/me`` answers it (``account``: null for a guest)."""
    account = None
    if visitor.username is not None:
        account = MeAccountOut(username=visitor.username, display_name=visitor.name)
    return MeOut(id=visitor.id, name=visitor.name, named=named, account=account)


@router.get("/api/catalogue", response_model=CatalogueOut)
async def catalogue() -> dict[str, Any]:
    """The games installed and their options."""
    return {"games": game_catalogue()}


@router.post(
    "/api/games",
    status_code=201,
    response_model=CreatedOut,
    responses=error_responses(403, 422, 429),
    dependencies=[Depends(rate_limited("create per visitor", "create per IP"))],
)
async def create(
    body: CreateIn,
    visitor: VisitorDep,
    service: ServiceDep,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            description="The same key sent again by the same visitor answers with the game the "
            "first request made (kept a day); with another body, 422 idempotency_key_reused",
            pattern=CREATION_KEY_PATTERN,
            max_length=66,
        ),
    ] = None,
) -> CreatedOut:
    """Create a game with the visitor seated (once per ``Idempotency-Key``)."""
    return await service.lifecycle.create(
        visitor,
        body.game,
        body.options,
        body.seat,
        body.public,
        body.rated,
        time_control=body.time_control,
        takebacks=body.takebacks,
        keyed=CreationKeyed.of(idempotency_key, body.model_dump(mode="json")),
    )


@router.get("/api/games/open", response_model=OpenGamesOut)
async def open_games(visitor: VisitorDep, service: ServiceDep) -> OpenGamesJson:
    """Public games waiting for an opponent (``yours``: the visitor created it)."""
    return {"games": await service.reading.open_games(visitor)}


@router.get("/api/games/{game_id}", response_model=Snapshot, responses=error_responses(404))
async def game(
    game_id: str, visitor: VisitorDep, service: ServiceDep, token: str | None = None
) -> SnapshotJson:
    """A game's snapshot."""
    return await service.reading.snapshot(game_id, visitor, token)


@router.post(
    "/api/games/{game_id}/join",
    response_model=JoinedOut,
    responses=error_responses(403, 404, 409, 422),
)
async def join(game_id: str, body: JoinIn, visitor: VisitorDep, service: ServiceDep) -> JoinedOut:
    """Take the empty seat."""
    return await service.lifecycle.join(visitor, game_id, body.token)


@router.post(
    "/api/games/{game_id}/cancel",
    response_model=CancelledOut,
    responses=error_responses(403, 404, 409),
)
async def cancel(game_id: str, visitor: VisitorDep, service: ServiceDep) -> CancelledOut:
    """The seated creator cancels a game nobody has joined (any body is ignored)."""
    return await service.lifecycle.cancel(visitor, game_id)


@router.post(
    "/api/games/{game_id}/moves",
    response_model=AckOut,
    response_model_exclude_unset=True,
    responses=error_responses(403, 404, 409, 422),
)
async def move(game_id: str, body: MoveIn, visitor: VisitorDep, service: ServiceDep) -> AckJson:
    """Play a move (the HTTP twin of the websocket ``move``)."""
    return await service.playing.play(
        visitor, game_id, body.move, body.version, body.msg_id, body.lag
    )


@router.post(
    "/api/games/{game_id}/resign",
    response_model=AckOut,
    response_model_exclude_unset=True,
    responses=error_responses(403, 404, 409, 422),
)
async def resign(game_id: str, body: ResignIn, visitor: VisitorDep, service: ServiceDep) -> AckJson:
    """Resign (the HTTP twin of the websocket ``resign``)."""
    return await service.playing.resign(visitor, game_id, body.version, body.msg_id)


@router.get(
    "/api/games/{game_id}/steps", response_model=StepsOut, responses=error_responses(404, 422)
)
async def steps(
    game_id: str,
    visitor: VisitorDep,
    service: ServiceDep,
    prefix: Annotated[list[str] | None, Query(max_length=64)] = None,
    token: str | None = None,
) -> StepsJson:
    """Legal continuations of a clicked prefix."""
    return await service.reading.steps(game_id, prefix or [], visitor, token)


@router.get(
    "/games/{game_id}/record.json", response_model=RecordOut, responses=error_responses(404)
)
async def record(
    game_id: str, visitor: VisitorDep, service: ServiceDep, token: str | None = None
) -> JSONResponse:
    """The game's record, as a download."""
    return _download(await service.reading.record(game_id, visitor, token), f"{game_id}.json")


@router.get(
    "/games/{game_id}/abstractplay.json",
    response_model=AbstractPlayOut,
    responses=error_responses(404, 409),
)
async def abstractplay_record(
    game_id: str, visitor: VisitorDep, service: ServiceDep, token: str | None = None
) -> JSONResponse:
    """A finished game as Abstract Play's game record (``gamerecord/1-0-0``), as a download."""
    body = await service.reading.abstractplay(game_id, visitor, token)
    return _download(body, f"{game_id}.abstractplay.json")


@router.get(
    "/games/{game_id}/card.png",
    response_class=Response,
    responses={
        200: {"description": "The picture, 1200 x 630", "content": {"image/png": {}}},
        **error_responses(404, 422, 429, 503),
    },
    dependencies=[Depends(rate_limited("card per IP"))],
)
async def card_image(
    game_id: str,
    visitor: VisitorDep,
    service: ServiceDep,
    ply: Annotated[int | None, Query(ge=0)] = None,
    theme: Literal["light", "dark"] = "light",
    token: str | None = None,
) -> Response:
    """A picture of the game after ``ply`` plies (default: the last) for a shared link (the game
    page's ``og:image``): the card page drawn by a browser, made once per position and theme.
    503 ``unavailable`` where no browser can draw it."""
    png = await service.cards.image(game_id, visitor, token, ply, theme)
    return Response(png, media_type="image/png", headers={"Cache-Control": "public, max-age=300"})


def _download(body: Any, name: str) -> JSONResponse:
    """``body`` as a JSON file to save, named ``hexmoot-<name>``."""
    disposition = f'attachment; filename="hexmoot-{name}"'
    return JSONResponse(body, headers={"Content-Disposition": disposition})


@router.get("/api/live", response_model=LiveOut)
async def live(service: ServiceDep) -> LiveJson:
    """Public games in progress."""
    return {"games": await service.reading.live_games()}


@router.post(
    "/api/archive/import",
    status_code=201,
    response_model=ImportedOut,
    responses=error_responses(403, 413, 422, 429, 503),
    openapi_extra=RECORD_BODY,
    dependencies=[Depends(rate_limited("import per visitor", "import per IP"))],
)
async def import_record(request: Request, visitor: VisitorDep, service: ServiceDep) -> ImportedOut:
    """Store an uploaded record (validated by replay) as an archived game imported by the
    visitor, who must have chosen a name (403 ``name_required``, once the body is JSON)."""
    length = natural(request.headers.get("content-length") or "")
    if length is not None and length > IMPORT_MAX_BYTES:
        raise AppError(ErrorCode.RECORD_TOO_LARGE, "a record may not exceed 1 MiB")
    raw = await request.body()
    if len(raw) > IMPORT_MAX_BYTES:
        raise AppError(ErrorCode.RECORD_TOO_LARGE, "a record may not exceed 1 MiB")
    try:
        record = loads(raw)
    except ValueError as exc:
        raise AppError(ErrorCode.BAD_JSON, f"the body is not JSON: {exc}", ply=None) from None
    return await service.archiving.import_record(record, visitor)
