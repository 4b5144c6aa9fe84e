"""One suite, every game and option set (OpenSpiel's random-games test, python-chess's round trips).

Games with huge move spaces (Jotun, Sgolte) return lazy iterables; the suite looks at a bounded
slice of them plus the moves the random games play, so it stays fast without skipping anything.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
from typing import Any

import pytest

import games
from games.base import Rules
from games.bench import random_game
from games.errors import IllegalMoveError, InvalidMoveError, RecordError
from games.record import make_record, replay

# `slow` (still run by `make test`, left out of `make check`): the option sets and walks that take
# tens of seconds where the others take one or two (pytest --durations, November 2026).
SLOW_OPTION_SETS = {"jotun-size6"}  # every test: its random games last 600 to 900 plies
SLOW_STEP_WALKS = {  # test_steps_agree_with_legal_moves only: the widest step trees
    "sgolte-size6-variantdense",
    "sgolte-size7-variantdense",
    "sgolte-size7-variantstandard",
}


def _cases(slow: set[str] = SLOW_OPTION_SETS) -> list[Any]:
    """Every game and option set, those named in ``slow`` marked ``slow``."""
    cases = []
    for slug in games.names():
        for opts in games.rules_class(slug).option_sets():
            name = f"{slug}-{'-'.join(f'{k}{v}' for k, v in opts.items()) or 'default'}"
            marks = [pytest.mark.slow] if name in slow else []
            cases.append(pytest.param(slug, opts, id=name, marks=marks))
    return cases


CASES = _cases()
MOVES_PER_POSITION = 300  # bound on legal moves inspected per position
POSITIONS_PER_GAME = 12
STEP_TREE_BUDGET = 3000  # nodes of the step tree walked exhaustively before sampling instead


def _games(slug: str, opts: dict[str, Any], count: int) -> list[tuple[list[Any], list[str]]]:
    """The first ``count`` (at most 3) random games of an option set, seeded 0, 1, 2."""
    assert count <= GAMES_PLAYED
    return _played(slug, json.dumps(opts, sort_keys=True))[:count]


GAMES_PLAYED = 3


@functools.cache
def _played(slug: str, options: str) -> list[tuple[list[Any], list[str]]]:
    """An option set's random games, played once per process and shared by its tests (a game of
    Jotun on 6 lasts 600 to 900 plies, about 5 s): states are immutable, so sharing is safe, and
    ``tests/conftest.py`` sends an option set's tests to one worker."""
    rules = games.get(slug, **json.loads(options))
    return [random_game(rules, random.Random(seed)) for seed in range(GAMES_PLAYED)]


def _sample_positions(states: list[Any], rng: random.Random) -> list[Any]:
    return rng.sample(states, min(POSITIONS_PER_GAME, len(states)))


def _moves(rules: Rules[Any, Any], state: Any) -> list[Any]:
    return list(itertools.islice(rules.legal_moves(state), MOVES_PER_POSITION))


@pytest.mark.parametrize(("slug", "opts"), CASES)
def test_random_games_end_with_an_outcome(slug: str, opts: dict[str, Any]) -> None:
    rules = games.get(slug, **opts)
    for states, texts in _games(slug, opts, 3):
        final = states[-1]
        outcome = rules.outcome(final)
        assert outcome is not None, f"{slug} {opts}: no outcome after {len(texts)} plies"
        assert rules.to_move(final) is None
        assert list(itertools.islice(rules.legal_moves(final), 1)) == []
        assert outcome.winner in (1, 2, None)
        rules.check_invariants(final)
        for state in states[:-1]:
            assert rules.to_move(state) in (1, 2)
            assert rules.outcome(state) is None
            rules.check_invariants(state)


@pytest.mark.parametrize(("slug", "opts"), CASES)
def test_canonical_text_round_trips_and_apply_is_pure(slug: str, opts: dict[str, Any]) -> None:
    rules = games.get(slug, **opts)
    rng = random.Random(7)
    for states, _ in _games(slug, opts, 2):
        for state in _sample_positions(states[:-1], rng):
            snapshot = repr(state), hash(rules.key(state))
            texts = []
            for move in _moves(rules, state):
                text = rules.format_move(state, move)
                texts.append(text)
                assert rules.parse_move(state, text) == move, text
                after = rules.apply(state, move)
                assert rules.format_move(state, rules.parse_move(state, text)) == text
                assert after != state or rules.to_move(after) != rules.to_move(state)
            assert len(set(texts)) == len(texts), "two legal moves share a canonical text"
            assert (repr(state), hash(rules.key(state))) == snapshot, "apply mutated its input"
            json.dumps(rules.view(state))  # the view is JSON-ready


@pytest.mark.parametrize(("slug", "opts"), CASES)
def test_the_fast_path_agrees_with_the_slow_one(slug: str, opts: dict[str, Any]) -> None:
    """A game played by ``search_random_move`` and ``search_apply`` plays only legal moves
    (``apply`` checks each; the texts of the first plies round-trip: later, one text can cost a
    Jotun origin's whole search), reaches the states ``apply`` reaches, and ends the same way; on
    sampled
    positions of the random games with at most ``MOVES_PER_POSITION`` moves, ``search_moves`` are
    the legal moves."""
    rules = games.get(slug, **opts)
    rng = random.Random(11)
    state = rules.initial_state()
    plies = 0
    while rules.to_move(state) is not None:
        move = rules.search_random_move(state, rng)
        if plies < 40:
            text = rules.format_move(state, move)
            assert rules.parse_move(state, text) == move, text
        after = rules.search_apply(state, move)
        slow = rules.apply(state, move)
        assert rules.key(after) == rules.key(slow), (plies, move)
        assert rules.to_move(after) == rules.to_move(slow)
        assert rules.outcome(after) == rules.outcome(slow)
        state = after
        plies += 1
    with pytest.raises(IllegalMoveError):
        rules.search_random_move(state, rng)
    assert rules.search_moves(state) == []
    for states, _ in _games(slug, opts, 1):
        for position in _sample_positions(states[:-1], rng):
            if len(_moves(rules, position)) == MOVES_PER_POSITION:
                continue  # maybe more: too many to list in a test
            fast = rules.search_moves(position)
            assert len(fast) == len(set(fast))
            assert set(fast) == set(rules.legal_moves(position))


