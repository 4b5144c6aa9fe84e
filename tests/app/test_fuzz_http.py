"""Property-based fuzzing of the HTTP API with schemathesis, against a real server (uvicorn on
loopback), on SQLite and PostgreSQL.

Two passes over ``/openapi.json``:

- every operation alone, with bodies and parameters that fit its schema and with ones that break it;
- schemathesis's stateful phase: sequences that follow the document's links (``app/openapi.py``), so
  that a created game is joined, its steps asked, moves played and resigned, an imported record read.

Whatever comes in, the server never answers 5xx, every 4xx is the protocol's one error shape with its
code's documented status, every answer is documented for its operation and fits its schema, closed
(``tests/support/contract.py``), and a request refused on a game of the sequence leaves that game as
it was (its snapshot before and after are equal). The budget: ``tests/support/fuzz.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import Case, GenerationMode, Response
from schemathesis.generation.stateful.control import TransitionController

from app.main import create_app
from app.openapi import LINKS
from tests.app.conftest import make_settings
from tests.support.contract import check_prepared, checked_session
from tests.support.fuzz import (
    SERVER_ENV,
    FirstFailure,
    check_error,
    describe,
    fuzz_settings,
    game_state,
    seeded,
)
from tests.support.fuzz_ws import frames, since_values
from tests.support.server import LiveServer, live_server

#: Examples per operation and generation mode (63 operations; the negative mode where it can be had:
#: :func:`negatable`).
EXAMPLES_PER_OPERATION = 10
#: Stateful scenarios, and the calls in each. Most scenarios die on a refused create or a made-up
#: game; at 50, games were joined and moves played only 0 to 3 times a run (the runs differ with
#: the database's ids, and the create's Idempotency-Key header changed the draws), so one run in a
#: few reached no move: 150 reach a handful. ``HEXMOOT_FUZZ_EXAMPLES=10`` runs 1,500, reaching
#: offers and aborts.
SCENARIOS = 150
STEPS_PER_SCENARIO = 12
#: Raw bodies and query strings.
RAW_EXAMPLES = 300
#: The calls a seat makes: the seat to move makes them (the opponent of the offer answers it).
ACTED_BY_A_SEAT = ("/moves", "/resign", "/offer", "/answer", "/abort", "/claim", "/chat")
#: The operations a stateful sequence starts with: a game created, or one imported.
STARTS = frozenset({"POST /api/games", "POST /api/archive/import"})
GAME_PATHS = r"^(/api/games(/\{game_id\}.*)?|/games/\{game_id\}/record\.json|/api/archive/import)$"


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[LiveServer]:
    """A live server with the fuzzers' settings (``tests/support/fuzz.py``)."""
    with live_server(database_url, SERVER_ENV) as running:
        yield running


def load_schema(server: LiveServer, inferred_links: bool = True) -> Any:
    """The live document. Without ``inferred_links``, only the document's own links chain
    operations (schemathesis's guesses from field names dilute the sequences that reach a game)."""
    config = None
    if not inferred_links:
        inference = {"inference": {"algorithms": []}}
        config = schemathesis.Config.from_dict({"phases": {"stateful": inference}})
    return schemathesis.openapi.from_url(server.url + "/openapi.json", config=config)


# Pages whose 404 is the HTML error page (issue 15), not the JSON shape.
HTML_404_PAGES = {
    "/rules/{slug}",
    "/games/{game_id}",
    "/games/{game_id}/card",
    "/players/{username}",
    "/leaderboards/{slug}",
    "/stats/{game}",
    "/explorer/{game}",
}


def check_answer(case: Case, response: Response) -> None:
    """No 5xx; an answer its operation documents, that fits its schema (``tests/support/contract``);
    an error in the one shape, with its code's documented status."""
    where = f"{case.method} {case.formatted_path} -> {response.status_code}"
    assert response.status_code < 500, f"{where}: {response.content[:300]!r}"
    content_type = response.headers.get("content-type", [""])[0]
    check_prepared(response.request, response.status_code, content_type, response.content)
    if response.status_code == 404 and case.operation.path in HTML_404_PAGES:
        assert response.headers.get("content-type", [""])[0].startswith("text/html"), where
        return
    if response.status_code >= 400:
        assert response.headers.get("content-type", [""])[0].startswith("application/json"), where
        check_error(response.status_code, response.json(), where)


