"""``POST /api/replay``: the view after every ply of a move list, for review and replay.

The browser holds no rule, so it asks for earlier positions here; the reading service replays the
moves through the rules runner and names the first bad ply, as for an imported record.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Depends, Request

from app.deps import ServiceDep
from app.errors import AppError, ErrorCode
from app.parsing import TOO_DEEP, json_fault
from app.runtime.limiter import rate_limited
from app.schemas import error_responses
from app.schemas.requests import REPLAY_BODY
from app.schemas.responses import ReplayOut

router = APIRouter()

MAX_REPLAY_PLIES = 2000
MAX_REPLAY_BYTES = 1 << 20


@router.post(
    "/api/replay",
    response_model=ReplayOut,
    responses=error_responses(422, 429),
    openapi_extra=REPLAY_BODY,
    dependencies=[Depends(rate_limited("replay per visitor", "replay per IP"))],
)
async def replay_views(request: Request, service: ServiceDep) -> dict[str, Any]:
    """The view after every ply of ``{"game", "options", "moves"}`` (ply 0 first), for review."""
    raw = await request.body()
    if len(raw) > MAX_REPLAY_BYTES:
        raise _replay_error(f"the body is over {MAX_REPLAY_BYTES} bytes")
    try:
        body = json.loads(raw)
    except RecursionError:
        raise AppError(ErrorCode.BAD_JSON, TOO_DEEP, ply=None) from None
    except ValueError:  # syntax, encoding, an integer of over 4,300 digits
        raise _replay_error("the body must be JSON") from None
    fault = json_fault(body)
    if fault is not None:
        raise AppError(ErrorCode.BAD_JSON, fault, ply=None)
    if not isinstance(body, dict):
        raise _replay_error("the body must be a JSON object")
    moves = body.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise _replay_error("moves must be a list of move texts")
    if len(moves) > MAX_REPLAY_PLIES:
        raise _replay_error(f"at most {MAX_REPLAY_PLIES} moves, not {len(moves)}")
    views = await service.replay(body.get("game"), body.get("options", {}), moves)
    return {"views": views}


def _replay_error(message: str) -> AppError:
    return AppError(ErrorCode.INVALID_RECORD, message, ply=None)
