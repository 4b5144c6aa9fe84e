"""HTML pages rendered with Jinja2: the lobby, the game page, live games, the archive, the rules.

Pages carry data for the scripts as JSON in ``data-`` attributes; every rule stays in ``games``.
The rules pages' diagrams are computed by the engines through the template global ``diagram``
(``app.templating``), in the same ``view`` shape as a game, so the browser's one renderer draws them.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from app.deps import ServiceDep, VisitorDep, page_visitor, resolve_visitor
from app.runtime import rules as rules_runner
from app.schemas.responses import page_error_responses
from app.templating import templates

# Every page knows its visitor: the header shows the account, or the links to log in.
router = APIRouter(dependencies=[Depends(page_visitor)])

# A page's 404 is the HTML error page (app/web_errors.py), not the JSON shape.
PAGE_404: dict[int | str, dict[str, Any]] = {
    404: {
        "description": "The error page, with links to the lobby and the rules",
        "content": {"text/html": {"schema": {"type": "string"}}},
    }
}


def catalogue() -> list[dict[str, Any]]:
    """The games for the lobby and the rules pages, in the order the site presents them."""
    return rules_runner.catalogue()


@router.get("/", response_class=HTMLResponse)
async def lobby(request: Request) -> HTMLResponse:
    """The home page: start a game, join one, watch one, learn the rules."""
    games_ = catalogue()
    context = {"games": games_, "catalogue_json": json.dumps(games_, separators=(",", ":"))}
    return templates.TemplateResponse(request, "lobby.html", context)


@router.get("/rules", response_class=HTMLResponse)
async def rules_index(request: Request) -> HTMLResponse:
    """The five games, each with its summary and a link to its rules."""
    return templates.TemplateResponse(request, "rules/index.html", {"games": catalogue()})


@router.get("/rules/{slug}", response_class=HTMLResponse, responses=PAGE_404)
async def rules(request: Request, slug: str) -> HTMLResponse:
    """One game's rules in plain words, with diagrams."""
    info = rules_runner.game_info(slug)
    if info is None:
        raise HTTPException(404, f"no game {slug!r} (games: {rules_runner.known_games()})")
    context = {"slug": slug, "game": info, "games": catalogue()}
    return templates.TemplateResponse(request, f"rules/{slug}.html", context)


@router.get("/games/{game_id}", response_class=HTMLResponse, responses=PAGE_404)
async def game_page(request: Request, game_id: str, service: ServiceDep) -> HTMLResponse:
    """The game page, for players and spectators alike; the socket brings the game itself.

    A game that does not exist, or a private one the visitor may not see (neither seated nor
    holding its token, from the invite link's ``?join=`` or ``?token=``), is the error page's 404,
    the same answer for both (docs/protocol.md, "Private games stay hidden").
    """
    query = request.query_params
    token = query.get("join") or query.get("token") or None
    visitor = await resolve_visitor(request, service)
    card = await service.reading.card(game_id, visitor, token)  # game_not_found: the 404 page
    # the link's own address: the public origin, else the Host the request came to
    origin = request.app.state.settings.public_origin or str(request.base_url)
    url = f"{origin.rstrip('/')}/games/{game_id}"
    image = f"{url}/card.png?{urlencode({'ply': card.ply, **({'token': token} if token else {})})}"
    return templates.TemplateResponse(
        request, "game.html", {"game_id": game_id, "card": card, "url": url, "image": image}
    )


@router.get(
    "/games/{game_id}/card",
    response_class=HTMLResponse,
    responses={**PAGE_404, **page_error_responses(422)},
)
async def card_page(
    request: Request,
    game_id: str,
    service: ServiceDep,
    ply: Annotated[int | None, Query(ge=0)] = None,
    theme: Literal["light", "dark"] = "light",
    token: str | None = None,
) -> HTMLResponse:
    """The game's card: its title, players and result beside the board after ``ply`` plies
    (default: the last), 1200 x 630 in ``theme``; what ``card.png`` is a picture of."""
    visitor = await resolve_visitor(request, service)
    page = await service.cards.page(game_id, visitor, token, ply)
    context = {"page": page, "theme": theme, "game_id": game_id}
    return templates.TemplateResponse(request, "card.html", context)


