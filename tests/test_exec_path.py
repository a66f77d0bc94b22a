"""SFID D executors (traverse / pass by) on a tiny hand-made world near Porto Alegre.

A straight east-west road along latitude -30 (lon -51.000 .. -51.010, ~964 m) with city blocks,
parks, cafes and railway lines placed at known offsets. Independent checks recompute lengths with
pyproj.Geod on the shapely intersection and point distances in a pyproj azimuthal-equidistant
projection centred on the point.
"""

from __future__ import annotations

import json

import pytest
import shapely
from pyproj import Geod, Transformer
from shapely import wkt as shapely_wkt

from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executor import replay_sql
from mgqa_platform.questions.executors import EXECUTORS, path
from mgqa_platform.questions.generate import generate, replay
from tests import question_world as world

CATALOG = load_catalog()
KG = "osmh3kg"
GEOD = Geod(ellps="WGS84")
LAT = -30.0
ROAD = "LINESTRING(-51.000 -30.000, -51.010 -30.000)"


def box(x0, y0, x1, y1) -> str:
    return f"POLYGON(({x0} {y0}, {x1} {y0}, {x1} {y1}, {x0} {y1}, {x0} {y0}))"


def north(lon: float, metres: float) -> str:
    """WKT point ``metres`` north (negative: south) of (lon, -30) along the meridian."""
    lon2, lat2, _ = GEOD.fwd(lon, LAT, 0.0 if metres >= 0 else 180.0, abs(metres))
    return f"POINT({lon2!r} {lat2!r})"


BLOCKS = {
    "B1": box(-51.004, -30.001, -51.002, -29.999),  # road runs ~193 m through it
    "B2": box(-51.008, -30.000, -51.006, -29.998),  # road runs along its south edge only
    "B3": box(-51.004, -30.010, -51.002, -30.009),  # ~1 km south
    "B4": box(-51.0102, -30.0005, -51.0098, -29.9995),  # road ends ~19 m inside
    "B5": box(-51.003, -29.9993, -51.001, -29.998),  # ~78 m north of the road, not entered
}
CAFES = {
    "C1": north(-51.005, 50),
    "C2": north(-51.003, 150),
    "C3": north(-51.007, -80),
    "C4": north(-51.005, 300),
}
RAILS = {
    "R1": "LINESTRING(-51.005 -30.002, -51.005 -29.998)",  # crosses the road
    "R2": "LINESTRING(-51.001 -30.000, -51.009 -30.000)",  # runs along it (collinear ~770 m)
    "R3": "LINESTRING(-51.005 -30.010, -51.006 -30.012)",  # far
}


def eid(name: str) -> str:
    return f"{KG}:way/{name}"


@pytest.fixture
def tiny(con):
    world.add(con, eid("ROAD"), "Main Road", "road", ROAD)
    for n, w in BLOCKS.items():
        world.add(con, eid(n), f"Block {n}", "city_block", w)
    for n, w in CAFES.items():
        world.add(con, eid(n), f"Cafe {n}", "cafe", w)
    for n, w in RAILS.items():
        world.add(con, eid(n), f"Rail {n}", "rail", w)
    return con


def run(con, sub_id: str, **values):
    """(outcome, raw row) of one tuple through gold_sql (via replay_sql) and finish."""
    sub = CATALOG.sub_template(sub_id)
    ex = EXECUTORS[sub.executor]
    cur = con.execute(replay_sql(ex, sub, {"row_id": 0, "kg": KG, **values}))
    row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    return ex.finish(sub, row), row


def premise(con, sub_id: str, **values) -> bool:
    sub = CATALOG.sub_template(sub_id)
    sql = EXECUTORS[sub.executor].premise_sql(sub)
    cols = ["row_id", "kg", *sub.roles, *sub.parameters]
    vals = {"row_id": 0, "kg": KG, **values}
    t = (
        "WITH t("
        + ", ".join(cols)
        + ") AS (VALUES ("
        + ", ".join(f"'{vals[c]}'" if isinstance(vals[c], str) else str(vals[c]) for c in cols)
        + "))"
    )
    return con.execute(f"{t} SELECT holds FROM ({sql}) q").fetchone()[0]


def ids(outcome) -> list[str]:
    return outcome.gold["entity_ids"]


# ----------------------------------------------------------------------------------------- traverse
def test_traverse_regions_known_answer(tiny):
    out, _ = run(tiny, "D01.1", category_A="city_block", entity_B=eid("ROAD"))
    assert ids(out) == [eid("B1")]  # B2: along the edge only; B4: 19 m < 50 m; B3/B5: not reached
    assert out.evidence == (eid("B1"),)
    count, _ = run(tiny, "D02.1", category_A="city_block", entity_B=eid("ROAD"))
    assert count.gold == {"value": 1}


