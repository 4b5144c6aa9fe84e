"""Accounts' HTTP API (``docs/protocol.md``, "Accounts"): sign up, log in, log out, the account.

The session cookie is set here, on the answers that start or end a session; the guest cookie by
:class:`app.deps.GuestMiddleware` (logging out gives the browser a fresh guest).
"""

from __future__ import annotations

from fastapi import APIRouter, BackgroundTasks, Depends, Request
from fastapi.responses import JSONResponse, Response

from app.deps import ServiceDep, VisitorDep
from app.identity import new_guest_id
from app.identity.cookies import set_cookie
from app.identity.sessions import IDLE_MS, SESSION_COOKIE
from app.identity.usernames import username_key
from app.runtime.limiter import Limiter, client_key, rate_limited
from app.schemas import error_responses
from app.schemas.accounts import (
    AccountOut,
    ClaimedOut,
    EmailIn,
    EmptyIn,
    LoggedOutOut,
    LoginIn,
    LoginOut,
    OkOut,
    PasswordIn,
    RecoverIn,
    ResetIn,
    SessionsOut,
    SettingsIn,
    SignupIn,
    VerifiedOut,
    VerifyIn,
)
from app.services import GameService, Visitor
from app.services.addresses import Letter

router = APIRouter()


def _client(request: Request) -> tuple[str | None, str | None]:
    """The user agent and address a session remembers (shown in the account's sessions)."""
    return request.headers.get("user-agent"), request.client.host if request.client else None


