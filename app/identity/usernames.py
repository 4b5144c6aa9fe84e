"""Usernames: the characters of guest names, unique without regard to case or Unicode
compatibility forms, and a list of reserved names.

A username is checked by :func:`app.identity.validate_name` (letters, digits, spaces and
``- _ . '``), then must have 3 to 24 characters and must not be reserved. Two usernames are the same
when their :func:`username_key` is: NFKC, case folding, NFKC again (case folding can undo a
normalisation: ``"ﬀ"`` folds to ``"ff"``), so ``"Ann"``, ``"ANN"`` and ``"Ann"`` in full-width
letters are one. Confusable scripts (a Cyrillic a for a Latin a) are *not* folded together: that takes a
confusables table, which this module leaves out (see issue 16's note).
"""

from __future__ import annotations

import unicodedata

from app.errors import AppError, ErrorCode
from app.identity import validate_name

USERNAME_MIN, USERNAME_MAX = 3, 24

#: Names nobody may take: the site's own, its roles and its paths. Compared by key; a name that
#: starts with "guest" is refused as well (guests are called ``Guest-3f2a``).
RESERVED = frozenset(
    {
        "admin",
        "administrator",
        "anonymous",
        "api",
        "bot",
        "hexmoot",
        "help",
        "leaderboards",
        "login",
        "logout",
        "me",
        "mod",
        "moderator",
        "my",
        "null",
        "official",
        "root",
        "server",
        "settings",
        "signup",
        "staff",
        "support",
        "system",
        "undefined",
        "webmaster",
        "www",
    }
)
_RESERVED_PREFIXES = ("guest", "hexmoot")


def username_key(name: str) -> str:
    """The key two usernames are compared by.

    >>> username_key("Ann") == username_key("\uff21\uff2e\uff2e") == username_key("ann")
    True
    >>> username_key("Straße") == username_key("STRASSE")
    True
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", folded)


def validate_username(raw: object) -> str:
    """The username, trimmed; AppError ``bad_username`` (``field: "username"``) saying why not.

    >>> validate_username(" Ann Lee ")
    'Ann Lee'
    >>> validate_username("ADMIN")
    Traceback (most recent call last):
    ...
    app.errors.AppError: ADMIN is reserved: choose another username
    """
    try:
        name = validate_name(raw)
    except AppError as exc:
        raise AppError(
            ErrorCode.BAD_USERNAME, exc.message.replace("a name", "a username"), field="username"
        ) from None
    if len(name) < USERNAME_MIN:
        raise AppError(
            ErrorCode.BAD_USERNAME,
            f"a username must have {USERNAME_MIN} to {USERNAME_MAX} characters, not {len(name)}",
            field="username",
        )
    key = username_key(name)
    if len(key) > 64:  # the key column; only pathological compatibility forms get here
        raise AppError(ErrorCode.BAD_USERNAME, "this username is too long", field="username")
    if key in RESERVED or key.startswith(_RESERVED_PREFIXES):
        raise AppError(
            ErrorCode.BAD_USERNAME, f"{name} is reserved: choose another username", field="username"
        )
    return name
