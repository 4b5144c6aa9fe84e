"""Managing an account, on SQLite and PostgreSQL: attaching a guest's games, sessions (list, end
one, end all), password changes, settings and email; requests from other sites; login limits; and
the authorization matrix of every account route (guest, account, other account, stranger)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Event, Game
from tests.app.conftest import ClientFactory, make_settings
from tests.support.accounts import DEFAULT_PASSWORD, login, signup
from tests.support.contract import checked
from tests.support.gameplay import MovePicker


async def _game(first: httpx.AsyncClient, second: httpx.AsyncClient | None = None) -> str:
    created = (
        await first.post("/api/games", json={"game": "exxit", "seat": 1, "public": False})
    ).json()
    if second is not None:
        joined = await second.post(
            f"/api/games/{created['id']}/join", json={"token": created["join_token"]}
        )
        assert joined.status_code == 200, joined.text
    return str(created["id"])


async def test_claiming_attaches_a_guests_games_and_keeps_two_seats(
    app: FastAPI, clients: ClientFactory
) -> None:
    owner = await clients()
    account = await signup(owner, "ann_acct")
    device = await clients("Ann's phone")
    guest_id = (await device.get("/api/me")).json()["id"]
    alone = await _game(device)
    friend = await clients("Friend")
    versus_friend = await _game(device, friend)
    versus_me = await _game(owner, device)  # the account against its own guest, being played
    answer = await login(device, "ann_acct")
    assert answer["claimable"] == 3
    claimed = await device.post("/api/account/claim", json={})
    assert claimed.json() == {"claimed": 2, "kept": 1}
    async with app.state.sessionmaker() as session:
        games = {g.id: g for g in (await session.execute(select(Game))).scalars()}
        events = (
            (await session.execute(select(Event).where(Event.player_id == guest_id)))
            .scalars()
            .all()
        )
    me = account["player_id"]
    assert (games[alone].player1_id, games[alone].creator_id) == (me, me)
    assert games[versus_friend].player1_id == me and games[versus_friend].player2_id != me
    assert (games[versus_me].player1_id, games[versus_me].player2_id) == (me, guest_id)
    assert {e.game_id for e in events} == {versus_me}
    # Each game lists once for the account.
    listed = (await device.get("/api/me/games")).json()
    ids = [g["id"] for g in listed["open"] + listed["your_turn"] + listed["waiting"]]
    assert sorted(ids) == sorted([alone, versus_friend, versus_me]) and len(ids) == 3
    again = await device.post("/api/account/claim", json={})
    assert again.json() == {"claimed": 0, "kept": 1}
    # The game against itself still has a player for each seat: the account moves seat 1, and
    # the guest, which stays a guest while that game is played, moves seat 2 once signed out.
    await device.post("/api/account/logout", json={})
    assert (await device.get("/api/me")).json()["id"] == guest_id
    picker = MovePicker("exxit", {}, seed=3)
    seats = {1: owner, 2: device}
    moved_by: set[int] = set()
    for version in range(2, 6):
        seat = picker.to_move()
        assert seat is not None
        moved_by.add(seat)
        text = picker.pick()
        moved = await seats[seat].post(
            f"/api/games/{versus_me}/moves",
            json={"move": text, "version": version, "msg_id": f"m{version}"},
        )
        assert moved.status_code == 200, moved.text
        picker.play(text)
    assert moved_by == {1, 2}


async def test_a_guest_whose_games_against_the_account_are_over_is_attached(
    app: FastAPI, clients: ClientFactory
) -> None:
    owner = await clients()
    await signup(owner, "ana_acct")
    device = await clients("Ana's phone")
    guest_id = (await device.get("/api/me")).json()["id"]
    versus_me = await _game(owner, device)
    resigned = await device.post(
        f"/api/games/{versus_me}/resign", json={"version": 2, "msg_id": "r1"}
    )
    assert resigned.status_code == 200, resigned.text
    await login(device, "ana_acct")
    claimed = await device.post("/api/account/claim", json={})
    assert claimed.json() == {"claimed": 0, "kept": 1}
    # Nothing of it is left to play: the guest now belongs to the account and acts no more.
    await device.post("/api/account/logout", json={})
    assert (await device.get("/api/me")).json()["id"] != guest_id


async def test_sessions_listed_ended_one_by_one_and_everywhere(
    app: FastAPI, clients: ClientFactory
) -> None:
    first = await clients()
    await signup(first, "bea_acct")
    second = await clients()
    await login(second, "bea_acct")
    listed = (await first.get("/api/account/sessions")).json()["sessions"]
    assert len(listed) == 2 and sum(s["current"] for s in listed) == 1
    other = next(s for s in listed if not s["current"])
    assert len(other["id"]) == 16
    assert (await first.delete(f"/api/account/sessions/{other['id']}")).status_code == 204
    assert (await second.get("/api/account")).status_code == 401
    missing = await first.delete(f"/api/account/sessions/{other['id']}")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "session_not_found")
    third = await clients()
    await login(third, "bea_acct")
    ended = await first.post("/api/account/logout-all", json={})
    assert ended.status_code == 200 and ended.json() == {"ended": 2}
    for client in (first, third):
        assert (await client.get("/api/account")).status_code == 401


async def test_password_change_settings_and_email(app: FastAPI, clients: ClientFactory) -> None:
    cy = await clients()
    await signup(cy, "cy_acct")
    elsewhere = await clients()
    await login(elsewhere, "cy_acct")
    wrong = await cy.post("/api/account/password", json={"current": "nope nope", "new": "x"})
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (401, "bad_credentials")
    weak = await cy.post(
        "/api/account/password", json={"current": DEFAULT_PASSWORD, "new": "password1"}
    )
    assert (weak.status_code, weak.json()["error"]["code"]) == (422, "weak_password")
    changed = await cy.post(
        "/api/account/password", json={"current": DEFAULT_PASSWORD, "new": "a new long phrase"}
    )
    assert changed.status_code == 200
    assert (await cy.get("/api/account")).status_code == 200  # this session stays
    assert (await elsewhere.get("/api/account")).status_code == 401  # the other one ended
    await login(await clients(), "cy_acct", "a new long phrase")
    settings = await cy.put("/api/account/settings", json={"digest": True})
    assert settings.json()["settings"] == {"digest": True, "confirm_moves": None}
    confirm = await cy.put("/api/account/settings", json={"confirm_moves": "never"})
    assert confirm.json()["settings"] == {"digest": True, "confirm_moves": "never"}
    assert (await cy.get("/api/account")).json()["settings"]["confirm_moves"] == "never"
    for bad in ({"digest": "yes"}, {"sound": True}, {"confirm_moves": "sometimes"}):
        refused = await cy.put("/api/account/settings", json=bad)
        assert refused.status_code == 422
    off = await cy.put("/api/account/email", json={"email": "cy@example.org"})
    assert (off.status_code, off.json()["error"]["code"]) == (409, "email_disabled")
    bad = await cy.put("/api/account/email", json={"email": "not an address"})
    assert (bad.status_code, bad.json()["error"]["code"]) == (422, "bad_email")
    assert (await cy.put("/api/account/email", json={"email": None})).json()["email"] is None


ACCOUNT_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("get", "/api/account", None),
    ("get", "/api/account/sessions", None),
    ("delete", "/api/account/sessions/0123456789abcdef", None),
    ("post", "/api/account/logout-all", {}),
    ("post", "/api/account/password", {"current": DEFAULT_PASSWORD, "new": "another phrase"}),
    ("put", "/api/account/settings", {"digest": True}),
    ("put", "/api/account/email", {"email": None}),
    ("post", "/api/account/email/resend", {}),
    ("post", "/api/account/claim", {}),
]


@pytest.mark.parametrize(("method", "path", "body"), ACCOUNT_ROUTES)
async def test_the_account_routes_answer_only_their_owner(
    app: FastAPI, clients: ClientFactory, method: str, path: str, body: dict[str, Any] | None
) -> None:
    """A guest and a stranger (no cookie at all) get ``not_signed_in``; another account reaches
    only its own account: the first account's sessions and settings stay as they were."""
    owner = await clients()
    name = f"own_{abs(hash(path + method)) % 100_000}"
    await signup(owner, name)
    before = (
        (await owner.get("/api/account")).json(),
        (await owner.get("/api/account/sessions")).json(),
    )
    guest = await clients("A guest")
    stranger = checked(
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")
    )
    try:
        for visitor in (guest, stranger):
            kwargs = {"json": body} if body is not None else {}
            answer = await visitor.request(method.upper(), path, **kwargs)
            assert answer.status_code == 401 and answer.json()["error"]["code"] == "not_signed_in"
    finally:
        await stranger.aclose()
    other = await clients()
    await signup(other, name + "x")
    kwargs = {"json": body} if body is not None else {}
    answer = await other.request(method.upper(), path, **kwargs)
    assert answer.status_code < 500
    after = (
        (await owner.get("/api/account")).json(),
        (await owner.get("/api/account/sessions")).json(),
    )
    assert after == before


