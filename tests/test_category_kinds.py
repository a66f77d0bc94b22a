"""A category means all its members, whatever their geometry kind (issue 15, item 6).

Hand-made worlds near Porto Alegre (lon/lat, EPSG:4326). Members mapped as polygons are small
squares and members mapped as lines short east-west segments, both built around a chosen centre, so
that their representative point is that centre; the independent checks measure from those centres
with pyproj's Geod (WGS84) and never read the warehouse's representative points.
"""

from __future__ import annotations

import pytest
from pyproj import Geod
from shapely.geometry import LineString, Point, box

from mgqa_platform.questions.catalog import default_catalog
from mgqa_platform.questions.executors import EXECUTORS
from tests import question_world as world

GEOD = Geod(ellps="WGS84")
KG = "worldkg"
ANCHOR = (-51.2200, -30.0300)
REGION = box(ANCHOR[0] - 0.05, ANCHOR[1] - 0.05, ANCHOR[0] + 0.05, ANCHOR[1] + 0.05)


def at(km: float, az: float, origin: tuple[float, float] = ANCHOR) -> tuple[float, float]:
    """The point ``km`` from ``origin`` along azimuth ``az`` (degrees from north), WGS84."""
    x, y, _ = GEOD.fwd(origin[0], origin[1], az, km * 1000.0)
    return x, y


def km_from(origin: tuple[float, float], p: tuple[float, float]) -> float:
    return GEOD.inv(origin[0], origin[1], p[0], p[1])[2] / 1000.0


def shape(kind: str, centre: tuple[float, float], half: float = 0.001):
    """A geometry of ``kind`` whose representative point is ``centre``: the point itself, an
    east-west segment centred on it, or a square centred on it (``half`` degrees each side)."""
    x, y = centre
    if kind == "point":
        return Point(x, y)
    if kind == "line":
        return LineString([(x - half, y), (x + half, y)])
    return box(x - half, y - half, x + half, y + half)


def add(con, eid: str, name: str, category: str, kind: str, centre, **kw) -> None:
    world.add(con, f"{KG}:{eid}", name, category, shape(kind, centre).wkt, **kw)


def run(con, sub_id: str, sql: str = "gold", **values):
    return world.run(con, sub_id, sql, KG, **values)


# ------------------------------------------------------------------------------------ category_kind
def test_category_kind_is_the_kind_most_members_have(con):
    for i, kind in enumerate(("point", "point", "polygon", "line")):
        add(con, f"bs{i}", f"Station {i}", "bus_station", kind, at(1 + i, 90))
    for i, kind in enumerate(("line", "line", "point")):
        add(con, f"st{i}", f"Stream {i}", "stream", kind, at(1 + i, 180))
    for i, kind in enumerate(("polygon", "line")):  # a tie goes to the alphabetically first kind
        add(con, f"x{i}", f"X {i}", "tied", kind, at(1 + i, 270))
    kinds = dict(
        con.execute("SELECT DISTINCT category, category_kind FROM entities ORDER BY 1").fetchall()
    )
    assert kinds == {"bus_station": "point", "stream": "line", "tied": "line"}


def test_point_roles_do_not_bind_a_category_of_mostly_lines(con):
    """category_poi binds the bus stations (mostly points) and counts all four; the streams (mostly
    lines, one point) are bound by category_line only, with all three members."""
    add(con, "a", "Anchor", "cafe", "point", ANCHOR)
    for i, kind in enumerate(("point", "point", "polygon", "line")):
        add(con, f"bs{i}", f"Station {i}", "bus_station", kind, at(1 + i, 90))
    for i, kind in enumerate(("line", "line", "point")):
        add(con, f"st{i}", f"Stream {i}", "stream", kind, at(1 + i, 180))
    world.pool(con, KG)

    def bound(role_type: str) -> dict[str, int]:
        return world.bindable(con, role_type)

    assert bound("category_poi") == {"bus_station": 4}
    assert bound("category_line") == {"stream": 3}
    assert bound("category_polygon") == {}


