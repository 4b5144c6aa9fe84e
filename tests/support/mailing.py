"""The app as the mail tests run it: sending through a real SMTP server on loopback
(:mod:`tests.support.smtp`), links on ``https://hexmoot.example``, a fake clock, and no digest
timer (the tests call ``send_digests`` themselves); its browsers; a game waiting for a turn.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI

from app.config import Settings
from app.domain.clock import FakeClock
from app.main import create_app
from tests.support.contract import checked
from tests.support.gameplay import MovePicker, quick_game
from tests.support.smtp import SmtpServer

ORIGIN = "https://hexmoot.example"


@asynccontextmanager
async def mail_app(
    settings: Settings, smtp: SmtpServer, clock: FakeClock, **overrides: Any
) -> AsyncIterator[FastAPI]:
    """The app of ``settings`` mailing through ``smtp`` on ``clock``, its lifespan running."""
    changes = {
        **smtp.settings(),
        "public_origin": ORIGIN,
        "digest_check_every": 10**9,  # the tests call send_digests themselves
        **overrides,
    }
    application = create_app(settings.model_copy(update=changes), clock=clock)
    async with application.router.lifespan_context(application):
        yield application


def site_client(app: FastAPI) -> httpx.AsyncClient:
    """A browser of the site (https: its cookies are Secure, as PUBLIC_ORIGIN says)."""
    return checked(httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=ORIGIN))


async def your_turn_game(first: httpx.AsyncClient, second: httpx.AsyncClient) -> str:
    """A game ``first`` created (seat 1) and ``second`` joined, played until ``second`` is to move."""
    slug, options = quick_game()
    created = (
        await first.post("/api/games", json={"game": slug, "options": options, "seat": 1})
    ).json()
    joined = await second.post(
        f"/api/games/{created['id']}/join", json={"token": created["join_token"]}
    )
    picker = MovePicker(slug, options)
    version = joined.json()["version"]
    while picker.to_move() == 1:  # the opening may take several plies of seat 1
        move = picker.pick()
        answer = await first.post(
            f"/api/games/{created['id']}/moves",
            json={"move": move, "version": version, "msg_id": f"m{version}"},
        )
        assert answer.status_code == 200, answer.text
        picker.play(move)
        version = answer.json()["version"]
    return str(created["id"])
