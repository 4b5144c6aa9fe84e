"""What the command lines of the package share (``python -m games``, ``python -m games.bots``)."""

from __future__ import annotations


def options_of(pairs: list[str]) -> dict[str, str]:
    """``--options NAME=VALUE ...`` as a dict; SystemExit naming a pair without ``=``."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--options takes NAME=VALUE, not {pair!r}")
        out[name] = value
    return out
