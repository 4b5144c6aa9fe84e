"""The random tokens of sessions, recovery links and verification links, and how they are kept: a
256-bit token goes to the browser or the mailbox, and the database keeps only its sha256, so a
leaked database holds no usable token.
"""

from __future__ import annotations

import hashlib
import secrets


def new_token() -> str:
    """A fresh 256-bit token, URL-safe."""
    return secrets.token_urlsafe(32)


def token_id(token: str) -> str:
    """The row id of a token: its sha256, hex.

    >>> len(token_id(new_token())), token_id("a")[:8]
    (64, 'ca978112')
    """
    return hashlib.sha256(token.encode()).hexdigest()
