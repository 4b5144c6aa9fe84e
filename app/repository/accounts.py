"""Accounts' SQL: the reads on an ``AsyncSession`` the caller opens, and the writes as changes for
the :class:`~app.repository.writer.Writer` (each one transaction)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import (
    Account,
    AccountSession,
    Event,
    Game,
    Move,
    Player,
    RecoveryToken,
    VerificationToken,
)
from app.repository.writes import PlayerName, save_players

Row = dict[str, Any]


# --- reads -----------------------------------------------------------------------------------


async def account_by_key(session: AsyncSession, key: str) -> Account | None:
    """The account whose username has this key (:func:`app.identity.usernames.username_key`)."""
    result = await session.execute(select(Account).where(Account.username_key == key))
    return result.scalar_one_or_none()


async def account_by_id(session: AsyncSession, account_id: int) -> Account | None:
    """The account with this id."""
    return await session.get(Account, account_id)


async def live_session(
    session: AsyncSession, session_id: str, now: int
) -> tuple[AccountSession, Account] | None:
    """The session with this id and its account, if it is neither revoked nor expired."""
    result = await session.execute(
        select(AccountSession, Account)
        .join(Account, Account.id == AccountSession.account_id)
        .where(
            AccountSession.id == session_id,
            AccountSession.revoked_at.is_(None),
            AccountSession.expires_at > now,
        )
    )
    row = result.first()
    return None if row is None else (row[0], row[1])


async def account_player_ids(session: AsyncSession, account_id: int) -> list[str]:
    """Every player id of an account: its primary player and the guests it claimed."""
    result = await session.execute(select(Player.id).where(Player.account_id == account_id))
    return list(result.scalars())


async def identity_ids(session: AsyncSession, player_id: str, account_id: int | None) -> list[str]:
    """The player ids of a visitor's identity: an account's players, or the one guest."""
    if account_id is None:
        return [player_id]
    return await account_player_ids(session, account_id)


async def seat_accounts(
    session: AsyncSession, player_ids: Sequence[str]
) -> dict[str, tuple[int, str]]:
    """The account id and username owning each of ``player_ids`` (those with an account)."""
    result = await session.execute(
        select(Player.id, Account.id, Account.username)
        .join(Account, Account.id == Player.account_id)
        .where(Player.id.in_(player_ids))
    )
    return {player: (account, username) for player, account, username in result.all()}


def _seated(player_ids: Sequence[str]) -> Any:
    return or_(Game.player1_id.in_(player_ids), Game.player2_id.in_(player_ids))


async def games_of_guest(session: AsyncSession, guest_id: str) -> int:
    """How many games (of any status but cancelled) seat this guest."""
    result = await session.execute(
        select(func.count()).where(_seated([guest_id]), Game.status != "cancelled")
    )
    return int(result.scalar_one())


async def turn_games(session: AsyncSession, player_ids: Sequence[str]) -> Sequence[Game]:
    """The active games where one of ``player_ids`` is to move, the longest waiting first."""
    if not player_ids:
        return []
    result = await session.execute(
        select(Game)
        .where(
            Game.status == "active",
            or_(
                and_(Game.player1_id.in_(player_ids), Game.to_move == 1),
                and_(Game.player2_id.in_(player_ids), Game.to_move == 2),
            ),
        )
        .order_by(Game.last_activity_at, Game.id)
    )
    return result.scalars().all()


# --- writes ------------------------------------------------------------------------------------


class UsernameTaken(Exception):
    """Another account has the username's key: nothing was written."""


class PlayerOwned(Exception):
    """The guest became an account's player meanwhile: nothing was written."""


@dataclass(frozen=True)
class NewAccount:
    """An account made of a guest: the guest's row (created if it never was) becomes the account's
    primary player, and the first session starts, with the link verifying its address if it gave
    one. Returns the account's id."""

    account: Row  # every column but id and player_id
    player: PlayerName
    session: Row  # every column but account_id
    verification: Row | None = None  # every column but account_id

    def __call__(self, conn: Connection) -> int:
        save_players(conn, [self.player])
        try:
            result = conn.execute(insert(Account).values(**self.account, player_id=self.player.id))
        except IntegrityError as exc:  # the unique username key (or, raced, the player)
            raise UsernameTaken from exc
        key = result.inserted_primary_key
        assert key is not None
        account_id = int(key[0])
        owned = conn.execute(
            update(Player)
            .where(Player.id == self.player.id, Player.account_id.is_(None))
            .values(account_id=account_id)
        )
        if owned.rowcount != 1:
            raise PlayerOwned
        conn.execute(insert(AccountSession).values(**self.session, account_id=account_id))
        if self.verification is not None:
            conn.execute(
                insert(VerificationToken).values(**self.verification, account_id=account_id)
            )
        return account_id


