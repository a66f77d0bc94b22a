"""Reference solvers for SFID M on hand-made records.

Polar expectations use known WGS84 arc lengths (one degree of the equator 111.319 km, of the
meridian from 0 to 1 degree 110.574 km); geohashes use the documented examples (ezs42, u4pruydqqvj)
and pygeohash as a third implementation; cells are chosen first and the point placed at their
centre.
"""

from __future__ import annotations

import random

import h3
import pygeohash
import s2sphere

from mgqa_platform.evaluation.solver.transform import geohash_encode
from tests.solver_records import solved


def test_polar_due_north_is_meridian_arc():
    # entity_A one degree north of the origin entity_B on the prime meridian
    s = solved(
        "M01.1", "polar", "transform.polar", {"entity_A": (0.0, 1.0), "entity_B": (0.0, 0.0)}
    )
    assert s.answer["angle_deg"] == 0.0
    assert abs(s.answer["distance_km"] - 110.574) < 0.001


def test_polar_origin_is_entity_b():
    s = solved(
        "M01.1", "polar", "transform.polar", {"entity_A": (0.0, 0.0), "entity_B": (1.0, 0.0)}
    )
    assert s.answer["angle_deg"] == 270.0  # A lies due west of B
    assert abs(s.answer["distance_km"] - 111.319) < 0.001


def test_polar_angle_wrapped_into_0_360():
    s = solved(
        "M01.1",
        "polar",
        "transform.polar",
        {"entity_A": (-0.01, -0.01), "entity_B": (0.0, 0.0)},
    )
    assert 224.0 < s.answer["angle_deg"] < 226.0


def test_polar_below_min_distance_is_unsolvable():
    s = solved(
        "M01.1",
        "polar",
        "transform.polar",
        {"entity_A": (10.0, 50.0), "entity_B": (10.0, 50.00005)},
    )
    assert s.answer is None and s.reason == "points_too_close"  # ~5.6 m < 10 m


def test_geohash_documented_examples():
    assert geohash_encode(-5.6, 42.6, 5) == "ezs42"
    assert geohash_encode(10.40744, 57.64911, 11) == "u4pruydqqvj"
    # a value on a bisection midpoint goes to the upper half: (0, 0) is "s0000", not "7zzzz"
    assert geohash_encode(0.0, 0.0, 5) == "s0000" == pygeohash.encode(0.0, 0.0, precision=5)


def test_geohash_agrees_with_pygeohash():
    rnd = random.Random(7)
    for _ in range(300):
        lon, lat = rnd.uniform(-180, 180), rnd.uniform(-90, 90)
        assert geohash_encode(lon, lat, 8) == pygeohash.encode(lat, lon, precision=8)


def test_convert_geohash_record():
    s = solved(
        "M02.3",
        "geohash",
        "transform.convert",
        {"entity_A": (10.40744, 57.64911)},
        {"precision": 6},
    )
    assert s.answer == {"geohash": "u4pruy", "precision": 6}


def test_convert_h3_and_s2_records():
    cell = h3.latlng_to_cell(35.68, 139.76, 9)
    lat, lon = h3.cell_to_latlng(cell)
    s = solved(
        "M02.1", "grid_cell", "transform.convert", {"entity_A": (lon, lat)}, {"resolution": 9}
    )
    assert s.answer["cell"] == cell
    cid = s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(35.68, 139.76)).parent(15)
    ll = cid.to_lat_lng()
    s = solved(
        "M02.2",
        "grid_cell",
        "transform.convert",
        {"entity_A": (ll.lng().degrees, ll.lat().degrees)},
        {"level": 15},
    )
    assert s.answer == {"system": "s2", "cell": cid.to_token(), "resolution": 15}
