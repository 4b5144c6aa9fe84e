"""Harmijan's shapes and scoring (spec §3, §6): the canonical free polyhex of a creature and a
colour's repeated shapes, largest first."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..bitboard import bits
from ..hexgrid import Hex, HexBoard, canonical_shape, normalise
from ..seats import COLOURS
from .state import State

if TYPE_CHECKING:  # rules.py imports this module
    from .rules import Rules


def canon(cells: Iterable[Hex]) -> tuple[Hex, ...]:
    """The canonical free-polyhex shape of ``cells`` (§3): ``hexgrid.canonical_shape``, the least of
    its 12 images, each translated to its minimum q and r and sorted. (``Rules`` caches it.)

    >>> canon([(0, 0), (1, 0), (1, 1), (2, 1)]) == canon([(0, 0), (0, 1), (1, 1), (1, 2)])
    True
    """
    return canonical_shape(normalise(cells))


@dataclass(frozen=True)
class ShapeClass:
    """``count`` >= 2 creatures of one shape of ``size`` stones: worth (count + 1) * size."""

    shape: tuple[Hex, ...]
    size: int
    count: int
    creatures: tuple[int, ...]  # bitsets

    @property
    def value(self) -> int:
        """[H11] k*s stones plus the size s."""
        return self.count * self.size + self.size

    def to_json(self, board: HexBoard) -> dict[str, Any]:
        """The class for display: its shape, counts, value and the creatures' cells."""
        return {
            "size": self.size,
            "count": self.count,
            "value": self.value,
            "shape": [list(p) for p in self.shape],
            "creatures": [[board.names[i] for i in bits(c)] for c in self.creatures],
        }


def classes(
    board: HexBoard, creatures: list[int], shape_of: Callable[[tuple[Hex, ...]], tuple[Hex, ...]]
) -> list[ShapeClass]:
    """A colour's repeated shapes, largest first, then by value (§6); ``shape_of`` gives the
    canonical shape of normalised cells (a cached ``hexgrid.canonical_shape``)."""
    groups: dict[tuple[Hex, ...], list[int]] = {}
    cells = board.cells
    for creature in creatures:
        # [H13] all 12 symmetries
        shape = shape_of(normalise(cells[i] for i in bits(creature)))
        groups.setdefault(shape, []).append(creature)
    found = [
        ShapeClass(shape=shape, size=len(shape), count=len(members), creatures=tuple(members))
        for shape, members in groups.items()
        if len(members) >= 2  # [H11] a shape must be repeated to score
    ]
    found.sort(key=lambda k: (-k.size, -k.value, k.shape))
    return found


def classes_of(rules: Rules, state: State, colour: str) -> list[ShapeClass]:
    """The repeated shapes of ``colour`` in ``state`` (for tests and display)."""
    return rules.classes(state.stones[COLOURS.index(colour)])