@dataclass(frozen=True)
class NewSession:
    """A login: one session row."""

    row: Row

    def __call__(self, conn: Connection) -> None:
        conn.execute(insert(AccountSession).values(**self.row))


@dataclass(frozen=True)
class RevokeSessions:
    """End sessions of an account now: one (``only``), or all (but ``keep``, if given)."""

    account_id: int
    now: int
    only: str | None = None
    keep: str | None = None

    def __call__(self, conn: Connection) -> int:
        statement = update(AccountSession).where(
            AccountSession.account_id == self.account_id, AccountSession.revoked_at.is_(None)
        )
        if self.only is not None:
            statement = statement.where(AccountSession.id == self.only)
        if self.keep is not None:
            statement = statement.where(AccountSession.id != self.keep)
        return int(conn.execute(statement.values(revoked_at=self.now)).rowcount)


@dataclass(frozen=True)
class TouchSession:
    """A session was used: its last use, its new expiry, and its account's last sight."""

    session_id: str
    account_id: int
    now: int
    expires_at: int

    def __call__(self, conn: Connection) -> None:
        conn.execute(
            update(AccountSession)
            .where(AccountSession.id == self.session_id)
            .values(last_seen_at=self.now, expires_at=self.expires_at)
        )
        conn.execute(
            update(Account).where(Account.id == self.account_id).values(last_seen_at=self.now)
        )


@dataclass(frozen=True)
class SetPasswordHash:
    """A password rehashed with today's parameters (at a login)."""

    account_id: int
    password_hash: str

    def __call__(self, conn: Connection) -> None:
        conn.execute(
            update(Account)
            .where(Account.id == self.account_id)
            .values(password_hash=self.password_hash)
        )


@dataclass(frozen=True)
class RenameAccount:
    """An account's new display name, on the account and on its primary player."""

    account_id: int
    player: PlayerName

    def __call__(self, conn: Connection) -> None:
        conn.execute(
            update(Account)
            .where(Account.id == self.account_id)
            .values(display_name=self.player.name)
        )
        save_players(conn, [self.player])


async def live_sessions(
    session: AsyncSession, account_id: int, now: int
) -> Sequence[AccountSession]:
    """An account's sessions that are neither revoked nor expired, the latest used first."""
    result = await session.execute(
        select(AccountSession)
        .where(
            AccountSession.account_id == account_id,
            AccountSession.revoked_at.is_(None),
            AccountSession.expires_at > now,
        )
        .order_by(AccountSession.last_seen_at.desc())
    )
    return result.scalars().all()


@dataclass(frozen=True)
class UpdateAccount:
    """New values of an account's columns (settings, email, password hash...)."""

    account_id: int
    values: Row

    def __call__(self, conn: Connection) -> None:
        conn.execute(update(Account).where(Account.id == self.account_id).values(**self.values))


