"""The opening explorer (issue 28): every continuation finished games played from a position of
their first 24 plies, with how often, how those games ended and how long they ran.

Positions are the rules' ``position_key``: folded over the symmetries each game's rules leave
invariant (``games.symmetry``), so mirrored and transposed openings merge. A game is counted when
it finishes (``Core.finish``, and an import): :func:`explored` computes its keys before the
transaction, and ``app.repository.explorer`` adds them by upsert in the result's transaction.
Only finished public games count, imported ones included (real games between people; the
archive's ``imported`` filter, beside ``position``, tells them apart). ``python -m app.explorer
rebuild`` counts the archive again from scratch, through the same rows.

A node (``GET /api/explorer/{game}``) replays the moves asked (at most :data:`DEPTH`), reads the
position's counts and its continuations, and writes each continuation as the legal move of the
position shown (a stored text may have been written on a mirror image of it). Answers are kept a
short while in a small in-process cache, since the counts only grow as games finish.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.domain.archive import options_key
from app.errors import AppError, ErrorCode, excerpt
from app.repository import explorer as rows
from app.repository.explorer import DEPTH, Explored
from app.runtime.rules import RecordError, Rules, RulesRunner, catalogue, known_games, slugs

if TYPE_CHECKING:  # core calls explored() when a game finishes: no import cycle at run time
    from app.services.core import Core

log = logging.getLogger(__name__)

#: The continuations a node lists at most (the most played first), and how many of the games that
#: reached each (and the position itself) it names.
MOST_CONTINUATIONS = 100
GAMES_PER_CONTINUATION = 3
GAMES_OF_POSITION = 5
#: The longest move text a node takes, and the most texts.
MOVE_TEXT_MAX = 200


def outcome_of(rules: Rules[Any, Any], result: Mapping[str, Any]) -> int | str | None:
    """How the explorer counts ``result``: the index of the winner's colour in the game's colour
    pair, ``"draw"``, or None for a win with no colour (before the pie's choice)."""
    if result.get("winner") is None:
        return "draw"
    colour = result.get("colour")
    return rules.colours.index(colour) if colour in rules.colours else None


async def explored(
    runner: RulesRunner,
    rules: Rules[Any, Any],
    game_id: str,
    moves: Sequence[str],
    result: Mapping[str, Any],
    finished_at: int,
    length: int | None = None,
) -> Explored | None:
    """A finished game's explorer rows (its first :data:`DEPTH` plies' keys), computed before the
    transaction that records its result; None, logged, if the rules cannot replay them (the game
    still ends, and a rebuild counts it). ``length``: the game's plies, if ``moves`` are only its
    opening."""
    opening = list(moves[:DEPTH])
    try:
        keys = await runner.position_keys(rules, opening)
    except (RecordError, AppError) as exc:
        log.warning("explorer: game %s not counted: %s", game_id, exc)
        return None
    return Explored(
        slug=rules.slug,
        options_key=options_key(rules.options),
        game_id=game_id,
        finished_at=finished_at,
        keys=tuple(keys),
        moves=tuple(opening),
        length=len(moves) if length is None else length,
        outcome=outcome_of(rules, result),
    )


def _average(counts: Mapping[str, int]) -> float | None:
    return round(counts["length"] / counts["games"], 1) if counts["games"] else None


def _counts_json(counts: Mapping[str, int]) -> dict[str, Any]:
    return {
        "games": counts["games"],
        "first_wins": counts["first_wins"],
        "second_wins": counts["second_wins"],
        "draws": counts["draws"],
        "average_length": _average(counts),
    }


def _game_json(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": row["game_id"],
        "players": [row["player1_name"], row["player2_name"]],
        "result": row["result"],
        "winner_colour": row["winner_colour"],
        "length": row["length"],
        "ply": row["ply"],
    }


class ExplorerService:
    """The explorer's nodes, cached a short while."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self._cache: OrderedDict[tuple[str, str, str], tuple[float, dict[str, Any]]] = OrderedDict()

    def options(self, slug: str, raw: str | None) -> Rules[Any, Any]:
        """The rules of ``slug`` with the option set ``raw`` (``size=5,variant=dense``, any order;
        absent: the defaults), which must be one the catalogue offers."""
        if slug not in slugs():
            raise AppError(
                ErrorCode.UNKNOWN_GAME,
                f"unknown game {excerpt(slug)} (known: {known_games()})",
                field="game",
            )
        info = next(g for g in catalogue() if g["slug"] == slug)
        choices = {o["name"]: {str(c): c for c in o["choices"]} for o in info["options"]}
        given: dict[str, Any] = {o["name"]: o["default"] for o in info["options"]}
        for pair in (raw or "").split(",") if raw else []:
            name, _, value = pair.partition("=")
            if name not in choices or value not in choices[name]:
                form = ",".join(f"{n}=<{'|'.join(c)}>" for n, c in choices.items())
                raise AppError(
                    ErrorCode.BAD_OPTION,
                    f"options of {slug} are {form or 'none'}, not {excerpt(raw)}",
                    field="options",
                )
            given[name] = choices[name][value]
        return self.core.rules.offered_rules(slug, given)

    async def node(self, slug: str, options: str | None, moves: str | None) -> dict[str, Any]:
        """The explorer at the position after ``moves`` (texts separated by spaces) from the start
        of ``slug`` with ``options``: its counts, its continuations and a few of its games."""
        cache_key = (slug, options or "", moves or "")
        now = time.monotonic()
        hit = self._cache.get(cache_key)
        if hit is not None and hit[0] > now:
            self._cache.move_to_end(cache_key)
            return hit[1]
        answer = await self._node(slug, options, moves)
        self._cache[cache_key] = (now + self.core.settings.explorer_cache_seconds, answer)
        while len(self._cache) > self.core.settings.explorer_cache_size:
            self._cache.popitem(last=False)
        return answer

    async def _node(self, slug: str, options: str | None, moves: str | None) -> dict[str, Any]:
        rules = self.options(slug, options)
        texts = (moves or "").split()
        if len(texts) > DEPTH:
            raise AppError(
                ErrorCode.INVALID_MOVE,
                f"the explorer goes {DEPTH} plies deep, not {len(texts)}",
                field="moves",
            )
        for text in texts:
            if len(text) > MOVE_TEXT_MAX or not text.isprintable():
                raise AppError(
                    ErrorCode.INVALID_MOVE,
                    f"a move is 1 to {MOVE_TEXT_MAX} printable characters, not {excerpt(text)}",
                    field="moves",
                )
        try:
            line = await self.core.rules.walk(rules, texts)
        except RecordError as exc:
            raise AppError(ErrorCode.ILLEGAL_MOVE, str(exc), field="moves", ply=exc.ply) from None
        key = line.keys[-1]
        where = (rules.slug, options_key(rules.options))
        async with self.core.sessions() as session:
            counts = await rows.position(session, *where, key)
            stored = await rows.children(session, *where, key, MOST_CONTINUATIONS)
            texts_here: list[str | None] = []
            if stored and len(line.moves) < DEPTH and line.to_move is not None:
                pairs = [(row["child"], row["move"]) for row in stored]
                texts_here = await self.core.rules.continuations(rules, line.state, pairs)
            shown = [(row, text) for row, text in zip(stored, texts_here, strict=False) if text]
            children = [row["child"] for row, _ in shown[:MOST_CONTINUATIONS]]
            wanted = dict.fromkeys(children[:10], GAMES_PER_CONTINUATION)
            wanted[key] = GAMES_OF_POSITION  # (a move always changes the key: never a child's)
            recent = await rows.recent_games(session, *where, wanted)
        zero = dict.fromkeys(rows.COUNTS, 0)
        return {
            "game": rules.slug,
            "options": rules.options,
            "options_key": where[1],
            "moves": list(line.moves),
            "position": key,
            "depth": DEPTH,
            "colours": list(rules.colours),
            "view": line.view,
            "to_move": line.to_move,
            **_counts_json(counts or zero),
            "continuations": [
                {
                    "move": text,
                    "position": row["child"],
                    **_counts_json(row),
                    "recent": [_game_json(g) for g in recent.get(row["child"], [])],
                }
                for row, text in shown
            ],
            "recent": [_game_json(g) for g in recent[key]],
        }
