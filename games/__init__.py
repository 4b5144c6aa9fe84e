"""Hexmoot's rules package: five hexagonal games behind one API, pure Python, no IO.

>>> import games
>>> "jotun" in games.SLUGS
True
>>> games.get("nope")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown game 'nope' (known: ...)

A game is registered by slug; ``names()`` lists the games whose module exists in this tree.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from .base import Option, Outcome, Rules, Steps
from .errors import IllegalMoveError, InvalidMoveError, RecordError

# slug -> module; each module defines ``Rules`` (a games.base.Rules subclass).
_MODULES: dict[str, str] = {
    "exxit": "games.exxit",
    "harmijan": "games.harmijan",
    "jotun": "games.jotun",
    "sgolte": "games.sgolte",
    "valaturna": "games.valaturna",
}
SLUGS: tuple[str, ...] = tuple(sorted(_MODULES))


def names() -> list[str]:
    """The slugs of the games available, sorted."""
    return [slug for slug in SLUGS if importlib.util.find_spec(_MODULES[slug]) is not None]


def rules_class(slug: str) -> type[Rules[Any, Any]]:
    """The Rules class of game ``slug``; ValueError naming it if unknown."""
    if slug not in _MODULES or slug not in names():
        raise ValueError(f"unknown game {slug!r} (known: {', '.join(names())})")
    cls: type[Rules[Any, Any]] = importlib.import_module(_MODULES[slug]).Rules
    return cls


def get(slug: str, **options: object) -> Rules[Any, Any]:
    """The rules of ``slug`` with ``options``; ValueError naming an unknown game or bad option."""
    return rules_class(slug)(**options)


__all__ = [
    "SLUGS",
    "IllegalMoveError",
    "InvalidMoveError",
    "Option",
    "Outcome",
    "RecordError",
    "Rules",
    "Steps",
    "get",
    "names",
    "rules_class",
]