@pytest.mark.parametrize(("slug", "opts"), CASES)
def test_record_replays_to_the_same_final_state(slug: str, opts: dict[str, Any]) -> None:
    rules = games.get(slug, **opts)
    for states, texts in _games(slug, opts, 2):
        record = make_record(rules, texts, [{"seat": 1, "name": "a"}, {"seat": 2, "name": "b"}])
        record = json.loads(json.dumps(record))
        assert replay(record) == states[-1]
        assert record["result"] == rules.outcome(states[-1]).to_json()
        if texts:
            broken = dict(record, moves=[*texts[:-1], "not-a-move"])
            with pytest.raises(RecordError) as err:
                replay(broken)
            assert err.value.ply == len(texts)


@pytest.mark.parametrize(("slug", "opts"), CASES)
def test_bad_texts_raise_the_right_error(slug: str, opts: dict[str, Any]) -> None:
    rules = games.get(slug, **opts)
    state = rules.initial_state()
    for text in ["", "   ", "zz99", "hello world", "e5-", "-e5", "@@@", "1,", "x" * 500]:
        with pytest.raises(InvalidMoveError):
            rules.parse_move(state, text)
    states, texts = _games(slug, opts, 1)[0]
    with pytest.raises(IllegalMoveError):
        rules.parse_move(states[-1], texts[-1])  # no move once the game is over
    for state in states[1:-1:7]:
        moves = _moves(rules, state)
        if len(moves) == MOVES_PER_POSITION:
            continue  # a partial listing cannot tell legal from illegal
        legal = {rules.format_move(state, m) for m in moves}
        # a text legal elsewhere in the game is refused here, or names one of these moves
        for other in texts:
            try:
                move = rules.parse_move(state, other)
            except (IllegalMoveError, InvalidMoveError):
                continue
            assert rules.format_move(state, move) in legal, other


@pytest.mark.parametrize(("slug", "opts"), _cases(SLOW_OPTION_SETS | SLOW_STEP_WALKS))
def test_steps_agree_with_legal_moves(slug: str, opts: dict[str, Any]) -> None:
    rules = games.get(slug, **opts)
    rng = random.Random(11)
    for states, _ in _games(slug, opts, 2):
        for state in _sample_positions(states, rng):
            moves = _moves(rules, state)
            # every legal move can be entered click by click
            for move in moves[:60]:
                text = rules.format_move(state, move)
                tokens = rules.move_tokens(state, move)
                for k in range(len(tokens)):
                    assert tokens[k] in rules.steps(state, tokens[:k]).next, (text, tokens, k)
                assert rules.steps(state, tokens).move == text
            # and nothing illegal can: every complete prefix the step tree offers is a legal move
            reached = _walk_steps(rules, state, rng)
            for text in reached:
                move = rules.parse_move(state, text)
                assert rules.format_move(state, move) == text
            if len(moves) < MOVES_PER_POSITION and len(reached) < STEP_TREE_BUDGET:
                assert reached == {rules.format_move(state, m) for m in moves}


def _walk_steps(rules: Rules[Any, Any], state: Any, rng: random.Random) -> set[str]:
    """Complete moves of the step tree: exhaustively if small, else along random walks."""
    reached: set[str] = set()
    stack: list[tuple[str, ...]] = [()]
    nodes = 0
    while stack and nodes < STEP_TREE_BUDGET:
        prefix = stack.pop()
        nodes += 1
        steps = rules.steps(state, prefix)
        if steps.move is not None:
            reached.add(steps.move)
        stack.extend((*prefix, token) for token in steps.next)
    if stack:  # too large to walk whole: add random descents
        for _ in range(40):
            prefix = ()
            while True:
                steps = rules.steps(state, prefix)
                if steps.move is not None and (not steps.next or rng.random() < 0.3):
                    reached.add(steps.move)
                    break
                assert steps.next, f"dead end in the step tree at {prefix}"
                prefix = (*prefix, rng.choice(steps.next))
    return reached


@pytest.mark.parametrize(("slug", "opts"), CASES)
def test_steps_refuse_what_leads_nowhere(slug: str, opts: dict[str, Any]) -> None:
    rules = games.get(slug, **opts)
    state = rules.initial_state()
    with pytest.raises(IllegalMoveError):
        rules.steps(state, ["no-such-token"])
    states, _ = _games(slug, opts, 1)[0]
    final = states[-1]
    assert rules.steps(final, []).next == ()
    assert rules.steps(final, []).move is None


def test_registry_and_options() -> None:
    assert games.names() == sorted(games.names())
    assert set(games.names()) <= set(games.SLUGS)
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        games.get("chess")
    for slug in games.names():
        cls = games.rules_class(slug)
        rules = cls()
        assert rules.options == {o.name: o.default for o in cls.OPTIONS}
        with pytest.raises(ValueError, match="unknown option 'colour'"):
            games.get(slug, colour=3)
        for option in cls.OPTIONS:
            with pytest.raises(ValueError, match=repr(option.name)):
                games.get(slug, **{option.name: "no-such-value"})
