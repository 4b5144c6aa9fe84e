"""The rules runner: every call from the server into ``games`` goes through here.

Most games answer a click or check a move in well under a millisecond, and the runner calls their
rules inline. A game whose rules set ``slow_positions`` (Jotun) can take up to seconds in a few
positions; computed inline, that would freeze every socket of the process. Its searching work
(``steps``, move checks, whole replays: stored moves, an imported record, ``POST /api/replay``) goes
to a worker process instead, so a heavy position delays only the calls queued behind it, and the
second core does the work. Replays of untrusted input (an imported record, ``POST /api/replay``) go
to a worker for every game, since anyone can send one, and stop themselves between two plies at
their own time limit (``REPLAY_TIMEOUT``, ``IMPORT_TIMEOUT``: seconds of processor time of their
own work, so neither time queued nor a machine busy with other processes counts); their caller is told ``rules_timeout`` (503) and the worker goes on serving. Any
worker call that runs past ``timeout`` seconds (counted, too, from the start of its work) has its
worker stopped and its caller told ``rules_timeout``; the other workers' calls go on, and a new
worker takes the stopped one's place. A worker that dies under a call (killed, out of memory) is
replaced as well, and the call tried once more. The pool is pebble's ``ProcessPool``, which does
this per call; closing the runner stops the workers without waiting for a call under way. Cheap,
pure work (views, outcomes, whose turn, the catalogue, the rules pages' figures) always runs inline,
as plain synchronous calls.

The runner keeps one ``Rules`` object per (game, options), in a bounded LRU, so whatever a game's
rules cache per instance is shared by every game played with the same options. The rules' errors
(``InvalidMoveError``, ``IllegalMoveError``, ``RecordError``; all ``ValueError``) reach the caller
unchanged, from a worker too; they are re-exported here, as is ``Rules``, so no other module of the
app imports ``games``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import Future, InvalidStateError
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from pebble import ProcessExpired, ProcessPool

import games
import games.diagram
from app.errors import AppError, ErrorCode, excerpt
from games import pie
from games.base import OptionValue, Rules, Steps
from games.errors import IllegalMoveError, InvalidMoveError, RecordError
from games.record import check_result, replay_moves, rules_of
from games.view import OutcomeView, Seat, SeatColours, View

__all__ = [
    "IllegalMoveError",
    "ImportedGame",
    "InvalidMoveError",
    "OutcomeView",
    "RecordError",
    "Rules",
    "RulesRunner",
    "Seat",
    "SeatColours",
    "Steps",
    "View",
    "ViewsPage",
    "Walked",
    "can_draw",
    "catalogue",
    "figure",
    "game_info",
    "known_games",
    "slugs",
    "title",
]

T = TypeVar("T")
Options = tuple[tuple[str, OptionValue], ...]
Json = dict[str, Any]
RULES_CACHE_SIZE = 64


# --- the catalogue and other cheap, pure work (inline, synchronous) ------------------------------


def catalogue() -> list[Json]:
    """Every game's metadata as the site shows it, in the site's order."""
    return [info.to_json() for info in games.infos()]


def can_draw(slug: str) -> bool:
    """Whether game ``slug`` can end drawn (False for a game no longer installed)."""
    return slug in games.REGISTRY and games.rules_class(slug).draws


@functools.cache
def has_pie(slug: str) -> bool:
    """Whether game ``slug`` opens with the pie rule (``games.pie``: a setup, then seat 2 chooses a
    colour); False for a game no longer installed."""
    if slug not in games.REGISTRY:
        return False
    return getattr(games.get(slug).initial_state(), "phase", None) == pie.SETUP


def game_info(slug: str) -> Json | None:
    """One game's metadata, or None if no game has this slug."""
    return games.info(slug).to_json() if slug in games.REGISTRY else None


def figure(
    game: str,
    options: Mapping[str, OptionValue],
    stacks: Mapping[str, str],
    *,
    to_move: str,
    move: str | None = None,
    tiles: Mapping[str, str] | None = None,
) -> games.diagram.Diagram:
    """A rules-page figure: the position described, and the move played on it by the engine."""
    return games.diagram.diagram(game, options, stacks, to_move=to_move, tiles=tiles, move=move)


