"""Guest identity: a random id in a signed, HttpOnly, SameSite=Lax cookie, and display names."""

from __future__ import annotations

import re
import secrets

from itsdangerous import BadSignature, URLSafeSerializer

from app.errors import AppError, ErrorCode

COOKIE = "hexmoot_guest"
COOKIE_MAX_AGE = 365 * 24 * 3600
NAME_MIN, NAME_MAX = 1, 24
_NAME_CHARS = re.compile(r"[\w \-.']")


class Signer:
    """Signs and checks guest ids with the server's secret key."""

    def __init__(self, secret_key: str) -> None:
        self._serializer = URLSafeSerializer(secret_key, salt="hexmoot-guest")

    def sign(self, guest_id: str) -> str:
        """The cookie value for ``guest_id``."""
        return str(self._serializer.dumps(guest_id))

    def unsign(self, value: str | None) -> str | None:
        """The guest id a cookie value holds, or None when missing, forged or malformed."""
        if not value or len(value) > 200:
            return None
        try:
            guest_id = self._serializer.loads(value)
        except BadSignature:
            return None
        if not isinstance(guest_id, str) or not re.fullmatch(r"[0-9a-f]{32}", guest_id):
            return None
        return guest_id


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