def fuzz_operation(operation: Any, mode: GenerationMode, session: requests.Session) -> Counter[int]:
    """Fuzz one operation in one generation mode; the statuses seen."""
    first = FirstFailure()
    statuses: Counter[int] = Counter()

    @seeded
    @fuzz_settings(EXAMPLES_PER_OPERATION)
    @given(case=operation.as_strategy(generation_mode=mode))
    def fuzz(case: Case) -> None:
        with first.watch():
            response = case.call(session=session, timeout=30)
            statuses[response.status_code] += 1
            check_answer(case, response)

    try:
        first.run(fuzz)
    except Unsatisfiable:
        # Nothing in a parameterless operation can be made invalid.
        if mode is GenerationMode.POSITIVE:
            raise
    return statuses


def negatable(operation: dict[str, Any]) -> bool:
    """Whether schemathesis can make a request of ``operation`` (its OpenAPI object) that breaks
    its schema: not when it has no body and no parameter but plain strings in its path, which any
    text fits. Hypothesis would look for one in vain for about 0.35 s (33 of the 63 operations, a
    third of this test's time) before giving up (``Unsatisfiable``, no request made)."""
    if "requestBody" in operation:
        return True
    return any(
        parameter["in"] != "path"
        or parameter.get("schema", {}).keys() - {"type", "title"}
        or parameter["schema"].get("type") != "string"
        for parameter in operation.get("parameters", [])
    )


@pytest.mark.slow
def test_no_operation_answers_5xx_or_another_error_shape(server: LiveServer) -> None:
    print(describe())
    schema = load_schema(server)
    passes = [
        (operation, mode)
        for operation in (result.ok() for result in schema.get_all_operations())
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
        if mode is GenerationMode.POSITIVE or negatable(operation.definition.raw)
    ]
    session = requests.Session()  # one visitor: its cookie persists, as a browser's does
    failures: list[str] = []
    statuses: Counter[int] = Counter()
    for operation, mode in passes:
        try:
            statuses += fuzz_operation(operation, mode, session)
        except Exception as exc:  # every operation is fuzzed; all findings are reported at once
            failures.append(f"{operation.label} ({mode.value}): {exc}")
    print(f"statuses: {dict(sorted(statuses.items()))}")
    assert not failures, "\n\n".join(failures)


class Starts(TransitionController):
    """Sequences start where a game does (:data:`STARTS`). schemathesis also starts them at every
    POST that has a link onwards (join, moves, offer, resign): with a made-up game id those end at
    once in 404s, and took most scenarios from the ones that reach a game (no move was played in
    120 scenarios once the table's operations joined them)."""

    def allow_root_transition(self, source: str, bundles: Any) -> bool:
        return source in STARTS and super().allow_root_transition(source, bundles)


class Scenarios:
    """What the stateful runs reached, across scenarios (to show that the links lead somewhere)."""

    def __init__(self) -> None:
        self.calls: Counter[tuple[str, int]] = Counter()


