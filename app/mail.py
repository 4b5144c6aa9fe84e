"""Sending mail through the configured SMTP server (aiosmtplib: asyncio, no thread per message).

With no ``SMTP_HOST`` the mailer is off: :meth:`Mailer.on` is false and the account routes refuse
email addresses. A message that cannot be sent (the server is down, refuses it) is logged and
reported as not sent: never a 500, never a retry storm; the digest tries again at its next turn.
"""

from __future__ import annotations

import logging
from email.message import EmailMessage

import aiosmtplib

from app.config import Settings

log = logging.getLogger("hexmoot")


class Mailer:
    """Sends plain-text messages through ``settings``' SMTP server."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def on(self) -> bool:
        """Whether an SMTP server is configured."""
        return bool(self.settings.smtp_host)

    async def send(self, to: str, subject: str, text: str) -> bool:
        """Send one message; whether the server took it."""
        settings = self.settings
        if not settings.smtp_host:
            return False
        message = EmailMessage()
        message["From"] = settings.mail_from
        message["To"] = to
        message["Subject"] = subject
        message.set_content(text)
        try:
            await aiosmtplib.send(
                message,
                hostname=settings.smtp_host,
                port=settings.smtp_port,
                username=settings.smtp_user,
                password=settings.smtp_password,
                start_tls=settings.smtp_starttls,
                timeout=settings.smtp_timeout,
            )
        except (aiosmtplib.SMTPException, OSError):
            log.warning(
                "mail to %s (%r) could not be sent", to.split("@")[-1], subject, exc_info=True
            )
            return False
        return True
