"""SFID N executors: centroid coordinates (N01) and bounding boxes (N02).

Independent routes: hand-known centroids of shapes symmetric in EPSG:6933, shapely's centroid of the
pyproj-projected geometry (the executor runs DuckDB spatial SQL), and shapely bounds for boxes.
"""

from __future__ import annotations

import json

import pytest
import shapely
from pyproj import Transformer
from shapely.ops import transform as reproject

from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.generate import execute_sub_template, generate, replay
from tests import question_world as world

TO_6933 = Transformer.from_crs("EPSG:4326", "EPSG:6933", always_xy=True)
FROM_6933 = Transformer.from_crs("EPSG:6933", "EPSG:4326", always_xy=True)

SHAPES = {  # entity id -> (name, category, WKT lon/lat, valid_from)
    "worldkg:1": ("Praça Quadrada", "square", "POLYGON((10 -1, 12 -1, 12 1, 10 1, 10 -1))", None),
    "worldkg:2": ("Rua Diagonal", "road", "LINESTRING(0 0, 2 1)", None),
    "worldkg:3": (
        "Kauppatori",
        "square",
        "POLYGON((24.950 60.166, 24.958 60.1665, 24.957 60.170, 24.952 60.1705, "
        "24.9505 60.168, 24.950 60.166))",
        None,
    ),
    "worldkg:4": (
        "Rua Curva",
        "road",
        "LINESTRING(-51.22 -30.03, -51.21 -30.03, -51.20 -30.02, -51.20 -30.00)",
        None,
    ),
    "worldkg:5": (
        "Ilhas",
        "park",
        "MULTIPOLYGON(((30 -2, 30.1 -2, 30.1 -1.9, 30 -2)), "
        "((30.5 -2, 30.6 -2, 30.6 -1.8, 30.5 -1.8, 30.5 -2)))",
        None,
    ),
    "worldkg:6": ("Date Line Ferry", "road", "LINESTRING(179.5 -17, -179.5 -16.5)", None),
    "worldkg:7": ("Rua Reta", "road", "LINESTRING(5 3, 6 3)", None),
    "worldkg:8": ("Cafe Ponto", "cafe", "POINT(-51.2200 -30.0300)", None),
    "worldkg:9": (
        "Fogo Grande (2020)",
        "wildfire",
        "POLYGON((-119.8 34.4, -119.6 34.4, -119.6 34.55, -119.8 34.5, -119.8 34.4))",
        "2020-08-01",
    ),
    "worldkg:10": ("Via Nova", "road", "LINESTRING(10 20, 10.1 20.2)", None),
}
#: entities whose name is ambiguous within the KG (``name_unique`` false): never bound as entity_A
AMBIGUOUS = {"worldkg:10"}


@pytest.fixture
def n_world(con):
    for eid, (name, cat, wkt, since) in SHAPES.items():
        world.add(con, eid, name, cat, wkt, valid_from=since, name_unique=eid not in AMBIGUOUS)
    return con


def _golds(con, sub_id: str) -> tuple[dict, dict]:
    """({entity id: gold}, {reason: n}) of one sub-template on the world (every candidate
    proposed)."""
    sub = load_catalog().sub_template(sub_id)
    execs, discards = execute_sub_template(con, sub, world.pool(con))
    return {e.values["entity_A"]: e.outcome.gold for e in execs}, {
        r: n for (_, r), n in discards.items()
    }


def shapely_centroid(wkt: str) -> tuple[float, float]:
    """(lon, lat) of the planar centroid in EPSG:6933, by shapely + pyproj."""
    g = reproject(TO_6933.transform, shapely.from_wkt(wkt))
    return FROM_6933.transform(g.centroid.x, g.centroid.y)


def test_n01_hand_known_centroids(n_world):
    golds, discards = _golds(n_world, "N01.2")
    assert golds["worldkg:1"] == {"lon": 11.0, "lat": 0.0}  # symmetric about the equator: exact
    assert golds["worldkg:2"]["lon"] == 1.0  # segment midpoint in 6933: x is linear in longitude
    assert discards == {"crosses_antimeridian": 1}
    assert "worldkg:10" not in golds  # ambiguous name: it would not identify the road
    points, _ = _golds(n_world, "N01.1")
    assert points == {"worldkg:8": {"lon": -51.22, "lat": -30.03}}


def test_n01_centroids_match_shapely_pyproj(n_world):
    golds, _ = _golds(n_world, "N01.2")
    events, _ = _golds(n_world, "N01.3")
    golds.update(events)
    assert set(golds) == {
        "worldkg:1",
        "worldkg:2",
        "worldkg:3",
        "worldkg:4",
        "worldkg:5",
        "worldkg:7",
        "worldkg:9",
    }
    for eid, gold in golds.items():
        lon, lat = shapely_centroid(SHAPES[eid][2])
        assert gold["lon"] == pytest.approx(lon, abs=2e-6) and gold["lat"] == pytest.approx(
            lat, abs=2e-6
        ), eid
    # the 6933 centroid of a polygon differs from the naive lon/lat centroid away from the equator
    plain = shapely.from_wkt(SHAPES["worldkg:9"][2]).centroid
    assert abs(golds["worldkg:9"]["lat"] - plain.y) > 1e-5


def test_n02_bbox_matches_shapely_bounds(n_world):
    golds, discards = _golds(n_world, "N02.1")
    assert discards == {
        "crosses_antimeridian": 1,
        "degenerate_bbox": 1,
    }  # ferry across 180°, east-west street
    events, _ = _golds(n_world, "N02.2")
    assert set(events) == {"worldkg:9"}
    golds.update(events)
    assert golds["worldkg:1"] == {"min_lon": 10.0, "min_lat": -1.0, "max_lon": 12.0, "max_lat": 1.0}
    for eid, gold in golds.items():
        minx, miny, maxx, maxy = shapely.from_wkt(SHAPES[eid][2]).bounds
        assert gold == {"min_lon": minx, "min_lat": miny, "max_lon": maxx, "max_lat": maxy}


def test_n_generation_replays(n_world):
    catalog = load_catalog()
    gen = generate(n_world, catalog, ["worldkg"], only={"N"})
    assert {q["sub_template_id"] for q in gen.questions} == {
        "N01.1",
        "N01.2",
        "N01.3",
        "N02.1",
        "N02.2",
    }
    for q in gen.questions:
        assert replay(n_world, catalog, q) == json.loads(q["gold"])
        assert "(10.0000, 20.0000)" not in q["text"]
    assert ("worldkg", "N02.1", "UMC/high", "crosses_antimeridian") in gen.discards