@functools.cache
def slugs() -> frozenset[str]:
    """The slugs of the games this process serves (read once: modules do not appear at runtime)."""
    return frozenset(games.names())


def known_games() -> str:
    """The slugs, sorted and comma-separated, for error messages."""
    return ", ".join(games.names())


@functools.cache
def title(slug: str) -> str:
    """A game's title (the slug itself for a game no longer installed)."""
    try:
        return games.rules_class(slug).title
    except ValueError:
        return slug


# --- work that may run in a worker (module-level: a spawned worker imports it) --------------------


@functools.lru_cache(maxsize=32)
def _worker_rules(slug: str, options: Options) -> Rules[Any, Any]:
    return games.get(slug, dict(options))


@dataclass(frozen=True)
class ImportedGame:
    """A record replayed once: canonical move texts, the seat of each ply, the rules' outcome."""

    moves: tuple[str, ...]
    seats: tuple[int, ...]
    outcome: Json | None
    #: The final position's colour of each seat ("1", "2"), as the view gives them.
    colours: dict[str, str | None]


@dataclass(frozen=True)
class _Failed:
    """A RecordError as data: its ``ply`` would not survive pickling as an exception."""

    message: str
    ply: int | None


@dataclass(frozen=True)
class _Late:
    """A replay of untrusted input that reached its time limit, stopped by the worker itself
    between two plies: the worker goes on serving, and only its own processor time is counted."""

    seconds: float


def _unwrap(value: T | _Failed | _Late) -> T:
    if isinstance(value, _Failed):
        raise RecordError(value.message, value.ply)
    if isinstance(value, _Late):
        raise AppError(
            ErrorCode.RULES_TIMEOUT,
            f"the replay took over {value.seconds:g} s; ask for fewer plies, or try again",
        )
    return value


def _deadline(seconds: float | None) -> float:
    """The :func:`time.thread_time` a replay of at most ``seconds`` must stop at (never, for None).

    The limit bounds the work a request may cost, so it is counted in this thread's processor
    time: on a machine busy with other work the same replay takes longer by the clock, and would
    otherwise be refused for what others do (a worker runs one call at a time in its main thread;
    inline, the event loop's thread runs the replay without yielding)."""
    return math.inf if seconds is None else time.thread_time() + seconds


def check_move(rules: Rules[Any, Any], state: Any, text: str) -> tuple[str, Any]:
    """The move's canonical text and the position after it; the rules' errors if it is none."""
    move = rules.parse_move(state, text)
    return rules.format_move(state, move), rules.apply(state, move)


class _TooLate(Exception):
    """Raised by :func:`_replay` past its deadline."""


def _replay(
    rules: Rules[Any, Any], moves: Sequence[object], deadline: float = math.inf
) -> tuple[Any, list[str], list[int]]:
    """The state after ``moves``, their canonical texts and seats; RecordError at the first bad ply,
    _TooLate once ``deadline`` (:func:`_deadline`) has passed."""
    state = rules.initial_state()
    canonical: list[str] = []
    seats: list[int] = []
    for ply, text in enumerate(moves, start=1):
        if time.thread_time() > deadline:
            raise _TooLate
        if not isinstance(text, str):
            raise RecordError(f"ply {ply}: a move must be text, not {excerpt(text)}", ply)
        try:
            written, after = check_move(rules, state, text)
        except ValueError as exc:
            raise RecordError(f"ply {ply}: {exc}", ply) from exc
        seats.append(rules.to_move(state) or 1)
        canonical.append(written)
        state = after
    return state, canonical, seats


def _steps(slug: str, options: Options, state: Any, prefix: list[str]) -> Json:
    return steps_json(_worker_rules(slug, options), state, prefix)


def steps_json(rules: Rules[Any, Any], state: Any, prefix: list[str]) -> Json:
    """``rules.steps(state, prefix)`` as the protocol sends it, with ``ends``: the outcome that the
    complete move would give when it ends the game (so a page can say so before it is sent), else
    None."""
    steps = rules.steps(state, prefix)
    ends = None
    if steps.move is not None:
        outcome = rules.outcome(rules.play(state, steps.move))
        ends = None if outcome is None else outcome.to_json()
    return {**steps.to_json(), "ends": ends}


