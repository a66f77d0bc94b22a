"""Reference solvers for SFID N on hand-made records.

Centroid expectations: a lon/lat rectangle stays a rectangle in the cylindrical EPSG:6933, so its
centroid is the projected mid-point of its corners (computed here from two transformed corners, no
shapely); a polyline's centroid is the length-weighted mean of its projected segment mid-points.
"""

from __future__ import annotations

import math

import pytest
from pyproj import Transformer

from mgqa_platform.evaluation.solver import solve
from tests.solver_records import geoms_record

FWD = Transformer.from_crs("EPSG:4326", "EPSG:6933", always_xy=True)


def record(sub: str, fmt: str, executor: str, wkt: str) -> dict:
    return geoms_record(sub, fmt, executor, {"entity_A": wkt})


def test_centroid_of_point_is_the_point():
    s = solve(record("N01.1", "point", "coords.centroid", "POINT (24.9376648 60.1687611)"))
    assert s.answer == {"lon": 24.937665, "lat": 60.168761}


def test_centroid_of_rectangle_is_equal_area_midpoint():
    s = solve(
        record("N01.2", "point", "coords.centroid", "POLYGON ((10 50, 12 50, 12 52, 10 52, 10 50))")
    )
    (x0, x1), (y0, y1) = FWD.transform([10, 12], [50, 52])
    lon, lat = FWD.transform((x0 + x1) / 2, (y0 + y1) / 2, direction="INVERSE")
    assert s.answer == pytest.approx({"lon": lon, "lat": lat}, abs=2e-6)
    assert lon == pytest.approx(11.0)
    assert (
        50.985 < lat < 50.995
    )  # not the lon/lat mid-point 51: the equal-area frame pulls it south


def test_centroid_of_line_is_length_weighted():
    coords = [(0.0, 0.0), (3.0, 0.0), (3.0, 1.0)]
    s = solve(record("N01.2", "point", "coords.centroid", "LINESTRING (0 0, 3 0, 3 1)"))
    xs, ys = FWD.transform([c[0] for c in coords], [c[1] for c in coords])
    segs = [
        (
            (xs[i] + xs[i + 1]) / 2,
            (ys[i] + ys[i + 1]) / 2,
            math.hypot(xs[i + 1] - xs[i], ys[i + 1] - ys[i]),
        )
        for i in range(2)
    ]
    w = sum(L for _, _, L in segs)
    cx, cy = sum(x * L for x, _, L in segs) / w, sum(y * L for _, y, L in segs) / w
    lon, lat = FWD.transform(cx, cy, direction="INVERSE")
    assert s.answer == pytest.approx({"lon": lon, "lat": lat}, abs=2e-6)


def test_centroid_across_antimeridian_is_unsolvable():
    s = solve(record("N01.2", "point", "coords.centroid", "LINESTRING (-179.5 10, 179.5 10.5)"))
    assert s.answer is None and s.reason == "crosses_antimeridian"


def test_bbox_of_polygon():
    s = solve(
        record(
            "N02.1",
            "bbox",
            "coords.bbox",
            "POLYGON ((-0.2 51.4, 0.1 51.45, 0.05 51.6, -0.25 51.55, -0.2 51.4))",
        )
    )
    assert s.answer == {"min_lon": -0.25, "min_lat": 51.4, "max_lon": 0.1, "max_lat": 51.6}


def test_bbox_sliver_is_unsolvable():
    # a straight east-west street: 0.00005 deg tall (< min_side_deg 0.0001)
    s = solve(record("N02.1", "bbox", "coords.bbox", "LINESTRING (24.90 60.17, 24.95 60.17005)"))
    assert s.answer is None and s.reason == "degenerate_bbox"
    s = solve(record("N02.1", "bbox", "coords.bbox", "LINESTRING (24.90 60.17, 24.95 60.1702)"))
    assert s.answer == {"min_lon": 24.9, "min_lat": 60.17, "max_lon": 24.95, "max_lat": 60.1702}
