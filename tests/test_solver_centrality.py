"""Reference solvers for SFID G on hand-made records.

Expected points by symmetry (a box symmetric about the equator has its centroid on it; the midpoint
of a line along the equator is at half its longitude span; the pole of a square is its centre) and,
for the scale shift, a box drawn from EPSG:6933 corners so the grid cells inside are counted by
hand.
"""

from __future__ import annotations

import pytest
from pyproj import Geod, Transformer

from mgqa_platform.evaluation.solver import solve
from tests.solver_records import box, geoms_record

GEOD = Geod(ellps="WGS84")


def record(sub: str, fmt: str, executor: str, wkt: str, params: dict | None = None) -> dict:
    return geoms_record(sub, fmt, executor, {"entity_A": wkt}, params)


def point(r: dict) -> tuple[float, float]:
    s = solve(r)
    assert s.answer is not None, s
    return s.answer["lon"], s.answer["lat"]


def metres(a, b) -> float:
    return GEOD.inv(a[0], a[1], b[0], b[1])[2]


def test_centroid_symmetric_box_and_equal_area_weighting():
    lon, lat = point(record("G01.1", "point", "centrality.centroid", box(10, -1, 12, 1)))
    assert lon == pytest.approx(11.0, abs=1e-6) and lat == pytest.approx(0.0, abs=1e-6)
    # north of the equator the equal-area y grows slower than latitude: the centroid sits below
    # mid-latitude
    lon, lat = point(record("G01.1", "point", "centrality.centroid", box(10, 50, 12, 60)))
    assert lon == pytest.approx(11.0, abs=1e-6) and 54.0 < lat < 55.0


def test_centroid_l_shape_weights_by_area():
    # an L of a 2x1 bar and a 1x1 block on top of its left end: lon centroid = (2*1 + 0.5*1) / 3 =
    # 0.8333
    wkt = "POLYGON ((0 -1, 2 -1, 2 0, 1 0, 1 1, 0 1, 0 -1))"
    lon, _ = point(record("G01.1", "point", "centrality.centroid", wkt))
    assert lon == pytest.approx(0.8333333, abs=1e-6)


def test_line_midpoint_along_the_equator():
    lon, lat = point(
        record("G01.2", "point", "centrality.line_midpoint", "LINESTRING (0 0, 1 0, 3 0)")
    )
    assert lon == pytest.approx(1.5, abs=1e-7) and lat == pytest.approx(0.0, abs=1e-7)
    # reversed digitising order: same midpoint, walked from the other end
    lon, _ = point(record("G01.2", "point", "centrality.line_midpoint", "LINESTRING (3 0, 0 0)"))
    assert lon == pytest.approx(1.5, abs=1e-7)


def test_line_midpoint_multipart_gap_rule():
    joined = "MULTILINESTRING ((0 0, 1 0), (1 0, 2 0))"
    lon, _ = point(record("G01.2", "point", "centrality.line_midpoint", joined))
    assert lon == pytest.approx(1.0, abs=1e-7)
    gap = "MULTILINESTRING ((0 0, 1 0), (1.001 0, 2 0))"  # ~111 m gap > max_gap_m = 10
    s = solve(record("G01.2", "point", "centrality.line_midpoint", gap))
    assert s.answer is None and s.reason == "disconnected_parts"


def test_pole_of_square_is_its_centre():
    wkt = box(24.0, 60.0, 24.02, 60.01)
    lon, lat = point(record("G01.3", "point", "centrality.pole", wkt))
    assert metres((lon, lat), (24.01, 60.005)) < 15.0  # tolerance 10 m


def test_pole_uses_the_largest_part():
    wkt = (
        "MULTIPOLYGON (((0 0, 0.01 0, 0.01 0.01, 0 0.01, 0 0)), "
        "((1 0, 1.1 0, 1.1 0.1, 1 0.1, 1 0)))"
    )
    lon, lat = point(record("G01.3", "point", "centrality.pole", wkt))
    # 0.1 deg of longitude (11.13 km) is wider than 0.1 deg of latitude (11.06 km): the inscribed
    # circle can slide ~70 m east-west, so the centre is only fixed to within that ridge
    assert metres((lon, lat), (1.05, 0.05)) < 80.0 and abs(lat - 0.05) < 1e-4


def _box_6933(x1: float, y1: float) -> str:
    inv = Transformer.from_crs("EPSG:6933", "EPSG:4326", always_xy=True)
    lon0, lat0 = inv.transform(0.0, 0.0)
    lon1, lat1 = inv.transform(x1, y1)
    return box(lon0, lat0, lon1, lat1)


def _scale_shift(width_m: float):
    """A G03.3 record (100 m cells, then 1 km cells) over a ``width_m`` x 1400 m box."""
    return record(
        "G03.3",
        "distance",
        "centrality.scale_shift",
        _box_6933(width_m, 1400.0),
        {"value_1": 0.1, "value_2": 1},
    )


def test_scale_shift_counts_cell_centres():
    # box [0, 3500] x [0, 1400] m in EPSG:6933 (a lon/lat box maps to a box in this cylindrical
    # projection) 100 m cells: centres 50..3450 x 50..1350 -> mean (1750, 700); 1 km cells: 500,
    # 1500, 2500 x 500 -> (1500, 500)
    r = _scale_shift(3500.0)
    inv = Transformer.from_crs("EPSG:6933", "EPSG:4326", always_xy=True)
    want = metres(inv.transform(1750.0, 700.0), inv.transform(1500.0, 500.0)) / 1000.0
    s = solve(r)
    assert s.answer is not None, s
    assert s.answer["value"] == pytest.approx(want, abs=0.0011)


def test_scale_shift_too_few_cells():
    s = solve(
        _scale_shift(2400.0)
    )  # 1 km grid: centres 500 and 1500 only -> 2 cells < min_cells = 3
    assert s.answer is None and s.reason == "too_few_cells"
