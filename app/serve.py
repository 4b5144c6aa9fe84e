"""The one way to serve Hexmoot: ``python -m app.serve`` (``make run``, the Dockerfile, the tests'
live servers), uvicorn configured from ``Settings`` for strangers on the network.

What one connection may cost is bounded here, below the app:

- a websocket frame above the protocol's message limit (``WS_MAX_MESSAGE_BYTES``) plus a small
  margin closes the socket (1009) as soon as its header is read, before its payload is buffered;
  a message between the two is still read and answered ``message_too_large``;
- a request's head (request line and headers) must arrive within ``HEADER_TIMEOUT`` seconds and
  ``MAX_HEAD_BYTES``: uvicorn's HTTP protocol (httptools) has no such limit, so a client could
  hold a connection open forever by trickling one header byte at a time (``GuardedHttpProtocol``);
- idle keep-alive connections close after ``KEEP_ALIVE_TIMEOUT`` seconds;
- ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed only from ``FORWARDED_ALLOW_IPS``
  (nobody by default);
- the log never shows a join token: query values of token-like parameters are redacted
  (``RedactSecrets``).

(Request bodies are capped by the app itself, ``app/http_limits.py``, so that the cap holds however
the app is served; ``uvicorn app.main:create_app --factory`` still works, without the above.)
"""

from __future__ import annotations

import asyncio
import copy
import logging
import urllib.parse
from asyncio import TimerHandle
from typing import Any

import uvicorn
from uvicorn.config import LOGGING_CONFIG
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from app.config import Settings, get_settings
from app.main import create_app

#: How far above the protocol's message limit a websocket frame may go and still be read (to be
#: answered ``message_too_large``, the socket kept); anything larger closes the socket (1009).
WS_FRAME_MARGIN = 4 * 1024
#: The most a request's head (request line and headers) may hold; above it, 431 and closed.
MAX_HEAD_BYTES = 64 * 1024


class ServerConfig(uvicorn.Config):
    """uvicorn's configuration plus the request-head limits ``GuardedHttpProtocol`` enforces."""

    def __init__(self, *args: Any, header_timeout: float, max_head_bytes: int, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.header_timeout = header_timeout
        self.max_head_bytes = max_head_bytes


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol that also closes a connection whose request head is not
    complete ``header_timeout`` seconds after the connection opened (or, on a kept-alive
    connection, after the first byte of the next request), and answers 431 to a head over
    ``max_head_bytes``.

    uvicorn times out only an idle kept-alive connection, and only until the next request's first
    byte: a connection that sends nothing at all, or one header byte every few seconds, is kept
    forever, and the parser keeps every byte of an unfinished head.
    """

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.header_timeout: float = getattr(config, "header_timeout", 10.0)
        self.max_head_bytes: int = getattr(config, "max_head_bytes", MAX_HEAD_BYTES)
        self._head_deadline: TimerHandle | None = None
        self._head_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_done()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        waiting = self._head_deadline is not None
        if waiting:
            self._head_bytes += len(data)
        super().data_received(data)
        # Still waiting for the end of the same head after this chunk: count it against the cap.
        if waiting and self._head_deadline is not None and self._head_bytes > self.max_head_bytes:
            self._head_done()
            self._refuse(431, "Request Header Fields Too Large")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._await_head()

    def on_headers_complete(self) -> None:
        self._head_done()
        super().on_headers_complete()

    def _await_head(self) -> None:
        if self._head_deadline is None:
            self._head_bytes = 0
            self._head_deadline = self.loop.call_later(self.header_timeout, self._head_timed_out)

    def _head_done(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_timed_out(self) -> None:
        self._head_deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def _refuse(self, status: int, reason: str) -> None:
        """Answer ``status`` with no body and close the connection."""
        self.transport.write(
            f"HTTP/1.1 {status} {reason}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".encode()
        )
        self.transport.close()


#: Query parameters whose values are secrets (their names contain one of these, in any case).
SECRET_PARAMETERS = ("token", "join", "secret", "password", "key")
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """``text`` (a logged path, a request line) with the value of every token-like query parameter
    replaced by ``[redacted]``, the parameter's name read percent-decoded.

    >>> redact("/api/games/x?since=3&token=abc")
    '/api/games/x?since=3&token=[redacted]'
    >>> redact("GET /games/x?join=abc&%54oken=def HTTP/1.1")
    'GET /games/x?join=[redacted]&%54oken=[redacted] HTTP/1.1'
    """
    if "?" not in text:
        return text
    head, _, rest = text.partition("?")
    query, space, tail = rest.partition(" ")
    parts = []
    for part in query.split("&"):
        name, equals, _value = part.partition("=")
        plain = urllib.parse.unquote_plus(name).lower()
        secret = equals and any(word in plain for word in SECRET_PARAMETERS)
        parts.append(f"{name}={REDACTED}" if secret else part)
    return f"{head}?{'&'.join(parts)}{space}{tail}"


class RedactSecrets(logging.Filter):
    """A log filter (on every handler of uvicorn's log) that redacts join tokens and other
    token-like query values from each record's message and arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's logging configuration with ``RedactSecrets`` on each of its handlers (the access
    lines, and the error log that websocket handshakes are logged to)."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"redact_secrets": {"()": RedactSecrets}}
    for handler in config["handlers"].values():
        handler["filters"] = ["redact_secrets"]
    return config


def server_config(settings: Settings) -> ServerConfig:
    """The production configuration of uvicorn for ``settings``."""
    return ServerConfig(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        http=GuardedHttpProtocol,
        header_timeout=settings.header_timeout,
        max_head_bytes=MAX_HEAD_BYTES,
        timeout_keep_alive=settings.keep_alive_timeout,
        # Not used with httptools; the same head cap if the h11 protocol is ever chosen.
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        ws_max_size=settings.ws_max_message_bytes + WS_FRAME_MARGIN,
        # No protocol-level pings: liveness is the protocol's own (the client's `ping` every 25 s,
        # and a socket silent for WS_IDLE_TIMEOUT is closed). uvicorn's pings go out 20 s after
        # each connection, so sockets that connected together (after a restart, say) are all
        # pinged in one burst: 2,000 of them stalled every game for 80-110 ms in `make bench`.
        ws_ping_interval=None,
        # No permessage-deflate: it held 41 KB of zlib state per socket (98 KB an idle socket with
        # it, 57 KB without, in `make bench`'s idle step), and made no difference to the move's
        # round trip, whose frames are a few hundred bytes.
        ws_per_message_deflate=False,
        proxy_headers=bool(settings.forwarded_allow_ips),
        forwarded_allow_ips=settings.forwarded_allow_ips or None,
        server_header=False,
        log_config=log_config(),
        log_level=settings.log_level,
    )


def main() -> None:
    """Serve with the environment's settings until interrupted."""
    uvicorn.Server(server_config(get_settings())).run()


if __name__ == "__main__":
    main()
