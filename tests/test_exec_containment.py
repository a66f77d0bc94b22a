"""SFID B executors (metric containment) on tiny hand-made worlds.

Radius membership is recomputed independently with pyproj's Geod (WGS84 geodesics); the population
sum of B03 is recomputed pixel by pixel over the whole test raster with a plain Python loop (no
window).
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import numpy as np
import pytest
import rasterio
from affine import Affine
from pyproj import Geod

from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executor import replay_sql
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.questions.executors.containment import (
    BOUNDARY_BAND,
    file_sha256,
    population_within,
)
from mgqa_platform.questions.generate import generate, replay
from tests import question_world as world
from tests.test_density import write_tif

GEOD = Geod(ellps="WGS84")
CATALOG = load_catalog()
ANCHOR = ("worldkg:100", "Cafe Central", -51.2200, -30.0300)


def at(lon: float, lat: float, km: float, az: float) -> tuple[float, float]:
    """The point ``km`` from (lon, lat) along azimuth ``az`` (degrees from north), on WGS84."""
    x, y, _ = GEOD.fwd(lon, lat, az, km * 1000.0)
    return x, y


def km_between(a: tuple[float, float], b: tuple[float, float]) -> float:
    return GEOD.inv(a[0], a[1], b[0], b[1])[2] / 1000.0


def run(con, sub_id: str, **values):
    """Run one sub-template's gold query (bound with VALUES, as lineage prints it) and its
    finish."""
    sub = CATALOG.sub_template(sub_id)
    ex = EXECUTORS[sub.executor]
    cur = con.execute(replay_sql(ex, sub, {"row_id": 0, "kg": "worldkg", **values}))
    row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    return ex.finish(sub, row)


@pytest.fixture
def cafes(con):
    """An anchor cafe and cafes at known geodesic distances (km) from it, plus a restaurant."""
    eid, name, lon, lat = ANCHOR
    world.add(con, eid, name, "cafe", f"POINT({lon} {lat})")
    members = {
        "worldkg:1": (0.4, 10),
        "worldkg:2": (0.9, 100),
        "worldkg:3": (1.6, 200),
        "worldkg:4": (3.0, 300),
        "worldkg:5": (7.0, 45),
        "worldkg:6": (2.004, 250),
    }
    for i, (mid, (km, az)) in enumerate(members.items()):
        x, y = at(lon, lat, km, az)
        world.add(con, mid, f"Cafe {i}", "cafe", f"POINT({x} {y})")
    x, y = at(lon, lat, 0.5, 0)
    world.add(con, "worldkg:9", "Restaurante", "restaurant", f"POINT({x} {y})")
    return con


def test_count_and_list_within_radius_hand_world(cafes):
    one = run(cafes, "B01.1", category_A="cafe", entity_B=ANCHOR[0], value=1)
    assert one.gold == {"value": 2} and one.evidence == (
        "worldkg:1",
        "worldkg:2",
    )  # the anchor is not counted
    five = run(cafes, "B01.1", category_A="cafe", entity_B=ANCHOR[0], value=5)
    assert five.gold == {"value": 5}
    # a member at 2.004 km lies inside the 0.5 % band around a 2 km radius: ambiguous, discarded
    assert (
        run(cafes, "B01.1", category_A="cafe", entity_B=ANCHOR[0], value=2).reason
        == "member_near_radius"
    )
    listed = run(cafes, "B02.1", category_A="cafe", entity_B=ANCHOR[0], value=1)
    assert listed.gold == {"entity_ids": ["worldkg:1", "worldkg:2"], "names": ["Cafe 0", "Cafe 1"]}
    assert run(cafes, "B02.1", category_A="cafe", entity_B=ANCHOR[0], value=0.5).gold[
        "entity_ids"
    ] == ["worldkg:1"]
    assert (
        run(cafes, "B02.1", category_A="restaurant", entity_B=ANCHOR[0], value=0.25).reason
        == "empty_set"
    )


@pytest.mark.parametrize("lat", [-30.03, 60.17, 71.0])
def test_radius_membership_matches_pyproj(con, lat):
    """Random cafes around an anchor (also at high latitude, where a degree of longitude is short):
    the executor's set equals the pyproj-geodesic set, and it discards exactly when pyproj finds a
    member in the boundary band."""
    rng = random.Random(int(lat * 100))
    anchor = (24.94, lat)
    world.add(con, "worldkg:0", "Anchor", "square", f"POINT({anchor[0]} {anchor[1]})")
    pts = {}
    for i in range(1, 80):
        p = at(*anchor, rng.uniform(0.05, 6.0), rng.uniform(0, 360))
        pts[f"worldkg:{i}"] = p
        world.add(con, f"worldkg:{i}", f"Cafe {i}", "cafe", f"POINT({p[0]} {p[1]})")
    for r in (0.5, 1, 2, 5):
        dist = {i: km_between(anchor, p) for i, p in pts.items()}
        out = run(con, "B02.1", category_A="cafe", entity_B="worldkg:0", value=r)
        if any(abs(d - r) <= BOUNDARY_BAND * r for d in dist.values()):
            assert out.reason == "member_near_radius"
            continue
        expected = sorted(i for i, d in dist.items() if d <= r)
        if not expected:
            assert out.reason == "empty_set"
        elif len(expected) > 15:
            assert out.reason == "set_too_large"
        else:
            assert out.gold["entity_ids"] == expected
        count = run(con, "B01.1", category_A="cafe", entity_B="worldkg:0", value=r)
        assert count.gold == {"value": len(expected)}


# ---------------------------------------------------------------------------------------------- B03
def write_raster(
    path: Path, data: np.ndarray, west: float, north: float, res: float, nodata: float = -1.0
) -> str:
    """A float32 EPSG:4326 GeoTIFF with ``data`` (rows north to south); returns its sha256."""
    transform = Affine(res, 0, west, 0, -res, north)
    write_tif(path, data.astype("float32"), transform, nodata=nodata)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def register_raster(con, path: Path, sha: str, is_proxy: bool = False) -> None:
    """Record ``path`` as the density tiers' population raster: a real one, or the proxy surface."""
    con.execute("DELETE FROM density_breaks")
    con.execute(
        "INSERT INTO density_breaks VALUES (?, ?, ?, 'test raster', 0, 1, 1)",
        [str(path), sha, is_proxy],
    )