def _check_move(slug: str, options: Options, state: Any, text: str) -> tuple[str, Any]:
    return check_move(_worker_rules(slug, options), state, text)


def _stored(slug: str, options: Options, _state: Any, moves: list[str]) -> Any | _Failed:
    return _stored_with(_worker_rules(slug, options), moves)


def _stored_with(rules: Rules[Any, Any], moves: list[str]) -> Any | _Failed:
    try:
        return replay_moves(rules, moves)
    except RecordError as exc:
        return _Failed(str(exc), exc.ply)


def _import(
    slug: str, options: Options, _state: Any, argument: tuple[list[object], object, float | None]
) -> ImportedGame | _Failed | _Late:
    return _import_with(_worker_rules(slug, options), argument)


def _import_with(
    rules: Rules[Any, Any], argument: tuple[list[object], object, float | None]
) -> ImportedGame | _Failed | _Late:
    moves, result, seconds = argument
    try:
        state, canonical, seats = _replay(rules, moves, _deadline(seconds))
        outcome = rules.outcome(state)
        check_result(outcome, result)
    except RecordError as exc:
        return _Failed(str(exc), exc.ply)
    except _TooLate:
        assert seconds is not None
        return _Late(seconds)
    colours = dict(rules.view(state).get("colours") or {})
    return ImportedGame(
        tuple(canonical), tuple(seats), outcome.to_json() if outcome else None, colours
    )


@dataclass(frozen=True)
class ViewsPage:
    """A window of a replay's views: the view after each ply from ``first`` on, as many as fit,
    already encoded as a JSON array by the worker (the event loop neither builds nor encodes them).
    """

    first: int
    views_json: str
    #: The ply of the first view left out (``count`` or the byte cap stopped the page), or None.
    next: int | None

    @property
    def views(self) -> list[Json]:
        """The views, decoded (for tests and tools; the server sends ``views_json`` as it is)."""
        views: list[Json] = json.loads(self.views_json)
        return views


ViewsArgument = tuple[list[str], int, int, int, float | None]


def _views(
    slug: str, options: Options, _state: Any, argument: ViewsArgument
) -> ViewsPage | _Failed | _Late:
    return _views_with(_worker_rules(slug, options), argument)


def _views_with(rules: Rules[Any, Any], argument: ViewsArgument) -> ViewsPage | _Failed | _Late:
    """The views after plies ``first`` .. ``first + count - 1`` of ``moves`` (ply 0: before any
    move), stopping before the view that would take the page's JSON past ``max_bytes`` (one view
    at least), or at the time limit (``seconds``, counted from here: _Late). Only the moves up to
    the last view returned are replayed, and checked."""
    moves, first, count, max_bytes, seconds = argument
    deadline = _deadline(seconds)
    last = min(len(moves), first + count - 1)
    state = rules.initial_state()
    views: list[str] = []
    size = 0
    for ply in range(last + 1):
        if time.thread_time() > deadline:
            assert seconds is not None
            return _Late(seconds)
        if ply > 0:
            try:
                state = rules.play(state, moves[ply - 1])
            except ValueError as exc:
                return _Failed(f"ply {ply}: {exc}", ply)
        if ply < first:
            continue
        view = json.dumps(rules.view(state), separators=(",", ":"))
        size += len(view) + 1
        if views and size > max_bytes:
            return ViewsPage(first, f"[{','.join(views)}]", ply)
        views.append(view)
    return ViewsPage(first, f"[{','.join(views)}]", last + 1 if last < len(moves) else None)


# --- the opening explorer (issue 28) ---------------------------------------------------------------


@dataclass(frozen=True)
class Walked:
    """A line of moves from the start, replayed: the canonical texts, the position key after each
    ply (ply 0 first), and the final position (its state, view and seat to move)."""

    moves: tuple[str, ...]
    keys: tuple[str, ...]
    state: Any
    view: Json
    to_move: int | None


def _position_keys(slug: str, options: Options, _state: Any, moves: list[str]) -> list[str]:
    return position_keys(_worker_rules(slug, options), moves)


