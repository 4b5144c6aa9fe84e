"""Mail through a real SMTP server on loopback (aiosmtpd), on SQLite and PostgreSQL: recovering a
password by a single-use link that expires, and the batched digest of waiting turns (one mail,
at most one per DIGEST_EVERY, one sender among several processes). The app runs on a fake clock.
Each address here is verified first, through the link mailed to it (tests/app/test_verify_email.py
shows that an unverified one gets neither)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from email.message import EmailMessage
from typing import Any

import pytest
from fastapi import FastAPI

from app.domain.clock import FakeClock
from app.main import create_app
from tests.app.conftest import make_settings
from tests.support.accounts import DEFAULT_PASSWORD, VERIFY_PAGE, login, signup, verify_email
from tests.support.mailing import mail_app, site_client, your_turn_game
from tests.support.smtp import SmtpServer, smtp

__all__ = ["smtp"]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def mailing(database_url: str, smtp: SmtpServer, clock: FakeClock) -> AsyncIterator[FastAPI]:
    async with mail_app(make_settings(database_url), smtp, clock) as application:
        yield application


def _recovery(smtp: SmtpServer, address: str) -> list[EmailMessage]:
    """The recovery mails sent to ``address``."""
    return smtp.inbox.holding(address, "/account/reset")


def _digests(smtp: SmtpServer, address: str) -> list[EmailMessage]:
    """The mails sent to ``address`` but its verification links: the digests."""
    return smtp.inbox.without(address, VERIFY_PAGE)


async def test_recovery_by_a_single_use_link_that_expires(
    mailing: FastAPI, smtp: SmtpServer, clock: FakeClock, backend: str
) -> None:
    address = f"ann-{backend}@example.org"
    async with (
        site_client(mailing) as ann,
        site_client(mailing) as phone,
        site_client(mailing) as anyone,
    ):
        await signup(ann, f"ann_mail_{backend}", email=address)
        await verify_email(anyone, smtp.inbox, address)
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
        (mail,) = _recovery(smtp, address)
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
        late = smtp.inbox.link(_recovery(smtp, address)[-1], "/account/reset").split("token=")[1]
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
    async with site_client(mailing) as ann, site_client(mailing) as anyone:
        await signup(ann, f"older_{backend}", email=address)
        await verify_email(ann, smtp.inbox, address)
        for _ in range(2):
            asked = await anyone.post("/api/account/recover", json={"username_or_email": address})
            assert asked.status_code == 202
        older, newer = (
            smtp.inbox.link(m, "/account/reset").split("token=", 1)[1]
            for m in _recovery(smtp, address)
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


async def test_one_digest_when_turns_wait_and_at_most_one_per_period(
    mailing: FastAPI, smtp: SmtpServer, clock: FakeClock, backend: str
) -> None:
    address = f"bob-{backend}@example.org"
    service: Any = mailing.state.service
    async with site_client(mailing) as bob, site_client(mailing) as cy:
        await signup(bob, f"bob_mail_{backend}", email=address)
        await verify_email(bob, smtp.inbox, address)
        await bob.put("/api/account/settings", json={"digest": True})
        await signup(cy, f"cy_mail_{backend}")
        first = await your_turn_game(cy, bob)
        assert await service.mail.send_digests() == 0  # Bob was just here
        clock.advance(3601)
        assert await service.mail.send_digests() == 1
        (mail,) = _digests(smtp, address)
        assert mail["Subject"] == "Your turn in 1 game on Hexmoot"
        assert f"https://hexmoot.example/games/{first}" in smtp.inbox.body(mail)
        assert "https://hexmoot.example/settings" in smtp.inbox.body(mail)
        # A new turn within the period: no second mail; after it, one more.
        clock.advance(60)
        await your_turn_game(cy, bob)
        clock.advance(3540)
        assert await service.mail.send_digests() == 0
        clock.advance(3 * 3600 + 1)
        assert await service.mail.send_digests() == 1
        assert len(_digests(smtp, address)) == 2
        # Nothing new since: nothing sent, however long Bob stays away.
        clock.advance(5 * 3600)
        assert await service.mail.send_digests() == 0
        # Switched off: no mail.
        clock.advance(60)
        await your_turn_game(cy, bob)
        await bob.put("/api/account/settings", json={"digest": False})
        clock.advance(5 * 3600)
        assert await service.mail.send_digests() == 0
        assert len(_digests(smtp, address)) == 2


async def test_two_processes_send_one_digest(
    database_url: str, smtp: SmtpServer, clock: FakeClock, backend: str
) -> None:
    """Two apps on one database (two server processes) look at the same moment: one mail."""
    settings = make_settings(database_url, **smtp.settings(), digest_check_every=10**9)
    one, two = create_app(settings, clock=clock), create_app(settings, clock=clock)
    async with one.router.lifespan_context(one), two.router.lifespan_context(two):
        address = f"dee-{backend}@example.org"
        async with site_client(one) as dee, site_client(two) as eve:
            await signup(dee, f"dee_mail_{backend}", email=address)
            await verify_email(dee, smtp.inbox, address)
            await dee.put("/api/account/settings", json={"digest": True})
            await signup(eve, f"eve_mail_{backend}")
            await your_turn_game(eve, dee)
            clock.advance(3601)
            sent = await asyncio.gather(
                one.state.service.mail.send_digests(), two.state.service.mail.send_digests()
            )
        assert sorted(sent) == [0, 1]
        assert len(_digests(smtp, address)) == 1


async def test_without_a_mail_server_email_is_off(app: FastAPI) -> None:
    async with site_client(app) as fay:
        await signup(fay, "fay_nomail")
        answer = await fay.post("/api/account/recover", json={"username_or_email": "fay_nomail"})
        assert (answer.status_code, answer.json()["error"]["code"]) == (409, "email_disabled")
        page = await fay.get("/account/recover")
        assert page.status_code == 200 and "sends no email" in page.text
