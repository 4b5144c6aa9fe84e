"""The statistics page per game and option set (issue 28): ``GET /api/stats/{game}`` and the page
``/stats/{game}`` that draws it. Every parameter is checked here before anything is read: an
unknown game is 422 ``unknown_game``, a bad option set, source or an unknown parameter 422
``bad_filter`` naming it."""

from __future__ import annotations

from typing import Any, get_args

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.responses import HTMLResponse

from app.deps import ServiceDep, page_visitor
from app.errors import AppError, ErrorCode, excerpt
from app.routes.pages import PAGE_404, catalogue
from app.schemas import error_responses
from app.schemas.responses import page_error_responses
from app.schemas.stats import StatsOut
from app.services.stats import Source
from app.templating import templates

router = APIRouter(dependencies=[Depends(page_visitor)])

PARAMETERS = frozenset({"options", "source"})


def _refuse(field: str, message: str) -> AppError:
    return AppError(ErrorCode.BAD_FILTER, message, field=field)


def _game(slug: str) -> dict[str, Any]:
    """The catalogue's entry of ``slug``; ``unknown_game`` if none."""
    info = next((g for g in catalogue() if g["slug"] == slug), None)
    if info is None:
        known = ", ".join(g["slug"] for g in catalogue())
        raise AppError(
            ErrorCode.UNKNOWN_GAME, f"unknown game {excerpt(slug)} (known: {known})", field="game"
        )
    return info


def parse_options(info: dict[str, Any], raw: str | None) -> dict[str, Any]:
    """``raw`` (``size=5,variant=dense``, in any order; absent: the defaults) as one of the game's
    option sets, its values typed as the catalogue gives them; ``bad_filter`` otherwise."""
    if raw is None:
        return {o["name"]: o["default"] for o in info["options"]}
    wanted = {o["name"]: {str(c): c for c in o["choices"]} for o in info["options"]}
    form = ",".join(f"{name}=<{'|'.join(choices)}>" for name, choices in wanted.items())
    pairs = dict(p.partition("=")[::2] for p in raw.split(",")) if raw else {}
    if set(pairs) != set(wanted) or any(v not in wanted[k] for k, v in pairs.items()):
        raise _refuse("options", f"options of {info['slug']} are {form}, not {excerpt(raw)}")
    return {name: wanted[name][value] for name, value in pairs.items()}


def _key(options: dict[str, Any]) -> str:
    return ",".join(f"{name}={options[name]}" for name in sorted(options))


def option_sets(info: dict[str, Any]) -> list[dict[str, str]]:
    """Every option set the catalogue offers for a game, as its key and words (``size 5,
    dense``), the page's selector."""
    sets: list[dict[str, Any]] = [{}]
    for option in info["options"]:
        sets = [{**s, option["name"]: choice} for s in sets for choice in option["choices"]]
    return [
        {
            "key": _key(s),
            "label": ", ".join(f"{k} {v}" if k == "size" else str(v) for k, v in s.items()),
        }
        for s in sets
    ]


def _source(raw: str) -> Source:
    if raw not in get_args(Source):
        raise _refuse("source", f"source must be all, here or imported, not {excerpt(raw)}")
    return raw  # type: ignore[return-value]  # checked against Source above


def _known(request: Request) -> None:
    for name in request.query_params:
        if name not in PARAMETERS:
            field = name[:40] if name.isprintable() else excerpt(name)
            raise _refuse(field, f"the statistics have no parameter {excerpt(name)}")


@router.get("/api/stats/{game}", response_model=StatsOut, responses=error_responses(422))
async def stats(
    request: Request,
    response: Response,
    game: str,
    service: ServiceDep,
    options: str | None = None,
    source: str = "all",
) -> dict[str, Any]:
    """One game and option set's statistics, from counters kept as games finish."""
    _known(request)
    info = _game(game)
    chosen = parse_options(info, options)
    answer = await service.stats.figures(game, chosen, _source(source))
    response.headers["Cache-Control"] = "public, max-age=5"
    return answer


@router.get(
    "/stats/{game}",
    response_class=HTMLResponse,
    responses={**PAGE_404, **page_error_responses(422)},
)
async def stats_page(
    request: Request, game: str, options: str | None = None, source: str = "all"
) -> HTMLResponse:
    """A game's statistics page: the option set and source in the URL, the charts drawn by
    ``static/js/stats.js`` from ``GET /api/stats/{game}``."""
    try:
        info = _game(game)
    except AppError as exc:  # no such page: the HTML 404
        raise HTTPException(404, exc.message) from None
    # a bad option set or source is the link's mistake: the one error shape, as the API's
    chosen = parse_options(info, options)
    _source(source)
    context = {
        "info": info,
        "games": catalogue(),
        "option_sets": option_sets(info),
        "options_key": _key(chosen),
        "source": source,
    }
    return templates.TemplateResponse(request, "stats.html", context)
