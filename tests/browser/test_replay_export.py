"""A game taken away from its page (issue 28): the move list as text, copied to the clipboard, and
the position the board shows saved as an SVG and as a PNG, both drawn from the board itself in the
page's theme; a reviewed ply saves that ply's position. A player on a phone in the dark theme and a
spectator on a desktop in the light one."""

from __future__ import annotations

import base64
import json
import random
import struct
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import assert_no_serious_axe
from tests.browser.conftest import Guests
from tests.browser.helpers import ApiGame, Screenshots
from tests.support.server import LiveServer

pytestmark = pytest.mark.browser

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Every element the board draws except its click targets and the hint under the pointer.
DRAWN = """() => {
  const all = document.querySelectorAll("#board svg *").length;
  const interactive = document.querySelectorAll(
    "#board svg .hits, #board svg .hits *, #board svg .overlay, #board svg .overlay *").length;
  return all - interactive;
}"""


def saved(page: Page, button: str) -> tuple[str, bytes]:
    """Click ``button`` and return the file it saves: its suggested name and its bytes."""
    with page.expect_download() as download:
        page.click(button)
    return download.value.suggested_filename, Path(download.value.path()).read_bytes()


def rgb(colour: str) -> tuple[int, ...]:
    """``rgb(27, 31, 39)`` as numbers."""
    return tuple(int(part) for part in colour.removeprefix("rgb(").removesuffix(")").split(","))


def png_size_and_corner(data: bytes) -> tuple[int, int, tuple[int, ...]]:
    """A PNG's width, height and top-left pixel (RGBA): the first pixel of the first row is stored
    as it is whatever the row's filter, so no decoder is needed."""
    assert data[:8] == PNG_SIGNATURE
    width, height, depth, colour_type = struct.unpack(">IIBB", data[16:26])
    assert (depth, colour_type) == (8, 6)  # 8-bit RGBA, what a canvas gives
    idat, at = b"", 8
    while at < len(data):
        (length,), kind = struct.unpack(">I", data[at : at + 4]), data[at + 4 : at + 8]
        if kind == b"IDAT":
            idat += data[at + 8 : at + 8 + length]
        at += 12 + length
    pixels = zlib.decompress(idat)
    return width, height, tuple(pixels[1:5])


def check_svg(page: Page, name: str, data: bytes, ply: int) -> tuple[int, ...]:
    """The saved SVG is a document of the position at ``ply``: the board's drawing whole, without
    what only the page needs, on a background; its background colour."""
    assert name.endswith(f"-ply{ply}.svg"), name
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<svg')
    root = ET.fromstring(data)
    assert root.tag == f"{SVG}svg" and float(root.get("width", 0)) > 0
    title, back, *_ = list(root)
    assert title.tag == f"{SVG}title" and back.tag == f"{SVG}rect"
    assert f"{ply} of" in (title.text or "") or f"after {ply} plies" in (title.text or "")
    elements = list(root.iter())[1:]
    assert len(elements) == 2 + page.evaluate(DRAWN)  # the title and the background added
    assert not [e for e in elements if e.get("class") or e.get("tabindex") or e.get("role")]
    # the theme's colours are written on each shape: at least one stone, cell or mark is filled
    fills = {e.get("fill") for e in elements if e is not back}
    assert len(fills - {"none", None, back.get("fill")}) >= 2, fills
    return rgb(back.get("fill", ""))


