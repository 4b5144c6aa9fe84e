"""Playing the computer: a game against a bot, the bots' list, and their page
(``docs/protocol.md``, "Bots")."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from app.deps import ServiceDep, VisitorDep, page_visitor
from app.identity.sessions import SESSION_COOKIE
from app.runtime.limiter import rate_limited
from app.schemas import error_responses
from app.schemas.bots import BotGameIn, BotsOut, BotTokenOut
from app.schemas.responses import CreatedOut
from app.templating import templates

router = APIRouter(dependencies=[Depends(page_visitor)])


@router.post(
    "/api/bots/games",
    status_code=201,
    response_model=CreatedOut,
    responses=error_responses(403, 422, 429),
    dependencies=[Depends(rate_limited("create per visitor", "create per IP"))],
)
async def create(body: BotGameIn, visitor: VisitorDep, service: ServiceDep) -> CreatedOut:
    """Start a game against the bot of ``level``, the visitor seated as asked."""
    return await service.bots.create(visitor, body)


@router.post("/api/bots/token", response_model=BotTokenOut, responses=error_responses(401))
async def token(visitor: VisitorDep, service: ServiceDep) -> BotTokenOut:
    """A token for a program to play as the signed-in account (an external bot)."""
    value, public_id = await service.accounts.program_session(visitor)
    return BotTokenOut(token=value, cookie=SESSION_COOKIE, session=public_id)


@router.get("/api/bots", response_model=BotsOut)
async def listing(service: ServiceDep) -> BotsOut:
    """The bots, their levels per game and their ratings."""
    return await service.bots.listing()


@router.get("/bots", response_class=HTMLResponse)
async def bots_page(request: Request, service: ServiceDep) -> HTMLResponse:
    """The bots' page."""
    context = {"bots": (await service.bots.listing()).bots}
    return templates.TemplateResponse(request, "bots.html", context)
