"""The Jinja2 environment shared by every page route (autoescaping on: names are user input).

The rules pages' diagrams come from one template global, :func:`diagram`: the templates describe a
position and a move, and the rules engine computes the boards and the move's text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates

from app.runtime import rules as rules_runner
from app.static_files import STATIC_DIR, file_hash, served

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES_DIR = ROOT / "templates"

templates = Jinja2Templates(directory=str(TEMPLATES_DIR))


def diagram(
    game: str,
    stacks: Mapping[str, str],
    *,
    to_move: str,
    move: str | None = None,
    tiles: Mapping[str, str] | None = None,
    **options: int | str,
) -> dict[str, str | None]:
    """A rules-page figure, computed by the engine: ``{"before", "after", "move"}``.

    ``stacks`` maps a cell name (``q,r`` on Exxit's field) to its pieces bottom to top as letters
    (``"WB"``: a white piece under a black one), ``tiles`` gives Exxit's field, ``to_move`` the
    colour that plays ``move``, and the remaining keywords are the game's options (``size=5``).
    ``before`` and ``after`` are the boards' views as JSON for ``data-view``; ``after`` and
    ``move`` (the canonical text) are None for a figure of a position alone. Every call into the
    rules package for a figure goes through the rules runner from here.
    """
    figure = rules_runner.figure(game, options, stacks, to_move=to_move, tiles=tiles, move=move)
    after = None if figure.after is None else json.dumps(figure.after, separators=(",", ":"))
    return {
        "before": json.dumps(figure.before, separators=(",", ":")),
        "after": after,
        "move": figure.move,
    }


@cache
def static_url(path: str) -> str:
    """The URL of a static file, relative to the site: never built from the request's Host header
    (``url_for`` would be, and ``Host: evil.example`` would load the page's scripts from there).

    It ends in ``?v=`` and a hash of the file's bytes (computed once per process), so the browser
    may keep it for a year (see :mod:`app.static_files`) and a new deploy is a new URL:

    >>> static_url("js/game.js")  # doctest: +ELLIPSIS
    '/static/js/game.js?v=...'
    """
    path = path.lstrip("/")
    return f"/static/{path}?v={file_hash(served(STATIC_DIR) / path)}"


def _visitor(request: Request) -> dict[str, Any]:
    """Every page's ``visitor`` (for the header): the one its route resolved, if it did."""
    return {"visitor": getattr(request.state, "visitor", None)}


def day(ms: int) -> str:
    """An epoch-milliseconds time as a day (UTC), for the pages: "23 November 2026".

    >>> day(1795478400000)
    '24 November 2026'
    """
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return f"{moment.day} {moment:%B %Y}"


templates.context_processors.append(_visitor)
templates.env.filters["day"] = day
templates.env.globals["diagram"] = diagram
templates.env.globals["static_url"] = static_url
