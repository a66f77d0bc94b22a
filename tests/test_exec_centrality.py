"""SFID G executors (centrality) on tiny hand-made worlds.

Independent routes: DuckDB's EPSG:6933 centroid against pyproj + shapely; the line midpoint against
pyproj's ``Geod.line_length`` of the two halves; the pole of inaccessibility against a brute-force
grid search of the point farthest from the boundary; the scanline rasterisation against shapely's
``contains_xy`` over every cell centre.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import shapely
from pyproj import Geod, Transformer
from shapely import wkt as shapely_wkt
from shapely.geometry import Point

from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executors.centrality import raster_centroid
from mgqa_platform.questions.generate import generate, replay
from tests import question_world as world

GEOD = Geod(ellps="WGS84")
CATALOG = load_catalog()
TO, FROM = (
    Transformer.from_crs(a, b, always_xy=True)
    for a, b in (("EPSG:4326", "EPSG:6933"), ("EPSG:6933", "EPSG:4326"))
)
KG = "osmh3kg"


def run(con, sub_id: str, sql: str = "gold", kg: str = KG, **values):
    return world.run(con, sub_id, sql, kg, **values)


def km(a, b) -> float:
    return GEOD.inv(a[0], a[1], b[0], b[1])[2] / 1000.0


L_SHAPE = (
    "POLYGON((24.90 60.10, 25.10 60.10, 25.10 60.14, 24.94 60.14, 24.94 60.25, "
    "24.90 60.25, 24.90 60.10))"
)
C_SHAPE = "POLYGON((0 0, 3 0, 3 0.5, 0.5 0.5, 0.5 2.5, 3 2.5, 3 3, 0 3, 0 0))"


def test_centroid_matches_pyproj_shapely(con):
    for i, wkt in enumerate(
        (L_SHAPE, "POLYGON((-51.3 -30.1, -51.1 -30.1, -51.15 -29.9, -51.3 -30.1))")
    ):
        world.add(con, f"osmh3kg:way/{i}", f"Block {i}", "city_block", wkt)
        c = shapely.transform(
            shapely_wkt.loads(wkt), lambda xy: np.column_stack(TO.transform(xy[:, 0], xy[:, 1]))
        ).centroid
        lon, lat = FROM.transform(c.x, c.y)
        out = run(con, "G01.1", entity_A=f"osmh3kg:way/{i}")
        if not shapely_wkt.loads(wkt).contains(Point(lon, lat)):
            assert out.reason == "centroid_outside"
            continue
        assert out.gold["lon"] == pytest.approx(lon, abs=2e-6) and out.gold["lat"] == pytest.approx(
            lat, abs=2e-6
        )


def test_centroid_outside_and_located_entity(con):
    world.add(con, "osmh3kg:way/1", "Cee", "city_block", C_SHAPE)
    assert run(con, "G01.1", entity_A="osmh3kg:way/1").reason == "centroid_outside"
    world.add(
        con,
        "osmh3kg:way/2",
        "Park",
        "park",
        "POLYGON((10 10, 10.02 10, 10.02 10.02, 10 10.02, 10 10))",
    )
    world.add(con, "osmh3kg:node/1", "Kiosk", "kiosk", "POINT(10.005 10.015)")
    world.add(con, "osmh3kg:node/2", "Far", "kiosk", "POINT(10.05 10.05)")
    out = run(con, "G02.2", entity_A="osmh3kg:way/2", entity_B="osmh3kg:node/1")
    assert out.gold == {
        "lon": pytest.approx(10.01, abs=1e-6),
        "lat": pytest.approx(10.01, abs=1e-4),
    }
    assert (
        run(con, "G02.2", "premise", entity_A="osmh3kg:way/2", entity_B="osmh3kg:node/1")["holds"]
        is True
    )
    assert (
        run(con, "G02.2", "premise", entity_A="osmh3kg:way/2", entity_B="osmh3kg:node/2")["holds"]
        is False
    )
    assert (
        run(con, "G02.2", entity_A="osmh3kg:way/2", entity_B="osmh3kg:node/2").reason
        == "entity_b_outside"
    )


def test_line_midpoint(con):
    world.add(con, "osmh3kg:way/1", "Vee", "road", "LINESTRING(-1 0, 0 1, 1 0)")
    assert run(con, "G01.2", entity_A="osmh3kg:way/1").gold == {"lon": 0.0, "lat": 1.0}
    wkt = "LINESTRING(24.90 60.10, 24.95 60.12, 25.05 60.12, 25.10 60.20)"
    world.add(con, "osmh3kg:way/2", "Katu", "road", wkt)
    out = run(con, "G01.2", entity_A="osmh3kg:way/2")
    # independent: split the line at the answer; both halves have the same geodesic length (pyproj
    # line_length)
    coords = list(shapely_wkt.loads(wkt).coords)
    p = (out.gold["lon"], out.gold["lat"])
    assert shapely_wkt.loads(wkt).distance(Point(p)) < 1e-4
    k = 1 + min(
        range(len(coords) - 1),
        key=lambda i: shapely.LineString(coords[i : i + 2]).distance(Point(p)),
    )
    first = GEOD.line_length(
        [c[0] for c in coords[:k]] + [p[0]], [c[1] for c in coords[:k]] + [p[1]]
    )
    second = GEOD.line_length(
        [p[0]] + [c[0] for c in coords[k:]], [p[1]] + [c[1] for c in coords[k:]]
    )
    assert first == pytest.approx(second, abs=0.5)
    world.add(
        con, "osmh3kg:way/3", "Split", "road", "MULTILINESTRING((0 0, 0.1 0), (0.2 0, 0.3 0))"
    )
    assert run(con, "G01.2", entity_A="osmh3kg:way/3").reason == "disconnected_parts"
    world.add(
        con, "osmh3kg:way/4", "Joined", "road", "MULTILINESTRING((0 0, 0.1 0), (0.1 0, 0.1 0.2))"
    )
    out = run(con, "G01.2", entity_A="osmh3kg:way/4")
    assert out.gold["lon"] == pytest.approx(0.1, abs=1e-6) and 0.04 < out.gold["lat"] < 0.06


def brute_pole(wkt: str, lon0: float, lat0: float, n: int = 200) -> tuple[float, float, float]:
    """Grid search in the azimuthal-equidistant frame: the inside point farthest from the boundary
    (lon, lat, m)."""
    tr = Transformer.from_crs(
        "EPSG:4326", f"+proj=aeqd +lat_0={lat0} +lon_0={lon0} +datum=WGS84", always_xy=True
    )
    g = shapely.transform(
        shapely_wkt.loads(wkt), lambda xy: np.column_stack(tr.transform(xy[:, 0], xy[:, 1]))
    )
    x0, y0, x1, y1 = g.bounds
    xs, ys = np.meshgrid(np.linspace(x0, x1, n), np.linspace(y0, y1, n))
    inside = shapely.contains_xy(g, xs.ravel(), ys.ravel())
    d = shapely.distance(g.boundary, shapely.points(xs.ravel(), ys.ravel()))
    i = int(np.argmax(np.where(inside, d, -1)))
    lon, lat = tr.transform(xs.ravel()[i], ys.ravel()[i], direction="INVERSE")
    return lon, lat, float(d[i])


def test_pole_matches_brute_force(con):
    world.add(con, "osmh3kg:way/1", "Ell", "building", L_SHAPE)
    world.add(
        con,
        "osmh3kg:way/2",
        "Square",
        "building",
        "POLYGON((24.90 60.10, 24.92 60.10, 24.92 60.11, 24.90 60.11, 24.90 60.10))",
    )
    lon0, lat0 = con.execute(
        "SELECT lon, lat FROM entities WHERE entity_id = 'osmh3kg:way/1'"
    ).fetchone()
    out = run(con, "G01.3", entity_A="osmh3kg:way/1")
    # the L's arms hold a ridge of equally central points: compare the objective (distance to the
    # boundary)
    tr = Transformer.from_crs(
        "EPSG:4326", f"+proj=aeqd +lat_0={lat0} +lon_0={lon0} +datum=WGS84", always_xy=True
    )
    g = shapely.transform(
        shapely_wkt.loads(L_SHAPE), lambda xy: np.column_stack(tr.transform(xy[:, 0], xy[:, 1]))
    )
    p = Point(tr.transform(out.gold["lon"], out.gold["lat"]))
    _, _, best = brute_pole(L_SHAPE, lon0, lat0)
    assert g.contains(p) and g.boundary.distance(p) >= best - 15.0
    sq = run(con, "G01.3", entity_A="osmh3kg:way/2")
    assert sq.gold["lon"] == pytest.approx(24.91, abs=2e-4) and sq.gold["lat"] == pytest.approx(
        60.105, abs=1e-4
    )
    world.add(con, "osmh3kg:way/3", "Strip", "building", "POLYGON((0 0, 1 0, 1 0.1, 0 0.1, 0 0))")
    assert run(con, "G01.3", entity_A="osmh3kg:way/3").reason == "elongated_polygon"


def brute_raster(g, size: float) -> tuple[tuple[float, float] | None, int]:
    x0, y0, x1, y1 = g.bounds
    i = np.arange(math.floor(x0 / size) - 1, math.ceil(x1 / size) + 1)
    j = np.arange(math.floor(y0 / size) - 1, math.ceil(y1 / size) + 1)
    xs, ys = np.meshgrid((i + 0.5) * size, (j + 0.5) * size)
    inside = shapely.contains_xy(g, xs.ravel(), ys.ravel())
    if not inside.any():
        return None, 0
    return (float(xs.ravel()[inside].mean()), float(ys.ravel()[inside].mean())), int(inside.sum())


@pytest.mark.parametrize(
    "wkt",
    [
        L_SHAPE,
        C_SHAPE,
        "POLYGON((0 0, 1 0, 0.3 0.9, 0 0), (0.1 0.1, 0.3 0.1, 0.2 0.3, 0.1 0.1))",
        "MULTIPOLYGON(((10 10, 10.3 10, 10.3 10.2, 10 10)), "
        "((10.5 10.5, 10.6 10.5, 10.6 10.6, 10.5 10.6, 10.5 10.5)))",
    ],
)
def test_scanline_raster_matches_brute_force(wkt):
    g = shapely.transform(
        shapely_wkt.loads(wkt), lambda xy: np.column_stack(TO.transform(xy[:, 0], xy[:, 1]))
    )
    for size in (500.0, 1000.0, 2000.0, 5000.0):
        (c, n), (bc, bn) = raster_centroid(g, size), brute_raster(g, size)
        assert n == bn
        if n:
            assert c == pytest.approx(bc, abs=1e-6)


def brute_raster_at(g, size: float, half_cell: bool) -> tuple[tuple[float, float] | None, int]:
    """:func:`brute_raster` on the grid whose corners sit at multiples of ``size`` (+ size / 2 if
    ``half_cell``)."""
    d = size / 2.0 if half_cell else 0.0
    c, n = brute_raster(shapely.transform(g, lambda xy: xy - (d, d)), size)
    return (None if c is None else (c[0] + d, c[1] + d)), n


def brute_shift_km(wkt: str, v1: float, v2: float, half_cell: bool) -> float:
    g = shapely.transform(
        shapely_wkt.loads(wkt), lambda xy: np.column_stack(TO.transform(xy[:, 0], xy[:, 1]))
    )
    (c1, _), (c2, n2) = (
        brute_raster_at(g, v1 * 1000.0, half_cell),
        brute_raster_at(g, v2 * 1000.0, half_cell),
    )
    assert n2 >= 3
    return km(FROM.transform(*c1), FROM.transform(*c2))


# off the round coordinates, so that no row of cell centres runs along an edge on either grid
C_OFF = (
    "POLYGON((0.1234 0.2345, 3.1234 0.2345, 3.1234 0.7345, 0.6234 0.7345, 0.6234 2.7345, "
    "3.1234 2.7345, 3.1234 3.2345, 0.1234 3.2345, 0.1234 0.2345))"
)
SQUARE = "POLYGON((0.1234 0.2345, 1.1234 0.2345, 1.1234 1.2345, 0.1234 1.2345, 0.1234 0.2345))"


def test_scale_shift_gold(con):
    """The shift is kept only when grids moved by half a cell give it within tolerance (0.5 km
    here)."""
    world.add(con, "osmh3kg:way/1", "Cee", "city_block", C_OFF)
    world.add(con, "osmh3kg:way/2", "Ell", "city_block", L_SHAPE)
    world.add(con, "osmh3kg:way/3", "Square", "city_block", SQUARE)
    kept = dependent = 0
    for eid, wkt in (("osmh3kg:way/1", C_OFF), ("osmh3kg:way/3", SQUARE)):
        for v1, v2 in ((1, 10), (2, 50), (1, 20)):
            out = run(con, "G03.1", entity_A=eid, value_1=v1, value_2=v2)
            at_origin, at_half = (brute_shift_km(wkt, v1, v2, h) for h in (False, True))
            assert at_origin > 0.5
            if abs(at_origin - at_half) <= max(0.5, 0.05 * at_origin):
                kept += 1
                assert out.gold["value"] == pytest.approx(at_origin, abs=1e-3)
            else:
                dependent += 1
                assert out.reason == "reading_dependent"
    assert kept and dependent
    assert (
        run(con, "G03.1", entity_A="osmh3kg:way/2", value_1=1, value_2=50).reason == "too_few_cells"
    )


# ----------------------------------------------------------------------------------------- generate
@pytest.fixture
def g_world(con):
    """Blocks, parks with kiosks, roads and big districts in two strata."""
    for k, (stratum, lon, lat) in enumerate(
        (("HIC/high", 24.94, 60.17), ("UMC/high", -51.22, -30.03))
    ):
        d = 0.01
        for i in range(3):
            x = lon + 3 * d * i
            world.add(
                con,
                f"osmh3kg:way/{k}{i}1",
                f"Block {k}{i}",
                "city_block",
                f"POLYGON(({x} {lat}, {x + d} {lat}, {x + d} {lat + d}, {x} {lat + d}, {x} {lat}))",
                stratum=stratum,
            )
            world.add(
                con,
                f"osmh3kg:way/{k}{i}2",
                f"Park {k}{i}",
                "park",
                f"POLYGON(({x} {lat - 2 * d}, {x + d} {lat - 2 * d}, "
                f"{x + d / 2} {lat - d}, {x} {lat - 2 * d}))",
                stratum=stratum,
            )
            world.add(
                con,
                f"osmh3kg:node/{k}{i}3",
                f"Kiosk {k}{i}",
                "kiosk",
                f"POINT({x + d / 2} {lat - 1.7 * d})",
                stratum=stratum,
            )
            world.add(
                con,
                f"osmh3kg:node/{k}{i}4",
                f"Cafe {k}{i}",
                "cafe",
                f"POINT({x + d / 3} {lat + d / 3})",
                stratum=stratum,
            )
            world.add(
                con,
                f"osmh3kg:way/{k}{i}5",
                f"Road {k}{i}",
                "road",
                f"LINESTRING({x} {lat + 2 * d}, {x + d} {lat + 2.5 * d}, "
                f"{x + 2 * d} {lat + 2 * d})",
                stratum=stratum,
            )
        world.add(
            con,
            f"osmh3kg:way/{k}99",
            f"District {k}",
            "city_block",
            f"POLYGON(({lon - 1} {lat - 1}, {lon - 0.5} {lat - 1}, "
            f"{lon - 0.5} {lat - 0.7}, {lon - 1} {lat - 0.5}, {lon - 1} {lat - 1}))",
            stratum=stratum,
        )
        e = 0.15  # a square estate: its scale shift hardly depends on where the grids are anchored
        world.add(
            con,
            f"osmh3kg:way/{k}98",
            f"Estate {k}",
            "park",
            f"POLYGON(({lon + 1} {lat + 1}, {lon + 1 + e} {lat + 1}, "
            f"{lon + 1 + e} {lat + 1 + e}, {lon + 1} {lat + 1 + e}, {lon + 1} {lat + 1}))",
            stratum=stratum,
        )
    return con


def test_generate_g_replays_every_question(g_world):
    gen = generate(g_world, CATALOG, [KG], only={"G"}, seed=5)
    subs = {q["sub_template_id"] for q in gen.questions}
    assert {"G01.1", "G01.2", "G01.3", "G02.1", "G02.2", "G03.1", "G03.2"} <= subs, (
        subs,
        gen.discards,
    )
    assert {q["stratum"] for q in gen.questions} == {"HIC/high", "UMC/high"}
    for q in gen.questions:
        assert replay(g_world, CATALOG, q) == json.loads(q["gold"]), q["text"]
        assert q["executor"].startswith("centrality.")
    assert generate(g_world, CATALOG, [KG], only={"G"}, seed=5).questions == gen.questions