# ---------------------------------------------------------------------------------------- B01 / B02
@pytest.fixture
def stations(con):
    """Bus stations around the anchor: points, polygons and a line, inside and outside 10 km."""
    add(con, "anchor", "Cristo", "attraction", "point", ANCHOR)
    members = {
        "p1": ("point", 2.0, 10),
        "p2": ("point", 6.5, 120),
        "p3": ("point", 9.0, 300),
        "g1": ("polygon", 3.0, 45),
        "g2": ("polygon", 8.0, 200),
        "l1": ("line", 5.6, 250),
        "p4": ("point", 14.0, 80),  # outside
        "g3": ("polygon", 10.3, 160),  # centre outside; its square reaches inside the radius
    }
    centres = {}
    for eid, (kind, km, az) in members.items():
        centres[eid] = at(km, az)
        geom = shape(kind, centres[eid], 0.004 if eid == "g3" else 0.001)
        world.add(con, f"{KG}:{eid}", f"Terminal {eid}", "bus_station", geom.wkt)
    return con, members, centres


def test_count_within_counts_members_of_every_kind(stations):
    con, members, centres = stations
    out = run(con, "B01.1", category_A="bus_station", entity_B=f"{KG}:anchor", value=10)
    expected = sorted(f"{KG}:{e}" for e, c in centres.items() if km_from(ANCHOR, c) <= 10.0)
    assert out.gold == {"value": 6}
    assert sorted(out.evidence) == expected
    kinds = {members[e.split(":")[1]][0] for e in expected}
    assert kinds == {"point", "polygon", "line"}
    # the square of g3 reaches inside 10 km, but its representative point (the centre) does not
    corner = (centres["g3"][0] - 0.004, centres["g3"][1] + 0.004)
    assert km_from(ANCHOR, corner) < 10.0 < km_from(ANCHOR, centres["g3"])


def test_list_within_names_polygon_and_line_members(stations):
    con, _, centres = stations
    out = run(con, "B02.1", category_A="bus_station", entity_B=f"{KG}:anchor", value=5)
    inside = {f"{KG}:{e}" for e, c in centres.items() if km_from(ANCHOR, c) <= 5.0}
    assert inside == {f"{KG}:p1", f"{KG}:g1"}
    assert set(out.gold["entity_ids"]) == inside


# ---------------------------------------------------------------------------------------------- A08
def test_nearest_member_may_be_a_polygon(con):
    """A08: the nearest bus station to B is a terminal mapped as a polygon; the old point-only
    members would have answered the second-nearest point."""
    b, c = ANCHOR, at(20, 0)
    add(con, "b", "Praca", "square", "point", b)
    add(con, "c", "Farol", "lighthouse", "point", c)
    layout = {"t": ("polygon", 1.0, 90), "q": ("point", 2.5, 180), "r": ("point", 4.0, 270)}
    for eid, (kind, km, az) in layout.items():
        add(con, eid, f"Station {eid}", "bus_station", kind, at(km, az))
    out = run(
        con,
        "A08.1",
        category_A="bus_station",
        entity_B=f"{KG}:b",
        entity_C=f"{KG}:c",
        rank="nearest",
    )
    assert out.gold["value"] == pytest.approx(km_from(at(1.0, 90), c), abs=0.001)
    assert out.evidence[0] == f"{KG}:t"


# -------------------------------------------------------------------------------------- A06 premise
def test_false_premise_sees_members_of_every_kind(con):
    """A06's premise (two members inside the polygon) holds with one point and one polygon
    member."""
    world.add(con, f"{KG}:zone", "Bairro", "suburb", REGION.wkt)
    add(con, "s1", "Station 1", "bus_station", "point", at(1, 0))
    add(con, "s2", "Station 2", "bus_station", "polygon", at(2, 90))
    add(con, "s3", "Station 3", "bus_station", "point", at(40, 90))  # outside the zone
    row = run(
        con,
        "A06.1",
        "premise",
        category_A="bus_station",
        entity_B=f"{KG}:zone",
        aggregation="maximum",
    )
    assert row["holds"] is True


