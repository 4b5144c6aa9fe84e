"""A finished game as Abstract Play's game record (``GET /games/{id}/abstractplay.json``, issue 28).

Every game and option set, the pie taken and not, is imported into a real uvicorn process on
SQLite and PostgreSQL (``backend``), and its record is validated against Abstract Play's own
schema (``tests/app/data/abstractplay-gamerecord.json``, AbstractPlay/recranks'
``src/schemas/gamerecord.json``, MIT), then read back: the moves by round give the game's moves
in order, each in its mover's column, and the players and results are the game's. A rated game
between two accounts, played here, names their usernames.
"""

from __future__ import annotations

import json
import random
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import games
from games.record import make_record
from tests.support.accounts import signup
from tests.support.gameplay import quick_game
from tests.support.server import LiveServer
from tests.support.wsclient import TestVisitor

SCHEMA = json.loads((Path(__file__).parent / "data" / "abstractplay-gamerecord.json").read_text())
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)
RESIGNED = {"winner": 2, "reason": "resignation", "scores": None}
CASES = [
    (slug, options, choice)
    for slug in games.names()
    for options in games.rules_class(slug).option_sets()
    for choice in (["black", "white"] if slug != "exxit" else [None])
]


def moves_of(slug: str, options: dict[str, Any], choice: str | None, seed: int) -> list[str]:
    """A random opening of 8 to 20 plies, seat 2 choosing ``choice`` at the pie."""
    rules = games.get(slug, **options)
    rng = random.Random(seed)
    state, texts = rules.initial_state(), []
    for _ in range(rng.randint(8, 20)):
        if rules.to_move(state) is None:
            break
        move = rules.random_move(state, rng)
        if len(texts) == 1 and choice is not None:
            move = rules.parse_move(state, choice)
        texts.append(rules.format_move(state, move))
        state = rules.apply(state, move)
    return texts


def check_dates(header: dict[str, Any]) -> None:
    for name in ("date-start", "date-end", "date-generated"):
        assert header[name].endswith("Z"), header[name]  # RFC 3339, UTC
        datetime.fromisoformat(header[name])
    assert header["date-start"] <= header["date-end"] <= header["date-generated"]


@pytest.mark.parametrize(("slug", "options", "choice"), CASES, ids=str)
async def test_every_game_and_option_set_exports_a_valid_record(
    server: LiveServer, slug: str, options: dict[str, Any], choice: str | None
) -> None:
    ann = await TestVisitor(server.url).start("Ann")
    moves = moves_of(slug, options, choice, seed=len(slug) * 31 + len(str(options)))
    players = [{"seat": 1, "name": "Ann"}, {"seat": 2, "name": "Bo"}]
    rules = games.get(slug, **options)
    imported = await ann.http.post(
        "/api/archive/import", json=make_record(rules, moves, players, result=RESIGNED)
    )
    assert imported.status_code == 201, imported.text
    game_id = imported.json()["id"]
    answer = await ann.http.get(f"/games/{game_id}/abstractplay.json")
    assert answer.status_code == 200, answer.text
    assert "attachment" in answer.headers["content-disposition"]
    record = answer.json()
    errors = sorted(VALIDATOR.iter_errors(record), key=str)
    assert not errors, [e.message for e in errors]

    header = record["header"]
    assert header["game"] == {
        "name": rules.title,
        "variants": [f"{k}-{v}" for k, v in sorted(rules.options.items())],
    }
    assert header["site"] == {"name": "Hexmoot", "gameid": game_id}
    check_dates(header)
    assert header["unrated"] is True
    assert header["pied"] is (choice == "black")
    # the seating once the pie is settled: seat 2 first when it took the setup's colour
    order = [2, 1] if choice == "black" else [1, 2]
    names = {1: "Ann", 2: "Bo"}
    assert header["players"] == [
        {"name": names[seat], "result": 1 if seat == 2 else 0} for seat in order
    ]
    # the rounds give back the moves, in order, each in its mover's column
    flat = [(column, text) for row in record["moves"] for column, text in enumerate(row) if text]
    assert [text for _, text in flat] == moves
    state = rules.initial_state()
    for column, text in flat:
        assert order[column] == rules.to_move(state), (column, text)
        state = rules.play(state, text)
    for row in record["moves"]:  # a round plays its columns left to right
        filled = [i for i, text in enumerate(row) if text is not None]
        assert filled and len(row) == 2
    await ann.close()


