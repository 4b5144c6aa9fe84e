"""Hexmoot's rules package: five hexagonal games behind one API, pure Python, no IO.

Every game is registered here by slug, explicitly: ``REGISTRY`` maps each slug to its ``Rules``
class, and ``info(slug)`` gives its :class:`GameInfo` (title, summary, options, notation examples),
which the site's pages and API show. ``infos()`` lists the games in the order the site presents them.

>>> import games
>>> games.names()
['exxit', 'harmijan', 'jotun', 'sgolte', 'valaturna']
>>> games.info("jotun").title
'Jotun'
>>> games.get("nope")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown game 'nope' (known: ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# first of the package's modules: the compiled build of the others, if current (games/native.py)
from . import native  # noqa: F401

# isort: split
from . import exxit, harmijan, jotun, sgolte, valaturna
from .base import GameInfo, Option, Outcome, Rules, Steps
from .errors import IllegalMoveError, InvalidMoveError, RecordError

#: The games in the order the site presents them (lobby, rules index, catalogue).
INFOS: tuple[GameInfo, ...] = tuple(
    GameInfo.of(module.Rules) for module in (jotun, valaturna, harmijan, sgolte, exxit)
)
#: slug -> Rules class.
REGISTRY: dict[str, type[Rules[Any, Any]]] = {i.slug: i.rules for i in INFOS}
SLUGS: tuple[str, ...] = tuple(sorted(REGISTRY))
_INFO: dict[str, GameInfo] = {i.slug: i for i in INFOS}


def names() -> list[str]:
    """The slugs of the games, sorted."""
    return list(SLUGS)


def infos() -> tuple[GameInfo, ...]:
    """Every game's metadata, in the order the site presents them."""
    return INFOS


def info(slug: str) -> GameInfo:
    """The metadata of game ``slug``; ValueError naming it if unknown."""
    try:
        return _INFO[slug]
    except (KeyError, TypeError):
        raise ValueError(f"unknown game {slug!r} (known: {', '.join(SLUGS)})") from None


def rules_class(slug: str) -> type[Rules[Any, Any]]:
    """The Rules class of game ``slug``; ValueError naming it if unknown."""
    return info(slug).rules


def get(
    slug: str, options: Mapping[str, object] | None = None, /, **more: object
) -> Rules[Any, Any]:
    """The rules of ``slug`` with ``options`` (a mapping, or keywords); ValueError naming an
    unknown game or a bad option.

    Option names are checked before they become keyword arguments, so a name such as ``self``
    is an unknown option rather than a clash with a parameter:

    >>> get("jotun", {"self": 1})
    Traceback (most recent call last):
    ...
    ValueError: jotun: unknown option 'self'
    """
    rules = rules_class(slug)
    given = {**(options or {}), **more}
    known = {o.name for o in rules.OPTIONS} | set(rules.RENAMED_OPTIONS)
    for name in given:
        if name not in known:
            raise ValueError(f"{slug}: unknown option {name!r}")
    return rules(**given)


def get_offered(slug: str, options: Mapping[str, object] | None = None, /) -> Rules[Any, Any]:
    """The rules of ``slug`` with ``options`` whose every value is one the catalogue offers
    (``Option.choices``): what a player may create, replay or import. ValueError otherwise.

    >>> get_offered("valaturna", {"size": 6})
    Traceback (most recent call last):
    ...
    ValueError: valaturna: option 'size' cannot be 6 (offered: 5, 7)

    Each value must be of its option's type as given: the text ``"5"`` is no size here (:func:`get`
    reads text, for the command line).

    >>> get_offered("valaturna", {"size": "5"})
    Traceback (most recent call last):
    ...
    ValueError: valaturna: option 'size' must be int, not '5'
    """
    for option in rules_class(slug).OPTIONS:
        value = (options or {}).get(option.name, option.default)
        kind = type(option.default)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ValueError(
                f"{slug}: option {option.name!r} must be {kind.__name__}, not {value!r}"
            )
    rules = get(slug, options)
    for option in rules.OPTIONS:
        option.check_offered(slug, rules.options[option.name])
    return rules


__all__ = [
    "INFOS",
    "REGISTRY",
    "SLUGS",
    "GameInfo",
    "IllegalMoveError",
    "InvalidMoveError",
    "Option",
    "Outcome",
    "RecordError",
    "Rules",
    "Steps",
    "get",
    "get_offered",
    "info",
    "infos",
    "names",
    "rules_class",
]