# ---------------------------------------------------------------------------------------- F02 / F03


@pytest.fixture
def parks(con):
    """A region with parks (two squares and one park mapped as a point) and gardens (squares
    only)."""
    world.add(con, f"{KG}:region", "Centro", "suburb", REGION.wkt)
    for i, (kind, half) in enumerate((("polygon", 0.002), ("polygon", 0.004), ("point", 0.0))):
        x, y = at(1 + i, 90)
        world.add(con, f"{KG}:park{i}", f"Parque {i}", "park", shape(kind, (x, y), half).wkt)
    for i, half in enumerate((0.001, 0.003, 0.002)):
        x, y = at(1 + 2 * i, 0)
        world.add(
            con, f"{KG}:garden{i}", f"Jardim {i}", "garden", shape("polygon", (x, y), half).wkt
        )
    return con


def test_area_ranking_refuses_a_category_with_point_members(parks):
    out = run(
        parks,
        "F02.1",
        category_A="park",
        entity_B=f"{KG}:region",
        rank_type="largest",
        attribute_A="area",
    )
    assert out.gold is None and out.reason == "member_without_measure"
    out = run(
        parks,
        "F02.1",
        category_A="garden",
        entity_B=f"{KG}:region",
        rank_type="largest",
        attribute_A="area",
    )
    assert out.gold["entity_ids"] == [f"{KG}:garden1"]


def test_area_ranking_candidates_skip_mixed_categories(parks):
    pool = world.pool(parks, KG)
    for sub_id in ("F02.1", "F03.2"):
        sub = default_catalog().sub_template(sub_id)
        sql = EXECUTORS[sub.executor].candidates(sub, pool)
        cats = {r[0] for r in parks.execute(f"SELECT DISTINCT category_A FROM ({sql})").fetchall()}
        assert cats == {"garden"}, sub_id


def test_direction_extreme_ranks_every_member(parks):
    """F01.2 needs no measure: the park mapped as a point takes part, by its point."""
    out = run(parks, "F01.2", category_A="park", entity_B=f"{KG}:region", cardinal_direction="east")
    assert out.gold["entity_ids"] == [f"{KG}:park2"]


# ---------------------------------------------------------------------------------------- D01 / D03
ROAD = LineString([(-51.000, -30.000), (-51.010, -30.000)])


def test_traverse_discards_a_point_member_on_the_route(con):
    world.add(con, f"{KG}:road", "Rua A", "residential", ROAD.wkt)
    world.add(con, f"{KG}:k1", "Bosque 1", "park", box(-51.004, -30.001, -51.002, -29.999).wkt)
    world.add(con, f"{KG}:k2", "Bosque 2", "park", box(-51.008, -30.003, -51.006, -30.002).wkt)
    world.add(con, f"{KG}:k3", "Bosque 3", "park", Point(-51.005, -30.02).wkt)  # 2 km away
    world.add(
        con, f"{KG}:k5", "Bosque 5", "park", box(-51.004, -30.03, -51.002, -30.029).wkt
    )  # 3 km away
    out = run(con, "D02.2", category_A="park", entity_B=f"{KG}:road")
    assert out.gold == {"value": 1}
    world.add(
        con, f"{KG}:k4", "Bosque 4", "park", Point(-51.007, -30.0001).wkt
    )  # ~11 m from the road
    out = run(con, "D02.2", category_A="park", entity_B=f"{KG}:road")
    assert out.gold is None and out.reason == "unmeasured_member_on_route"