@router.get("/live", response_class=HTMLResponse)
async def live(request: Request) -> HTMLResponse:
    """Games in progress as mini boards that update live."""
    return templates.TemplateResponse(request, "live.html", {"games": catalogue()})


@router.get("/archive", response_class=HTMLResponse)
async def archive(request: Request) -> HTMLResponse:
    """Finished games, filtered and paged by the server's archive API."""
    return templates.TemplateResponse(request, "archive.html", {"games": catalogue()})


@router.get("/explorer/{game}", response_class=HTMLResponse, responses=PAGE_404)
async def explorer_page(request: Request, game: str) -> HTMLResponse:
    """The opening explorer of one game (issue 28): options and moves in the URL, the nodes from
    ``GET /api/explorer/{game}``."""
    info = rules_runner.game_info(game)
    if info is None:
        raise HTTPException(404, f"no game {game!r} (games: {rules_runner.known_games()})")
    games_ = catalogue()
    context = {"game": info, "games": games_, "catalogue_json": json.dumps(games_)}
    return templates.TemplateResponse(request, "explorer.html", context)


@router.get("/archive/import", response_class=HTMLResponse)
async def import_page(request: Request) -> HTMLResponse:
    """Import a finished game's record, uploaded or pasted (``POST /api/archive/import``)."""
    return templates.TemplateResponse(request, "import.html", {})


@router.get("/dumps", response_class=HTMLResponse)
async def dumps_page(request: Request, service: ServiceDep) -> HTMLResponse:
    """The archive's monthly dumps: each file, its games, size and hash; their format and licence."""
    dumps = service.dumps.index()
    context = {"dumps": dumps, "titles": {g["slug"]: g["title"] for g in catalogue()}}
    return templates.TemplateResponse(request, "dumps.html", context)


@router.get("/login", response_class=HTMLResponse)
async def login_page(request: Request) -> HTMLResponse:
    """Log in (and, after it, offer to attach this browser's guest games)."""
    return templates.TemplateResponse(request, "login.html", {})


@router.get("/signup", response_class=HTMLResponse)
async def signup_page(request: Request, service: ServiceDep) -> HTMLResponse:
    """Sign up: this browser's guest becomes the account, its games with it."""
    context = {"mail_on": service.accounts.mail_on()}
    return templates.TemplateResponse(request, "signup.html", context)


@router.get("/settings", response_class=HTMLResponse)
async def settings_page(request: Request, visitor: VisitorDep, service: ServiceDep) -> HTMLResponse:
    """The account's settings and sessions (a guest is offered to log in or sign up)."""
    context = {"mail_on": service.accounts.mail_on()}
    return templates.TemplateResponse(request, "settings.html", context)


@router.get("/my", response_class=HTMLResponse)
async def my_page(request: Request) -> HTMLResponse:
    """My games: your turn, waiting, open games, challenges, finished; and the alerts' switches."""
    games_ = catalogue()
    context = {"games": games_, "catalogue_json": json.dumps(games_, separators=(",", ":"))}
    return templates.TemplateResponse(request, "my.html", context)


@router.get("/account/recover", response_class=HTMLResponse)
async def recover_page(request: Request, service: ServiceDep) -> HTMLResponse:
    """Ask for a recovery link."""
    context = {"mail_on": service.accounts.mail_on()}
    return templates.TemplateResponse(request, "recover.html", context)


@router.get("/account/reset", response_class=HTMLResponse)
async def reset_page(request: Request) -> HTMLResponse:
    """Set a new password with a recovery link's token (in the page's address)."""
    return templates.TemplateResponse(request, "reset.html", {})


@router.get("/account/verify", response_class=HTMLResponse)
async def verify_page(request: Request) -> HTMLResponse:
    """Verify an address with the token of the link mailed to it (in the page's address). The page
    sends the token itself: a GET changes nothing, so a mail filter that fetches every link of a
    message verifies nobody's address."""
    return templates.TemplateResponse(request, "verify.html", {})
