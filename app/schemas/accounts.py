"""Accounts' HTTP bodies and answers (``docs/protocol.md``, "Accounts")."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.schemas.requests import Strict
from app.schemas.responses import Out


class SignupIn(Strict):
    """``POST /api/account/signup``: checked by the service (``bad_username``, ``weak_password``,
    ``bad_email``), so each gets its precise error."""

    username: Any
    password: Any
    email: Any = None


class LoginIn(Strict):
    """``POST /api/account/login``."""

    username: Any
    password: Any


class EmptyIn(Strict):
    """A body with nothing in it (``{}``), or none."""


class AccountSettingsOut(Out):
    """An account's settings."""

    digest: bool = Field(description="one email when turns wait and you have been away")


class AccountOut(Out):
    """An account, as its owner sees it."""

    username: str
    display_name: str
    player_id: str
    email: str | None
    settings: AccountSettingsOut
    created_at: int


class LoginOut(AccountOut):
    """A login's answer: the account, and what this browser's guest could bring to it."""

    claimable: int = Field(description="games this browser played as a guest, not yet attached")
    guest_name: str | None = Field(description="that guest's name, when claimable > 0")


class OkOut(Out):
    """Done."""

    ok: bool
