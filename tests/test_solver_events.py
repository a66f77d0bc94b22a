"""Reference solvers for SFID I on hand-made records (KnowWhereGraph-style triples: temporal scopes
as ``time:Instant`` / ``time:Interval`` nodes).

Expected values: one degree of longitude on the equator is 111.3195 km on WGS84 (a * pi / 180);
EPSG:6933 areas are cross-checked with the ellipsoidal area of
``pyproj.Geod.geometry_area_perimeter``; dates by hand.
"""

from __future__ import annotations

import pytest
from pyproj import Geod, Transformer
from shapely import wkt as shapely_wkt
from shapely.geometry import LineString, Point

from mgqa_platform.evaluation.solver.events import utc_date
from tests.solver_records import Record, box

KM_PER_DEG_EQ = 6378.137 * 3.141592653589793 / 180.0


# -------------------------------------------------------------------------------------------- dates
@pytest.mark.parametrize(
    "raw,want",
    [
        ("2015-12-06T16:37:05.270Z", "2015-12-06"),
        ("2015-11-22T23:30:00-05:00", "2015-11-23"),
        ("2015-11-23T01:30:00+03:00", "2015-11-22"),
        ("2006-07-22", "2006-07-22"),
        ("1999-06", "1999-06"),
        ("1999", "1999"),
    ],
)
def test_utc_date(raw, want):
    assert utc_date(raw) == want


# ---------------------------------------------------------------------------------------------- I01
def test_distance_point_event():
    rec = Record("I01.1", "distance", "event.distance", {"time_period": "2015-01-01 to 2015-12-31"})
    rec.add("POINT (0 0)", "event_A", time="2015-12-06T16:37:05Z")
    rec.add("POINT (1 0)", "entity_B")
    assert rec.answer()["value"] == pytest.approx(KM_PER_DEG_EQ, abs=0.001)


def test_distance_footprint_nearest_edge():
    rec = Record("I01.2", "distance", "event.distance", {"time_period": "2008-01-01 to 2008-12-31"})
    rec.add(box(1, -0.5, 2, 0.5), "event_A", time="2008-11-13")
    rec.add("POINT (0 0)", "entity_B")
    # the convention keeps edges straight in the point's azimuthal-equidistant frame: the chord
    # between the projected vertices (1, +-0.5) passes a little inside the meridian lon = 1 (third
    # method: PROJ aeqd)
    t = Transformer.from_crs(
        "EPSG:4326", "+proj=aeqd +lat_0=0 +lon_0=0 +datum=WGS84", always_xy=True
    )
    chord = LineString([t.transform(1, -0.5), t.transform(1, 0.5)]).distance(Point(0, 0)) / 1000.0
    got = rec.answer()["value"]
    assert got == pytest.approx(chord, abs=0.0011)
    assert KM_PER_DEG_EQ - 0.01 < got < KM_PER_DEG_EQ


def test_distance_needs_the_temporal_scope():
    rec = Record("I01.1", "distance", "event.distance")
    rec.add("POINT (0 0)", "event_A")
    rec.add("POINT (1 0)", "entity_B")
    s = rec.solve()
    assert s.answer is None and s.reason == "not_in_triples"


# ---------------------------------------------------------------------------------------------- I02
def test_affected_point_members_of_a_footprint():
    rec = Record("I02.3", "set", "event.affected", bindings={"category_A": "school"})
    rec.add(box(0, 0, 1, 1), "event_A", time="2008-11-13")
    a = rec.add("POINT (0.5 0.5)")
    b = rec.add("POINT (1 0.2)")  # on the footprint's edge: covered
    rec.add("POINT (1.2 0.5)")
    assert rec.answer()["entity_ids"] == sorted([a, b])


def test_affected_regions_by_point_event_radius():
    rec = Record("I02.2", "set", "event.affected", bindings={"category_A": "county"})
    rec.add("POINT (0 0)", "event_A", time="2015-12-06")
    holds = rec.add(box(-1, -1, 1, 1))  # contains the epicentre
    near = rec.add(box(0.08, -1, 1, 1))  # ~8.9 km east
    rec.add(box(0.1, -1, 1, 1))  # ~11.1 km: beyond impact_radius_km = 10
    assert rec.answer()["entity_ids"] == sorted([holds, near])


# ---------------------------------------------------------------------------------------------- I03
def test_hit_date_interval_start_and_overlap_threshold():
    rec = Record("I03.2", "date", "event.hit_date")
    rec.add(box(0, 0, 0.1, 0.1), "event_A", interval=("2006-07-22", "2006-08-03"))
    rec.add(box(0.05, 0, 1, 1), "entity_A")  # ~61 km2 overlap
    assert rec.answer() == {"value": "2006-07-22", "precision": "day"}
    # an overlap of 0.00005 deg x 0.01 deg (~5.6 m x 1.1 km ~ 0.006 km2) is below min_overlap_km2 =
    # 0.01
    thin = Record("I03.2", "date", "event.hit_date")
    thin.add(box(0, 0, 0.1, 0.1), "event_A", time="2006-07-22")
    thin.add(box(0.09995, 0.09, 1, 1), "entity_A")
    s = thin.solve()
    assert s.answer is None and s.reason == "not_affected"


def test_hit_date_utc_day_of_point_event():
    rec = Record("I03.1", "date", "event.hit_date")
    rec.add("POINT (0 0)", "event_A", time="2015-11-22T23:30:00-05:00")
    rec.add(box(0.05, -1, 1, 1), "entity_A")  # ~5.6 km away, within 10 km
    assert rec.answer()["value"] == "2015-11-23"


# ---------------------------------------------------------------------------------------- I04 / I05
def test_area_footprint_and_overlap():
    fp = box(0, 0, 0.1, 0.1)
    rec = Record("I04.1", "area", "event.area")
    rec.add(fp, "event_A", time="2006-07-22")
    geod_km2 = abs(Geod(ellps="WGS84").geometry_area_perimeter(shapely_wkt.loads(fp))[0]) / 1e6
    assert rec.answer()["value"] == pytest.approx(geod_km2, rel=1e-4)
    half = Record("I05.1", "area", "event.area")
    half.add(fp, "event_A", time="2006-07-22")
    half.add(box(0.05, -1, 1, 1), "entity_A")
    assert half.answer()["value"] == pytest.approx(geod_km2 / 2, rel=1e-4)
