"""Static files with a cache policy fit for versioned URLs.

Pages link static files through :func:`app.templating.static_url`, which appends ``?v=`` and a hash
of the file's bytes. A request whose ``v`` is the file's current hash may be cached for a year
(``immutable``: the URL changes when the file does). Any other request (ES modules import each
other by plain path, ``./board.js``, and an old hash names bytes that are no longer there) gets
``no-cache``: the browser keeps it but revalidates with the ETag / Last-Modified that StaticFiles
sends, and an unchanged file costs a 304.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path
from urllib.parse import parse_qs

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


@cache
def file_hash(path: Path) -> str:
    """The first 12 hex digits of the SHA-256 of ``path``'s bytes, read once per process (a
    deploy restarts the processes)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


class VersionedStaticFiles(StaticFiles):
    """StaticFiles whose answers carry :data:`IMMUTABLE` for a current ``?v=`` and
    :data:`REVALIDATE` otherwise."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        current = "v" in query and query["v"] == [file_hash(Path(full_path))]
        response.headers["cache-control"] = IMMUTABLE if current else REVALIDATE
        return response
