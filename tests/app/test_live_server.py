"""The tests' own live servers: a server started is the one the test talks to."""

from __future__ import annotations

import http.server
import threading
from pathlib import Path

import pytest

from tests.support.databases import fresh_database
from tests.support.server import LiveServer, PortTaken


class Healthy(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_server_whose_port_another_took_is_not_taken_for_started(tmp_path: Path) -> None:
    """Another test's server binds the port between free_port() and ours, and answers /healthz
    200: start() must not return as if ours were up (a fresh-clone CI failed so, with "Connection
    refused" on the first request once the other server stopped)."""
    squatter = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Healthy)
    threading.Thread(target=squatter.serve_forever, daemon=True).start()
    try:
        with fresh_database("sqlite", tmp_path) as url:
            server = LiveServer(url, port=squatter.server_address[1])
            with pytest.raises(PortTaken):
                server.start()
            server.stop()
    finally:
        squatter.shutdown()
        squatter.server_close()