def position_keys(rules: Rules[Any, Any], moves: Sequence[str]) -> list[str]:
    """The position key (``Rules.position_key``) before the first of ``moves`` and after each;
    RecordError naming the first bad ply."""
    state = rules.initial_state()
    keys = [rules.position_key(state)]
    for ply, text in enumerate(moves, start=1):
        try:
            state = rules.play(state, text)
        except ValueError as exc:
            raise RecordError(f"ply {ply}: {exc}", ply) from exc
        keys.append(rules.position_key(state))
    return keys


def _walk(slug: str, options: Options, _state: Any, moves: list[str]) -> Walked | _Failed:
    return walk(_worker_rules(slug, options), moves)


def walk(rules: Rules[Any, Any], moves: Sequence[str]) -> Walked | _Failed:
    """``moves`` (any accepted writing) replayed from the start: :class:`Walked`, or the first bad
    ply as data."""
    try:
        state, canonical, _seats = _replay(rules, list(moves))
    except RecordError as exc:
        return _Failed(str(exc), exc.ply)
    keys = position_keys(rules, canonical)
    return Walked(tuple(canonical), tuple(keys), state, rules.view(state), rules.to_move(state))


def _continuations(
    slug: str, options: Options, state: Any, stored: list[tuple[str, str]]
) -> list[str | None]:
    return continuations(_worker_rules(slug, options), state, stored)


def continuations(
    rules: Rules[Any, Any], state: Any, stored: Sequence[tuple[str, str]]
) -> list[str | None]:
    """For each stored continuation ``(child key, move text)`` of a position equal to ``state`` up
    to the game's symmetries, the canonical text of the legal move of ``state`` that reaches that
    child (the stored text mapped by each symmetry in turn until one does), or None."""
    out: list[str | None] = []
    for child, text in stored:
        found = None
        for t in rules.symmetries:
            try:
                move = rules.parse_move(state, rules.move_image(text, t))
                after = rules.apply(state, move)
            except ValueError:
                continue
            if rules.position_key(after) == child:
                found = rules.format_move(state, move)
                break
        out.append(found)
    return out


# --- the worker's start: it must not outlive the server -------------------------------------------

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
ORPHAN_CHECK_EVERY = 1.0  # seconds, where the kernel cannot tell the worker itself