@dataclass(frozen=True)
class ClaimGuest:
    """Attach a guest's games to an account: every seat, creator, move and event of the guest
    becomes the account's primary player's, except in games where that player already holds the
    other seat (they keep the guest, so a game keeps two distinct seats); then the guest's row
    becomes the account's. Returns (games attached, games kept). Nothing if the guest is owned.

    While one of the kept games is still being played, the guest stays a guest (signed out, its
    browser plays that seat as before): attaching it would leave a seat nobody can move, since an
    account acts only as its primary player. A later claim, once those games are over, attaches
    it."""

    guest_id: str
    account_id: int
    player_id: str

    def __call__(self, conn: Connection) -> tuple[int, int]:
        guest, me = self.guest_id, self.player_id
        shared = select(Game.id, Game.status).where(
            or_(
                and_(Game.player1_id == guest, Game.player2_id == me),
                and_(Game.player2_id == guest, Game.player1_id == me),
            )
        )
        kept: dict[str, str] = dict(conn.execute(shared).all())
        if "active" not in kept.values():
            owned = conn.execute(
                update(Player)
                .where(Player.id == guest, Player.account_id.is_(None))
                .values(account_id=self.account_id)
            )
            if owned.rowcount != 1:
                raise PlayerOwned
        mine = select(Game.id).where(_seated([guest]))
        claimed = {row[0] for row in conn.execute(mine)} - kept.keys()
        if claimed:
            ids = sorted(claimed)
            for seat in (Game.player1_id, Game.player2_id, Game.creator_id):
                conn.execute(update(Game).where(Game.id.in_(ids), seat == guest).values({seat: me}))
            conn.execute(
                update(Move)
                .where(Move.game_id.in_(ids), Move.player_id == guest)
                .values(player_id=me)
            )
            conn.execute(
                update(Event)
                .where(Event.game_id.in_(ids), Event.player_id == guest)
                .values(player_id=me)
            )
        return len(claimed), len(kept)


def _verified(email: str) -> Any:
    """The account's address is ``email``, verified."""
    return and_(Account.email == email, Account.email_verified_at.is_not(None))


async def accounts_to_recover(session: AsyncSession, key: str) -> Sequence[Account]:
    """The accounts a recovery request names, among those with a verified address: by username
    key, else by email key (every one)."""
    by_name = await account_by_key(session, key)
    if by_name is not None:
        verified = by_name.email is not None and by_name.email_verified_at is not None
        return [by_name] if verified else []
    result = await session.execute(
        select(Account).where(Account.email_key == key, Account.email_verified_at.is_not(None))
    )
    return result.scalars().all()


async def digest_candidates(
    session: AsyncSession, seen_before: int, sent_before: int
) -> Sequence[Account]:
    """Accounts with a verified address, away since ``seen_before``, with no digest since
    ``sent_before``."""
    result = await session.execute(
        select(Account).where(
            Account.email.is_not(None),
            Account.email_verified_at.is_not(None),
            Account.last_seen_at < seen_before,
            or_(Account.digest_sent_at.is_(None), Account.digest_sent_at < sent_before),
        )
    )
    return result.scalars().all()


@dataclass(frozen=True)
class NewRecoveryToken:
    """A recovery link's token (its sha256), if the account's address is still ``email``, verified:
    whether it was stored (an address changed since it was read gets no link)."""

    row: Row
    email: str

    def __call__(self, conn: Connection) -> bool:
        account = select(Account.id).where(Account.id == self.row["account_id"])
        if conn.execute(account.where(_verified(self.email))).first() is None:
            return False
        conn.execute(insert(RecoveryToken).values(**self.row))
        return True


class TokenRefused(Exception):
    """The token (a recovery or a verification link's) is unknown, used or expired, or its address
    is no longer the account's: nothing was written."""


def _spend_links(conn: Connection, account_id: int, now: int, recovery: bool) -> None:
    """Spend every open verification link of the account, and its recovery links if asked."""
    tables: list[type[VerificationToken] | type[RecoveryToken]] = [VerificationToken]
    if recovery:
        tables.append(RecoveryToken)
    for table in tables:
        conn.execute(
            update(table)
            .where(table.account_id == account_id, table.used_at.is_(None))
            .values(used_at=now)
        )


@dataclass(frozen=True)
class SetEmail:
    """An account's new address (None: none), not verified, with the link that verifies it (if
    any). Every open link of the account is spent, its recovery links too: none mailed to a
    former address does anything any more."""

    account_id: int
    email: str | None
    now: int
    verification: Row | None  # every column but account_id

    def __call__(self, conn: Connection) -> None:
        conn.execute(
            update(Account)
            .where(Account.id == self.account_id)
            .values(
                email=self.email,
                email_key=self.email.casefold() if self.email is not None else None,
                email_verified_at=None,
            )
        )
        _spend_links(conn, self.account_id, self.now, recovery=True)
        if self.verification is not None:
            conn.execute(
                insert(VerificationToken).values(**self.verification, account_id=self.account_id)
            )


