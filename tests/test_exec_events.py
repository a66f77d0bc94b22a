"""SFID I executors (spatio-temporal events) on a tiny hand-made Santa Barbara world (kwg).

Independent routes: geodesic areas with ``pyproj.Geod.geometry_area_perimeter`` on shapely
geometries (vs the EPSG:6933 areas of DuckDB), shapely intersections, ``Geod.inv`` on the boundary
densified every ~20 m (vs the azimuthal-equidistant footprint distance), hand-computed UTC dates and
hand-known affected members.
"""

from __future__ import annotations

import json

import pytest
from pyproj import Geod
from shapely import wkt as shapely_wkt
from shapely.geometry import Point, box

from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.questions.executors.events import (
    date_stated,
    distance_to_footprint_km,
    event_date,
    time_period,
)
from mgqa_platform.questions.generate import execute_sub_template, generate, replay
from tests import question_world as world

CATALOG = load_catalog()
GEOD = Geod(ellps="WGS84")
KG = "kwg"

POLYS = {  # id -> (name, category, box(lon0, lat0, lon1, lat1), valid_from)
    "county": ("Test County", "administrative_region", box(-120.0, 34.3, -119.5, 34.7), None),
    "b1": ("Block One", "city_block", box(-119.75, 34.42, -119.65, 34.48), None),
    "b2": ("Block Two", "city_block", box(-119.60, 34.60, -119.55, 34.65), None),
    "b3": ("Block Three", "city_block", box(-119.90, 34.35, -119.85, 34.38), None),
    "park": ("Oak Park", "park", box(-119.78, 34.38, -119.74, 34.42), None),
    "f1": ("JESUSITA (2009)", "wildfire", box(-119.80, 34.40, -119.70, 34.45), "2009-05-05"),
    "f2": ("FAR (2001)", "wildfire", box(-118.0, 34.0, -117.9, 34.1), "2001-08-02"),
}
POINTS = {  # id -> (name, category, (lon, lat), valid_from)
    "s1": ("School One", "school", (-119.76, 34.43), None),
    "s2": ("School Two", "school", (-119.72, 34.41), None),
    "s3": ("School Three", "school", (-119.60, 34.60), None),
    "v1": ("Hill Village", "village", (-119.63, 34.52), None),
    "q1": (
        "M 2.1 - 5km N of Somewhere",
        "earthquake",
        (-119.62, 34.50),
        "2015-11-29T23:30:00-05:00",
    ),
    "q2": ("M 3.0 - Alaska", "earthquake", (-150.0, 61.0), "2015-12-01T10:00:00.000Z"),
}


def eid(key: str) -> str:
    return f"{KG}:{key}"


@pytest.fixture
def sb(con):
    for k, (name, cat, geom, vf) in POLYS.items():
        world.add(
            con,
            eid(k),
            name,
            cat,
            geom.wkt,
            stratum="HIC/high",
            iso3="USA",
            valid_from=vf,
            valid_to=vf,
        )
    for k, (name, cat, (lon, lat), vf) in POINTS.items():
        attrs = {"magnitude": 2.1, "depthKm": 5} if cat == "earthquake" else None
        world.add(
            con,
            eid(k),
            name,
            cat,
            f"POINT({lon} {lat})",
            stratum="HIC/high",
            iso3="USA",
            valid_from=vf,
            attributes=attrs,
        )
    return con


def run(con, sub, sql: str, **values) -> dict:
    row = {
        "row_id": 0,
        "kg": KG,
        **{k: v if k.startswith("category") else eid(v) for k, v in values.items()},
    }
    return world.on_row(con, sql, row)


def gold(con, sub_id: str, **values):
    sub = CATALOG.sub_template(sub_id)
    ex = EXECUTORS[sub.executor]
    return ex.finish(sub, run(con, sub, ex.gold_sql(sub), **values))


def premise(con, sub_id: str, **values) -> bool:
    sub = CATALOG.sub_template(sub_id)
    return run(con, sub, EXECUTORS[sub.executor].premise_sql(sub), **values)["holds"]


def geod_area_km2(g) -> float:
    return abs(GEOD.geometry_area_perimeter(g)[0]) / 1e6


