"""The picture a shared link shows (issue 28, og:image): the game's card page, the board drawn by
the page's own renderer, saved by a real headless Chromium that the server starts; made once per
position and theme and then read from CARDS_DIR; for a private game, only with its token."""

from __future__ import annotations

import struct
import zlib
from html.parser import HTMLParser
from pathlib import Path

import httpx

from tests.support.gameplay import MovePicker
from tests.support.server import live_server

LIGHT_BG, DARK_BG = (0xFA, 0xF7, 0xF0), (0x1B, 0x1F, 0x27)  # static/css/site.css's --bg


def pixels(data: bytes) -> tuple[int, int, list[list[tuple[int, ...]]]]:
    """A PNG (8-bit RGB or RGBA, not interlaced) decoded: width, height, rows of RGB pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, kind, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
    assert depth == 8 and kind in (2, 6) and interlace == 0
    size = 3 if kind == 2 else 4
    idat, at = b"", 8
    while at < len(data):
        (length,), chunk = struct.unpack(">I", data[at : at + 4]), data[at + 4 : at + 8]
        if chunk == b"IDAT":
            idat += data[at + 8 : at + 8 + length]
        at += 12 + length
    raw, stride = zlib.decompress(idat), width * size
    rows: list[bytearray] = []
    for y in range(height):
        kind_of_filter = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        up = rows[-1] if rows else bytearray(stride)
        for x in range(stride):
            a = line[x - size] if x >= size else 0
            b, c = up[x], (up[x - size] if x >= size else 0)
            if kind_of_filter == 1:
                line[x] = (line[x] + a) & 0xFF
            elif kind_of_filter == 2:
                line[x] = (line[x] + b) & 0xFF
            elif kind_of_filter == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif kind_of_filter == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(line)
    return width, height, [[tuple(r[i : i + 3]) for i in range(0, stride, size)] for r in rows]


class OgImage(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.image = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "meta" and found.get("property") == "og:image":
            self.image = found.get("content") or ""


async def og_image(client: httpx.AsyncClient, path: str) -> str:
    page = await client.get(path)
    assert page.status_code == 200, page.text
    parser = OgImage()
    parser.feed(page.text)
    return parser.image


async def test_a_link_shows_the_position_drawn_by_the_board(
    database_url: str, tmp_path: Path
) -> None:
    cards = tmp_path / "cards"
    with live_server(database_url, {"CARDS_DIR": str(cards)}) as server:
        async with (
            httpx.AsyncClient(base_url=server.url, timeout=60) as ann,
            httpx.AsyncClient(base_url=server.url, timeout=60) as bo,
        ):
            made = (await ann.post("/api/games", json={"game": "sgolte", "seat": 1})).json()
            joined = await bo.post(
                f"/api/games/{made['id']}/join", json={"token": made["join_token"]}
            )
            assert joined.status_code == 200, joined.text
            picker, players = MovePicker("sgolte", {}, seed=4), {1: ann, 2: bo}
            for version in range(2, 8):
                seat = picker.rules.to_move(picker.state)
                assert seat is not None
                move = picker.pick()
                answer = await players[seat].post(
                    f"/api/games/{made['id']}/moves",
                    json={"move": move, "version": version, "msg_id": f"m{version}"},
                )
                assert answer.status_code == 200, answer.text
                picker.play(move)

            link = await og_image(bo, f"/games/{made['id']}")
            assert link == f"{server.url}/games/{made['id']}/card.png?ply=6"
            light = await bo.get(link)
            assert light.status_code == 200, light.text
            assert light.headers["content-type"] == "image/png"
            width, height, rows = pixels(light.content)
            assert (width, height) == (1200, 630)
            assert rows[0][0] == LIGHT_BG and rows[-1][-1] == LIGHT_BG
            # the board, on the left: the cells, the stones and their edges in many colours
            board = {pixel for row in rows[15:615:5] for pixel in row[24:624:5]}
            assert len(board) > 20, len(board)
            # made once: kept, and the same bytes again
            kept = list(cards.glob(f"{made['id']}-6-*-light.png"))
            assert len(kept) == 1 and kept[0].read_bytes() == light.content
            assert (await ann.get(link)).content == light.content

            dark = await bo.get(f"{link}&theme=dark")
            assert dark.status_code == 200
            assert pixels(dark.content)[2][0][0] == DARK_BG
            earlier = await bo.get(f"/games/{made['id']}/card.png?ply=2")
            assert earlier.status_code == 200 and earlier.content != light.content

            # what cannot be drawn: a ply the game has not reached, a game that does not exist
            beyond = await bo.get(f"/games/{made['id']}/card.png?ply=7")
            assert beyond.status_code == 422
            assert beyond.json()["error"]["code"] == "invalid_request"
            assert beyond.json()["error"]["field"] == "ply"
            for bad in ("ply=-1", "ply=x", "theme=pink"):
                refused = await bo.get(f"/games/{made['id']}/card.png?{bad}")
                assert refused.status_code == 422, (bad, refused.text)
            missing = await bo.get("/games/nosuchgame/card.png")
            assert missing.status_code == 404
            assert missing.json()["error"]["code"] == "game_not_found"
            assert len(list(cards.iterdir())) == 3  # nothing kept for what was refused


async def test_a_private_games_picture_needs_its_token(database_url: str, tmp_path: Path) -> None:
    with live_server(database_url, {"CARDS_DIR": str(tmp_path)}) as server:
        async with (
            httpx.AsyncClient(base_url=server.url, timeout=60) as ann,
            httpx.AsyncClient(base_url=server.url, timeout=60) as stranger,
        ):
            body = {"game": "exxit", "seat": 1, "public": False}
            made = (await ann.post("/api/games", json=body)).json()
            hidden = await stranger.get(f"/games/{made['id']}/card.png")
            assert hidden.status_code == 404
            link = await og_image(stranger, f"/games/{made['id']}?join={made['join_token']}")
            assert link.endswith(f"card.png?ply=0&token={made['join_token']}")
            shown = await stranger.get(link)
            assert shown.status_code == 200, shown.text
            assert pixels(shown.content)[:2] == (1200, 630)
