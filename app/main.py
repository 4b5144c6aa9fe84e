"""The application factory: ``uvicorn app.main:create_app --factory``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app.config import Settings, get_settings
from app.db import make_engine, make_sessionmaker
from app.routes import health, pages
from app.templating import STATIC_DIR


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new app bound to ``settings`` (the environment's by default)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url)
        app.state.engine = engine
        app.state.sessionmaker = make_sessionmaker(engine)
        try:
            yield
        finally:
            await engine.dispose()

    app = FastAPI(title="Hexmoot", lifespan=lifespan)
    app.state.settings = settings
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")
    app.include_router(health.router)
    app.include_router(pages.router)
    return app