def test_pass_by_measures_a_polygon_member_from_its_nearest_point(con):
    """D04.1: a bus terminal mapped as a polygon whose centre is ~170 m from the road but whose edge
    is ~60 m from it is passed by (buffer 100 m); a point 150 m away is not."""
    world.add(con, f"{KG}:road", "Rua A", "residential", ROAD.wkt)
    edge = GEOD.fwd(-51.005, -30.0, 0.0, 60.0)[1]
    far = GEOD.fwd(-51.005, -30.0, 0.0, 280.0)[1]
    world.add(con, f"{KG}:t1", "Terminal 1", "bus_station", box(-51.0055, edge, -51.0045, far).wkt)
    world.add(
        con,
        f"{KG}:t2",
        "Terminal 2",
        "bus_station",
        Point(-51.003, GEOD.fwd(-51.003, -30.0, 0.0, 150.0)[1]).wkt,
    )
    world.add(
        con,
        f"{KG}:t3",
        "Terminal 3",
        "bus_station",
        Point(-51.002, GEOD.fwd(-51.002, -30.0, 0.0, 40.0)[1]).wkt,
    )
    out = run(con, "D04.1", category_A="bus_station", entity_B=f"{KG}:road")
    assert out.gold == {"value": 2}
    assert sorted(out.evidence) == [f"{KG}:t1", f"{KG}:t3"]


# ---------------------------------------------------------------------------------------- E02 / E03
def test_components_count_a_point_member_inside(con):
    world.add(con, f"{KG}:region", "Centro", "suburb", REGION.wkt)
    for i in range(3):
        x, y = at(1 + i, 90)
        world.add(con, f"{KG}:q{i}", f"Quadra {i}", "neighbourhood", shape("polygon", (x, y)).wkt)
    world.add(con, f"{KG}:q9", "Quadra 9", "neighbourhood", Point(*at(2, 0)).wkt)
    world.add(con, f"{KG}:q8", "Quadra 8", "neighbourhood", Point(*at(40, 0)).wkt)  # outside
    out = run(con, "E02.2", category_A="neighbourhood", entity_B=f"{KG}:region")
    assert out.gold == {"value": 4}


def test_collection_count_counts_polygon_members(con):
    world.add(con, f"{KG}:region", "Centro", "administrative_region", REGION.wkt)
    for i, kind in enumerate(("point", "point", "polygon")):
        add(con, f"s{i}", f"Escola {i}", "school", kind, at(1 + i, 45))
    for i, kind in enumerate(("point", "line", "point")):
        add(con, f"h{i}", f"Hospital {i}", "hospital", kind, at(1 + i, 225))
    add(con, "h9", "Hospital 9", "hospital", "polygon", at(30, 225))  # outside
    out = run(con, "E03.1", category_A="school", category_B="hospital", entity_A=f"{KG}:region")
    assert out.gold == {"value": 6}


# ---------------------------------------------------------------------------------------------- I02
def test_event_area_affects_members_by_what_they_are_mapped_as(con):
    """I02.1: a fire footprint affects the neighbourhoods it overlaps (polygons, by overlap area)
    and the one mapped as a point inside it (by its point); members outside are not affected."""
    fire = box(ANCHOR[0] - 0.02, ANCHOR[1] - 0.02, ANCHOR[0] + 0.02, ANCHOR[1] + 0.02)
    world.add(
        con,
        f"{KG}:fire",
        "Fire",
        "wildfire",
        fire.wkt,
        valid_from="2020-01-01",
        valid_to="2020-01-05",
    )
    for i in range(2):
        add(con, f"n{i}", f"Bairro {i}", "neighbourhood", "polygon", at(0.5 + i, 90))
    add(con, "n2", "Bairro 2", "neighbourhood", "polygon", at(30, 90))  # outside
    add(con, "n9", "Bairro 9", "neighbourhood", "point", at(1, 0))
    add(con, "n8", "Bairro 8", "neighbourhood", "point", at(30, 0))  # outside
    out = run(con, "I02.1", event_A=f"{KG}:fire", category_A="neighbourhood")
    assert out.gold["entity_ids"] == [f"{KG}:n0", f"{KG}:n1", f"{KG}:n9"]
