"""Fast to load (issue 15): compressed answers, versioned static URLs cached for a year, unversioned
ones revalidated, and each page's own JavaScript and CSS (its
template's files, base.html's, and every module they import) under 100 KB as served.

Over HTTP against a real uvicorn process (LiveServer on SQLite): the headers that matter are the
ones the server really sends, middleware order included.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator

import httpx
import minify
import pytest
from websockets.sync.client import connect

from app.static_files import STATIC_DIR, file_hash, main, served
from app.templating import static_url
from tests.support.databases import fresh_database
from tests.support.gameplay import MovePicker
from tests.support.patience import PATIENCE
from tests.support.quotas import QUOTAS_OFF
from tests.support.server import LiveServer

IMMUTABLE = "public, max-age=31536000, immutable"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with fresh_database("sqlite", tmp_path_factory.mktemp("fastload")) as url:
        live = LiveServer(url, QUOTAS_OFF)
        live.start()
        try:
            yield live
        finally:
            live.stop()


def raw(client: httpx.Client, path: str, encoding: str) -> httpx.Response:
    """The answer as sent: httpx decodes gzip itself, so read the undecoded bytes."""
    with client.stream("GET", path, headers={"Accept-Encoding": encoding}) as response:
        response.raw_bytes = b"".join(response.iter_raw())  # type: ignore[attr-defined]
    return response


@pytest.mark.parametrize("path", ["/", "/api/catalogue", "/static/js/game.js"])
def test_gzip_when_asked_and_same_bytes(server: LiveServer, path: str) -> None:
    with httpx.Client(base_url=server.url, timeout=PATIENCE) as client:
        plain = raw(client, path, "identity")
        packed = raw(client, path, "gzip, deflate, br")
    assert plain.status_code == packed.status_code == 200
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in packed.headers["vary"].lower()
    body = gzip.decompress(packed.raw_bytes)  # type: ignore[attr-defined]
    if path == "/":  # the page has the guest's name and a fresh cookie: compare its shape
        assert len(body) > 1024 and body.startswith(b"<!doctype html>")
    else:
        assert body == plain.raw_bytes  # type: ignore[attr-defined]
    assert len(packed.raw_bytes) < len(body) / 2  # type: ignore[attr-defined]
    # the security headers survive compression
    assert "default-src 'self'" in packed.headers["content-security-policy"]
    assert packed.headers["x-content-type-options"] == "nosniff"


def test_record_download_compressed_and_intact(server: LiveServer) -> None:
    with (
        httpx.Client(base_url=server.url, timeout=PATIENCE) as one,
        httpx.Client(base_url=server.url, timeout=PATIENCE) as two,
    ):
        made = one.post(
            "/api/games", json={"game": "valaturna", "options": {}, "seat": 1, "public": True}
        ).raise_for_status()
        game_id = made.json()["id"]
        two.post(f"/api/games/{game_id}/join", json={"token": made.json()["join_token"]})
        picker, seats = MovePicker("valaturna", {}, seed=1), {1: one, 2: two}
        version = one.get(f"/api/games/{game_id}").raise_for_status().json()["version"]
        while len(picker.moves) < 200 and (seat := picker.to_move()) is not None:
            answer = (
                seats[seat]
                .post(
                    f"/api/games/{game_id}/moves",
                    json={"move": picker.pick(), "version": version, "msg_id": f"m{version}"},
                )
                .raise_for_status()
            )
            version = answer.json()["version"]
            picker.play(answer.json()["move"])
        plain = raw(one, f"/games/{game_id}/record.json", "identity")
        packed = raw(one, f"/games/{game_id}/record.json", "gzip")
    assert plain.status_code == packed.status_code == 200
    assert len(plain.raw_bytes) > 1024  # type: ignore[attr-defined]
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["content-disposition"] == plain.headers["content-disposition"]
    assert gzip.decompress(packed.raw_bytes) == plain.raw_bytes  # type: ignore[attr-defined]


def test_small_answers_and_websockets_are_not_compressed(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=PATIENCE) as client:
        small = raw(client, "/healthz", "gzip")
    assert "content-encoding" not in small.headers
    # a websocket passes the compression layer untouched (plain JSON frames, as ever)
    with connect(server.ws_url + "/ws/live", compression=None) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "live"
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}


def test_static_url_carries_the_file_hash() -> None:
    url = static_url("js/game.js")
    match = re.fullmatch(r"/static/js/game\.js\?v=([0-9a-f]{12})", url)
    assert match, url
    assert static_url("js/game.js") == url  # computed once per process, same answer


def test_pages_link_versioned_static_files(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=PATIENCE) as client:
        page = client.get("/").text
    assert static_url("css/site.css") in page
    assert static_url("js/lobby.js") in page


def test_versioned_static_is_immutable_unversioned_revalidates(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=PATIENCE) as client:
        versioned = client.get(static_url("js/board.js"))
        plain = client.get("/static/js/board.js")  # how ES modules import each other
        stale = client.get("/static/js/board.js?v=000000000000")
        again = client.get("/static/js/board.js", headers={"If-None-Match": plain.headers["etag"]})
    assert versioned.status_code == 200
    assert versioned.headers["cache-control"] == IMMUTABLE
    assert plain.headers["cache-control"] == "no-cache"
    assert plain.headers["etag"] and plain.headers["last-modified"]
    assert stale.headers["cache-control"] == "no-cache"  # an old hash is not the file's
    assert again.status_code == 304
    assert again.headers["cache-control"] == "no-cache"


TEMPLATES = STATIC_DIR.parent / "templates"
STATIC_REF = re.compile(r"static_url\('([^']+)'\)")
IMPORT = re.compile(r'from\s+"\./([\w-]+\.js)"')
BLOCK = re.compile(r"{% block (\w+) %}")


def page_assets(template: str) -> set[str]:
    """The JS and CSS files a page loads: the static files its template and base.html name, and
    every module those import, followed through the import graph."""
    base = (TEMPLATES / "base.html").read_text()
    own = (TEMPLATES / template).read_text()
    # A block of base.html that the template replaces loads the template's version instead.
    for block in set(BLOCK.findall(own)):
        base = re.sub(rf"{{% block {block} %}}.*?{{% endblock %}}", "", base, flags=re.DOTALL)
    names = set(STATIC_REF.findall(base))
    names |= set(STATIC_REF.findall(own))
    todo = [n for n in names if n.endswith(".js")]
    while todo:
        for imported in IMPORT.findall((STATIC_DIR / todo.pop()).read_text()):
            name = f"js/{imported}"
            if name not in names:
                names.add(name)
                todo.append(name)
    return names


def test_every_module_is_served_minified() -> None:
    """Each module parses for the minifier: one it refused would be served only stripped, and a
    page's budget would creep up unseen."""
    for path in sorted(STATIC_DIR.rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        out = minify.string("application/javascript", text)  # MinifyError: it could not parse
        assert (served(STATIC_DIR) / path.relative_to(STATIC_DIR)).read_text() == out
        assert len(out) < 0.8 * len(text), path.name


PAGES = ("lobby.html", "game.html", "live.html", "archive.html", "rules/_layout.html", "error.html")


@pytest.mark.parametrize("template", PAGES)
def test_each_pages_own_js_and_css_stay_under_100_kb(template: str) -> None:
    names = page_assets(template)
    # As served: CSS and JS minified (app.static_files).
    total = sum((served(STATIC_DIR) / n).stat().st_size for n in names)
    packed = sum(len(gzip.compress((served(STATIC_DIR) / n).read_bytes(), 6)) for n in names)
    print(f"{template}: js+css {total} bytes, {packed} gzipped, {len(names)} files")
    assert "css/site.css" in names and "js/theme.js" in names
    assert total < 100_000, sorted(names)


def test_the_copy_for_a_proxy_holds_the_served_bytes_under_both_urls(tmp_path) -> None:
    """``python -m app.static_files build DIR``: each served file at ``static/<path>`` (any URL)
    and at ``hashed/<hash>/static/<path>`` (its current ``?v=``); an older hash is kept."""
    stale = tmp_path / "hashed" / "000000000000" / "static" / "js" / "game.js"
    stale.parent.mkdir(parents=True)
    stale.write_text("the last deploy's game.js")
    for _ in range(2):  # a second build over the first changes nothing
        main(["build", str(tmp_path)])
        source = served(STATIC_DIR)
        names = sorted(p.relative_to(source) for p in source.rglob("*") if p.is_file())
        assert names and sum(p.is_file() for p in (tmp_path / "static").rglob("*")) == len(names)
        for name in names:
            data = (source / name).read_bytes()
            assert (tmp_path / "static" / name).read_bytes() == data, name
            hashed = tmp_path / "hashed" / file_hash(source / name) / "static" / name
            assert hashed.read_bytes() == data, name
        assert stale.read_text() == "the last deploy's game.js"
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
