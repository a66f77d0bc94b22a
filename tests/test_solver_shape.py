"""Reference solvers for SFID K on hand-made records.

Perimeters are checked against edge-by-edge ``Geod.inv`` sums and known arc lengths (1 degree of the
equator 111.319 km, of the meridian at the equator 110.574 km); areas against
``Geod.geometry_area_perimeter`` and the known shrinking of a 1-degree cell with latitude; the
minimum-area rectangle against a rotated rectangle whose sides are known; the shape index of a
square against 2 / sqrt(pi).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from pyproj import Geod
from shapely import affinity
from shapely.geometry import Point, Polygon

from mgqa_platform.evaluation.solver.shape import min_area_rectangle_sides
from tests.solver_records import solved

GEOD = Geod(ellps="WGS84")


def square(lon: float, lat: float, d: float) -> str:
    return (
        f"POLYGON (({lon} {lat}, {lon + d} {lat}, {lon + d} {lat + d}, {lon} {lat + d}, "
        f"{lon} {lat}))"
    )


def compare(sub: str, a: str, b: str):
    """The reference solver's answer to shape comparison ``sub`` of ``a`` (entity_A) with ``b``."""
    return solved(sub, "boolean", "shape.compare", {"entity_A": a, "entity_B": b}).answer["value"]


def test_perimeter_of_one_degree_cell_at_equator():
    s = solved("K04.1", "distance", "shape.perimeter", {"entity_A": square(0, 0, 1)})
    ring = [(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)]
    expected = sum(GEOD.inv(*ring[i], *ring[i + 1])[2] for i in range(4)) / 1000.0
    assert s.answer["value"] == pytest.approx(expected, abs=1e-3)
    assert s.answer["value"] == pytest.approx(2 * 110.574 + 111.319 + 111.302, abs=0.01)


def test_perimeter_counts_holes():
    outer = [(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)]
    hole = [(0.25, 0.25), (0.25, 0.75), (0.75, 0.75), (0.75, 0.25), (0.25, 0.25)]
    wkt = Polygon(outer, [hole]).wkt
    s = solved("K04.2", "distance", "shape.perimeter", {"entity_A": wkt})
    expected = sum(GEOD.inv(*r[i], *r[i + 1])[2] for r in (outer, hole) for i in range(4)) / 1000.0
    assert s.answer["value"] == pytest.approx(expected, abs=1e-3)


def test_area_compare_equator_cell_beats_polar_cell():
    # a 1x1 degree cell shrinks with cos(lat): ~12308 km2 at the equator, ~6140 km2 at 60 N
    eq, north = square(0, 0, 1), square(0, 60, 1)
    a_eq = abs(GEOD.geometry_area_perimeter(Polygon([(0, 0), (1, 0), (1, 1), (0, 1)]))[0])
    assert 12_000e6 < a_eq < 12_500e6
    assert compare("K01.1", eq, north) is True
    assert compare("K01.1", north, eq) is False


def test_area_subtracts_holes():
    holed = Polygon(
        [(0, 0), (1, 0), (1, 1), (0, 1)], [[(0.05, 0.05), (0.05, 0.95), (0.95, 0.95), (0.95, 0.05)]]
    ).wkt
    small = square(5, 0, 0.5)  # a quarter of the cell, more than the 19 % ring left by the hole
    assert compare("K01.2", holed, small) is False


def test_compactness_circle_beats_strip():
    circle = Point(10, 0).buffer(0.05, quad_segs=32).wkt
    strip = "POLYGON ((20 0, 20.2 0, 20.2 0.01, 20 0.01, 20 0))"
    assert compare("K02.1", circle, strip) is True
    assert compare("K02.1", strip, circle) is False


def test_min_area_rectangle_of_rotated_rectangle():
    rect = affinity.rotate(Polygon([(0, 0), (4, 0), (4, 1), (0, 1)]), 30, origin=(0, 0))
    sides = sorted(min_area_rectangle_sides(np.asarray(rect.exterior.coords)))
    assert sides == pytest.approx([1.0, 4.0], abs=1e-9)  # an axis-aligned box would not give 1 x 4


def test_min_area_rectangle_is_the_smallest_not_the_largest():
    # a sheared parallelogram: along its long edge the box is 5 x 1 (area 5); along its short edge
    # 4.24 x 2.83
    sides = sorted(
        min_area_rectangle_sides(np.array([(0, 0), (4, 0), (5, 1), (1, 1), (0, 0)], dtype=float))
    )
    assert sides == pytest.approx([1.0, 5.0], abs=1e-9)


def test_elongation_rotated_strip_beats_square():
    strip = affinity.rotate(
        Polygon([(0, 0), (0.04, 0), (0.04, 0.01), (0, 0.01)]), 35, origin="centroid"
    ).wkt
    sq = square(1, 0, 0.02)
    assert compare("K03.1", strip, sq) is True
    assert compare("K03.1", sq, strip) is False


def test_shape_index_of_square():
    s = solved(
        "K05.1",
        "ratio",
        "shape.irregularity",
        {"entity_A": square(0, 0, 0.01)},
        {
            "irregularity_metric": "shape index",
            "scale_value": 0.01,
            "scale_unit": "km simplification",
        },
    )
    assert s.answer["value"] == pytest.approx(2 / math.sqrt(math.pi), rel=2e-3)


def test_perimeter_ratio_drops_a_small_notch():
    # a ~1.1 km square with a ~44 m deep notch in its south edge: simplified away at 0.05 km, kept
    # at 0.01 km
    d, n = 0.01, 0.0004
    ring = [(0, 0), (0.004, 0), (0.005, n), (0.006, 0), (d, 0), (d, d), (0, d), (0, 0)]
    params = {"irregularity_metric": "perimeter ratio", "scale_unit": "km simplification"}
    wkt = Polygon(ring).wkt
    coarse = solved(
        "K05.2",
        "ratio",
        "shape.irregularity",
        {"entity_A": wkt},
        {**params, "scale_value": 0.05},
    )
    fine = solved(
        "K05.2",
        "ratio",
        "shape.irregularity",
        {"entity_A": wkt},
        {**params, "scale_value": 0.01},
    )
    # at this size the local projection's planar lengths equal geodesic ones to ~1e-7
    no_notch = [q for q in ring if q not in ((0.004, 0), (0.005, n), (0.006, 0))]
    length = lambda r: GEOD.line_length([q[0] for q in r], [q[1] for q in r])  # noqa: E731
    assert coarse.answer["value"] == pytest.approx(length(ring) / length(no_notch), rel=1e-5)
    assert coarse.answer["value"] > 1.001
    assert fine.answer["value"] == pytest.approx(1.0, abs=1e-9)


def test_irregularity_too_coarse_is_unsolvable():
    s = solved(
        "K05.1",
        "ratio",
        "shape.irregularity",
        {"entity_A": square(0, 0, 0.001)},
        {
            "irregularity_metric": "shape index",
            "scale_value": 5,
            "scale_unit": "km simplification",
        },
    )
    assert s.answer is None and s.reason in ("simplified_away", "simplification_too_coarse")
