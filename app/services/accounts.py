"""Accounts: signing up, logging in and out, and who a request is (:meth:`AccountService.resolve`).

A guest signs up by turning its own player row into the account's primary player, so every game it
played stays where it is. A session is a row (:mod:`app.identity.sessions`); a player row that an
account owns acts only through a session of that account, so a guest cookie naming it is treated as
no cookie at all (:meth:`resolve` gives a fresh guest instead).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.errors import AppError, ErrorCode
from app.identity import default_name, new_guest_id, sessions, tokens, validate_name
from app.identity.passwords import check_password_rules
from app.identity.usernames import username_key, validate_username
from app.models import Account
from app.repository import accounts as store
from app.repository import reads
from app.repository.writes import PlayerName
from app.runtime.hub import SESSIONS_ENDED, account_channel
from app.runtime.limiter import Limiter
from app.schemas.accounts import (
    AccountOut,
    AccountSettingsOut,
    ClaimedOut,
    LoginOut,
    SessionOut,
    SessionsOut,
)
from app.services.addresses import AddressService, Letter, Reply, validate_email
from app.services.core import Core, Visitor

#: The settings of a new account.
DEFAULT_SETTINGS: dict[str, Any] = {"digest": False, "confirm_moves": None}


@dataclass(frozen=True)
class Resolved:
    """Who a request is: the visitor; the new guest id to give the browser (its cookie named an
    account's player without that account's session), or None; and the session's id, if any."""

    visitor: Visitor
    new_guest: str | None = None
    session_id: str | None = None


@dataclass(frozen=True)
class Login:
    """A session started: the answer's body, the session cookie's value, and the letter to send
    after the answer (a new account's verification link), if any."""

    body: AccountOut
    cookie: str
    letter: Letter | None = None


def account_json(account: Account, settings: dict[str, Any] | None = None) -> AccountOut:
    """An account as its owner sees it (``settings``: its settings just changed, not yet read)."""
    settings = {**DEFAULT_SETTINGS, **(account.settings or {})} if settings is None else settings
    return AccountOut(
        username=account.username,
        display_name=account.display_name,
        player_id=account.player_id,
        email=account.email,
        email_verified=account.email is not None and account.email_verified_at is not None,
        settings=AccountSettingsOut.model_validate(settings),
        created_at=account.created_at,
    )


