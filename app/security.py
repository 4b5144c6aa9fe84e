"""Security headers on every HTTP answer, and the websocket origin check: ``install(app, settings)``.

Every answer (pages, API, static files, errors, the 500s included) carries a Content-Security-Policy
that allows the site's own scripts, styles, images and sockets only (no inline script, no inline
style, no framing), ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: same-origin`` (a
join token in a page's URL never leaves the site in a Referer). A websocket whose ``Origin`` is
another site is refused before it is accepted (HTTP 403 on the handshake): see ``docs/protocol.md``.
So is an HTTP request that would change something (POST, PUT, PATCH, DELETE) sent by another site's
page: its ``Origin`` is not the site's own, or its ``Sec-Fetch-Site`` says ``cross-site`` (403
``bad_origin``, before any route runs). The session cookie is ``SameSite=Lax`` as well; this check
also covers the browsers and the same-site subdomains that SameSite does not.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from urllib.parse import urlsplit

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Settings

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        # blob: the game page draws its position's PNG from an SVG of its own (static/js/export.js)
        "img-src 'self' blob:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
#: The methods of a request that changes something: one from another site's page is refused.
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_WEBSOCKET_SCHEMES = {"ws": "http", "wss": "https"}


def security_headers(settings: Settings) -> list[tuple[bytes, bytes]]:
    """The headers every HTTP answer carries (HSTS too when the public origin is https)."""
    headers = [
        ("content-security-policy", CONTENT_SECURITY_POLICY),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "same-origin"),
        ("x-frame-options", "DENY"),
    ]
    if (settings.public_origin or "").lower().startswith("https://"):
        headers.append(("strict-transport-security", "max-age=31536000"))
    return [(name.encode(), value.encode()) for name, value in headers]


def normal_origin(origin: str) -> str | None:
    """``scheme://host[:port]`` lower-cased and without its scheme's default port; None if
    ``origin`` is no http(s) origin (``null``, garbage)."""
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    if port is not None and port != _DEFAULT_PORTS[parts.scheme]:
        host = f"{host}:{port}"
    return f"{parts.scheme}://{host}"


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return None


def site_origin(scope: Scope, settings: Settings) -> str | None:
    """The site's own origin for a request: PUBLIC_ORIGIN when set, else the request's scheme
    (``ws`` as ``http``) with its Host header."""
    if settings.public_origin:
        return normal_origin(settings.public_origin)
    host = _header(scope.get("headers", []), b"host")
    if not host:
        return None
    scheme = str(scope.get("scheme", "http"))
    return normal_origin(f"{_WEBSOCKET_SCHEMES.get(scheme, scheme)}://{host}")


def origin_allowed(scope: Scope, settings: Settings) -> bool:
    """Whether a websocket may be accepted: it has no ``Origin`` (no browser sent it: a script
    could send any Origin anyway), or its Origin is the site's own."""
    origin = _header(scope.get("headers", []), b"origin")
    if origin is None:
        return True
    own = site_origin(scope, settings)
    return own is not None and normal_origin(origin) == own


def cross_site(scope: Scope, settings: Settings) -> bool:
    """Whether an HTTP request that changes something comes from another site's page."""
    if scope.get("method") not in UNSAFE_METHODS:
        return False
    headers = scope.get("headers", [])
    if (_header(headers, b"sec-fetch-site") or "").lower() == "cross-site":
        return True
    origin = _header(headers, b"origin")
    if origin is None:
        return False
    own = site_origin(scope, settings)
    return own is None or normal_origin(origin) != own


_BAD_ORIGIN = json.dumps(
    {
        "error": {
            "code": "bad_origin",
            "message": "This request came from another site's page: it is refused",
        }
    }
).encode()


class SecurityMiddleware:
    """Pure ASGI: adds :func:`security_headers` to every HTTP answer, and refuses websockets
    from foreign origins before the app sees them."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.headers = security_headers(settings)
        self.names = {name for name, _ in self.headers}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if not origin_allowed(scope, self.settings):
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008})  # the server answers 403
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if cross_site(scope, self.settings):
            await send(
                {
                    "type": "http.response.start",
                    "status": 403,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(_BAD_ORIGIN)).encode()),
                        *self.headers,
                    ],
                }
            )
            await send({"type": "http.response.body", "body": _BAD_ORIGIN})
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0] not in self.names]
                message = {**message, "headers": headers + self.headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def install(app: FastAPI, settings: Settings) -> None:
    """Wrap the whole of ``app``, its error middleware included (so a 500 carries the headers)."""
    build = app.build_middleware_stack

    def build_with_security() -> ASGIApp:
        return SecurityMiddleware(build(), settings)

    app.build_middleware_stack = build_with_security  # type: ignore[method-assign]
