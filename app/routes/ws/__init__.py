"""Websockets: ``/ws/games/{id}`` (play and watch one game: :mod:`.game`), ``/ws/live`` and
``/ws/me`` (the lists: :mod:`.lists`), over the transport they share (:mod:`.transport`).

Thin: each socket parses and rate-limits what it receives, hands messages to the service and
forwards what the hub publishes. See ``docs/protocol.md`` for every message.
"""

from fastapi import APIRouter

from app.routes.ws import game, lists
from app.routes.ws.game import publish_spectators, recount_spectators

# The endpoints themselves, not a router included in another (which FastAPI keeps as a lazy
# wrapper that readers of app.routes, such as the protocol document's test, cannot list).
router = APIRouter(routes=[*game.router.routes, *lists.router.routes])

__all__ = ["publish_spectators", "recount_spectators", "router"]
