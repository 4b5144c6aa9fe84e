"""Accounts' HTTP bodies and answers (``docs/protocol.md``, "Accounts")."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictBool

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


#: "Confirm moves" on the game page: always, in games without a real-time clock, or never.
ConfirmMoves = Literal["always", "untimed", "never"]


class AccountSettingsOut(Out):
    """An account's settings."""

    digest: bool = Field(description="one email when turns wait and you have been away")
    confirm_moves: ConfirmMoves | None = Field(
        description="when the game page asks to confirm a move (null: the browser's default)"
    )


class AccountOut(Out):
    """An account, as its owner sees it."""

    username: str
    display_name: str
    player_id: str
    email: str | None
    email_verified: bool = Field(
        description="whether the address was verified (its link opened); false without one. "
        "Nothing but a verification link is mailed to an unverified address"
    )
    settings: AccountSettingsOut
    created_at: int


class LoginOut(AccountOut):
    """A login's answer: the account, and what this browser's guest could bring to it."""

    claimable: int = Field(description="games this browser played as a guest, not yet attached")
    guest_name: str | None = Field(description="that guest's name, when claimable > 0")


class OkOut(Out):
    """Done."""

    ok: bool


class SettingsIn(Strict):
    """``PUT /api/account/settings``: the settings to change (unknown ones are refused)."""

    digest: StrictBool | None = None
    confirm_moves: ConfirmMoves | None = None


class EmailIn(Strict):
    """``PUT /api/account/email``: the new address, or null for none."""

    email: Any


class VerifyIn(Strict):
    """``POST /api/account/email/verify``: the token of a verification link."""

    token: Any


class VerifiedOut(Out):
    """An address verified."""

    email: str = Field(description="the address the link verified")


class PasswordIn(Strict):
    """``POST /api/account/password``: the current password and the new one."""

    current: Any
    new: Any


class SessionOut(Out):
    """One of the account's sessions, as its owner sees it."""

    id: str = Field(description="a public id: the start of the session's key, never the token")
    created_at: int
    last_seen_at: int
    browser: str = Field(description='its user agent in a few words, "Firefox on Linux"')
    current: bool = Field(description="the session of this request")


class SessionsOut(Out):
    """The account's live sessions, the latest used first."""

    sessions: list[SessionOut]


class ClaimedOut(Out):
    """Games attached to the account, and games kept by the guest (the account already held their
    other seat)."""

    claimed: int
    kept: int


class LoggedOutOut(Out):
    """Sessions ended."""

    ended: int


class RecoverIn(Strict):
    """``POST /api/account/recover``: a username or an email address."""

    username_or_email: str


class ResetIn(Strict):
    """``POST /api/account/reset``: the recovery link's token and the new password."""

    token: Any
    password: Any
