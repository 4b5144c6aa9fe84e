"""Guest identity: a random id in a signed, timed, HttpOnly, SameSite=Lax cookie, and display names."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from typing import NamedTuple

from itsdangerous import (
    BadSignature,
    SignatureExpired,
    TimestampSigner,
    URLSafeSerializer,
    URLSafeTimedSerializer,
)

from app.errors import AppError, ErrorCode

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
    """Signs and checks guest cookies: the id and its issue time, with the server's secret key.

    A cookie holds ``id.issued.signature`` (itsdangerous' timed serializer). Accepted as well, and
    reissued: cookies signed with ``previous_key`` (key rotation), and the cookies of before issue
    times (``id.signature``). A cookie older than ``COOKIE_MAX_AGE`` counts as none. ``now`` gives
    the time in seconds (the app's clock; tests move it).
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

        class ClockedSigner(TimestampSigner):
            def get_timestamp(self) -> int:
                return int(now())

        keys = [secret_key] + ([previous_key] if previous_key else [])
        self._timed = [
            URLSafeTimedSerializer(key, salt=_SALT, signer=ClockedSigner) for key in keys
        ]
        self._untimed = [URLSafeSerializer(key, salt=_SALT) for key in keys]

    def sign(self, guest_id: str) -> str:
        """The cookie value for ``guest_id``, issued now with the current key."""
        return str(self._timed[0].dumps(guest_id))

    def read(self, value: str | None) -> Guest | None:
        """The guest a cookie value holds, or None when missing, forged, expired or malformed."""
        if not value or len(value) > 200:
            return None
        for current, serializer in enumerate(self._timed):
            try:
                guest_id, issued = serializer.loads(
                    value, max_age=COOKIE_MAX_AGE, return_timestamp=True
                )
            except SignatureExpired:
                return None
            except BadSignature:
                continue
            old = self._now() - issued.timestamp() > self._reissue_after
            return _guest(guest_id, reissue=old or current > 0)
        for legacy in self._untimed:
            try:
                return _guest(legacy.loads(value), reissue=True)
            except BadSignature:
                continue
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