async def test_a_game_that_ended_by_the_rules_carries_its_scores(server: LiveServer) -> None:
    """Played to its end by the rules: the winner's 1 and both scores, where they are numbers
    (Exxit's points; Valaturna's and Harmijan's are compared as lists, and left out)."""
    ann = await TestVisitor(server.url).start("Ann")
    rules = games.get("exxit", variant="beginner")
    state, moves, rng = rules.initial_state(), [], random.Random(7)
    while rules.to_move(state) is not None:
        move = rules.random_move(state, rng)
        moves.append(rules.format_move(state, move))
        state = rules.apply(state, move)
    outcome = rules.outcome(state)
    assert outcome is not None and outcome.scores is not None
    players = [{"seat": 1, "name": "Ann"}, {"seat": 2, "name": "Bo"}]
    imported = await ann.http.post("/api/archive/import", json=make_record(rules, moves, players))
    assert imported.status_code == 201, imported.text
    record = (await ann.http.get(f"/games/{imported.json()['id']}/abstractplay.json")).json()
    assert not list(VALIDATOR.iter_errors(record))
    by_name = {p["name"]: p for p in record["header"]["players"]}
    for seat, name in ((1, "Ann"), (2, "Bo")):
        assert by_name[name]["score"] == outcome.scores[seat - 1]
        assert by_name[name]["result"] == (1 if outcome.winner == seat else 0)
    await ann.close()


async def test_a_rated_game_names_its_accounts_and_an_unfinished_one_has_no_record(
    server: LiveServer,
) -> None:
    ann = await TestVisitor(server.url).start()
    bob = await TestVisitor(server.url).start()
    await signup(ann.http, "ann_ap")
    await signup(bob.http, "bob_ap")
    slug, options = quick_game()
    created = await ann.http.post(
        "/api/games", json={"game": slug, "options": options, "seat": 1, "rated": True}
    )
    assert created.status_code == 201, created.text
    game_id, token = created.json()["id"], created.json()["join_token"]
    assert (await bob.http.post(f"/api/games/{game_id}/join", json={"token": token})).is_success
    waiting = await ann.http.get(f"/games/{game_id}/abstractplay.json")
    assert waiting.status_code == 409, waiting.text
    assert waiting.json()["error"]["code"] == "game_not_over"
    rules = games.get(slug, **options)
    state, version = rules.initial_state(), 2
    for ply in range(2):
        player = ann if rules.to_move(state) == 1 else bob
        text = rules.format_move(state, rules.random_move(state, random.Random(ply)))
        body = {"move": text, "version": version, "msg_id": f"m{ply}"}
        played = await player.http.post(f"/api/games/{game_id}/moves", json=body)
        assert played.status_code == 200, played.text
        version, state = played.json()["version"], rules.play(state, text)
    resigned = await ann.http.post(
        f"/api/games/{game_id}/resign", json={"version": version, "msg_id": "r"}
    )
    assert resigned.status_code == 200, resigned.text
    record = (await bob.http.get(f"/games/{game_id}/abstractplay.json")).json()
    assert not list(VALIDATOR.iter_errors(record))
    assert record["header"]["unrated"] is False
    players = {p["userid"]: p["result"] for p in record["header"]["players"]}
    assert players == {"ann_ap": 0, "bob_ap": 1}
    await ann.close()
    await bob.close()


async def test_a_private_games_record_needs_its_token(server: LiveServer) -> None:
    ann = await TestVisitor(server.url).start("Ann")
    slug, options = quick_game()
    created = await ann.http.post(
        "/api/games", json={"game": slug, "options": options, "public": False}
    )
    game_id = created.json()["id"]
    stranger = await TestVisitor(server.url).start("Cy")
    hidden = await stranger.http.get(f"/games/{game_id}/abstractplay.json")
    assert hidden.status_code == 404, hidden.text
    await ann.close()
    await stranger.close()
