"""A game's life before play: creating it with one seat taken, joining it, and its creator
cancelling it while nobody has joined.

Also the guests themselves: who is asking, and renaming (accounts will join them here or beside).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy.exc import IntegrityError

from app.domain.clock import to_ms
from app.domain.results import cancellation
from app.domain.timecontrol import UNLIMITED, Clocks, TimeControl, TimeControlError
from app.errors import AppError, ErrorCode, excerpt
from app.identity import default_name, name_key, validate_name
from app.models import Game
from app.repository import reads
from app.repository.writes import EventRow, NewGame, PlayerName, Rename
from app.runtime.hub import LIVE_CHANNEL, seat_channel
from app.runtime.rules import Rules, known_games, slugs
from app.schemas.requests import Seat
from app.schemas.responses import CancelledOut, CreatedOut, JoinedOut
from app.services.core import (
    Absence,
    Core,
    Position,
    Visitor,
    away_state,
    owner,
    to_the_end,
)
from app.services.reading import open_entry

#: How long a game creation's ``Idempotency-Key`` is kept (ms): the same request sent again within
#: a day gets the game the first one made.
CREATION_KEY_KEPT = 24 * 3600 * 1000
#: An ``Idempotency-Key``: what the header may hold, bare or as a structured-field string ("...").
CREATION_KEY_PATTERN = r'^"?[A-Za-z0-9+/=._:~-]{1,64}"?$'
_KEY = re.compile(r'"?([A-Za-z0-9+/=._:~-]{1,64})"?')


@dataclass(frozen=True)
class CreationKeyed:
    """A game creation sent with an ``Idempotency-Key``: the key and the sha256 of its body."""

    key: str
    fingerprint: str

    @classmethod
    def of(cls, header: str | None, body: Mapping[str, Any]) -> CreationKeyed | None:
        """The key of a creation request (None without the header); ``invalid_request`` naming
        the header if it is no key. ``body``: the request as validated, defaults filled in, so
        that leaving out a default is the same request as giving it."""
        if header is None:
            return None
        match = _KEY.fullmatch(header)
        if match is None or header.count('"') not in (0, 2):
            raise AppError(
                ErrorCode.INVALID_REQUEST,
                "Idempotency-Key must be 1 to 64 letters, digits or +/=._:~- (quoted or not)",
                field="Idempotency-Key",
            )
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return cls(match.group(1), hashlib.sha256(canonical.encode()).hexdigest())


def _created(game_id: str, seat: Literal[1, 2], token: str) -> CreatedOut:
    """The answer to a creation: the game, the creator's seat and the secret join token."""
    return CreatedOut(
        id=game_id,
        seat=seat,
        join_token=token,
        invite_url=f"/games/{game_id}?join={token}",
        url=f"/games/{game_id}",
        ws_url=f"/ws/games/{game_id}",
        version=1,
    )


@dataclass(frozen=True)
class _Table:
    """A new game's time control, takebacks and the game it is a rematch of."""

    control: TimeControl = UNLIMITED
    takebacks: bool = True
    rematch_of: str | None = None


def offered(
    core: Core, slug: str, options: Mapping[str, Any], time_control: object
) -> tuple[Rules[Any, Any], TimeControl]:
    """A new game's rules and time control, as a creator or a challenger offers them, checked
    once for both: ``bad_option`` naming the bad part of the time control, ``unknown_game``,
    ``bad_option`` naming the bad option. (The seat asked for is checked by the request model.)"""
    try:
        control = TimeControl.parse(time_control)
    except TimeControlError as exc:
        raise AppError(ErrorCode.BAD_OPTION, str(exc), field=exc.field) from exc
    if slug not in slugs():
        raise AppError(
            ErrorCode.UNKNOWN_GAME,
            f"unknown game {excerpt(slug)} (known: {known_games()})",
            field="game",
        )
    try:
        rules = core.rules.offered_rules(slug, options)
    except ValueError as exc:
        match = re.search(r"option '([^']*)'", str(exc))
        field = f"options.{match.group(1)}" if match else "options"
        raise AppError(ErrorCode.BAD_OPTION, str(exc), field=field) from exc
    return rules, control


