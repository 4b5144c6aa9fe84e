"""Geometry and cell names exactly as shared/rules/README.md draws them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from games.errors import InvalidMoveError
from games.hexgrid import (
    DIRECTIONS,
    add,
    canonical_shape,
    direction_between,
    distance,
    hex_board,
    neighbours,
    normalise,
    reflect,
    rotate,
    symmetries,
    to_pixel,
)

SIDE_5 = """
        a1 a2 a3 a4 a5
      b1 b2 b3 b4 b5 b6
    c1 c2 c3 c4 c5 c6 c7
  d1 d2 d3 d4 d5 d6 d7 d8
e1 e2 e3 e4 e5 e6 e7 e8 e9
  f1 f2 f3 f4 f5 f6 f7 f8
    g1 g2 g3 g4 g5 g6 g7
      h1 h2 h3 h4 h5 h6
        i1 i2 i3 i4 i5
"""

cells = st.tuples(st.integers(-20, 20), st.integers(-20, 20))


def test_direction_order_is_the_shared_one() -> None:
    assert DIRECTIONS == ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def test_board_sizes() -> None:
    assert [len(hex_board(n)) for n in (4, 5, 6, 7)] == [37, 61, 91, 127]


def test_side_5_names_in_reading_order_match_the_readme_drawing() -> None:
    assert list(hex_board(5).names) == SIDE_5.split()


def test_centre_and_its_neighbours() -> None:
    b = hex_board(5)
    assert b.parse("e5") == (0, 0)
    assert {b.name(c) for c in b.neighbours_of((0, 0))} == {"d4", "d5", "e4", "e6", "f4", "f5"}
    # E, NE, NW, W, SW, SE from the centre
    assert [b.name(add((0, 0), d)) for d in DIRECTIONS] == ["e6", "d5", "d4", "e4", "f4", "f5"]


def test_tables_agree_with_the_plane() -> None:
    for n in (1, 2, 5, 7):
        b = hex_board(n)
        for i, c in enumerate(b.cells):
            assert b.index[c] == i
            assert [b.cells[j] for j in b.adjacent[i]] == [x for x in neighbours(c) if x in b]
            for d in range(6):
                assert [b.cells[j] for j in b.rays[i][d]] == b.ray_from(c, d)
                step = b.step[i][d]
                assert (step >= 0) == (add(c, DIRECTIONS[d]) in b)


def test_bad_names_are_invalid_moves_naming_the_text() -> None:
    b = hex_board(4)
    for text in ["", "e", "5e", "a0", "a9", "h1", "E5", "e5 "]:
        try:
            b.parse(text)
        except InvalidMoveError as exc:
            assert (text or "missing") in str(exc)  # named plainly, without quotes
        else:
            raise AssertionError(f"{text!r} parsed")


@given(cells, cells, cells)
def test_distance_is_a_metric(a: tuple[int, int], b: tuple[int, int], c: tuple[int, int]) -> None:
    assert distance(a, b) == distance(b, a) >= 0
    assert (distance(a, b) == 0) == (a == b)
    assert distance(a, c) <= distance(a, b) + distance(b, c)


@given(cells, st.integers(0, 5), st.integers(1, 9))
def test_direction_between_finds_straight_lines(a: tuple[int, int], d: int, k: int) -> None:
    b = (a[0] + k * DIRECTIONS[d][0], a[1] + k * DIRECTIONS[d][1])
    assert direction_between(a, b) == d
    assert distance(a, b) == k


def test_pixels_are_pointy_top_r_down() -> None:
    x, y = to_pixel((1, 0))
    assert (round(x, 6), y) == (round(3**0.5, 6), 0.0)
    assert to_pixel((0, 1))[1] == 1.5  # r grows downward


@given(st.integers(1, 9).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, 3 * n * n))))
def test_names_round_trip(case: tuple[int, int]) -> None:
    n, k = case
    b = hex_board(n)
    cell = b.cells[k % len(b)]
    assert b.parse(b.name(cell)) == cell


def test_rotations_and_reflection_form_the_twelve_symmetries() -> None:
    cells = [(q, r) for q in range(-3, 4) for r in range(-3, 4)]
    for h in cells:
        assert rotate(h, 6) == h and rotate(rotate(h, 2), 4) == h
        assert reflect(reflect(h)) == h
        assert distance((0, 0), rotate(h)) == distance((0, 0), h)
    # one turn walks the directions backwards: E -> SE -> SW -> W -> NW -> NE
    assert [DIRECTIONS.index(rotate(d)) for d in DIRECTIONS] == [5, 0, 1, 2, 3, 4]
    # a chiral tetrahex has 12 distinct images; a straight bar only 3; a hexagon ring only 1
    assert len(set(symmetries([(0, 0), (1, 0), (2, 0), (2, 1)]))) == 12
    assert len(set(symmetries([(0, 0), (1, 0), (2, 0)]))) == 3
    assert len(set(symmetries(neighbours((0, 0))))) == 1


def test_canonical_shape_ignores_translation_rotation_and_reflection() -> None:
    shape = [(0, 0), (1, 0), (2, 0), (2, 1)]
    canon = canonical_shape(shape)
    for image in symmetries(shape):
        moved = [(q + 4, r - 7) for q, r in image]
        assert canonical_shape(moved) == canon
    assert canonical_shape([(0, 0), (1, 0), (2, 0)]) != canonical_shape([(0, 0), (1, 0), (1, 1)])
    assert normalise([(3, 3), (2, 4)]) == ((0, 1), (1, 0))
