"""Profiles and leaderboards: their JSON (``docs/protocol.md``) and their pages."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse

from app.deps import ServiceDep, VisitorDep, page_visitor
from app.errors import AppError
from app.routes.pages import PAGE_404, catalogue
from app.schemas import error_responses
from app.schemas.players import LeaderboardOut, ProfileOut
from app.templating import templates

router = APIRouter(dependencies=[Depends(page_visitor)])


@router.get("/api/players/{username}", response_model=ProfileOut, responses=error_responses(404))
async def profile(username: str, visitor: VisitorDep, service: ServiceDep) -> ProfileOut:
    """A player's profile: ratings, finished public games, and the record against you."""
    return await service.players.profile(username, visitor)


@router.get(
    "/api/leaderboards/{slug}", response_model=LeaderboardOut, responses=error_responses(422)
)
async def leaderboard(slug: str, service: ServiceDep) -> LeaderboardOut:
    """A game's leaderboard."""
    return await service.players.leaderboard(slug)


@router.get("/players/{username}", response_class=HTMLResponse, responses=PAGE_404)
async def profile_page(
    request: Request, username: str, visitor: VisitorDep, service: ServiceDep
) -> HTMLResponse:
    """A player's profile page."""
    try:
        player = await service.players.profile(username, visitor)
    except AppError as exc:
        raise HTTPException(404, exc.message) from None
    context = {"player": player, "visitor": visitor}
    return templates.TemplateResponse(request, "player.html", context)


@router.get("/leaderboards", response_class=HTMLResponse)
async def leaderboards_page(request: Request) -> HTMLResponse:
    """The leaderboards, one per game."""
    return templates.TemplateResponse(request, "leaderboards.html", {"games": catalogue()})


@router.get("/leaderboards/{slug}", response_class=HTMLResponse, responses=PAGE_404)
async def leaderboard_page(request: Request, slug: str, service: ServiceDep) -> HTMLResponse:
    """One game's leaderboard page."""
    try:
        board = await service.players.leaderboard(slug)
    except AppError as exc:
        raise HTTPException(404, exc.message) from None
    context = {"board": board, "games": catalogue()}
    return templates.TemplateResponse(request, "leaderboard.html", context)
