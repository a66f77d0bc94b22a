"""Executors for SFID B: metric containment (what lies within a radius of an entity).

Geometry conventions: EPSG:4326 with x = longitude, y = latitude; entities are represented by their
representative point (``lon``/``lat`` columns). "Within r km" means a WGS84 geodesic distance
(DuckDB ``ST_Distance_Spheroid`` on POINT(lat lon), see :func:`geodesic_km_sql`) of at most r km.
Every SQL radius filter is first narrowed by a cheap lon/lat box that is slightly larger than the
circle (:func:`box_columns_sql`); boxes are not wrapped across the antimeridian.

B03 reads the population raster behind the density tiers (``density_breaks.raster``, EPSG:4326) with
rasterio: a pixel counts in full when its centre lies within the geodesic radius (pyproj ``Geod``),
see :func:`population_within`.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np
import rasterio
from affine import Affine
from pyproj import Geod
from rasterio.windows import Window

from mgqa_platform.questions import formats, roles
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import (
    Executor,
    LocalExecutor,
    Outcome,
    Pool,
    bound_join,
    geodesic_km_sql,
)

GEOD = Geod(ellps="WGS84")
# : a little under the shortest degree of latitude (110.574 km): boxes err on the large side
KM_PER_DEG_MIN = 110.0
BOUNDARY_BAND = (
    0.005  #: relative band around the radius; a member inside it makes the tuple ambiguous
)
KM_PER_DEG_LAT = 111.32  #: nominal length of one degree of latitude, for pixel sizes
MIN_RADIUS_PIXELS = 2.0  #: B03: the radius must span at least this many pixel heights


def box_columns_sql(c: str, km: str) -> str:
    """SQL select-list items ``y0, y1, x0, x1``: a lon/lat box (degrees) around ``c``'s
    representative point that contains the geodesic circle of radius ``km`` (an SQL expression in
    km). The longitude half-width is scaled by the cosine of the box's most poleward latitude
    (capped near the poles). Plain columns let DuckDB run the box test as an inequality join
    (IEJoin)."""
    dlat = f"(({km}) / {KM_PER_DEG_MIN})"
    dlon = f"({dlat} / greatest(cos(radians(least(abs({c}.lat) + {dlat}, 89.0))), 0.01))"
    return (
        f"{c}.lat - {dlat} AS y0, {c}.lat + {dlat} AS y1, {c}.lon - {dlon} AS x0, "
        f"{c}.lon + {dlon} AS x1"
    )


def in_box_sql(box: str, e: str) -> str:
    """SQL: ``e``'s representative point lies in the box columns of relation ``box`` (see
    :func:`box_columns_sql`)."""
    return (
        f"{e}.lat >= {box}.y0 AND {e}.lat <= {box}.y1 AND {e}.lon >= {box}.x0 "
        f"AND {e}.lon <= {box}.x1"
    )


def approx_km_sql(a: str, b: str) -> str:
    """SQL: equirectangular km between the representative points of ``a`` and ``b`` (candidate
    filters only; within about 0.5% of the geodesic for the radii used here)."""
    return (
        f"(111.195 * sqrt(pow({a}.lat - {b}.lat, 2) + "
        f"pow(({a}.lon - {b}.lon) * cos(radians(({a}.lat + {b}.lat) / 2)), 2)))"
    )


def members_in_radius(
    members: list[Mapping[str, Any]] | None, radius_km: float, band: float = BOUNDARY_BAND
) -> tuple[list[Mapping[str, Any]], bool]:
    """(members with ``km <= radius_km``, whether any member lies within ``band * radius_km`` of the
    circle).

    ``members`` are dicts with ``id``, ``name``, ``km`` (geodesic km from the anchor's
    representative point)."""
    members = members or []
    inside = [m for m in members if m["km"] <= radius_km]
    ambiguous = any(abs(m["km"] - radius_km) <= band * radius_km for m in members)
    return inside, ambiguous


def seeded_choice_sql(pool: Pool, values: list, salt: str, column: str) -> str:
    """SQL: one of ``values`` drawn by a seeded hash of ``column`` (BIGINT if all values are ints,
    else DOUBLE)."""
    typ = (
        "BIGINT"
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values)
        else "DOUBLE"
    )
    items = ", ".join(f"CAST({v!r} AS {typ})" for v in values)
    return f"[{items}][1 + CAST({seeded_int_sql(pool, salt, column)} % {len(values)} AS INTEGER)]"


def seeded_int_sql(pool: Pool, salt: str, column: str) -> str:
    """SQL: a seeded non-negative integer hash of ``column`` (md5 of seed, KG, salt and value)."""
    return f"md5_number('{pool.seed}|{pool.kg}|{salt}|' || CAST({column} AS VARCHAR))"


class _RadiusMembers(Executor):
    """Shared by B01/B02: members of ``category_A`` (category role) within ``value`` km of the
    anchor point.

    Anchors are sampled among those with a category member in the same lon/lat grid cell (side twice
    the largest radius), so sparse anchors such as events near few POIs are still found.
    Candidates draw the radius (seeded, from the sub-template's ``value`` list) and one category per
    anchor among those found within ``reach_factor`` radii and having between :attr:`min_members`
    and :attr:`max_members` members inside the radius (equirectangular estimate). With
    ``positive_every = n``, one anchor in n asks for a category with no member inside (a near miss),
    the others for one with members; anchors without such a category are skipped.
    """

    evidence = ("geometry", "type")  # members' rdf:type states their category
    max_members: int = 100
    min_members: int = 0
    positive_every: int = 4  # 1 anchor in ``positive_every`` asks for an empty answer (0 = never)
    reach_factor: float = (
        2.0  # categories are looked for within this multiple of the radius (near misses)
    )

    def _roles(self, sub: SubTemplate) -> tuple[str, str]:
        cat = next(r for r, t in sub.roles.items() if roles.is_category(t))
        return cat, sub.entity_roles[0]

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        cat, anchor = self._roles(sub)
        values = sub.parameters["value"]
        want = (
            f"{seeded_int_sql(pool, sub.id + '|zero', 'a.entity_id')} % {self.positive_every} <> 0"
            if self.positive_every
            else "TRUE"
        )
        cell = (
            2.0 * float(max(values)) / KM_PER_DEG_MIN
        )  # degrees; anchors need a member in their grid cell
        key = lambda x: f"(floor({x}.lat / {cell}) * 100000 + floor({x}.lon / {cell}))"  # noqa: E731
        has_members = (
            f"{key('p')} IN (SELECT DISTINCT {key('q')} "
            "FROM pool q "
            f"WHERE {roles.candidate_predicate(sub.roles[cat], 'q')})"
        )
        return (
            "WITH a0 "
            "AS "
            f"(SELECT *, {seeded_choice_sql(pool, values, sub.id + '|value', 'entity_id')} "
            "AS value, "
            f"FROM ({pool.sample(sub.roles[anchor], f'{sub.id}|{anchor}', where=has_members)})), "
            "a "
            f"AS (SELECT a0.*, {box_columns_sql('a0', f'a0.value * {self.reach_factor}')} "
            "FROM a0), "
            "m AS (SELECT p.entity_id, p.category, p.lon, p.lat "
            "FROM pool p "
            f"WHERE {roles.candidate_predicate(sub.roles[cat], 'p')}), "
            "big AS (SELECT category "
            "FROM m "
            "GROUP BY category "
            f"HAVING count(*) >= {roles.MIN_CATEGORY_MEMBERS}), "
            f"near AS (SELECT a.stratum, a.entity_id AS anchor, a.value, {want} AS want, "
            "m.category, "
            f"count_if({approx_km_sql('a', 'm')} <= a.value) AS n "
            "FROM a "
            f"JOIN m ON {in_box_sql('a', 'm')} "
            "AND m.entity_id <> a.entity_id "
            "GROUP BY ALL "
            f"HAVING n BETWEEN {self.min_members} AND {self.max_members}) "
            f"SELECT stratum, anchor AS {anchor}, category AS {cat}, value "
            "FROM near "
            "SEMI JOIN big USING (category) "
            f"QUALIFY row_number() OVER (PARTITION BY anchor ORDER BY (n > 0) = want DESC, "
            f"{pool.order_key(sub.id, 'anchor', 'category')}) = 1 AND (n > 0) = want"
        )

    def _gold_reach(self) -> str:
        """SQL: the radius (km) around the anchor within which the gold query reads members."""
        return f"c.value * {1 + BOUNDARY_BAND}"

    def gold_boxes(self, sub: SubTemplate) -> str:
        """The boxes of :meth:`gold_sql`'s member join (:func:`box_columns_sql` around the anchor,
        same reach): no member outside them is read."""
        _, anchor = self._roles(sub)
        return (
            f"SELECT {box_columns_sql('c', self._gold_reach())} FROM (SELECT t.value, a.lon, a.lat "
            f"FROM t JOIN main.entities a ON a.entity_id = t.{anchor}) AS c"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        cat, anchor = self._roles(sub)
        reach = self._gold_reach()
        return (
            f"WITH c AS (SELECT t.row_id, t.kg, t.{cat} AS category, t.value, a.entity_id, "
            "a.lon, a.lat "
            "FROM t "
            f"JOIN entities a ON a.entity_id = t.{anchor}), "
            f"b AS (SELECT c.*, {box_columns_sql('c', reach)} FROM c), "
            "m AS (SELECT b.row_id, e.entity_id, e.display_name, "
            f"{geodesic_km_sql('b', 'e')} AS km "
            "FROM b "
            "JOIN entities e ON e.kg = b.kg AND e.category = b.category "
            f"AND {roles.predicate(sub.roles[cat], 'e')} "
            f"AND e.entity_id <> b.entity_id AND {in_box_sql('b', 'e')}) "
            "SELECT t.row_id, t.value AS radius_km, "
            "list(struct_pack(id := m.entity_id, name := m.display_name, km := m.km) "
            f"ORDER BY m.entity_id) FILTER (WHERE m.entity_id IS NOT NULL) AS members "
            "FROM t "
            f"LEFT JOIN m ON m.row_id = t.row_id AND m.km <= t.value * {1 + BOUNDARY_BAND} "
            "GROUP BY t.row_id, t.value"
        )

    def _members(self, row: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]] | None, str | None]:
        radius = float(row["radius_km"])
        if not 0 < radius < formats.HALF_CIRCUMFERENCE_KM:
            return None, "radius_out_of_range"
        inside, ambiguous = members_in_radius(row["members"], radius)
        if ambiguous:
            return None, "member_near_radius"
        return inside, None


class CountWithinRadius(_RadiusMembers):
    """B01: how many entities of a category lie within ``value`` km (geodesic) of the anchor point.

    The anchor itself is never counted; zero is a valid answer. Counted ids go to the evidence."""

    name = "containment.count_within"

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        inside, reason = self._members(row)
        if reason:
            return Outcome.discard(reason)
        return Outcome(formats.count(len(inside)), evidence=tuple(m["id"] for m in inside))


class ListWithinRadius(_RadiusMembers):
    """B02: the set of entities of a category within ``value`` km (geodesic) of the anchor point.

    Kept only when the set has 1 to :attr:`max_members` members, so the question is answerable."""

    name = "containment.list_within"
    max_members = 15
    min_members = 1
    positive_every = 0
    reach_factor = 1.0

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        inside, reason = self._members(row)
        if reason:
            return Outcome.discard(reason)
        if not inside:
            return Outcome.discard("empty_set")
        if len(inside) > self.max_members:
            return Outcome.discard("set_too_large")
        ids = [m["id"] for m in inside]
        return Outcome(formats.entity_set(ids, [m["name"] for m in inside]), evidence=tuple(ids))


# ---------------------------------------------------------------------------------------------- B03
@lru_cache(maxsize=8)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    """sha256 of a file; cached per (path, size, mtime) so one batch hashes the raster once."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_sha256(path: str) -> str:
    st = os.stat(path)
    return _sha256(path, st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=4)
