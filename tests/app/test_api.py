"""The HTTP API through httpx, in-process, on SQLite and PostgreSQL (databases built by migrations)."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

import games
from app.identity import COOKIE
from tests.app.conftest import ClientFactory
from tests.support.gameplay import MovePicker, quick_game, rows_of


async def new_game(
    clients: ClientFactory, public: bool = True, seat: int = 1
) -> tuple[httpx.AsyncClient, httpx.AsyncClient, dict[str, Any]]:
    """Ann creates a game (seat 1 by default), Bo joins it."""
    slug, options = quick_game()
    ann, bo = await clients("Ann"), await clients("Bo")
    created = await ann.post(
        "/api/games", json={"game": slug, "options": options, "seat": seat, "public": public}
    )
    assert created.status_code == 201, created.text
    body = created.json()
    joined = await bo.post(f"/api/games/{body['id']}/join", json={"token": body["join_token"]})
    assert joined.status_code == 200, joined.text
    assert joined.json() == {"id": body["id"], "seat": 3 - seat, "version": 2}
    return ann, bo, body


async def test_a_guest_gets_a_signed_httponly_lax_cookie(clients: ClientFactory) -> None:
    client = await clients()
    response = await client.get("/api/me")
    assert response.status_code == 200
    header = response.headers["set-cookie"]
    assert header.startswith(f"{COOKIE}=")
    assert "HttpOnly" in header and "samesite=lax" in header.lower() and "Path=/" in header
    me = response.json()
    assert len(me["id"]) == 32 and me["name"] == f"Guest-{me['id'][:4]}" and not me["named"]
    again = await client.get("/api/me")
    assert again.json()["id"] == me["id"] and "set-cookie" not in again.headers


async def test_a_forged_cookie_is_replaced(clients: ClientFactory) -> None:
    client = await clients()
    real = (await client.get("/api/me")).json()["id"]
    client.cookies.set(COOKIE, client.cookies[COOKIE][:-2] + "xx")
    response = await client.get("/api/me")
    assert response.json()["id"] != real
    assert "set-cookie" in response.headers


async def test_rename_and_names_with_markup(clients: ClientFactory, app: FastAPI) -> None:
    client = await clients("Ann Lee")
    assert (await client.get("/api/me")).json()["name"] == "Ann Lee"
    for bad, fragment in [
        ("<b>Ann</b>", "'<'"),
        ("a&b", "'&'"),
        ('"q"', "'\"'"),
        ("", "1 to 24"),
        ("x" * 25, "1 to 24"),
        ("a  b", "two spaces"),
        (42, "must be text"),
    ]:
        response = await client.put("/api/me", json={"name": bad})
        assert response.status_code == 422
        error = response.json()["error"]
        assert error["code"] == "bad_name" and fragment in error["message"], (bad, error)
        assert (await client.get("/api/me")).json()["name"] == "Ann Lee"


async def test_catalogue_lists_every_installed_game(clients: ClientFactory) -> None:
    client = await clients()
    listed = (await client.get("/api/catalogue")).json()["games"]
    assert [g["slug"] for g in listed] == [i.slug for i in games.infos()]
    for entry in listed:
        cls = games.rules_class(entry["slug"])
        assert entry["title"] == cls.title
        assert entry["options"] == [o.to_json() for o in cls.OPTIONS]


async def test_create_validates_game_options_and_seat(clients: ClientFactory) -> None:
    slug, _options = quick_game()
    client = await clients("Ann")
    open_before = (await client.get("/api/games/open")).json()["games"]
    cases = [
        ({"game": "chess"}, 422, "unknown_game", "game"),
        ({"game": slug, "options": {"nope": 1}}, 422, "bad_option", "options.nope"),
        ({"game": slug, "seat": 3}, 422, "invalid_request", "seat"),
        ({"game": slug, "seat": "first"}, 422, "invalid_request", "seat"),
        ({"game": slug, "colour": "red"}, 422, "invalid_request", "colour"),
    ]
    first = games.rules_class(slug).OPTIONS
    if first:
        cases.append(
            (
                {"game": slug, "options": {first[0].name: "???"}},
                422,
                "bad_option",
                f"options.{first[0].name}",
            )
        )
    for body, status, code, field in cases:
        response = await client.post("/api/games", json=body)
        assert response.status_code == status, (body, response.text)
        error = response.json()["error"]
        assert (error["code"], error.get("field")) == (code, field), (body, error)
    malformed = await client.post(
        "/api/games", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert malformed.status_code == 422 and malformed.json()["error"]["code"] == "bad_json"
    assert (await client.get("/api/games/open")).json()["games"] == open_before


async def test_create_join_and_the_open_list(clients: ClientFactory, app: FastAPI) -> None:
    slug, options = quick_game()
    ann, bo, carl = await clients("Ann"), await clients("Bo"), await clients("Carl")
    created = (
        await ann.post("/api/games", json={"game": slug, "options": options, "seat": 2})
    ).json()
    assert created["seat"] == 2 and created["version"] == 1
    assert len(created["join_token"]) >= 43  # 256 random bits, URL-safe base64
    assert created["invite_url"] == f"/games/{created['id']}?join={created['join_token']}"
    listed = {g["id"]: g for g in (await carl.get("/api/games/open")).json()["games"]}
    entry = listed[created["id"]]
    assert entry["players"] == [
        {"seat": 1, "name": None, "account": None},
        {"seat": 2, "name": "Ann", "account": None},
    ]
    game_id = created["id"]
    before = await rows_of(app.state.sessionmaker, game_id)
    refusals = [
        (ann, {"token": created["join_token"]}, 409, "already_seated"),
        (bo, {"token": "x" * 43}, 403, "bad_token"),
        (bo, {"token": None}, 403, "bad_token"),
        (bo, {}, 403, "bad_token"),
    ]
    for client, body, status, code in refusals:
        response = await client.post(f"/api/games/{game_id}/join", json=body)
        assert (response.status_code, response.json()["error"]["code"]) == (status, code)
    missing = await bo.post("/api/games/nope/join", json={"token": created["join_token"]})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "game_not_found")
    assert await rows_of(app.state.sessionmaker, game_id) == before
    joined = await bo.post(f"/api/games/{game_id}/join", json={"token": created["join_token"]})
    assert joined.json() == {"id": game_id, "seat": 1, "version": 2}
    after_join = await rows_of(app.state.sessionmaker, game_id)
    full = await carl.post(f"/api/games/{game_id}/join", json={"token": created["join_token"]})
    assert (full.status_code, full.json()["error"]["code"]) == (409, "game_full")
    twice = await bo.post(f"/api/games/{game_id}/join", json={"token": created["join_token"]})
    assert twice.json()["error"]["code"] == "already_seated"
    assert await rows_of(app.state.sessionmaker, game_id) == after_join
    assert game_id not in {g["id"] for g in (await carl.get("/api/games/open")).json()["games"]}
    snapshot = (await carl.get(f"/api/games/{game_id}")).json()
    assert snapshot["game"]["players"] == [
        {"seat": 1, "name": "Bo", "account": None},
        {"seat": 2, "name": "Ann", "account": None},
    ]
    assert snapshot["game"]["status"] == "active" and snapshot["version"] == 2
    assert snapshot["you"] == {"seat": None, "name": "Carl"}


async def test_private_games_need_their_link(clients: ClientFactory) -> None:
    _ann, bo, body = await new_game(clients, public=False)
    stranger = await clients("Eve")
    game_id = body["id"]
    for path in (f"/api/games/{game_id}", f"/games/{game_id}/record.json"):
        hidden = await stranger.get(path)
        assert (hidden.status_code, hidden.json()["error"]["code"]) == (404, "game_not_found")
        assert (await stranger.get(path, params={"token": body["join_token"]})).status_code == 200
        assert (await bo.get(path)).status_code == 200
    assert game_id not in {g["id"] for g in (await stranger.get("/api/live")).json()["games"]}


async def test_moves_over_http_validation_and_idempotency(
    clients: ClientFactory, app: FastAPI
) -> None:
    ann, bo, body = await new_game(clients)
    game_id = body["id"]
    slug, options = quick_game()
    picker = MovePicker(slug, options, seed=7)
    seats = {1: ann, 2: bo}
    version = 2
    for _ in range(3):
        seat = picker.to_move()
        assert seat is not None
        text = picker.pick()
        answer = await seats[seat].post(
            f"/api/games/{game_id}/moves",
            json={"move": text, "version": version, "msg_id": f"m{version}"},
        )
        assert answer.status_code == 200, answer.text
        picker.play(text)
        assert answer.json() == {
            "version": version + 1,
            "ply": len(picker.moves),
            "move": text,
            "duplicate": False,
        }
        version += 1
    sessions = app.state.sessionmaker
    before = await rows_of(sessions, game_id)
    seat = picker.to_move()
    assert seat is not None
    mover, waiter = seats[seat], seats[3 - seat]
    spectator = await clients("Carl")
    legal = picker.pick()
    illegal = picker.illegal()
    url = f"/api/games/{game_id}/moves"
    refusals: list[tuple[httpx.AsyncClient, dict[str, Any], int, str]] = [
        (waiter, {"move": legal, "version": version, "msg_id": "x1"}, 409, "not_your_turn"),
        (spectator, {"move": legal, "version": version, "msg_id": "x2"}, 403, "not_a_player"),
        (mover, {"move": legal, "version": version - 1, "msg_id": "x3"}, 409, "stale_version"),
        (mover, {"move": "%%%", "version": version, "msg_id": "x4"}, 422, "invalid_move"),
        (mover, {"move": legal, "version": "7", "msg_id": "x5"}, 422, "invalid_request"),
        (mover, {"move": legal, "version": version}, 422, "invalid_request"),
        (mover, {"move": "", "version": version, "msg_id": "x6"}, 422, "invalid_request"),
    ]
    if illegal is not None:
        refusals.append(
            (mover, {"move": illegal, "version": version, "msg_id": "x7"}, 422, "illegal_move")
        )
    for client, payload, status, code in refusals:
        response = await client.post(url, json=payload)
        assert (response.status_code, response.json()["error"]["code"]) == (status, code), (
            payload,
            response.text,
        )
    stale = await mover.post(url, json={"move": legal, "version": 0, "msg_id": "x8"})
    assert stale.json()["error"]["version"] == version
    missing = await mover.post(
        "/api/games/zzzz/moves", json={"move": legal, "version": 1, "msg_id": "x"}
    )
    assert missing.json()["error"]["code"] == "game_not_found"
    assert await rows_of(sessions, game_id) == before
    # The same message id again: the original answer, and nothing new stored.
    replay = await seats[1].post(url, json={"move": picker.moves[0], "version": 2, "msg_id": "m2"})
    assert replay.status_code == 200
    assert replay.json() == {"version": 3, "ply": 1, "move": picker.moves[0], "duplicate": True}
    assert await rows_of(sessions, game_id) == before


async def test_steps_answer_the_legal_continuations(clients: ClientFactory) -> None:
    ann, _bo, body = await new_game(clients)
    slug, options = quick_game()
    rules = games.get(slug, **options)
    expected = {**rules.steps(rules.initial_state(), []).to_json(), "ends": None}
    answer = (await ann.get(f"/api/games/{body['id']}/steps")).json()
    assert answer == {"version": 2, **expected}
    first = expected["next"][0]
    deeper = (await ann.get(f"/api/games/{body['id']}/steps", params={"prefix": [first]})).json()
    assert deeper == {
        "version": 2,
        **rules.steps(rules.initial_state(), [first]).to_json(),
        "ends": None,
    }
    bad = await ann.get(f"/api/games/{body['id']}/steps", params={"prefix": ["nowhere"]})
    assert (bad.status_code, bad.json()["error"]["code"]) == (422, "illegal_steps")


async def test_resign_twice_and_move_after_the_end(clients: ClientFactory, app: FastAPI) -> None:
    ann, bo, body = await new_game(clients)
    game_id = body["id"]
    resigned = await bo.post(f"/api/games/{game_id}/resign", json={"version": 2, "msg_id": "r1"})
    assert resigned.json() == {"version": 4, "duplicate": False}
    before = await rows_of(app.state.sessionmaker, game_id)
    assert before["game"]["status"] == "finished" and before["game"]["reason"] == "resignation"
    assert before["game"]["result"] == "1"
    again = await bo.post(f"/api/games/{game_id}/resign", json={"version": 4, "msg_id": "r2"})
    assert (again.status_code, again.json()["error"]["code"]) == (409, "game_over")
    retry = await bo.post(f"/api/games/{game_id}/resign", json={"version": 2, "msg_id": "r1"})
    assert retry.json() == {"version": 4, "duplicate": True}
    slug, options = quick_game()
    text = MovePicker(slug, options).pick()
    late = await ann.post(
        f"/api/games/{game_id}/moves", json={"move": text, "version": 4, "msg_id": "late"}
    )
    assert (late.status_code, late.json()["error"]["code"]) == (409, "game_over")
    assert await rows_of(app.state.sessionmaker, game_id) == before
    record = (await ann.get(f"/games/{game_id}/record.json")).json()
    assert record["result"] == {
        "winner": 1,
        "colour": record["result"]["colour"],
        "reason": "resignation",
        "scores": None,
    }
    assert record["players"] == [{"seat": 1, "name": "Ann"}, {"seat": 2, "name": "Bo"}]


async def test_steps_say_when_a_complete_move_would_end_the_game(clients: ClientFactory) -> None:
    """A pass after the opponent's pass ends Valaturna: its steps carry the result it would give
    (``ends``), so the page can confirm it with the score; any other complete move has none."""
    ann, bo = await clients("Ann"), await clients("Bo")
    created = await ann.post(
        "/api/games", json={"game": "valaturna", "options": {"size": 5}, "seat": 1}
    )
    body = created.json()
    await bo.post(f"/api/games/{body['id']}/join", json={"token": body["join_token"]})
    picker = MovePicker("valaturna", {"size": 5}, seed=3)
    seats = {1: ann, 2: bo}
    url = f"/api/games/{body['id']}"
    version = 2
    while picker.rules.view(picker.state)["phase"] != "play":
        text = picker.pick()
        mover = seats[picker.to_move() or 1]
        answer = await mover.post(
            f"{url}/moves", json={"move": text, "version": version, "msg_id": f"m-{version}"}
        )
        assert answer.status_code == 200, answer.text
        picker.play(text)
        version += 1
    first, second = seats[picker.to_move() or 1], seats[3 - (picker.to_move() or 1)]
    lone = (await first.get(f"{url}/steps", params={"prefix": ["pass"]})).json()
    assert (lone["complete"], lone["ends"]) == (True, None)
    played = await first.post(
        f"{url}/moves", json={"move": "pass", "version": version, "msg_id": "m-p"}
    )
    assert played.status_code == 200, played.text
    picker.play("pass")
    ending = (await second.get(f"{url}/steps", params={"prefix": ["pass"]})).json()
    outcome = picker.rules.outcome(picker.rules.play(picker.state, "pass"))
    assert outcome is not None and outcome.reason == "double-pass"
    assert ending["ends"] == outcome.to_json()
    assert (await second.get(f"{url}/steps")).json()["ends"] is None
