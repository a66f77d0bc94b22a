"""SFID M executors: polar position in another entity's frame (M01) and grid conversion (M02).

Independent routes: a spherical great-circle bearing + haversine distance for M01, hand-known
meridian and equator arcs, a hand-written geohash encoder, the documented h3 / geohash vectors, and
S2 containment.
"""

from __future__ import annotations

import json
import math

import h3
import pytest
import s2sphere

from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.questions.generate import execute_sub_template, generate, replay
from tests import question_world as world

R_KM = 6371.0088
BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz"


def sphere_polar(lon1: float, lat1: float, lon2: float, lat2: float) -> tuple[float, float]:
    """(initial great-circle bearing in [0, 360), haversine km) from point 1 to point 2 on a
    sphere."""
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return math.degrees(math.atan2(y, x)) % 360, 2 * R_KM * math.asin(math.sqrt(h))


def geohash_encode(lat: float, lon: float, precision: int) -> str:
    """Textbook geohash: interleave longitude/latitude bisection bits (lon first), 5 bits per
    character."""
    lo, hi = [-180.0, -90.0], [180.0, 90.0]
    out, bits, ch, axis = [], 0, 0, 0
    while len(out) < precision:
        v = (lon, lat)[axis]
        mid = (lo[axis] + hi[axis]) / 2
        ch = ch * 2 + (v >= mid)
        (lo if v >= mid else hi)[axis] = mid
        axis, bits = 1 - axis, bits + 1
        if bits == 5:
            out.append(BASE32[ch])
            bits, ch = 0, 0
    return "".join(out)


def _finish(sub_id: str, **row):
    sub = load_catalog().sub_template(sub_id)
    return EXECUTORS[sub.executor].finish(sub, row)


def _polar(a: tuple[float, float], b: tuple[float, float]):
    """M01 gold for entity_A at ``a`` seen from entity_B at ``b`` (both lon, lat)."""
    return _finish(
        "M01.1", entity_A_lon=a[0], entity_A_lat=a[1], entity_B_lon=b[0], entity_B_lat=b[1]
    )


def test_m01_hand_known_arcs():
    # one degree of meridian from the equator is 110.574 km, one degree of equator 111.319 km
    # (WGS84)
    assert _polar((0.0, 1.0), (0.0, 0.0)).gold == {"angle_deg": 0.0, "distance_km": 110.574}
    assert _polar((1.0, 0.0), (0.0, 0.0)).gold == {"angle_deg": 90.0, "distance_km": 111.319}
    assert _polar((-1.0, 0.0), (0.0, 0.0)).gold == {"angle_deg": 270.0, "distance_km": 111.319}
    assert _polar((0.0, -1.0), (0.0, 0.0)).gold["angle_deg"] == 180.0
    assert _polar((10.0, 10.0), (10.0, 10.00001)).reason == "points_too_close"


@pytest.fixture
def m_world(con):
    pts = [
        ("worldkg:1", "Cafe Azul", -51.2200, -30.0300),
        ("worldkg:2", "Padaria Sol", -51.2100, -30.0350),
        ("worldkg:3", "Farmacia Lua", -51.2050, -30.0250),
        ("worldkg:4", "Mercado Mar", -51.1000, -30.1000),
        ("worldkg:5", "Banca Rio", -51.2300, -30.0400),
        ("worldkg:6", "Tienda Hermosa", -5.6, 42.6),
    ]
    for eid, name, lon, lat in pts:
        world.add(con, eid, name, "shop", f"POINT({lon} {lat})")
    world.add(
        con,
        "worldkg:7",
        "Helsinki Kahvila",
        "cafe",
        "POINT(24.9400 60.1700)",
        stratum="HIC/high",
        iso3="FIN",
    )
    world.add(
        con,
        "worldkg:8",
        "Helsinki Kirja",
        "shop",
        "POINT(24.9300 60.1750)",
        stratum="HIC/high",
        iso3="FIN",
    )
    return con


def test_m01_matches_spherical_bearing_and_haversine(m_world):
    sub = load_catalog().sub_template("M01.1")
    execs, _ = execute_sub_template(m_world, sub, world.pool(m_world))
    assert len(execs) >= 4
    for e in execs:
        (alon, alat), (blon, blat) = (
            m_world.execute(
                "SELECT lon, lat FROM entities WHERE entity_id = ?", [e.values[r]]
            ).fetchone()
            for r in ("entity_A", "entity_B")
        )
        angle, km = sphere_polar(blon, blat, alon, alat)  # from the reference B to A
        gold = e.outcome.gold
        diff = abs(gold["angle_deg"] - angle) % 360
        assert min(diff, 360 - diff) < 0.3
        assert gold["distance_km"] == pytest.approx(km, rel=0.005)


def test_m02_documented_vectors():
    assert geohash_encode(42.6, -5.6, 5) == "ezs42"  # the reference encoder itself
    assert _finish("M02.3", entity_A_lon=-5.6, entity_A_lat=42.6, precision=5).gold == {
        "geohash": "ezs42",
        "precision": 5,
    }
    assert _finish(
        "M02.1", entity_A_lon=-122.0553238, entity_A_lat=37.3615593, resolution=5
    ).gold == {"system": "h3", "cell": "85283473fffffff", "resolution": 5}
    lon, lat = 140.0, -66.66  # S2 id above 2**63: the gold carries the token
    g = _finish("M02.2", entity_A_lon=lon, entity_A_lat=lat, level=15).gold
    cell = s2sphere.CellId.from_token(g["cell"])
    assert cell.id() > 2**63 and cell.level() == 15 and g["resolution"] == 15
    assert cell.contains(s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(lat, lon)))


def test_m02_generated_cells_contain_the_point(m_world):
    catalog = load_catalog()
    gen = generate(m_world, catalog, ["worldkg"], only={"M02"})
    assert {q["sub_template_id"] for q in gen.questions} == {"M02.1", "M02.2", "M02.3"}
    for q in gen.questions:
        lon, lat = m_world.execute(
            "SELECT lon, lat FROM entities WHERE entity_id = ?",
            [json.loads(q["bindings"])["entity_A"]],
        ).fetchone()
        gold, params = json.loads(q["gold"]), json.loads(q["parameters"])
        if q["sub_template_id"] == "M02.3":
            assert gold["geohash"] == geohash_encode(lat, lon, params["precision"])
            assert "geohash" in q["text"] and str(params["precision"]) in q["text"]
        elif q["sub_template_id"] == "M02.1":
            assert gold["cell"] == h3.latlng_to_cell(lat, lon, params["resolution"])
        else:
            cell = s2sphere.CellId.from_token(gold["cell"])
            assert cell.level() == params["level"] and cell.contains(
                s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(lat, lon))
            )


def test_m_generation_replays(m_world):
    catalog = load_catalog()
    gen = generate(m_world, catalog, ["worldkg"], only={"M"})
    assert {q["tid"] for q in gen.questions} == {"M01", "M02"}
    for q in gen.questions:
        assert replay(m_world, catalog, q) == json.loads(q["gold"])
    texts = " ".join(q["text"] for q in gen.questions)
    assert "{" not in texts
