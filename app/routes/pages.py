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

import games
from app.templating import templates
from games.hexgrid import hex_board
from games.view import CellView, make_view, row_labels

router = APIRouter()

# The five games in the order the site presents them, with a line each for the lobby and rules.
CATALOGUE: dict[str, dict[str, str]] = {
    "jotun": {
        "title": "Jotun",
        "blurb": "Stacks travel, jump their friends, devour weaker enemies and feed allies; "
        "hold more than half the board.",
    },
    "valaturna": {
        "title": "Valaturna",
        "blurb": "Place on the points of a lattice and flip enemy stacks flanked at equal distances; "
        "the tallest stacks win.",
    },
    "harmijan": {
        "title": "Harmijan",
        "blurb": "Move a stone, then place one in line with it; grow creatures of matching shapes.",
    },
    "sgolte": {
        "title": "Sgolte",
        "blurb": "Place stones; a merge must split an enemy group and rebuild what it took. "
        "Whoever cannot place loses.",
    },
    "exxit": {
        "title": "Exxit",
        "blurb": "Sow stacks of pawns across a field of tiles that grows; own the largest island.",
    },
}

_COLOURS = {"B": "black", "W": "white", "R": "red"}


def catalogue() -> list[dict[str, Any]]:
    """The games for the lobby: slug, title, blurb, whether playable here, and their options."""
    available = set(games.names())
    out = []
    for slug, meta in CATALOGUE.items():
        entry: dict[str, Any] = {"slug": slug, **meta, "available": slug in available}
        entry["options"] = (
            [o.to_json() for o in games.rules_class(slug).OPTIONS] if slug in available else []
        )
        out.append(entry)
    return out


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
    return templates.TemplateResponse(request, "lobby.html", {"games": catalogue()})


@router.get("/rules/{slug}", response_class=HTMLResponse)
async def rules(request: Request, slug: str) -> HTMLResponse:
    """One game's rules in plain words, with diagrams."""
    if slug not in CATALOGUE:
        raise HTTPException(404, f"no game {slug!r} (games: {', '.join(CATALOGUE)})")
    context = {"slug": slug, "game": CATALOGUE[slug], "games": catalogue()}
    return templates.TemplateResponse(request, f"rules/{slug}.html", context)
