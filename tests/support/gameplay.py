"""Helpers to drive games in tests: pick a game, choose seeded legal moves, read a game's rows."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from app.models import Event, Game, Move, Player
from games.record import make_record


async def start_game(
    creator: httpx.AsyncClient,
    opponent: httpx.AsyncClient | None,
    slug: str,
    options: dict[str, Any],
) -> dict[str, Any]:
    """Create a game with ``creator`` in seat 1 and, if given, seat ``opponent`` in seat 2.

    Returns the create answer (id, join token, ...).
    """
    response = await creator.post("/api/games", json={"game": slug, "options": options, "seat": 1})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    if opponent is not None:
        joined = await opponent.post(
            f"/api/games/{created['id']}/join", json={"token": created["join_token"]}
        )
        assert joined.status_code == 200, joined.text
    return created


def quick_game() -> tuple[str, dict[str, Any]]:
    """A short game to exercise the server: Exxit's beginner set when installed, else the first."""
    if "exxit" in games.names():
        return "exxit", {"variant": "beginner"}
    return games.names()[0], {}


def smallest_options(slug: str) -> dict[str, Any]:
    """The option set of ``slug`` with the smallest board (the first offered value of each)."""
    cls = games.rules_class(slug)
    out: dict[str, Any] = {}
    for option in cls.OPTIONS:
        ints = [c for c in option.choices if isinstance(c, int)]
        out[option.name] = min(ints) if ints else option.default
    if slug == "exxit":
        out["variant"] = "beginner"
    return out


class MovePicker:
    """Follows a game's position and proposes seeded random legal moves."""

    def __init__(self, slug: str, options: dict[str, Any], seed: int = 0) -> None:
        self.rules = games.get(slug, **options)
        self.state = self.rules.initial_state()
        self.rng = random.Random(seed)
        self.moves: list[str] = []

    def to_move(self) -> int | None:
        return self.rules.to_move(self.state)

    def pick(self) -> str:
        """A random legal move's canonical text (not yet played)."""
        move = self.rules.random_move(self.state, self.rng)
        return self.rules.format_move(self.state, move)

    def play(self, text: str) -> None:
        self.state = self.rules.play(self.state, text)
        self.moves.append(text)

    def illegal(self) -> str | None:
        """A well-formed move the rules forbid now: an earlier move's text, if one is illegal."""
        for text in self.moves:
            try:
                self.rules.parse_move(self.state, text)
            except games.IllegalMoveError:
                return text
            except ValueError:
                continue
        return None


async def rows_of(sessions: async_sessionmaker[AsyncSession], game_id: str) -> dict[str, Any]:
    """Everything stored about a game, to compare before and after a refused input."""
    async with sessions() as session:
        game = (
            await session.execute(
                select(Game).where(Game.id == game_id).execution_options(populate_existing=True)
            )
        ).scalar_one()
        moves = (
            await session.execute(
                select(Move.ply, Move.text, Move.seat).where(Move.game_id == game_id)
            )
        ).all()
        events = (
            await session.execute(
                select(Event.version, Event.kind, Event.msg_id).where(Event.game_id == game_id)
            )
        ).all()
    columns = {c.key: getattr(game, c.key) for c in Game.__mapper__.column_attrs}
    return {"game": columns, "moves": sorted(moves), "events": sorted(events)}


async def table_counts(app: FastAPI) -> dict[str, int]:
    """How many rows each table of ``app``'s database holds: a refused input adds none."""
    async with app.state.sessionmaker() as session:
        return {
            model.__tablename__: (
                await session.execute(select(func.count()).select_from(model))
            ).scalar_one()
            for model in (Game, Move, Event, Player)
        }


def assert_each_event_once(received: Sequence[int], start: int, last: int, who: object) -> None:
    """A socket whose first snapshot was at version ``start`` was sent, live or in a catch-up or
    resync, the versions ``received``: every event after ``start`` up to ``last``, each exactly
    once and in order (docs/protocol.md, "Events and versions"). ``who`` names the socket in the
    failure."""
    assert list(received) == list(range(start + 1, last + 1)), who


def resigned_record(
    slug: str, options: dict[str, Any], plies: int, seed: int, first: str = "Sam"
) -> dict[str, Any]:
    """A record of ``plies`` random moves (fewer if the game ends), seat 2 resigning: seat 1 named
    ``first``, seat 2 "Kit". What the import, export and dump tests store."""
    rules = games.get(slug, **options)
    rng = random.Random(seed)
    state, moves = rules.initial_state(), []
    for _ in range(plies):
        if rules.to_move(state) is None:
            break
        move = rules.random_move(state, rng)
        moves.append(rules.format_move(state, move))
        state = rules.apply(state, move)
    players = [{"seat": 1, "name": first}, {"seat": 2, "name": "Kit"}]
    result = {"winner": 1, "reason": "resignation", "scores": None}
    return make_record(rules, moves, players, result=result)
