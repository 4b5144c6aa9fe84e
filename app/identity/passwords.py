"""Passwords: the rules they must meet, and argon2id hashes through argon2-cffi.

argon2-cffi's ``PasswordHasher`` hashes with argon2id and its defaults (RFC 9106's second
recommended parameter set: 3 passes over 64 MiB, 4 lanes). A hash takes tens of milliseconds of one
core and 64 MiB, so hashing runs in a thread (the event loop keeps serving) and at most
``HASH_CONCURRENCY`` at once: a burst of logins queues instead of taking every core and gigabytes.
"""

from __future__ import annotations

import asyncio
import functools

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from app.errors import AppError, ErrorCode
from app.identity.common_passwords import COMMON
from app.identity.usernames import username_key

PASSWORD_MIN, PASSWORD_MAX = 8, 256
HASH_CONCURRENCY = 2

_hasher = PasswordHasher()
import time as _t, os as _os
class _Count:
    def __init__(self, h): self.h=h
    def __getattr__(self, n):
        f=getattr(self.h,n)
        if n not in ("hash","verify"): return f
        def w(*a,**k):
            t=_t.perf_counter()
            try: return f(*a,**k)
            finally:
                with open("/tmp/hashcalls","a") as fh: fh.write(f"{n} {_t.perf_counter()-t:.3f} {_os.environ.get('PYTEST_XDIST_WORKER','srv')}\n")
        return w
_hasher = _Count(_hasher)  # type: ignore


@functools.cache
def _slots() -> asyncio.Semaphore:
    return asyncio.Semaphore(HASH_CONCURRENCY)


@functools.cache
def _dummy_hash() -> str:
    return _hasher.hash("not a password anyone has")


def check_password_rules(password: object, username: str | None = None) -> str:
    """The password if it may be used; AppError ``weak_password`` (``field: "password"``) if not.

    >>> check_password_rules("correct horse battery staple")
    'correct horse battery staple'
    >>> check_password_rules("Password1")
    Traceback (most recent call last):
    ...
    app.errors.AppError: this password is among the most common ones: choose another
    """
    if not isinstance(password, str):
        raise AppError(ErrorCode.WEAK_PASSWORD, "a password must be text", field="password")
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise AppError(
            ErrorCode.WEAK_PASSWORD,
            f"a password must have {PASSWORD_MIN} to {PASSWORD_MAX} characters, not "
            f"{len(password)}",
            field="password",
        )
    if password.lower() in COMMON or len(set(password)) < 3:
        raise AppError(
            ErrorCode.WEAK_PASSWORD,
            "this password is among the most common ones: choose another",
            field="password",
        )
    if username is not None and username_key(password) == username_key(username):
        raise AppError(
            ErrorCode.WEAK_PASSWORD, "a password cannot be the username", field="password"
        )
    return password


async def hash_password(password: str) -> str:
    """The argon2id hash of ``password``."""
    async with _slots():
        return await asyncio.to_thread(_hasher.hash, password)


def _verify(stored: str, password: str) -> bool:
    try:
        return _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


async def verify_password(stored: str, password: str) -> bool:
    """Whether ``password`` matches the hash ``stored``."""
    async with _slots():
        return await asyncio.to_thread(_verify, stored, password)


async def dummy_verify(password: str) -> None:
    """Spend what a verification costs, for a username that does not exist: a failed login takes
    the same time whether or not the account exists."""
    async with _slots():
        await asyncio.to_thread(_verify, _dummy_hash(), password)


def needs_rehash(stored: str) -> bool:
    """Whether ``stored`` was made with other parameters than today's (rehash at the next login)."""
    try:
        return _hasher.check_needs_rehash(stored)
    except InvalidHashError:
        return True
