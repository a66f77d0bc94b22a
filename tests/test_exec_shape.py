"""SFID K executors (shape and geometry) on tiny hand-made worlds.

Shapes are built in metres in a local azimuthal-equidistant frame and mapped to lon/lat with pyproj,
so their true sizes are known. Independent checks: areas with pyproj (EPSG:6933 transform + shapely,
and the geodesic area of ``Geod``), perimeters with ``Geod.geometry_area_perimeter`` ring by ring,
elongation and irregularity recomputed with a separately built pyproj CRS.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import shapely
from pyproj import CRS, Geod, Transformer
from shapely import wkt as shapely_wkt
from shapely.geometry import Polygon
from shapely.geometry.polygon import orient

from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executor import replay_sql
from mgqa_platform.questions.executors import EXECUTORS, shape
from mgqa_platform.questions.generate import generate, replay
from tests import question_world as world

CATALOG = load_catalog()
KG = "osmh3kg"
GEOD = Geod(ellps="WGS84")
LON0, LAT0 = -51.2, -30.03


def to_lonlat(coords_m, lon0=LON0, lat0=LAT0) -> list[tuple[float, float]]:
    """Local metres (AEQD centred on lon0, lat0) -> lon/lat, via a CRS built independently of
    shape.py."""
    crs = CRS.from_dict(
        {"proj": "aeqd", "lat_0": lat0, "lon_0": lon0, "datum": "WGS84", "units": "m"}
    )
    tr = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    return [tr.transform(x, y) for x, y in coords_m]


def rect_m(w, h, cx=0.0, cy=0.0):
    return [
        (cx - w / 2, cy - h / 2),
        (cx + w / 2, cy - h / 2),
        (cx + w / 2, cy + h / 2),
        (cx - w / 2, cy + h / 2),
    ]


def circle_m(r, n=256, cx=0.0, cy=0.0):
    return [
        (cx + r * math.cos(2 * math.pi * i / n), cy + r * math.sin(2 * math.pi * i / n))
        for i in range(n)
    ]


def wkt_of(shell, holes=()):
    return Polygon(to_lonlat(shell), [to_lonlat(h) for h in holes]).wkt


def zigzag_m(side=2000.0, teeth=20, depth=100.0):
    """A square whose south edge is a saw of ``teeth`` teeth ``depth`` m deep."""
    pts = [
        (-side / 2 + i * side / (2 * teeth), -side / 2 - (depth if i % 2 else 0))
        for i in range(2 * teeth + 1)
    ]
    return pts + [(side / 2, side / 2), (-side / 2, side / 2)]


SHAPES = {  # name -> (shell in local metres, holes); all centred near (LON0, LAT0) with offsets
    "BIG": (rect_m(2000, 2000, 0, 0), ()),
    "SMALL": (rect_m(1000, 1000, 5000, 0), ()),
    "TWIN": (rect_m(2004, 2000, 10000, 0), ()),  # 0.2 % larger than BIG: a near tie
    "ROUND": (circle_m(1000, 256, 0, 5000), ()),
    "THIN": (rect_m(4000, 500, 5000, 5000), ()),  # elongation 1 - 500/4000 = 0.875
    "LONG": (rect_m(4000, 1000, 10000, 5000), ()),  # elongation 0.75
    "RING": (rect_m(3000, 3000, 0, 10000), (rect_m(1000, 1000, 0, 10000),)),
    "SAW": (zigzag_m(), ()),
    # a 2:1 ellipse: Polsby-Popper about 0.84, above the square's pi/4, but Reock 0.5, below its
    # 2/pi two 1 km squares joined by a 3 km x 100 m bar: rectangle 5:1 (0.8), second moments about
    # 0.86
    "BELL": (
        list(
            shapely.union_all(
                [
                    shapely.box(27500, -500, 28500, 500),
                    shapely.box(31500, -500, 32500, 500),
                    shapely.box(28500, -50, 31500, 50),
                ]
            ).exterior.coords
        )[:-1],
        (),
    ),
    "SLIM": (rect_m(5000, 825, 20000, -6000), ()),  # 0.835 by both readings
    "OVAL": (
        [
            (20000 + 1200 * math.cos(t), 10000 + 600 * math.sin(t))
            for t in np.linspace(0, 2 * math.pi, 256, endpoint=False)
        ],
        (),
    ),
}


def eid(name: str) -> str:
    return f"{KG}:way/{name}"


@pytest.fixture
def shapes(con):
    for i, (name, (shell, holes)) in enumerate(SHAPES.items()):
        if name == "SAW":
            shell = [(x + 20000, y) for x, y in shell]
        world.add(
            con,
            eid(name),
            name,
            "city_block",
            wkt_of(shell, holes),
            stratum="UMC/high" if i % 2 else "HIC/high",
        )
    for i, (w, h) in enumerate([(3000, 1000), (2000, 2100), (5000, 300), (1500, 1500)]):
        world.add(
            con,
            eid(f"F{i}"),
            f"FIRE {i} (2020)",
            "wildfire",
            wkt_of(rect_m(w, h, 30000 + 6000 * i, 0)),
            valid_from="2020-07-01",
            valid_to="2020-07-20",
        )
    return con


def run(con, sub_id: str, sub=None, **values):
    sub = sub or CATALOG.sub_template(sub_id)
    ex = EXECUTORS[sub.executor]
    vals = {r: eid(v) if r.startswith("entity") else v for r, v in values.items()}
    cur = con.execute(replay_sql(ex, sub, {"row_id": 0, "kg": KG, **vals}))
    row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    return ex.finish(sub, row), row


def value(con, sub_id, **values):
    out, _ = run(con, sub_id, **values)
    return out.gold["value"] if out.gold else out.reason


def geom(con, name):
    return shapely_wkt.loads(
        con.execute(
            "SELECT ST_AsText(geometry) FROM entities WHERE entity_id = ?", [eid(name)]
        ).fetchone()[0]
    )


# --------------------------------------------------------------------------------------- hand world
def test_compare_known_answers(shapes):
    c = shapes
    assert value(c, "K01.1", entity_A="BIG", entity_B="SMALL") is True
    assert value(c, "K01.2", entity_A="SMALL", entity_B="BIG") is False
    assert value(c, "K01.1", entity_A="BIG", entity_B="TWIN") == "near_tie"
    assert value(c, "K02.1", entity_A="ROUND", entity_B="BIG") is True  # circle 1.0 vs square pi/4
    assert value(c, "K02.2", entity_A="THIN", entity_B="BIG") is False
    assert value(c, "K02.1", entity_A="BIG", entity_B="TWIN") == "near_tie"
    # "more compact" names no score: the ellipse wins on Polsby-Popper, the square on Reock
    assert value(c, "K02.1", entity_A="OVAL", entity_B="BIG") == "reading_dependent"
    assert value(c, "K02.2", entity_A="BIG", entity_B="OVAL") == "reading_dependent"
    # "more elongated" names no score: the dumbbell is less elongated than SLIM by its rectangle
    # (0.80 against 0.835) and more by its second moments (0.86: its area sits at its two ends)
    assert value(c, "K03.1", entity_A="BELL", entity_B="SLIM") == "reading_dependent"
    assert value(c, "K03.1", entity_A="THIN", entity_B="LONG") is True
    assert value(c, "K03.2", entity_A="BIG", entity_B="LONG") is False
    assert value(c, "K03.1", entity_A="BIG", entity_B="ROUND") == "near_tie"  # both ~0
    assert value(c, "K01.3", entity_A="F0", entity_B="F3") is True  # 3 km2 vs 2.25 km2


def test_measures_match_construction(shapes):
    """Area, perimeter, compactness and elongation of the hand shapes against their construction."""
    _, row = run(shapes, "K03.1", entity_A="THIN", entity_B="RING")
    assert row["a_area"] == pytest.approx(2.0, rel=2e-3)  # 4 km x 0.5 km
    assert row["a_perim"] == pytest.approx(9.0, rel=2e-3)
    assert row["b_area"] == pytest.approx(8.0, rel=2e-3)  # 9 - 1 km2 hole
    assert row["b_perim"] == pytest.approx(16.0, rel=2e-3)  # 12 km outer + 4 km inner ring
    assert shape.measure("elongation", row, "a") == pytest.approx(0.875, abs=2e-3)
    assert shape.measure("elongation", row, "b") == pytest.approx(0.0, abs=2e-3)
    _, row = run(shapes, "K02.1", entity_A="ROUND", entity_B="BIG")
    assert shape.measure("compactness", row, "a") == pytest.approx(1.0, abs=2e-3)
    assert shape.measure("compactness", row, "b") == pytest.approx(math.pi / 4, rel=2e-3)
    readings = {
        n: shape.compactness_readings(geom(shapes, n), *lonlat, area, perim)
        for n, lonlat, area, perim in (
            ("ROUND", (row["a_lon"], row["a_lat"]), row["a_area"], row["a_perim"]),
            ("BIG", (row["b_lon"], row["b_lat"]), row["b_area"], row["b_perim"]),
        )
    }
    assert readings["ROUND"]["reock"] == pytest.approx(1.0, abs=2e-3)
    assert readings["BIG"]["reock"] == pytest.approx(2 / math.pi, rel=2e-3)  # square in its circle
    for name, expected in (("THIN", 0.875), ("RING", 0.0), ("ROUND", 0.0), ("BELL", None)):
        g = geom(shapes, name)
        p = g.representative_point()
        got = shape.elongation_readings(g, p.x, p.y)
        if (
            expected is None
        ):  # mass at the ends: more elongated by its moments than by its rectangle
            assert got["inertia"] > got["rotated_rectangle"] + 0.03
        else:
            assert got["inertia"] == pytest.approx(expected, abs=3e-3)
            assert got["rotated_rectangle"] == pytest.approx(expected, abs=3e-3)


def test_area_and_perimeter_match_pyproj(shapes):
    """DuckDB EPSG:6933 area vs pyproj transform + shapely and vs the Geod geodesic area; DuckDB
    spheroid perimeter vs Geod.geometry_area_perimeter summed over the rings."""
    to_6933 = Transformer.from_crs("EPSG:4326", "EPSG:6933", always_xy=True)
    for name in SHAPES:
        g = geom(shapes, name)
        _, row = run(shapes, "K04.1", entity_A=name)
        projected = shapely.transform(
            g, lambda xy: np.column_stack(to_6933.transform(xy[:, 0], xy[:, 1]))
        )
        assert row["a_area"] == pytest.approx(projected.area / 1e6, rel=1e-9), name
        geodesic_area, _ = GEOD.geometry_area_perimeter(orient(g))
        assert row["a_area"] == pytest.approx(geodesic_area / 1e6, rel=1e-3), name
        rings = [g.exterior, *g.interiors]
        perim = sum(GEOD.geometry_area_perimeter(Polygon(r))[1] for r in rings) / 1000
        assert row["a_perim"] == pytest.approx(perim, rel=1e-6), name
        out, _ = run(shapes, "K04.2", entity_A=name)
        assert out.gold["unit"] == "km" and out.gold["value"] == pytest.approx(perim, abs=1e-3)


def test_irregularity_independent(shapes):
    """Shape index and perimeter ratio recomputed with an independently built AEQD CRS and
    shapely."""
    g = geom(shapes, "SAW")
    lon, lat = shapes.execute(
        "SELECT lon, lat FROM entities WHERE entity_id = ?", [eid("SAW")]
    ).fetchone()
    crs = CRS.from_dict(
        {"proj": "aeqd", "lat_0": lat, "lon_0": lon, "datum": "WGS84", "units": "m"}
    )
    tr = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
    proj = Polygon([tr.transform(x, y) for x, y in g.exterior.coords])
    for scale in (0.01, 0.05, 0.5):
        simple = proj.simplify(scale * 1000, preserve_topology=True)
        si = simple.length / (2 * math.sqrt(math.pi * simple.area))
        pr = proj.length / simple.length
        got_si, _ = run(
            shapes,
            "K05.1",
            entity_A="SAW",
            irregularity_metric="shape index",
            scale_value=scale,
            scale_unit="km simplification",
        )
        got_pr, _ = run(
            shapes,
            "K05.2",
            entity_A="SAW",
            irregularity_metric="perimeter ratio",
            scale_value=scale,
            scale_unit="km simplification",
        )
        assert got_si.gold["value"] == pytest.approx(si, abs=2e-6), scale
        assert got_pr.gold["value"] == pytest.approx(pr, abs=2e-6), scale
    # 100 m deep teeth: all kept at a 10 m tolerance (ratio 1), flattened at 500 m (the saw is much
    # longer than its chord)
    fine, _ = run(
        shapes,
        "K05.2",
        entity_A="SAW",
        irregularity_metric="perimeter ratio",
        scale_value=0.01,
        scale_unit="km simplification",
    )
    coarse, _ = run(
        shapes,
        "K05.2",
        entity_A="SAW",
        irregularity_metric="perimeter ratio",
        scale_value=0.5,
        scale_unit="km simplification",
    )
    assert fine.gold["value"] == pytest.approx(1.0, abs=1e-6)
    assert coarse.gold["value"] > 1.2
    square, _ = run(
        shapes,
        "K05.1",
        entity_A="BIG",
        irregularity_metric="shape index",
        scale_value=0.1,
        scale_unit="km simplification",
    )
    assert square.gold["value"] == pytest.approx(
        2 / math.sqrt(math.pi), rel=2e-3
    )  # 4a / (2 sqrt(pi a^2))
    gone, _ = run(
        shapes,
        "K05.1",
        entity_A="SMALL",
        irregularity_metric="shape index",
        scale_value=5,
        scale_unit="km simplification",
    )
    assert gone.reason in ("simplified_away", "simplification_too_coarse")


def test_too_close_thresholds():
    sub = CATALOG.sub_template("K01.1")  # min_rel_diff 0.01
    assert shape.too_close(sub, 100.0, 99.5) and shape.too_close(sub, 100.0, 99.01)
    assert not shape.too_close(sub, 100.0, 98.99) and not shape.too_close(sub, 100.0, 99.0)
    sub = CATALOG.sub_template("K02.1")  # min_abs_diff 0.02
    assert shape.too_close(sub, 0.50, 0.519) and not shape.too_close(sub, 0.50, 0.521)


def test_irregularity_candidates_fit_scale(shapes):
    """Candidates only propose scales <= max_scale_fraction * sqrt(area)."""
    sub = CATALOG.sub_template("K05.1")
    pool = world.pool(shapes, KG)
    rows = shapes.execute(EXECUTORS[sub.executor].candidates(sub, pool)).fetchall()
    assert rows
    area = dict(
        shapes.execute(
            f"SELECT entity_id, {shape.area_km2_sql('geometry')} FROM entities"
        ).fetchall()
    )
    for _, e, scale in rows:
        assert scale in sub.parameters["scale_value"] and scale <= 0.2 * math.sqrt(area[e])


# ----------------------------------------------------------------------------------------- generate
def test_generate_k_replays_every_question(shapes):
    gen = generate(shapes, CATALOG, [KG], only={"K"}, seed=3)
    tids = {q["tid"] for q in gen.questions}
    assert tids == {"K01", "K02", "K03", "K04", "K05"}
    assert {"K01.3", "K04.3", "K05.4"} <= {q["sub_template_id"] for q in gen.questions}
    for q in gen.questions:
        assert replay(shapes, CATALOG, q) == json.loads(q["gold"]), q["text"]
    golds = {q["gold"] for q in gen.questions if q["tid"] == "K01"}
    assert {'{"value": true}', '{"value": false}'} <= golds
    assert generate(shapes, CATALOG, [KG], only={"K"}, seed=3).questions == gen.questions
