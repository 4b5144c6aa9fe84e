"""Request plumbing: the guest cookie middleware and the dependencies routes declare."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.identity import COOKIE, COOKIE_MAX_AGE, Signer, new_guest_id
from app.services import GameService, Visitor


class GuestMiddleware:
    """Gives every visitor a guest id: read from the signed cookie, or new (and then set).

    A cookie that is old, has no issue time or was signed with the previous key is set again, with
    the same id issued now. A pure ASGI middleware, so it also covers websockets (which cannot set
    cookies: a socket without a valid cookie is an anonymous spectator with a throwaway id).
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
        if not (guest is None or guest.reissue) or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cookie = (
            f"{COOKIE}={self.signer.sign(guest_id)}; Max-Age={COOKIE_MAX_AGE}; Path=/; "
            f"HttpOnly; SameSite=Lax{'; Secure' if self.secure else ''}"
        )

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"set-cookie", cookie.encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


async def get_service(request: Request) -> GameService:
    """The app's game service."""
    service: GameService = request.app.state.service
    return service


ServiceDep = Annotated[GameService, Depends(get_service)]


async def get_visitor(request: Request, service: ServiceDep) -> Visitor:
    """The guest making the request, with its current name."""
    return await service.visitor(request.state.guest_id)


VisitorDep = Annotated[Visitor, Depends(get_visitor)]
