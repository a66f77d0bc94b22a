"""Density tiers: population raster -> H3 res-3 cells -> tercile tiers, on real WorldPop crops and
small synthetic GeoTIFFs checked against a brute-force ``h3.latlng_to_cell`` on every pixel
centre."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import h3
import numpy as np
import pyarrow as pa
import pytest
import rasterio
from rasterio.crs import CRS
from rasterio.transform import Affine

from mgqa_platform.files import sha256_file
from mgqa_platform.strata import density

REPO = Path(__file__).resolve().parent.parent
WORLDPOP = REPO / "data" / "sample" / "worldpop"
KATHMANDU = WORLDPOP / "NPL_ppp_v2c_2020_UNadj_kathmandu.tif"  # float32, nodata -3.4e38
ACCRA = WORLDPOP / "GHA15adj_040213_accra.tif"  # float64, nodata -1.7e308
LAND = REPO / "data" / "sample" / "naturalearth" / "ne_50m_admin_0_countries.geojson"


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------
def from_origin(west: float, north: float, xsize: float, ysize: float) -> Affine:
    """North-up transform with its top-left corner at (west, north) degrees (lon, lat)."""
    return Affine(xsize, 0.0, west, 0.0, -ysize, north)


def write_tif(
    path: Path, data: np.ndarray, transform: Affine, crs="EPSG:4326", nodata=None
) -> Path:
    """A single-band GeoTIFF of ``data`` (rows north to south)."""
    with rasterio.open(
        path,
        "w",
        driver="GTiff",
        width=data.shape[1],
        height=data.shape[0],
        count=1,
        dtype=data.dtype.name,
        crs=crs,
        transform=transform,
        nodata=nodata,
    ) as dst:
        dst.write(data, 1)
    return path


def valid_pixels_numpy(path: Path) -> tuple[np.ndarray, np.ndarray, Affine]:
    """Independent validity test: not masked (nodata / internal mask), finite, >= 0. Returns (rows,
    cols, values)."""
    with rasterio.open(path) as src:
        a = src.read(1, masked=True)
        t = src.transform
    raw = np.ma.getdata(a)
    ok = ~np.ma.getmaskarray(a) & np.isfinite(raw) & (raw >= 0)
    r, c = np.nonzero(ok)
    return np.stack([r, c]), raw[r, c].astype(np.float64), t


def brute_force(path: Path, res: int = 3) -> tuple[dict[str, float], dict[str, int]]:
    """Per-cell population and valid-pixel count by ``h3.latlng_to_cell`` on every valid pixel
    centre."""
    (rows, cols), vals, t = valid_pixels_numpy(path)
    pop: dict[str, float] = defaultdict(float)
    cnt: dict[str, int] = defaultdict(int)
    for r, c, v in zip(rows.tolist(), cols.tolist(), vals.tolist()):
        x, y = t.c + (c + 0.5) * t.a, t.f + (r + 0.5) * t.e  # the pixel centre (north-up transform)
        cell = h3.latlng_to_cell(y, x, res)
        pop[cell] += v
        cnt[cell] += 1
    return dict(pop), dict(cnt)


def as_dicts(table: pa.Table) -> tuple[dict[str, float], dict[str, int]]:
    cells = table["h3"].to_pylist()
    return dict(zip(cells, table["population"].to_pylist())), dict(
        zip(cells, table["valid_pixels"].to_pylist())
    )


def assert_matches_brute_force(path: Path, **kw) -> pa.Table:
    table = density.aggregate_to_h3(path, **kw)
    pop, cnt = as_dicts(table)
    bpop, bcnt = brute_force(path)
    assert cnt == bcnt
    assert pop == bpop  # integer-valued pixels: sums are exact whatever the order
    assert density.aggregation_stats(table)["fallback_pixels"] == 0
    return table


@pytest.fixture(scope="module")
def proxy_1deg(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("proxy") / "proxy-1deg.tif"
    return out, density.build_proxy_population_raster(out, LAND, resolution_deg=1.0)


# --------------------------------------------------------------------------------------------------
# real WorldPop crops
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "expected_sum"), [(KATHMANDU, 2_196_647), (ACCRA, 3_915_942)])
def test_worldpop_crop_population_is_preserved(path, expected_sum):
    table = density.aggregate_to_h3(path)
    assert table.schema.remove_metadata() == density.DENSITY_SCHEMA
    _, vals, _ = valid_pixels_numpy(path)
    assert vals.sum() == pytest.approx(expected_sum, abs=1.0)
    assert float(np.sum(table["population"].to_numpy())) == pytest.approx(vals.sum(), rel=1e-12)
    assert int(np.sum(table["valid_pixels"].to_numpy())) == len(vals)
    stats = density.aggregation_stats(table)
    assert stats["valid_pixels"] == len(vals) and stats["fallback_pixels"] == 0
    cells = table["h3"].to_pylist()
    assert cells == sorted(cells) and len(set(cells)) == len(cells)
    assert all(h3.is_valid_cell(c) and h3.get_resolution(c) == 3 for c in cells)
    area = table["area_km2"].to_numpy()
    assert np.allclose(area, [h3.cell_area(c, unit="km^2") for c in cells])
    assert np.allclose(table["density"].to_numpy(), table["population"].to_numpy() / area)


def test_kathmandu_cell_holds_most_people():
    table = density.aggregate_to_h3(KATHMANDU)
    pop, _ = as_dicts(table)
    centre = h3.latlng_to_cell(27.7172, 85.3240, 3)  # h3 order: (lat, lng)
    assert pop[centre] > 0.5 * sum(pop.values())
    assert max(pop, key=pop.get) == centre


def test_accra_float64_nodata_excluded():
    stats = density.aggregation_stats(density.aggregate_to_h3(ACCRA))
    with rasterio.open(ACCRA) as src:
        assert src.nodata == pytest.approx(-1.7e308) and src.dtypes[0] == "float64"
        assert stats["valid_pixels"] + stats["invalid_pixels"] == src.width * src.height
    assert stats["invalid_pixels"] > 0


def test_window_rows_do_not_change_the_result():
    a = density.aggregate_to_h3(ACCRA, window_rows=7)
    b = density.aggregate_to_h3(ACCRA, window_rows=256)
    assert a["h3"].to_pylist() == b["h3"].to_pylist()
    assert a["valid_pixels"].to_pylist() == b["valid_pixels"].to_pylist()
    assert np.allclose(a["population"].to_numpy(), b["population"].to_numpy(), rtol=1e-12, atol=0)


# --------------------------------------------------------------------------------------------------
# centre rule, invalid pixels, CRS checks on synthetic rasters
# --------------------------------------------------------------------------------------------------
def test_centre_rule_matches_latlng_to_cell(tmp_path):
    # 0.05° pixels over lon 84..88, lat 26..29: about a dozen res-3 cells, every edge crossed by
    # many pixels
    rng = np.random.default_rng(3)
    data = rng.integers(0, 1000, size=(60, 80)).astype(np.float32)
    path = write_tif(tmp_path / "grid.tif", data, from_origin(84.0, 29.0, 0.05, 0.05))
    table = assert_matches_brute_force(path, window_rows=16)
    assert table.num_rows >= 8
    assert sum(table["valid_pixels"].to_pylist()) == data.size


def test_invalid_pixels_are_excluded(tmp_path):
    rng = np.random.default_rng(5)
    data = rng.integers(0, 100, size=(40, 40)).astype(np.float32)
    data[0, :] = -9999.0  # nodata
    data[1, :5] = np.nan
    data[2, :5] = np.inf
    data[3, :5] = -np.inf
    data[4, :5] = -1.5  # negative people
    data[5, :5] = -3.4028235e38  # WorldPop's float32 nodata, here not the declared one
    path = write_tif(
        tmp_path / "bad.tif", data, from_origin(10.0, 47.0, 0.05, 0.05), nodata=-9999.0
    )
    table = assert_matches_brute_force(path)
    expected = data.size - 40 - 5 * 5
    assert sum(table["valid_pixels"].to_pylist()) == expected
    st = density.aggregation_stats(table)
    assert st["valid_pixels"] == expected and st["invalid_pixels"] == 40 + 25
    good = data[np.isfinite(data) & (data >= 0)]
    assert st["population"] == pytest.approx(float(good.sum(dtype=np.float64)))


def test_non_negative_integer_nodata(tmp_path):
    data = np.full((20, 20), 7, dtype=np.uint16)
    data[:, :3] = 65535
    path = write_tif(tmp_path / "u16.tif", data, from_origin(30.0, 10.0, 0.1, 0.1), nodata=65535)
    table = density.aggregate_to_h3(path)
    assert sum(table["valid_pixels"].to_pylist()) == 20 * 17
    assert sum(table["population"].to_pylist()) == 7 * 20 * 17


@pytest.mark.parametrize(
    ("crs", "transform", "match"),
    [
        ("EPSG:3857", from_origin(0, 1_000_000, 1000, 1000), "EPSG:4326 or OGC:CRS84"),
        (None, from_origin(10, 50, 0.1, 0.1), "no CRS"),
        ("EPSG:4326", Affine(0.1, 0.01, 10.0, 0.01, -0.1, 50.0), "north-up"),
        ("EPSG:4326", Affine(0.1, 0.0, 10.0, 0.0, 0.1, 40.0), "north-up"),  # south-up
    ],
)
def test_non_lonlat_rasters_are_rejected(tmp_path, crs, transform, match):
    path = write_tif(tmp_path / "bad-crs.tif", np.ones((5, 5), np.float32), transform, crs=crs)
    with pytest.raises(ValueError, match=match) as e:
        density.aggregate_to_h3(path)
    assert "bad-crs.tif" in str(e.value)


def test_crs84_is_accepted(tmp_path):
    path = write_tif(
        tmp_path / "crs84.tif",
        np.ones((10, 10), np.float32),
        from_origin(5, 45, 0.1, 0.1),
        crs=CRS.from_user_input("OGC:CRS84"),
    )
    assert sum(density.aggregate_to_h3(path)["population"].to_pylist()) == 100


def test_antimeridian_cells_lose_nothing(tmp_path):
    # Fiji: a full-width band (lon -180..180) with people only within 2° of the antimeridian
    data = np.zeros((40, 1440), np.float32)
    lon = -180 + (np.arange(1440) + 0.5) * 0.25
    near = np.abs(lon) > 178
    data[:, near] = np.arange(1, 41, dtype=np.float32)[:, None]
    data[:, ~near] = -1.0  # invalid elsewhere
    path = write_tif(tmp_path / "band.tif", data, from_origin(-180.0, -10.0, 0.25, 0.25))
    table = assert_matches_brute_force(path)
    assert sum(table["population"].to_pylist()) == float(data[data > 0].sum())
    # a cell that straddles the antimeridian receives pixels from both sides
    rings = dict(zip(table["h3"].to_pylist(), density.cell_rings_lonlat(table["h3"].to_pylist())))
    assert any(r[:, 0].max() > 180 or r[:, 0].min() < -180 for r in rings.values())

    # the same pixels split into two rasters, lon 179..180 and -180..-179: per cell, the sums add up
    west = write_tif(
        tmp_path / "w.tif", np.ones((20, 50), np.float32), from_origin(179.0, -15.0, 0.02, 0.02)
    )
    east = write_tif(
        tmp_path / "e.tif", np.ones((20, 50), np.float32), from_origin(-180.0, -15.0, 0.02, 0.02)
    )
    both: dict[str, int] = defaultdict(int)
    for p in (west, east):
        for c, n in as_dicts(assert_matches_brute_force(p))[1].items():
            both[c] += n
    assert sum(both.values()) == 2000
    straddling = set(as_dicts(density.aggregate_to_h3(west))[1]) & set(
        as_dicts(density.aggregate_to_h3(east))[1]
    )
    assert straddling  # at least one cell holds pixel centres on both sides of 180°


def test_polar_caps_match_brute_force(tmp_path):
    data = np.arange(40 * 360, dtype=np.float32).reshape(40, 360) % 97
    north = write_tif(
        tmp_path / "north.tif", data, from_origin(-180.0, 90.0, 1.0, 0.25)
    )  # lat 80..90
    south = write_tif(
        tmp_path / "south.tif", data, from_origin(-180.0, -80.0, 1.0, 0.25)
    )  # lat -80..-90
    for p, pole in ((north, 90.0), (south, -90.0)):
        table = assert_matches_brute_force(p)
        assert h3.latlng_to_cell(pole, 0.0, 3) in table["h3"].to_pylist()


# --------------------------------------------------------------------------------------------------
# tiers
# --------------------------------------------------------------------------------------------------
def test_tercile_breaks_and_tier_boundaries():
    d = np.arange(101, dtype=float)  # 0..100
    p33, p67 = density.tercile_breaks(d)
    assert (p33, p67) == (33.0, 67.0)
    assert p33 < p67
    assert density.tercile_breaks(pa.chunked_array([pa.array(d)])) == (p33, p67)
    assert density.assign_tier(33.0, p33, p67) == "low"
    assert density.assign_tier(33.0000001, p33, p67) == "medium"
    assert density.assign_tier(67.0, p33, p67) == "medium"
    assert density.assign_tier(67.0000001, p33, p67) == "high"
    assert density.assign_tier(0.0, p33, p67) == "low"
    tiers = density.assign_tiers(pa.array([0.0, 33.0, 50.0, 67.0, 68.0, None]), p33, p67)
    assert tiers.to_pylist() == ["low", "low", "medium", "medium", "high", None]
    counts = {
        t: n
        for t, n in zip(
            *np.unique(
                density.assign_tiers(d, p33, p67).to_numpy(zero_copy_only=False), return_counts=True
            )
        )
    }
    assert counts == {"low": 34, "medium": 34, "high": 33}
    with pytest.raises(ValueError):
        density.tercile_breaks([])
    with pytest.raises(ValueError):
        density.tercile_breaks([1.0, math.nan])


def test_with_tiers_on_accra():
    table, p33, p67 = density.with_tiers(density.aggregate_to_h3(ACCRA))
    assert table.column_names == ["h3", "population", "valid_pixels", "area_km2", "density", "tier"]
    assert p33 <= p67
    assert set(table["tier"].to_pylist()) <= set(density.TIERS)


# --------------------------------------------------------------------------------------------------
# proxy raster (GeoNames cities)
# --------------------------------------------------------------------------------------------------
def test_proxy_raster_is_deterministic_and_sane(proxy_1deg, tmp_path):
    path, stats = proxy_1deg
    again = tmp_path / "again.tif"
    stats2 = density.build_proxy_population_raster(again, LAND, resolution_deg=1.0)
    assert sha256_file(path) == sha256_file(again)
    assert stats == {**stats2, "path": stats["path"]}
    with rasterio.open(path) as src:
        assert src.crs.to_epsg() == 4326 and (src.width, src.height) == (360, 180)
        assert (
            src.nodata == density.PROXY_NODATA
            and src.profile["compress"] == "deflate"
            and src.profile["tiled"]
        )
        a = src.read(1)
        (r, c) = src.index(-140.5, 0.5)  # mid-Pacific
        assert a[r, c] == np.float32(density.PROXY_NODATA)
        (r, c) = src.index(139.69, 35.69)  # Tokyo
        assert a[r, c] > 1e6
        (r, c) = src.index(24.5, 24.5)  # eastern Sahara: land, no city
        assert a[r, c] == 0.0
        land = a != np.float32(density.PROXY_NODATA)
    assert int(land.sum()) == stats["land_pixels"]
    assert float(a[land].sum(dtype=np.float64)) == pytest.approx(stats["population"], rel=1e-7)
    assert stats["cities"] > 200_000 and stats["population"] > 4e9
    assert density.raster_label(path) == (stats["label"], True)
    assert stats["label"].startswith(density.PROXY_LABEL)
    assert density.raster_label(KATHMANDU) == (KATHMANDU.name, False)


def test_proxy_global_aggregation_matches_brute_force(proxy_1deg):
    # the whole globe in one band: polar cells, antimeridian cells, pentagons
    path, stats = proxy_1deg
    table = assert_matches_brute_force(path)
    assert sum(table["valid_pixels"].to_pylist()) == stats["land_pixels"]
    assert sum(table["population"].to_pylist()) == pytest.approx(stats["population"], rel=1e-7)
    pentagons = {c for c in table["h3"].to_pylist() if h3.is_pentagon(c)}
    assert pentagons  # some res-3 pentagons lie on land


@pytest.mark.parametrize("res", [0.0, -1.0, 0.7])
def test_proxy_rejects_bad_resolution(tmp_path, res):
    with pytest.raises(ValueError, match="resolution_deg"):
        density.build_proxy_population_raster(tmp_path / "x.tif", LAND, resolution_deg=res)