def brute_force_sum(path: Path, lon: float, lat: float, radius_km: float) -> float:
    """Every pixel of the raster, one geodesic at a time: pixel-centre rule, nodata/negative
    skipped."""
    total = 0.0
    with rasterio.open(path) as ds:
        band = ds.read(1)
        for row in range(ds.height):
            for col in range(ds.width):
                x, y = ds.xy(row, col, offset="center")
                v = float(band[row, col])
                if v != ds.nodata and v >= 0 and GEOD.inv(lon, lat, x, y)[2] <= radius_km * 1000.0:
                    total += v
    return total


def test_population_sum_on_a_known_raster(con, tmp_path):
    """0.01-degree raster around Porto Alegre: one pixel of 1234 people under the anchor, one of 99
    people about 10 km east, a nodata pixel next to the anchor; everything else 0."""
    res, west, north = 0.01, -51.50, -29.80
    data = np.zeros((50, 60))
    lon, lat = -51.2249, -30.0351  # centre of pixel (row 23, col 27)
    data[23, 27] = 1234.0
    data[23, 37] = 99.0  # centre 0.1 degree east: ~9.6 km
    data[24, 27] = -1.0  # nodata
    path = tmp_path / "pop.tif"
    register_raster(con, path, write_raster(path, data, west, north, res))
    world.add(con, "worldkg:1", "Vila", "village", f"POINT({lon} {lat})")
    assert run(con, "B03.1", entity_A="worldkg:1", value=5).gold == {"value": 1234}
    twelve = run(con, "B03.1", entity_A="worldkg:1", value=12)
    assert twelve.gold == {"value": 1333}
    # the non-empty pixels of the window are cited: centre (lon lat) and value; zero and nodata
    # pixels are not
    pixels: dict[str, dict[str, str]] = {}
    for s, p, o in twelve.facts:
        pixels.setdefault(s, {})[p.rsplit("#", 1)[-1].rsplit(":", 1)[-1]] = o
    assert sorted(pixels) == [f"urn:mgqa:raster:{file_sha256(path)[:12]}:23:{c}" for c in (27, 37)]
    centres = {
        float(v["population"]): [float(x) for x in v["asWKT"][7:-1].split()]
        for v in pixels.values()
    }
    assert centres[1234.0] == pytest.approx([-51.225, -30.035]) and centres[99.0] == pytest.approx(
        [-51.125, -30.035]
    )  # pixel centres
    assert (
        run(con, "B03.1", entity_A="worldkg:1", value=2).reason == "radius_below_raster_resolution"
    )  # < 2 pixels
    data[23, 27] = 0.0
    register_raster(con, path, write_raster(path, data, west, north, res))
    assert run(con, "B03.1", entity_A="worldkg:1", value=5).reason == "zero_population"
    con.execute("UPDATE density_breaks SET raster_sha256 = 'not-the-file'")
    assert run(con, "B03.1", entity_A="worldkg:1", value=12).reason == "population_raster_changed"
    con.execute("UPDATE density_breaks SET raster = ?", [str(tmp_path / "missing.tif")])
    assert run(con, "B03.1", entity_A="worldkg:1", value=12).reason == "population_raster_missing"


