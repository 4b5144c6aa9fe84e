"""Mail: recovering a password by a single-use link that expires, and the digest of waiting turns.

Both go only to a verified address (:mod:`app.services.addresses`): an address nobody proved its
own gets nothing but its verification link.

Recovery answers the same whatever it finds (no account, no address or an unverified one, mail
sent): the request never tells whether an account exists. The token is 256 random bits; the
database keeps its sha256, so a leaked database holds no usable link. Using it sets the password,
spends it and ends every session of the account, in one transaction.

The digest: an account with a verified address and the setting on, away for ``DIGEST_AFTER``, with turns
that became its own since its last digest (or pending challenges sent since), gets one email
listing them, at most one per ``DIGEST_EVERY``. Each process looks every ``DIGEST_CHECK_EVERY``;
a conditional UPDATE of the account's last digest time decides which process sends, so several
processes never send the same digest twice.
"""

from __future__ import annotations

import logging

from app.domain.clock import to_ms
from app.errors import AppError, ErrorCode
from app.identity.passwords import check_password_rules
from app.identity.tokens import new_token, token_id
from app.identity.usernames import username_key
from app.mail import Mailer
from app.repository import accounts as store
from app.repository import challenges as challenge_reads
from app.runtime.rules import title
from app.schemas.accounts import OkOut
from app.services.accounts import sessions_ended
from app.services.addresses import Letter
from app.services.core import Core

log = logging.getLogger("hexmoot")


class MailService:
    """Recovery links and digests."""

    def __init__(self, core: Core, mailer: Mailer) -> None:
        self.core = core
        self.mailer = mailer

    def _off(self) -> AppError:
        return AppError(ErrorCode.EMAIL_DISABLED, "This server sends no email")

    async def deliver(self, letter: Letter) -> None:
        """Send a letter, after the answer that made it: a failure is logged, never raised."""
        try:
            await self.mailer.send(letter.to, letter.subject, letter.text)
        except Exception:
            log.exception("sending %r failed", letter.subject)

    def recovery_of(self, raw: object) -> str | None:
        """The key whose accounts :meth:`send_recovery` mails, or None when ``raw`` names none
        (``email_disabled`` without an SMTP server). It asks nothing of the database: whether
        such an account exists is found out after the answer, so that the answer's time never
        tells (the route runs :meth:`send_recovery` once it has answered)."""
        if not self.mailer.on:
            raise self._off()
        if not isinstance(raw, str) or not 1 <= len(raw.strip()) <= 254:
            return None
        return username_key(raw.strip())

    async def send_recovery(self, key: str) -> None:
        """Mail a recovery link to the account(s) of ``key`` (a username or an address), if any
        with a verified address. Run after the answer: a failure is logged, never raised."""
        try:
            await self._send_recovery(key)
        except Exception:
            log.exception("sending a recovery link failed")

    async def _send_recovery(self, key: str) -> None:
        async with self.core.sessions() as session:
            accounts = await store.accounts_to_recover(session, key)
        now = self.core.clock.now()
        site = self.core.settings.site_url()
        for account in accounts:
            assert account.email is not None and account.email_verified_at is not None
            token = new_token()
            expires = now + to_ms(self.core.settings.recovery_valid_for)
            stored = await self.core.writer.write(
                store.NewRecoveryToken(
                    {
                        "id": token_id(token),
                        "account_id": account.id,
                        "created_at": now,
                        "expires_at": expires,
                        "used_at": None,
                    },
                    account.email,
                )
            )
            if not stored:  # the address changed since it was read
                continue
            minutes = round(self.core.settings.recovery_valid_for / 60)
            await self.mailer.send(
                account.email,
                "Your Hexmoot password",
                f"Hello {account.display_name},\n\n"
                f"Someone (you, we hope) asked to set a new password for the Hexmoot account "
                f"{account.username}. This link does it, once, within {minutes} minutes:\n\n"
                f"{site}/account/reset?token={token}\n\n"
                "If you did not ask, ignore this message: your password stays as it is.\n",
            )

    async def reset(self, raw_token: object, raw_password: object) -> OkOut:
        """Set a new password with a recovery link's token; every session ends."""
        refused = AppError(
            ErrorCode.BAD_RECOVERY_TOKEN,
            "This link is unknown, expired or used already: ask for a new one",
        )
        if not isinstance(raw_token, str) or not 20 <= len(raw_token) <= 100:
            raise refused
        password = check_password_rules(raw_password)
        hashed = await self.core.passwords.hash(password)
        try:
            account_id: int = await self.core.writer.write(
                store.ResetPassword(token_id(raw_token), hashed, self.core.clock.now())
            )
        except store.TokenRefused:
            raise refused from None
        await sessions_ended(self.core, account_id)
        return OkOut(ok=True)

    async def send_digests(self, now: int | None = None) -> int:
        """Send the digests due now; how many were sent."""
        if not self.mailer.on:
            return 0
        core = self.core
        settings = core.settings
        now = core.clock.now() if now is None else now
        seen_before = now - to_ms(settings.digest_after)
        sent_before = now - to_ms(settings.digest_every)
        sent = 0
        async with core.sessions() as session:
            candidates = await store.digest_candidates(session, seen_before, sent_before)
        for account in candidates:
            email = account.email
            wanted = (account.settings or {}).get("digest")
            if not wanted or email is None or account.email_verified_at is None:
                continue
            since = account.digest_sent_at or 0
            async with core.sessions() as session:
                ids = await store.account_player_ids(session, account.id)
                turns = [
                    g for g in await store.turn_games(session, ids) if g.last_activity_at > since
                ]
                challenges = [
                    c
                    for c in await challenge_reads.pending_of(session, account.id)
                    if c.challenged_id == account.id and c.created_at > since
                ]
            if not turns and not challenges:
                continue
            claimed = await core.writer.write(
                store.ClaimDigest(account.id, account.digest_sent_at, now, email)
            )
            if claimed != 1:
                continue  # another process sends this one, or the address changed
            site = settings.site_url()
            lines = [
                f"- {title(g.slug)} against "
                f"{getattr(g, f'player{2 if g.player1_id in ids else 1}_name') or 'your opponent'}: "
                f"{site}/games/{g.id}"
                for g in turns
            ]
            if challenges:
                lines.append(f"- {len(challenges)} new challenge(s): {site}/my")
            count = len(turns)
            subject = (
                f"Your turn in {count} game{'s' if count != 1 else ''} on Hexmoot"
                if count
                else "A challenge waits for you on Hexmoot"
            )
            text = (
                f"Hello {account.display_name},\n\nWhile you were away:\n\n"
                + "\n".join(lines)
                + f"\n\nAll your games: {site}/my\n\n"
                f"You get this because reminders are on in your settings; switch them off at "
                f"{site}/settings\n"
            )
            if await self.mailer.send(email, subject, text):
                sent += 1
        return sent
