"""Natural Earth countries with income tiers, and the entity -> country assignment, on the real
1:50m file.

Coordinates are (lon, lat) in EPSG:4326 unless a DuckDB spheroid function says otherwise.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import shapely

from mgqa_platform import warehouse
from mgqa_platform.settings import SAMPLE_DIR
from mgqa_platform.strata import countries, income

WB_CSV = SAMPLE_DIR / "worldbank" / "wb_income_fy2026.csv"

# name -> (lon, lat, expected iso3, expected method)
PLACES = {
    "helsinki": (24.94, 60.17, "FIN", "within"),
    "paris": (2.35, 48.86, "FRA", "within"),  # ISO_A3 is -99 for France
    "oslo": (10.75, 59.91, "NOR", "within"),  # ISO_A3 is -99 for Norway
    "addis_ababa": (38.74, 9.03, "ETH", "within"),
    "antarctica": (0.0, -80.0, "ATA", "within"),
    "off_dakar": (
        -17.55,
        14.69,
        "SEN",
        "nearest",
    ),  # in the Atlantic, ~6 km west of the Cap-Vert peninsula
    "off_malta": (14.62, 35.88, "MLT", "nearest"),  # ~6 km east of Malta
    "mid_atlantic": (-30.0, 30.0, None, "unassigned"),
}


@pytest.fixture(scope="module")
def ne_countries():
    return countries.load_countries()


@pytest.fixture(scope="module")
def wb_income():
    return income.load_income(WB_CSV)


def insert_entities(con, kg: str, places: dict[str, tuple]) -> None:
    """Minimal `entities` rows: a point geometry at (lon, lat) plus the required columns."""
    for name, (lon, lat, *_rest) in places.items():
        con.execute(
            """
            INSERT INTO entities (entity_id, kg, iri, name, display_name, name_unique, category,
                                  types, geometry, geom_kind, lon, lat, h3, snapshot_id)
            VALUES (?, ?, ?, ?, ?, true, 'test', [], ST_Point(?, ?), 'point', ?, ?, [], 'test')
            """,
            [f"{kg}:{name}", kg, f"http://example.org/{name}", name, name, lon, lat, lon, lat],
        )


@pytest.fixture
def con(ne_countries, wb_income):
    c = warehouse.connect(None)
    warehouse.ensure_schema(c)
    countries.write_countries(c, ne_countries, wb_income, "previous", None)
    insert_entities(c, "worldkg", PLACES)
    yield c
    c.close()


def assignments(con) -> dict[str, tuple]:
    rows = con.execute(
        "SELECT entity_id, iso3, method, distance_km, reason FROM entity_country ORDER BY entity_id"
    ).fetchall()
    return {r[0].split(":", 1)[1]: r[1:] for r in rows}


# --------------------------------------------------------------------------------------------------
# countries
# --------------------------------------------------------------------------------------------------
def test_load_countries_codes_merge_and_validity(ne_countries):
    gdf = ne_countries
    assert len(gdf) == 240 and gdf["iso3"].is_unique  # 242 features, Australia's 3 merged into one
    assert gdf.crs.to_epsg() == 4326
    rows = gdf.set_index("iso3")
    assert (
        rows.loc["FRA", "iso3_source"] == "ISO_A3_EH"
        and rows.loc["NOR", "iso3_source"] == "ISO_A3_EH"
    )
    assert rows.loc["KOS", "iso3_source"] == "ADM0_A3" and rows.loc["SOL", "name"] == "Somaliland"
    assert rows.loc["AUS", ["name", "iso3_source", "features"]].tolist() == [
        "Australia",
        "ISO_A3",
        3,
    ]
    assert (gdf["features"] == 1).sum() == 239
    assert gdf.geometry.is_valid.all() and set(gdf.geom_type) <= {"Polygon", "MultiPolygon"}
    # x = longitude: Helsinki lies in Finland only with (lon, lat) order
    assert rows.loc["FIN", "geometry"].contains(shapely.Point(24.94, 60.17))
    assert not rows.loc["FIN", "geometry"].contains(shapely.Point(60.17, 24.94))
    # Cocos Islands (Indian Ocean Ter.) joined Australia
    assert rows.loc["AUS", "geometry"].distance(shapely.Point(96.83, -12.19)) < 0.2


def test_write_countries_tiers_and_notes(con, ne_countries, wb_income):
    got = {
        r[0]: r[1:]
        for r in con.execute(
            "SELECT iso3, income_tier, income_source, income_note FROM countries"
        ).fetchall()
    }
    assert len(got) == 240
    assert (
        got["ETH"][0] == "LIC"
        and got["ETH"][2] == "not classified in FY2026; FY2025 classification used"
    )
    assert (
        got["VEN"][0] == "UMC"
        and got["VEN"][2] == "not classified in FY2026; FY2021 classification used"
    )
    assert got["ATA"] == (None, None, "not a World Bank economy")
    assert got["KOS"][0] == "UMC" and got["KOS"][2] == "World Bank economy XKX (Kosovo)"
    assert got["FIN"] == ("HIC", "World Bank FY2026 (wb_income_fy2026.csv)", None)
    # replacing: the exclude policy rewrites the whole table
    counts = countries.write_countries(con, ne_countries, wb_income, "exclude", None)
    assert counts == {"LIC": 25, "LMC": 50, "UMC": 54, "HIC": 86, None: 25}
    assert con.execute("SELECT count(*) FROM countries").fetchone()[0] == 240
    eth = con.execute(
        "SELECT income_tier, income_note FROM countries WHERE iso3 = 'ETH'"
    ).fetchone()
    assert eth == (None, "not classified in FY2026")
    # geometry survives the round trip in lon/lat
    assert con.execute(
        "SELECT ST_Contains(geometry, ST_Point(2.35, 48.86)) FROM countries WHERE iso3 = 'FRA'"
    ).fetchone()[0]


def test_write_countries_counts_with_previous_policy(ne_countries, wb_income):
    c = warehouse.connect(None)
    warehouse.ensure_schema(c)
    counts = countries.write_countries(c, ne_countries, wb_income, "previous", None)
    # 216 World Bank economies have a polygon (GIB has none at 1:50m), CHI twice (Jersey, Guernsey)
    assert counts == {"LIC": 26, "LMC": 50, "UMC": 55, "HIC": 86, None: 23}
    c.close()


# --------------------------------------------------------------------------------------------------
# entity -> country
# --------------------------------------------------------------------------------------------------
def test_assign_countries_within_nearest_unassigned(con):
    summary = countries.assign_countries(con)
    assert summary["entities"] == len(PLACES)
    assert summary["methods"] == {"within": 5, "nearest": 2, "unassigned": 1}
    got = assignments(con)
    for name, (_lon, _lat, iso3, method) in PLACES.items():
        assert got[name][:2] == (iso3, method), name
    assert got["helsinki"][2:] == (0.0, None)
    for name in ("off_dakar", "off_malta"):
        assert 0 < got[name][2] <= 25 and got[name][3] is None
    iso3, method, distance, reason = got["mid_atlantic"]
    assert distance is None
    m = re.fullmatch(r"no country within 25 km \(nearest (\w{3}) at ([\d.]+) km\)", reason)
    assert m and m.group(1) == "PRT" and 800 < float(m.group(2)) < 1000  # the Azores
    assert set(summary["top_iso3"]) == {"ATA", "ETH", "FIN", "FRA", "MLT", "NOR", "SEN"}


def test_income_of_addis_ababa_and_antarctica_depends_on_policy(con, ne_countries, wb_income):
    countries.assign_countries(con)
    sql = """SELECT c.income_tier, c.income_note
             FROM entity_country ec JOIN countries c USING (iso3)
             WHERE ec.entity_id = ?"""
    assert con.execute(sql, ["worldkg:addis_ababa"]).fetchone() == (
        "LIC",
        "not classified in FY2026; FY2025 classification used",
    )
    assert con.execute(sql, ["worldkg:antarctica"]).fetchone() == (None, "not a World Bank economy")
    countries.write_countries(con, ne_countries, wb_income, "exclude", None)
    assert con.execute(sql, ["worldkg:addis_ababa"]).fetchone() == (
        None,
        "not classified in FY2026",
    )


def test_max_distance_and_kg_partitions(con):
    insert_entities(con, "kwg", {"off_dakar": PLACES["off_dakar"], "madrid": (-3.70, 40.42)})
    first = countries.assign_countries(con, kg="kwg", max_distance_km=1.0)
    assert first["entities"] == 2 and first["methods"] == {
        "within": 1,
        "nearest": 0,
        "unassigned": 1,
    }
    assert con.execute("SELECT DISTINCT kg FROM entity_country").fetchall() == [
        ("kwg",)
    ]  # only that partition
    reason = con.execute(
        "SELECT reason FROM entity_country WHERE entity_id = 'kwg:off_dakar'"
    ).fetchone()[0]
    assert re.fullmatch(r"no country within 1 km \(nearest SEN at [\d.]+ km\)", reason)

    countries.assign_countries(con)  # all KGs
    assert con.execute(
        "SELECT kg, count(*) FROM entity_country GROUP BY 1 ORDER BY 1"
    ).fetchall() == [("kwg", 2), ("worldkg", 8)]
    # re-running one partition replaces it and leaves the other alone
    con.execute("DELETE FROM entities WHERE entity_id = 'kwg:madrid'")
    again = countries.assign_countries(con, kg="kwg")
    assert again["methods"] == {"within": 0, "nearest": 1, "unassigned": 0}
    assert con.execute(
        "SELECT kg, count(*) FROM entity_country GROUP BY 1 ORDER BY 1"
    ).fetchall() == [("kwg", 1), ("worldkg", 8)]
    # no entities in scope: an empty partition, not an error
    assert countries.assign_countries(con, kg="osmh3kg")["entities"] == 0


def test_point_on_a_shared_border_goes_to_the_smallest_iso3(con, ne_countries):
    rows = ne_countries.set_index("iso3")
    fin = {tuple(xy) for xy in shapely.get_coordinates(rows.loc["FIN", "geometry"].boundary)}
    swe = {tuple(xy) for xy in shapely.get_coordinates(rows.loc["SWE", "geometry"].boundary)}
    lon, lat = sorted(fin & swe)[0]  # a vertex of both borders
    insert_entities(con, "osmh3kg", {"border": (lon, lat)})
    countries.assign_countries(con, kg="osmh3kg")
    assert con.execute(
        "SELECT iso3, method FROM entity_country WHERE kg = 'osmh3kg'"
    ).fetchone() == ("FIN", "within")


def test_assign_needs_countries():
    c = warehouse.connect(None)
    warehouse.ensure_schema(c)
    with pytest.raises(ValueError, match="countries table is empty"):
        countries.assign_countries(c)
    c.close()


# --------------------------------------------------------------------------------------------------
# cross-checks against independent implementations
# --------------------------------------------------------------------------------------------------
def sample_points(
    ne_countries, n_random: int = 300, n_coastal: int = 120, seed: int = 7
) -> list[tuple[float, float]]:
    """Uniform points on the sphere plus points scattered around random boundary vertices
    (seeded)."""
    rng = np.random.default_rng(seed)
    lon = rng.uniform(-180, 180, n_random)
    lat = np.degrees(np.arcsin(rng.uniform(-1, 1, n_random)))
    pts = list(zip(lon.tolist(), lat.tolist()))
    boundaries = [g.boundary for g in ne_countries.geometry]
    for _ in range(n_coastal):
        xy = shapely.get_coordinates(boundaries[rng.integers(len(boundaries))])
        x, y = xy[rng.integers(len(xy))] + rng.normal(0, 0.15, 2)
        pts.append((float(np.clip(x, -180, 180)), float(np.clip(y, -89.9, 89.9))))
    return pts


def test_duckdb_point_in_polygon_matches_shapely(con, ne_countries):
    pts = sample_points(ne_countries)
    con.execute("CREATE TEMP TABLE pts (i INTEGER, lon DOUBLE, lat DOUBLE)")
    con.executemany("INSERT INTO pts VALUES (?, ?, ?)", [(i, x, y) for i, (x, y) in enumerate(pts)])
    duck: dict[int, set[str]] = {}
    for i, iso3 in con.execute(
        "SELECT p.i, c.iso3 "
        "FROM pts p "
        "JOIN countries c ON ST_Intersects(c.geometry, ST_Point(p.lon, p.lat))"
    ).fetchall():
        duck.setdefault(i, set()).add(iso3)
    codes = list(ne_countries["iso3"])
    tree = shapely.STRtree(list(ne_countries.geometry))
    for i, (x, y) in enumerate(pts):
        shp = {
            codes[j] for j in tree.query(shapely.Point(x, y), predicate="within")
        }  # point within polygon
        assert duck.get(i, set()) == shp, (x, y)
    assert 100 < len(duck) < len(pts)  # both inside and outside points were exercised


def test_duckdb_spheroid_distance_takes_lat_lon_and_matches_pyproj(con):
    # Helsinki -> Paris. DuckDB's ST_Distance_Spheroid reads POINT(lat lon) (EPSG:4326 axis order).
    geod_km = countries.geodesic_km(24.94, 60.17, 2.35, 48.86)
    latlon, lonlat = con.execute(
        """SELECT ST_Distance_Spheroid(ST_Point(60.17, 24.94), ST_Point(48.86, 2.35)) / 1000,
                  ST_Distance_Spheroid(ST_Point(24.94, 60.17), ST_Point(2.35, 48.86)) / 1000"""
    ).fetchone()
    assert latlon == pytest.approx(geod_km, abs=1e-6) and geod_km == pytest.approx(
        1912.85, abs=0.01
    )
    assert abs(lonlat - geod_km) > 500  # lon/lat order gives a different (wrong) distance


def test_nearest_distance_matches_duckdb_and_a_brute_force_search(con, ne_countries):
    index = countries.build_country_index(ne_countries["iso3"], ne_countries.geometry)
    pts = [(x, y) for x, y in sample_points(ne_countries, n_random=0, n_coastal=60, seed=11)]
    outside = [
        (x, y)
        for x, y in pts
        if not index.tree.query(shapely.Point(x, y), predicate="intersects").size
    ]
    assert len(outside) >= 15
    for x, y in outside:
        near = countries.nearest_country(index, x, y)
        # point-to-point: pyproj vs DuckDB spheroid distance to the reported boundary point
        duck = con.execute(
            "SELECT ST_Distance_Spheroid(ST_Point(?, ?), ST_Point(?, ?)) / 1000",
            [y, x, near.lat, near.lon],
        ).fetchone()[0]
        assert near.distance_km == pytest.approx(duck, abs=1e-6)
        # brute force: geodesic distance to every vertex of the boundaries densified to 0.005 deg,
        # near the point
        best = (math.inf, None)
        for code, geom in zip(index.iso3, index.geoms):
            minx, miny, maxx, maxy = geom.bounds
            if not (minx - 5 < x < maxx + 5 and miny - 5 < y < maxy + 5):
                continue
            xy = shapely.get_coordinates(shapely.segmentize(geom.boundary, 0.005))
            d = (
                countries.GEOD.inv(np.full(len(xy), x), np.full(len(xy), y), xy[:, 0], xy[:, 1])[
                    2
                ].min()
                / 1000
            )
            best = min(best, (d, code))
        assert near.iso3 == best[1], (x, y, near, best)
        # the densified vertices overestimate by at most ~0.3 km; ours may not exceed them by more
        # than 0.5 %
        assert near.distance_km <= best[0] * 1.005 + 0.01, (x, y, near, best)


def test_nearest_country_across_the_antimeridian():
    east = shapely.box(179.5, 0.0, 179.9, 1.0)  # just west of the antimeridian
    far = shapely.box(-170.0, 0.0, -169.0, 1.0)  # nearer in planar degrees from -179.95
    index = countries.build_country_index(["AAA", "BBB"], [east, far])
    near = countries.nearest_country(index, -179.95, 0.5)
    assert near.iso3 == "AAA" and near.lon == pytest.approx(179.9)
    assert near.distance_km == pytest.approx(
        countries.geodesic_km(-179.95, 0.5, 179.9, 0.5), abs=1e-6
    )
    assert 16 < near.distance_km < 17
    assert countries.nearest_country(index, 179.7, 0.5) == countries.NearestCountry(
        "AAA", 0.0, 179.7, 0.5
    )


@pytest.mark.parametrize("lat", [0.0, 45.0, -60.0, 80.0, 89.0])
@pytest.mark.parametrize("km", [1.0, 25.0, 900.0])
def test_search_box_holds_the_geodesic_circle(lat, km):
    lon = 179.0
    minx, miny, maxx, maxy = countries.search_box(lon, lat, km)
    az = np.arange(0, 360, 5.0)
    x, y, _ = countries.GEOD.fwd(
        np.full(az.size, lon), np.full(az.size, lat), az, np.full(az.size, km * 1000)
    )
    x = np.where(x < minx, x + 360, x)  # unwrap across the antimeridian into the box's frame
    assert (miny <= y).all() and (y <= maxy).all()
    assert ((minx <= x) & (x <= maxx)).all()
