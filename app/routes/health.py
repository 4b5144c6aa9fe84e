"""``GET /healthz``: is the process up, and can it reach its database and (if configured) Redis."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.repository.reads import database_status
from app.runtime.hub import Hub
from app.schemas.responses import HealthOut

router = APIRouter()


@router.get("/healthz", response_model=HealthOut, responses={503: {"model": HealthOut}})
async def healthz(request: Request) -> JSONResponse:
    """Each dependency's status; ``degraded`` while one is down. 503 only when the database is:
    without Redis the process still serves its own sockets, so it stays in the pool."""
    database = await database_status(request.app.state.engine)
    hub: Hub = request.app.state.hub
    redis = await hub.health()
    healthy = database["ok"] and (redis is None or redis["ok"])
    body: dict[str, Any] = {
        "status": "ok" if healthy else "degraded",
        "database": database,
        "redis": redis,
    }
    return JSONResponse(body, status_code=200 if database["ok"] else 503)
