"""Static files with a cache policy fit for versioned URLs.

Pages link static files through :func:`app.templating.static_url`, which appends ``?v=`` and a hash
of the file's bytes. A request whose ``v`` is the file's current hash may be cached for a year
(``immutable``: the URL changes when the file does). Any other request (ES modules import each
other by plain path, ``./board.js``, and an old hash names bytes that are no longer there) gets
``no-cache``: the browser keeps it but revalidates with the ETag / Last-Modified that StaticFiles
sends, and an unchanged file costs a 304.

What is served is a copy of ``static/`` made once per process (:func:`served`): CSS minified by
**rcssmin** (a small, long-kept C-accelerated port of the YUI compressor's CSS rules), and each
JavaScript module by **tdewolff-minify**, the Python binding of tdewolff/minify (the minifier Hugo
ships; kept up with the language). It parses each module whole, so template literals nested in
others, regular expressions and automatic semicolons come through as written, and it renames what
is local to a function, never an export. rjsmin, tried first, is a tokenizer that lost the spaces of
a nested template literal (```${n} ${colour}``` became "2white"); a parser does not. A module it
cannot parse is served stripped line by line instead (:func:`strip_js`), never refused. The sources
stay as written; the game page's JS and CSS go from 149 KB as written to 90 KB served.

Behind a reverse proxy the proxy serves the same copy itself: ``python -m app.static_files build
DIR`` writes it for the proxy (:func:`publish`), each file once under its plain path and once under
its hash, so that the proxy can tell a current ``?v=`` from any other without reading the file
(``deploy/nginx.conf``).
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import logging
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path
from urllib.parse import parse_qs

import minify
import rcssmin
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

log = logging.getLogger(__name__)

#: The files pages load, as written (what is served is their processed copy: :func:`served`).
STATIC_DIR = Path(__file__).resolve().parent.parent / "static"

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


def strip_js(text: str) -> str:
    """``text`` without its whole-line comments, blank lines and indentation, outside template
    literals (a line inside one is kept as it is). A file whose backticks do not pair up, or that
    ends inside a comment, is returned unchanged.

    >>> strip_js("// a comment\\n  const a = 1; // kept\\n/**\\n * doc\\n */\\nconst t = `\\n  // text\\n`;\\n")
    'const a = 1; // kept\\nconst t = `\\n  // text\\n`;\\n'
    """
    out: list[str] = []
    ticks = 0
    in_comment = False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if in_comment:
            in_comment = not stripped.endswith("*/")
            continue
        if ticks % 2 == 0:  # outside a template literal
            if not stripped or stripped.startswith("//"):
                continue
            if stripped.startswith("/*"):
                in_comment = not stripped.endswith("*/")
                continue
            line = line.lstrip(" ")
        out.append(line)
        ticks += line.count("`") - line.count("\\`")
    return text if ticks % 2 or in_comment else "".join(out)


def minify_js(text: str) -> str:
    """``text``, an ES module, minified (see the module's docstring), or only stripped of its
    comments and indentation if the minifier refuses it.

    >>> minify_js("const t = (n, c) => `(${n ? `${n} ${c}` : c})`;\\nexport { t };\\n")
    'const t=(e,t)=>`(${e?`${e} ${t}`:t})`;export{t}'
    """
    try:
        out: str = minify.string("application/javascript", text)
    except minify.MinifyError as error:
        log.warning("serving a JavaScript module unminified: %s", error)
        return strip_js(text)
    return out


def build(source: Path, target: Path) -> None:
    """Write ``source``'s files into ``target``, CSS and JS minified (see the module's docstring)."""
    for path in sorted(source.rglob("*")):
        if path.is_dir():
            continue
        out = target / path.relative_to(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".css":
            css: str = rcssmin.cssmin(path.read_text(encoding="utf-8"))
            out.write_text(css, encoding="utf-8")
        elif path.suffix == ".js":
            out.write_text(minify_js(path.read_text(encoding="utf-8")), encoding="utf-8")
        else:
            shutil.copyfile(path, out)


@cache
def served(source: Path) -> Path:
    """The directory served for ``source``: its processed copy (:func:`build`), written once per
    process into a temporary directory removed at exit."""
    target = Path(tempfile.mkdtemp(prefix="hexmoot-static-"))
    atexit.register(shutil.rmtree, target, True)
    build(source, target)
    return target


def publish(source: Path, directory: Path) -> None:
    """Write ``source``'s processed copy into ``directory`` for a reverse proxy to serve
    ``/static/`` from it with this module's cache policy:

    - ``directory/static/<path>``: the file, for any request (:data:`REVALIDATE`);
    - ``directory/hashed/<hash>/static/<path>``: the same bytes, for ``?v=<hash>`` with the
      :func:`file_hash` of those bytes, the URL pages link (:data:`IMMUTABLE`).

    Each file is replaced whole (a proxy serving the directory meanwhile sees the old bytes or the
    new, never a mix), and earlier hashes are kept: a page drawn before a deploy still loads its
    scripts while the processes restart one after another.
    """
    directory.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=directory))
    try:
        build(source, staging)
        for path in sorted(staging.rglob("*")):
            if path.is_dir():
                continue
            name = Path("static") / path.relative_to(staging)
            path.chmod(0o644)  # readable by the proxy's own user
            hashed = directory / "hashed" / file_hash(path) / name
            if not hashed.exists():  # the same hash names the same bytes
                hashed.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, hashed.with_name(f".{hashed.name}.new"))
                os.replace(hashed.with_name(f".{hashed.name}.new"), hashed)
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, directory / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    """``python -m app.static_files build DIR``: :func:`publish` ``static/`` into DIR."""
    parser = argparse.ArgumentParser(prog="python -m app.static_files")
    commands = parser.add_subparsers(dest="command", required=True)
    build_command = commands.add_parser(
        "build", help="write the processed copy of static/ that a reverse proxy serves"
    )
    build_command.add_argument("directory", type=Path)
    args = parser.parse_args(argv)
    publish(STATIC_DIR, args.directory)
    print(f"static files written to {args.directory}")


if __name__ == "__main__":
    main()
