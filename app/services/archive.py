"""The archive: finished public games, filtered and paged, and imported records."""

from __future__ import annotations

import secrets
from typing import Any

from app.domain.results import result_key
from app.errors import AppError, ErrorCode
from app.identity import name_key, validate_name
from app.repository import reads
from app.repository.writes import NewGame
from app.runtime.rules import RecordError, title
from app.services.core import Core, Json, players_json


class ArchiveService:
    """Listing finished games and storing imported ones."""

    def __init__(self, core: Core) -> None:
        self.core = core

    async def archive(
        self, filters: reads.ArchiveFilter, after: tuple[int, str] | None, limit: int
    ) -> tuple[list[Json], tuple[int, str] | None]:
        """One archive page and the key of its last game when more follow."""
        async with self.core.sessions() as session:
            rows = list(await reads.archive_page(session, filters, after, limit + 1))
        more = len(rows) > limit
        rows = rows[:limit]
        entries = [
            {
                "id": g.id,
                "game": g.slug,
                "title": title(g.slug),
                "options": g.options,
                "players": players_json(g),
                "moves": g.ply_count,
                "result": g.result_json,
                "finished_at": g.finished_at,
                "imported": g.imported,
            }
            for g in rows
        ]
        last = rows[-1] if more and rows else None
        cursor = (last.finished_at or 0, last.id) if last is not None else None
        return entries, cursor

    async def import_record(self, record: object) -> Json:
        """Store a finished game's record, validated by replay, as an imported archived game.

        The record is replayed once, by the rules runner (a worker for slow games), before the
        write: the replay gives the canonical texts and the seat of every ply.
        """
        if not isinstance(record, dict):
            raise AppError(ErrorCode.INVALID_RECORD, "a record must be a JSON object", ply=None)
        try:
            rules = self.core.rules.record_rules(record)
            replayed = await self.core.rules.read_record(
                rules, record, time_limit=self.core.settings.replay_timeout
            )
        except RecordError as exc:
            raise AppError(ErrorCode.INVALID_RECORD, str(exc), ply=exc.ply) from exc
        result: Json | None = replayed.outcome or record.get("result")
        if result is None:
            raise AppError(
                ErrorCode.UNFINISHED_RECORD,
                "the moves leave the game open and the record gives no result",
                ply=None,
            )
        names = _names(record.get("players", []))
        now = self.core.clock.now()
        game_id = secrets.token_urlsafe(9)
        plies = len(replayed.moves)
        game = {
            "id": game_id,
            "slug": rules.slug,
            "options": rules.options,
            "public": True,
            "join_token": None,
            "creator_id": None,
            "status": "finished",
            "version": plies + 2,
            "ply_count": plies,
            "to_move": None,
            "player1_name": names.get(1),
            "player2_name": names.get(2),
            "player1_key": name_key(names[1]) if 1 in names else None,
            "player2_key": name_key(names[2]) if 2 in names else None,
            "result": result_key(result),
            "reason": str(result.get("reason")),
            "result_json": dict(result),
            "imported": True,
            "created_at": now,
            "last_activity_at": now,
            "finished_at": now,
        }

        def event(version: int, kind: str, payload: Json) -> Json:
            return {
                "game_id": game_id,
                "version": version,
                "kind": kind,
                "payload": payload,
                "player_id": None,
                "msg_id": None,
                "created_at": now,
            }

        moves: list[Json] = []
        events = [event(1, "import", {})]
        for ply, (text, seat) in enumerate(zip(replayed.moves, replayed.seats, strict=True), 1):
            moves.append(
                {
                    "game_id": game_id,
                    "ply": ply,
                    "text": text,
                    "seat": seat,
                    "player_id": None,
                    "created_at": now,
                }
            )
            events.append(event(ply + 1, "move", {"ply": ply, "move": text, "seat": seat}))
        events.append(event(plies + 2, "result", dict(result)))
        await self.core.writer.write(NewGame(game, events, moves))
        return {"id": game_id, "url": f"/games/{game_id}"}


def _names(players: Any) -> dict[int, str]:
    """The record's player names by seat, validated as guest names are."""
    names: dict[int, str] = {}
    if not isinstance(players, list):
        raise AppError(ErrorCode.INVALID_RECORD, "the record's players must be a list", ply=None)
    for entry in players:
        if not isinstance(entry, dict) or entry.get("seat") not in (1, 2):
            raise AppError(
                ErrorCode.INVALID_RECORD,
                f"a player must be {{seat: 1|2, name}}, not {entry!r}",
                ply=None,
            )
        try:
            names[entry["seat"]] = validate_name(entry.get("name"))
        except AppError as exc:
            raise AppError(
                ErrorCode.INVALID_RECORD, f"player {entry['seat']}: {exc.message}", ply=None
            ) from exc
    return names
