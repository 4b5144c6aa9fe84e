"""A game's card (issue 28): what a shared link to it shows beside its title, a picture of a position.

``page`` is what the card page (``/games/{id}/card``) draws: the game's card words and the view after
one ply, computed by the rules runner as a replay's; ``image`` is that page as a PNG, drawn by the
page's own renderer in a headless browser (:mod:`app.runtime.cards`) and kept per game, ply, moves
up to that ply (a takeback can change the position a ply number names) and theme.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import quote, urlencode

from app.errors import AppError, ErrorCode
from app.runtime.cards import CardRenderer, CardUnavailable
from app.services.core import Core, Visitor
from app.services.reading import REPLAY_MAX_BYTES, GameCard, game_card

Theme = Literal["light", "dark"]


@dataclass(frozen=True)
class CardPage:
    """One position of a game as its card shows it."""

    card: GameCard
    game: str
    ply: int
    plies: int
    #: The view after ``ply`` plies, as JSON text.
    view_json: str
    #: What names the position: the moves up to ``ply``, hashed.
    key: str


class CardService:
    """The card page and its picture."""

    def __init__(self, core: Core) -> None:
        self.core = core
        settings = core.settings
        self.renderer = CardRenderer(
            Path(settings.cards_dir), settings.card_browser or None, settings.card_timeout
        )

    async def page(
        self, game_id: str, visitor: Visitor | None, token: str | None, ply: int | None
    ) -> CardPage:
        """The position after ``ply`` plies (None: the last) of a game the visitor may see
        (``game_not_found`` otherwise); ``invalid_request`` for a ply the game has not reached."""
        core = self.core
        async with core.sessions() as session:
            game = await core.visible(session, game_id, visitor, token)
            position = await core.position(session, game)
        moves = position.moves
        ply = len(moves) if ply is None else ply
        if not 0 <= ply <= len(moves):
            raise AppError(
                ErrorCode.INVALID_REQUEST,
                f"ply must be from 0 to {len(moves)} (the moves played), not {ply}",
                field="ply",
            )
        views = await core.rules.views(position.rules, moves, ply, 1, REPLAY_MAX_BYTES)
        digest = hashlib.sha256("\n".join(moves[:ply]).encode()).hexdigest()[:16]
        return CardPage(
            card=game_card(game),
            game=game.slug,
            ply=ply,
            plies=len(moves),
            view_json=views.views_json[1:-1],  # the one view of the window
            key=digest,
        )

    async def image(
        self,
        game_id: str,
        visitor: Visitor | None,
        token: str | None,
        ply: int | None,
        theme: Theme,
    ) -> bytes:
        """The card page as a PNG, made once per position and theme; ``unavailable`` when no
        picture can be made here (no browser)."""
        page = await self.page(game_id, visitor, token, ply)
        query = {"ply": str(page.ply), "theme": theme, **({"token": token} if token else {})}
        url = f"{self._origin()}/games/{quote(game_id, safe='')}/card?{urlencode(query)}"
        try:
            return await self.renderer.image(f"{game_id}-{page.ply}-{page.key}-{theme}.png", url)
        except CardUnavailable as exc:
            raise AppError(ErrorCode.UNAVAILABLE, f"The picture cannot be made: {exc}") from exc

    def _origin(self) -> str:
        """Where the browser finds this very process: ``CARD_ORIGIN``, else its own address."""
        settings = self.core.settings
        if settings.card_origin:
            return settings.card_origin.rstrip("/")
        host = "127.0.0.1" if settings.host in ("", "0.0.0.0", "::") else settings.host
        return f"http://{f'[{host}]' if ':' in host else host}:{settings.port}"
