"""Guests: a random id in a signed, timed, HttpOnly, SameSite=Lax cookie, and display names."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from typing import NamedTuple

from itsdangerous import BadSignature, URLSafeSerializer

from app.errors import AppError, ErrorCode
from app.identity.cookies import SignedCookie

COOKIE = "hexmoot_guest"
COOKIE_MAX_AGE = 365 * 24 * 3600
_SALT = "hexmoot-guest"
NAME_MIN, NAME_MAX = 1, 24
_NAME_CHARS = re.compile(r"[\w \-.']")


class Guest(NamedTuple):
    """What a valid cookie holds: the guest id, and whether to reissue the cookie (it is old, has no
    issue time, or was signed with the previous key)."""

    id: str
    reissue: bool


class Signer:
    """Signs and checks guest cookies: the id and its issue time, with the server's secret key
    (:class:`~app.identity.cookies.SignedCookie`; ``previous_key`` too, for a key change).

    Accepted as well, and reissued: cookies signed with ``previous_key``, cookies older than
    ``reissue_after`` seconds, and the cookies of before issue times (``id.signature``). A cookie
    older than ``COOKIE_MAX_AGE`` counts as none. ``now`` gives the time in seconds (the app's
    clock; tests move it).
    """

    def __init__(
        self,
        secret_key: str,
        previous_key: str | None = None,
        *,
        reissue_after: float = 30 * 24 * 3600.0,
        now: Callable[[], float] = time.time,
    ) -> None:
        self._now = now
        self._reissue_after = reissue_after
        keys = [secret_key] + ([previous_key] if previous_key else [])
        self._cookie = SignedCookie(_SALT, keys, COOKIE_MAX_AGE, now)
        self._untimed = URLSafeSerializer(list(reversed(keys)), salt=_SALT)

    def sign(self, guest_id: str) -> str:
        """The cookie value for ``guest_id``, issued now with the current key."""
        return self._cookie.sign(guest_id)

    def read(self, value: str | None) -> Guest | None:
        """The guest a cookie value holds, or None when missing, forged, expired or malformed."""
        if not value or len(value) > 200:
            return None
        read = self._cookie.read(value)
        if read is not None:
            old = self._now() - read.issued > self._reissue_after
            return _guest(read.value, reissue=old or not read.current_key)
        if self._cookie.expired(value):
            return None
        try:  # id.signature: a cookie of before issue times
            return _guest(self._untimed.loads(value), reissue=True)
        except BadSignature:
            return None


def _guest(guest_id: object, reissue: bool) -> Guest | None:
    if not isinstance(guest_id, str) or not re.fullmatch(r"[0-9a-f]{32}", guest_id):
        return None
    return Guest(guest_id, reissue)


def new_guest_id() -> str:
    """A fresh 128-bit guest id, hex."""
    return secrets.token_hex(16)


def default_name(guest_id: str) -> str:
    """The name a guest has until it picks one."""
    return f"Guest-{guest_id[:4]}"


def validate_name(raw: object) -> str:
    """The name, trimmed; AppError ``bad_name`` saying what is wrong.

    >>> validate_name("  Ann Lee ")
    'Ann Lee'
    >>> validate_name("<b>x</b>")
    Traceback (most recent call last):
    ...
    app.errors.AppError: a name cannot contain '<'
    """
    if not isinstance(raw, str):
        raise AppError(ErrorCode.BAD_NAME, "a name must be text", field="name")
    name = raw.strip()
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise AppError(
            ErrorCode.BAD_NAME,
            f"a name must have {NAME_MIN} to {NAME_MAX} characters, not {len(name)}",
            field="name",
        )
    for char in name:
        if not _NAME_CHARS.fullmatch(char) or not char.isprintable():
            raise AppError(ErrorCode.BAD_NAME, f"a name cannot contain {char!r}", field="name")
    if len(name.lower()) > NAME_MAX:  # name_key would have to cut it
        raise AppError(
            ErrorCode.BAD_NAME,
            f"a name's lower-case form must have at most {NAME_MAX} characters",
            field="name",
        )
    if "  " in name:
        raise AppError(
            ErrorCode.BAD_NAME, "a name cannot contain two spaces in a row", field="name"
        )
    return name


def name_key(name: str) -> str:
    """The key a name is searched by: lower-cased, and cut to the column's ``NAME_MAX``.

    Lower-casing can lengthen a name (``"İ".lower()`` is two characters), so ``validate_name``
    refuses a name whose key would be cut; the cut is for names stored before it did, and for
    search terms, which are cut the same way so that they still match.

    >>> name_key("Ann"), len(name_key("İ" * 24))
    ('ann', 24)
    """
    return name.lower()[:NAME_MAX]