def _dataset(path: str, size: int, mtime_ns: int) -> rasterio.DatasetReader:
    """An open, read-only raster, kept per (path, size, mtime) so a batch opens it once."""
    return rasterio.open(path)


def open_raster(path: str) -> rasterio.DatasetReader:
    st = os.stat(path)
    return _dataset(path, st.st_size, st.st_mtime_ns)


def pixel_height_km(ds: rasterio.DatasetReader) -> float:
    """Nominal pixel height in km of a lon/lat raster (degrees * 111.32)."""
    return abs(ds.transform.e) * KM_PER_DEG_LAT


def circle_bounds(
    lon: float, lat: float, radius_km: float, n: int = 72
) -> tuple[float, float, float, float]:
    """(min_lon, min_lat, max_lon, max_lat) in degrees of the geodesic circle of ``radius_km``
    around (lon, lat), from ``n`` points along it (the caller pads by a pixel for the sagitta
    between them)."""
    az = np.linspace(0.0, 360.0, n, endpoint=False)
    lons, lats, _ = GEOD.fwd(np.full(n, lon), np.full(n, lat), az, np.full(n, radius_km * 1000.0))
    return float(lons.min()), float(lats.min()), float(lons.max()), float(lats.max())


def circle_window(ds: rasterio.DatasetReader, lon: float, lat: float, radius_km: float) -> Window:
    """The raster window (whole pixels, clipped to the raster) holding every pixel centre that can
    lie within ``radius_km`` of (lon, lat). Raises ValueError when the circle reaches a pole or
    leaves the raster's longitude range (no antimeridian wrap)."""
    res_x, res_y = abs(ds.transform.a), abs(ds.transform.e)
    x0, y0, x1, y1 = circle_bounds(lon, lat, radius_km)
    if y0 < -89.0 or y1 > 89.0:
        raise ValueError("circle_reaches_pole")
    if x1 - x0 > 180.0 or x0 < ds.bounds.left or x1 > ds.bounds.right:
        raise ValueError("circle_leaves_raster")
    inv = ~ds.transform
    (ca, ra), (cb, rb) = inv @ (x0 - res_x, y0 - res_y), inv @ (x1 + res_x, y1 + res_y)
    c0, r0 = max(math.floor(min(ca, cb)), 0), max(math.floor(min(ra, rb)), 0)
    c1, r1 = min(math.ceil(max(ca, cb)), ds.width), min(math.ceil(max(ra, rb)), ds.height)
    return Window(c0, r0, max(c1 - c0, 0), max(r1 - r0, 0))


