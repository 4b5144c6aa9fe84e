"""An address is verified before any mail but its verification link goes to it (issue 26), through
a real SMTP server on loopback, on SQLite and PostgreSQL, with the app on a fake clock.

An unverified address gets neither a digest nor a recovery link, and the recovery request answers
as for an unknown name; the link mailed at sign-up verifies it once; an unknown, spent or expired
link is refused and changes nothing; resending is limited per account; a changed address must be
verified again, and the former one gets nothing more; a removed one gets nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.domain.clock import FakeClock
from tests.app.conftest import make_settings
from tests.support.accounts import VERIFY_API, VERIFY_PAGE, signup, verify_email
from tests.support.mailing import mail_app, site_client, your_turn_game
from tests.support.smtp import SmtpServer, smtp

__all__ = ["smtp"]

RESET_PAGE = "/account/reset"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def mailing(database_url: str, smtp: SmtpServer, clock: FakeClock) -> AsyncIterator[FastAPI]:
    async with mail_app(make_settings(database_url), smtp, clock) as application:
        yield application


def refused(answer: httpx.Response, status: int, code: str) -> None:
    """The answer is the error ``code`` with ``status``, in the one error shape."""
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), answer.text


async def account(client: httpx.AsyncClient) -> dict[str, Any]:
    """The client's account (``GET /api/account``)."""
    answer = await client.get("/api/account")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


#: The answer to every recovery request, whatever it names (an unknown name included).
RECOVERING = (202, b'{"ok":true}')


async def recover(client: httpx.AsyncClient, who: str) -> tuple[int, bytes]:
    """Ask for a recovery link for ``who``: the answer's status and body, as bytes."""
    answer = await client.post("/api/account/recover", json={"username_or_email": who})
    return answer.status_code, answer.content


def token_of(link: str) -> str:
    return link.split("token=", 1)[1]


async def test_an_unverified_address_gets_no_recovery_mail(
    mailing: FastAPI, smtp: SmtpServer, backend: str
) -> None:
    """Before issue 26 a recovery link went to any address typed in: a stranger's too. The answer
    is the unknown name's, to the byte; once the address is verified, the link goes to it."""
    address = f"stranger-{backend}@example.org"
    name = f"una_{backend}"
    async with site_client(mailing) as una, site_client(mailing) as x:
        await signup(una, name, email=address)
        unknown = await recover(x, f"nobody_{backend}")
        assert unknown == RECOVERING
        for who in (name, address, address.upper()):
            assert await recover(x, who) == unknown
        assert smtp.inbox.holding(address, RESET_PAGE) == []
        # The one mail the address got is its verification link.
        (mail,) = smtp.inbox.to(address)
        assert mail["Subject"] == "Confirm your email address for Hexmoot"
        body = smtp.inbox.body(mail)
        assert f"https://hexmoot.example{VERIFY_PAGE}?token=" in body
        assert name in body and "within 24 hours" in body
        assert (await account(una))["email_verified"] is False

        # Verified (from any browser: the link needs no session), the recovery link goes to it.
        await verify_email(x, smtp.inbox, address)
        assert (await account(una))["email_verified"] is True
        assert await recover(x, name) == unknown
        assert len(smtp.inbox.holding(address, RESET_PAGE)) == 1


async def test_an_unverified_address_gets_no_digest(
    mailing: FastAPI, smtp: SmtpServer, clock: FakeClock, backend: str
) -> None:
    """Before issue 26 the digest went to any address typed in. Turns wait, Ula is away, the
    setting is on: nothing until the address is verified."""
    address = f"digest-{backend}@example.org"
    service: Any = mailing.state.service
    async with site_client(mailing) as ula, site_client(mailing) as bo, site_client(mailing) as x:
        await signup(ula, f"ula_{backend}", email=address)
        await ula.put("/api/account/settings", json={"digest": True})
        await signup(bo, f"bo_{backend}")
        await your_turn_game(bo, ula)
        clock.advance(5 * 3600)
        assert await service.mail.send_digests() == 0
        assert smtp.inbox.without(address, VERIFY_PAGE) == []

        await verify_email(x, smtp.inbox, address)
        assert await service.mail.send_digests() == 1
        (digest,) = smtp.inbox.without(address, VERIFY_PAGE)
        assert digest["Subject"] == "Your turn in 1 game on Hexmoot"