class AccountService:
    """Sign up, log in, log out, resolve."""

    def __init__(
        self,
        core: Core,
        signer: sessions.SessionSigner | None = None,
        addresses: AddressService | None = None,
    ) -> None:
        self.core = core
        self.signer = signer
        self.addresses = addresses or AddressService(core)

    def mail_on(self) -> bool:
        """Whether the server can send mail (an SMTP server is configured)."""
        return self.addresses.mail_on()

    async def resolve(self, guest_id: str, guest_fresh: bool, cookie: str | None) -> Resolved:
        """The visitor of a request (or socket) with this guest id and session cookie."""
        core = self.core
        token = self.signer.read(cookie) if self.signer is not None else None
        if token is None and guest_fresh:
            return Resolved(Visitor(guest_id, default_name(guest_id)))
        now = core.clock.now()
        async with core.sessions() as session:
            if token is not None:
                found = await store.live_session(session, tokens.token_id(token), now)
                if found is not None:
                    login, account = found
                    if now - login.last_seen_at >= sessions.TOUCH_EVERY_MS:
                        expires = min(
                            now + sessions.IDLE_MS, login.created_at + sessions.ABSOLUTE_MS
                        )
                        await core.writer.write(
                            store.TouchSession(login.id, account.id, now, expires)
                        )
                    visitor = Visitor(
                        account.player_id, account.display_name, account.id, account.username
                    )
                    return Resolved(visitor, session_id=login.id)
            if guest_fresh:
                return Resolved(Visitor(guest_id, default_name(guest_id)))
            player = await reads.get_player(session, guest_id)
        if player is not None and player.account_id is not None:
            fresh = new_guest_id()
            return Resolved(Visitor(fresh, default_name(fresh)), new_guest=fresh)
        return Resolved(Visitor(guest_id, player.name if player else default_name(guest_id)))

    def _session_row(
        self, now: int, user_agent: str | None, ip: str | None
    ) -> tuple[str, store.Row]:
        token = tokens.new_token()
        row = {
            "id": tokens.token_id(token),
            "created_at": now,
            "last_seen_at": now,
            "expires_at": now + sessions.IDLE_MS,
            "revoked_at": None,
            "user_agent": (user_agent or "")[:200] or None,
            "ip": (ip or "")[:64] or None,
        }
        return token, row

    def _cookie(self, token: str) -> str:
        assert self.signer is not None, "sessions need the app's signer"
        return self.signer.sign(token)

    async def signup(
        self,
        visitor: Visitor,
        raw_username: object,
        raw_password: object,
        raw_email: object,
        user_agent: str | None = None,
        ip: str | None = None,
    ) -> Login:
        """A new account made of this browser's guest, signed in; an address given is unverified,
        and the login's letter carries the link that verifies it."""
        if visitor.account_id is not None:
            raise AppError(
                ErrorCode.ALREADY_SIGNED_IN, "You are signed in: log out to make another account"
            )
        username = validate_username(raw_username)
        password = check_password_rules(raw_password, username)
        email = validate_email(raw_email)
        if email is not None and not self.mail_on():
            raise AppError(
                ErrorCode.EMAIL_DISABLED,
                "This server sends no email: sign up without an address",
                field="email",
            )
        key = username_key(username)
        async with self.core.sessions() as session:
            if await store.account_by_key(session, key) is not None:
                raise _taken(username)
        password_hash = await self.core.passwords.hash(password)
        now = self.core.clock.now()
        named = not visitor.name.startswith("Guest-")
        display_name = visitor.name if named else username
        token, session_row = self._session_row(now, user_agent, ip)
        account = {
            "username": username,
            "username_key": key,
            "display_name": display_name,
            "password_hash": password_hash,
            "email": email,
            "email_key": email.casefold() if email else None,
            "email_verified_at": None,
            "settings": dict(DEFAULT_SETTINGS),
            "created_at": now,
            "last_seen_at": now,
            "password_changed_at": now,
            "digest_sent_at": None,
        }
        player = PlayerName(visitor.id, display_name, now)
        link = self.addresses.link(username, display_name, email, now) if email else None
        new = store.NewAccount(account, player, session_row, link.row if link else None)
        owned = AppError(ErrorCode.ALREADY_SIGNED_IN, "This browser's guest already has an account")
        try:
            await self.core.writer.write(new)
        except store.UsernameTaken:
            # The unique key refused either the username or this guest's player: a twin sign-up of
            # the same guest that won the race (with another username) makes this one signed in.
            async with self.core.sessions() as session:
                guest = await reads.get_player(session, visitor.id)
            if guest is not None and guest.account_id is not None:
                raise owned from None
            raise _taken(username) from None
        except store.PlayerOwned:
            raise owned from None
        self.core.forget_owner(visitor.id)  # its seats now link to the account
        async with self.core.sessions() as session:
            created = await store.account_by_key(session, key)
        assert created is not None
        return Login(account_json(created), self._cookie(token), link.letter if link else None)

    async def login(
        self,
        visitor: Visitor,
        guest_id: str,
        raw_username: object,
        raw_password: object,
        current_session: str | None = None,
        user_agent: str | None = None,
        ip: str | None = None,
    ) -> Login:
        """A session of the account, if the password is its own; ``bad_credentials`` else (the
        same answer, after the same work, whether or not the username exists). A session this
        browser held already (another account's) ends."""
        wrong = AppError(ErrorCode.BAD_CREDENTIALS, "Wrong username or password")
        if not isinstance(raw_username, str) or not isinstance(raw_password, str):
            raise wrong
        if len(raw_username) > 100 or len(raw_password) > 256:
            await self.core.passwords.dummy_verify("x")
            raise wrong
        async with self.core.sessions() as session:
            account = await store.account_by_key(session, username_key(raw_username.strip()))
            guest = await reads.get_player(session, guest_id)
            claimable = 0
            if guest is not None and guest.account_id is None:
                claimable = await store.games_of_guest(session, guest_id)
        if account is None:
            await self.core.passwords.dummy_verify(raw_password)
            raise wrong
        if not await self.core.passwords.verify(account.password_hash, raw_password):
            raise wrong
        if self.core.passwords.needs_rehash(account.password_hash):
            rehashed = await self.core.passwords.hash(raw_password)
            await self.core.writer.write(store.SetPasswordHash(account.id, rehashed))
        now = self.core.clock.now()
        if current_session is not None and visitor.account_id is not None:
            await self.core.writer.write(
                store.RevokeSessions(visitor.account_id, now, only=current_session)
            )
        token, row = self._session_row(now, user_agent, ip)
        await self.core.writer.write(store.NewSession({**row, "account_id": account.id}))
        body = LoginOut(
            **dict(account_json(account)),
            claimable=claimable,
            guest_name=guest.name if guest is not None and claimable else None,
        )
        return Login(body, self._cookie(token))

    async def logout(self, visitor: Visitor, session_id: str | None) -> None:
        """End this browser's session (nothing if it has none)."""
        if session_id is not None and visitor.account_id is not None:
            now = self.core.clock.now()
            await self._revoke(store.RevokeSessions(visitor.account_id, now, only=session_id))

    async def _revoke(self, revoke: store.RevokeSessions) -> int:
        """End sessions, then tell their sockets, in every process (:func:`sessions_ended`)."""
        ended: int = await self.core.writer.write(revoke)
        await sessions_ended(self.core, revoke.account_id)
        return ended

    async def session_live(self, session_id: str) -> bool:
        """Whether this session is neither revoked nor expired: a socket opened with it asks."""
        async with self.core.sessions() as session:
            found = await store.live_session(session, session_id, self.core.clock.now())
        return found is not None

    async def rename(self, visitor: Visitor, raw_name: object) -> Visitor:
        """The signed-in visitor's new display name (guest-name rules: ``bad_name``); the
        username never changes. Games already played keep the name their seat was taken with."""
        if visitor.account_id is None:
            raise not_signed_in()
        name = validate_name(raw_name)
        player = PlayerName(visitor.id, name, self.core.clock.now())
        await self.core.writer.write(store.RenameAccount(visitor.account_id, player))
        return Visitor(visitor.id, name, visitor.account_id, visitor.username)

    async def _own(self, visitor: Visitor) -> Account:
        """The visitor's account (``not_signed_in`` without a session)."""
        if visitor.account_id is None:
            raise not_signed_in()
        async with self.core.sessions() as session:
            account = await store.account_by_id(session, visitor.account_id)
        if account is None:
            raise not_signed_in()
        return account

    async def claim(self, visitor: Visitor, guest_id: str) -> ClaimedOut:
        """Attach the games of this browser's guest to the signed-in account (see
        :class:`~app.repository.accounts.ClaimGuest`); nothing to attach is no error."""
        account = await self._own(visitor)
        if guest_id == account.player_id:
            return ClaimedOut(claimed=0, kept=0)
        async with self.core.sessions() as session:
            guest = await reads.get_player(session, guest_id)
        if guest is None or guest.account_id is not None:
            return ClaimedOut(claimed=0, kept=0)
        try:
            claimed, kept = await self.core.writer.write(
                store.ClaimGuest(guest_id, account.id, account.player_id)
            )
        except store.PlayerOwned:
            return ClaimedOut(claimed=0, kept=0)
        self.core.forget_owner(guest_id)
        return ClaimedOut(claimed=claimed, kept=kept)

    async def sessions_of(self, visitor: Visitor, current: str | None) -> SessionsOut:
        """The account's live sessions, for its owner."""
        account = await self._own(visitor)
        async with self.core.sessions() as session:
            rows = await store.live_sessions(session, account.id, self.core.clock.now())
        return SessionsOut(
            sessions=[
                SessionOut(
                    id=row.id[:SESSION_PUBLIC_ID],
                    created_at=row.created_at,
                    last_seen_at=row.last_seen_at,
                    browser=_agent(row.user_agent),
                    current=row.id == current,
                )
                for row in rows
            ]
        )

    async def program_session(self, visitor: Visitor) -> tuple[str, str]:
        """A new session of the visitor's account for a program (an external bot's token, issue
        29): its cookie value and its public id. It is a session like a browser's (its row keeps
        only the token's sha256; it ends unused for 30 days, or revoked with
        ``DELETE /api/account/sessions/{id}``, which closes its open sockets)."""
        account = await self._own(visitor)
        token, row = self._session_row(self.core.clock.now(), PROGRAM_AGENT, None)
        await self.core.writer.write(store.NewSession({**row, "account_id": account.id}))
        return self._cookie(token), str(row["id"])[:SESSION_PUBLIC_ID]

    async def revoke(self, visitor: Visitor, public_id: str) -> None:
        """End one of the account's sessions (``session_not_found`` if it has none such)."""
        account = await self._own(visitor)
        async with self.core.sessions() as session:
            rows = await store.live_sessions(session, account.id, self.core.clock.now())
        found = [
            row.id
            for row in rows
            if len(public_id) == SESSION_PUBLIC_ID and row.id.startswith(public_id)
        ]
        if len(found) != 1:
            raise AppError(ErrorCode.SESSION_NOT_FOUND, "You have no such session")
        await self._revoke(store.RevokeSessions(account.id, self.core.clock.now(), only=found[0]))

    async def logout_everywhere(self, visitor: Visitor) -> int:
        """End every session of the account, this one too; how many ended."""
        account = await self._own(visitor)
        return await self._revoke(store.RevokeSessions(account.id, self.core.clock.now()))

    async def change_password(
        self, visitor: Visitor, current: object, new: object, session_id: str | None
    ) -> None:
        """A new password, if ``current`` is right; every other session ends."""
        account = await self._own(visitor)
        if (
            not isinstance(current, str)
            or len(current) > 256
            or not await self.core.passwords.verify(account.password_hash, current)
        ):
            raise AppError(
                ErrorCode.BAD_CREDENTIALS, "The current password is wrong", field="current"
            )
        password = check_password_rules(new, account.username)
        now = self.core.clock.now()
        hashed = await self.core.passwords.hash(password)
        await self.core.writer.write(
            store.UpdateAccount(account.id, {"password_hash": hashed, "password_changed_at": now})
        )
        await self._revoke(store.RevokeSessions(account.id, now, keep=session_id))

    async def update_settings(self, visitor: Visitor, changes: dict[str, Any]) -> AccountOut:
        """The account's settings, changed."""
        account = await self._own(visitor)
        settings = {**DEFAULT_SETTINGS, **(account.settings or {}), **changes}
        await self.core.writer.write(store.UpdateAccount(account.id, {"settings": settings}))
        return account_json(account, settings)

    async def set_email(self, visitor: Visitor, raw: object, limiter: Limiter) -> Reply:
        """The account with its new email address (None: none), if the server sends mail; a new
        address is unverified, and the reply's letter carries its link
        (:meth:`AddressService.change`)."""
        account = await self._own(visitor)
        letter = await self.addresses.change(account, raw, limiter)
        return Reply(await self.account(visitor), letter)

    async def resend_verification(self, visitor: Visitor, limiter: Limiter) -> Letter:
        """A new link verifying the account's address (:meth:`AddressService.resend`)."""
        return await self.addresses.resend(await self._own(visitor), limiter)

    async def account(self, visitor: Visitor) -> AccountOut:
        """The visitor's account (``not_signed_in`` without a session)."""
        if visitor.account_id is None:
            raise not_signed_in()
        async with self.core.sessions() as session:
            account = await store.account_by_id(session, visitor.account_id)
        if account is None:  # deleted while the session lived
            raise not_signed_in()
        return account_json(account)


