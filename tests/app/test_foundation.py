"""The foundation: migrations build the schema, /healthz reports the database, the home page renders."""

from __future__ import annotations

import httpx

from tests.support.fixtures import live_server
from tests.support.patience import PATIENCE
from tests.support.server import LiveServer

__all__ = ["live_server"]


def test_healthz_reports_the_database(live_server: LiveServer) -> None:
    response = httpx.get(live_server.url + "/healthz", timeout=PATIENCE)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["database"]["backend"] == "sqlite"
    assert body["database"]["revision"]


def test_home_page_renders_from_the_template(live_server: LiveServer) -> None:
    response = httpx.get(live_server.url + "/", timeout=PATIENCE)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<title>Hexmoot</title>" in response.text
    assert "/static/css/site.css" in response.text
    css = httpx.get(live_server.url + "/static/css/site.css", timeout=PATIENCE)
    assert css.status_code == 200
