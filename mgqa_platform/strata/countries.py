"""Country polygons (Natural Earth admin-0) with their World Bank income tier, and the entity ->
country join.

Conventions: geometries are EPSG:4326 with x = longitude, y = latitude; distances are geodesic on
the WGS84 ellipsoid (``pyproj.Geod``), in kilometres.

Natural Earth has no usable ISO code for a few features (``ISO_A3 = '-99'``: France, Norway, Kosovo,
Somaliland, N. Cyprus, Siachen Glacier, and two Australian territories); the code falls back to
``ISO_A3_EH``, then ``ADM0_A3``. Features that end up with the same code (Australia and its Indian
Ocean and Ashmore/Cartier territories) are unioned into one country. Three economies carry another
code at the World Bank (Kosovo ``XKX``, Jersey and Guernsey as the Channel Islands ``CHI``):
:data:`WB_ECONOMY_OF`.

Country assignment of an entity's representative point (``entities.lon``/``lat``):

1. **within**: the point lies in (or on the border of) a country polygon, tested in DuckDB spatial.
   A point on a shared border belongs to the smallest iso3. ``distance_km`` = 0.
2. **nearest**: otherwise the geodesically nearest country (see :func:`nearest_country`), if at most
   ``max_distance_km`` away (coastal features just off a generalized coastline).
3. **unassigned**: ``iso3`` NULL, ``distance_km`` NULL, ``reason`` names the nearest country and its
   distance.

Every entity gets exactly one row.

Axis order: DuckDB spatial's ``ST_Distance_Spheroid`` reads its points as ``POINT(lat lon)``
(EPSG:4326's own order), unlike the rest of the warehouse; this module measures with ``pyproj.Geod``
(lon, lat) instead, and the tests check both agree."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import geopandas as gpd
import pandas as pd
import pyarrow as pa
import pyproj
import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from mgqa_platform import input_guards
from mgqa_platform.columns import arrow_schema
from mgqa_platform.settings import SAMPLE_DIR
from mgqa_platform.strata import income as inc
from mgqa_platform.warehouse import registered, transaction

#: The bundled Natural Earth 1:50m admin-0 countries (the 1:10m file has the same fields).
NATURAL_EARTH_SAMPLE = SAMPLE_DIR / "naturalearth" / "ne_50m_admin_0_countries.geojson"
#: Natural Earth fields tried in order for a country's ISO 3166-1 alpha-3 code ('-99' = none).
ISO3_FIELDS: tuple[str, ...] = ("ISO_A3", "ISO_A3_EH", "ADM0_A3")
#: Natural Earth code -> World Bank economy code, where the World Bank uses another code for the
#: same economy.
WB_ECONOMY_OF: dict[str, str] = {"KOS": "XKX", "JEY": "CHI", "GGY": "CHI"}
#: income_note of a country that has no row in the World Bank table.
NOT_A_WB_ECONOMY = "not a World Bank economy"
#: Assignment methods, in the order they are tried.
METHODS: tuple[str, ...] = ("within", "nearest", "unassigned")

GEOD = pyproj.Geod(ellps="WGS84")
#: Smallest radius of curvature of WGS84 (km; meridional, at the equator): search boxes use it to
#: stay large.
_R_MIN_KM = 6335.439

#: The Arrow schema of ``entity_country`` rows.
ENTITY_COUNTRY_ARROW = arrow_schema(
    "entity_id VARCHAR, kg VARCHAR, iso3 VARCHAR, method VARCHAR, distance_km DOUBLE, "
    "reason VARCHAR"
)
_COUNTRIES_ARROW = arrow_schema(
    "iso3 VARCHAR, name VARCHAR, name_long VARCHAR, continent VARCHAR, "
    "iso3_source VARCHAR, income_tier VARCHAR, income_group VARCHAR, "
    "income_source VARCHAR, income_note VARCHAR, wkb BLOB"
)


# --------------------------------------------------------------------------------------------------
# Natural Earth countries
# --------------------------------------------------------------------------------------------------
def country_code(props: dict) -> tuple[str, str]:
    """``(iso3, field)`` of a Natural Earth feature: the first of :data:`ISO3_FIELDS` that is not
    ``'-99'``."""
    for field in ISO3_FIELDS:
        value = str(props.get(field) or "").strip()
        if value and value != "-99":
            return value, field
    raise ValueError(f"Natural Earth feature {props.get('NAME')!r} has no code in {ISO3_FIELDS}")


def valid_polygonal(g: BaseGeometry) -> BaseGeometry:
    """``g`` if valid, else ``make_valid(g)`` reduced to its polygonal parts (lines and points
    dropped)."""
    if g.is_valid:
        return g
    fixed = shapely.make_valid(g)
    parts = [
        p for p in getattr(fixed, "geoms", [fixed]) if p.geom_type in ("Polygon", "MultiPolygon")
    ]
    return shapely.union_all(parts)


def load_countries(path: str | Path = NATURAL_EARTH_SAMPLE) -> gpd.GeoDataFrame:
    """Natural Earth admin-0 countries as one row per iso3, ordered by iso3, in EPSG:4326 (lon/lat).

    Columns: ``iso3``, ``name`` (NAME), ``name_long`` (NAME_LONG), ``continent`` (CONTINENT),
    ``iso3_source`` (the field the code came from), ``features`` (Natural Earth features unioned
    into the row) and ``geometry`` (valid Polygon/MultiPolygon). A merged row keeps the attributes
    of its feature with the best code source (ISO_A3 before ISO_A3_EH before ADM0_A3), then the
    largest area.

    A file declaring degrees whose coordinates are not (metres under a CRS84 label) raises
    :class:`mgqa_platform.input_guards.NotDegreesError`. A feature without area (missing, empty, or
    nothing polygonal left after repair) is left out and named in ``attrs["degenerate_features"]``,
    which the ``country_polygons_sound`` check reports.
    """
    gdf = gpd.read_file(path, columns=list(ISO3_FIELDS) + ["NAME", "NAME_LONG", "CONTINENT"])
    if gdf.crs is None or gdf.crs.to_epsg() != 4326:
        # GeoJSON is CRS84 by definition; anything else is reprojected (geopandas keeps x = lon)
        gdf = gdf.set_crs("EPSG:4326") if gdf.crs is None else gdf.to_crs("EPSG:4326")
    else:  # declared degrees: metres written under a CRS84 label are refused, not reprojected
        input_guards.require_degrees(path, gdf.total_bounds, "EPSG:4326/CRS84")
    records, dropped = [], []
    for props, geom in zip(gdf.drop(columns="geometry").to_dict("records"), gdf.geometry):
        if input_guards.degenerate(geom) or input_guards.degenerate(valid_polygonal(geom)):
            dropped.append(str(props.get("NAME") or props.get(ISO3_FIELDS[0])))
            continue
        code, field = country_code(props)
        records.append(
            {
                "iso3": code,
                "iso3_source": field,
                "name": props["NAME"],
                "name_long": props["NAME_LONG"],
                "continent": props["CONTINENT"],
                "geometry": valid_polygonal(geom),
                "_rank": (ISO3_FIELDS.index(field), -geom.area),
            }
        )
    rows = []
    for code in sorted({r["iso3"] for r in records}):
        group = [r for r in records if r["iso3"] == code]
        main = min(group, key=lambda r: r["_rank"])
        geom = (
            group[0]["geometry"]
            if len(group) == 1
            else valid_polygonal(shapely.union_all([r["geometry"] for r in group]))
        )
        rows.append(
            {
                "iso3": code,
                "name": main["name"],
                "name_long": main["name_long"],
                "continent": main["continent"],
                "iso3_source": main["iso3_source"],
                "features": len(group),
                "geometry": geom,
            }
        )
    out = gpd.GeoDataFrame(rows, geometry="geometry", crs="EPSG:4326")
    out.attrs["degenerate_features"] = dropped
    return out


def country_income(countries: pd.DataFrame, income: pd.DataFrame) -> pd.DataFrame:
    """The income columns of each country (same order): ``iso3, income_tier, income_group,
    income_source, income_note``.

    ``income`` is the World Bank table after :func:`income.apply_unclassified_policy`. A country is
    matched on its iso3, or on :data:`WB_ECONOMY_OF` where the World Bank codes the economy
    differently (the note says so). Countries without a World Bank row get a NULL tier and the note
    ``'not a World Bank economy'``.
    """
    by_code = income.set_index("iso3")
    out = []
    for code in countries["iso3"]:
        wb_code = WB_ECONOMY_OF.get(code, code)
        if wb_code not in by_code.index:
            out.append(
                {
                    "iso3": code,
                    "income_tier": None,
                    "income_group": None,
                    "income_source": None,
                    "income_note": NOT_A_WB_ECONOMY,
                }
            )
            continue
        row = by_code.loc[wb_code]
        notes = [f"World Bank economy {wb_code} ({row['name']})"] if wb_code != code else []
        if row["note"]:
            notes.append(row["note"])
        out.append(
            {
                "iso3": code,
                "income_tier": row["income_tier"],
                "income_group": row["income_group"],
                "income_source": row["source"],
                "income_note": "; ".join(notes) or None,
            }
        )
    return pd.DataFrame(
        out,
        columns=["iso3", "income_tier", "income_group", "income_source", "income_note"],
        dtype=object,
    )


def write_countries(
    con: duckdb.DuckDBPyConnection,
    countries: gpd.GeoDataFrame,
    income_df: pd.DataFrame,
    policy: inc.UnclassifiedPolicy = "previous",
    previous: pd.DataFrame | None = None,
) -> dict[str | None, int]:
    """Replace the ``countries`` table (one transaction) by ``countries`` with their income tier.

    The unclassified ``policy`` (and ``previous`` table, default the bundled one) is applied to
    ``income_df`` first, see :func:`income.apply_unclassified_policy`. Returns countries per tier in
    ``income.TIERS`` order, then ``None`` for countries without a tier.
    """
    income = inc.apply_unclassified_policy(income_df, policy, previous)
    joined = country_income(countries, income)
    table = pa.table(
        {
            "iso3": list(countries["iso3"]),
            "name": list(countries["name"]),
            "name_long": list(countries["name_long"]),
            "continent": list(countries["continent"]),
            "iso3_source": list(countries["iso3_source"]),
            **{
                c: list(joined[c])
                for c in ("income_tier", "income_group", "income_source", "income_note")
            },
            "wkb": list(shapely.to_wkb(countries.geometry.values)),
        },
        schema=_COUNTRIES_ARROW,
    )
    with registered(con, _countries_new=table), transaction(con):
        con.execute("DELETE FROM countries")
        con.execute(
            """
            INSERT INTO countries
            SELECT
                iso3, name, name_long, continent, iso3_source, income_tier, income_group,
                income_source, income_note, ST_GeomFromWKB(wkb)
            FROM _countries_new
            ORDER BY iso3
            """
        )
    return inc.tier_counts(joined)


# --------------------------------------------------------------------------------------------------
# nearest country (pure functions over shapely geometries)
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CountryIndex:
    """Country polygons, their boundaries and an STRtree over the polygons (planar, in degrees)."""

    iso3: tuple[str, ...]
    geoms: tuple[BaseGeometry, ...]
    boundaries: tuple[BaseGeometry, ...]
    tree: shapely.STRtree


@dataclass(frozen=True)
class NearestCountry:
    """The country nearest to a point: ``distance_km`` (0 inside) and the boundary point reached
    (lon, lat)."""

    iso3: str
    distance_km: float
    lon: float
    lat: float


def build_country_index(iso3: Sequence[str], geoms: Sequence[BaseGeometry]) -> CountryIndex:
    """An index over the country polygons ``geoms`` (lon/lat), ``iso3[i]`` naming ``geoms[i]``."""
    geoms = tuple(geoms)
    return CountryIndex(
        tuple(iso3), geoms, tuple(g.boundary for g in geoms), shapely.STRtree(geoms)
    )


def country_index_from_warehouse(con: duckdb.DuckDBPyConnection) -> CountryIndex:
    """:func:`build_country_index` over the ``countries`` table."""
    rows = con.execute("SELECT iso3, ST_AsWKB(geometry) FROM countries ORDER BY iso3").fetchall()
    return build_country_index([r[0] for r in rows], [shapely.from_wkb(bytes(r[1])) for r in rows])


def geodesic_km(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Geodesic distance in km between two lon/lat points on WGS84."""
    return GEOD.inv(lon1, lat1, lon2, lat2)[2] / 1000.0