# ---------------------------------------------------------------- pure helpers
def test_event_date_utc_and_precision():
    assert event_date("2015-11-29T23:30:00-05:00") == "2015-11-30"  # 04:30 UTC next day
    assert event_date("2015-11-22T19:21:49.000Z") == "2015-11-22"
    assert event_date("1999-06-15") == "1999-06-15"
    assert event_date("1999-06") == "1999-06" and event_date("1999") == "1999"
    assert event_date("") is None and event_date("soon") is None
    assert time_period("2015-11-30") == "2015-01-01 to 2015-12-31"


def test_footprint_distance_against_densified_geodesic():
    poly = POLYS["f1"][2]
    for lon, lat in [(-119.60, 34.43), (-119.75, 34.60), (-119.95, 34.30)]:
        ring = poly.exterior.segmentize(0.0002)  # ~20 m steps
        best = min(GEOD.inv(lon, lat, x, y)[2] for x, y in ring.coords) / 1000.0
        assert distance_to_footprint_km(poly.wkt, lon, lat) == pytest.approx(
            best, rel=0.002, abs=0.02
        )
    assert distance_to_footprint_km(poly.wkt, -119.75, 34.42) == 0.0


# ---------------------------------------------------------------- I01 distance
def test_event_distance(sb):
    lon, lat = POINTS["q1"][2]
    slon, slat = POINTS["s3"][2]
    out = gold(sb, "I01.1", event_A="q1", entity_B="s3")
    assert out.gold["value"] == pytest.approx(GEOD.inv(lon, lat, slon, slat)[2] / 1000.0, abs=0.001)
    assert out.extras == {"time_period": "2015-01-01 to 2015-12-31"}
    out = gold(sb, "I01.2", event_A="f1", entity_B="s3")
    assert out.gold["value"] == pytest.approx(
        distance_to_footprint_km(POLYS["f1"][2].wkt, slon, slat), abs=0.001
    )
    assert out.extras["time_period"] == "2009-01-01 to 2009-12-31"
    assert gold(sb, "I01.2", event_A="f1", entity_B="s1").reason == "inside_footprint"
    assert gold(sb, "I01.3", event_A="q1", entity_B="v1").gold["value"] > 0


# ---------------------------------------------------------------- I02 affected sets
def test_affected_members_and_premise(sb):
    assert gold(sb, "I02.3", event_A="f1", category_A="school").gold["entity_ids"] == [
        eid("s1"),
        eid("s2"),
    ]
    assert gold(sb, "I02.1", event_A="f1", category_A="city_block").gold["entity_ids"] == [
        eid("b1")
    ]
    assert gold(sb, "I02.2", event_A="q1", category_A="city_block").gold["entity_ids"] == [
        eid("b1")
    ]  # b2 is ~11 km off
    assert gold(sb, "I02.3", event_A="f2", category_A="school").reason == "no_affected_member"
    assert premise(sb, "I02.3", event_A="f1", category_A="school") is True
    assert premise(sb, "I02.3", event_A="f2", category_A="school") is False
    assert premise(sb, "I02.2", event_A="q2", category_A="city_block") is False


def test_affected_radius_against_geodesic(sb):
    """b2's nearest point to q1 is its south-west corner region; check the 10 km rule by a dense
    geodesic scan."""
    lon, lat = POINTS["q1"][2]
    for k, expected in (("b1", True), ("b2", False), ("b3", False)):
        ring = POLYS[k][2].exterior.segmentize(0.0005)
        km = min(GEOD.inv(lon, lat, x, y)[2] for x, y in ring.coords) / 1000.0
        assert (km <= 10.0) is expected


# ---------------------------------------------------------------- I03 hit date
def test_hit_date_and_premise(sb):
    assert gold(sb, "I03.1", event_A="q1", entity_A="county").gold == {
        "value": "2015-11-30",
        "precision": "day",
    }
    assert gold(sb, "I03.2", event_A="f1", entity_A="county").gold == {
        "value": "2009-05-05",
        "precision": "day",
    }
    assert gold(sb, "I03.3", event_A="q1", entity_A="v1").gold["value"] == "2015-11-30"
    assert gold(sb, "I03.2", event_A="f2", entity_A="county").reason == "not_affected"
    assert premise(sb, "I03.1", event_A="q1", entity_A="county") is True
    assert premise(sb, "I03.1", event_A="q2", entity_A="county") is False
    assert premise(sb, "I03.2", event_A="f2", entity_A="county") is False


