"""Accounts for tests, made through the real HTTP API (the client keeps the session cookie).

``await signup(client, "ann")`` on an httpx client (ASGI or a live server's); ``signup_page(page,
server.url, "ann")`` from a Playwright page, through its context's request API (which shares the page's
cookies, so the page is signed in afterwards).
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.smtp import Inbox

DEFAULT_PASSWORD = "correct horse battery staple"
#: The path of the links that verify an address, and of the API their page calls.
VERIFY_PAGE = "/account/verify"
VERIFY_API = "/api/account/email/verify"


async def signup(
    client: httpx.AsyncClient,
    username: str,
    password: str = DEFAULT_PASSWORD,
    email: str | None = None,
) -> dict[str, Any]:
    """Sign ``client`` up as ``username`` (and so in): the account's JSON."""
    body: dict[str, Any] = {"username": username, "password": password}
    if email is not None:
        body["email"] = email
    response = await client.post("/api/account/signup", json=body)
    assert response.status_code == 201, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def login(
    client: httpx.AsyncClient, username: str, password: str = DEFAULT_PASSWORD
) -> dict[str, Any]:
    """Log ``client`` in as ``username``: the login's JSON."""
    response = await client.post(
        "/api/account/login", json={"username": username, "password": password}
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def signup_page(
    page: Any, base_url: str, username: str, password: str = DEFAULT_PASSWORD
) -> dict[str, Any]:
    """Sign a Playwright page's context up as ``username`` (sync API)."""
    response = page.request.post(
        f"{base_url}/api/account/signup", data={"username": username, "password": password}
    )
    assert response.status == 201, response.text()
    answer: dict[str, Any] = response.json()
    return answer


def login_page(
    page: Any, base_url: str, username: str, password: str = DEFAULT_PASSWORD
) -> dict[str, Any]:
    """Log a Playwright page's context in as ``username`` (sync API)."""
    response = page.request.post(
        f"{base_url}/api/account/login", data={"username": username, "password": password}
    )
    assert response.status == 200, response.text()
    answer: dict[str, Any] = response.json()
    return answer


async def verify_email(
    client: httpx.AsyncClient, inbox: Inbox, address: str, count: int = 1
) -> str:
    """Open the newest verification link mailed to ``address`` (waiting until ``count`` such mails
    came) as its owner does: the page, then the token that the page sends. The token."""
    link = await inbox.newest_link(address, VERIFY_PAGE, count)
    page = await client.get(link)
    assert page.status_code == 200, page.text
    token = link.split("token=", 1)[1]
    answer = await client.post(VERIFY_API, json={"token": token})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"email": address}
    return token
