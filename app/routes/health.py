"""``GET /healthz``: is the process up and can it reach its database."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.repository.reads import database_status
from app.schemas.responses import HealthOut

router = APIRouter()


@router.get("/healthz", response_model=HealthOut, responses={503: {"model": HealthOut}})
async def healthz(request: Request) -> JSONResponse:
    """200 with the database status when the database answers, else 503."""
    database = await database_status(request.app.state.engine)
    body: dict[str, Any] = {"status": "ok" if database["ok"] else "degraded", "database": database}
    return JSONResponse(body, status_code=200 if database["ok"] else 503)
