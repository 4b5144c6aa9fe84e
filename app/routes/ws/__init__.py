"""Websockets: ``/ws/games/{id}`` (play and watch one game: :mod:`.game`), ``/ws/live`` and
``/ws/me`` (the lists: :mod:`.lists`), over the transport they share (:mod:`.transport`).

Thin: each socket parses and rate-limits what it receives, hands messages to the service and
forwards what the hub publishes. See ``docs/protocol.md`` for every message.
"""

from fastapi import APIRouter

from app.routes.ws import game, lists
from app.routes.ws.game import publish_spectators

router = APIRouter()
router.include_router(game.router)
router.include_router(lists.router)

__all__ = ["publish_spectators", "router"]
