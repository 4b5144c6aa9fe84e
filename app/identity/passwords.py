"""Passwords: the rules they must meet, and argon2id hashes through argon2-cffi.

argon2-cffi's ``PasswordHasher`` hashes with argon2id, by default with its own defaults (RFC 9106's
second recommended parameter set: 3 passes over 64 MiB, 4 lanes; see ``app.config``). A hash takes
tens of milliseconds of one core and 64 MiB, so hashing runs in a thread (the event loop keeps
serving) and at most ``HASH_CONCURRENCY`` at once: a burst of logins queues instead of taking every
core and gigabytes.

The passes and the memory are settings (``PASSWORD_HASH_TIME_COST``, ``PASSWORD_HASH_MEMORY_KIB``):
the test suite, which signs up and logs in some three hundred times, hashes with 1 pass over 1 MiB
(``tests/conftest.py``); a site keeps the defaults. A hash made with other parameters than the
server's is rehashed at its account's next login.
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


@functools.cache
def _slots() -> asyncio.Semaphore:
    return asyncio.Semaphore(HASH_CONCURRENCY)


class Passwords:
    """argon2id hashes of passwords, with ``time_cost`` passes over ``memory_kib`` KiB."""

    def __init__(self, time_cost: int, memory_kib: int) -> None:
        self._hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_kib)
        # made now, so that even the first unknown name costs what a known one does
        self._dummy = self._hasher.hash("not a password anyone has")

    async def hash(self, password: str) -> str:
        """The argon2id hash of ``password``."""
        async with _slots():
            return await asyncio.to_thread(self._hasher.hash, password)

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return self._hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    async def verify(self, stored: str, password: str) -> bool:
        """Whether ``password`` matches the hash ``stored``."""
        async with _slots():
            return await asyncio.to_thread(self._verify, stored, password)

    async def dummy_verify(self, password: str) -> None:
        """Spend what a verification costs, for a username that does not exist: a failed login
        takes the same time whether or not the account exists."""
        async with _slots():
            await asyncio.to_thread(self._verify, self._dummy, password)

    def needs_rehash(self, stored: str) -> bool:
        """Whether ``stored`` was made with other parameters than these (rehash at the next
        login)."""
        try:
            return self._hasher.check_needs_rehash(stored)
        except InvalidHashError:
            return True


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
