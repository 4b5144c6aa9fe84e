"""``GET /healthz``: is the process up, and can it reach its database and (if configured) Redis."""

from __future__ import annotations

import asyncio
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
    engine = request.app.state.engine
    try:  # a database that stopped answering is as down as one that refuses (issue 27)
        async with asyncio.timeout(request.app.state.settings.database_timeout):
            database = await database_status(engine)
    except TimeoutError:
        database = {"ok": False, "backend": engine.dialect.name, "error": "TimeoutError"}
    hub: Hub = request.app.state.hub
    redis = await hub.health()
    healthy = database["ok"] and (redis is None or redis["ok"])
    body: dict[str, Any] = {
        "status": "ok" if healthy else "degraded",
        "database": database,
        "redis": redis,
    }
    return JSONResponse(body, status_code=200 if database["ok"] else 503)
