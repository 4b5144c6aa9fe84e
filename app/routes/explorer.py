"""``GET /api/explorer/{game}``: the opening explorer's node after a line of moves (issue 28).

The options and the moves are in the URL (``?options=size=5&moves=e3/e7+white+e5``), so a node is
a link, and its answer may be kept by the browser for a short while (``Cache-Control: private``:
a first visit's answer carries the visitor's new guest cookie, which a shared cache must not hand to
others); the service keeps answers a short while too, for everyone. Requests are counted by the
explorer's rate limits, cached or not.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from app.deps import ServiceDep
from app.errors import AppError, ErrorCode, excerpt
from app.runtime.limiter import rate_limited
from app.schemas import error_responses
from app.schemas.responses import ExplorerOut

router = APIRouter()

PARAMETERS = frozenset({"options", "moves"})


@router.get(
    "/api/explorer/{game}",
    response_model=ExplorerOut,
    responses=error_responses(422, 429),
    dependencies=[Depends(rate_limited("explorer per visitor", "explorer per IP"))],
)
async def explorer(
    request: Request,
    response: Response,
    service: ServiceDep,
    game: str,
    options: str | None = None,
    moves: str | None = None,
) -> dict[str, Any]:
    """The position after ``moves`` (move texts separated by spaces, at most 24) from the start
    of ``game`` with ``options`` (``size=5,variant=dense``; absent: the defaults): the finished
    games that reached it and every continuation they played."""
    for name in request.query_params:
        if name not in PARAMETERS:
            raise AppError(
                ErrorCode.BAD_OPTION,
                f"the explorer takes options and moves, not {excerpt(name)}",
                field=name[:40] if name.isprintable() else excerpt(name),
            )
    answer = await service.explorer.node(game, options, moves)
    # private: a first visit's answer carries its new guest cookie, which no shared cache may keep
    seconds = int(service.explorer.core.settings.explorer_cache_seconds)
    response.headers["Cache-Control"] = f"private, max-age={seconds}"
    return answer
