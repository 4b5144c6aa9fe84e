"""Hexagonal geometry, written once for every game (``shared/rules/README.md``, "Conventions").

Axial coordinates ``(q, r)`` with cube ``s = -q - r``. The six directions, always in this order:
E (1,0), NE (1,-1), NW (0,-1), W (-1,0), SW (-1,1), SE (0,1). Drawing is pointy-top with ``r``
growing downward: ``x = sqrt(3) * (q + r/2)``, ``y = 1.5 * r`` (the browser's ``hexlayout.js``
states the same convention).

A board of side ``N`` is the set of cells with ``max(|q|, |r|, |q+r|) <= N-1``. :class:`HexBoard`
numbers its cells 0.. in reading order (``r`` ascending, then ``q``) and precomputes neighbour and
ray tables over those indices, so that move generators work on small integers.

>>> b = hex_board(5)
>>> len(b), b.name((0, 0)), b.parse("e5")
(61, 'e5', (0, 0))
>>> sorted(b.name(c) for c in b.neighbours_of((0, 0)))
['d4', 'd5', 'e4', 'e6', 'f4', 'f5']
>>> [b.name(c) for c in b.ray_from((0, 0), 0)]
['e6', 'e7', 'e8', 'e9']
>>> distance((0, 0), (2, -1))
2
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

from .errors import InvalidMoveError, typed

Hex = tuple[int, int]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
DIRECTION_NAMES: tuple[str, ...] = ("E", "NE", "NW", "W", "SW", "SE")


def add(a: Hex, b: Hex) -> Hex:
    """The sum of two axial vectors.

    >>> add((1, -1), (0, 1))
    (1, 0)
    """
    return (a[0] + b[0], a[1] + b[1])


def neighbours(h: Hex) -> list[Hex]:
    """The six neighbours of ``h`` in direction order (on an unbounded plane).

    >>> neighbours((0, 0))[:2]
    [(1, 0), (1, -1)]
    """
    q, r = h
    return [(q + dq, r + dr) for dq, dr in DIRECTIONS]


def distance(a: Hex, b: Hex) -> int:
    """Hex distance: the number of steps between two cells.

    >>> distance((0, 0), (3, -3))
    3
    """
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def ray(h: Hex, direction: int) -> Iterator[Hex]:
    """The endless ray from ``h`` (excluded) in direction index ``direction``.

    >>> from itertools import islice
    >>> list(islice(ray((0, 0), 3), 2))
    [(-1, 0), (-2, 0)]
    """
    dq, dr = DIRECTIONS[direction]
    q, r = h
    while True:
        q, r = q + dq, r + dr
        yield (q, r)


def direction_between(a: Hex, b: Hex) -> int | None:
    """The direction index of the straight line from ``a`` to ``b``, or None if not on one line.

    >>> direction_between((0, 0), (0, 3)), direction_between((0, 0), (1, 1))
    (5, None)
    """
    dq, dr = b[0] - a[0], b[1] - a[1]
    n = distance(a, b)
    if n == 0 or dq % n or dr % n:
        return None
    unit = (dq // n, dr // n)
    return DIRECTIONS.index(unit) if unit in DIRECTIONS else None


# --- symmetries: the 12 rotations and reflections of the plane, and shapes up to them -------------


def rotate(h: Hex, turns: int = 1) -> Hex:
    """``h`` turned ``turns`` sixths of a full turn about (0, 0), clockwise as drawn (``r`` down):
    each turn takes E to SE, SE to SW, and so on round the direction list backwards.

    >>> rotate((1, 0)), rotate((1, 0), 2), rotate((1, 0), 6), rotate((2, -1), -1)
    ((0, 1), (-1, 1), (1, 0), (1, -2))
    """
    q, r = h
    for _ in range(turns % 6):
        q, r = -r, q + r
    return (q, r)


def reflect(h: Hex) -> Hex:
    """``h`` mirrored in the line through (0, 0) and (1, 1), which swaps ``q`` and ``r``:
    E and SE trade places, NE and SW, NW and W.

    >>> reflect((1, 0)), reflect((1, -1)), reflect(reflect((3, -2)))
    ((0, 1), (-1, 1), (3, -2))
    """
    return (h[1], h[0])


def normalise(cells: Iterable[Hex]) -> tuple[Hex, ...]:
    """``cells`` translated so that their least ``q`` and least ``r`` are 0, sorted: the same
    tuple for every translation of one set of cells.

    >>> normalise([(5, -3), (6, -3)])
    ((0, 0), (1, 0))
    """
    points = list(cells)
    q0 = min(q for q, _ in points)
    r0 = min(r for _, r in points)
    return tuple(sorted((q - q0, r - r0) for q, r in points))


def symmetries(cells: Iterable[Hex]) -> list[tuple[Hex, ...]]:
    """The 12 images of ``cells`` under the rotations and reflections of the hex plane, each
    normalised (:func:`normalise`): the 6 rotations, then the 6 rotations of the reflection.

    >>> len(symmetries([(0, 0)])), len(set(symmetries([(0, 0), (1, 0)])))
    (12, 3)
    """
    start = list(cells)
    out = []
    for image in (start, [reflect(h) for h in start]):
        for _ in range(6):
            out.append(normalise(image))
            image = [(-r, q + r) for q, r in image]  # rotate() by one turn, inline for speed
    return out


def canonical_shape(cells: Iterable[Hex]) -> tuple[Hex, ...]:
    """The free shape of ``cells`` (a polyhex up to translation, rotation and reflection): the
    least of its 12 normalised images, so two sets of cells have the same shape exactly when
    their canonical shapes are equal.

    >>> canonical_shape([(0, 0), (1, 0), (1, 1), (2, 1)])
    ((0, 0), (0, 1), (1, 1), (1, 2))
    >>> snake = [(0, 0), (1, 0), (1, 1), (2, 1)]
    >>> canonical_shape([rotate(reflect(h), 2) for h in snake]) == canonical_shape(snake)
    True
    """
    return min(symmetries(cells))


def to_pixel(h: Hex) -> tuple[float, float]:
    """Centre of a pointy-top cell of radius 1, ``r`` growing downward.

    >>> to_pixel((0, 2))
    (1.7320508075688772, 3.0)
    """
    q, r = h
    return (3**0.5 * (q + r / 2), 1.5 * r)


_NAME = re.compile(r"([a-z])([1-9][0-9]?)")


class HexBoard:
    """A hex-hex board of side ``n`` with cell names and precomputed integer tables.

    Attributes (index = position in reading order):
      ``cells[i]`` the axial cell; ``index[cell]`` its index; ``names[i]`` its name;
      ``step[i][d]`` the neighbour index in direction ``d`` or -1 off the board;
      ``adjacent[i]`` the on-board neighbour indices in direction order;
      ``rays[i][d]`` the indices along direction ``d`` to the edge (nearest first).
    """

    def __init__(self, n: int) -> None:
        if n < 1:
            raise ValueError(f"board side must be at least 1, not {n}")
        self.n = n
        m = n - 1
        self.cells: tuple[Hex, ...] = tuple(
            (q, r) for r in range(-m, m + 1) for q in range(-m, m + 1) if abs(q + r) <= m
        )
        self.index: dict[Hex, int] = {c: i for i, c in enumerate(self.cells)}
        self.names: tuple[str, ...] = tuple(self._name(c) for c in self.cells)
        self.by_name: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.step: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.index.get(add(c, d), -1) for d in DIRECTIONS) for c in self.cells
        )
        self.adjacent: tuple[tuple[int, ...], ...] = tuple(
            tuple(j for j in row if j >= 0) for row in self.step
        )
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(self._ray(i, d) for d in range(6)) for i in range(len(self.cells))
        )

    def _ray(self, i: int, d: int) -> tuple[int, ...]:
        out = []
        j = self.step[i][d]
        while j >= 0:
            out.append(j)
            j = self.step[j][d]
        return tuple(out)

    def _name(self, c: Hex) -> str:
        q, r = c
        m = self.n - 1
        qmin = max(-m, -m - r)
        return f"{chr(ord('a') + r + m)}{q - qmin + 1}"

    def __len__(self) -> int:
        return len(self.cells)

    def __contains__(self, c: object) -> bool:
        return c in self.index

    def name(self, c: Hex) -> str:
        """The name of cell ``c`` (row letter, then number from the row's left end)."""
        return self.names[self.index[c]]

    def parse(self, text: str) -> Hex:
        """The cell named ``text``; :class:`InvalidMoveError` naming it if there is none.

        >>> hex_board(4).parse("z9")
        Traceback (most recent call last):
        ...
        games.errors.InvalidMoveError: z9 is not a cell of this board
        """
        return self.cells[self.parse_index(text)]

    def parse_index(self, text: str) -> int:
        """The index of the cell named ``text`` (see :meth:`parse`)."""
        i = self.by_name.get(text)
        if i is None:
            what = "a cell name" if not _NAME.fullmatch(text) else "a cell of this board"
            raise InvalidMoveError(
                f"{typed(text)} is not {what}" if text else "A cell name is missing"
            )
        return i

    def neighbours_of(self, c: Hex) -> list[Hex]:
        """The on-board neighbours of ``c`` in direction order."""
        return [self.cells[j] for j in self.adjacent[self.index[c]]]

    def ray_from(self, c: Hex, direction: int) -> list[Hex]:
        """The on-board cells from ``c`` (excluded) to the edge in ``direction``."""
        return [self.cells[j] for j in self.rays[self.index[c]][direction]]

    def row_labels(self) -> list[str]:
        """Row letters, top to bottom."""
        return [chr(ord("a") + k) for k in range(2 * self.n - 1)]


@cache  # one board per side: bounded by the few sizes the games offer
def hex_board(n: int) -> HexBoard:
    """The (shared, immutable) board of side ``n``."""
    return HexBoard(n)