async def test_the_link_verifies_once_and_a_bad_link_changes_nothing(
    mailing: FastAPI, smtp: SmtpServer, clock: FakeClock, backend: str
) -> None:
    address = f"vera-{backend}@example.org"
    async with site_client(mailing) as vera, site_client(mailing) as anyone:
        created = await signup(vera, f"vera_{backend}", email=address)
        assert (created["email"], created["email_verified"]) == (address, False)
        link = await smtp.inbox.newest_link(address, VERIFY_PAGE)
        page = await anyone.get(link)  # the page alone (a GET) verifies nothing
        assert page.status_code == 200 and 'id="verify"' in page.text
        assert (await account(vera))["email_verified"] is False

        unknown = await anyone.post(VERIFY_API, json={"token": secrets.token_urlsafe(32)})
        refused(unknown, 403, "bad_verification_token")
        assert "ask for a new one" in unknown.json()["error"]["message"]
        for junk in ("short", "x" * 500, 7, None):
            answer = await anyone.post(VERIFY_API, json={"token": junk})
            refused(answer, 403, "bad_verification_token")
        refused(await anyone.post(VERIFY_API, json={}), 422, "invalid_request")
        assert (await account(vera))["email_verified"] is False

        done = await anyone.post(VERIFY_API, json={"token": token_of(link)})
        assert (done.status_code, done.json()) == (200, {"email": address})
        assert (await account(vera))["email_verified"] is True
        again = await anyone.post(VERIFY_API, json={"token": token_of(link)})
        refused(again, 403, "bad_verification_token")
        assert (await account(vera))["email_verified"] is True
        # Nothing left to verify: a resend is refused, and mails nothing.
        resend = await vera.post("/api/account/email/resend", json={})
        refused(resend, 409, "nothing_to_verify")
        assert len(smtp.inbox.to(address)) == 1

        # A link expires after 24 hours: it then changes nothing, and a new one works.
        other = f"vera-new-{backend}@example.org"
        assert (await vera.put("/api/account/email", json={"email": other})).status_code == 200
        late = await smtp.inbox.newest_link(other, VERIFY_PAGE)
        clock.advance(24 * 3600 + 1)
        refused(
            await anyone.post(VERIFY_API, json={"token": token_of(late)}),
            403,
            "bad_verification_token",
        )
        assert (await account(vera))["email_verified"] is False
        assert (await vera.post("/api/account/email/resend", json={})).status_code == 202
        await verify_email(anyone, smtp.inbox, other, count=2)
        assert (await account(vera))["email_verified"] is True


async def test_a_newer_link_spends_the_older_and_resending_is_limited_per_account(
    database_url: str, smtp: SmtpServer, clock: FakeClock, backend: str
) -> None:
    """Two verification mails an hour per account here (RATE_VERIFY_PER_ACCOUNT): resends and new
    addresses count; the sign-up's link does not; another account counts apart."""
    settings = make_settings(database_url, rate_verify_per_account="2/hour")
    async with (
        mail_app(settings, smtp, clock) as limited,
        site_client(limited) as rae,
        site_client(limited) as sam,
        site_client(limited) as guest,
    ):
        address = f"rae-{backend}@example.org"
        await signup(rae, f"rae_{backend}", email=address)
        first = await smtp.inbox.newest_link(address, VERIFY_PAGE)
        assert (await rae.post("/api/account/email/resend")).status_code == 202
        second = await smtp.inbox.newest_link(address, VERIFY_PAGE, count=2)
        assert second != first
        # The newer link spent the older one.
        stale = await guest.post(VERIFY_API, json={"token": token_of(first)})
        refused(stale, 403, "bad_verification_token")

        assert (await rae.post("/api/account/email/resend", json={})).status_code == 202
        limit = await rae.post("/api/account/email/resend", json={})
        refused(limit, 429, "rate_limited")
        assert int(limit.headers["retry-after"]) > 0
        assert "verification mails per account" in limit.json()["error"]["message"]
        # A new address is a verification mail too: refused, and nothing changed.
        moved = await rae.put("/api/account/email", json={"email": f"rae2-{backend}@example.org"})
        refused(moved, 429, "rate_limited")
        assert (await account(rae))["email"] == address
        assert smtp.inbox.to(f"rae2-{backend}@example.org") == []
        assert len(smtp.inbox.to(address)) == 3  # the sign-up's link and two resends
        # The last link sent still verifies.
        await verify_email(guest, smtp.inbox, address, count=3)

        # Another account counts apart; no address, or no session, is refused as such.
        await signup(sam, f"sam_{backend}")
        refused(await sam.post("/api/account/email/resend", json={}), 409, "nothing_to_verify")
        sam_address = f"sam-{backend}@example.org"
        assert (await sam.put("/api/account/email", json={"email": sam_address})).status_code == 200
        assert (await sam.post("/api/account/email/resend", json={})).status_code == 202
        assert len(smtp.inbox.to(sam_address)) == 2
        refused(await guest.post("/api/account/email/resend", json={}), 401, "not_signed_in")


