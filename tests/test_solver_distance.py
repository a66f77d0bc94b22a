"""Reference solver, SFID A: hand-made records with answers worked out by hand (equatorial /
meridian arcs) or by a third method (an azimuthal-equidistant projection), never by the solver's own
code path."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pyproj import CRS, Geod, Transformer
from shapely import ops, transform
from shapely.geometry import LineString, Point

from mgqa_platform.evaluation.solver import solve
from tests.solver_records import ent, record

EQ_DEG_KM = 6378.137 * math.pi / 180  #: one degree of the WGS84 equator, 111.3195 km
MERIDIAN_DEG_KM = 110.574  #: one degree of latitude at the equator (meridian arc), km


def km(sol) -> float:
    assert sol.reason is None, sol.reason
    return sol.answer["value"]


# ---------------------------------------------------------------------------------------------- A01
def test_pair_equatorial_degree():
    a, b = ent(1, "POINT (0 0)"), ent(2, "POINT (1 0)")
    assert km(solve_pair("A01.1", "distance.pair", a, b)) == pytest.approx(EQ_DEG_KM, abs=0.001)


def solve_pair(sub: str, ref: str, a: tuple, b: tuple):
    """The solver's answer to a two-entity distance question (roles A and B)."""
    return solve(record(sub, ref, "distance", {"entity_A": a[0], "entity_B": b[0]}, [a, b]))


def _aeqd_min_km(lon: float, lat: float, line: LineString) -> float:
    """Third method: the true minimum, measured in an azimuthal-equidistant projection centred on
    the point."""
    crs = CRS.from_proj4(f"+proj=aeqd +lat_0={lat} +lon_0={lon} +ellps=WGS84 +units=m")
    t = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
    projected = transform(line, lambda xy: np.column_stack(t.transform(xy[:, 0], xy[:, 1])))
    return Point(0, 0).distance(projected) / 1000.0


def test_to_geometry_nearest_point_on_segment():
    a, b = ent(1, "POINT (0 0.01)"), ent(2, "LINESTRING (-1 0, 1 0)")
    s = solve_pair("A01.3", "distance.to_geometry", a, b)
    assert km(s) == pytest.approx(0.01 * MERIDIAN_DEG_KM, abs=0.001)


def test_to_geometry_slanted_line_at_60_north_uses_a_local_metric_frame():
    # a slanted line at 60 N: nearest points in plain lon/lat degrees are badly off; the local frame
    # is not
    line = LineString([(0.05, 59.95), (0.15, 60.05)])
    a, b = ent(1, "POINT (0 60)"), ent(2, line.wkt)
    s = solve_pair("A01.3", "distance.to_geometry", a, b)
    truth = _aeqd_min_km(0.0, 60.0, line)
    naive = ops.nearest_points(Point(0, 60), line)[
        1
    ]  # lon/lat-degree nearest point: a worse answer

    naive_km = Geod(ellps="WGS84").inv(0, 60, naive.x, naive.y)[2] / 1000
    assert km(s) == pytest.approx(truth, rel=0.002)
    assert abs(naive_km - truth) > 0.01 * truth  # the check above could tell the two apart


def test_to_boundary_inside_square_nearest_edge_is_north_south():
    # at the equator a degree of latitude (110.574 km) is shorter than one of longitude (111.319 km)
    a, b = ent(1, "POINT (0 0)"), ent(2, "POLYGON ((-1 -1, 1 -1, 1 1, -1 1, -1 -1))")
    s = solve_pair("A09.1", "distance.to_boundary", a, b)
    assert km(s) == pytest.approx(MERIDIAN_DEG_KM, abs=0.01)


def test_to_boundary_inside_premise_and_outside_point_of_a09_2():
    a, b = ent(1, "POINT (1.5 0)"), ent(2, "POLYGON ((-1 -1, 1 -1, 1 1, -1 1, -1 -1))")
    outside = solve_pair("A09.1", "distance.to_boundary", a, b)
    assert outside.answer is None and outside.reason == "outside_polygon"
    s = solve_pair("A09.2", "distance.to_boundary", a, b)
    assert km(s) == pytest.approx(0.5 * EQ_DEG_KM, abs=0.01)


# ---------------------------------------------------------------------------------------------- A02
def test_directional_components():
    a, b = ent(1, "POINT (0.5 1)"), ent(2, "POINT (0 0)")
    roles = {"entity_A": a[0], "entity_B": b[0]}

    def rec(d):
        return record("A02.1", "distance.directional", "distance", roles, [a, b], {"direction": d})

    assert km(solve(rec("north"))) == pytest.approx(MERIDIAN_DEG_KM, abs=0.002)
    # parallel arc at the mean latitude 0.5: 0.5 deg * N(phi) cos(phi), within 1 m of 0.5 *
    # equatorial degree * cos
    assert km(solve(rec("east"))) == pytest.approx(
        0.5 * EQ_DEG_KM * math.cos(math.radians(0.5)), abs=0.002
    )
    wrong = solve(rec("south"))
    assert wrong.answer is None and wrong.reason == "direction_does_not_hold"


