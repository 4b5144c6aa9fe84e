"""HTML pages rendered with Jinja2: the lobby, the game page, live games, the archive, the rules.

Pages carry data for the scripts as JSON in ``data-`` attributes; every rule stays in ``games``.
The rules pages draw their diagrams from small hand-written positions (``diagram``), built into the
same ``view`` shape that the engines emit, so the browser's one renderer draws them.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from app.runtime import rules as rules_runner
from app.templating import templates
from games.hexgrid import hex_board
from games.view import CellView, make_view, row_labels

router = APIRouter()

_COLOURS = {"B": "black", "W": "white", "R": "red"}


def catalogue() -> list[dict[str, Any]]:
    """The games for the lobby and the rules pages, in the order the site presents them."""
    return rules_runner.catalogue()


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


@router.get("/rules/{slug}", response_class=HTMLResponse)
async def rules(request: Request, slug: str) -> HTMLResponse:
    """One game's rules in plain words, with diagrams."""
    info = rules_runner.game_info(slug)
    if info is None:
        raise HTTPException(404, f"no game {slug!r} (games: {rules_runner.known_games()})")
    context = {"slug": slug, "game": info, "games": catalogue()}
    return templates.TemplateResponse(request, f"rules/{slug}.html", context)


@router.get("/games/{game_id}", response_class=HTMLResponse)
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
