"""Session tokens: a random token in a signed, timed cookie; the database keeps its sha256.

The cookie ``hexmoot_session`` holds ``token.issued.signature`` (a
:class:`~app.identity.cookies.SignedCookie`, salted apart from the guest cookie). The token alone opens nothing: the session is the row
``account_sessions[sha256(token)]``, so revoking the row ends the session at once everywhere, and a
leaked database holds no usable token. Lifetimes: see :data:`IDLE_MS` and :data:`ABSOLUTE_MS`.
"""

from __future__ import annotations

from collections.abc import Callable

from app.identity.cookies import SignedCookie

SESSION_COOKIE = "hexmoot_session"
_SALT = "hexmoot-session"
DAY_MS = 24 * 3600 * 1000
#: A session unused this long ends (each use moves its expiry, at most once a minute).
IDLE_MS = 30 * DAY_MS
#: A session ends this long after its login, used or not.
ABSOLUTE_MS = 365 * DAY_MS
#: A session's last use is written at most this often.
TOUCH_EVERY_MS = 60 * 1000


class SessionSigner:
    """Signs session tokens into cookie values and reads them back (the previous key too)."""

    def __init__(self, secret_key: str, previous_key: str | None, now: Callable[[], float]) -> None:
        keys = [secret_key] + ([previous_key] if previous_key else [])
        self._cookie = SignedCookie(_SALT, keys, ABSOLUTE_MS // 1000, now)

    def sign(self, token: str) -> str:
        """The cookie value of ``token``, issued now."""
        return self._cookie.sign(token)

    def read(self, value: str | None) -> str | None:
        """The token of a cookie value, or None if missing, forged, malformed or too old."""
        if not value or len(value) > 300:
            return None
        read = self._cookie.read(value)
        if read is None:
            return None
        token = read.value
        return token if isinstance(token, str) and 20 <= len(token) <= 100 else None
