"""Direct challenges: an account challenges another by username to a game with its options, seat
and rating; the challenged accepts (the game starts, both seated) or declines; the challenger may
cancel. Each change tells both accounts' "My games" (``mine_changed`` on their primary players).

A challenge nobody else may see answers ``challenge_not_found``, exactly as one that does not exist.
Closing is a conditional UPDATE (pending → accepted, declined or cancelled), so of two answers
racing, in one process or two, exactly one wins and the other gets ``challenge_closed``.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from app.domain.timecontrol import TimeControl
from app.errors import AppError, ErrorCode, excerpt
from app.identity.usernames import username_key
from app.models import Account, Challenge
from app.repository import accounts as account_reads
from app.repository import challenges as store
from app.runtime.hub import player_channel
from app.runtime.rules import title
from app.schemas.mine import ChallengeAnswerOut
from app.schemas.outgoing import (
    ChallengeAnsweredJson,
    ChallengeChangedJson,
    ChallengeJson,
    ChallengePersonJson,
    ChallengesJson,
)
from app.schemas.requests import Seat
from app.services.core import Core, Visitor
from app.services.lifecycle import offered

if TYPE_CHECKING:
    from app.services.lifecycle import LifecycleService

_CHALLENGE_ID = re.compile(r"[A-Za-z0-9_-]{1,16}")


def _person(account: Account | None) -> ChallengePersonJson:
    if account is None:
        return {"username": None, "display_name": None}
    return {"username": account.username, "display_name": account.display_name}


class ChallengeService:
    """Send, accept, decline and cancel challenges."""

    def __init__(self, core: Core, lifecycle: LifecycleService) -> None:
        self.core = core
        self.lifecycle = lifecycle

    def _json(
        self, challenge: Challenge, people: dict[int, Account], me: int | None
    ) -> ChallengeJson:
        return {
            "id": challenge.id,
            "from": _person(people.get(challenge.challenger_id)),
            "to": _person(people.get(challenge.challenged_id)),
            "incoming": challenge.challenged_id == me,
            "game": challenge.slug,
            "title": title(challenge.slug),
            "options": challenge.options,
            "seat": challenge.seat,
            "rated": challenge.rated,
            "time_control": challenge.time_control,
            "time": TimeControl.stored(challenge.time_control).label(),
            "status": challenge.status,
            "game_id": challenge.game_id,
            "created_at": challenge.created_at,
        }

    async def of(self, visitor: Visitor) -> ChallengesJson:
        """The visitor's pending challenges, received and sent (none for a guest)."""
        if visitor.account_id is None:
            return {"incoming": [], "outgoing": []}
        async with self.core.sessions() as session:
            pending = await store.pending_of(session, visitor.account_id)
            ids = {c.challenger_id for c in pending} | {c.challenged_id for c in pending}
            people = await store.accounts_by_id(session, sorted(ids))
        entries = [self._json(c, people, visitor.account_id) for c in pending]
        return {
            "incoming": [e for e in entries if e["incoming"]],
            "outgoing": [e for e in entries if not e["incoming"]],
        }

    async def send(
        self,
        visitor: Visitor,
        raw_to: str,
        slug: str,
        options: dict[str, Any],
        seat: Seat,
        rated: bool,
        time_control: object = None,
    ) -> ChallengeJson:
        """Challenge the account ``raw_to`` (a username, any case), with a time control
        (unlimited by default; ``bad_option`` if it is not an allowed one)."""
        core = self.core
        rules, control = offered(core, slug, options, time_control)
        if visitor.account_id is None:
            raise AppError(
                ErrorCode.ACCOUNT_REQUIRED, "Log in or sign up to challenge a player by name"
            )
        if not 1 <= len(raw_to.strip()) <= 24:
            raise AppError(
                ErrorCode.PLAYER_NOT_FOUND, f"no player is called {excerpt(raw_to)}", field="to"
            )
        async with core.sessions() as session:
            target = await account_reads.account_by_key(session, username_key(raw_to.strip()))
            me = await account_reads.account_by_id(session, visitor.account_id)
        if target is None or me is None:
            raise AppError(
                ErrorCode.PLAYER_NOT_FOUND,
                f"no player is called {excerpt(raw_to.strip())}",
                field="to",
            )
        if target.id == me.id:
            raise AppError(
                ErrorCode.CANNOT_CHALLENGE_SELF, "You cannot challenge yourself", field="to"
            )
        now = core.clock.now()
        challenge_id = secrets.token_urlsafe(9)
        row: dict[str, Any] = {
            "id": challenge_id,
            "challenger_id": me.id,
            "challenged_id": target.id,
            "slug": slug,
            "options": rules.options,
            "seat": str(seat),
            "rated": rated,
            "time_control": control.to_json() if control.timed else None,
            "status": "pending",
            "game_id": None,
            "created_at": now,
            "answered_at": None,
        }
        await core.writer.write(store.NewChallenge(row))
        await self._tell((me, target), challenge_id)
        return self._json(Challenge(**row), {me.id: me, target.id: target}, me.id)

    async def _load(
        self, visitor: Visitor, challenge_id: str
    ) -> tuple[Challenge, dict[int, Account]]:
        """The challenge if the visitor sent or received it; ``challenge_not_found`` else."""
        missing = AppError(
            ErrorCode.CHALLENGE_NOT_FOUND, f"there is no challenge {excerpt(challenge_id)}"
        )
        if visitor.account_id is None or not _CHALLENGE_ID.fullmatch(challenge_id):
            raise missing
        async with self.core.sessions() as session:
            challenge = await store.get_challenge(session, challenge_id)
            if challenge is None or visitor.account_id not in (
                challenge.challenger_id,
                challenge.challenged_id,
            ):
                raise missing
            people = await store.accounts_by_id(
                session, [challenge.challenger_id, challenge.challenged_id]
            )
        return challenge, people

    async def _close(self, challenge: Challenge, status: str) -> None:
        closed = await self.core.writer.write(
            store.CloseChallenge(challenge.id, status, self.core.clock.now())
        )
        if closed != 1:
            raise AppError(
                ErrorCode.CHALLENGE_CLOSED, "This challenge was already answered or cancelled"
            )

    async def _tell(self, accounts: Iterable[Account | None], challenge_id: str) -> None:
        for account in accounts:
            if account is not None:
                changed: ChallengeChangedJson = {"type": "mine_changed", "challenge": challenge_id}
                await self.core.hub.publish(player_channel(account.player_id), changed)

    async def _answered(
        self, challenge: Challenge, people: dict[int, Account], game_id: str | None
    ) -> None:
        """Tell the challenger's sockets (``/ws/me``) that its challenge was accepted, with the
        game to go to, or declined."""
        challenger = people.get(challenge.challenger_id)
        if challenger is None:
            return
        answered: ChallengeAnsweredJson = {
            "type": "challenge_answered",
            "id": challenge.id,
            "status": "accepted" if game_id else "declined",
            "by": _person(people.get(challenge.challenged_id)),
            "game_id": game_id,
            "url": f"/games/{game_id}" if game_id else None,
        }
        await self.core.hub.publish(player_channel(challenger.player_id), answered)

    def _pending(self, challenge: Challenge) -> None:
        if challenge.status != "pending":
            raise AppError(
                ErrorCode.CHALLENGE_CLOSED, f"This challenge was already {challenge.status}"
            )

    async def accept(self, visitor: Visitor, challenge_id: str) -> ChallengeAnswerOut:
        """The challenged player accepts: the game starts with both seated."""
        challenge, people = await self._load(visitor, challenge_id)
        if challenge.challenged_id != visitor.account_id:
            raise AppError(ErrorCode.NOT_A_PLAYER, "Only the challenged player can accept")
        self._pending(challenge)
        challenger = people.get(challenge.challenger_id)
        if challenger is None:
            raise AppError(ErrorCode.CHALLENGE_NOT_FOUND, "the challenger's account is gone")
        await self._close(challenge, "accepted")
        seat: Seat = 1 if challenge.seat == "1" else 2 if challenge.seat == "2" else "random"
        host = Visitor(
            challenger.player_id, challenger.display_name, challenger.id, challenger.username
        )
        created = await self.lifecycle.create(
            host,
            challenge.slug,
            challenge.options,
            seat,
            challenge.rated,  # private, unless rated: a rated game is always public
            challenge.rated,
            quota=False,
            time_control=challenge.time_control,
        )
        await self.lifecycle.join(visitor, created.id, created.join_token)
        await self.core.writer.write(store.ChallengeGame(challenge.id, created.id))
        await self._tell(people.values(), challenge.id)
        await self._answered(challenge, people, created.id)
        return ChallengeAnswerOut(
            id=challenge.id,
            status="accepted",
            game_id=created.id,
            url=f"/games/{created.id}",
        )

    async def decline(self, visitor: Visitor, challenge_id: str) -> ChallengeAnswerOut:
        """The challenged player declines."""
        challenge, people = await self._load(visitor, challenge_id)
        if challenge.challenged_id != visitor.account_id:
            raise AppError(ErrorCode.NOT_A_PLAYER, "Only the challenged player can decline")
        self._pending(challenge)
        await self._close(challenge, "declined")
        await self._tell(people.values(), challenge.id)
        await self._answered(challenge, people, None)
        return ChallengeAnswerOut(id=challenge.id, status="declined", game_id=None, url=None)

    async def cancel(self, visitor: Visitor, challenge_id: str) -> ChallengeAnswerOut:
        """The challenger withdraws the challenge."""
        challenge, people = await self._load(visitor, challenge_id)
        if challenge.challenger_id != visitor.account_id:
            raise AppError(ErrorCode.NOT_A_PLAYER, "Only the challenger can cancel a challenge")
        self._pending(challenge)
        await self._close(challenge, "cancelled")
        await self._tell(people.values(), challenge.id)
        return ChallengeAnswerOut(id=challenge.id, status="cancelled", game_id=None, url=None)