def search_box(lon: float, lat: float, km: float) -> tuple[float, float, float, float]:
    """A lon/lat box ``(minx, miny, maxx, maxy)`` holding every point within ``km`` of (lon, lat).

    Spherical-cap bounds with the smallest WGS84 radius of curvature and a 1 % margin, so the box
    errs on the large side. ``minx``/``maxx`` may pass ±180 (the caller wraps); a cap reaching a
    pole spans all longitudes.
    """
    ang = km * 1.01 / _R_MIN_KM  # angular radius, radians
    dlat = math.degrees(ang)
    miny, maxy = lat - dlat, lat + dlat
    if miny <= -90 or maxy >= 90:
        return -180.0, max(miny, -90.0), 180.0, min(maxy, 90.0)
    ratio = math.sin(ang) / math.cos(math.radians(lat))
    if ratio >= 1:
        return -180.0, miny, 180.0, maxy
    dlon = math.degrees(math.asin(ratio))
    return lon - dlon, miny, lon + dlon, maxy


def distance_to_boundary_km(
    boundary: BaseGeometry, lon: float, lat: float, within_km: float
) -> tuple[float, float, float] | None:
    """``(km, lon, lat)``: geodesic distance from (lon, lat) to the nearest point of ``boundary``,
    and that point.

    Only the part of ``boundary`` inside :func:`search_box` of ``within_km`` is searched; returns
    ``None`` when nothing is there (the boundary is farther than ``within_km``).

    Approximation: the nearest boundary point is found with shapely ``nearest_points``, once in
    plain degrees and once in a local equirectangular frame (longitudes scaled by cos(lat) at the
    point, which removes most of the degree distortion); the geodesic distance to each is measured
    and the smaller one kept. The result is the exact geodesic distance to a real boundary point,
    hence never below the true distance; it exceeds it only by the frame's residual distortion
    (negligible at tens of km). Boundary edges are straight in lon/lat, as Natural Earth draws them.
    """
    minx, miny, maxx, maxy = search_box(lon, lat, within_km)
    part = shapely.clip_by_rect(boundary, minx, miny, maxx, maxy)
    if part.is_empty:
        return None
    k = max(math.cos(math.radians(lat)), 1e-6)
    here = Point(lon, lat)
    candidates = [nearest_points(part, here)[0]]
    local = shapely.transform(part, lambda xy: (xy - (lon, lat)) * (k, 1.0))
    p = nearest_points(local, Point(0.0, 0.0))[0]
    candidates.append(Point(p.x / k + lon, p.y + lat))
    return min((geodesic_km(lon, lat, c.x, c.y), c.x, c.y) for c in candidates)


