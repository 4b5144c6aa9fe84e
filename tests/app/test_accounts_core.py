"""Accounts' core, on SQLite and PostgreSQL: signing up keeps a guest's games, logging in and out,
sessions that are rows (revocable), usernames unique without regard to case or compatibility forms,
and a guest cookie that names an account's player acting as no cookie."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.config import Settings
from app.errors import AppError
from app.identity.passwords import Passwords, check_password_rules
from app.identity.usernames import validate_username
from app.models import Account, AccountSession, Game, Player
from app.repository.accounts import SetPasswordHash
from tests.app.conftest import ClientFactory
from tests.support.accounts import DEFAULT_PASSWORD, login, signup


async def _count(app: FastAPI, model: Any, *where: Any) -> int:
    async with app.state.sessionmaker() as session:
        return int(
            (
                await session.execute(select(func.count()).select_from(model).where(*where))
            ).scalar_one()
        )


async def _create(client: Any) -> dict[str, Any]:
    response = await client.post("/api/games", json={"game": "exxit", "seat": 1, "public": False})
    assert response.status_code == 201, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def test_signing_up_keeps_the_guests_games_and_signs_in(
    app: FastAPI, clients: ClientFactory
) -> None:
    ann = await clients("Ann Lee")
    guest_id = (await ann.get("/api/me")).json()["id"]
    created = await _create(ann)
    account = await signup(ann, "ann_core")
    assert account["player_id"] == guest_id
    assert account["display_name"] == "Ann Lee"  # a chosen name stays
    me = (await ann.get("/api/me")).json()
    assert me["id"] == guest_id and me["account"] == {
        "username": "ann_core",
        "display_name": "Ann Lee",
    }
    snapshot = (await ann.get(f"/api/games/{created['id']}")).json()
    assert snapshot["you"]["seat"] == 1
    assert (await ann.get("/api/account")).json()["username"] == "ann_core"


async def test_the_session_cookie_is_signed_httponly_and_samesite(
    app: FastAPI, clients: ClientFactory
) -> None:
    bea = await clients()
    response = await bea.post(
        "/api/account/signup", json={"username": "bea_core", "password": DEFAULT_PASSWORD}
    )
    assert response.status_code == 201
    cookie = next(c for c in response.headers.get_list("set-cookie") if "hexmoot_session" in c)
    assert "HttpOnly" in cookie and "samesite=lax" in cookie.lower() and "Path=/" in cookie
    value = cookie.split(";")[0].split("=", 1)[1]
    token = app.state.service.accounts.signer.read(value)
    assert token is not None and token not in value  # signed and encoded, not the bare token
    # The database keeps the token's sha256, never the token.
    assert (
        await _count(
            app, AccountSession, AccountSession.id == hashlib.sha256(token.encode()).hexdigest()
        )
        == 1
    )
    forger = await clients()
    forger.cookies.set("hexmoot_session", value[:-2] + ("AA" if value[-2:] != "AA" else "BB"))
    assert (await forger.get("/api/account")).json()["error"]["code"] == "not_signed_in"


async def test_a_second_browser_logs_in_and_acts_as_the_account(
    app: FastAPI, clients: ClientFactory
) -> None:
    first = await clients()
    account = await signup(first, "cy_core")
    created = await _create(first)
    second = await clients("Someone")
    answer = await login(second, "CY_CORE")  # any case
    assert answer["username"] == "cy_core" and answer["claimable"] == 0
    me = (await second.get("/api/me")).json()
    assert me["id"] == account["player_id"]
    assert (await second.get(f"/api/games/{created['id']}")).json()["you"]["seat"] == 1


async def test_logging_in_offers_the_guests_games(app: FastAPI, clients: ClientFactory) -> None:
    owner = await clients()
    await signup(owner, "dee_core")
    device = await clients("Dee on the phone")
    await _create(device)
    answer = await login(device, "dee_core")
    assert answer["claimable"] == 1 and answer["guest_name"] == "Dee on the phone"


async def test_wrong_credentials_never_say_which(app: FastAPI, clients: ClientFactory) -> None:
    owner = await clients()
    await signup(owner, "eve_core")
    stranger = await clients()
    answers = [
        await stranger.post("/api/account/login", json=body)
        for body in (
            {"username": "eve_core", "password": "not the password at all"},
            {"username": "nobody_core", "password": "not the password at all"},
            {"username": "x" * 5000, "password": "y"},
            {"username": 7, "password": None},
        )
    ]
    assert {r.status_code for r in answers} == {401}
    assert {r.json()["error"]["message"] for r in answers} == {"Wrong username or password"}
    assert all("hexmoot_session" not in r.headers.get("set-cookie", "") for r in answers)


async def test_logging_out_ends_the_session_and_leaves_a_fresh_guest(
    app: FastAPI, clients: ClientFactory
) -> None:
    ann = await clients()
    account = await signup(ann, "fay_core")
    stolen = dict(ann.cookies)  # what a copy of this browser's cookies would hold
    response = await ann.post("/api/account/logout", json={})
    assert response.status_code == 200 and response.json() == {"ok": True}
    me = (await ann.get("/api/me")).json()
    assert me["account"] is None and me["id"] != account["player_id"]
    # The old cookies are worth nothing now: the session row is revoked, and the guest cookie
    # names the account's player, which acts only through a session.
    copy = await clients()
    for name, value in stolen.items():
        copy.cookies.set(name, value)
    me = (await copy.get("/api/me")).json()
    assert me["account"] is None and me["id"] != account["player_id"]
    assert await _count(app, AccountSession, AccountSession.revoked_at.is_not(None)) >= 1


async def test_usernames_are_unique_without_regard_to_case_or_compatibility_forms(
    app: FastAPI, clients: ClientFactory
) -> None:
    await signup(await clients(), "Gus_core")
    before = await _count(app, Account)
    for taken in ("gus_core", "GUS_CORE", "\uff27us_core"):  # full-width G
        response = await (await clients()).post(
            "/api/account/signup", json={"username": taken, "password": DEFAULT_PASSWORD}
        )
        assert response.status_code == 409, response.text
        assert response.json()["error"]["code"] == "username_taken"
    assert await _count(app, Account) == before


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"username": "admin", "password": DEFAULT_PASSWORD}, "bad_username"),
        ({"username": "Guest-1234", "password": DEFAULT_PASSWORD}, "bad_username"),
        ({"username": "ab", "password": DEFAULT_PASSWORD}, "bad_username"),
        ({"username": "<b>x</b>", "password": DEFAULT_PASSWORD}, "bad_username"),
        ({"username": ["x"], "password": DEFAULT_PASSWORD}, "bad_username"),
        ({"username": "hal_core", "password": "short"}, "weak_password"),
        ({"username": "hal_core", "password": "Password123"}, "weak_password"),
        ({"username": "hal_core", "password": "HAL_CORE"}, "weak_password"),
        ({"username": "hal_core", "password": "p" * 300}, "weak_password"),
        ({"username": "hal_core", "password": DEFAULT_PASSWORD, "email": "no"}, "bad_email"),
        (
            {"username": "hal_core", "password": DEFAULT_PASSWORD, "email": "a@b.org"},
            "email_disabled",
        ),
        ({"username": "hal_core", "password": DEFAULT_PASSWORD, "extra": 1}, "invalid_request"),
        ({"username": "hal_core"}, "invalid_request"),
    ],
)
async def test_bad_sign_ups_are_refused_and_change_nothing(
    app: FastAPI, clients: ClientFactory, body: dict[str, Any], code: str
) -> None:
    before = (await _count(app, Account), await _count(app, Player))
    client = await clients()
    response = await client.post("/api/account/signup", json=body)
    assert response.json()["error"]["code"] == code, response.text
    assert "hexmoot_session" not in response.headers.get("set-cookie", "")
    assert (await _count(app, Account), await _count(app, Player)) == before


async def test_signing_up_while_signed_in_is_refused(app: FastAPI, clients: ClientFactory) -> None:
    ivy = await clients()
    await signup(ivy, "ivy_core")
    response = await ivy.post(
        "/api/account/signup", json={"username": "ivy_two", "password": DEFAULT_PASSWORD}
    )
    assert response.status_code == 409 and response.json()["error"]["code"] == "already_signed_in"


async def test_the_account_route_needs_a_session(app: FastAPI, clients: ClientFactory) -> None:
    response = await (await clients()).get("/api/account")
    assert response.status_code == 401 and response.json()["error"]["code"] == "not_signed_in"


def test_password_and_username_rules() -> None:
    assert check_password_rules("a long enough phrase") == "a long enough phrase"
    for weak in ("aaaaaaaaaaaa", "qwertyuiop", "1234567"):
        with pytest.raises(AppError):
            check_password_rules(weak)
    assert validate_username("  Zoë O'Neil ") == "Zoë O'Neil"
    for bad in ("root", "HexMoot", "guest_42", "a  b", "x" * 25):
        with pytest.raises(AppError):
            validate_username(bad)


async def test_games_keep_their_seats(app: FastAPI, clients: ClientFactory) -> None:
    """Signing up writes no game row: a game keeps exactly its two seats."""
    jo = await clients("Jo")
    created = await _create(jo)
    async with app.state.sessionmaker() as session:
        before = (await session.get(Game, created["id"])).__dict__.copy()  # type: ignore[union-attr]
    await signup(jo, "jo_core")
    async with app.state.sessionmaker() as session:
        after = await session.get(Game, created["id"])
    assert after is not None
    assert (after.player1_id, after.player2_id, after.version) == (
        before["player1_id"],
        before["player2_id"],
        before["version"],
    )


async def test_renaming_a_signed_in_visitor_renames_the_account(
    app: FastAPI, clients: ClientFactory
) -> None:
    kim = await clients()
    await signup(kim, "kim_core")
    response = await kim.put("/api/me", json={"name": "Kim Park"})
    assert response.status_code == 200, response.text
    assert response.json()["account"] == {"username": "kim_core", "display_name": "Kim Park"}
    assert (await kim.get("/api/account")).json()["display_name"] == "Kim Park"
    assert (await kim.get("/api/me")).json()["name"] == "Kim Park"


async def test_logging_out_of_a_borrowed_browser_gives_its_guest_back(
    app: FastAPI, clients: ClientFactory
) -> None:
    """A browser that logged in without attaching its guest's games is that guest again after
    logging out: its games stay reachable from it."""
    owner = await clients()
    await signup(owner, "lea_core")
    device = await clients("Lea's tablet")
    guest_id = (await device.get("/api/me")).json()["id"]
    created = await _create(device)
    await login(device, "lea_core")
    assert (await device.get("/api/me")).json()["id"] != guest_id
    await device.post("/api/account/logout", json={})
    me = (await device.get("/api/me")).json()
    assert me["id"] == guest_id and me["account"] is None
    assert (await device.get(f"/api/games/{created['id']}")).json()["you"]["seat"] == 1


async def test_a_guest_logging_out_stays_the_same_guest(
    app: FastAPI, clients: ClientFactory
) -> None:
    guest = await clients("Mo")
    before = (await guest.get("/api/me")).json()["id"]
    created = await _create(guest)
    assert (await guest.post("/api/account/logout", json={})).json() == {"ok": True}
    assert (await guest.get("/api/me")).json()["id"] == before
    assert (await guest.get(f"/api/games/{created['id']}")).json()["you"]["seat"] == 1


async def test_the_sites_password_hashes_are_rfc_9106s_and_cheaper_ones_are_redone_at_login(
    app: FastAPI, clients: ClientFactory
) -> None:
    """A site hashes with argon2id, 3 passes over 64 MiB and 4 lanes (the suite, cheaply: see
    tests/conftest.py); a hash made with other parameters is redone at its account's next
    login, and the password still works."""
    fields = Settings.model_fields
    assert (
        fields["password_hash_time_cost"].default,
        fields["password_hash_memory_kib"].default,
    ) == (3, 65536)
    site = Passwords(3, 65536)
    stored = await site.hash(DEFAULT_PASSWORD)
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert await site.verify(stored, DEFAULT_PASSWORD)
    assert not await site.verify(stored, DEFAULT_PASSWORD + "!")

    ann = await clients()
    await signup(ann, "ann_rehash")
    async with app.state.sessionmaker() as session:
        account = (
            await session.execute(select(Account).where(Account.username == "ann_rehash"))
        ).scalar_one()
    assert app.state.service.core.passwords.needs_rehash(stored)  # the suite's are not the site's
    await app.state.service.core.writer.write(SetPasswordHash(account.id, stored))
    await login(await clients(), "ann_rehash")
    async with app.state.sessionmaker() as session:
        now = (
            await session.execute(select(Account.password_hash).where(Account.id == account.id))
        ).scalar_one()
    assert now != stored and not app.state.service.core.passwords.needs_rehash(now)
