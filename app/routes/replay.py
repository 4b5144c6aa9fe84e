"""``POST /api/replay``: the views after the plies asked of a move list, for review and replay.

The browser holds no rule, so it asks for earlier positions here; the reading service replays the
moves through the rules runner (a worker, under ``REPLAY_TIMEOUT``) and names the first bad ply, as
for an imported record. An answer holds at most ``REPLAY_MAX_VIEWS`` views and about 1 MB: the
client asks for the window it needs (``from``, ``count``) and follows ``next``.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from app.deps import ServiceDep
from app.errors import AppError, ErrorCode
from app.parsing import TOO_DEEP, json_fault
from app.runtime.limiter import rate_limited
from app.schemas import error_responses
from app.schemas.requests import REPLAY_BODY
from app.schemas.responses import ReplayOut
from app.services.reading import REPLAY_MAX_VIEWS

router = APIRouter()

MAX_REPLAY_PLIES = 2000
MAX_REPLAY_BYTES = 1 << 20


@router.post(
    "/api/replay",
    response_model=ReplayOut,
    responses=error_responses(422, 429, 503),
    openapi_extra=REPLAY_BODY,
    dependencies=[Depends(rate_limited("replay per visitor", "replay per IP"))],
)
async def replay_views(request: Request, service: ServiceDep) -> Response:
    """The views after plies ``from`` .. ``from + count - 1`` of ``{"game", "options", "moves"}``
    (ply 0: before any move), for review."""
    raw = await request.body()
    if len(raw) > MAX_REPLAY_BYTES:
        raise _replay_error(f"the body is over {MAX_REPLAY_BYTES} bytes")
    try:
        body = json.loads(raw)
    except RecursionError:
        raise AppError(ErrorCode.BAD_JSON, TOO_DEEP, ply=None) from None
    except ValueError:  # syntax, encoding, an integer of over 4,300 digits: bad_json, as import
        raise AppError(ErrorCode.BAD_JSON, "the body must be JSON", ply=None) from None
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
    first = _natural(body, "from", 0, MAX_REPLAY_PLIES)
    count = _natural(body, "count", REPLAY_MAX_VIEWS, REPLAY_MAX_VIEWS, minimum=1)
    # Encoded by the worker (ReplayOut's shape, checked by the tests): up to 1 MB of views that
    # the event loop neither validates nor encodes again.
    encoded = await service.reading.replay(
        body.get("game"), body.get("options", {}), moves, first, count
    )
    return Response(encoded, media_type="application/json")


def _natural(body: dict[str, Any], name: str, default: int, maximum: int, minimum: int = 0) -> int:
    """The integer field ``name`` of the body (``default`` if absent); ``invalid_request`` if it is
    no integer from ``minimum`` to ``maximum``."""
    value = body.get(name, default)
    if type(value) is not int or not minimum <= value <= maximum:
        shown = repr(value)[:40]
        raise AppError(
            ErrorCode.INVALID_REQUEST,
            f"{name} must be an integer from {minimum} to {maximum}, not {shown}",
            field=name,
        )
    return value


def _replay_error(message: str) -> AppError:
    return AppError(ErrorCode.INVALID_RECORD, message, ply=None)
