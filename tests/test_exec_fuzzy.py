"""SFID L executors (vague spatial notions) on tiny hand-made worlds.

Points are placed at known geodesic distances with pyproj ``Geod.fwd``; every rule is tested at and
around its thresholds (pure functions and ``finish`` on crafted rows), and the world answers are
recomputed independently with ``Geod.inv`` and with shapely in a separately built AEQD projection.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from pyproj import CRS, Geod, Transformer
from shapely import wkt as shapely_wkt
from shapely.geometry import Point, Polygon

from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executor import replay_sql
from mgqa_platform.questions.executors import EXECUTORS, fuzzy
from mgqa_platform.questions.generate import generate, replay
from tests import question_world as world

CATALOG = load_catalog()
KG = "osmh3kg"
GEOD = Geod(ellps="WGS84")
LON0, LAT0 = -51.2, -30.03


def at(km: float, az: float = 90.0, lon: float = LON0, lat: float = LAT0) -> tuple[float, float]:
    x, y, _ = GEOD.fwd(lon, lat, az, km * 1000.0)
    return x, y


def pt(lonlat) -> str:
    return f"POINT({lonlat[0]!r} {lonlat[1]!r})"


# region R: a ~2 km square whose west edge is the meridian LON0 (lat LAT0 .. LAT0 + 0.018)
R_LON1 = at(2.0)[0]
REGION = (
    f"POLYGON(({LON0} {LAT0}, {R_LON1} {LAT0}, {R_LON1} {LAT0 + 0.018}, "
    f"{LON0} {LAT0 + 0.018}, {LON0} {LAT0}))"
)
MID = LAT0 + 0.009
POINTS = {  # name -> (lon, lat) of cafes / benches around the anchor "A0" at (LON0, LAT0)
    "A0": (LON0, LAT0),
    "N19": at(1.9, 200),
    "V3": at(3.0, 200),
    "F55": at(5.5, 200),  # near / vague / not near (2, 5 km)
    "C10": at(1.0, 300),
    "C108": at(1.08, 300),
    "C12": at(1.2, 300),
    "C60": at(60, 300),  # roughly closest cafes
    "IN": (LON0 + 0.005, MID),
    "ON": (LON0, MID),
    "OUT09": at(0.9, 270, LON0, MID),
    "OUT11": at(1.1, 270, LON0, MID),
    "OUT30": at(30, 270, LON0, MID),
}
CATEGORY = {"C10": "cafe", "C108": "cafe", "C12": "cafe", "C60": "pharmacy", "F55": "pharmacy"}


def eid(name: str) -> str:
    return f"{KG}:node/{name}" if name in POINTS else f"{KG}:way/{name}"


@pytest.fixture
def fz(con):
    for name, ll in POINTS.items():
        world.add(con, eid(name), name, CATEGORY.get(name, "bench"), pt(ll))
    for name, ll in (
        ("P0", (LON0 - 0.3, LAT0 - 0.3)),
        ("P1", at(8, 45, LON0 - 0.3, LAT0 - 0.3)),
        ("P2", at(40, 45, LON0 - 0.3, LAT0 - 0.3)),
        ("P3", at(150, 45, LON0 - 0.3, LAT0 - 0.3)),
    ):
        world.add(con, f"{KG}:node/{name}", name, "village", pt(ll))
    world.add(con, eid("R"), "Parc R", "park", REGION)
    world.add(
        con,
        eid("HALF"),
        "Half",
        "building",
        f"POLYGON(({LON0 - 0.005} {LAT0 + 0.002}, {LON0 + 0.005} {LAT0 + 0.002}, "
        f"{LON0 + 0.005} {LAT0 + 0.004}, {LON0 - 0.005} {LAT0 + 0.004}, "
        f"{LON0 - 0.005} {LAT0 + 0.002}))",
    )
    world.add(
        con,
        eid("INNER"),
        "Inner",
        "building",
        f"POLYGON(({LON0 + 0.002} {LAT0 + 0.002}, {LON0 + 0.004} {LAT0 + 0.002}, "
        f"{LON0 + 0.004} {LAT0 + 0.004}, {LON0 + 0.002} {LAT0 + 0.004}, "
        f"{LON0 + 0.002} {LAT0 + 0.002}))",
    )
    world.add(
        con,
        eid("AWAY"),
        "Away",
        "building",
        f"POLYGON(({LON0 - 0.05} {LAT0}, {LON0 - 0.04} {LAT0}, "
        f"{LON0 - 0.04} {LAT0 + 0.01}, {LON0 - 0.05} {LAT0 + 0.01}, {LON0 - 0.05} {LAT0}))",
    )
    return con


def _id(v: str) -> str:
    return f"{KG}:node/{v}" if v in POINTS or v.startswith("P") else eid(v)


def run(con, sub_id: str, sql: str | None = None, **values):
    sub = CATALOG.sub_template(sub_id)
    ex = EXECUTORS[sub.executor]
    vals = {r: _id(v) if r.startswith("entity") else v for r, v in values.items()}
    cur = con.execute(replay_sql(ex, sub, {"row_id": 0, "kg": KG, **vals}, sql))
    row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    return row if sql else ex.finish(sub, row)


def value(con, sub_id, **values):
    out = run(con, sub_id, **values)
    return out.gold["value"] if out.gold else out.reason


def km(a: str, b: str) -> float:
    (x0, y0), (x1, y1) = POINTS[a], POINTS[b]
    return GEOD.inv(x0, y0, x1, y1)[2] / 1000.0


# --------------------------------------------------------------------------------------- pure rules
def test_band_rules_at_thresholds():
    near = CATALOG.sub_template("L01.1")  # 2 / 5 km
    far = CATALOG.sub_template("L02.1")  # far 20, not far 10
    ex_near, ex_far = EXECUTORS["fuzzy.near"], EXECUTORS["fuzzy.far"]
    for d, expected in (
        (1.0, True),
        (2.0, True),
        (2.0001, None),
        (4.9999, None),
        (5.0, False),
        (7.0, False),
    ):
        assert ex_near.rule(near, d) is expected, d
        out = ex_near.finish(near, {"km": d})
        assert (out.gold["value"] if out.gold else None) is expected and (
            out.gold or out.reason == "vague_band"
        )
    for d, expected in (
        (9.0, False),
        (10.0, False),
        (10.0001, None),
        (19.9999, None),
        (20.0, True),
        (25.0, True),
    ):
        assert ex_far.rule(far, d) is expected, d
    assert ex_near.finish(near, {"km": 0.0}).reason == "coincident_points"


def test_near_membership_and_margin():
    assert fuzzy.near_membership(2.0, 2, 20) == 1.0 and fuzzy.near_membership(20.0, 2, 20) == 0.0
    assert fuzzy.near_membership(11.0, 2, 20) == pytest.approx(0.5)
    assert fuzzy.near_membership(1.0, 2, 20) == 1.0 and fuzzy.near_membership(30.0, 2, 20) == 0.0
    sub = CATALOG.sub_template("L03.1")
    sub = replace(
        sub, conventions={**sub.conventions, "near_full_km": 0, "near_zero_km": 16, "margin": 0.125}
    )
    ex = EXECUTORS["fuzzy.likelier_near"]
    assert ex.finish(sub, {"km_b": 1.0, "km_c": 3.0}).gold == {
        "value": True
    }  # 15/16 - 13/16 = margin exactly
    assert ex.finish(sub, {"km_b": 3.0, "km_c": 1.0}).gold == {"value": False}
    assert ex.finish(sub, {"km_b": 1.0, "km_c": 2.99}).reason == "too_close_to_call"
    assert (
        ex.finish(sub, {"km_b": 20.0, "km_c": 30.0}).reason == "too_close_to_call"
    )  # both not near at all


def test_roughly_closest_thresholds():
    ms = lambda *d: [{"id": str(i), "km": x} for i, x in enumerate(d)]  # noqa: E731
    got = lambda *d: [m["km"] for m in fuzzy.roughly_closest(ms(*d), 0.1, 0.05)]  # noqa: E731
    assert got(1.0, 1.1, 1.1001) == [1.0, 1.1]  # cut = max(1.1, 1.05)
    assert got(0.2, 0.25, 0.2501) == [0.2, 0.25]  # cut = max(0.22, 0.25)
    assert got(3.0) == [3.0] and got() == []


def test_within_rules_at_thresholds():
    assert fuzzy.point_within_answer(True, 0.0, 1.0) is True
    assert fuzzy.point_within_answer(False, 1.0, 1.0) == "plausibly"
    assert fuzzy.point_within_answer(False, 1.0001, 1.0) is False
    assert fuzzy.share_within_answer(0.99, 0.99, 0.01) is True
    assert fuzzy.share_within_answer(0.9899, 0.99, 0.01) == "plausibly"
    assert fuzzy.share_within_answer(0.0101, 0.99, 0.01) == "plausibly"
    assert fuzzy.share_within_answer(0.01, 0.99, 0.01) is False


# --------------------------------------------------------------------------------------- hand world
def test_near_far_world_matches_geod(fz):
    for b in ("N19", "V3", "F55"):
        d = km("A0", b)
        expected = True if d <= 2 else False if d >= 5 else "vague_band"
        assert value(fz, "L01.1", entity_A="A0", entity_B=b) == expected, b
        far = False if d <= 10 else True if d >= 20 else "vague_band"
        assert value(fz, "L02.1", entity_A="A0", entity_B=b) == far, b
    assert value(fz, "L02.1", entity_A="A0", entity_B="C60") is True
    assert value(fz, "L03.1", entity_A="A0", entity_B="N19", entity_C="F55") is True
    assert value(fz, "L03.1", entity_A="A0", entity_B="F55", entity_C="N19") is False
    assert value(fz, "L02.2", entity_A="P0", entity_B="P3") is True  # 150 km
    assert value(fz, "L01.2", entity_A="P0", entity_B="P1") is True  # 8 km


def test_roughly_closest_world_and_premise(fz):
    out = run(fz, "L04.1", category_A="cafe", entity_B="A0")
    d = sorted((km("A0", c), c) for c in ("C10", "C108", "C12"))  # independent: Geod.inv
    cut = max(d[0][0] * 1.1, d[0][0] + 0.05)
    expected = sorted(eid(c) for x, c in d if x <= cut)
    assert expected == [eid("C10"), eid("C108")]
    assert out.gold["entity_ids"] == expected and set(out.evidence) == set(expected)
    assert run(fz, "L04.1", category_A="pharmacy", entity_B="A0").gold["entity_ids"] == [
        eid("F55")
    ]  # C60 beyond 50 km
    ex, sub = EXECUTORS["fuzzy.roughly_closest"], CATALOG.sub_template("L04.1")

    def holds(cat, b):
        return run(fz, "L04.1", ex.premise_sql(sub), category_A=cat, entity_B=b)["holds"]

    assert holds("cafe", "A0") is True
    assert holds("pharmacy", "C60") is False  # F55 is ~60 km away, C60 itself is excluded
    assert run(fz, "L04.1", category_A="pharmacy", entity_B="C60").reason == "no_member_in_radius"
    assert sub.perturb_role == "category_A"


def _aeqd_boundary_km(lon, lat, wkt):
    crs = CRS.from_dict(
        {"proj": "aeqd", "lat_0": lat, "lon_0": lon, "datum": "WGS84", "units": "m"}
    )
    tr = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
    poly = Polygon([tr.transform(x, y) for x, y in shapely_wkt.loads(wkt).exterior.coords])
    d = poly.exterior.distance(Point(0, 0)) / 1000.0
    return d, poly.covers(
        Point(0, 0)
    ) or d < 1e-9  # on the boundary (up to projection round-off) counts as inside


def test_plausibly_within_points_match_aeqd(fz):
    for name in ("IN", "ON", "OUT09", "OUT11", "OUT30"):
        d, covered = _aeqd_boundary_km(*POINTS[name], REGION)
        expected = True if covered else "plausibly" if d <= 1.0 else False
        assert value(fz, "L05.1", entity_A=name, entity_B="R") == expected, (name, d)
        row = run(
            fz,
            "L05.1",
            EXECUTORS["fuzzy.plausibly_within"].gold_sql(CATALOG.sub_template("L05.1")),
            entity_A=name,
            entity_B="R",
        )
        if not covered:
            assert row["boundary_km"] == pytest.approx(d, rel=2e-3), name
    assert [
        value(fz, "L05.1", entity_A=n, entity_B="R") for n in ("IN", "ON", "OUT09", "OUT11")
    ] == [True, True, "plausibly", False]


def test_plausibly_within_polygons(fz):
    assert value(fz, "L05.3", entity_A="INNER", entity_B="R") is True
    assert value(fz, "L05.3", entity_A="HALF", entity_B="R") == "plausibly"  # about half inside
    assert value(fz, "L05.3", entity_A="AWAY", entity_B="R") is False
    row = run(
        fz,
        "L05.3",
        EXECUTORS["fuzzy.plausibly_within"].gold_sql(CATALOG.sub_template("L05.3")),
        entity_A="HALF",
        entity_B="R",
    )
    to6933 = Transformer.from_crs("EPSG:4326", "EPSG:6933", always_xy=True)
    a, b = (
        Polygon([to6933.transform(x, y) for x, y in shapely_wkt.loads(w).exterior.coords])
        for w in (
            fz.execute(
                "SELECT ST_AsText(geometry) FROM entities WHERE entity_id = ?", [eid(n)]
            ).fetchone()[0]
            for n in ("HALF", "R")
        )
    )
    assert row["share"] == pytest.approx(a.intersection(b).area / a.area, rel=1e-6)


# ----------------------------------------------------------------------------------------- generate
def test_generate_l_replays_every_question(fz):
    gen = generate(fz, CATALOG, [KG], only={"L"}, seed=11)
    assert {"L01", "L02", "L04", "L05"} <= {q["tid"] for q in gen.questions}
    for q in gen.questions:
        assert replay(fz, CATALOG, q) == json.loads(q["gold"]), q["text"]
    l05 = {
        json.loads(q["gold"])["value"]
        for q in gen.questions
        if q["tid"] == "L05" and not q["false_premise"]
    }
    assert {True, False, "plausibly"} <= l05
    assert generate(fz, CATALOG, [KG], only={"L"}, seed=11).questions == gen.questions
