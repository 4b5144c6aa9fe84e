"""What a shared link to a game shows (issue 28): the game page carries Open Graph tags (and
Twitter's card, which reads them) with the game's title, its players, and where it stands or how
it ended; a private game's page is the same 404 to a visitor without its token, tags and all."""

from __future__ import annotations

from html.parser import HTMLParser

import httpx

from tests.app.conftest import ClientFactory
from tests.support.gameplay import MovePicker, start_game


class Meta(HTMLParser):
    """The ``<meta>`` tags of a page: property or name -> content."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "meta":
            found = dict(attrs)
            key = found.get("property") or found.get("name")
            if key and found.get("content") is not None:
                self.tags[key] = str(found["content"])


async def card(client: httpx.AsyncClient, path: str) -> dict[str, str]:
    page = await client.get(path)
    assert page.status_code == 200, page.status_code
    parser = Meta()
    parser.feed(page.text)
    return parser.tags


async def test_a_games_link_card_follows_it_from_waiting_to_its_result(
    clients: ClientFactory,
) -> None:
    ann, bo = await clients("Ann O'Lee"), await clients("Bo")
    made = await start_game(ann, None, "valaturna", {"size": 5})
    path = f"/games/{made['id']}"
    tags = await card(bo, path)
    assert tags["og:title"] == "Valaturna: Ann O'Lee"
    assert 'content="Valaturna: Ann O&#39;Lee"' in (await bo.get(path)).text  # escaped
    assert (
        tags["og:description"] == tags["description"] == ("Ann O'Lee is waiting for an opponent.")
    )
    assert tags["og:url"] == f"http://testserver{path}"
    assert (tags["og:type"], tags["og:site_name"], tags["twitter:card"]) == (
        "website",
        "Hexmoot",
        "summary_large_image",
    )
    # the picture: the position now, as the board draws it (tests/app/test_card_image.py)
    assert tags["og:image"] == f"http://testserver{path}/card.png?ply=0"
    assert (tags["og:image:width"], tags["og:image:height"]) == ("1200", "630")

    joined = await bo.post(f"/api/games/{made['id']}/join", json={"token": made["join_token"]})
    assert joined.status_code == 200, joined.text
    picker = MovePicker("valaturna", {"size": 5}, seed=1)
    played = await ann.post(
        f"/api/games/{made['id']}/moves",
        json={"move": picker.pick(), "version": 2, "msg_id": "first"},
    )
    assert played.status_code == 200, played.text
    tags = await card(bo, path)
    assert tags["og:title"] == "Valaturna: Ann O'Lee vs Bo"
    assert tags["og:description"] == "In play: 1 ply so far."
    assert tags["og:image"] == f"http://testserver{path}/card.png?ply=1"

    resigned = await bo.post(f"/api/games/{made['id']}/resign", json={"msg_id": "resign"})
    assert resigned.status_code == 200, resigned.text
    tags = await card(await clients(), path)  # anyone: the game is public
    assert tags["og:description"] == "Ann O'Lee beat Bo in 1 ply."


async def test_a_private_games_link_shows_nothing_without_its_token(
    clients: ClientFactory,
) -> None:
    ann = await clients("Ann")
    made = (await ann.post("/api/games", json={"game": "exxit", "seat": 1, "public": False})).json()
    stranger = await clients()
    page = await stranger.get(f"/games/{made['id']}")
    assert page.status_code == 404 and "og:" not in page.text and "Ann" not in page.text
    tags = await card(stranger, f"/games/{made['id']}?join={made['join_token']}")
    assert tags["og:description"] == "Ann is waiting for an opponent."
    # the picture's link carries the token: whoever the link reaches may see the game
    assert tags["og:image"] == (
        f"http://testserver/games/{made['id']}/card.png?ply=0&token={made['join_token']}"
    )
