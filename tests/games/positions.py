"""Positions built directly from cell names, for the engines' tests.

The builders live in the rules package (:mod:`games.positions`), where the rules pages' diagrams
use them too; the tests import them from here, as before, so that there is one copy.
"""

from __future__ import annotations

from games.positions import (
    exxit_position,
    harmijan_position,
    jotun_position,
    stone_bits,
    valaturna_position,
)

__all__ = [
    "exxit_position",
    "harmijan_position",
    "jotun_position",
    "stone_bits",
    "valaturna_position",
]
