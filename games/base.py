"""The shape every game module shares: options, outcomes, step-wise entry and the ``Rules`` base.

A game module defines a frozen ``State``, a frozen ``Move`` and a ``Rules`` subclass that holds only
its options (pgx, OpenSpiel). Everything a caller needs goes through the methods below; the server,
the bots and the command line never know a rule.

Step-wise entry (``steps``): a move is entered as a sequence of *tokens*, each a cell id of the
game's ``view`` (``"e5"``, ``"1,-1"``) or a word (``"pass"``, ``"black"``, ``"white"``, ...). Given the
tokens clicked so far, ``steps`` answers which tokens may come next and whether the prefix is already
a complete legal move. The default implementation filters ``legal_moves`` by ``move_tokens``; games
with large move spaces override it.
"""

from __future__ import annotations

import itertools
import random
import re
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from mypy_extensions import mypyc_attr

from .errors import IllegalMoveError, InvalidMoveError
from .seats import COLOURS
from .symmetry import IDENTITY, Transform

S = TypeVar("S", bound=Hashable)
M = TypeVar("M", bound=Hashable)

Score = int | tuple[int, ...]
OptionValue = int | str


@dataclass(frozen=True)
class Option:
    """One option of a game: its default, the values offered to players, and the values accepted.

    ``choices`` are the values a lobby offers and the conformance suite tests; an int option with
    ``minimum``/``maximum`` also accepts other values in that range.
    """

    name: str
    default: OptionValue
    choices: tuple[OptionValue, ...]
    description: str
    minimum: int | None = None
    maximum: int | None = None

    def validate(self, game: str, value: object) -> OptionValue:
        """The value, converted from text where needed; ValueError naming the option otherwise."""
        kind = type(self.default)
        if kind is int and isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ValueError(f"{game}: option {self.name!r} must be {kind.__name__}, not {value!r}")
        assert isinstance(value, int | str)
        if value in self.choices:
            return value
        if (
            isinstance(value, int)
            and self.minimum is not None
            and value >= self.minimum
            and (self.maximum is None or value <= self.maximum)
        ):
            return value
        allowed = ", ".join(map(repr, self.choices))
        if self.minimum is not None:
            top = "" if self.maximum is None else f" and <= {self.maximum}"
            allowed = f">= {self.minimum}{top}"
        raise ValueError(f"{game}: option {self.name!r} cannot be {value!r} (allowed: {allowed})")

    def check_offered(self, game: str, value: OptionValue) -> None:
        """ValueError naming the option unless ``value`` is one of the ``choices`` offered to players
        (the range of ``minimum``/``maximum`` is for engines and tests, not for the site)."""
        if value not in self.choices:
            offered = ", ".join(map(repr, self.choices))
            raise ValueError(
                f"{game}: option {self.name!r} cannot be {value!r} (offered: {offered})"
            )

    def to_json(self) -> dict[str, Any]:
        """The option as the lobby shows it."""
        return {
            "name": self.name,
            "default": self.default,
            "choices": list(self.choices),
            "description": self.description,
        }