def test_traverse_inside_lengths_match_pyproj(tiny):
    _, row = run(tiny, "D01.1", category_A="city_block", entity_B=eid("ROAD"))
    got = {m["id"]: m["metres"] for m in row["members"]}
    road = shapely_wkt.loads(ROAD)
    for n, w in BLOCKS.items():
        poly = shapely_wkt.loads(w)
        if not road.intersects(poly):
            assert eid(n) not in got
            continue
        inside = GEOD.geometry_length(road.intersection(poly)) - GEOD.geometry_length(
            road.intersection(poly.boundary)
        )
        assert got[eid(n)] == pytest.approx(max(inside, 0.0), abs=0.01)
    assert got[eid("B1")] == pytest.approx(GEOD.inv(-51.004, LAT, -51.002, LAT)[2], rel=1e-6)


def test_traverse_lines_crossing_not_collinear(tiny):
    out, row = run(tiny, "D01.3", category_A="rail", entity_B=eid("ROAD"))
    assert ids(out) == [eid("R1")]
    shared = {m["id"]: m["metres"] for m in row["members"]}
    assert shared[eid("R2")] == pytest.approx(GEOD.inv(-51.001, LAT, -51.009, LAT)[2], rel=1e-6)
    assert shared[eid("R1")] == 0.0


def test_traverse_premise(tiny):
    assert premise(tiny, "D01.1", category_A="city_block", entity_B=eid("ROAD")) is True
    assert premise(tiny, "D01.3", category_A="rail", entity_B=eid("ROAD")) is True
    assert premise(tiny, "D01.1", category_A="city_block", entity_B=eid("R3")) is False


# ------------------------------------------------------------------------------------------ pass by
def test_pass_by_points_known_answer(tiny):
    out, _ = run(tiny, "D03.1", category_A="cafe", entity_B=eid("ROAD"))
    assert ids(out) == [eid("C1"), eid("C3")]  # 50 m and 80 m; C2 150 m and C4 300 m are too far
    out, _ = run(tiny, "D03.2", category_A="cafe", entity_B=eid("ROAD"))
    assert ids(out) == [eid("C1"), eid("C2"), eid("C3")]
    count, _ = run(tiny, "D04.1", category_A="cafe", entity_B=eid("ROAD"))
    assert count.gold == {"value": 2}


def test_point_distance_matches_aeqd(tiny):
    road = shapely_wkt.loads(ROAD)
    for w in CAFES.values():
        p = shapely_wkt.loads(w)
        aeqd = Transformer.from_crs(
            "EPSG:4326", f"+proj=aeqd +lat_0={p.y} +lon_0={p.x} +ellps=WGS84", always_xy=True
        )
        dense = shapely.segmentize(road, 0.0001)
        expected = shapely.Point(0, 0).distance(
            shapely.LineString([aeqd.transform(x, y) for x, y in dense.coords])
        )
        assert path.point_route_m(p.x, p.y, road) == pytest.approx(expected, rel=2e-3)


def test_pass_by_polygons_excludes_traversed(tiny):
    out, _ = run(tiny, "D03.3", category_A="city_block", entity_B=eid("ROAD"))
    assert ids(out) == [eid("B2"), eid("B4"), eid("B5")]  # B1 is traversed, B3 ~1 km away


def test_pass_by_near_buffer_is_discarded(tiny):
    world.add(tiny, eid("C5"), "Cafe C5", "cafe", north(-51.002, 101.0))
    out, _ = run(tiny, "D03.1", category_A="cafe", entity_B=eid("ROAD"))
    assert out.reason == "member_near_buffer"


def test_pass_by_premise(tiny):
    assert premise(tiny, "D03.1", category_A="cafe", entity_B=eid("ROAD")) is True
    assert premise(tiny, "D03.1", category_A="cafe", entity_B=eid("R3")) is False
    # a kiosk 250 m off the road is not passed (buffer 100 m), yet a wider reading of "pass by"
    # could name it: the premise holds up to 3 buffers, so no false premise rests on it; at 350 m it
    # is false
    world.add(tiny, eid("K1"), "Kiosk K1", "kiosk", north(-51.004, 250.0))
    out, _ = run(tiny, "D03.1", category_A="kiosk", entity_B=eid("ROAD"))
    assert out.gold is None
    assert premise(tiny, "D03.1", category_A="kiosk", entity_B=eid("ROAD")) is True
    tiny.execute(f"DELETE FROM entities WHERE entity_id = '{eid('K1')}'")
    world.add(tiny, eid("K2"), "Kiosk K2", "kiosk", north(-51.004, 350.0))
    assert premise(tiny, "D03.1", category_A="kiosk", entity_B=eid("ROAD")) is False


# ----------------------------------------------------------------------------------------- generate
def test_generate_and_replay_sfid_d(tiny):
    # every tuple of the tiny network: its few counts are alike, which the triviality cap would drop
    gen = generate(tiny, CATALOG, [KG], only={"D"}, non_trivial=False)
    assert gen.questions
    assert {q["tid"] for q in gen.questions} >= {"D01", "D02", "D03", "D04"}
    for q in gen.questions:
        assert replay(tiny, CATALOG, q) == json.loads(q["gold"])
        assert q["executor"].split("@")[0] in ("path.traverse", "path.pass_by")