@dataclass(frozen=True)
class NewVerificationLink:
    """A new link verifying the account's address, if it is still ``email`` and not verified; the
    older open links are spent. Whether it was stored."""

    account_id: int
    email: str
    now: int
    row: Row  # every column but account_id

    def __call__(self, conn: Connection) -> bool:
        unverified = conn.execute(
            select(Account.id).where(
                Account.id == self.account_id,
                Account.email == self.email,
                Account.email_verified_at.is_(None),
            )
        ).first()
        if unverified is None:
            return False
        _spend_links(conn, self.account_id, self.now, recovery=False)
        conn.execute(insert(VerificationToken).values(**self.row, account_id=self.account_id))
        return True


@dataclass(frozen=True)
class VerifyEmail:
    """Use a verification token once: its address, if it is still the account's, becomes verified
    and every open verification link of the account is spent, in one transaction. Returns the
    address; raises :class:`TokenRefused` if the token cannot be used."""

    token_id: str
    now: int

    def __call__(self, conn: Connection) -> str:
        row = conn.execute(
            select(VerificationToken.account_id, VerificationToken.email).where(
                VerificationToken.id == self.token_id,
                VerificationToken.used_at.is_(None),
                VerificationToken.expires_at > self.now,
            )
        ).first()
        if row is None:
            raise TokenRefused
        account_id, email = int(row[0]), str(row[1])
        # A change of address spends the links of the former one; the key compared (not the text)
        # keeps the link good when only the case of the same address was changed since.
        verified = conn.execute(
            update(Account)
            .where(Account.id == account_id, Account.email_key == email.casefold())
            .values(email_verified_at=self.now)
        )
        if verified.rowcount != 1:
            raise TokenRefused
        spent = conn.execute(
            update(VerificationToken)
            .where(VerificationToken.id == self.token_id, VerificationToken.used_at.is_(None))
            .values(used_at=self.now)
        )
        if spent.rowcount != 1:  # used meanwhile, by another request: all of this rolls back
            raise TokenRefused
        _spend_links(conn, account_id, self.now, recovery=False)
        return email


@dataclass(frozen=True)
class ResetPassword:
    """Use a recovery token once: the new password hash, the account's every open token spent,
    every session ended, in one transaction. Raises :class:`TokenRefused` if the token cannot be used."""

    token_id: str
    password_hash: str
    now: int

    def __call__(self, conn: Connection) -> int:
        row = conn.execute(
            select(RecoveryToken.account_id).where(
                RecoveryToken.id == self.token_id,
                RecoveryToken.used_at.is_(None),
                RecoveryToken.expires_at > self.now,
            )
        ).first()
        if row is None:
            raise TokenRefused
        spent = conn.execute(
            update(RecoveryToken)
            .where(RecoveryToken.id == self.token_id, RecoveryToken.used_at.is_(None))
            .values(used_at=self.now)
        )
        if spent.rowcount != 1:  # used meanwhile, by another request
            raise TokenRefused
        account_id = int(row[0])
        # Every other open link of the account is spent too: an older one, mailed before this,
        # must not reset the password again.
        conn.execute(
            update(RecoveryToken)
            .where(RecoveryToken.account_id == account_id, RecoveryToken.used_at.is_(None))
            .values(used_at=self.now)
        )
        conn.execute(
            update(Account)
            .where(Account.id == account_id)
            .values(password_hash=self.password_hash, password_changed_at=self.now)
        )
        RevokeSessions(account_id, self.now)(conn)
        return account_id


@dataclass(frozen=True)
class ClaimDigest:
    """Take the right to send an account's digest now: 1 if this process took it (its last digest
    is still the one it read, and its address still ``email``, verified), 0 if another process did
    meanwhile or the address changed."""

    account_id: int
    previous: int | None
    now: int
    email: str

    def __call__(self, conn: Connection) -> int:
        last = (
            Account.digest_sent_at.is_(None)
            if self.previous is None
            else Account.digest_sent_at == self.previous
        )
        result = conn.execute(
            update(Account)
            .where(Account.id == self.account_id, last, _verified(self.email))
            .values(digest_sent_at=self.now)
        )
        return int(result.rowcount)