def nearest_country(index: CountryIndex, lon: float, lat: float) -> NearestCountry | None:
    """The country containing (lon, lat) (distance 0; on a border the smallest iso3), else the
    country whose boundary is geodesically nearest (ties: smallest iso3). ``None`` only for an empty
    index.

    Candidates: the planar-nearest polygon in degrees gives an upper bound ``d0`` on the distance;
    every polygon meeting the :func:`search_box` of ``d0`` (also across the antimeridian) is then
    measured with :func:`distance_to_boundary_km`.
    """
    if not index.iso3:
        return None
    here = Point(lon, lat)
    inside = sorted(index.iso3[i] for i in index.tree.query(here, predicate="intersects"))
    if inside:
        return NearestCountry(inside[0], 0.0, lon, lat)
    i0 = int(index.tree.query_nearest(here)[0])
    p0 = nearest_points(index.boundaries[i0], here)[0]
    best = (geodesic_km(lon, lat, p0.x, p0.y), index.iso3[i0], p0.x, p0.y)
    minx, miny, maxx, maxy = search_box(lon, lat, best[0])
    for shift in (
        0.0,
        -360.0,
        360.0,
    ):  # the box's parts beyond ±180 are searched with the point shifted
        lo, hi = max(minx + shift, -180.0), min(maxx + shift, 180.0)
        if lo > hi or (shift and lo >= hi):
            continue
        for i in sorted(
            index.tree.query(shapely.box(lo, miny, hi, maxy)), key=lambda i: index.iso3[i]
        ):
            found = distance_to_boundary_km(index.boundaries[i], lon + shift, lat, best[0])
            if found is not None and (found[0], index.iso3[i]) < best[:2]:
                best = (found[0], index.iso3[i], found[1], found[2])
    return NearestCountry(best[1], best[0], best[2], best[3])