def make_machine(server: LiveServer, seen: Scenarios, first: FirstFailure) -> Any:
    """schemathesis's state machine for the document, with two players and the unchanged-game
    check."""
    schema = load_schema(server, inferred_links=False)
    # Only the operations on games: the others are fuzzed alone above, and would dilute the
    # sequences that reach a game.
    base = schema.include(path_regex=GAME_PATHS).as_state_machine()

    class Players(base):  # type: ignore[misc, valid-type]
        """Two visitors: the creator (and importer), and the one who joins; the seat to move plays
        each move and resignation, so that sequences get past ``not_your_turn``."""

        def __init__(self) -> None:
            super().__init__()
            self.control = Starts(self._transitions, self._root_labels & STARTS)

        def setup(self) -> None:
            self.players = [requests.Session(), requests.Session()]
            #: The games of this scenario, with their join token (None for an imported one).
            self.tokens: dict[str, str | None] = {}

        def teardown(self) -> None:
            for player in self.players:
                player.close()

        def snapshot(self, game_id: str) -> dict[str, Any]:
            token = self.tokens[game_id]
            params = {"token": token} if token else {}
            answer = self.players[0].get(
                f"{server.url}/api/games/{game_id}", params=params, timeout=30
            )
            assert answer.status_code == 200, answer.text
            snapshot: dict[str, Any] = answer.json()
            return snapshot

        def player_for(self, case: Case, before: dict[str, Any] | None) -> requests.Session:
            """Who makes a call. By role, never by seat: the server draws a ``random`` seat, and a
            sequence whose answers hung on that draw would make Hypothesis's replays disagree."""
            path = case.operation.path
            if path.endswith("/join"):
                return self.players[1]
            if before is None or not path.endswith(ACTED_BY_A_SEAT):
                return self.players[0]
            creator = before["you"]["seat"]
            game = before["game"]
            if game["status"] == "waiting":
                return self.players[0]  # the joiner is no player yet: the creator acts
            seat = game["to_move"]
            offer = game.get("offer")
            if path.endswith("/answer") and offer is not None:
                seat = 3 - offer["seat"]  # the offer's answer is its opponent's
            return self.players[0 if seat in (None, creator) else 1]

        def step(self, input: Any) -> Any:
            with first.watch():
                return super().step(input)

        def call(self, case: Case, **kwargs: Any) -> Response:
            game_id = (case.path_parameters or {}).get("game_id")
            known = isinstance(game_id, str) and game_id in self.tokens
            before = self.snapshot(game_id) if known else None
            response: Response = case.call(
                session=self.player_for(case, before), timeout=30, **kwargs
            )
            status = response.status_code
            seen.calls[(f"{case.method} {case.operation.path}", status)] += 1
            if status < 300 and case.operation.path in ("/api/games", "/api/archive/import"):
                body = response.json()
                self.tokens[body["id"]] = body.get("join_token")
            if before is not None and 400 <= status < 500:
                after = self.snapshot(game_id)
                assert game_state(after) == game_state(before), (
                    f"{case.method} {case.formatted_path} answered {status} "
                    f"{response.content[:200]!r} but changed the game"
                )
            return response

        def validate_response(self, response: Response, case: Case, **kwargs: Any) -> None:
            check_answer(case, response)

    return Players


@pytest.mark.slow
def test_stateful_sequences_reach_games_and_refusals_change_nothing(server: LiveServer) -> None:
    print(describe())
    seen = Scenarios()
    first = FirstFailure()
    machine = seeded(make_machine(server, seen, first))
    first.run(
        lambda: machine.run(
            settings=fuzz_settings(SCENARIOS, stateful_step_count=STEPS_PER_SCENARIO)
        )
    )
    reached = dict(sorted(seen.calls.items()))
    print(f"stateful calls (operation, status): {reached}")
    # The links lead into real games: some were joined, and moves were played in them.
    assert seen.calls[("POST /api/games/{game_id}/join", 200)] > 0, reached
    assert seen.calls[("POST /api/games/{game_id}/moves", 200)] > 0, reached


def test_every_link_names_an_operation_and_parameters_it_takes() -> None:
    document = create_app(make_settings("sqlite+aiosqlite://")).openapi()
    operations = {
        operation["operationId"]: operation
        for path in document["paths"].values()
        for operation in path.values()
    }
    components = document["components"]["schemas"]
    count = 0
    for path in document["paths"].values():
        for operation in path.values():
            for answer in operation["responses"].values():
                for name, link in answer.get("links", {}).items():
                    count += 1
                    target = operations[link["operationId"]]
                    taken = {p["name"] for p in target.get("parameters", [])}
                    assert set(link["parameters"]) <= taken, (name, link)
                    body = link.get("requestBody", {})
                    if body:
                        schema = target["requestBody"]["content"]["application/json"]["schema"]
                        model = components[schema["$ref"].rsplit("/", 1)[-1]]
                        assert set(body) <= set(model["properties"]), (name, link)
    assert count == sum(len(links) for links in LINKS.values())
    # And schemathesis reads them all as transitions of its state machine.
    schema = schemathesis.openapi.from_dict(document)
    assert schema.as_state_machine() is not None