def _with_session(body: AccountOut, cookie: str, request: Request, status: int) -> JSONResponse:
    secure = request.app.state.settings.secure_cookies()
    response = JSONResponse(body.model_dump(), status_code=status)
    set_cookie(response, SESSION_COOKIE, cookie, IDLE_MS // 1000, secure)
    return response


@router.post(
    "/api/account/signup",
    status_code=201,
    response_model=AccountOut,
    responses=error_responses(409, 422, 429),
    dependencies=[Depends(rate_limited("signup per IP"))],
)
async def signup(
    body: SignupIn,
    request: Request,
    visitor: VisitorDep,
    service: ServiceDep,
    background: BackgroundTasks,
) -> JSONResponse:
    """Make an account of this browser's guest (its games stay its own) and sign in; an address
    given gets the link that verifies it."""
    agent, address = _client(request)
    login = await service.accounts.signup(
        visitor, body.username, body.password, body.email, agent, address
    )
    _mail_after(background, service, login.letter)
    return _with_session(login.body, login.cookie, request, 201)


def _mail_after(background: BackgroundTasks, service: GameService, letter: Letter | None) -> None:
    """Send ``letter`` once the answer is out, so that no answer waits on the SMTP server."""
    if letter is not None:
        background.add_task(service.mail.deliver, letter)


@router.post(
    "/api/account/login", response_model=LoginOut, responses=error_responses(401, 422, 429)
)
async def login(
    body: LoginIn, request: Request, visitor: VisitorDep, service: ServiceDep
) -> JSONResponse:
    """Start a session; ``claimable`` counts the games this browser's guest could attach.

    Attempts are counted per client address and per username tried (its key, whether or not an
    account has it: a limit reached says nothing about the account)."""
    agent, address = _client(request)
    limiter: Limiter = request.app.state.limiter
    tried = body.username.strip()[:100] if isinstance(body.username, str) else "?"
    await limiter.check(
        ("login per IP", client_key(address)), ("login per account", username_key(tried))
    )
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
    return _logged_out(request, OkOut(ok=True), visitor)


@router.get("/api/account", response_model=AccountOut, responses=error_responses(401))
async def account(visitor: VisitorDep, service: ServiceDep) -> AccountOut:
    """The signed-in account (401 ``not_signed_in`` without a session)."""
    return await service.accounts.account(visitor)


def _logged_out(request: Request, body: OkOut | LoggedOutOut, visitor: Visitor) -> JSONResponse:
    """An answer that clears the session cookie. A browser whose guest became the account's
    player goes on as a fresh guest; any other keeps its guest (a guest's own logout is a no-op)."""
    if visitor.account_id is not None and visitor.id == request.state.guest_id:
        request.state.guest_id = new_guest_id()  # the middleware sets its cookie
    secure = request.app.state.settings.secure_cookies()
    response = JSONResponse(body.model_dump())
    set_cookie(response, SESSION_COOKIE, "", 0, secure)
    return response


@router.post(
    "/api/account/logout-all", response_model=LoggedOutOut, responses=error_responses(401, 422)
)
async def logout_all(
    request: Request, visitor: VisitorDep, service: ServiceDep, body: EmptyIn | None = None
) -> JSONResponse:
    """End every session of the account, on every browser, this one too."""
    ended = await service.accounts.logout_everywhere(visitor)
    return _logged_out(request, LoggedOutOut(ended=ended), visitor)


@router.get("/api/account/sessions", response_model=SessionsOut, responses=error_responses(401))
async def sessions(request: Request, visitor: VisitorDep, service: ServiceDep) -> SessionsOut:
    """The account's live sessions."""
    return await service.accounts.sessions_of(visitor, request.state.session_id)


@router.delete(
    "/api/account/sessions/{session_id}",
    status_code=204,
    response_class=Response,
    responses=error_responses(401, 404),
)
async def revoke(session_id: str, visitor: VisitorDep, service: ServiceDep) -> Response:
    """End one of the account's sessions (its public id, from the sessions list)."""
    await service.accounts.revoke(visitor, session_id)
    return Response(status_code=204)


@router.post("/api/account/password", response_model=OkOut, responses=error_responses(401, 422))
async def password(
    body: PasswordIn, request: Request, visitor: VisitorDep, service: ServiceDep
) -> OkOut:
    """Change the password; every other session ends."""
    await service.accounts.change_password(
        visitor, body.current, body.new, request.state.session_id
    )
    return OkOut(ok=True)


@router.put("/api/account/settings", response_model=AccountOut, responses=error_responses(401, 422))
async def settings(body: SettingsIn, visitor: VisitorDep, service: ServiceDep) -> AccountOut:
    """Change the account's settings (``digest``: the turns digest by email)."""
    changes = body.model_dump(exclude_none=True)
    return await service.accounts.update_settings(visitor, changes)


@router.put(
    "/api/account/email", response_model=AccountOut, responses=error_responses(401, 409, 422, 429)
)
async def email(
    body: EmailIn,
    request: Request,
    visitor: VisitorDep,
    service: ServiceDep,
    background: BackgroundTasks,
) -> AccountOut:
    """Set the account's email address (null: none). A new address is unverified, and gets one
    mail: the link that verifies it."""
    limiter: Limiter = request.app.state.limiter
    reply = await service.accounts.set_email(visitor, body.email, limiter)
    _mail_after(background, service, reply.letter)
    return reply.body


@router.post(
    "/api/account/email/resend",
    status_code=202,
    response_model=OkOut,
    responses=error_responses(401, 409, 422, 429),
)
async def resend(
    request: Request,
    visitor: VisitorDep,
    service: ServiceDep,
    background: BackgroundTasks,
    body: EmptyIn | None = None,
) -> OkOut:
    """Mail the unverified address a new link that verifies it (the older links stop working)."""
    limiter: Limiter = request.app.state.limiter
    letter = await service.accounts.resend_verification(visitor, limiter)
    _mail_after(background, service, letter)
    return OkOut(ok=True)


@router.post(
    "/api/account/email/verify",
    response_model=VerifiedOut,
    responses=error_responses(403, 422, 429),
    dependencies=[Depends(rate_limited("login per IP"))],
)
async def verify(body: VerifyIn, service: ServiceDep) -> VerifiedOut:
    """Verify an address with the token of the link mailed to it (once); no session needed, since
    the link may be opened on another device."""
    return await service.addresses.verify(body.token)


@router.post("/api/account/claim", response_model=ClaimedOut, responses=error_responses(401, 422))
async def claim(
    request: Request, visitor: VisitorDep, service: ServiceDep, body: EmptyIn | None = None
) -> ClaimedOut:
    """Attach the games of this browser's guest to the signed-in account."""
    return await service.accounts.claim(visitor, request.state.guest_id)


@router.post(
    "/api/account/recover",
    status_code=202,
    response_model=OkOut,
    responses=error_responses(409, 422, 429),
    dependencies=[Depends(rate_limited("signup per IP"))],
)
async def recover(body: RecoverIn, service: ServiceDep, background: BackgroundTasks) -> OkOut:
    """Mail a recovery link to the account named (by username or email), if there is one: the
    answer is the same either way, and comes before the database is asked, so its time is the
    same too. Counted with the sign-ups per address."""
    key = service.mail.recovery_of(body.username_or_email)
    if key is not None:
        background.add_task(service.mail.send_recovery, key)
    return OkOut(ok=True)


@router.post(
    "/api/account/reset",
    response_model=OkOut,
    responses=error_responses(403, 422, 429),
    dependencies=[Depends(rate_limited("login per IP"))],
)
async def reset(body: ResetIn, service: ServiceDep) -> OkOut:
    """Set a new password with a recovery link (once); every session of the account ends."""
    return await service.mail.reset(body.token, body.password)