# ---------------------------------------------------------------------------------------------- A03
def test_event_location_checks_the_period():
    ev = ent(1, "POINT (0 0)", date="2015-12-04T17:57:25Z")
    b, c = ent(2, "POINT (0 1)"), ent(3, "POLYGON ((-1 0.5, 1 0.5, 1 1.5, -1 1.5, -1 0.5))")
    roles = {"event_A": ev[0], "entity_B": b[0], "entity_C": c[0]}

    def located(sub: str, period: str):
        params = {"time_period": period}
        return solve(record(sub, "distance.event_location", "distance", roles, [ev, b, c], params))

    assert km(located("A03.2", "December 2015")) == pytest.approx(MERIDIAN_DEG_KM, abs=0.002)
    assert located("A03.2", "November 2015").reason == "period_mismatch"
    assert km(located("A03.1", "2015")) == pytest.approx(MERIDIAN_DEG_KM, abs=0.002)


# ---------------------------------------------------------------------------------------- A04 / A05
def test_compare_closer_and_farther():
    a, b, c = ent(1, "POINT (0.1 0)"), ent(2, "POINT (0 0.3)"), ent(3, "POINT (0 0)")
    roles = {"entity_A": a[0], "entity_B": b[0], "entity_C": c[0]}
    closer, farther = (
        solve(
            record("A04.1", "distance.compare", "entity_name", roles, [a, b, c], {"rank_type": r})
        )
        for r in ("closer to", "farther from")
    )
    assert closer.answer["entity_ids"] == [a[0]]
    assert farther.answer["entity_ids"] == [b[0]]


def test_neighbour_country_is_not_in_the_triples():
    a, b, c = ent(1, "POINT (0 0)"), ent(2, "POINT (1 0)"), ent(3, "POINT (2 0)")
    roles = {"entity_A": a[0], "entity_B": b[0], "entity_C": c[0]}
    s = solve(record("A05.1", "distance.neighbour_country", "entity_name", roles, [a, b, c]))
    assert s.answer is None and s.reason == "not_in_triples"


# ---------------------------------------------------------------------------------------- A06 / A07
def _aggregate(agg: str | None, sub: str) -> float:
    poly = ent(1, "POLYGON ((-0.5 -0.5, 0.5 -0.5, 0.5 0.5, -0.5 0.5, -0.5 -0.5))", "Commercial")
    ms = [
        ent(2, "POINT (0 0)", "Restaurant"),
        ent(3, "POINT (0.1 0)", "Restaurant"),
        ent(4, "POINT (0.3 0)", "Restaurant"),
    ]
    outside = ent(5, "POINT (3 0)", "Restaurant")  # cited but not in the polygon
    other = ent(6, "POINT (0.2 0)", "Cafe")  # in the polygon but another category
    params = {"aggregation": agg} if agg else {}
    roles = {"category_A": "restaurant", "entity_B": poly[0]}
    rec = record(sub, "distance.aggregate", "distance", roles, [poly, *ms, outside, other], params)
    return km(solve(rec))


def test_aggregate_min_max_average_over_members_inside():
    # equatorial pairs: 0.1, 0.2, 0.3 degrees
    assert _aggregate("minimum", "A06.1") == pytest.approx(0.1 * EQ_DEG_KM, abs=0.001)
    assert _aggregate("maximum", "A06.1") == pytest.approx(0.3 * EQ_DEG_KM, abs=0.001)
    assert _aggregate(None, "A06.2") == pytest.approx(
        0.2 * EQ_DEG_KM, abs=0.001
    )  # conventions: average


def _min_total(cands: list[float], targets: list[float]):
    poly = ent(1, "POLYGON ((-1 -1, 1 -1, 1 1, -1 1, -1 -1))", "Commercial")
    es = [ent(10 + i, f"POINT ({x} 0)", "Restaurant") for i, x in enumerate(cands)]
    es += [ent(20 + i, f"POINT ({x} 0)", "Cafe") for i, x in enumerate(targets)]
    roles = {"category_A": "restaurant", "entity_B": poly[0], "category_C": "cafe"}
    return solve(record("A07.1", "distance.min_total", "entity_name", roles, [poly, *es]))


def test_min_total_picks_the_one_median():
    # totals (degrees): 0 -> 0.25, 0.1 -> 0.15, 0.5 -> 0.75
    s = _min_total([0.0, 0.1, 0.5], [0.05, 0.2])
    assert s.answer["entity_ids"] == ["worldkg:11"]


def test_min_total_accepts_ties_within_tie_rel():
    # two candidates with equal totals (mirror images): both accepted
    s = _min_total([-0.1, 0.1, 0.6], [-0.2, 0.2])
    assert s.answer["entity_ids"] == ["worldkg:10", "worldkg:11"]


# ---------------------------------------------------------------------------------------------- A08
def test_kth_nearest_ranks_entity_c_when_it_is_a_member():
    b = ent(1, "POINT (0 0)", "Station")  # B itself is a member of the category: never ranked
    ms = [
        ent(2, "POINT (0.01 0)", "Station"),
        ent(3, "POINT (0.02 0)", "Station"),
        ent(4, "POINT (0.03 0)", "Station"),
    ]

    def kth(c: tuple, rank: str):
        roles = {"category_A": "station", "entity_B": b[0], "entity_C": c[0]}
        params = {"rank": rank}
        return solve(
            record("A08.1", "distance.kth_nearest", "distance", roles, [b, *ms, c], params)
        )

    # ranking 0.01, 0.015 (C), 0.02 -> third is at 0.02, 0.005 deg from C
    c_member = ent(5, "POINT (0.015 0)", "Station")
    assert km(kth(c_member, "third nearest")) == pytest.approx(0.005 * EQ_DEG_KM, abs=0.001)
    c_other = ent(6, "POINT (0.02 0.01)", "Memorial")
    assert km(kth(c_other, "second nearest")) == pytest.approx(0.01 * MERIDIAN_DEG_KM, abs=0.001)