def test_population_window_matches_brute_force(tmp_path):
    """Random populations on a 0.02-degree raster at 60 N: the windowed, vectorised sum equals the
    pixel-by-pixel geodesic loop over the whole raster, for several anchors and radii."""
    rng = np.random.default_rng(5)
    data = rng.integers(0, 500, size=(40, 60)).astype(float)
    data[rng.random(data.shape) < 0.05] = -1.0  # nodata
    path = tmp_path / "pop.tif"
    write_raster(path, data, 24.0, 60.6, 0.02)
    with rasterio.open(path) as ds:
        for lon, lat in ((24.6, 60.2), (24.37, 60.41), (24.8, 60.25)):
            for r in (5.0, 12.5, 20.0):
                assert population_within(ds, lon, lat, r) == pytest.approx(
                    brute_force_sum(path, lon, lat, r)
                )


# ----------------------------------------------------------------------------------------- generate
@pytest.fixture
def b_world(con, tmp_path):
    """Two strata (labels only; both clusters near Porto Alegre) of villages, shops and schools, and
    a 0.01-degree population raster covering every 50 km circle around them."""
    rng = random.Random(3)
    n = 0
    for stratum, (lon0, lat0) in (("UMC/high", (-51.22, -30.03)), ("HIC/high", (-51.00, -29.80))):
        for category, k in (("village", 6), ("supermarket", 8), ("school", 5)):
            for _ in range(k):
                n += 1
                x, y = at(lon0, lat0, rng.uniform(0.1, 4.0), rng.uniform(0, 360))
                world.add(
                    con,
                    f"worldkg:{n}",
                    f"{category.title()} {n}",
                    category,
                    f"POINT({x} {y})",
                    stratum=stratum,
                )
    data = np.random.default_rng(1).integers(0, 1000, size=(160, 200)).astype(float)
    path = tmp_path / "pop.tif"
    register_raster(con, path, write_raster(path, data, -52.0, -29.2, 0.01))
    return con


def test_generate_b_replays_every_question(b_world):
    catalog = load_catalog()
    gen = generate(b_world, catalog, ["worldkg"], only={"B"}, seed=11)
    tids = {q["tid"] for q in gen.questions}
    assert tids == {"B01", "B02", "B03"}
    assert not any(reason == "no_population_raster" for *_, reason in gen.discards)
    assert {q["stratum"] for q in gen.questions} == {"UMC/high", "HIC/high"}
    for q in gen.questions:
        assert replay(b_world, catalog, q) == json.loads(q["gold"]), q["text"]
        assert q["executor"].startswith("containment.")
    again = generate(b_world, catalog, ["worldkg"], only={"B"}, seed=11)
    assert again.questions == gen.questions


def test_b03_needs_a_real_population_raster(b_world, tmp_path):
    """The same raster recorded as the proxy surface: B03 yields nothing and every candidate is
    counted as ``no_population_raster``; B01 and B02 are unaffected. Recorded as a real raster, B03
    comes back."""
    catalog = load_catalog()
    (path, sha) = b_world.execute("SELECT raster, raster_sha256 FROM density_breaks").fetchone()
    register_raster(b_world, Path(path), sha, is_proxy=True)
    proxy = generate(b_world, catalog, ["worldkg"], only={"B"}, seed=11)
    assert {q["tid"] for q in proxy.questions} == {"B01", "B02"}
    skipped = {k: n for k, n in proxy.discards.items() if k[3] == "no_population_raster"}
    assert skipped and {k[1][:3] for k in skipped} == {"B03"}
    register_raster(b_world, Path(path), sha, is_proxy=False)
    real = generate(b_world, catalog, ["worldkg"], only={"B03"}, seed=11)
    assert real.questions and {q["tid"] for q in real.questions} == {"B03"}