class LifecycleService:
    """Create and join games; name guests."""

    def __init__(self, core: Core) -> None:
        self.core = core

    async def visitor(self, guest_id: str) -> Visitor:
        """The guest with its current name."""
        async with self.core.sessions() as session:
            player = await reads.get_player(session, guest_id)
        return Visitor(guest_id, player.name if player else default_name(guest_id))

    async def rename(self, guest_id: str, raw_name: object) -> Visitor:
        """Set a guest's display name (validated)."""
        name = validate_name(raw_name)
        await self.core.writer.write(Rename(PlayerName(guest_id, name, self.core.clock.now())))
        return Visitor(guest_id, name)

    async def create(
        self,
        visitor: Visitor,
        slug: str,
        options: dict[str, Any],
        seat: Seat,
        public: bool,
        rated: bool = False,
        *,
        quota: bool = True,
        time_control: object = None,
        takebacks: bool | None = None,
        rematch_of: str | None = None,
        keyed: CreationKeyed | None = None,
    ) -> CreatedOut:
        """A new game with the visitor seated; the answer holds the secret join token. ``keyed``:
        the request came with an ``Idempotency-Key``; if this visitor's key already made a game,
        the answer is that game's, and nothing is made (``idempotency_key_reused`` if it came with
        another request). A rated game needs an account (``account_required``); ``quota``: count it
        against the visitor's open games (a challenge's game, joined at once, is not).
        ``time_control``: unlimited when left out (``bad_option`` if not an allowed one);
        ``takebacks``: whether they may be asked, by default yes in a casual game and no in a rated
        one (joining a rated game that allows them is the joiner's consent)."""
        core = self.core
        rules, control = offered(core, slug, options, time_control)
        table = _Table(control, not rated if takebacks is None else takebacks, rematch_of)
        if rated and visitor.account_id is None:
            raise AppError(
                ErrorCode.ACCOUNT_REQUIRED, "Only players with an account can play rated games"
            )
        if rated and not public:
            # A rating is public (profiles, leaderboards), so is the game behind it: it can be
            # watched, and is archived and listed on both profiles.
            raise AppError(
                ErrorCode.BAD_OPTION,
                "A rated game is public: leave out public, or make the game unrated",
                field="public",
            )
        taken: Literal[1, 2] = seat if seat != "random" else 2 if secrets.randbelow(2) else 1
        # One creation of a visitor at a time in this process, so that creations arriving
        # together are counted one after the other against the open-games quota.
        async with core.lock(f"creator:{visitor.id}"):
            if keyed is not None and (before := await self._created_before(visitor, keyed)):
                return before
            try:
                return await self._create(
                    visitor, slug, rules, taken, public, rated, quota, table, keyed
                )
            except IntegrityError:
                # The same key, sent to another process at the same moment, made its game first:
                # this one wrote nothing (the key is the table's primary key).
                if keyed is None or not (before := await self._created_before(visitor, keyed)):
                    raise
                return before

    async def _created_before(self, visitor: Visitor, keyed: CreationKeyed) -> CreatedOut | None:
        """The answer of the game ``visitor`` created under ``keyed``'s key, if one did."""
        async with self.core.sessions() as session:
            row = await reads.creation_key(session, visitor.id, keyed.key)
            if row is None:
                return None
            if row.fingerprint != keyed.fingerprint:
                raise AppError(
                    ErrorCode.IDEMPOTENCY_KEY_REUSED,
                    "This Idempotency-Key was sent with another request: use a new key for a new"
                    " game",
                    field="Idempotency-Key",
                )
            game = await reads.get_game(session, row.game_id)
        assert game is not None  # the key is deleted with its game
        seat: Literal[1, 2] = 1 if game.player1_id == visitor.id else 2  # the creator's, kept
        assert game.join_token is not None
        return _created(game.id, seat, game.join_token)

    async def _create(
        self,
        visitor: Visitor,
        slug: str,
        rules: Rules[Any, Any],
        seat: Literal[1, 2],
        public: bool,
        rated: bool,
        quota: bool,
        table: _Table,
        keyed: CreationKeyed | None,
    ) -> CreatedOut:
        """:meth:`create` once the request is valid: within the quota, the new game written."""
        core = self.core
        now = core.clock.now()
        if quota:
            await self._within_open_games_quota(visitor, now)
        game_id = secrets.token_urlsafe(9)
        token = secrets.token_urlsafe(32)
        state = core.rules.initial(rules)
        game = {
            "id": game_id,
            "slug": slug,
            "options": rules.options,
            "public": public,
            "join_token": token,
            "creator_id": visitor.id,
            "status": "waiting",
            "version": 1,
            "ply_count": 0,
            "to_move": core.rules.to_move(rules, state),
            "imported": False,
            "rated": rated,
            "time_control": table.control.to_json() if table.control.timed else None,
            "clocks": Clocks.start(table.control).to_json(),
            "takebacks": table.takebacks,
            "rematch_of": table.rematch_of,
            "created_at": now,
            "last_activity_at": now,
            f"player{seat}_id": visitor.id,
            f"player{seat}_name": visitor.name,
            f"player{seat}_key": name_key(visitor.name),
        }
        event: EventRow = {
            "game_id": game_id,
            "version": 1,
            "kind": "create",
            "payload": {"seat": seat, "name": visitor.name, "account": visitor.username},
            "player_id": visitor.id,
            "msg_id": None,
            "created_at": now,
        }
        player = PlayerName(visitor.id, visitor.name, now)
        key: dict[str, Any] | None = None
        if keyed is not None:
            key = {"player_id": visitor.id, "key": keyed.key, "fingerprint": keyed.fingerprint}
            key |= {"game_id": game_id, "created_at": now}
        await core.writer.write(NewGame(game, [event], players=(player,), key=key))
        core.remember(game_id, Position(1, rules, state, ()))
        await core.tell_players(Game(**game))  # the creator's "My games" lists it
        owners = {visitor.id: owner(visitor)}
        if public:  # the lobbies following /ws/live list it at once
            await core.hub.publish(
                LIVE_CHANNEL, {"type": "open_update", "game": open_entry(Game(**game), owners)}
            )
        return _created(game_id, seat, token)

    async def _within_open_games_quota(self, visitor: Visitor, now: int) -> None:
        """AppError ``rate_limited`` if the visitor already has ``open_games_per_visitor`` games
        that nobody joined. ``Retry-After`` is when the longest idle of them is cancelled as
        abandoned (the quota frees sooner if someone joins one). Counted in the database, so
        every process agrees; two creations racing may both pass, which the creation rate bounds.
        A quota of 0 is none (and costs no query)."""
        settings = self.core.settings
        if settings.open_games_per_visitor <= 0:
            return
        async with self.core.sessions() as session:
            count, oldest = await reads.open_games_of(session, visitor.id)
        if count < settings.open_games_per_visitor:
            return
        freed_at = (oldest or now) + to_ms(settings.abandon_after)
        raise AppError(
            ErrorCode.RATE_LIMITED,
            f"you have {count} games waiting for an opponent, the most allowed: share one, or "
            "wait for one to be joined or cancelled",
            retry_after=max(freed_at - now, 1000) / 1000,
        )

    @to_the_end
    async def join(self, visitor: Visitor, game_id: str, token: str | None) -> JoinedOut:
        """Take the empty seat of a game with its join token."""
        core = self.core
        async with core.lock(game_id), core.sessions() as session:
            # A private game is shown only to its players and its token's holders: to anyone
            # else it answers exactly as a game that does not exist.
            game = await core.visible(session, game_id, visitor, token)
            if not core.token_opens(game, token):
                raise AppError(ErrorCode.BAD_TOKEN, "this join token does not open this game")
            if game.seat_of(visitor.id) is not None:
                raise AppError(ErrorCode.ALREADY_SEATED, "you already hold a seat in this game")
            full = AppError(ErrorCode.GAME_FULL, f"both seats of game {excerpt(game_id)} are taken")
            if game.player1_id is not None and game.player2_id is not None:
                raise full
            if game.status != "waiting":
                raise AppError(ErrorCode.GAME_OVER, "This game is over")
            if game.rated and visitor.account_id is None:
                raise AppError(
                    ErrorCode.ACCOUNT_REQUIRED, "This game is rated: log in or sign up to join it"
                )
            seat: Literal[1, 2] = 1 if game.player1_id is None else 2
            now = core.clock.now()
            values: dict[str, Any] = {
                f"player{seat}_id": visitor.id,
                f"player{seat}_name": visitor.name,
                f"player{seat}_key": name_key(visitor.name),
                "status": "active",
                "last_activity_at": now,
            }
            if TimeControl.stored(game.time_control).kind == "realtime":
                values["away"] = await self._absent_at_start(game, now)
            position = await core.position(session, game)
            joined = ("join", {"seat": seat, "name": visitor.name, "account": visitor.username})
            player = PlayerName(visitor.id, visitor.name, now)
            change = core.change(game, values, [joined], visitor, None, players=(player,))
            await core.advance(session, game, position, change, raced=full)
        return JoinedOut(id=game_id, seat=seat, version=game.version)

    async def _absent_at_start(self, game: Game, now: int) -> dict[str, Absence]:
        """The seats' absence as a real-time game starts: away is no open socket, so a seat with
        none (a joiner over HTTP, both players of an accepted challenge) is away from now until
        its first socket opens, and may be claimed after its grace like any other."""
        core = self.core
        state = away_state(game, core.settings.away_grace)
        for seat in ("1", "2"):
            if not await core.hub.presence_count(seat_channel(game.id, int(seat))):
                state[seat]["since"] = now
        return state

    @to_the_end
    async def cancel(self, visitor: Visitor, game_id: str) -> CancelledOut:
        """The seated creator ends a game nobody has joined yet. It ends as an abandoned waiting
        game does (:meth:`Core.finish`, ending "cancelled"): a ``result`` event on the game's
        socket, and ``live_end`` on the live socket, which takes it off the open list.

        Refusals change nothing: ``game_not_found`` (also a private game the visitor may not
        see), ``not_a_player`` (anyone but its seated creator), ``game_started`` (someone joined),
        ``game_over`` (it ended already, by a cancel too)."""
        core = self.core
        async with core.lock(game_id), core.sessions() as session:
            game = await core.visible(session, game_id, visitor, None)
            if game.creator_id != visitor.id or game.seat_of(visitor.id) is None:
                raise AppError(
                    ErrorCode.NOT_A_PLAYER, "Only the player who created this game can cancel it"
                )
            _cancellable(game)
            position = await core.position(session, game)
            ending, result = cancellation()
            try:
                await core.finish(session, game, position, result, ending=ending, visitor=visitor)
            except AppError as exc:
                if exc.code != ErrorCode.STALE_VERSION:
                    raise
                # Joined (or ended) meanwhile, by another process: say which.
                _cancellable(await core.load(session, game_id))
                raise
        return CancelledOut(id=game_id, status="cancelled")


def _cancellable(game: Game) -> None:
    """Nothing if ``game`` still waits for its second player; why it cannot be cancelled else."""
    if game.status == "active":
        raise AppError(
            ErrorCode.GAME_STARTED, "Someone joined this game: it can no longer be cancelled"
        )
    if game.status != "waiting":
        raise AppError(ErrorCode.GAME_OVER, "This game is over")
