"""Mail through a real SMTP server on loopback (aiosmtpd), on SQLite and PostgreSQL: recovering a
password by a single-use link that expires, and the batched digest of waiting turns (one mail,
at most one per DIGEST_EVERY, one sender among several processes). The app runs on a fake clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.domain.clock import FakeClock
from app.main import create_app
from tests.app.conftest import make_settings
from tests.support.accounts import DEFAULT_PASSWORD, login, signup
from tests.support.gameplay import MovePicker, quick_game
from tests.support.smtp import SmtpServer, smtp

__all__ = ["smtp"]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def mailing(database_url: str, smtp: SmtpServer, clock: FakeClock) -> AsyncIterator[FastAPI]:
    settings = make_settings(
        database_url,
        **smtp.settings(),
        public_origin="https://hexmoot.example",
        digest_check_every=10**9,  # the tests call send_digests themselves
    )
    application = create_app(settings, clock=clock)
    async with application.router.lifespan_context(application):
        yield application


def _client(app: FastAPI) -> httpx.AsyncClient:
    """A browser of the site (https: its cookies are Secure, as PUBLIC_ORIGIN says)."""
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="https://hexmoot.example"
    )


async def test_recovery_by_a_single_use_link_that_expires(
    mailing: FastAPI, smtp: SmtpServer, clock: FakeClock, backend: str
) -> None:
    address = f"ann-{backend}@example.org"
    async with _client(mailing) as ann, _client(mailing) as phone, _client(mailing) as anyone:
        await signup(ann, f"ann_mail_{backend}", email=address)
        await login(phone, f"ann_mail_{backend}")
        assert (await ann.get("/api/account")).status_code == 200
        assert (await phone.get("/api/account")).status_code == 200
        before = len(smtp.inbox.messages)
        for who in ("nobody_here", "nobody@example.org"):
            answer = await anyone.post("/api/account/recover", json={"username_or_email": who})
            assert answer.status_code == 202 and answer.json() == {"ok": True}
        wrong = await anyone.post("/api/account/recover", json={"username_or_email": 7})
        assert (wrong.status_code, wrong.json()["error"]["code"]) == (422, "invalid_request")
        assert len(smtp.inbox.messages) == before  # nothing sent, and nothing said about it
        answer = await anyone.post(
            "/api/account/recover", json={"username_or_email": address.upper()}
        )
        assert answer.status_code == 202
        (mail,) = smtp.inbox.to(address)
        link = smtp.inbox.link(mail, "/account/reset")
        token = link.split("token=", 1)[1]
        assert (await anyone.get(link)).status_code == 200  # the page
        weak = await anyone.post("/api/account/reset", json={"token": token, "password": "short"})
        assert weak.json()["error"]["code"] == "weak_password"
        done = await anyone.post(
            "/api/account/reset", json={"token": token, "password": "a brand new phrase"}
        )
        assert done.status_code == 200, done.text
        # Every session ended; the old password fails, the new one works; the link is spent.
        assert (await ann.get("/api/account")).status_code == 401
        assert (await phone.get("/api/account")).status_code == 401
        old = await anyone.post(
            "/api/account/login",
            json={"username": f"ann_mail_{backend}", "password": DEFAULT_PASSWORD},
        )
        assert old.status_code == 401
        await login(anyone, f"ann_mail_{backend}", "a brand new phrase")
        again = await anyone.post(
            "/api/account/reset", json={"token": token, "password": "yet another phrase"}
        )
        assert (again.status_code, again.json()["error"]["code"]) == (403, "bad_recovery_token")
        # A second link expires after an hour.
        await anyone.post("/api/account/recover", json={"username_or_email": f"ann_mail_{backend}"})
        late = smtp.inbox.link(smtp.inbox.to(address)[-1], "/account/reset").split("token=")[1]
        clock.advance(3601)
        expired = await anyone.post(
            "/api/account/reset", json={"token": late, "password": "yet another phrase"}
        )
        assert (expired.status_code, expired.json()["error"]["code"]) == (403, "bad_recovery_token")
        for junk in ({"token": 5, "password": "x"}, {"token": "x" * 500, "password": "p"}):
            refused = await anyone.post("/api/account/reset", json=junk)
            assert refused.status_code in (403, 422)


async def test_a_reset_spends_every_open_link_of_the_account(
    mailing: FastAPI, smtp: SmtpServer, backend: str
) -> None:
    """Two links asked in turn: the newer one resets, and the older one is spent with it."""
    address = f"older-{backend}@example.org"
    async with _client(mailing) as ann, _client(mailing) as anyone:
        await signup(ann, f"older_{backend}", email=address)
        for _ in range(2):
            asked = await anyone.post("/api/account/recover", json={"username_or_email": address})
            assert asked.status_code == 202
        older, newer = (
            smtp.inbox.link(m, "/account/reset").split("token=", 1)[1]
            for m in smtp.inbox.to(address)
        )
        done = await anyone.post(
            "/api/account/reset", json={"token": newer, "password": "a brand new phrase"}
        )
        assert done.status_code == 200, done.text
        stale = await anyone.post(
            "/api/account/reset", json={"token": older, "password": "the thief's own phrase"}
        )
        assert (stale.status_code, stale.json()["error"]["code"]) == (403, "bad_recovery_token")
        await login(anyone, f"older_{backend}", "a brand new phrase")


async def _your_turn_game(first: httpx.AsyncClient, second: httpx.AsyncClient) -> str:
    """A game ``first`` created (seat 1) and ``second`` joined, played until ``second`` is to move."""
    slug, options = quick_game()
    created = (
        await first.post("/api/games", json={"game": slug, "options": options, "seat": 1})
    ).json()
    joined = await second.post(
        f"/api/games/{created['id']}/join", json={"token": created["join_token"]}
    )
    picker = MovePicker(slug, options)
    version = joined.json()["version"]
    while picker.to_move() == 1:  # the opening may take several plies of seat 1
        move = picker.pick()
        answer = await first.post(
            f"/api/games/{created['id']}/moves",
            json={"move": move, "version": version, "msg_id": f"m{version}"},
        )
        assert answer.status_code == 200, answer.text
        picker.play(move)
        version = answer.json()["version"]
    return str(created["id"])


async def test_one_digest_when_turns_wait_and_at_most_one_per_period(
    mailing: FastAPI, smtp: SmtpServer, clock: FakeClock, backend: str
) -> None:
    address = f"bob-{backend}@example.org"
    service: Any = mailing.state.service
    async with _client(mailing) as bob, _client(mailing) as cy:
        await signup(bob, f"bob_mail_{backend}", email=address)
        await bob.put("/api/account/settings", json={"digest": True})
        await signup(cy, f"cy_mail_{backend}")
        first = await _your_turn_game(cy, bob)
        assert await service.mail.send_digests() == 0  # Bob was just here
        clock.advance(3601)
        assert await service.mail.send_digests() == 1
        (mail,) = smtp.inbox.to(address)
        assert mail["Subject"] == "Your turn in 1 game on Hexmoot"
        assert f"https://hexmoot.example/games/{first}" in smtp.inbox.body(mail)
        assert "https://hexmoot.example/settings" in smtp.inbox.body(mail)
        # A new turn within the period: no second mail; after it, one more.
        clock.advance(60)
        await _your_turn_game(cy, bob)
        clock.advance(3540)
        assert await service.mail.send_digests() == 0
        clock.advance(3 * 3600 + 1)
        assert await service.mail.send_digests() == 1
        assert len(smtp.inbox.to(address)) == 2
        # Nothing new since: nothing sent, however long Bob stays away.
        clock.advance(5 * 3600)
        assert await service.mail.send_digests() == 0
        # Switched off: no mail.
        clock.advance(60)
        await _your_turn_game(cy, bob)
        await bob.put("/api/account/settings", json={"digest": False})
        clock.advance(5 * 3600)
        assert await service.mail.send_digests() == 0
        assert len(smtp.inbox.to(address)) == 2


async def test_two_processes_send_one_digest(
    database_url: str, smtp: SmtpServer, clock: FakeClock, backend: str
) -> None:
    """Two apps on one database (two server processes) look at the same moment: one mail."""
    settings = make_settings(database_url, **smtp.settings(), digest_check_every=10**9)
    one, two = create_app(settings, clock=clock), create_app(settings, clock=clock)
    async with one.router.lifespan_context(one), two.router.lifespan_context(two):
        address = f"dee-{backend}@example.org"
        async with _client(one) as dee, _client(two) as eve:
            await signup(dee, f"dee_mail_{backend}", email=address)
            await dee.put("/api/account/settings", json={"digest": True})
            await signup(eve, f"eve_mail_{backend}")
            await _your_turn_game(eve, dee)
            clock.advance(3601)
            sent = await asyncio.gather(
                one.state.service.mail.send_digests(), two.state.service.mail.send_digests()
            )
        assert sorted(sent) == [0, 1]
        assert len(smtp.inbox.to(address)) == 1


async def test_without_a_mail_server_email_is_off(app: FastAPI) -> None:
    async with _client(app) as fay:
        await signup(fay, "fay_nomail")
        answer = await fay.post("/api/account/recover", json={"username_or_email": "fay_nomail"})
        assert (answer.status_code, answer.json()["error"]["code"]) == (409, "email_disabled")
        page = await fay.get("/account/recover")
        assert page.status_code == 200 and "sends no email" in page.text
