"""The statistics page per game and option set (issue 28): its counters, kept as games finish,
read back as figures, and rebuilt from the archive.

:func:`counting` is what :meth:`~app.services.core.Core.finish` (and an import) adds to the
finishing game's transaction; :meth:`StatsService.figures` is ``GET /api/stats/{game}``;
:func:`rebuild` is ``python -m app.stats rebuild`` and the migration that made the table. All three
compute a game's increments with :func:`increments_of`, from the archive's columns, so a rebuilt
table equals the one kept incrementally.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import Connection

from app.domain import stats as domain
from app.repository import stats as counters
from app.runtime.rules import RulesRunner, has_pie, title

if TYPE_CHECKING:
    from app.services.core import Core

Source = Literal["all", "here", "imported"]
SOURCES: dict[str, bool | None] = {"all": None, "here": False, "imported": True}
#: The first moves an answer lists (the most played); the heat map reads them all.
FIRST_MOVES_SHOWN = 60
#: The first moves whose cells are remembered (one replay of one ply each).
CELLS_CACHED = 50_000

_fixed: dict[tuple[str, str], tuple[str | None, str | None]] = {}


def seat_colours(
    runner: RulesRunner, slug: str, options: Mapping[str, Any]
) -> tuple[str | None, str | None]:
    """The colours of seats 1 and 2 at the start of a game (both None in a game with a pie, whose
    colours come with the choice); (None, None) for a game or options no longer installed."""
    key = (slug, ",".join(f"{k}={options[k]}" for k in sorted(options)))
    if key not in _fixed:
        try:
            rules = runner.rules(slug, options)
        except ValueError:
            _fixed[key] = (None, None)
        else:
            colours = runner.view(rules, runner.initial(rules)).get("colours") or {}
            _fixed[key] = (colours.get("1"), colours.get("2"))
    return _fixed[key]


def increments_of(runner: RulesRunner, values: Mapping[str, Any]) -> list[counters.Increment]:
    """The counters a finished game adds to, from its archive columns (a game row, or the values
    :meth:`~app.services.core.Core.finish` is writing) with ``slug`` and ``options``."""
    slug = values["slug"]
    fixed = seat_colours(runner, slug, values["options"])[0]
    game = domain.Finished(
        finished_at=values["finished_at"],
        length=values["length"],
        first_move=values["first_move"],
        pie_taken=values["pie_taken"],
        result=values["result"],
        reason=values["reason"] or "unknown",
        first_colour=domain.first_colour(has_pie(slug), values["pie_taken"], fixed),
    )
    return [(kind, bucket, n) for (kind, bucket), n in sorted(domain.increments(game).items())]


def counting(
    runner: RulesRunner,
    slug: str,
    options: Mapping[str, Any],
    imported: bool,
    values: Mapping[str, Any],
) -> counters.AddCounters:
    """The change adding a finished public game's counters (``values``: its final row values)."""
    row = {**values, "slug": slug, "options": options}
    return counters.AddCounters(
        slug, values["options_key"], imported, tuple(increments_of(runner, row))
    )


def rebuild(conn: Connection, runner: RulesRunner | None = None) -> int:
    """Recompute every counter from the archive in ``conn``'s transaction: how many games."""
    runner = runner or RulesRunner(workers=0)
    return counters.rebuild(conn, lambda row: increments_of(runner, row))


class StatsService:
    """``GET /api/stats/{game}``: the figures of one game and option set, cached a few seconds."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self._answers: dict[tuple[str, str, str], tuple[float, dict[str, Any]]] = {}
        self._cells: OrderedDict[tuple[str, str, str], tuple[str, ...]] = OrderedDict()

    async def figures(
        self, slug: str, options: Mapping[str, Any], source: Source
    ) -> dict[str, Any]:
        """The statistics of ``slug`` with ``options`` (checked by the route), over the games
        played here, imported, or all; the same answer for ``STATS_CACHE_SECONDS``."""
        options_key = ",".join(f"{k}={options[k]}" for k in sorted(options))
        key = (slug, options_key, source)
        now = time.monotonic()
        cached = self._answers.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        async with self.core.sessions() as session:
            rows = await counters.counters(session, slug, options_key, SOURCES[source])
        runner = self.core.rules
        rules = runner.rules(slug, options)
        pie = has_pie(slug)
        colours = (
            ["black", "white"] if pie else [c for c in seat_colours(runner, slug, options) if c]
        )
        found = domain.figures(rows, colours, pie, FIRST_MOVES_SHOWN)
        tallies = found.pop("_cells")
        cells = {t[0]: await self._cells_of(rules, options_key, t[0]) for t in tallies}
        for m in found["first_moves"]["moves"]:
            m["cells"] = list(cells[m["move"]])
        answer = {
            "game": slug,
            "title": title(slug),
            "options": dict(options),
            "options_key": options_key,
            "source": source,
            "has_pie": pie,
            **found,
            "cells": domain.cell_heat(tallies, cells, pie),
            "board": runner.view(rules, runner.initial(rules)),
        }
        self._answers[key] = (now + self.core.settings.stats_cache_seconds, answer)
        return answer

    async def _cells_of(self, rules: Any, options_key: str, move: str) -> tuple[str, ...]:
        """The cells a first move placed on or went through, as the rules' view tells them; none
        for a text the rules no longer read."""
        key = (rules.slug, options_key, move)
        found = self._cells.get(key)
        if found is None:
            runner = self.core.rules
            try:
                state = await runner.replay(rules, [move])
            except ValueError:
                found = ()
            else:
                last = runner.view(rules, state).get("last_move") or {}
                found = tuple(last.get("cells") or ())
            self._cells[key] = found
            while len(self._cells) > CELLS_CACHED:
                self._cells.popitem(last=False)
        return found
