"""A game's life before play: creating it with one seat taken, and joining it (cancel, later).

Also the guests themselves: who is asking, and renaming (accounts will join them here or beside).
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from app.errors import AppError, ErrorCode
from app.identity import default_name, name_key, validate_name
from app.repository import reads
from app.repository.writes import NewGame, PlayerName, Rename
from app.runtime.rules import known_games, slugs
from app.services.core import Core, Json, Position, Visitor, to_the_end


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
        seat: object,
        public: bool,
    ) -> Json:
        """A new game with the visitor seated; the answer holds the secret join token."""
        core = self.core
        if slug not in slugs():
            raise AppError(
                ErrorCode.UNKNOWN_GAME,
                f"unknown game {slug!r} (known: {known_games()})",
                field="game",
            )
        try:
            rules = core.rules.offered_rules(slug, options)
        except ValueError as exc:
            match = re.search(r"option '([^']*)'", str(exc))
            field = f"options.{match.group(1)}" if match else "options"
            raise AppError(ErrorCode.BAD_OPTION, str(exc), field=field) from exc
        if isinstance(seat, bool) or seat not in (1, 2, "random"):
            raise AppError(
                ErrorCode.INVALID_REQUEST,
                f"seat must be 1, 2 or 'random', not {seat!r}",
                field="seat",
            )
        if seat == "random":
            seat = 1 + secrets.randbelow(2)
        now = core.clock.now()
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
            "created_at": now,
            "last_activity_at": now,
            f"player{seat}_id": visitor.id,
            f"player{seat}_name": visitor.name,
            f"player{seat}_key": name_key(visitor.name),
        }
        event = {
            "game_id": game_id,
            "version": 1,
            "kind": "create",
            "payload": {"seat": seat, "name": visitor.name},
            "player_id": visitor.id,
            "msg_id": None,
            "created_at": now,
        }
        player = PlayerName(visitor.id, visitor.name, now)
        await core.writer.write(NewGame(game, [event], players=(player,)))
        core.remember(game_id, Position(1, rules, state, ()))
        return {
            "id": game_id,
            "seat": seat,
            "join_token": token,
            "invite_url": f"/games/{game_id}?join={token}",
            "url": f"/games/{game_id}",
            "ws_url": f"/ws/games/{game_id}",
            "version": 1,
        }

    @to_the_end
    async def join(self, visitor: Visitor, game_id: str, token: object) -> Json:
        """Take the empty seat of a game with its join token."""
        core = self.core
        async with core.lock(game_id), core.sessions() as session:
            game = await core.load(session, game_id)
            if not (
                isinstance(token, str)
                and game.join_token
                and secrets.compare_digest(token.encode(), game.join_token.encode())
            ):
                raise AppError(ErrorCode.BAD_TOKEN, "this join token does not open this game")
            if game.seat_of(visitor.id) is not None:
                raise AppError(ErrorCode.ALREADY_SEATED, "you already hold a seat in this game")
            full = AppError(ErrorCode.GAME_FULL, f"both seats of game {game_id!r} are taken")
            if game.player1_id is not None and game.player2_id is not None:
                raise full
            if game.status != "waiting":
                raise AppError(ErrorCode.GAME_OVER, "this game is over")
            seat = 1 if game.player1_id is None else 2
            now = core.clock.now()
            values: dict[str, Any] = {
                f"player{seat}_id": visitor.id,
                f"player{seat}_name": visitor.name,
                f"player{seat}_key": name_key(visitor.name),
                "status": "active",
                "last_activity_at": now,
            }
            position = await core.position(session, game)
            joined = ("join", {"seat": seat, "name": visitor.name})
            player = PlayerName(visitor.id, visitor.name, now)
            change = core.change(game, values, [joined], visitor, None, players=(player,))
            await core.advance(session, game, position, change, raced=full)
        return {"id": game_id, "seat": seat, "version": game.version}
