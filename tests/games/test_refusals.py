"""Refusals read as plain language (issue 15): every message a random wrong move or click draws from
any game is one short line that starts like a sentence (or with the cell or move it names), cites no
rule and names no seat; the rules section goes in ``.rule``."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

import games
from games.bench import random_game
from games.errors import IllegalMoveError, InvalidMoveError, MoveError

SEPARATORS = ["-", "x", "@", ",", "/", ">", ":", " ", "", "x(", ")"]
WORDS = ["black", "white", "pass", "", "  ", "e", "zz9", "%%", "0,0", "+0,0", "a0", "E5"]


def plain(message: str, tokens: set[str], typed: str = "") -> list[str]:
    """What is wrong with ``message`` as a player-facing refusal (empty if nothing); it may start
    with one of ``tokens`` (a cell or move) or with a piece of the ``typed`` text it echoes."""
    faults = []
    if re.search(r"\[[^\]]*\]", message):
        faults.append("cites a rule in brackets")
    if re.search(r"seat [12]", message, re.IGNORECASE):
        faults.append("names a seat")
    if "\n" in message or len(message) > 90:
        faults.append("is not one line of at most 90 characters")
    first = message.split(" ", 1)[0].rstrip(":,…")
    if not (message[:1].isupper() or first in tokens or (first and first.lower() in typed.lower())):
        faults.append("does not start with a capital letter or the cell or move it names")
    if "'" in message or '"' in message:
        faults.append("quotes the input")
    return faults


def random_text(rng: random.Random, cells: list[str], legal: list[str]) -> str:
    """A random move text: pieces of cell names, legal texts and words, joined by separators."""
    parts = []
    for _ in range(rng.randint(1, 4)):
        pool = rng.choice([cells, legal or cells, WORDS])
        parts.append(rng.choice(pool))
        parts.append(rng.choice(SEPARATORS))
    return "".join(parts[:-1])


@pytest.mark.parametrize("slug", games.names())
def test_random_wrong_moves_and_clicks_get_plain_refusals(slug: str) -> None:
    rules = games.get(slug, **(games.rules_class(slug).option_sets()[0]))
    rng = random.Random(15)
    seen: dict[str, str] = {}
    rules_cited: set[str | None] = set()
    for seed in range(3):
        states, texts = random_game(rules, random.Random(seed))
        positions = [states[0], states[1], states[2], *rng.sample(states, min(10, len(states)))]
        for state in positions:
            cells = [cell["id"] for cell in rules.view(state)["cells"]]
            legal = list(texts) + [str(t) for t in rules.steps(state, ()).next] if cells else []
            tokens = {*cells, *legal, *WORDS}
            for _ in range(60):
                text = random_text(rng, cells, legal)
                error: Any = None
                try:
                    rules.parse_move(state, text)
                except MoveError as exc:
                    error = exc
                if error is None:
                    continue
                assert isinstance(error, IllegalMoveError | InvalidMoveError)
                rules_cited.add(error.rule)
                faults = plain(str(error), tokens, text)
                assert not faults, (text, str(error), faults)
                seen.setdefault(str(error), text)
            for _ in range(20):
                prefix = tuple(rng.choice(cells) for _ in range(rng.randint(1, 4)))
                try:
                    rules.steps(state, prefix)
                except IllegalMoveError as exc:
                    assert not plain(str(exc), tokens), (prefix, str(exc))
    assert len(seen) >= 3, seen  # the random texts met several kinds of refusal
    assert rules_cited - {None}, "no refusal named its rules section"


def test_the_rule_survives_pickling_through_the_rules_worker() -> None:
    import pickle

    error = pickle.loads(pickle.dumps(IllegalMoveError("e5 is occupied", rule="A3")))
    assert (type(error), str(error), error.rule) == (IllegalMoveError, "e5 is occupied", "A3")
    assert InvalidMoveError("Type a move like e5").rule is None


@pytest.mark.parametrize(
    ("slug", "moves", "text", "message", "rule"),
    [
        ("jotun", ["e5", "black"], "e5", "e5 is occupied", "A3"),
        ("valaturna", ["e3/e7", "black"], "e3", "e3 is occupied", "4"),
        ("harmijan", ["f5,f6/c3,c4"], "f5,f6/c3,c4", "The pairs are already placed", "5"),
        ("sgolte", ["e5", "black"], "e5", "e5 is occupied", "4"),
        ("exxit", [], "pass", "You can pass only when no other move exists", "4"),
    ],
)
def test_a_representative_refusal_of_each_game(
    slug: str, moves: list[str], text: str, message: str, rule: str
) -> None:
    rules = games.get(slug)
    state = rules.initial_state()
    for move in moves:
        state = rules.play(state, move)
    with pytest.raises(IllegalMoveError) as refused:
        rules.parse_move(state, text)
    assert (str(refused.value), refused.value.rule) == (message, rule)
