"""Signed, timed cookies (itsdangerous), and their ``Set-Cookie`` headers (Starlette's).

A cookie holds ``value.issued.signature``. It is signed with the server's current key and read
with it or the previous one: itsdangerous takes the list of keys (newest last) and tries each,
so ``SECRET_KEY_PREVIOUS`` lets a key change log nobody out. ``now`` is the app's clock, in
seconds (tests move it). The guest cookie (:mod:`.guests`) and the session cookie
(:mod:`.sessions`) are two of these, salted apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

from itsdangerous import BadSignature, SignatureExpired, TimestampSigner, URLSafeTimedSerializer
from starlette.responses import Response

#: What a browser is told to keep a cookie as: HttpOnly (no script reads it), SameSite=Lax.
SAME_SITE: Literal["lax"] = "lax"


class Read(NamedTuple):
    """A valid cookie's value, when it was issued (seconds), and whether the current key signed
    it (if not, the previous one did: the cookie is to be set again)."""

    value: object
    issued: float
    current_key: bool


class SignedCookie:
    """One cookie's signing: ``salt`` keeps it apart from the others, ``keys`` are the current
    key then the previous one (if any), ``max_age`` (seconds) bounds how old it may be."""

    def __init__(self, salt: str, keys: list[str], max_age: int, now: Callable[[], float]) -> None:
        class ClockedSigner(TimestampSigner):
            def get_timestamp(self) -> int:
                return int(now())

        self.max_age = max_age
        self._serializer = URLSafeTimedSerializer(
            list(reversed(keys)), salt=salt, signer=ClockedSigner
        )
        self._current = ClockedSigner(keys[0], salt=salt)  # as the serializer signs

    def sign(self, value: object) -> str:
        """The cookie value holding ``value``, issued now, signed with the current key."""
        return str(self._serializer.dumps(value))

    def read(self, raw: str) -> Read | None:
        """The value of a cookie, or None if forged, malformed or older than ``max_age``."""
        try:
            value, issued = self._serializer.loads(raw, max_age=self.max_age, return_timestamp=True)
        except (SignatureExpired, BadSignature):
            return None
        return Read(value, issued.timestamp(), self._current.validate(raw))

    def expired(self, raw: str) -> bool:
        """Whether ``raw`` is one of these cookies, genuine but older than ``max_age``."""
        try:
            self._serializer.loads(raw, max_age=self.max_age)
        except SignatureExpired:
            return True
        except BadSignature:
            return False
        return False


def set_cookie_header(name: str, value: str, max_age: int, secure: bool) -> tuple[bytes, bytes]:
    """The raw ``Set-Cookie`` header of one of our cookies (an empty value and 0 clear it), as
    Starlette's ``set_cookie`` writes it: for a middleware, which has no response object."""
    response = Response()
    set_cookie(response, name, value, max_age, secure)
    return response.raw_headers[-1]


def set_cookie(response: Response, name: str, value: str, max_age: int, secure: bool) -> None:
    """Set one of our cookies on ``response``: HttpOnly, SameSite=Lax, the whole site's path."""
    response.set_cookie(
        name, value, max_age=max_age, path="/", secure=secure, httponly=True, samesite=SAME_SITE
    )