AS_WKT = "http://www.opengis.net/ont/geosparql#asWKT"
POPULATION = "urn:mgqa:population"  #: people per pixel, as the raster states it


def pixel_facts(
    ds: rasterio.DatasetReader, sha256: str, lon: float, lat: float, radius_km: float
) -> tuple[tuple[str, str, str], ...]:
    """The raster pixels that can count for a circle, as citable facts: for every pixel of
    :func:`circle_window` with a finite value > 0, ``(urn:mgqa:raster:<sha256[:12]>:<row>:<col>,
    asWKT, "POINT (lon lat)")`` of its centre (lon/lat degrees, EPSG:4326) and ``(...,
    urn:mgqa:population, value)``, floats written with ``repr`` (exact). Pixels outside the radius
    are cited too, so that a reader can check what was left out."""
    win = circle_window(ds, lon, lat, radius_km)
    band = np.ma.filled(ds.read(1, window=win, masked=True).astype("float64"), np.nan)
    tr = ds.transform @ Affine.translation(win.col_off, win.row_off)
    prefix = f"urn:mgqa:raster:{sha256[:12]}"
    facts = []
    for r, c in zip(*np.nonzero(np.isfinite(band) & (band > 0)), strict=True):
        x, y = tr @ (c + 0.5, r + 0.5)
        s = f"{prefix}:{win.row_off + r}:{win.col_off + c}"
        facts += [
            (s, AS_WKT, f"POINT ({float(x)!r} {float(y)!r})"),
            (s, POPULATION, repr(float(band[r, c]))),
        ]
    return tuple(facts)