async def test_requests_from_another_sites_page_are_refused(
    app: FastAPI, clients: ClientFactory
) -> None:
    victim = await clients()
    await signup(victim, "dee_acct")
    for headers in (
        {"Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "null"},
    ):
        answer = await victim.post("/api/account/logout-all", json={}, headers=headers)
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "bad_origin"
        assert "content-security-policy" in answer.headers
    assert (await victim.get("/api/account")).status_code == 200
    same = await victim.put(
        "/api/me", json={"name": "Dee"}, headers={"Origin": "http://testserver"}
    )
    assert same.status_code == 200
    # A page read (GET) from anywhere is not refused.
    assert (
        await victim.get("/api/me", headers={"Origin": "https://evil.example"})
    ).status_code == 200


async def test_login_limits_per_address_and_per_username(database_url: str) -> None:
    from app.main import create_app

    limited = create_app(
        make_settings(
            database_url, rate_login_per_ip="50/minute", rate_login_per_account="3/minute"
        )
    )
    async with limited.router.lifespan_context(limited):
        client = checked(
            httpx.AsyncClient(transport=httpx.ASGITransport(app=limited), base_url="http://t")
        )
        try:
            codes = []
            for _ in range(4):
                answer = await client.post(
                    "/api/account/login", json={"username": "NoSuchUser", "password": "whatever!"}
                )
                codes.append(answer.json()["error"]["code"])
            assert codes == ["bad_credentials"] * 3 + ["rate_limited"]
            assert "retry-after" in answer.headers
            # Another username is counted apart.
            other = await client.post(
                "/api/account/login", json={"username": "someone", "password": "whatever!"}
            )
            assert other.json()["error"]["code"] == "bad_credentials"
        finally:
            await client.aclose()


async def test_one_guest_signing_up_twice_at_once_is_told_it_is_signed_in(
    clients: ClientFactory,
) -> None:
    """Two sign-ups of one guest race, each with a free username of its own: the guest becomes
    one account, never two. The other sign-up is told ``already_signed_in`` when it reached the
    database while the first was being made; when it was read after the first one committed, the
    guest cookie it carries names an account's player, which counts as no cookie (a fresh guest,
    as for any request of a logged-out browser), so it makes an account of that fresh guest, and
    the first guest's games are still the first account's alone."""
    import asyncio

    for trial in range(5):
        guest = await clients(f"Twin {trial}")
        me = (await guest.get("/api/me")).json()["id"]
        answers = await asyncio.gather(
            *(
                guest.post(
                    "/api/account/signup",
                    json={"username": f"twin{trial}{side}", "password": DEFAULT_PASSWORD},
                )
                for side in "ab"
            )
        )
        statuses = sorted(answer.status_code for answer in answers)
        made = [answer.json() for answer in answers if answer.status_code == 201]
        assert statuses in ([201, 409], [201, 201]), [answer.text for answer in answers]
        assert [a["player_id"] for a in made].count(me) == 1, made  # the guest: one account
        for lost in (answer for answer in answers if answer.status_code == 409):
            assert lost.json()["error"]["code"] == "already_signed_in", lost.text
