"""The README's map ("What is where") names every module of ``app/``: a module added without a
line there fails here, so the map stays true."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _map() -> str:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## What is where")
    return readme[start : readme.index("\n## ", start + 1)]


def test_every_module_of_app_is_on_the_readme_map() -> None:
    rows = [line for line in _map().splitlines() if line.startswith("| `app/")]
    named = set(re.findall(r"`([\w/.]+)", "\n".join(rows)))
    missing = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        if path.stem in ("__init__", "__main__"):
            continue
        relative = path.relative_to(ROOT)
        top = relative.parts[1]
        if len(relative.parts) == 2:  # app/x.py: by its path, or its name in a row of app files
            found = relative.as_posix() in named or path.name in named
        else:  # app/package/.../x.py: the package's row names the module
            found = f"app/{top}/" in named and path.stem in named
        if not found:
            missing.append(relative.as_posix())
    assert not missing, f"the README's map does not name {missing}"
