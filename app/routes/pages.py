"""HTML pages rendered with Jinja2: the lobby, the game page, live games, the archive, the rules.

Pages carry data for the scripts as JSON in ``data-`` attributes; every rule stays in ``games``.
The rules pages draw their diagrams from small hand-written positions (``diagram``), built into the
same ``view`` shape that the engines emit, so the browser's one renderer draws them.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse

import games
from app.schemas import error_responses
from app.schemas.requests import REPLAY_BODY
from app.schemas.responses import ReplayOut, page_error_responses
from app.templating import templates
from games.errors import RecordError
from games.hexgrid import hex_board
from games.record import rules_of
from games.view import CellView, make_view, row_labels

router = APIRouter()

_COLOURS = {"B": "black", "W": "white", "R": "red"}


def catalogue() -> list[dict[str, Any]]:
    """The games for the lobby and the rules pages, in the order the site presents them."""
    return [info.to_json() for info in games.infos()]


def diagram(
    game: str,
    side: int,
    stacks: dict[str, str],
    last: tuple[str, list[str]] | None = None,
    kind: str = "hex",
    tiles: dict[str, str] | None = None,
) -> str:
    """A view (as JSON) of a hand-written position for a rules diagram.

    ``stacks`` maps a cell name (or ``q,r`` on Exxit's field) to its pieces bottom to top as
    letters (``"WB"``: a white piece under a black one); ``tiles`` gives Exxit's field.
    """
    cells: list[CellView] = []
    if kind == "field":
        coords: dict[str, tuple[int, int]] = {}
        for name in {*(tiles or {}), *stacks}:
            q, r = (int(x) for x in name.split(","))
            coords[name] = (q, r)
        for name in sorted(coords, key=lambda n: (coords[n][1], coords[n][0])):
            q, r = coords[name]
            cell: CellView = {"id": name, "q": q, "r": r, "stack": _pieces(stacks.get(name, ""))}
            if tiles and name in tiles:
                cell["tile"] = _COLOURS[tiles[name]]
            else:
                cell["mark"] = "prisoner"
            cells.append(cell)
        rows = []
    else:
        board = hex_board(side)
        for (q, r), name in zip(board.cells, board.names, strict=True):
            cells.append({"id": name, "q": q, "r": r, "stack": _pieces(stacks.get(name, ""))})
        rows = row_labels(board)
        unknown = set(stacks) - set(board.names)
        if unknown:
            raise ValueError(f"diagram of {game}: no cells {sorted(unknown)} on side {side}")
    view = make_view(
        game=game,
        kind=kind,
        side=None if kind == "field" else side,
        cells=cells,
        rows=rows,
        to_move=None,
        colours=(None, None),
        phase="play",
        last_move=last,
    )
    return json.dumps(view, separators=(",", ":"))


def _pieces(letters: str) -> list[str]:
    return [_COLOURS[ch] for ch in letters]


templates.env.globals["diagram"] = diagram


@router.get("/", response_class=HTMLResponse)
async def lobby(request: Request) -> HTMLResponse:
    """The home page: start a game, join one, watch one, learn the rules."""
    games_ = catalogue()
    context = {"games": games_, "catalogue_json": json.dumps(games_, separators=(",", ":"))}
    return templates.TemplateResponse(request, "lobby.html", context)


@router.get("/rules/{slug}", response_class=HTMLResponse, responses=page_error_responses(404))
async def rules(request: Request, slug: str) -> HTMLResponse:
    """One game's rules in plain words, with diagrams."""
    if slug not in games.REGISTRY:
        raise HTTPException(404, f"no game {slug!r} (games: {', '.join(games.names())})")
    context = {"slug": slug, "game": games.info(slug).to_json(), "games": catalogue()}
    return templates.TemplateResponse(request, f"rules/{slug}.html", context)


@router.get("/games/{game_id}", response_class=HTMLResponse, responses=page_error_responses(404))
async def game_page(request: Request, game_id: str) -> HTMLResponse:
    """The game page, for players and spectators alike; the socket brings the game itself."""
    if not game_id.replace("-", "").replace("_", "").isalnum() or len(game_id) > 64:
        raise HTTPException(404, "no such game")
    return templates.TemplateResponse(request, "game.html", {"game_id": game_id})


@router.get("/live", response_class=HTMLResponse)
async def live(request: Request) -> HTMLResponse:
    """Games in progress as mini boards that update live."""
    return templates.TemplateResponse(request, "live.html", {"games": catalogue()})


@router.get("/archive", response_class=HTMLResponse)
async def archive(request: Request) -> HTMLResponse:
    """Finished games, filtered and paged by the server's archive API."""
    return templates.TemplateResponse(request, "archive.html", {"games": catalogue()})


MAX_REPLAY_PLIES = 2000
MAX_REPLAY_BYTES = 1 << 20


@router.post(
    "/api/replay",
    response_model=ReplayOut,
    responses=error_responses(422),
    openapi_extra=REPLAY_BODY,
)
async def replay_views(request: Request) -> JSONResponse:
    """The view after every ply of ``{"game", "options", "moves"}`` (ply 0 first), for review.

    The browser holds no rule, so it asks for earlier positions here; the moves are replayed with
    the rules package and the first bad ply is named, as for an imported record.
    """
    raw = await request.body()
    if len(raw) > MAX_REPLAY_BYTES:
        return _replay_error(f"the body is over {MAX_REPLAY_BYTES} bytes", None)
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _replay_error("the body must be JSON", None)
    if not isinstance(body, dict):
        return _replay_error("the body must be a JSON object", None)
    moves = body.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        return _replay_error("moves must be a list of move texts", None)
    if len(moves) > MAX_REPLAY_PLIES:
        return _replay_error(f"at most {MAX_REPLAY_PLIES} moves, not {len(moves)}", None)
    record = {
        "format": "hexmoot-record/1",
        "game": body.get("game"),
        "options": body.get("options", {}),
    }
    try:
        rules = rules_of(record)
    except RecordError as exc:
        return _replay_error(str(exc), None)
    state = rules.initial_state()
    views = [rules.view(state)]
    for ply, text in enumerate(moves, start=1):
        try:
            state = rules.play(state, text)
        except ValueError as exc:
            return _replay_error(f"ply {ply}: {exc}", ply)
        views.append(rules.view(state))
    return JSONResponse({"views": views})


def _replay_error(message: str, ply: int | None) -> JSONResponse:
    error = {"code": "invalid_record", "message": message, "ply": ply}
    return JSONResponse({"error": error}, status_code=422)
