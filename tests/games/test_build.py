"""Which build of the rules runs (``games/native.py``): the one this run expects, loaded whole.

``make pytest`` runs the whole suite on the compiled build and ``tests/games`` again on the pure
one (``HEXMOOT_PURE=1``), each run with ``HEXMOOT_EXPECT_BUILD`` naming the build it expects (what
``build_native.py --status`` says the checkout holds), so a compiled build that silently fell back
to pure Python fails here rather than passing as compiled. Run by hand, without that variable, the
expectation is the same ``--status``, or ``pure`` under ``HEXMOOT_PURE``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

import build_native
import games
from games import native


def expected_build() -> str:
    """The build this run should have loaded."""
    given = os.environ.get("HEXMOOT_EXPECT_BUILD")
    if given:
        assert given in ("compiled", "pure"), f"HEXMOOT_EXPECT_BUILD={given!r}"
        return given
    return "pure" if native.is_pure_forced(os.environ) else checkout_build()


def checkout_build() -> str:
    """The build a process without ``HEXMOOT_PURE`` should load: the checkout's."""
    return build_native.status()


def test_the_expected_build_is_loaded() -> None:
    assert expected_build() == native.BUILD, native.REASON


def test_every_module_comes_from_the_build_loaded() -> None:
    compiled = [build_native.module_name(path) for path in build_native.COMPILED]
    for name in compiled:
        importlib.import_module(name)
    loaded = {name: module for name, module in sys.modules.items() if name.startswith("games")}
    if native.BUILD == "compiled":
        for name in compiled:
            spec = loaded[name].__spec__
            origin = Path(spec.origin or "") if spec else Path()
            assert origin.is_relative_to(native.BUILD_DIR), (name, origin)
            assert origin.name.endswith(native.SUFFIX), (name, origin)
            # __file__ names the source, which pytest's doctest collection checks it imported
            assert loaded[name].__file__ == str(native.source_of(name)), name
        pure = set(loaded) - set(compiled)
    else:
        pure = set(loaded)
    for name in pure:
        spec = loaded[name].__spec__
        assert spec is not None and (spec.origin or "").endswith(".py"), (name, spec)


def test_hexmoot_pure_selects_the_pure_build_in_a_new_process() -> None:
    code = (
        "import games.native as n, games.jotun.rules as r; "
        "print(n.BUILD, r.__spec__.origin.endswith('.py'))"
    )
    checkout = checkout_build()
    for pure, shown in (("1", "pure True"), ("0", f"{checkout} {checkout == 'pure'}")):
        env = {**os.environ, "HEXMOOT_PURE": pure}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert done.stdout.split() == shown.split(), done.stderr


def fake_build(root: Path, suffix: str = native.SUFFIX) -> Path:
    """A checkout under ``root`` with one source and a manifest of its compiled build."""
    (root / "games").mkdir()
    source = root / "games" / "rules.py"
    source.write_text("X = 1\n", encoding="utf-8")
    build = root / "build" / "mypyc"
    (build / "games").mkdir(parents=True)
    (build / "games" / f"rules{suffix}").write_bytes(b"")
    manifest = {
        "suffix": suffix,
        "mypy": "test",
        "compiled": ["games/rules.py"],
        "sources": {"games/rules.py": hashlib.sha256(source.read_bytes()).hexdigest()},
        "modules": {"games.rules": f"games/rules{suffix}"},
    }
    (build / native.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return build


def test_a_current_build_is_selected_unless_hexmoot_pure(tmp_path: Path) -> None:
    build = fake_build(tmp_path)
    chosen, reason, modules = native.select({}, build, tmp_path)
    assert chosen == "compiled", reason
    assert modules == {"games.rules": build / "games" / f"rules{native.SUFFIX}"}
    assert native.select({"HEXMOOT_PURE": "1"}, build, tmp_path)[:2] == (
        "pure",
        "HEXMOOT_PURE is set",
    )
    assert native.select({"HEXMOOT_PURE": "0"}, build, tmp_path)[0] == "compiled"


def test_an_edited_source_sets_the_whole_build_aside(tmp_path: Path) -> None:
    build = fake_build(tmp_path)
    (tmp_path / "games" / "rules.py").write_text("X = 2\n", encoding="utf-8")
    assert native.select({}, build, tmp_path) == (
        "pure",
        "games/rules.py changed since the compiled build (make install compiles it again)",
        {},
    )
    (tmp_path / "games" / "rules.py").unlink()
    assert native.select({}, build, tmp_path)[0] == "pure"


def test_a_build_for_another_python_or_none_is_not_loaded(tmp_path: Path) -> None:
    assert native.select({}, tmp_path / "none", tmp_path)[:2] == (
        "pure",
        f"no compiled build in {tmp_path / 'none'}",
    )
    build = fake_build(tmp_path, suffix=".cpython-399-x86_64-linux-gnu.so")
    chosen, reason, _ = native.select({}, build, tmp_path)
    assert (chosen, reason) == (
        "pure",
        f"the compiled build is for .cpython-399-x86_64-linux-gnu.so, not {native.SUFFIX}",
    )


def test_the_manifest_lists_what_compiling_reads() -> None:
    read = build_native.sources_read(("games/jotun/rules.py",))
    assert {"games/jotun/rules.py", "games/jotun/state.py", "games/view.py"} <= set(read)
    assert {"games/__init__.py", "games/jotun/__init__.py", "games/base.py"} <= set(read)
    # what the compiled modules do not import: editing it leaves the compiled build in use
    assert "games/valaturna.py" not in read
    every = build_native.sources_read(build_native.COMPILED)
    assert not {"games/exxit.py", "games/native.py", "games/bench.py"} & set(every)
    assert not [path for path in every if path.startswith("games/bots/")]


@pytest.mark.parametrize("slug", games.names())
def test_states_pickle_in_either_build(slug: str) -> None:
    """The rules workers (app/runtime/rules.py) send states both ways by pickle."""
    rules = games.get(slug)
    rng = random.Random(7)
    state = rules.initial_state()
    for _ in range(12):
        if rules.to_move(state) is None:
            break
        state = rules.apply(state, rules.random_move(state, rng))
        again = pickle.loads(pickle.dumps(state))
        assert again == state
        assert hash(again) == hash(state)
        assert list(rules.legal_moves(again)) == list(rules.legal_moves(state))