def _die_with_parent(parent: int) -> None:
    """The pool's initializer: end this worker when the server process ends, even by SIGKILL.

    A server killed outright runs no shutdown code, and its worker, blocked waiting for work,
    would live on. On Linux the kernel sends the worker SIGKILL when its parent dies
    (``PR_SET_PDEATHSIG``); elsewhere a daemon thread notices that the worker was re-parented.
    (Strictly, the kernel's signal follows the thread that started the worker: pebble starts the
    first workers from the event loop's thread and their replacements from its own manager thread,
    and neither ends before the pool does.)
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
                if os.getppid() != parent:  # the parent died before the request took effect
                    os._exit(1)
                return
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_EVERY)
    os._exit(1)


# --- the runner ----------------------------------------------------------------------------------


class RulesRunner:
    """Runs the rules: slow games' searching work in worker processes (started on first use) under
    a timeout; everything else inline. With ``workers=0`` every game runs inline."""

    def __init__(
        self, workers: int = 1, timeout: float = 30.0, cache_size: int = RULES_CACHE_SIZE
    ) -> None:
        self.workers = workers
        self.timeout = timeout
        self.calls = 0  # calls that went to a worker
        self._process_pool: ProcessPool | None = None
        self._under_way: set[Future[Any]] = set()  # the workers' calls not yet answered
        self._closed = False
        self._rules: OrderedDict[Hashable, Rules[Any, Any]] = OrderedDict()
        self._cache_size = cache_size

    # Rules objects ----------------------------------------------------------------------------

    def rules(self, slug: str, options: Mapping[str, Any]) -> Rules[Any, Any]:
        """The one shared ``Rules`` of ``slug`` with ``options``; ValueError if either is bad."""
        try:
            key: Hashable = (slug, tuple(sorted(options.items())))
            hash(key)
        except TypeError:  # an unhashable option value: the rules will name it
            return self._shared(games.get(slug, options))
        found = self._rules.get(key)
        if found is not None:
            self._rules.move_to_end(key)
            return found
        rules = self._shared(games.get(slug, options))
        self._keep(key, rules)
        return rules

    def offered_rules(self, slug: str, options: Mapping[str, Any]) -> Rules[Any, Any]:
        """The shared ``Rules`` of a new game: ``slug`` with options the catalogue offers (a stored
        game's may be others); ValueError if either is bad."""
        return self._shared(games.get_offered(slug, options))

    def record_rules(self, record: Mapping[str, Any]) -> Rules[Any, Any]:
        """The shared ``Rules`` a record (an import, a replay) names; RecordError if its format or
        game is bad, or an option is not one the catalogue offers."""
        return self._shared(rules_of(record, offered_only=True))

    def _shared(self, rules: Rules[Any, Any]) -> Rules[Any, Any]:
        """The cached instance equal to ``rules`` (same game, same full options), else ``rules``."""
        key = (rules.slug, tuple(sorted(rules.options.items())))
        found = self._rules.get(key)
        if found is not None:
            self._rules.move_to_end(key)
            return found
        self._keep(key, rules)
        return rules

    def _keep(self, key: Hashable, rules: Rules[Any, Any]) -> None:
        self._rules[key] = rules
        while len(self._rules) > self._cache_size:
            self._rules.popitem(last=False)

    # Cheap work, inline ------------------------------------------------------------------------

    @staticmethod
    def initial(rules: Rules[Any, Any]) -> Any:
        """The start position."""
        return rules.initial_state()

    @staticmethod
    def view(rules: Rules[Any, Any], state: Any) -> Json:
        """The position as the browser draws it."""
        view: Json = rules.view(state)
        return view

    @staticmethod
    def to_move(rules: Rules[Any, Any], state: Any) -> int | None:
        """The seat to move, or None when the game is over."""
        return rules.to_move(state)

    @staticmethod
    def outcome(rules: Rules[Any, Any], state: Any) -> Json | None:
        """The rules' result of a finished position (protocol shape), or None."""
        outcome = rules.outcome(state)
        return None if outcome is None else outcome.to_json()

    # Work that may search: a worker for slow games ------------------------------------------------

    async def steps(self, rules: Rules[Any, Any], state: Any, prefix: Sequence[str]) -> Json:
        """:func:`steps_json`: the protocol's ``steps`` payload."""
        if not self._offload(rules):
            return steps_json(rules, state, list(prefix))
        return await self._run(_steps, rules, state, list(prefix))

    async def check_move(self, rules: Rules[Any, Any], state: Any, text: str) -> tuple[str, Any]:
        """:func:`check_move`."""
        if not self._offload(rules):
            return check_move(rules, state, text)
        return await self._run(_check_move, rules, state, text)

    async def replay(self, rules: Rules[Any, Any], moves: Sequence[str]) -> Any:
        """The state after a game's stored moves; RecordError naming the first bad ply."""
        if not self._offload(rules):
            return _unwrap(_stored_with(rules, list(moves)))
        return _unwrap(await self._run(_stored, rules, None, list(moves)))

    async def read_record(
        self, rules: Rules[Any, Any], record: Mapping[str, Any], time_limit: float | None = None
    ) -> ImportedGame:
        """An uploaded record replayed once: canonical moves, seats, the rules' outcome (checked
        against the record's result); RecordError naming the first fault.

        Untrusted input: with workers, it is replayed in a worker for every game, not only the
        slow ones (never on the event loop), and stops after ``time_limit`` seconds of its own
        work (``rules_timeout``); the runner's timeout remains the backstop.
        """
        moves = record.get("moves")
        if not isinstance(moves, list):
            raise RecordError("the record's moves must be a list of texts")
        argument = (list(moves), record.get("result"), time_limit)
        if self.workers <= 0:
            return _unwrap(_import_with(rules, argument))
        return _unwrap(await self._run(_import, rules, None, argument))

    async def views(
        self,
        rules: Rules[Any, Any],
        moves: Sequence[str],
        first: int,
        count: int,
        max_bytes: int,
        time_limit: float | None = None,
    ) -> ViewsPage:
        """The views after plies ``first`` .. ``first + count - 1`` of ``moves``, at most
        ``max_bytes`` of JSON (:func:`_views_with`); RecordError naming the first bad ply.

        Untrusted input (``POST /api/replay``): with workers, it runs in a worker for every game,
        and stops after ``time_limit`` seconds of its own work (``rules_timeout``)."""
        argument: ViewsArgument = (list(moves), first, count, max_bytes, time_limit)
        if self.workers <= 0:
            return _unwrap(_views_with(rules, argument))
        return _unwrap(await self._run(_views, rules, None, argument))

    async def position_keys(self, rules: Rules[Any, Any], moves: Sequence[str]) -> list[str]:
        """:func:`position_keys` of a stored game's moves (a worker's for slow games)."""
        if not self._offload(rules):
            return position_keys(rules, moves)
        return await self._run(_position_keys, rules, None, list(moves))

    async def walk(self, rules: Rules[Any, Any], moves: Sequence[str]) -> Walked:
        """:func:`walk`; RecordError naming the first bad ply."""
        if not self._offload(rules):
            return _unwrap(walk(rules, moves))
        return _unwrap(await self._run(_walk, rules, None, list(moves)))

    async def continuations(
        self, rules: Rules[Any, Any], state: Any, stored: Sequence[tuple[str, str]]
    ) -> list[str | None]:
        """:func:`continuations` (a worker's for slow games)."""
        if not self._offload(rules):
            return continuations(rules, state, stored)
        return await self._run(_continuations, rules, state, list(stored))

    # The pool ----------------------------------------------------------------------------------

    def _offload(self, rules: Rules[Any, Any]) -> bool:
        return rules.slow_positions and self.workers > 0

    async def _run(
        self, work: Callable[..., T], rules: Rules[Any, Any], state: Any, argument: Any
    ) -> T:
        """``work(slug, options, state, argument)`` in a worker, under the timeout."""
        options = tuple(sorted(rules.options.items()))
        for attempt in (1, 2):
            pool = self._pool()
            self.calls += 1
            call = pool.schedule(
                work, args=(rules.slug, options, state, argument), timeout=self.timeout
            )
            self._under_way.add(call)
            call.add_done_callback(self._under_way.discard)
            try:
                # Shielded: pebble stops the worker of a cancelled call, and a caller that goes
                # away (a closed socket) should not cost a worker; its answer is dropped.
                return await asyncio.shield(asyncio.wrap_future(call))
            except TimeoutError:
                # pebble has stopped the worker that overran and started another in its place.
                raise AppError(
                    ErrorCode.RULES_TIMEOUT,
                    f"the rules of {rules.slug} took over {self.timeout:g} s; try again",
                ) from None
            except (ProcessExpired, BrokenProcessPool):
                # The worker died (killed, out of memory): pebble starts another (a new pool is
                # started if pebble gave this one up), and the call is tried once more.
                if self._closed:
                    raise _stopping() from None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _pool(self) -> ProcessPool:
        if self._closed:
            raise _stopping()
        if self._process_pool is not None and not self._process_pool.active:
            # pebble gives a pool up (BrokenProcessPool) when a worker dies with no call under way.
            _stop(self._process_pool)
            self._process_pool = None
        if self._process_pool is None:
            # spawn, not fork: this process already runs threads (SQLite's, the writer's).
            self._process_pool = ProcessPool(
                self.workers,
                initializer=_die_with_parent,
                initargs=(os.getpid(),),
                context=multiprocessing.get_context("spawn"),
            )
        return self._process_pool

    def close(self) -> None:
        """Stop the workers at once, even one in the middle of a call: the callers of the calls
        under way or queued are told ``rules_timeout``. A closed runner takes no more worker calls.
        """
        self._closed = True
        if self._process_pool is not None:
            _stop(self._process_pool)
            self._process_pool = None
        # The pool's threads have ended: no one else will answer these calls.
        for call in list(self._under_way):
            with contextlib.suppress(InvalidStateError):
                call.set_exception(_stopping())


def _stop(pool: ProcessPool) -> None:
    """Stop a pool's workers without waiting for their calls (SIGTERM, then SIGKILL after 3 s),
    and end its threads."""
    pool.stop()  # type: ignore[no-untyped-call]  # pebble 5.2 leaves it unannotated
    pool.join()


def _stopping() -> AppError:
    return AppError(ErrorCode.RULES_TIMEOUT, "the server is stopping; try again")