SESSION_PUBLIC_ID = 16  # hex characters of a session's row id shown to its owner
#: What a program's session (a bot token) shows as its browser in the account's sessions.
PROGRAM_AGENT = "Hexmoot bot token"


def _agent(text: str | None) -> str:
    """A session's browser in a few words ("Firefox on Linux"), from its user agent."""
    if not text:
        return "Unknown browser"
    browser = next(
        (name for key, name in _BROWSERS if key in text), text.split("/", 1)[0][:40] or "Browser"
    )
    system = next((name for key, name in _SYSTEMS if key in text), None)
    return f"{browser} on {system}" if system else browser


_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("Linux", "Linux"),
)


async def sessions_ended(core: Core, account_id: int) -> None:
    """Tell every socket of the account, in every process, that some of its sessions ended: each
    asks whether its own did and, if so, closes (app.routes.ws.transport). Sent after the commit."""
    await core.hub.publish(account_channel(account_id), SESSIONS_ENDED)


def not_signed_in() -> AppError:
    """The refusal of an account's route to a visitor without a session."""
    return AppError(ErrorCode.NOT_SIGNED_IN, "Log in first: this needs an account")


def _taken(username: str) -> AppError:
    return AppError(
        ErrorCode.USERNAME_TAKEN, f"{username} is taken: choose another username", field="username"
    )