def test_date_stated_by_a_name_at_the_golds_precision():
    quake = "the magnitude 2.1 earthquake of 30 November 2015 at 04:30 UTC"
    assert date_stated(quake, "2015-11-30")
    assert not date_stated(quake, "2015-11-29")
    assert date_stated(quake, "2015-11") and date_stated(quake, "2015")
    assert not date_stated("the Jesusita Fire of 2009", "2009-05-05")
    assert date_stated("the Jesusita Fire of 2009", "2009")
    assert not date_stated("the Fire of 20091", "2009")
    assert date_stated("Flood 2009-05-05", "2009-05-05")


def test_hit_date_is_discarded_when_the_event_name_states_it(sb):
    """An earthquake is named by its day: "When did the magnitude 2.1 earthquake of 30 November
    2015 ... hit Test County?" would state its own answer."""
    con = sb
    named = {
        "q9": (
            "the magnitude 2.1 earthquake of 30 November 2015 at 04:30 UTC",
            "2015-11-29T23:30:00-05:00",
        ),
        "f9": ("the Jesusita Fire of 2009", "2009-05-05"),
        "f8": ("the Tea Fire of 2008", "2008"),
    }
    for k, (display, vf) in named.items():
        src = POINTS["q1"] if k == "q9" else POLYS["f1"]
        geom = f"POINT({src[2][0]} {src[2][1]})" if k == "q9" else src[2].wkt
        cat = "earthquake" if k == "q9" else "wildfire"
        world.add(
            con,
            eid(k),
            display,
            cat,
            geom,
            stratum="HIC/high",
            iso3="USA",
            valid_from=vf,
            display_name=display,
        )
    assert gold(con, "I03.1", event_A="q9", entity_A="county").reason == "date_in_name"
    assert gold(con, "I03.2", event_A="f9", entity_A="county").gold["value"] == "2009-05-05"
    assert gold(con, "I03.2", event_A="f8", entity_A="county").reason == "date_in_name"


# ---------------------------------------------------------------- I04 / I05 areas
def test_areas_against_geodesic(sb):
    f1 = POLYS["f1"][2]
    assert gold(sb, "I04.1", event_A="f1").gold["value"] == pytest.approx(
        geod_area_km2(f1), rel=1e-3
    )
    for k, sub_id in (("county", "I05.1"), ("b1", "I05.1"), ("park", "I05.2")):
        inter = f1.intersection(POLYS[k][2])
        assert gold(sb, sub_id, event_A="f1", entity_A=k).gold["value"] == pytest.approx(
            geod_area_km2(inter), rel=1e-3
        )
    assert gold(sb, "I05.1", event_A="f2", entity_A="county").reason == "no_overlap"
    assert premise(sb, "I05.1", event_A="f1", entity_A="b1") is True
    assert premise(sb, "I05.1", event_A="f2", entity_A="b1") is False


def test_candidates_hand_known(sb):
    pool = world.pool(sb, KG)
    got = {}
    for sub_id in ("I02.3", "I03.1", "I03.2", "I05.2", "I01.2"):
        execs, _ = execute_sub_template(sb, CATALOG.sub_template(sub_id), pool)
        got[sub_id] = {tuple(v for k, v in e.values.items() if k != "kg") for e in execs}
    assert got["I02.3"] == {(eid("f1"), "school")}
    assert got["I03.1"] == {(eid("q1"), eid("county"))}  # q2 (Alaska) reaches nothing
    assert got["I05.2"] == {(eid("f1"), eid("park"))}
    assert {t[0] for t in got["I01.2"]} == {eid("f1"), eid("f2")}


# ---------------------------------------------------------------- generate / replay
def test_generate_and_replay_I(sb):
    gen = generate(sb, CATALOG, [KG], only={"I"})
    assert {"I01", "I02", "I03", "I04", "I05"} <= {q["tid"] for q in gen.questions}
    for q in gen.questions:
        assert replay(sb, CATALOG, q) == json.loads(q["gold"])
    period = [
        json.loads(q["parameters"])["time_period"] for q in gen.questions if q["tid"] == "I01"
    ]
    assert period and all(p.endswith("-12-31") for p in period)
    assert all(
        shapely_wkt.loads(POLYS["f1"][2].wkt).contains(Point(POINTS[k][2])) for k in ("s1", "s2")
    )
