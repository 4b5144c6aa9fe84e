"""The application factory: ``uvicorn app.main:create_app --factory``."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware
from starlette.staticfiles import StaticFiles

from app import openapi, security, web_errors
from app.config import Settings, get_settings
from app.db import make_engine, make_sessionmaker
from app.deps import GuestMiddleware
from app.domain.clock import Clock
from app.http_limits import BodyLimit
from app.identity import Signer
from app.identity.sessions import SessionSigner
from app.repository.writer import Writer
from app.routes import (
    account,
    api,
    archive,
    bots,
    explorer,
    health,
    mine,
    pages,
    players,
    replay,
    stats,
    table,
    ws,
)
from app.runtime.clock import OffsetClock, SystemClock
from app.runtime.hub import make_hub
from app.runtime.limiter import Limiter
from app.runtime.rules import RulesRunner
from app.runtime.scheduler import every
from app.runtime.sockets import make_socket_limits
from app.runtime.throttle import Throttle
from app.services import GameService
from app.static_files import STATIC_DIR, VersionedStaticFiles, served


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """A new app bound to ``settings`` (the environment's by default) and ``clock`` (the system's
    by default: tests pass a fake one to drive the timers)."""
    settings = settings or get_settings()
    if clock is None:
        clock = (
            OffsetClock(settings.clock_offset_file, settings.clock_frozen)
            if settings.clock_offset_file
            else SystemClock()
        )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url, settings.database_timeout)
        hub = make_hub(
            settings.redis_url,
            settings.redis_prefix,
            backoff_min=settings.redis_backoff_min,
            backoff_max=settings.redis_backoff_max,
            timeout=settings.redis_timeout,
            subscribe_timeout=settings.redis_subscribe_timeout,
            presence_ttl=settings.presence_ttl,
            presence_refresh=settings.presence_refresh,
        )
        await hub.start()  # the Redis listener and presence refresher, before the first socket
        app.state.engine = engine
        app.state.sessionmaker = make_sessionmaker(engine)
        app.state.hub = hub
        writer = Writer(engine)
        rules = RulesRunner(settings.rules_workers, settings.rules_timeout)
        app.state.clock = clock
        app.state.rules = rules
        service = GameService(
            app.state.sessionmaker, hub, settings, writer, rules, clock, session_signer
        )
        app.state.service = service
        # Quotas and rate limits, and the sockets per guest and per client address (each shared
        # through Redis when it is configured), and the spectator counts, sent at most once per
        # SPECTATORS_EVERY per game.
        app.state.limiter = Limiter.from_settings(settings)
        app.state.sockets = make_socket_limits(settings, clock)
        await app.state.sockets.start()
        app.state.spectator_counts = Throttle(
            clock, settings.spectators_every, partial(ws.publish_spectators, hub)
        )
        # Counts that changed without a join or a leave (a killed process's presence expired):
        # the spectators, and the seated players then away.
        recount = asyncio.create_task(
            every(clock, settings.presence_refresh, partial(ws.recount_spectators, hub))
        )
        recount_away = asyncio.create_task(
            every(clock, settings.presence_refresh, service.table.recount_away)
        )
        if settings.gc_thresholds is not None:
            # Objects alive after startup (modules, rules tables) never need collecting again.
            gc.collect()
            gc.freeze()
            gc.set_threshold(*settings.gc_thresholds)
        # Nobody's clock ran while the site was down; then the sign of life and the deadlines.
        await service.deadlines.start_up()
        beats = asyncio.create_task(every(clock, settings.beat_every, service.deadlines.beat))
        deadlines = asyncio.create_task(service.deadlines.run())
        app.state.deadlines_task = deadlines
        # End idle games now and then: the process holding the sweep's lease does (as for the
        # deadlines; a second sweeper could do no harm, each ending is version-guarded).
        # The bots (issue 29): their accounts, then the drivers of their games, woken by the bots'
        # channels and by a sweep (each game driven by the process holding its lease).
        await service.bots.start_up()
        bot_wakes = asyncio.create_task(service.bots.listen())
        bot_sweeps = asyncio.create_task(every(clock, settings.bot_sweep_every, service.bots.sweep))
        sweeper = asyncio.create_task(
            every(clock, settings.abandon_check_every, service.deadlines.sweep_abandoned)
        )
        # Turn digests by email (any process may look: a conditional UPDATE picks the sender).
        digests = asyncio.create_task(
            every(clock, settings.digest_check_every, service.mail.send_digests)
        )
        # The archive's monthly dumps, built by one process at a time (the "dumps" lease).
        tasks = [sweeper, digests, beats, deadlines, recount, recount_away, bot_wakes, bot_sweeps]
        if settings.dumps_every:
            tasks.append(
                asyncio.create_task(every(clock, settings.dumps_every, service.dumps.build_due))
            )
        try:
            yield
        finally:
            await app.state.spectator_counts.close()
            await app.state.limiter.close()
            await app.state.sockets.close()
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await service.bots.close()
            await hub.close()
            rules.close()
            writer.close()
            await engine.dispose()

    app = FastAPI(title="Hexmoot", lifespan=lifespan)
    app.state.settings = settings
    key = settings.signing_key()  # refuses to start without a SECRET_KEY of 32 bytes
    signer = Signer(
        key,
        settings.secret_key_previous,
        reissue_after=settings.cookie_reissue_after,
        now=lambda: clock.now() / 1000,
    )
    session_signer = SessionSigner(
        key, settings.secret_key_previous, now=lambda: clock.now() / 1000
    )
    # Innermost: answers over 1 KB gzipped for clients that accept it (Vary: Accept-Encoding); the
    # outer layers (cookie, body limit, security headers) see and keep their headers as they are.
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    app.add_middleware(GuestMiddleware, signer=signer, secure=settings.secure_cookies())
    # A body over its cap, or slower than BODY_TIMEOUT, is refused before the app has it whole.
    app.add_middleware(BodyLimit, timeout=settings.body_timeout)
    security.install(app, settings)  # headers on every answer; websocket origins

    web_errors.install(app)
    openapi.install(app)
    # What the browser loads: static/ with its CSS minified and its JS stripped (app.static_files).
    app.mount(
        "/static",
        VersionedStaticFiles(directory=served(STATIC_DIR), check_dir=False),
        name="static",
    )
    # The archive's monthly dumps, as the files they are (app/services/dumps.py); nothing else is
    # in that directory (a dump is written beside it and renamed in whole).
    app.mount(
        "/dumps/files", StaticFiles(directory=settings.dumps_dir, check_dir=False), name="dumps"
    )
    app.include_router(health.router)
    app.include_router(api.router)
    app.include_router(archive.router)
    app.include_router(account.router)
    app.include_router(mine.router)
    app.include_router(table.router)
    app.include_router(players.router)
    app.include_router(replay.router)
    app.include_router(bots.router)
    app.include_router(stats.router)
    app.include_router(explorer.router)
    app.include_router(ws.router)
    app.include_router(pages.router)
    return app
