"""The table around a game over HTTP (``docs/protocol.md``, "Clocks and the table"): the twins of
the websocket's ``offer``, ``answer``, ``abort``, ``claim`` and ``chat``, and a room's chat log."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from app.deps import ServiceDep, VisitorDep
from app.runtime.limiter import rate_limited
from app.schemas import error_responses
from app.schemas.outgoing import ChatLogJson, ChatSaidJson, EndedJson, OfferAnswerJson
from app.schemas.requests import AnswerIn, ChatIn, OfferIn
from app.schemas.responses import ChatLog, ChatSaidOut, EndedOut, OfferAnswerOut

router = APIRouter()


@router.post(
    "/api/games/{game_id}/offer",
    response_model=OfferAnswerOut,
    responses=error_responses(403, 404, 409, 422),
)
async def offer(
    game_id: str, body: OfferIn, visitor: VisitorDep, service: ServiceDep
) -> OfferAnswerJson:
    """Offer a draw or a rematch, or ask a takeback."""
    return await service.table.offer(visitor, game_id, body.kind)


@router.post(
    "/api/games/{game_id}/answer",
    response_model=OfferAnswerOut,
    responses=error_responses(403, 404, 409, 422),
)
async def answer(
    game_id: str, body: AnswerIn, visitor: VisitorDep, service: ServiceDep
) -> OfferAnswerJson:
    """Answer the pending offer."""
    return await service.table.answer(visitor, game_id, body.kind, body.accept)


@router.post(
    "/api/games/{game_id}/abort",
    response_model=EndedOut,
    responses=error_responses(403, 404, 409),
)
async def abort(game_id: str, visitor: VisitorDep, service: ServiceDep) -> EndedJson:
    """End the game before both players have moved (any body is ignored)."""
    return await service.table.abort(visitor, game_id)


@router.post(
    "/api/games/{game_id}/claim",
    response_model=EndedOut,
    responses=error_responses(403, 404, 409),
)
async def claim(game_id: str, visitor: VisitorDep, service: ServiceDep) -> EndedJson:
    """Win over an opponent who left and stayed away past their grace (any body is ignored)."""
    return await service.table.claim(visitor, game_id)


@router.post(
    "/api/games/{game_id}/chat",
    status_code=201,
    response_model=ChatSaidOut,
    responses=error_responses(404, 422, 429),
    dependencies=[Depends(rate_limited("chat per visitor"))],
)
async def chat(
    game_id: str,
    body: ChatIn,
    visitor: VisitorDep,
    service: ServiceDep,
    token: str | None = None,
) -> ChatSaidJson:
    """Say a line in the visitor's room of the game."""
    return await service.table.chat(visitor, game_id, body.text, token)


@router.get("/api/games/{game_id}/chat", response_model=ChatLog, responses=error_responses(404))
async def chat_log(
    game_id: str, visitor: VisitorDep, service: ServiceDep, token: str | None = None
) -> ChatLogJson:
    """The visitor's chat room of the game and its last 100 lines."""
    return await service.table.room_log(visitor, game_id, token)
