"""A player's own lists ("My games"): whose turn it is, games waiting for the opponent, open games,
challenges, and recently finished games, for an identity's every player id.

The lists are read again whenever one of them may have changed: ``/ws/me`` hears ``mine_changed``
on the identity's player channels (:meth:`app.services.core.Core.tell_players`) and sends them anew.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.domain.timecontrol import TimeControl
from app.models import Game
from app.repository import accounts as account_reads
from app.repository import mine as reads
from app.runtime.rules import title
from app.schemas.outgoing import MyGameJson, MyGamesJson
from app.services.challenges import ChallengeService
from app.services.core import Core, Owner, Visitor, clock_json, seat_ids

FINISHED_SHOWN = 20


def _entry(game: Game, ids: Sequence[str], now: int, owners: Mapping[str, Owner]) -> MyGameJson:
    """One game as a list of "My games" shows it, from the side of the identity's seat."""
    seat = 1 if game.player1_id in ids else 2
    other = 3 - seat
    opponent = getattr(game, f"player{other}_id")
    account = owners.get(opponent) if opponent is not None else None
    entry: MyGameJson = {
        "id": game.id,
        "game": game.slug,
        "title": title(game.slug),
        "status": game.status,
        "seat": seat,
        "opponent": getattr(game, f"player{other}_name"),
        "opponent_account": account[1] if account is not None else None,
        "your_turn": game.status == "active" and game.to_move == seat,
        "moves": game.ply_count,
        "rated": bool(game.rated),
        "public": game.public,
        "last_activity": game.last_activity_at,
        "url": f"/games/{game.id}",
        "invite_url": None,
        "outcome": None,
        "time": TimeControl.stored(game.time_control).label(),
        "clock": clock_json(game, now),
        "rematch_of": game.rematch_of,
        "rematch_id": game.rematch_id,
    }
    if game.status == "waiting" and game.creator_id in ids:
        entry["invite_url"] = f"/games/{game.id}?join={game.join_token}"
    if game.status == "finished":
        winner = (game.result_json or {}).get("winner")
        entry["outcome"] = "draw" if winner is None else ("won" if winner == seat else "lost")
    return entry


class MineService:
    """The lists of "My games"."""

    def __init__(self, core: Core, challenges: ChallengeService) -> None:
        self.core = core
        self.challenges = challenges

    async def player_ids(self, visitor: Visitor) -> list[str]:
        """The identity's player ids: an account's every player, or the guest."""
        async with self.core.sessions() as session:
            return await account_reads.identity_ids(session, visitor.id, visitor.account_id)

    async def mine(self, visitor: Visitor, ids: Sequence[str] | None = None) -> MyGamesJson:
        """The visitor's lists (``MyGamesOut``)."""
        ids = list(ids) if ids is not None else await self.player_ids(visitor)
        async with self.core.sessions() as session:
            current = await reads.current_games(session, ids)
            finished = await reads.finished_games(session, ids, FINISHED_SHOWN)
        now = self.core.clock.now()
        owners = await self.core.owners(seat_ids(*current, *finished))
        entries = [_entry(game, ids, now, owners) for game in current]
        your_turn = [e for e in entries if e["your_turn"]]
        waiting = [e for e in entries if e["status"] == "active" and not e["your_turn"]]
        open_ = [e for e in entries if e["status"] == "waiting"]
        return {
            "your_turn": your_turn,
            "waiting": waiting,
            "open": open_,
            "challenges": await self.challenges.of(visitor),
            "finished": [_entry(game, ids, now, owners) for game in finished],
            "turn_count": len(your_turn),
            "now": now,
        }