def population_within(
    ds: rasterio.DatasetReader, lon: float, lat: float, radius_km: float
) -> float:
    """Population of the EPSG:4326 raster ``ds`` (band 1, people per pixel) within ``radius_km`` of
    (lon, lat).

    Pixel-centre rule: a pixel counts in full when the WGS84 geodesic distance (pyproj Geod) from
    (lon, lat) to its centre is at most ``radius_km``; nodata, NaN and negative pixels count as 0.
    Raises ValueError for a raster that is not geographic EPSG:4326 and as :func:`circle_window`
    does.
    """
    if ds.crs is None or ds.crs.to_epsg() != 4326:
        raise ValueError("raster_not_epsg4326")
    win = circle_window(ds, lon, lat, radius_km)
    band = ds.read(1, window=win, masked=True)
    rows, cols = np.mgrid[0 : band.shape[0], 0 : band.shape[1]]
    tr = ds.transform @ Affine.translation(win.col_off, win.row_off)
    xs, ys = tr @ (cols.ravel() + 0.5, rows.ravel() + 0.5)  # pixel centres, lon/lat
    _, _, dist_m = GEOD.inv(np.full(xs.shape, lon), np.full(xs.shape, lat), xs, ys)
    values = np.ma.filled(band.astype("float64"), np.nan).ravel()
    keep = (dist_m <= radius_km * 1000.0) & np.isfinite(values) & (values >= 0)
    return float(values[keep].sum())


