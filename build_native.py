"""Compile the rules modules that pay with mypyc into build/mypyc (``make install`` runs this).

``python build_native.py`` compiles :data:`COMPILED` (the same sources the pure build runs, unchanged)
into ``build/mypyc/``, with a manifest that ``games/native.py`` checks at import: the compiled
modules are loaded only while every source the compiler read is unchanged. It does nothing when the
build is current, so every ``make`` may run it.

Where compiling is impossible (no mypy, no C compiler, no Python headers) it says so in one line
and exits 0: the pure build runs, as it always can. A module that mypyc refuses is an error with
``--strict`` (``make test``: both builds must stay green), else one line too. ``--pure`` removes
the compiled build; ``--status`` prints which build the checkout has (``compiled`` or ``pure``).

``--compare ROUNDS [--cpu] [GAME ...]`` measures what the compiled build pays: ``python -m games
bench`` run pure and compiled in turn, ROUNDS times each, and the medians side by side (how
:data:`COMPILED` was chosen).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

# games/native.py, the loader's side of the manifest, read as a file: importing the games package
# would import the modules this compiles (and fail on a source that does not import)
_spec = importlib.util.spec_from_file_location("_native", Path(__file__).parent / "games/native.py")
assert _spec is not None and _spec.loader is not None
native = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(native)
BUILD_DIR: Path = native.BUILD_DIR
MANIFEST: str = native.MANIFEST
ROOT: Path = native.ROOT
SUFFIX: str = native.SUFFIX
source_hash: Callable[[Path], str] = native.source_hash

#: The modules compiled, chosen by measurement (``python -m games bench``, pure against compiled;
#: see the commit that set this list): each game's engine and what the engines share.
COMPILED: tuple[str, ...] = (
    "games/base.py",
    "games/bitboard.py",
    "games/errors.py",
    "games/harmijan/notation.py",
    "games/harmijan/rules.py",
    "games/harmijan/shapes.py",
    "games/harmijan/state.py",
    "games/harmijan/steps.py",
    "games/harmijan/turns.py",
    "games/hexgrid.py",
    "games/jotun/notation.py",
    "games/jotun/rules.py",
    "games/jotun/search.py",
    "games/jotun/state.py",
    "games/jotun/steps.py",
    "games/pie.py",
    "games/seats.py",
    "games/sgolte/capture.py",
    "games/sgolte/geometry.py",
    "games/sgolte/notation.py",
    "games/sgolte/replace.py",
    "games/sgolte/rules.py",
    "games/sgolte/search.py",
    "games/sgolte/state.py",
    "games/sgolte/steps.py",
    "games/valaturna.py",
)
#: The shared library holding every compiled module (a top-level module of that name + __mypyc).
GROUP = "hexmoot_games"
#: mypyc's options: its default optimisation (-O3), and no debugging symbols (-g0: nothing reads
#: them, and the code is the same). A change to them or to COMPILED compiles again.
OPTIONS: dict[str, str] = {"opt_level": "3", "debug_level": "0"}
LOG = BUILD_DIR.parent / "mypyc.log"


def module_name(path: str) -> str:
    """``games/jotun/rules.py`` -> ``games.jotun.rules`` (a package's ``__init__`` is the package)."""
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _source_of(module: str) -> str | None:
    """The source file of a module of this checkout, or None (another package's, or a name)."""
    base = ROOT / module.replace(".", "/")
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.relative_to(ROOT).as_posix()
    return None


def sources_read(paths: tuple[str, ...]) -> list[str]:
    """Every source of this checkout that compiling ``paths`` depends on: them, the modules they
    import (transitively), and the packages of all those. A change to any of them makes the build
    stale. A package's ``__init__`` is hashed, but its own imports are followed only when a module
    imports from it by name: ``games/__init__.py`` imports every game, and a game that is not
    compiled, nor imported by one that is, changes nothing the compiled modules were built on."""
    seen: set[str] = set()
    followed: set[str] = set()
    todo = [(path, True) for path in paths]
    while todo:
        path, follow = todo.pop()
        seen.add(path)
        if not follow or path in followed:
            continue
        followed.add(path)
        module = module_name(path)
        parts = module.split(".")
        package = parts if path.endswith("__init__.py") else parts[:-1]
        parents = [".".join(package[:i]) for i in range(1, len(package) + 1)]
        names: list[str] = []
        for node in ast.walk(ast.parse((ROOT / path).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                anchor = package[: len(package) - node.level + 1] if node.level else []
                if node.module:  # from .x import a: the module x, or its submodule a
                    base = ".".join([*anchor, node.module])
                    names += [base, *(f"{base}.{alias.name}" for alias in node.names)]
                else:  # from . import a: the submodule a of a package only passed through
                    base = ".".join(anchor)
                    parents.append(base)
                    names += [f"{base}.{alias.name}" for alias in node.names]
        for name, follow_it in [(p, False) for p in parents] + [(n, True) for n in names]:
            source = _source_of(name)
            if source is not None:
                todo.append((source, follow_it))
    return sorted(seen)


def wanted_manifest(paths: tuple[str, ...]) -> dict[str, object]:
    """The manifest a current build of ``paths`` has (without its modules' files)."""
    import mypy.version

    return {
        "suffix": SUFFIX,
        "mypy": mypy.version.__version__,
        "options": OPTIONS | {"group_name": GROUP},
        "compiled": list(paths),
        "sources": {name: source_hash(ROOT / name) for name in sources_read(paths)},
    }


def current(wanted: dict[str, object]) -> bool:
    """Whether build/mypyc already holds the build ``wanted`` describes."""
    try:
        have = json.loads((BUILD_DIR / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return all(have.get(key) == value for key, value in wanted.items())


def missing_tools() -> str | None:
    """What this machine lacks to compile (mypy, a C compiler, Python's headers), or None."""
    try:
        import mypyc.build  # noqa: F401
        import setuptools  # noqa: F401  (mypyc builds through its build_ext)
    except ImportError as exc:
        return f"no {exc.name} to compile with"
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").is_file():
        return f"no Python headers ({include}/Python.h)"
    return None


def compile_into(out: Path, paths: tuple[str, ...]) -> dict[str, str]:
    """Compile ``paths`` into ``out``; each module's extension file relative to it."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    temp = BUILD_DIR.parent / "mypyc-temp"
    shutil.rmtree(temp, ignore_errors=True)
    extensions = mypycify(
        list(paths),
        target_dir=str(temp / "c"),
        group_name=GROUP,
        opt_level=OPTIONS["opt_level"],
        debug_level=OPTIONS["debug_level"],
    )
    # build_ext alone, without setup(): that would read pyproject.toml as this project's build
    dist = Distribution({"name": "hexmoot-native", "ext_modules": extensions})
    command = dist.get_command_obj("build_ext")
    command.build_lib = str(out)
    command.build_temp = str(temp)
    command.parallel = os.cpu_count() or 1
    dist.run_command("build_ext")
    shutil.rmtree(temp, ignore_errors=True)
    files = {p.relative_to(out).as_posix() for p in out.rglob("*" + SUFFIX)}
    modules = {module_name(path): path.removesuffix(".py") + SUFFIX for path in paths}
    modules[f"{GROUP}__mypyc"] = f"{GROUP}__mypyc{SUFFIX}"
    absent = set(modules.values()) - files
    if absent:
        raise RuntimeError(f"mypyc made no {', '.join(sorted(absent))}")
    return modules


def build(strict: bool) -> int:
    """Compile unless current; the exit code (0 unless ``strict`` and mypyc refused a module)."""
    # the hashes are taken before compiling: a file edited meanwhile makes the build stale
    try:
        wanted = wanted_manifest(COMPILED)
    except ImportError as exc:
        print(f"games: not compiled (no {exc.name} to compile with), the rules run as pure Python")
        return 0
    if current(wanted):
        return 0
    lacking = missing_tools()
    if lacking:  # a stale build stays, unused (games/native.py checks the hashes)
        print(f"games: not compiled ({lacking}), the rules run as pure Python")
        return 0
    print(f"games: compiling {len(COMPILED)} rules modules with mypyc (log: {LOG})", flush=True)
    started = time.monotonic()
    fresh = BUILD_DIR.with_name("mypyc-new")
    shutil.rmtree(fresh, ignore_errors=True)
    LOG.parent.mkdir(parents=True, exist_ok=True)
    log = io.StringIO()
    try:
        with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            modules = compile_into(fresh, COMPILED)
    except (Exception, SystemExit) as exc:
        LOG.write_text(f"{log.getvalue()}\n{exc!r}\n", encoding="utf-8")
        shutil.rmtree(fresh, ignore_errors=True)
        shutil.rmtree(BUILD_DIR, ignore_errors=True)
        tail = [line for line in log.getvalue().splitlines() if "error" in line][:20]
        print("\n".join(tail), file=sys.stderr)
        print(
            f"games: mypyc failed ({exc!r}; {LOG}), the rules run as pure Python", file=sys.stderr
        )
        return 1 if strict else 0
    LOG.write_text(log.getvalue(), encoding="utf-8")
    (fresh / MANIFEST).write_text(json.dumps(wanted | {"modules": modules}, indent=1) + "\n")
    shutil.rmtree(BUILD_DIR, ignore_errors=True)
    fresh.rename(BUILD_DIR)
    print(f"games: compiled in {time.monotonic() - started:.0f} s into {BUILD_DIR}")
    return 0


def status() -> str:
    """``compiled`` when build/mypyc holds a build of the current sources, else ``pure``."""
    try:
        return "compiled" if current(wanted_manifest(COMPILED)) else "pure"
    except ImportError:  # no mypy: nothing was compiled with this one
        return "pure"


#: One game's line of ``python -m games bench``: legal_moves' median, playouts/s, fast playouts/s.
BENCH_LINE = re.compile(
    r"(?P<game>\w+) +legal_moves median +(?P<legal>[\d.]+) ms.*\| +(?P<playouts>[\d.]+) "
    r"playouts/s \| fast +(?P<fast>[\d.]+) playouts/s"
)
#: ``python -m games bench`` timed by the processor time of its process, not the wall clock.
CPU_BENCH = (
    "import sys, time; time.perf_counter = time.process_time; "
    "from games.__main__ import main; sys.exit(main(sys.argv[1:]))"
)


def compare(rounds: int, names: list[str], cpu: bool) -> int:
    """Print ``python -m games bench``'s figures, pure against compiled: the medians of ``rounds``
    runs of each, alternated so that both see the same machine (a shared one is never idle).
    With ``cpu``, each run's timings are its processor time, which other work on the machine
    barely changes (the wall clock counts the time other processes hold the cores)."""
    if status() != "compiled":
        print("no current compiled build to compare (make install)", file=sys.stderr)
        return 1
    command = [sys.executable, *(["-c", CPU_BENCH] if cpu else ["-m", "games"]), "bench", *names]
    runs: dict[tuple[str, str], list[dict[str, float]]] = {}
    for _ in range(rounds):
        for build in ("pure", "compiled"):
            env = {**os.environ, "HEXMOOT_PURE": "1" if build == "pure" else "0"}
            out = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
            for match in BENCH_LINE.finditer(out.stdout):
                figures = {k: float(v) for k, v in match.groupdict().items() if k != "game"}
                runs.setdefault((match["game"], build), []).append(figures)
    clock = "processor time" if cpu else "wall clock"
    print(f"medians of {rounds} runs each, {clock}; compiled/pure for rates, pure/compiled for ms")
    print(f"{'game':10} | {'playouts/s':>25} | {'fast playouts/s':>25} | {'legal_moves ms':>25}")
    for game in sorted({game for game, _ in runs}):
        pure, compiled = runs[(game, "pure")], runs[(game, "compiled")]
        cells = []
        for key in ("playouts", "fast", "legal"):
            p = statistics.median(run[key] for run in pure)
            c = statistics.median(run[key] for run in compiled)
            ratio = f"{(p / c if key == 'legal' else c / p):5.2f}x" if min(p, c) > 0 else "    -"
            cells.append(f"{p:9.4g} {c:9.4g} {ratio}")
        print(f"{game:10} | " + " | ".join(cells))
    return 0


def main() -> int:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strict", action="store_true", help="fail if mypyc refuses a module")
    parser.add_argument("--pure", action="store_true", help="remove the compiled build")
    parser.add_argument("--status", action="store_true", help="print compiled or pure")
    parser.add_argument(
        "--compare",
        type=int,
        metavar="ROUNDS",
        help="python -m games bench, pure against compiled, ROUNDS runs each (medians)",
    )
    parser.add_argument("--cpu", action="store_true", help="with --compare: processor time")
    parser.add_argument("games", nargs="*", help="with --compare: the games (default: all)")
    args = parser.parse_args()
    if args.compare:
        return compare(args.compare, args.games, args.cpu)
    if args.pure:
        shutil.rmtree(BUILD_DIR, ignore_errors=True)
        return 0
    if args.status:
        print(status())
        return 0
    return build(args.strict)


if __name__ == "__main__":
    sys.exit(main())
