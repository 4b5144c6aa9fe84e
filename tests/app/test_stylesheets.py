"""Every stylesheet's blocks close (a merge once left an ``@media`` block open, and the rules after
it, the explorer's, applied to phones only): braces counted outside comments and strings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS = sorted((Path(__file__).resolve().parents[2] / "static" / "css").glob("*.css"))


@pytest.mark.parametrize("path", CSS, ids=[p.name for p in CSS])
def test_every_block_closes(path: Path) -> None:
    text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', text)
    depth = 0
    for number, line in enumerate(text.splitlines(), 1):
        # a rule at the margin while a block is open: that block lost its closing brace
        at_margin = line[:1] not in ("", " ", "\t", "}")
        assert not (at_margin and depth > 0), f"{path.name}:{number}: inside an unclosed block"
        for char in line:
            depth += {"{": 1, "}": -1}.get(char, 0)
            assert depth >= 0, f"{path.name}:{number}: a brace closes nothing"
    assert depth == 0, f"{path.name}: {depth} block(s) never closed"