async def test_a_changed_address_needs_verifying_again_and_the_former_gets_nothing_more(
    mailing: FastAPI, smtp: SmtpServer, clock: FakeClock, backend: str
) -> None:
    old, new = f"old-{backend}@example.org", f"new-{backend}@example.org"
    name = f"cam_{backend}"
    service: Any = mailing.state.service
    async with site_client(mailing) as cam, site_client(mailing) as dan, site_client(mailing) as x:
        await signup(cam, name, email=old)
        await verify_email(cam, smtp.inbox, old)
        await cam.put("/api/account/settings", json={"digest": True})
        await signup(dan, f"dan_{backend}")
        # A recovery link mailed to the old address before the change...
        assert await recover(x, name) == RECOVERING
        (before,) = smtp.inbox.holding(old, RESET_PAGE)
        mailed_to_old = len(smtp.inbox.to(old))

        changed = await cam.put("/api/account/email", json={"email": new})
        assert changed.status_code == 200
        assert (changed.json()["email"], changed.json()["email_verified"]) == (new, False)
        (mail,) = smtp.inbox.to(new)
        assert mail["Subject"] == "Confirm your email address for Hexmoot"
        # ...does nothing any more; and nothing more goes to either address.
        stale = await x.post(
            "/api/account/reset",
            json={
                "token": token_of(smtp.inbox.link(before, RESET_PAGE)),
                "password": "a thief's phrase",
            },
        )
        refused(stale, 403, "bad_recovery_token")
        for who in (name, old, new):
            assert await recover(x, who) == RECOVERING
        await your_turn_game(dan, cam)
        clock.advance(5 * 3600)
        assert await service.mail.send_digests() == 0
        assert len(smtp.inbox.to(old)) == mailed_to_old
        assert len(smtp.inbox.to(new)) == 1

        # The new address verified: mail goes to it, never to the old one.
        await verify_email(x, smtp.inbox, new)
        assert await recover(x, name) == RECOVERING
        assert len(smtp.inbox.holding(new, RESET_PAGE)) == 1
        assert await service.mail.send_digests() == 1  # Cam is still away
        assert len(smtp.inbox.to(old)) == mailed_to_old
        assert (await account(cam))["email_verified"] is True

        # The same address in other case: still verified, nothing mailed.
        same = await cam.put("/api/account/email", json={"email": new.upper()})
        assert (same.json()["email"], same.json()["email_verified"]) == (new.upper(), True)
        mailed_to_new = len(smtp.inbox.to(new))
        assert len(smtp.inbox.to(new.upper())) == 0

        # A link to the old address, unverified, does nothing once the address changed.
        await cam.put("/api/account/email", json={"email": old})
        back = await smtp.inbox.newest_link(old, VERIFY_PAGE, count=2)
        await cam.put("/api/account/email", json={"email": new})
        refused(
            await x.post(VERIFY_API, json={"token": token_of(back)}), 403, "bad_verification_token"
        )
        assert (await account(cam))["email"] == new
        assert (await account(cam))["email_verified"] is False

        # Removed: no address, nothing verified, nothing mailed; the open link does nothing.
        pending = await smtp.inbox.newest_link(new, VERIFY_PAGE, count=2)
        removed = await cam.put("/api/account/email", json={"email": None})
        assert (removed.json()["email"], removed.json()["email_verified"]) == (None, False)
        refused(
            await x.post(VERIFY_API, json={"token": token_of(pending)}),
            403,
            "bad_verification_token",
        )
        assert await recover(x, name) == RECOVERING
        clock.advance(60)
        await your_turn_game(dan, cam)
        clock.advance(5 * 3600)
        assert await service.mail.send_digests() == 0
        assert len(smtp.inbox.to(new)) == mailed_to_new + 1  # its second verification link only
        assert (await cam.post("/api/account/email/resend", json={})).status_code == 409