# --------------------------------------------------------------------------------------------------
# entity -> country
# --------------------------------------------------------------------------------------------------
def outside_assignment(near: NearestCountry, max_distance_km: float) -> dict:
    """The ``entity_country`` columns (iso3, method, distance_km, reason) of a point inside no
    country, ``near`` being its nearest: ``'nearest'`` within ``max_distance_km``, else
    ``'unassigned'`` with the reason."""
    if near.distance_km <= max_distance_km:
        return {
            "iso3": near.iso3,
            "method": "nearest",
            "distance_km": near.distance_km,
            "reason": None,
        }
    reason = (
        f"no country within {max_distance_km:g} km "
        f"(nearest {near.iso3} at {near.distance_km:.1f} km)"
    )
    return {"iso3": None, "method": "unassigned", "distance_km": None, "reason": reason}


def assign_countries(
    con: duckdb.DuckDBPyConnection,
    max_distance_km: float = 25.0,
    kg: str | None = None,
    top_n: int = 10,
) -> dict:
    """Fill ``entity_country`` for all entities, or replace only the rows of KG ``kg`` (one
    transaction).

    Point in polygon runs in DuckDB spatial (``ST_Intersects``, border points to the smallest iso3);
    the remaining points go to :func:`nearest_country` and are ``'nearest'`` within
    ``max_distance_km``, else ``'unassigned'`` with the reason ``"no country within 25 km (nearest
    FRA at 240.3 km)"``. Every entity in scope gets exactly one row (checked before commit). Raises
    ``ValueError`` if ``countries`` is empty.

    Returns ``{"entities": n, "methods": {method: n}, "top_iso3": {iso3: n}}`` (the ``top_n`` most
    frequent countries, ties by iso3) for the rows in scope.
    """
    if con.execute("SELECT count(*) FROM countries").fetchone()[0] == 0:
        raise ValueError("the countries table is empty: run write_countries first")
    # scope: all KGs or one; `scope` filters the aliased entities `e`, `in_kg` the unaliased tables
    scope, in_kg, params = ("TRUE", "TRUE", []) if kg is None else ("e.kg = ?", "kg = ?", [kg])
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE _ec_within AS
        SELECT e.entity_id, e.kg, min(c.iso3) AS iso3
        FROM entities e JOIN countries c ON ST_Intersects(c.geometry, ST_Point(e.lon, e.lat))
        WHERE {scope} GROUP BY e.entity_id, e.kg""",
        params,
    )
    rest = con.execute(
        f"""SELECT e.entity_id, e.kg, e.lon, e.lat FROM entities e
        ANTI JOIN _ec_within w ON w.entity_id = e.entity_id AND w.kg = e.kg
        WHERE {scope} ORDER BY e.kg, e.entity_id""",
        params,
    ).fetchall()
    rows = []
    index = country_index_from_warehouse(con) if rest else None
    for entity_id, entity_kg, lon, lat in rest:
        row = outside_assignment(nearest_country(index, lon, lat), max_distance_km)
        rows.append({"entity_id": entity_id, "kg": entity_kg, **row})
    rest_table = pa.Table.from_pylist(rows, schema=ENTITY_COUNTRY_ARROW)
    try:
        with registered(con, _ec_rest=rest_table), transaction(con):
            con.execute(f"DELETE FROM entity_country WHERE {in_kg}", params)
            con.execute(
                """
                INSERT INTO entity_country
                SELECT *
                FROM (
                    SELECT entity_id, kg, iso3, 'within', 0.0, NULL
                    FROM _ec_within
                    UNION ALL
                    SELECT *
                    FROM _ec_rest
                )
                ORDER BY kg, entity_id
                """
            )
            n_rows, n_entities = con.execute(
                f"""
                SELECT
                    (SELECT count(*) FROM entity_country WHERE {in_kg}),
                    (SELECT count(*) FROM entities e WHERE {scope})
                """,
                params + params,
            ).fetchone()
            if n_rows != n_entities:
                raise RuntimeError(f"entity_country has {n_rows} rows for {n_entities} entities")
    finally:
        con.execute("DROP TABLE IF EXISTS _ec_within")
    return country_summary(con, kg, top_n)


def country_summary(con: duckdb.DuckDBPyConnection, kg: str | None, top_n: int = 10) -> dict:
    """``{"entities": n, "methods": {method: n}, "top_iso3": {iso3: n}}`` over the
    ``entity_country`` rows of ``kg`` (None: all KGs), the ``top_n`` most frequent countries first
    (ties by iso3)."""
    in_kg, params = ("TRUE", []) if kg is None else ("kg = ?", [kg])
    n_rows = con.execute(f"SELECT count(*) FROM entity_country WHERE {in_kg}", params).fetchone()
    methods = dict(
        con.execute(
            f"SELECT method, count(*) FROM entity_country WHERE {in_kg} GROUP BY 1", params
        ).fetchall()
    )
    top = con.execute(
        f"""SELECT iso3, count(*) AS n FROM entity_country WHERE iso3 IS NOT NULL AND {in_kg}
        GROUP BY 1 ORDER BY n DESC, iso3 LIMIT ?""",
        params + [top_n],
    ).fetchall()
    return {
        "entities": int(n_rows[0]),
        "methods": {m: int(methods.get(m, 0)) for m in METHODS},
        "top_iso3": dict(top),
    }


def country_names(path: str | Path = NATURAL_EARTH_SAMPLE) -> list[str]:
    """Every name of every country of a Natural Earth admin-0 file: ``ADMIN`` and the ``NAME*``
    fields (the English name, the long name and the names in each language), sorted."""
    gdf = gpd.read_file(path, ignore_geometry=True)
    cols = [c for c in gdf.columns if c == "ADMIN" or (c.startswith("NAME") and c != "NAME_LEN")]
    return sorted({v.strip() for c in cols for v in gdf[c] if isinstance(v, str) and v.strip()})
