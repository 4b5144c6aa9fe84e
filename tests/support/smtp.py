"""A real SMTP server on loopback for the mail tests (aiosmtpd), keeping what it receives."""

from __future__ import annotations

import asyncio
import email
import email.policy
import re
import socket
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller


class Inbox:
    """The messages the server accepted, parsed."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        # Cleared, a message waits before it is accepted (the server's side: its delivery hangs).
        self.open = threading.Event()
        self.open.set()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.get_running_loop().run_in_executor(None, self.open.wait, 60)
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        self.messages.append(parsed)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        """The messages sent to ``address``."""
        return [m for m in self.messages if m["To"] == address]

    async def arrived(self, address: str, count: int, within: float = 30.0) -> list[EmailMessage]:
        """The messages sent to ``address`` once there are ``count`` of them (a server mails after
        it has answered); AssertionError if they do not come within ``within`` seconds."""
        end = time.monotonic() + within
        while len(found := self.to(address)) < count:
            assert time.monotonic() < end, f"{count} mails to {address} never came"
            await asyncio.sleep(0.02)
        return found

    @staticmethod
    def body(message: EmailMessage) -> str:
        part = message.get_body(preferencelist=("plain",))
        assert part is not None
        return str(part.get_content())

    def link(self, message: EmailMessage, path: str) -> str:
        """The first link in ``message`` to ``path`` (its path and query)."""
        found = re.search(rf"https?://[^/\s]+({re.escape(path)}[^\s]*)", self.body(message))
        assert found is not None, self.body(message)
        return found.group(1)

    def holding(self, address: str, path: str) -> list[EmailMessage]:
        """The messages sent to ``address`` with a link to ``path`` ("/account/verify")."""
        pattern = re.compile(rf"https?://[^/\s]+{re.escape(path)}")
        return [m for m in self.to(address) if pattern.search(self.body(m))]

    def without(self, address: str, path: str) -> list[EmailMessage]:
        """The messages sent to ``address`` with no link to ``path``."""
        held = self.holding(address, path)
        return [m for m in self.to(address) if m not in held]

    async def newest_link(
        self, address: str, path: str, count: int = 1, within: float = 30.0
    ) -> str:
        """The link to ``path`` in the newest message to ``address`` holding one, once ``count``
        messages hold one (a server mails after it has answered); AssertionError if they do not
        come within ``within`` seconds."""
        end = time.monotonic() + within
        while len(found := self.holding(address, path)) < count:
            assert time.monotonic() < end, f"{count} mails to {address} with {path} never came"
            await asyncio.sleep(0.02)
        return self.link(found[-1], path)

    def wait_for(self, address: str, count: int, within: float = 30.0) -> list[EmailMessage]:
        """:meth:`arrived` for a test without an event loop of its own (a browser test): the
        messages to ``address`` once there are ``count``, looked for every 20 ms."""
        end = time.monotonic() + within
        while len(found := self.to(address)) < count:
            assert time.monotonic() < end, f"{count} mails to {address} never came"
            time.sleep(0.02)
        return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class SmtpServer:
    """An aiosmtpd server running in its own thread on 127.0.0.1."""

    def __init__(self) -> None:
        self.inbox = Inbox()
        self.port = _free_port()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)

    def settings(self) -> dict[str, Any]:
        """The app settings that send mail through this server."""
        return {"smtp_host": "127.0.0.1", "smtp_port": self.port}


@pytest.fixture(scope="module")
def smtp() -> Iterator[SmtpServer]:
    """A real SMTP server on loopback, for the tests of one module."""
    server = SmtpServer()
    server.controller.start()
    try:
        yield server
    finally:
        server.controller.stop()