class PopulationWithinRadius(LocalExecutor):
    """B03: total population within ``value`` km (geodesic) of the anchor's representative point,
    summed from the density-tier population raster with the pixel-centre rule
    (:func:`population_within`).

    gold_sql returns the anchor lon/lat, the radius and the raster path + recorded sha256;
    ``finish`` reads the raster and cites its pixels around the anchor (:func:`pixel_facts`: centre
    and value of every non-empty pixel of the circle's window). Discards: ``no_population_raster``
    when the density tiers come from the GeoNames proxy surface (``density_breaks.is_proxy``: a
    people count needs a real population raster such as WorldPop), missing raster, sha256 mismatch
    (the raster changed since the warehouse was built), a radius under :data:`MIN_RADIUS_PIXELS`
    pixel heights, zero population."""

    name = "containment.population_within"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a = sub.entity_roles[0]
        return (
            f"SELECT stratum, entity_id AS {a} FROM ({pool.sample(sub.roles[a], f'{sub.id}|{a}')})"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        a = sub.entity_roles[0]
        return (
            "WITH d AS (SELECT raster, raster_sha256, is_proxy "
            "FROM density_breaks "
            "ORDER BY raster "
            "LIMIT 1) "
            "SELECT t.row_id, e.lon, e.lat, t.value AS radius_km, d.raster, "
            "d.raster_sha256, d.is_proxy "
            f"{bound_join(e=a)} LEFT JOIN d ON TRUE"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        path, radius = row["raster"], float(row["radius_km"])
        if row["is_proxy"]:
            return Outcome.discard("no_population_raster")
        if not path or not os.path.exists(path):
            return Outcome.discard("population_raster_missing")
        if file_sha256(path) != row["raster_sha256"]:
            return Outcome.discard("population_raster_changed")
        ds = open_raster(path)
        if radius < MIN_RADIUS_PIXELS * pixel_height_km(ds):
            return Outcome.discard("radius_below_raster_resolution")
        try:
            pop = population_within(ds, float(row["lon"]), float(row["lat"]), radius)
        except ValueError as exc:
            return Outcome.discard(str(exc))
        people = int(math.floor(pop + 0.5))
        if people <= 0:
            return Outcome.discard("zero_population")
        facts = pixel_facts(ds, row["raster_sha256"], float(row["lon"]), float(row["lat"]), radius)
        return Outcome(formats.count(people), facts=facts)
