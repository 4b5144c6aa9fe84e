"""Request plumbing: the guest cookie middleware and the dependencies routes declare.

Who a request is (:func:`get_visitor`): the account of a valid session cookie, else the guest of the
guest cookie. A guest cookie naming an account's player, without that account's session (the
browser logged out, or was logged out everywhere), counts as none: the browser gets a fresh guest,
and the middleware sets its cookie.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from starlette.requests import HTTPConnection, cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.identity import COOKIE, COOKIE_MAX_AGE, Signer, new_guest_id
from app.identity.cookies import set_cookie_header
from app.identity.sessions import SESSION_COOKIE
from app.services import GameService, Visitor


class GuestMiddleware:
    """Gives every visitor a guest id: read from the signed cookie, or new (and then set).

    A cookie that is old, has no issue time or was signed with the previous key is set again, with
    the same id issued now. So is a new id that the app put in ``state["guest_id"]`` while answering
    (:func:`get_visitor`, logging out). A pure ASGI middleware, so it also covers websockets (which
    cannot set cookies: a socket without a valid cookie is an anonymous spectator with a throwaway
    id).
    """

    def __init__(self, app: ASGIApp, signer: Signer, secure: bool) -> None:
        self.app = app
        self.signer = signer
        self.secure = secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        cookies: dict[str, str] = {}
        for name, value in scope.get("headers", []):
            if name == b"cookie":
                cookies.update(cookie_parser(value.decode("latin-1")))
        guest = self.signer.read(cookies.get(COOKIE))
        fresh = guest is None
        guest_id = new_guest_id() if guest is None else guest.id
        state: dict[str, Any] = scope.setdefault("state", {})
        state["guest_id"] = guest_id
        state["guest_fresh"] = fresh
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        stale = guest is None or guest.reissue

        async def send_with_cookie(message: Message) -> None:
            current = state.get("guest_id", guest_id)
            if message["type"] == "http.response.start" and (stale or current != guest_id):
                cookie = self.signer.sign(current)
                headers = list(message.get("headers", []))
                headers.append(set_cookie_header(COOKIE, cookie, COOKIE_MAX_AGE, self.secure))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


async def get_service(request: Request) -> GameService:
    """The app's game service."""
    service: GameService = request.app.state.service
    return service


ServiceDep = Annotated[GameService, Depends(get_service)]


async def resolve_visitor(connection: HTTPConnection, service: GameService) -> Visitor:
    """Who a request or socket is (once per request: kept in its state). With a session, also
    ``state.session_id``; a guest cookie that names an account's player is replaced by a fresh
    guest (the middleware sets its cookie; a socket keeps a throwaway id)."""
    state = connection.state
    known: Visitor | None = getattr(state, "visitor", None)
    if known is not None:
        return known
    resolved = await service.accounts.resolve(
        state.guest_id, state.guest_fresh, connection.cookies.get(SESSION_COOKIE)
    )
    if resolved.new_guest is not None:
        state.guest_id = resolved.new_guest
    state.session_id = resolved.session_id
    state.visitor = resolved.visitor
    return resolved.visitor


async def get_visitor(request: Request, service: ServiceDep) -> Visitor:
    """The visitor making the request, with its current name (see :func:`resolve_visitor`)."""
    return await resolve_visitor(request, service)


VisitorDep = Annotated[Visitor, Depends(get_visitor)]


async def page_visitor(request: Request) -> Visitor | None:
    """A page's visitor, for its header (None where the app runs without its services: pages
    rendered alone, as the rules pages' tests do)."""
    service: GameService | None = getattr(request.app.state, "service", None)
    return None if service is None else await resolve_visitor(request, service)
