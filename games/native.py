"""Which build of the rules runs: the modules compiled with mypyc, or the pure Python sources.

``make install`` (under ``make run`` and ``make test``) compiles the rules modules that pay with
mypyc (``build_native.py``) into ``build/mypyc/`` beside this package, never next to the sources,
and writes there a manifest: each compiled module's extension file, and the SHA-256 of every source
the compiler read. ``games/__init__.py`` imports this module first; it puts the compiled modules
ahead of the sources only if

- ``HEXMOOT_PURE`` is not set (``HEXMOOT_PURE=1`` selects the pure build, as the tests do), and
- the manifest is for this Python (its extension suffix) and every source it lists is unchanged.

An edited source therefore never runs as its stale compiled build: the whole build steps aside (the
modules were compiled together, each knowing the others' types) until ``make install`` or
``python build_native.py`` compiles it again. Either way the same sources are the one truth: the
compiled build is those files, unchanged, through mypyc.

This is the package's one reading of files, its own, at import; the rules themselves do no IO.
:data:`BUILD` says which build is loaded and :data:`REASON` why.
"""

from __future__ import annotations

import copyreg
import dataclasses
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

#: The checkout this package is in, where ``build/mypyc`` is made.
ROOT = Path(__file__).resolve().parent.parent
#: Where the compiled build lives, and its manifest.
BUILD_DIR = ROOT / "build" / "mypyc"
MANIFEST = "manifest.json"
#: The extension suffix of this interpreter (``.cpython-311-x86_64-linux-gnu.so``).
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def source_hash(path: Path) -> str:
    """The SHA-256 of a source file, as the manifest records it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def is_pure_forced(environ: Mapping[str, str]) -> bool:
    """Whether ``HEXMOOT_PURE`` asks for the pure build (any value but empty or ``0``)."""
    return environ.get("HEXMOOT_PURE", "") not in ("", "0")


def check(build_dir: Path, root: Path) -> tuple[dict[str, Path], str]:
    """The compiled build's extension file by module name, or ``{}`` and why it cannot be used."""
    try:
        manifest = json.loads((build_dir / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, f"no compiled build in {build_dir}"
    except (OSError, ValueError) as exc:
        return {}, f"unreadable manifest in {build_dir}: {exc}"
    if manifest.get("suffix") != SUFFIX:
        return {}, f"the compiled build is for {manifest.get('suffix')}, not {SUFFIX}"
    for name, digest in manifest["sources"].items():
        try:
            same = source_hash(root / name) == digest
        except OSError:
            same = False
        if not same:
            return {}, f"{name} changed since the compiled build (make install compiles it again)"
    modules = {name: build_dir / file for name, file in manifest["modules"].items()}
    missing = [str(path) for path in modules.values() if not path.is_file()]
    if missing:
        return {}, f"the compiled build lacks {', '.join(missing)}"
    return modules, f"compiled by mypyc {manifest.get('mypy', '?')} in {build_dir}"


def _reduce_frozen(obj: Any) -> tuple[Callable[..., Any], tuple[object, ...]]:
    """Pickle a compiled frozen dataclass by its constructor's arguments: mypyc's own unpickling
    sets each attribute in turn, which a frozen dataclass refuses (the rules workers pickle
    states, ``app/runtime/rules.py``)."""
    fields = [f.name for f in dataclasses.fields(obj) if f.init]
    return _rebuild, (type(obj), tuple(fields), tuple(getattr(obj, name) for name in fields))


def _rebuild(cls: type, names: tuple[str, ...], values: tuple[object, ...]) -> Any:
    """A frozen dataclass rebuilt from its fields by keyword (:func:`_reduce_frozen`)."""
    return cls(**dict(zip(names, values, strict=True)))


def source_of(name: str, root: Path = ROOT) -> Path | None:
    """The source file of module ``name`` in the checkout at ``root``, or None (the shared
    library that holds every compiled module has none)."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


class CompiledLoader(importlib.machinery.ExtensionFileLoader):
    """Loads a compiled module, then settles every compiled module loaded so far (mypyc loads
    the ones a compiled module imports by itself, without this loader)."""

    def __init__(self, fullname: str, path: str, compiled: Sequence[str]) -> None:
        super().__init__(fullname, path)
        self.compiled = compiled

    def exec_module(self, module: ModuleType) -> None:
        """Run the module, then for every compiled module loaded: ``__file__`` names its source
        (as mypyc's tracebacks do; ``__spec__.origin`` stays the extension file), which is what
        pytest's doctest collection checks it imported; and :func:`_reduce_frozen` pickles its
        frozen dataclasses."""
        super().exec_module(module)
        for name in self.compiled:
            loaded = sys.modules.get(name)
            if loaded is None:
                continue
            source = source_of(name)
            if source is not None:
                loaded.__file__ = str(source)
            for value in list(vars(loaded).values()):
                if (
                    isinstance(value, type)
                    and value.__module__ == name
                    and dataclasses.is_dataclass(value)
                    and value.__dataclass_params__.frozen  # type: ignore[attr-defined]
                    and value not in copyreg.dispatch_table
                ):
                    copyreg.pickle(value, _reduce_frozen)


class CompiledFinder:
    """A meta path finder that loads the compiled modules from their extension files."""

    def __init__(self, modules: Mapping[str, Path]) -> None:
        self.modules = dict(modules)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The spec of a compiled module (None for every other: the sources are found as usual)."""
        file = self.modules.get(fullname)
        if file is None:
            return None
        loader = CompiledLoader(fullname, str(file), list(self.modules))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def select(
    environ: Mapping[str, str], build_dir: Path, root: Path
) -> tuple[str, str, dict[str, Path]]:
    """Which build to load (``"compiled"`` or ``"pure"``), why, and the compiled modules."""
    if is_pure_forced(environ):
        return "pure", "HEXMOOT_PURE is set", {}
    modules, reason = check(build_dir, root)
    return ("compiled" if modules else "pure"), reason, modules


BUILD, REASON, MODULES = select(os.environ, BUILD_DIR, ROOT)
if MODULES and __name__ == "games.native":  # not when build_native.py reads this file
    sys.meta_path.insert(0, CompiledFinder(MODULES))