#: Bodies no schema describes: not JSON, not UTF-8, nested hundreds deep, numbers of thousands of
#: digits, lone surrogates, and JSON of every shape (the websocket fuzzer's frames, sent as bodies).
raw_bodies = frames.map(lambda frame: frame.encode(2, ["0,0"]))
BODY_ROUTES = [
    ("PUT", "/api/me"),
    ("POST", "/api/games"),
    ("POST", "/api/games/{game_id}/join"),
    ("POST", "/api/games/{game_id}/moves"),
    ("POST", "/api/games/{game_id}/resign"),
    ("POST", "/api/games/{game_id}/offer"),
    ("POST", "/api/games/{game_id}/answer"),
    ("POST", "/api/games/{game_id}/chat"),
    ("POST", "/api/archive/import"),
    ("POST", "/api/replay"),
]
#: Query values the archive's and a game's parameters must refuse precisely, or accept.
query_values = st.one_of(
    since_values,
    st.sampled_from(["%C2%B2", "%00", "\x00", "İ" * 24, "9" * 19, "1970-01-01", "2026-13-40"]),
    st.text(st.characters(codec="utf-8"), max_size=40),
)
QUERY_ROUTES = [
    (
        "/api/archive",
        (
            *("game", "options", "player", "account", "guest", "opponent", "opponent_guest"),
            *("result", "colour", "pie", "first_move", "min_moves", "max_moves", "from", "to"),
            *("rated", "time", "imported", "sort", "limit", "cursor"),
        ),
    ),
    ("/api/archive/boards", ("id",)),
    ("/api/archive/players", ("prefix",)),
    ("/api/games/{game_id}", ("token",)),
    ("/api/games/{game_id}/steps", ("prefix", "token")),
    ("/api/games/{game_id}/chat", ("token",)),
    ("/games/{game_id}/record.json", ("token",)),
]


@pytest.mark.slow
def test_raw_bodies_and_query_strings_get_a_precise_4xx_and_change_nothing(
    server: LiveServer,
) -> None:
    print(describe())
    creator, opponent = checked_session(), checked_session()
    created = creator.post(
        f"{server.url}/api/games", json={"game": "exxit", "seat": 1, "public": False}, timeout=30
    ).json()
    game_id, token = created["id"], created["join_token"]
    joined = opponent.post(
        f"{server.url}/api/games/{game_id}/join", json={"token": token}, timeout=30
    )
    assert joined.status_code == 200, joined.text

    def snapshot() -> dict[str, Any]:
        answer = creator.get(f"{server.url}/api/games/{game_id}", timeout=30)
        assert answer.status_code == 200, answer.text
        state: dict[str, Any] = answer.json()
        return game_state(state)

    first = FirstFailure()
    # The game as the last refused request left it: a refusal changes nothing (checked against a
    # fresh snapshot after it), so the next example starts from that snapshot instead of asking
    # again, a third of the calls (issue 26). Any answer below 400 forgets it.
    known: list[dict[str, Any]] = []

    @seeded
    @fuzz_settings(RAW_EXAMPLES)
    @given(
        body=st.tuples(st.sampled_from(BODY_ROUTES), raw_bodies)
        | st.tuples(
            st.sampled_from(QUERY_ROUTES).flatmap(
                lambda route: st.tuples(
                    st.just(route[0]),
                    st.dictionaries(st.sampled_from(route[1]), query_values, min_size=1),
                )
            ),
            st.just(None),
        ),
        who=st.sampled_from([creator, opponent]),
    )
    def fuzz(body: tuple[Any, Any], who: requests.Session) -> None:
        with first.watch():
            before = known.pop() if known else snapshot()
            (route, data) = body
            if data is None:
                path, params = route
                url = server.url + path.format(game_id=game_id)
                # Encoded by hand: requests would re-encode a value that is already %-encoded.
                query = "&".join(f"{k}={v}" for k, v in params.items())
                response = who.get(f"{url}?{query}", timeout=30)
                where = f"GET {path}?{query[:200]!r}"
            else:
                method, path = route
                url = server.url + path.format(game_id=game_id)
                if isinstance(data, str):
                    data = data.encode("utf-8", "surrogatepass")
                headers = {"Content-Type": "application/json"}
                response = who.request(method, url, data=data, headers=headers, timeout=30)
                where = f"{method} {path} {data[:200]!r}"
            assert response.status_code < 500, (
                f"{where} -> {response.status_code} {response.text[:300]}"
            )
            if response.status_code >= 400:
                check_error(response.status_code, response.json(), where)
                after = snapshot()
                assert after == before, f"{where} was refused but changed the game"
                known.append(after)

    first.run(fuzz)
