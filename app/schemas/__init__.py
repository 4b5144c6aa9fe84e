"""The typed protocol (``docs/protocol.md``): request bodies, answers, websocket messages, the view.

``requests``: HTTP bodies; ``responses``: HTTP answers and the objects messages share; ``messages``:
the websocket unions; ``view``: the view's TypedDicts. ``python -m app.schemas`` writes the JSON
Schemas of the view and of the websocket messages into ``docs/``.
"""

from app.schemas.messages import CLIENT_MESSAGE, SERVER_MESSAGE, ClientMessage, ServerMessage
from app.schemas.requests import CreateIn, JoinIn, MoveIn, NameIn, ReplayIn, ResignIn
from app.schemas.responses import ErrorOut, error_responses
from app.schemas.view import View

__all__ = [
    "CLIENT_MESSAGE",
    "SERVER_MESSAGE",
    "ClientMessage",
    "CreateIn",
    "ErrorOut",
    "JoinIn",
    "MoveIn",
    "NameIn",
    "ReplayIn",
    "ResignIn",
    "ServerMessage",
    "View",
    "error_responses",
]
