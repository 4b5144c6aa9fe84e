"""Session tokens: a random token in a signed, timed cookie; the database keeps its sha256.

The cookie ``hexmoot_session`` holds ``token.issued.signature`` (itsdangerous' timed serializer,
salted apart from the guest cookie). The token alone opens nothing: the session is the row
``account_sessions[sha256(token)]``, so revoking the row ends the session at once everywhere, and a
leaked database holds no usable token. Lifetimes: see :data:`IDLE_MS` and :data:`ABSOLUTE_MS`.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable

from itsdangerous import BadSignature, SignatureExpired, TimestampSigner, URLSafeTimedSerializer

SESSION_COOKIE = "hexmoot_session"
_SALT = "hexmoot-session"
DAY_MS = 24 * 3600 * 1000
#: A session unused this long ends (each use moves its expiry, at most once a minute).
IDLE_MS = 30 * DAY_MS
#: A session ends this long after its login, used or not.
ABSOLUTE_MS = 365 * DAY_MS
#: A session's last use is written at most this often.
TOUCH_EVERY_MS = 60 * 1000


def new_token() -> str:
    """A fresh 256-bit session token."""
    return secrets.token_urlsafe(32)


def token_id(token: str) -> str:
    """The row id of a token: its sha256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


class SessionSigner:
    """Signs session tokens into cookie values and reads them back (the previous key too)."""

    def __init__(self, secret_key: str, previous_key: str | None, now: Callable[[], float]) -> None:
        class ClockedSigner(TimestampSigner):
            def get_timestamp(self) -> int:
                return int(now())

        keys = [secret_key] + ([previous_key] if previous_key else [])
        self._serializers = [
            URLSafeTimedSerializer(key, salt=_SALT, signer=ClockedSigner) for key in keys
        ]

    def sign(self, token: str) -> str:
        """The cookie value of ``token``, issued now."""
        return str(self._serializers[0].dumps(token))

    def read(self, value: str | None) -> str | None:
        """The token of a cookie value, or None if missing, forged, malformed or too old."""
        if not value or len(value) > 300:
            return None
        for serializer in self._serializers:
            try:
                token = serializer.loads(value, max_age=ABSOLUTE_MS // 1000)
            except SignatureExpired:
                return None
            except BadSignature:
                continue
            return token if isinstance(token, str) and 20 <= len(token) <= 100 else None
        return None


def cookie_header(value: str, max_age: int, secure: bool) -> str:
    """The ``Set-Cookie`` value of the session cookie (an empty value and 0 clear it)."""
    flags = "; Secure" if secure else ""
    return f"{SESSION_COOKIE}={value}; Max-Age={max_age}; Path=/; HttpOnly; SameSite=Lax{flags}"