@dataclass(frozen=True)
class Outcome:
    """The end of a game: the winning seat (None for a draw), why, and both scores if counted.

    ``scores`` is indexed by seat - 1; a score is an int or, for games compared lexicographically,
    a tuple of ints. ``colour`` is the winner's colour, ``details`` game-specific JSON for display.
    """

    winner: int | None
    reason: str
    scores: tuple[Score, Score] | None = None
    colour: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The ``result`` object of a record and of the protocol."""
        scores = None if self.scores is None else [_jsonable(s) for s in self.scores]
        return {
            "winner": self.winner,
            "colour": self.colour,
            "reason": self.reason,
            "scores": scores,
        }


def _jsonable(score: Score) -> int | list[int]:
    return list(score) if isinstance(score, tuple) else score


@dataclass(frozen=True)
class Steps:
    """The answer to a step-wise prefix: legal next tokens, and the move if the prefix is complete.

    ``hints`` optionally maps a next token to a preview of what clicking it would do, which the
    browser draws on hover. Its keys, all optional: ``path`` (cell ids the move travels through, in
    order), ``changes`` (cell id -> the stack bottom to top as the move would leave it, ``[]`` when
    emptied), ``cells`` (cell ids to mark when there are no ``changes``), ``stack`` (the stack a
    click would put down) and ``count`` (how many different results the click still leaves open).

    ``prompt`` is one plain-English line telling the player what the next click is for ("Pick the
    stone to move"); empty only when nothing is asked (the game is over). ``changes`` is the board
    as it will be while the clicked prefix is pending: cell id -> the stack bottom to top (``[]``
    when emptied) for every cell whose contents differ from the current view; ``{}`` for an empty
    prefix. It uses the vocabulary of a hint's ``changes``.
    """

    prefix: tuple[str, ...]
    next: tuple[str, ...]
    move: str | None
    hints: Mapping[str, Any] = field(default_factory=dict, compare=False)
    prompt: str = ""
    changes: Mapping[str, list[str]] = field(default_factory=dict, hash=False)

    @property
    def complete(self) -> bool:
        """Whether the prefix is, as it stands, a complete legal move."""
        return self.move is not None

    def to_json(self) -> dict[str, Any]:
        """The protocol's ``steps`` payload."""
        return {
            "prefix": list(self.prefix),
            "next": list(self.next),
            "complete": self.complete,
            "move": self.move,
            "hints": dict(self.hints),
            "prompt": self.prompt,
            "changes": {cell: list(stack) for cell, stack in self.changes.items()},
        }


@dataclass(frozen=True)
class GameInfo:
    """One game's metadata as data: what the site's pages and API show about it."""

    slug: str
    title: str
    summary: str
    options: tuple[Option, ...]
    notation: tuple[str, ...]
    draws: bool
    rules: type[Rules[Any, Any]] = field(repr=False, compare=False)

    @classmethod
    def of(cls, rules: type[Rules[Any, Any]]) -> GameInfo:
        """The metadata a ``Rules`` class declares."""
        return cls(
            rules.slug,
            rules.title,
            rules.summary,
            rules.OPTIONS,
            rules.notation,
            rules.draws,
            rules,
        )

    def to_json(self) -> dict[str, Any]:
        """The game as the catalogue shows it."""
        return {
            "slug": self.slug,
            "title": self.title,
            "summary": self.summary,
            "options": [o.to_json() for o in self.options],
            "notation": list(self.notation),
            "draws": self.draws,
        }


# Compiled with mypyc (build_native.py), yet the base of games that run as Python in either build
@mypyc_attr(allow_interpreted_subclasses=True)
class Rules(ABC, Generic[S, M]):
    """A game's rules for one set of options. Stateless apart from the options; never does IO."""

    slug: ClassVar[str]
    title: ClassVar[str]
    summary: ClassVar[str]
    #: Example move texts in the game's notation, one of each kind, for help texts and clients; the
    #: first is the most typical move of play as typed on the site (the typed box's placeholder).
    notation: ClassVar[tuple[str, ...]] = ()
    OPTIONS: ClassVar[tuple[Option, ...]] = ()
    #: Former option names still read, old name -> current name: records and stored games written
    #: before a rename keep replaying. Honoured here only, in ``__init__``; ``options`` always
    #: gives the current names, so whatever is written again is written with them.
    RENAMED_OPTIONS: ClassVar[Mapping[str, str]] = {}
    #: Whether a game can end drawn (``shared/rules/README.md``, "Results"): a site offers draws,
    #: and takes records ending in an agreed draw, only in such a game.
    draws: ClassVar[bool] = False
    #: True when some positions take far longer than a click may wait to list moves, answer
    #: ``steps`` or check a move (seconds, not milliseconds): a server should run those calls
    #: away from the loop that serves its other games.
    slow_positions: ClassVar[bool] = False
    #: The rotations and reflections of the board that the rules leave invariant
    #: (``games.symmetry``): ``position_key`` folds positions over them. The identity alone
    #: folds nothing.
    symmetries: ClassVar[tuple[Transform, ...]] = IDENTITY
    #: The names of colours 0 and 1 (``games.seats``), the order in which results are counted.
    colours: ClassVar[tuple[str, str]] = COLOURS

    def __init__(self, **options: object) -> None:
        options = self.current_options(options)
        known = {o.name: o for o in self.OPTIONS}
        for name in options:
            if name not in known:
                raise ValueError(f"{self.slug}: unknown option {name!r}")
        self._options: dict[str, OptionValue] = {
            o.name: o.validate(self.slug, options[o.name]) if o.name in options else o.default
            for o in self.OPTIONS
        }

    @classmethod
    def current_options(cls, options: Mapping[str, object]) -> dict[str, object]:
        """``options`` with every former name (``RENAMED_OPTIONS``) replaced by the current one;
        ValueError if both names are given."""
        out = dict(options)
        for old, new in cls.RENAMED_OPTIONS.items():
            if old in out:
                if new in out:
                    raise ValueError(f"{cls.slug}: option {old!r} is the former name of {new!r}")
                out[new] = out.pop(old)
        return out

    @property
    def options(self) -> dict[str, OptionValue]:
        """The effective options, defaults filled in (a fresh dict)."""
        return dict(self._options)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self._options.items())
        return f"games.get({self.slug!r}{', ' if opts else ''}{opts})"

    @classmethod
    def option_sets(cls) -> list[dict[str, OptionValue]]:
        """Every combination of offered option values (what the conformance suite runs)."""
        names = [o.name for o in cls.OPTIONS]
        combos = itertools.product(*(o.choices for o in cls.OPTIONS))
        return [dict(zip(names, combo, strict=True)) for combo in combos]

    # --- the API every game implements -------------------------------------------------------

    @abstractmethod
    def initial_state(self) -> S:
        """The position before the first move."""

    @abstractmethod
    def to_move(self, state: S) -> int | None:
        """The seat to move (1 or 2), or None when the game is over."""

    @abstractmethod
    def legal_moves(self, state: S) -> Iterable[M]:
        """Every legal move (empty once the game is over), in the game's documented order."""

    @abstractmethod
    def format_move(self, state: S, move: M) -> str:
        """The canonical text of ``move`` in ``state``."""

    @abstractmethod
    def parse_move(self, state: S, text: str) -> M:
        """The move written ``text``; InvalidMoveError if it is no move, IllegalMoveError if illegal."""

    @abstractmethod
    def apply(self, state: S, move: M) -> S:
        """The state after ``move``; never mutates ``state``; IllegalMoveError if not legal."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """None while the game goes on, else its outcome."""

    @abstractmethod
    # Any, not games.view.View, while Jotun, Sgolte and the app still declare dict[str, Any]: each
    # game's ``view`` returns a View (``make_view``); once all do, this becomes ``-> View``.
    def view(self, state: S) -> Any:
        """A JSON-ready description of the position for the browser: a ``games.view.View``."""

    # --- shared behaviour, overridable ---------------------------------------------------------

    def move_tokens(self, state: S, move: M) -> tuple[str, ...]:
        """The clicks that enter ``move`` (used by the default :meth:`steps`)."""
        raise NotImplementedError(f"{self.slug} defines neither move_tokens nor steps")

    def steps(self, state: S, prefix: Sequence[str]) -> Steps:
        """Legal continuations of the clicked ``prefix``; IllegalMoveError if it leads nowhere."""
        prefix = tuple(prefix)
        n = len(prefix)
        following: set[str] = set()
        move_text = None
        for move in self.legal_moves(state):
            tokens = self.move_tokens(state, move)
            if tokens[:n] != prefix:
                continue
            if len(tokens) == n:
                move_text = self.format_move(state, move)
            else:
                following.add(tokens[n])
        if prefix and move_text is None and not following:
            raise IllegalMoveError(f"No legal move starts with {' '.join(prefix)}")
        # a plain prompt and no ``changes``: a game overrides ``steps`` to say more
        prompt = "Choose your move" if following else ""
        if move_text is not None:
            prompt = play_prompt(move_text, more=bool(following))
        return Steps(prefix, tuple(sorted(following, key=token_order)), move_text, prompt=prompt)

    def play(self, state: S, text: str) -> S:
        """Parse ``text`` and apply it."""
        return self.apply(state, self.parse_move(state, text))

    def random_move(self, state: S, rng: random.Random) -> M:
        """A random legal move: uniform here; games with huge move spaces override this with a
        cheaper draw that is not uniform over all moves (their docstrings say how)."""
        moves = list(self.legal_moves(state))
        if not moves:
            raise IllegalMoveError("The game is over")
        return rng.choice(moves)

    # --- the fast path for search: no texts, no checks, no display -----------------------------
    #
    # A search (a bot's playouts, make bench --fast) plays moves it got from these methods on the
    # state it got them for, so nothing here validates a move, writes a move text or fills the
    # fields a view shows. Each game overrides what pays; these defaults are the slow path itself.
    # The conformance suite checks that every game's fast path agrees with the slow one.

    def search_moves(self, state: S) -> list[M]:
        """Every legal move, in no promised order, as values ``search_apply`` takes; their texts
        are left uncomputed (``format_move`` gives them when a move is shown or stored)."""
        return list(self.legal_moves(state))

    def search_random_move(self, state: S, rng: random.Random) -> M:
        """A random legal move, drawn as cheaply as the game allows (each game's docstring says
        how it is distributed); IllegalMoveError if the game is over."""
        return self.random_move(state, rng)

    def search_apply(self, state: S, move: M) -> S:
        """The state after ``move``, which must come from ``search_moves`` or
        ``search_random_move`` (or ``legal_moves``) of this very ``state``: it is not checked.
        Equal to ``apply``'s state by ``key``; its display fields (the last move's text and
        cells) may be left empty."""
        return self.apply(state, move)

    def key(self, state: S) -> Hashable:
        """A stable key of the position for repetition checks and caches."""
        return state

    def position_key(self, state: S) -> str:
        """A short text naming the position up to the game's ``symmetries`` (the opening
        explorer's key, ``games.symmetry``): the same for each image, different for positions that
        differ in play. Each game documents what it holds."""
        raise NotImplementedError(f"{self.slug} defines no position_key")

    def move_image(self, text: str, t: Transform) -> str:
        """The text of move ``text`` on the image of its position under ``t``, one of
        ``symmetries`` (maybe not in canonical form: parse it there, then format it)."""
        if t != IDENTITY[0]:
            raise NotImplementedError(f"{self.slug} declares no symmetry but the identity")
        return text

    def bench_legal(self, state: S) -> int:
        """The legal-move work the server does for one position, for ``make bench``; returns a count."""
        return sum(1 for _ in self.legal_moves(state))

    def check_invariants(self, state: S) -> None:
        """Raise AssertionError if ``state`` breaks one of the game's invariants (the conformance
        suite calls this on every state of its random games); the default knows none."""

    def check_over(self, state: S) -> None:
        """Raise IllegalMoveError if the game is over (a helper for ``apply``/``parse_move``)."""
        if self.to_move(state) is None:
            raise IllegalMoveError("The game is over")


def play_prompt(move: str, more: bool = False) -> str:
    """The prompt of a complete prefix: confirm ``move``, or (``more``) go on to a longer one.

    >>> play_prompt("e4-e6", more=True), play_prompt("pass")
    ('Play e4-e6, or continue', 'Pass your turn')
    """
    text = "Pass your turn" if move == "pass" else f"Play {move}"
    return f"{text}, or continue" if more else text


def token_order(token: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that puts cell names in reading order (``e2`` before ``e10``), words by letters.

    >>> sorted(["e10", "e2", "d7", "pass", "1,-1", "-1,0"], key=token_order)
    ['-1,0', '1,-1', 'd7', 'e2', 'e10', 'pass']
    """
    parts = re.findall(r"-?\d+|[^\d-]+|-", token)
    return tuple((0, int(p)) if p.lstrip("-").isdigit() else (1, p) for p in parts)


def parse_word(text: str, words: Iterable[str]) -> str | None:
    """``text`` stripped and lowered if it is one of ``words``, else None.

    >>> parse_word(" Pass ", ["pass"])
    'pass'
    """
    t = text.strip().lower()
    return t if t in set(words) else None


__all__ = [
    "GameInfo",
    "IllegalMoveError",
    "InvalidMoveError",
    "Option",
    "OptionValue",
    "Outcome",
    "Rules",
    "Score",
    "Steps",
    "parse_word",
    "play_prompt",
    "token_order",
]
