"""Who a visitor is, in one place: guests and their names (:mod:`.guests`, re-exported here),
accounts' usernames (:mod:`.usernames`) and passwords (:mod:`.passwords`), session cookies
(:mod:`.sessions`), the signed cookies both kinds of visitor ride on (:mod:`.cookies`), and the
tokens of sessions and mailed links, kept as their sha256 (:mod:`.tokens`). Pure helpers: the
flows are in :mod:`app.services.accounts` and :mod:`app.services.addresses`.
"""

from app.identity.guests import (
    COOKIE,
    COOKIE_MAX_AGE,
    NAME_MAX,
    NAME_MIN,
    Guest,
    Signer,
    default_name,
    name_key,
    new_guest_id,
    validate_name,
)

__all__ = [
    "COOKIE",
    "COOKIE_MAX_AGE",
    "NAME_MAX",
    "NAME_MIN",
    "Guest",
    "Signer",
    "default_name",
    "name_key",
    "new_guest_id",
    "validate_name",
]
