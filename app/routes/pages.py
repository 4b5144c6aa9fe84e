"""HTML pages rendered with Jinja2 (owned by the browser side after the foundation hand-over)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

import games
from app.templating import templates

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
async def lobby(request: Request) -> HTMLResponse:
    """The home page: the games one can start."""
    catalogue = [{"slug": slug, "title": games.rules_class(slug).title} for slug in games.names()]
    return templates.TemplateResponse(request, "lobby.html", {"games": catalogue})
