"""An account's email address: given, verified by a link mailed to it, that link mailed again.

An address is stored unverified, and nothing but its verification link is mailed to it until that
link is opened: no digest, no recovery link. Someone who types a stranger's address so gets the
stranger one mail, and no more unless they ask again, within ``RATE_VERIFY_PER_ACCOUNT``.

A link is as a recovery link: a 256-bit random token whose sha256 alone is stored, single use,
valid for ``VERIFICATION_VALID_FOR``. It names the address it was mailed to and verifies only that
one, only while the account still has it. A new link spends the older ones of the account; a new
address, or none, spends every open link, recovery links too, so a former address gets nothing
more and its links do nothing.

The mail itself goes out after the answer (:meth:`app.services.mail.MailService.deliver`): the
services return a :class:`Letter`, and the route hands it on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.domain.clock import to_ms
from app.errors import AppError, ErrorCode
from app.identity import tokens
from app.models import Account
from app.repository import accounts as store
from app.runtime.limiter import Limiter
from app.schemas.accounts import AccountOut, VerifiedOut
from app.services.core import Core

EMAIL_MAX = 254
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")
#: The limit (``app.runtime.limiter.LIMITS``) counting the links mailed for an account.
VERIFY_LIMIT = "verify per account"


def validate_email(raw: object) -> str | None:
    """The address trimmed (None for none); AppError ``bad_email`` if it is no address."""
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        raise AppError(ErrorCode.BAD_EMAIL, "an email address must be text", field="email")
    email = raw.strip()
    if len(email) > EMAIL_MAX or not email.isprintable() or not _EMAIL.fullmatch(email):
        raise AppError(
            ErrorCode.BAD_EMAIL, "this is not an email address (name@example.org)", field="email"
        )
    return email


@dataclass(frozen=True)
class Letter:
    """A plain-text mail to send once the answer is out."""

    to: str
    subject: str
    text: str


@dataclass(frozen=True)
class Reply:
    """An answer's body, and the letter to send after it, if any."""

    body: AccountOut
    letter: Letter | None = None


@dataclass(frozen=True)
class Link:
    """A new verification link: its row (every column but ``account_id``) and its letter."""

    row: store.Row
    letter: Letter


class AddressService:
    """Set an account's address, verify it, mail its link again."""

    def __init__(self, core: Core) -> None:
        self.core = core

    def mail_on(self) -> bool:
        """Whether the server can send mail (an SMTP server is configured)."""
        return bool(self.core.settings.smtp_host)

    def _off(self) -> AppError:
        return AppError(ErrorCode.EMAIL_DISABLED, "This server sends no email", field="email")

    def link(self, username: str, display_name: str, email: str, now: int) -> Link:
        """A new link verifying ``email`` for the account ``username``, and the mail carrying it."""
        settings = self.core.settings
        token = tokens.new_token()
        row = {
            "id": tokens.token_id(token),
            "email": email,
            "created_at": now,
            "expires_at": now + to_ms(settings.verification_valid_for),
            "used_at": None,
        }
        text = (
            f"Hello {display_name},\n\n"
            f"Someone (you, we hope) gave this address to the Hexmoot account {username}. "
            f"This link confirms that it is yours; it works once, within "
            f"{_duration(settings.verification_valid_for)}:\n\n"
            f"{settings.site_url()}/account/verify?token={token}\n\n"
            "Until it is opened, Hexmoot mails this address nothing else: no reminders, no "
            "password recovery. If this was not you, ignore this message.\n"
        )
        return Link(row, Letter(email, "Confirm your email address for Hexmoot", text))

    async def change(self, account: Account, raw: object, limiter: Limiter) -> Letter | None:
        """Give the account the address ``raw`` (None or "": none); the letter carrying the link
        that verifies a new address. The same address (up to case) changes nothing but its case,
        and mails nothing: a verified one stays verified. A new address counts against
        ``verify per account`` (429 ``rate_limited``, nothing changed, past it)."""
        email = validate_email(raw)
        if email is not None and not self.mail_on():
            raise self._off()
        key = email.casefold() if email is not None else None
        if key == account.email_key:
            if email != account.email:
                await self.core.writer.write(store.UpdateAccount(account.id, {"email": email}))
            return None
        now = self.core.clock.now()
        if email is None:
            await self.core.writer.write(store.SetEmail(account.id, None, now, None))
            return None
        await limiter.check((VERIFY_LIMIT, str(account.id)))
        link = self.link(account.username, account.display_name, email, now)
        await self.core.writer.write(store.SetEmail(account.id, email, now, link.row))
        return link.letter

    async def resend(self, account: Account, limiter: Limiter) -> Letter:
        """A new link for the account's unverified address (the older ones are spent): its letter.
        ``nothing_to_verify`` without an address or with a verified one; counted against
        ``verify per account``."""
        if not self.mail_on():
            raise self._off()
        email = account.email
        if email is None:
            raise AppError(
                ErrorCode.NOTHING_TO_VERIFY, "Your account has no email address: give one first"
            )
        if account.email_verified_at is not None:
            raise AppError(ErrorCode.NOTHING_TO_VERIFY, "Your email address is verified already")
        await limiter.check((VERIFY_LIMIT, str(account.id)))
        now = self.core.clock.now()
        link = self.link(account.username, account.display_name, email, now)
        stored = await self.core.writer.write(
            store.NewVerificationLink(account.id, email, now, link.row)
        )
        if not stored:  # changed or verified since it was read
            raise AppError(
                ErrorCode.NOTHING_TO_VERIFY, "Your email address changed meanwhile: reload the page"
            )
        return link.letter

    async def verify(self, raw_token: object) -> VerifiedOut:
        """Verify the address a link was mailed to, with its token: ``{"email": ...}``."""
        refused = AppError(
            ErrorCode.BAD_VERIFICATION_TOKEN,
            "This link is unknown, expired or used already, or its address is no longer the "
            "account's: ask for a new one",
        )
        if not isinstance(raw_token, str) or not 20 <= len(raw_token) <= 100:
            raise refused
        try:
            email = await self.core.writer.write(
                store.VerifyEmail(tokens.token_id(raw_token), self.core.clock.now())
            )
        except store.TokenRefused:
            raise refused from None
        return VerifiedOut(email=email)


def _duration(seconds: float) -> str:
    """A link's lifetime in words: "24 hours", "1 hour", "30 minutes".

    >>> _duration(86400), _duration(3600), _duration(1800)
    ('24 hours', '1 hour', '30 minutes')
    """
    if seconds >= 3600 and seconds % 3600 == 0:
        hours = int(seconds // 3600)
        return f"{hours} hour{'s' if hours != 1 else ''}"
    minutes = max(1, round(seconds / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"
