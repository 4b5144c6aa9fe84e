"""Monthly dumps of the archive (issue 28): every finished public game of one game and one month,
as gzipped JSON lines, for whoever wants the whole archive without asking the API game by game.

``DUMPS_DIR`` holds, for each game and each month that has finished public games:

- ``hexmoot_<game>_<YYYY-MM>.jsonl.gz``: one line per game, oldest first, in the shape of
  ``GET /api/archive/export``'s lines (``{"id", "finished_at", "record"}``, the record as
  ``record.json`` gives it, which imports as it is);
- ``sha256sums.txt``: each file's SHA-256, in ``sha256sum``'s format (``sha256sum -c`` checks
  them);
- ``index.json``: each file's game, month, number of games, size and hash, which the download page
  (``/dumps``) lists.

Only months that are over are dumped (a month's file never changes once written, unless a game of
it comes to light later: an import's ``finished_at`` is its import, so that happens only to a
game finished at a month's very end and committed after it). A month is built again when its count
of games in the database differs from its file's. The builder is one process at a time, the holder
of the ``dumps`` lease (taken with each run, as the sweep's), every ``DUMPS_EVERY`` seconds. It
reads a page of ``PAGE`` games at a time, each page in a transaction of its own, and compresses in
a thread: memory stays bounded whatever a month holds, and the event loop keeps serving. A file is
written beside the directory and renamed into it once whole, so a reader never sees half a dump;
the directory is served as it is, at ``/dumps/files/``.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import logging
import os
import secrets
from calendar import monthrange
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from app.models import Game
from app.repository import archive as archived
from app.repository.writes import TakeLease
from app.runtime.hub import encode
from app.services.core import Core
from app.services.reading import export_line

log = logging.getLogger("hexmoot")

LEASE = "dumps"
#: How long a run holds the lease: the builds of two processes do not overlap unless one takes
#: longer than this, and another takes over at its next run if the holder died.
LEASE_MS = 3_600_000
#: Games read (and compressed) at a time.
PAGE = 500


@dataclass(frozen=True)
class Dump:
    """A dump file as the index lists it."""

    file: str
    game: str
    month: str
    games: int
    bytes: int
    sha256: str


def month_bounds(year: int, month: int) -> tuple[int, int]:
    """The first millisecond of a month (UTC) and the first of the next."""
    start = datetime(year, month, 1, tzinfo=UTC)
    days = monthrange(year, month)[1]
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    assert (end - start).days == days
    return int(start.timestamp() * 1000), int(end.timestamp() * 1000)


def months_between(first_ms: int, before_ms: int) -> list[tuple[int, int]]:
    """The (year, month) of every month from the one holding ``first_ms`` to the last one over
    before ``before_ms`` (the month holding it is not over).

    >>> months_between(1764547200000, 1772323200000)  # 2025-12-01 .. 2026-03-01
    [(2025, 12), (2026, 1), (2026, 2)]
    """
    first = datetime.fromtimestamp(first_ms / 1000, UTC)
    now = datetime.fromtimestamp(before_ms / 1000, UTC)
    year, month, out = first.year, first.month, []
    while (year, month) < (now.year, now.month):
        out.append((year, month))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


class DumpService:
    """Builds the monthly dumps into ``DUMPS_DIR`` (see the module's docstring)."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.owner = secrets.token_hex(8)

    @property
    def directory(self) -> Path:
        return Path(self.core.settings.dumps_dir)

    def index(self) -> list[Dump]:
        """The dumps built so far, by game then month (empty before the first)."""
        try:
            raw = json.loads((self.directory / "index.json").read_text())
        except (OSError, ValueError):
            return []
        return [Dump(**entry) for entry in raw.get("dumps", [])]

    async def build_due(self) -> list[Dump] | None:
        """Build what is due, if this process holds the ``dumps`` lease (taken or renewed here);
        the dumps written, or None when another process builds."""
        now = self.core.clock.now()
        if not await self.core.writer.write(TakeLease(LEASE, self.owner, now, LEASE_MS)):
            return None
        return await self.build(now)

    async def build(self, now: int) -> list[Dump]:
        """Dump every month over before ``now`` whose file is missing or holds another number of
        games than the database; the dumps written."""
        self.directory.mkdir(parents=True, exist_ok=True)
        kept = {(d.game, d.month): d for d in self.index()}
        written = []
        for slug, year, month, count in await self._months(now):
            key = (slug, f"{year:04d}-{month:02d}")
            if key in kept and kept[key].games == count:
                continue
            kept[key] = await self._dump(slug, year, month)
            written.append(kept[key])
        if written or not (self.directory / "index.json").exists():
            await asyncio.to_thread(self._write_index, sorted(kept.values(), key=_order), now)
        return written

    async def _months(self, now: int) -> list[tuple[str, int, int, int]]:
        """(game, year, month, finished public games) of every month over with any."""
        public = (Game.status == "finished", Game.public.is_(True))
        async with self.core.sessions() as session:
            slugs = (
                await session.execute(
                    select(Game.slug, func.min(Game.finished_at)).where(*public).group_by(Game.slug)
                )
            ).all()
            out = []
            for slug, first in sorted(slugs):
                for year, month in months_between(first or now, now):
                    start, end = month_bounds(year, month)
                    count = await session.scalar(
                        select(func.count())
                        .select_from(Game)
                        .where(
                            *public,
                            Game.slug == slug,
                            Game.finished_at >= start,
                            Game.finished_at < end,
                        )
                    )
                    if count:
                        out.append((slug, year, month, int(count)))
        return out

    async def _dump(self, slug: str, year: int, month: int) -> Dump:
        """Write one month's file (under a temporary name, renamed once whole)."""
        start, end = month_bounds(year, month)
        name = f"hexmoot_{slug}_{year:04d}-{month:02d}.jsonl.gz"
        path = self.directory / name
        partial = self._partial(name)
        filters = archived.ArchiveFilter(game=slug, start=start, end=end, sort="oldest")
        after: archived.Cursor | None = None
        games = 0
        with partial.open("wb") as raw, gzip.GzipFile(name, "wb", 9, raw, mtime=0) as out:
            while True:
                async with self.core.sessions() as session:
                    rows = list(await archived.archive_page(session, filters, after, PAGE))
                    plies = await archived.plies_of(session, [g.id for g in rows])
                lines = [
                    encode(export_line(self.core.rules.rules(g.slug, g.options), g, plies[g.id]))
                    + "\n"
                    for g in rows
                ]
                await asyncio.to_thread(_write, out, "".join(lines))
                games += len(rows)
                if len(rows) < PAGE:
                    break
                after = archived.cursor_of(rows[-1], "oldest")
        digest, size = await asyncio.to_thread(_finish, partial, path)
        log.info("dumped %s: %d games, %d bytes", name, games, size)
        return Dump(name, slug, f"{year:04d}-{month:02d}", games, size, digest)

    def _partial(self, name: str) -> Path:
        """Where ``name`` is written before it is whole: beside the served directory (the same
        file system, for the rename), never in it."""
        building = self.directory.with_name(f".{self.directory.name}.building")
        building.mkdir(parents=True, exist_ok=True)
        return building / name

    def _write_index(self, dumps: list[Dump], now: int) -> None:
        """Write ``sha256sums.txt`` and ``index.json`` (each renamed into place once whole)."""
        sums = "".join(f"{d.sha256}  {d.file}\n" for d in dumps)
        index = {"generated_at": now, "dumps": [d.__dict__ for d in dumps]}
        for name, text in (("sha256sums.txt", sums), ("index.json", json.dumps(index, indent=1))):
            partial = self._partial(name)
            partial.write_text(text)
            os.replace(partial, self.directory / name)


def _order(dump: Dump) -> tuple[str, str]:
    return dump.game, dump.month


def _write(out: gzip.GzipFile, text: str) -> None:
    out.write(text.encode())


def _finish(partial: Path, path: Path) -> tuple[str, int]:
    """Flush ``partial`` to disk, rename it to ``path``; its SHA-256 and size."""
    digest = hashlib.sha256()
    with partial.open("rb") as done:
        for block in iter(lambda: done.read(1 << 20), b""):
            digest.update(block)
        os.fsync(done.fileno())
    os.replace(partial, path)
    return digest.hexdigest(), path.stat().st_size


def dumps_json(dumps: list[Dump]) -> list[dict[str, Any]]:
    """The index's entries as the download page shows them."""
    return [d.__dict__ for d in dumps]
