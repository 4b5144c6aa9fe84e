"""A finished game as Abstract Play's game record (issue 28): the JSON that ``AbstractPlay/recranks``
proposes as a cross-site standard (``src/schemas/gamerecord.json``, ``$id``
:data:`SCHEMA_ID`), modelled on PGN: a header, then the moves by round.

Readings of the schema, where it leaves a choice to the site:

- ``game.name`` is the game's title ("Exxit"); ``game.variants`` its options, every one of them
  (defaults too, so that two records of one option set always name it alike), as ``name-value``
  ("size-5", "variant-blitz"), Abstract Play's own way of naming variants.
- ``site`` is ``{"name": "Hexmoot", "gameid": <the game's id>}``.
- ``date-start`` is when the game was created (Hexmoot keeps no separate start; an imported game's
  is its import), ``date-end`` when it finished, ``date-generated`` now; UTC, to the millisecond.
- ``players`` are in seating order *as of the end of the game*, as the schema asks ("if the pie
  rule was invoked, then the seating should reflect the final order"): the first player is the one
  who owns the first move. In the four games with a pie the setup is made for Black, so seat 2
  taking Black (``pied: true``) makes seat 2 the first player: the list is seat 2 then seat 1.
  Otherwise, and in Exxit (no pie), seat 1 then seat 2.
- Each player's ``result``: 1 the winner, 0 the loser, 0 both for a draw (the schema: the same
  number). ``score`` where the game counts points as a number (Harmijan's are compared as lists:
  left out). ``userid`` is the account's username; a guest has none, so its games cannot be rated
  by recranks, which matches Hexmoot (only accounts' games are rated). ``unrated`` is the game's.
- ``moves`` go by round, one entry per player in that seating order; a round starts afresh
  whenever the next mover's entry is already taken or comes before the last one filled, and an
  entry nobody played is ``null`` (the schema's rule for a player who did not move that round).
  So a pie taken gives a first round of ``[null, setup]`` and a second of ``[choice, ...]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

SCHEMA_ID = "https://www.abstractplay.com/schemas/gamerecord/1-0-0.json#"
SITE = "Hexmoot"


@dataclass(frozen=True)
class Seat:
    """A seat as the record names it: the name it was taken with, and its account's username."""

    name: str
    username: str | None


def iso(ms: int) -> str:
    """An epoch time in milliseconds as an RFC 3339 date-time in UTC (``...T12:00:00.000Z``)."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def seating(pied: bool | None) -> tuple[int, int]:
    """The seats in their seating order once the pie is settled (see the module's docstring)."""
    return (2, 1) if pied else (1, 2)


def rounds(
    texts: Sequence[str], seats: Sequence[int], order: Sequence[int]
) -> list[list[str | None]]:
    """The moves ``texts`` (played by ``seats``) grouped by round, one entry per seat of
    ``order``.

    >>> rounds(["a1", "black", "b2", "c3"], [1, 2, 2, 1], (2, 1))
    [[None, 'a1'], ['black', None], ['b2', 'c3']]
    >>> rounds(["a", "b", "c"], [1, 2, 1], (1, 2))
    [['a', 'b'], ['c', None]]
    """
    column = {seat: i for i, seat in enumerate(order)}
    out: list[list[str | None]] = []
    for text, seat in zip(texts, seats, strict=True):
        at = column[seat]
        if not out or at <= max(i for i, entry in enumerate(out[-1]) if entry is not None):
            out.append([None] * len(order))
        out[-1][at] = text
    return out


def record(
    *,
    game_id: str,
    title: str,
    options: Mapping[str, Any],
    rated: bool,
    pied: bool | None,
    created_at: int,
    finished_at: int,
    generated_at: int,
    seats: Mapping[int, Seat],
    result: Mapping[str, Any],
    texts: Sequence[str],
    movers: Sequence[int],
) -> dict[str, Any]:
    """The Abstract Play record of a finished game: its header (title, options, dates, the
    players with their results) and its moves ``texts``, each played by the seat in ``movers``."""
    order = seating(pied)
    winner = result.get("winner")
    scores = result.get("scores")
    players = []
    for seat in order:
        entry: dict[str, Any] = {"name": seats[seat].name, "result": 1 if winner == seat else 0}
        if seats[seat].username is not None:
            entry["userid"] = seats[seat].username
        if isinstance(scores, list) and isinstance(scores[seat - 1], int | float):
            entry["score"] = scores[seat - 1]
        players.append(entry)
    return {
        "header": {
            "game": {
                "name": title,
                "variants": [f"{name}-{value}" for name, value in sorted(options.items())],
            },
            "site": {"name": SITE, "gameid": game_id},
            "date-start": iso(created_at),
            "date-end": iso(finished_at),
            "date-generated": iso(generated_at),
            "unrated": not rated,
            "pied": bool(pied),
            "players": players,
        },
        "moves": rounds(texts, movers, order),
    }
