"""Accounts' HTTP API (``docs/protocol.md``, "Accounts"): sign up, log in, log out, the account.

The session cookie is set here, on the answers that start or end a session; the guest cookie by
:class:`app.deps.GuestMiddleware` (logging out gives the browser a fresh guest).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.accounts.sessions import IDLE_MS, cookie_header
from app.deps import ServiceDep, VisitorDep
from app.identity import new_guest_id
from app.schemas import error_responses
from app.schemas.accounts import AccountOut, EmptyIn, LoginIn, LoginOut, OkOut, SignupIn

router = APIRouter()


def _client(request: Request) -> tuple[str | None, str | None]:
    """The user agent and address a session remembers (shown in the account's sessions)."""
    return request.headers.get("user-agent"), request.client.host if request.client else None


def _with_session(body: dict[str, Any], cookie: str, request: Request, status: int) -> JSONResponse:
    secure = request.app.state.settings.secure_cookies()
    response = JSONResponse(body, status_code=status)
    response.headers.append("set-cookie", cookie_header(cookie, IDLE_MS // 1000, secure))
    return response


@router.post(
    "/api/account/signup",
    status_code=201,
    response_model=AccountOut,
    responses=error_responses(409, 422),
)
async def signup(
    body: SignupIn, request: Request, visitor: VisitorDep, service: ServiceDep
) -> JSONResponse:
    """Make an account of this browser's guest (its games stay its own) and sign in."""
    agent, address = _client(request)
    login = await service.accounts.signup(
        visitor, body.username, body.password, body.email, agent, address
    )
    return _with_session(login.body, login.cookie, request, 201)


@router.post("/api/account/login", response_model=LoginOut, responses=error_responses(401, 422))
async def login(
    body: LoginIn, request: Request, visitor: VisitorDep, service: ServiceDep
) -> JSONResponse:
    """Start a session; ``claimable`` counts the games this browser's guest could attach."""
    agent, address = _client(request)
    started = await service.accounts.login(
        visitor,
        request.state.guest_id,
        body.username,
        body.password,
        request.state.session_id,
        agent,
        address,
    )
    return _with_session(started.body, started.cookie, request, 200)


@router.post("/api/account/logout", response_model=OkOut, responses=error_responses(422))
async def logout(
    request: Request, visitor: VisitorDep, service: ServiceDep, body: EmptyIn | None = None
) -> JSONResponse:
    """End this browser's session. The browser goes on as its guest if that guest is still a
    guest (it logged in without attaching its games), else as a fresh guest."""
    await service.accounts.logout(visitor, request.state.session_id)
    if visitor.id == request.state.guest_id:  # this browser's guest became the account's player
        request.state.guest_id = new_guest_id()  # the middleware sets its cookie
    secure = request.app.state.settings.secure_cookies()
    response = JSONResponse({"ok": True})
    response.headers.append("set-cookie", cookie_header("", 0, secure))
    return response


@router.get("/api/account", response_model=AccountOut, responses=error_responses(401))
async def account(visitor: VisitorDep, service: ServiceDep) -> dict[str, Any]:
    """The signed-in account (401 ``not_signed_in`` without a session)."""
    return await service.accounts.account(visitor)