def test_the_moves_copy_as_text_and_the_position_saves_as_svg_and_png(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    game = ApiGame.create(server, "valaturna", {"size": 5})
    try:
        game.play_random(random.Random(3), 8)
        moves = game.moves
        player = guests.page(width=390, height=844, color_scheme="dark", has_touch=True)
        player.context.add_cookies(game.cookie(1))
        player.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
        player.goto(f"{server.url}/games/{game.id}")
        expect(player.locator("#conn")).to_have_attribute("data-state", "open")
        player.click("#export summary")

        # The text: the opening and the choice on lines of their own, then the numbered moves
        # (written once the snapshot is in, which a busy machine can deliver after "open").
        expect(player.locator("#move-text")).not_to_have_value("")
        text = player.input_value("#move-text")
        lines = text.split("\n")
        assert lines[:2] == [f"Opening: {moves[0]}", f"Choice: takes {moves[1]}"], lines
        numbers, plies = zip(*(line.split(" ", 1) for line in lines[2:]), strict=True)
        assert list(numbers) == [f"{n}." for n in range(1, len(lines) - 1)]
        assert " ".join(plies).split(" ") == moves[2:]
        player.click("#copy-moves")
        expect(player.locator("#export-status")).to_have_text("The moves are copied.")
        assert player.evaluate("navigator.clipboard.readText()") == text
        assert_no_serious_axe(player, "the export panel open (390 px, dark)")
        screenshots.page(player, "export-phone-dark")

        # The position now, as SVG and PNG, in the dark theme.
        name, svg = saved(player, "#save-svg")
        background = check_svg(player, name, svg, len(moves))
        assert sum(background) < 200, background  # the dark theme's background
        name, png = saved(player, "#save-png")
        assert name.endswith(f"-ply{len(moves)}.png")
        screenshots.file(png, "export-saved-dark.png")
        screenshots.file(svg, "export-saved-dark.svg")
        width, height, corner = png_size_and_corner(png)
        assert max(width, height) == 1200
        assert corner[:3] == background and corner[3] == 255

        # A reviewed ply saves that ply's position, and a move played meanwhile changes the text.
        player.keyboard.press("ArrowLeft")
        player.wait_for_function("(p) => window.hexmoot.state.shown === p", arg=len(moves) - 1)
        name, earlier = saved(player, "#save-svg")
        check_svg(player, name, earlier, len(moves) - 1)
        assert earlier != svg
        game.play_random(random.Random(4), 1)
        expect(player.locator("#move-text")).to_have_value(
            " ".join([text, game.moves[-1]])
            if len(game.moves) % 2 == 0
            else text + f"\n{(len(game.moves) - 1) // 2}. {game.moves[-1]}"
        )

        # A spectator on a desktop, in the light theme.
        spectator = guests.page(color_scheme="light")
        spectator.goto(f"{server.url}/games/{game.id}")
        expect(spectator.locator("#conn")).to_have_attribute("data-state", "open")
        spectator.click("#export summary")
        expect(spectator.locator("#move-text")).to_have_value(player.input_value("#move-text"))
        name, light = saved(spectator, "#save-svg")
        assert sum(check_svg(spectator, name, light, len(game.moves))) > 600  # light
        screenshots.file(light, "export-saved-light.svg")
        name, light_png = saved(spectator, "#save-png")
        screenshots.file(light_png, "export-saved-light.png")
        assert png_size_and_corner(light_png)[2][:3] == rgb(ET.fromstring(light)[1].get("fill", ""))
        assert_no_serious_axe(spectator, "the export panel open (1280 px, light)")
        screenshots.page(spectator, "export-desktop-light")

        # Once the game is over, its record in Abstract Play's format is one click away.
        expect(spectator.locator("#save-abstractplay")).to_be_hidden()
        resigned = game.clients[1].post(f"/api/games/{game.id}/resign", json={"msg_id": "r"})
        assert resigned.status_code == 200, resigned.text
        expect(spectator.locator("#save-abstractplay")).to_be_visible()
        expect(player.locator("#save-abstractplay")).to_be_visible()
        name, data = saved(spectator, "#save-abstractplay")
        assert name == f"hexmoot-{game.id}.abstractplay.json"
        record = json.loads(data)
        assert record["header"]["game"] == {"name": "Valaturna", "variants": ["size-5"]}
        assert [p["result"] for p in record["header"]["players"]] == (
            [1, 0] if record["header"]["pied"] else [0, 1]
        )
        flat = [text for row in record["moves"] for text in row if text is not None]
        assert flat == game.moves
        screenshots.page(spectator, "export-finished-desktop-light")
    finally:
        game.close()


def webp_frames(data: bytes) -> tuple[int, int, int, list[tuple[int, bytes]]]:
    """An animated WebP's container, read by the specification: its VP8X flags and canvas size,
    and each ANMF frame's duration and image chunks."""
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    assert struct.unpack("<I", data[4:8])[0] == len(data) - 8
    chunks, at = [], 12
    while at < len(data):
        kind, (size,) = data[at : at + 4], struct.unpack("<I", data[at + 4 : at + 8])
        chunks.append((kind, data[at + 8 : at + 8 + size]))
        at += 8 + size + (size & 1)
    assert at == len(data)
    (vp8x_kind, vp8x), (anim_kind, anim), *frames = chunks
    assert (vp8x_kind, anim_kind) == (b"VP8X", b"ANIM")
    width = int.from_bytes(vp8x[4:7], "little") + 1
    height = int.from_bytes(vp8x[7:10], "little") + 1
    assert anim[4:6] == b"\0\0"  # loops forever
    out = []
    for kind, body in frames:
        assert kind == b"ANMF"
        assert int.from_bytes(body[6:9], "little") + 1 == width  # each frame is the whole canvas
        assert int.from_bytes(body[9:12], "little") + 1 == height
        assert image_size(body[16:]) == (width, height)
        out.append((int.from_bytes(body[12:15], "little"), body[16:]))
    return vp8x[0], width, height, out


def image_size(chunks: bytes) -> tuple[int, int]:
    """The size the bitstream of a frame's image chunk says (VP8: its key frame header; VP8L: the
    14-bit sizes after its signature), past an ALPH chunk if any."""
    if chunks[:4] == b"ALPH":
        size = int.from_bytes(chunks[4:8], "little")
        chunks = chunks[8 + size + (size & 1) :]
    kind, payload = chunks[:4], chunks[8:]
    if kind == b"VP8 ":
        assert payload[3:6] == b"\x9d\x01\x2a"  # a key frame's start code
        w, h = struct.unpack("<HH", payload[6:10])
        return w & 0x3FFF, h & 0x3FFF
    assert kind == b"VP8L" and payload[0] == 0x2F
    bits = int.from_bytes(payload[1:5], "little")
    return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1


DECODE = """async (b64) => {
  const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const decoder = new ImageDecoder({ data, type: "image/webp" });
  await decoder.tracks.ready;
  const track = decoder.tracks.selectedTrack;
  await decoder.completed;
  const sizes = [];
  for (let i = 0; i < track.frameCount; i++) {
    const { image } = await decoder.decode({ frameIndex: i });
    sizes.push([image.displayWidth, image.displayHeight, image.duration]);
    image.close();
  }
  return { animated: track.animated, frames: track.frameCount, repetitions: track.repetitionCount, sizes };
}"""


def test_the_whole_game_saves_as_an_animated_webp(
    server: LiveServer, guests: Guests, screenshots: Screenshots
) -> None:
    """One frame per position, from the start to the last move, drawn by the page's own board in
    the page's theme; the file is a valid animated WebP that Chromium's own decoder plays."""
    game = ApiGame.create(server, "exxit", {})
    try:
        game.play_random(random.Random(5), 5)
        page = guests.page(color_scheme="dark")
        page.goto(f"{server.url}/games/{game.id}")
        expect(page.locator("#conn")).to_have_attribute("data-state", "open")
        page.click("#export summary")
        with page.expect_download() as download:
            page.click("#save-webp")
        data = Path(download.value.path()).read_bytes()
        assert download.value.suggested_filename == f"hexmoot-exxit-{game.id}.webp"
        expect(page.locator("#export-status")).to_have_text(f"Saved hexmoot-exxit-{game.id}.webp.")
        assert page.locator(".board-offscreen").count() == 0  # the frames' board is gone
        flags, width, height, frames = webp_frames(data)
        assert flags & 0x02  # animated
        assert max(width, height) == 640
        assert len(frames) == len(game.moves) + 1
        assert [d for d, _ in frames] == [800] * len(game.moves) + [3000]
        assert len({image for _, image in frames}) == len(frames)  # every position differs
        decoded = page.evaluate(DECODE, base64.b64encode(data).decode())
        assert decoded["animated"] and decoded["frames"] == len(frames), decoded
        assert decoded["repetitions"] == float("inf"), decoded
        assert [s[:2] for s in decoded["sizes"]] == [[width, height]] * len(frames)
        screenshots.file(data, "export-animation-dark.webp")
    finally:
        game.close()
