"""The application factory: ``uvicorn app.main:create_app --factory``."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app import web_errors
from app.config import Settings, get_settings
from app.db import make_engine, make_sessionmaker
from app.deps import GuestMiddleware
from app.hub import make_hub
from app.identity import Signer
from app.routes import api, health, pages, ws
from app.services import GameService
from app.templating import STATIC_DIR
from app.writer import Writer

log = logging.getLogger("hexmoot")


async def _sweep_abandoned(service: GameService, every: float) -> None:
    """End idle games now and then (each process may sweep: the version guard makes it safe)."""
    while True:
        try:
            await service.abandon_idle()
        except Exception:  # keep sweeping after a transient database error
            log.exception("abandonment sweep failed")
        await asyncio.sleep(every)


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new app bound to ``settings`` (the environment's by default)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url)
        hub = make_hub(settings.redis_url, settings.redis_prefix)
        app.state.engine = engine
        app.state.sessionmaker = make_sessionmaker(engine)
        app.state.hub = hub
        writer = Writer(engine)
        app.state.service = GameService(app.state.sessionmaker, hub, settings, writer)
        app.state.socket_counts = Counter()
        if settings.gc_thresholds is not None:
            # Objects alive after startup (modules, rules tables) never need collecting again.
            gc.collect()
            gc.freeze()
            gc.set_threshold(*settings.gc_thresholds)
        sweeper = asyncio.create_task(
            _sweep_abandoned(app.state.service, settings.abandon_check_every)
        )
        try:
            yield
        finally:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
            await hub.close()
            app.state.service.compute.close()
            writer.close()
            await engine.dispose()

    app = FastAPI(title="Hexmoot", lifespan=lifespan)
    app.state.settings = settings
    app.add_middleware(
        GuestMiddleware, signer=Signer(settings.secret_key), secure=settings.cookie_secure
    )

    web_errors.install(app)
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")
    app.include_router(health.router)
    app.include_router(api.router)
    app.include_router(ws.router)
    app.include_router(pages.router)
    return app
