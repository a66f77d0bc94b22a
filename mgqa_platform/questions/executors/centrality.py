"""Executors for SFID G: centrality and medial geometry (templates G01-G03).

Coordinates are EPSG:4326 with x = longitude, y = latitude; answers are WGS84 lon/lat points (format
``point``) or a geodesic distance in km. Conventions (also in each sub-template's ``conventions``):

* centroid: area-weighted centroid in EPSG:6933 (equal-area cylindrical), transformed back to WGS84;
  DuckDB ``ST_Transform(..., always_xy := true)`` keeps lon/lat order both ways (checked against
  pyproj + shapely in the tests). A centroid outside its polygon is discarded.
* line midpoint: the point at half the WGS84 geodesic length, walking the digitised vertices from
  the first (pyproj ``Geod``; multi-part lines only when their parts join end to end within
  ``max_gap_m``).
* pole of inaccessibility: shapely ``polylabel`` in a local azimuthal-equidistant frame centred on
  the representative point (largest part of a multipolygon), tolerance ``min(precision_m, sqrt(area)
  / 100)``.
* scale shift (G03): rasterise in EPSG:6933 on a grid with edges at integer multiples of the cell
  size (cell member when its centre lies inside the polygon), mean of member centres, back to WGS84;
  the answer is the geodesic km between the centroids at the two cell sizes. The question leaves the
  grid origin unstated, so the gold must hold (within tolerance) on grids shifted by half a cell as
  well. Rasterisation is a scanline: per grid row the row's centre line is intersected with the
  polygon and the centres inside each interval are counted and summed in closed form.

Polygons whose bounding box is wider than 180 degrees (antimeridian) are skipped; entities whose
display name spells out coordinates are never bound (the answer is a coordinate)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import shapely
import shapely.ops
from pyproj import Geod, Transformer
from shapely import wkt as shapely_wkt
from shapely.geometry.base import BaseGeometry

from mgqa_platform.questions import formats, readings, roles
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import Executor, LocalExecutor, Outcome, Pool, bound_join
from mgqa_platform.questions.executors.containment import seeded_int_sql
from mgqa_platform.questions.executors.distance import bbox_cols, contains_sql, inside_sql
from mgqa_platform.questions.executors.grid import point_sample
from mgqa_platform.questions.executors.ordering import AREA_KM2_SQL, aeqd, elongation, to_local

GEOD = Geod(ellps="WGS84")
MAX_ROWS = (
    20000  #: G03: grids with more rows than this (a huge polygon at a fine size) are discarded
)
POINTS_PER_POLYGON = 3  #: G02: located entities proposed per polygon
_TO_6933 = Transformer.from_crs("EPSG:4326", "EPSG:6933", always_xy=True)
_FROM_6933 = Transformer.from_crs("EPSG:6933", "EPSG:4326", always_xy=True)


def _6933(g: str) -> str:
    return f"ST_Transform({g}, 'EPSG:4326', 'EPSG:6933', always_xy := true)"


def centroid_sql(g: str) -> str:
    """SQL: the EPSG:6933 area-weighted centroid of lon/lat geometry ``g``, as a lon/lat POINT."""
    return f"ST_Transform(ST_Centroid({_6933(g)}), 'EPSG:6933', 'EPSG:4326', always_xy := true)"


# ------------------------------------------------------------------------------------ pure geometry
def project(geom: BaseGeometry, transformer: Transformer) -> BaseGeometry:
    """``geom`` with every coordinate passed through ``transformer`` (always_xy)."""
    return shapely.transform(
        geom, lambda xy: np.column_stack(transformer.transform(xy[:, 0], xy[:, 1]))
    )


def line_parts(
    geom: BaseGeometry, max_gap_m: float
) -> tuple[list[tuple[float, float]] | None, str | None]:
    """(vertices lon/lat of the line walked from its first vertex, None), or (None, reason) for a
    multi-part line whose consecutive parts do not join end to end within ``max_gap_m`` (geodesic
    metres)."""
    parts = [list(p.coords) for p in getattr(geom, "geoms", [geom]) if not p.is_empty]
    if not parts:
        return None, "empty_geometry"
    coords = list(parts[0])
    for part in parts[1:]:
        gap = GEOD.inv(*coords[-1], *part[0])[2]
        if gap > max_gap_m:
            return None, "disconnected_parts"
        coords += part[1:] if gap == 0 else part
    return coords, None


def geodesic_midpoint(
    coords: list[tuple[float, float]],
) -> tuple[tuple[float, float] | None, float]:
    """((lon, lat) at half the WGS84 geodesic length along ``coords``, total km); (None, 0) for zero
    length."""
    legs = [GEOD.inv(*a, *b) for a, b in zip(coords, coords[1:])]  # (az12, az21, metres)
    total = sum(leg[2] for leg in legs)
    if total <= 0:
        return None, 0.0
    left = total / 2.0
    for a, (az, _, d) in zip(coords, legs):
        if left <= d and d > 0:
            lon, lat, _ = GEOD.fwd(a[0], a[1], az, left)
            return (float(lon), float(lat)), total / 1000.0
        left -= d
    return (float(coords[-1][0]), float(coords[-1][1])), total / 1000.0


def largest_part(geom_xy: BaseGeometry) -> BaseGeometry:
    """The polygon of largest (projected) area of a (multi)polygon."""
    return max(getattr(geom_xy, "geoms", [geom_xy]), key=lambda p: p.area)


def pole_of_inaccessibility(
    geom: BaseGeometry, lon0: float, lat0: float, precision_m: float
) -> tuple[float, float, float]:
    """(lon, lat, elongation) of the pole of inaccessibility of lon/lat (multi)polygon ``geom``:
    shapely polylabel on its largest part in the azimuthal-equidistant frame centred on (lon0,
    lat0)."""
    part = largest_part(to_local(geom, lon0, lat0))
    tol = min(precision_m, max(math.sqrt(part.area) / 100.0, 0.01))
    p = shapely.ops.polylabel(part, tolerance=tol)
    lon, lat = aeqd(lon0, lat0).transform(p.x, p.y, direction="INVERSE")
    return float(lon), float(lat), elongation(part) or 0.0


def raster_centroid(geom_xy: BaseGeometry, size_m: float) -> tuple[tuple[float, float] | None, int]:
    """((x, y) mean of the centres of the grid cells whose centre lies inside ``geom_xy``, number of
    such cells), for a square grid of side ``size_m`` with edges at integer multiples of ``size_m``;
    (None, 0) without cells. Exact scanline: centres on row j sit at y = (j + 0.5) size, columns i
    at x = (i + 0.5) size."""
    x0, y0, x1, y1 = geom_xy.bounds
    j0, j1 = math.ceil(y0 / size_m - 0.5), math.floor(y1 / size_m - 0.5)
    if j1 < j0:
        return None, 0
    if j1 - j0 + 1 > MAX_ROWS:
        raise ValueError("raster_too_large")
    ys = (np.arange(j0, j1 + 1) + 0.5) * size_m
    lines = shapely.linestrings([[[x0 - size_m, y], [x1 + size_m, y]] for y in ys])
    shapely.prepare(geom_xy)
    cuts = shapely.intersection(lines, geom_xy)
    n, sx, sy = 0, 0.0, 0.0
    for y, cut in zip(ys, cuts):
        for seg in getattr(cut, "geoms", [cut]):
            if seg.is_empty or seg.geom_type != "LineString":
                continue
            xs = [c[0] for c in seg.coords]
            a, b = min(xs), max(xs)
            i0, i1 = math.ceil(a / size_m - 0.5), math.floor(b / size_m - 0.5)
            if i1 < i0:
                continue
            k = i1 - i0 + 1
            n += k
            sx += size_m * ((i0 + i1) * k / 2.0 + 0.5 * k)
            sy += y * k
    if n == 0:
        return None, 0
    return (sx / n, sy / n), n


def anchored_raster_centroid(
    geom_xy: BaseGeometry, size_m: float, origin: str
) -> tuple[tuple[float, float] | None, int]:
    """:func:`raster_centroid` of ``geom_xy`` (projected metres) on the grid of side ``size_m``
    whose cell corners sit at (x0 + i size, y0 + j size), (x0, y0) given by grid-origin reading
    ``origin`` (:func:`mgqa_platform.questions.readings.grid_origin_m`)."""
    x0, y0 = readings.grid_origin_m(origin, size_m)
    c, n = raster_centroid(shapely.transform(geom_xy, lambda xy: xy - (x0, y0)), size_m)
    return (None if c is None else (c[0] + x0, c[1] + y0)), n


def scale_shift_km(
    geom: BaseGeometry, size1_km: float, size2_km: float, origin: str = "projection_origin"
) -> tuple[float, int, int]:
    """(geodesic km between the raster centroids of lon/lat ``geom`` at the two cell sizes, cells at
    size1, cells at size2), both grids in EPSG:6933 anchored by grid-origin reading ``origin``;
    raises ValueError('too_few_cells' when a grid has no cell / 'raster_too_large')."""
    g = project(geom, _TO_6933)
    c1, n1 = anchored_raster_centroid(g, size1_km * 1000.0, origin)
    c2, n2 = anchored_raster_centroid(g, size2_km * 1000.0, origin)
    if c1 is None or c2 is None:
        raise ValueError("too_few_cells")
    (lon1, lat1), (lon2, lat2) = (_FROM_6933.transform(*c) for c in (c1, c2))
    return GEOD.inv(lon1, lat1, lon2, lat2)[2] / 1000.0, n1, n2


# -------------------------------------------------------------------------------------- SQL helpers
def anchor_where(sub: SubTemplate) -> str:
    """Pool filter for the anchor polygon: for the ``polygon`` role of a sub-template that also
    binds an entity_B, only polygons outside the region categories (G02.2); no filter otherwise."""
    a = sub.entity_roles[0]
    if sub.roles[a] == "polygon" and len(sub.entity_roles) > 1:
        return f"p.category NOT IN {roles.sql_in(roles.REGION_CATEGORIES)}"
    return "TRUE"


def _shape_gold_sql(sub: SubTemplate) -> str:
    """Gold SQL for shape-based answers: WKT, validity, bbox width and representative point of
    entity A."""
    a = sub.entity_roles[0]
    return (
        "SELECT t.*, ST_AsText(e.geometry) AS wkt, ST_IsValid(e.geometry) AS valid, "
        f"ST_XMax(e.geometry) - ST_XMin(e.geometry) AS xspan, e.lon, e.lat {bound_join(e=a)}"
    )


def _shape_problem(row: Mapping[str, Any]) -> str | None:
    if not row["valid"]:
        return "invalid_geometry"
    if float(row["xspan"]) > 180.0:
        return "crosses_antimeridian"
    return None


# ---------------------------------------------------------------------------------------- executors
class Centroid(Executor):
    """G01.1 / G02: EPSG:6933 area-weighted centroid of polygon A (SQL), as a WGS84 point. With a
    second entity role B (a point), B's representative point must lie inside A (premise;
    ``premise_sql``). Discards: invalid geometry, antimeridian, centroid outside A, B outside A."""

    name = "centrality.centroid"
    gold_bound_only = True

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a = sub.entity_roles[0]
        sample = pool.sample(sub.roles[a], f"{sub.id}|{a}", where=anchor_where(sub))
        if len(sub.entity_roles) == 1:
            return f"SELECT s.stratum, s.entity_id AS {a} FROM ({sample}) s"
        b = sub.entity_roles[1]
        return (
            "WITH s AS (SELECT s.stratum, s.entity_id, s.geometry, "
            f"{bbox_cols('s.geometry')} "
            f"FROM ({sample}) s) "
            f"SELECT s.stratum, s.entity_id AS {a}, p.entity_id AS {b} "
            "FROM s "
            f"JOIN pool p ON {inside_sql('s', 'p')} "
            f"AND p.entity_id <> s.entity_id AND {roles.predicate(sub.roles[b], 'p')} "
            f"WHERE {contains_sql('s', 'p')} QUALIFY row_number() OVER (PARTITION BY s.entity_id "
            f"ORDER BY {pool.order_key(f'{sub.id}|{b}', 's.entity_id', 'p.entity_id')}) <= "
            f"{POINTS_PER_POLYGON}"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        a = sub.entity_roles[0]
        located, join = "NULL", ""
        if len(sub.entity_roles) > 1:
            located = "ST_Contains(e.geometry, ST_Point(b.lon, b.lat))"
            join = f" JOIN entities b ON b.entity_id = t.{sub.entity_roles[1]}"
        return (
            f"WITH c AS (SELECT t.row_id, {centroid_sql('e.geometry')} AS c {bound_join(e=a)}) "
            "SELECT t.row_id, ST_X(c.c) AS lon, ST_Y(c.c) AS lat, ST_IsValid(e.geometry) AS valid, "
            "ST_Contains(e.geometry, c.c) AS inside, "
            f"ST_XMax(e.geometry) - ST_XMin(e.geometry) AS xspan, {located} AS located "
            f"FROM t JOIN c ON c.row_id = t.row_id JOIN entities e ON e.entity_id = t.{a}{join}"
        )

    def premise_sql(self, sub: SubTemplate) -> str | None:
        if len(sub.entity_roles) < 2:
            return None
        return (
            f"SELECT q.row_id, coalesce(q.located, FALSE) AS holds FROM ({self.gold_sql(sub)}) AS q"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = _shape_problem(row)
        if reason:
            return Outcome.discard(reason)
        if row["located"] is False:
            return Outcome.discard("entity_b_outside")
        if not row["inside"]:
            return Outcome.discard("centroid_outside")
        return Outcome(formats.point(float(row["lon"]), float(row["lat"])))


class _OneShape(Executor):
    """Base: one seeded entity per tuple, its geometry fetched as WKT (see
    :func:`_shape_gold_sql`)."""

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return point_sample(sub, pool)

    def gold_sql(self, sub: SubTemplate) -> str:
        return _shape_gold_sql(sub)


class LineMidpoint(_OneShape):
    """G01.2: the point halfway along line A's WGS84 geodesic length, from its first vertex
    (pyproj)."""

    name = "centrality.line_midpoint"
    gold_bound_only = True
    stratum_local = True

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        coords, reason = line_parts(
            shapely_wkt.loads(row["wkt"]), float(sub.conventions["max_gap_m"])
        )
        if reason:
            return Outcome.discard(reason)
        mid, _ = geodesic_midpoint(coords)
        if mid is None:
            return Outcome.discard("zero_length")
        return Outcome(formats.point(*mid))


class Pole(_OneShape):
    """G01.3: pole of inaccessibility of polygon A (see the module docstring); polygons with an
    elongation above ``conventions.max_elongation`` are discarded (a long ridge of equally central
    points)."""

    name = "centrality.pole"
    gold_bound_only = True
    stratum_local = True

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = _shape_problem(row)
        if reason:
            return Outcome.discard(reason)
        lon, lat, elong = pole_of_inaccessibility(
            shapely_wkt.loads(row["wkt"]),
            float(row["lon"]),
            float(row["lat"]),
            float(sub.conventions["precision_m"]),
        )
        if elong > float(sub.conventions["max_elongation"]):
            return Outcome.discard("elongated_polygon")
        return Outcome(formats.point(lon, lat))


class ScaleShift(LocalExecutor):
    """G03: geodesic km between the raster centroids of polygon A at cell sizes ``value_1`` and
    ``value_2`` km (see the module docstring). Candidates: polygons with an EPSG:6933 area of at
    least ``min_cells`` cells of the smallest ``value_2``; ``value_2`` is drawn (seeded) among the
    sizes the area can hold min_cells times. The question does not say where the grids are anchored:
    the shift is computed under every grid-origin reading of ``readings.grid_origin``; the gold is
    the first one's, kept only when every other lies within its scoring tolerance (else
    ``reading_dependent``). Discards: fewer than ``min_cells`` cells on either grid, too many grid
    rows, a shift that rounds to 0 m."""

    name = "centrality.scale_shift"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a = sub.entity_roles[0]
        k = int(sub.conventions["min_cells"])
        values = sub.parameters["value_2"]
        typ = "BIGINT" if all(isinstance(v, int) for v in values) else "DOUBLE"
        fit = (
            f"list_filter([{', '.join(f'CAST({v!r} AS {typ})' for v in values)}], "
            f"v -> s.area >= {k} * v * v)"
        )
        return (
            "WITH s AS (SELECT s.stratum, s.entity_id, "
            f"{AREA_KM2_SQL.format(g='s.geometry')} AS area "
            f"FROM ({pool.sample(sub.roles[a], f'{sub.id}|{a}')}) s), "
            f"f AS (SELECT s.stratum, s.entity_id, {fit} AS fit FROM s) "
            f"SELECT stratum, entity_id AS {a}, fit[1 + "
            f"CAST({seeded_int_sql(pool, sub.id + '|value_2', 'entity_id')} % len(fit) AS "
            "INTEGER)] "
            "AS value_2 FROM f WHERE len(fit) > 0"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        return _shape_gold_sql(sub)

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = _shape_problem(row)
        if reason:
            return Outcome.discard(reason)
        geom, v1, v2 = shapely_wkt.loads(row["wkt"]), float(row["value_1"]), float(row["value_2"])
        try:
            runs = [
                scale_shift_km(geom, v1, v2, r) for r in sub.conventions["readings"]["grid_origin"]
            ]
        except ValueError as exc:
            return Outcome.discard(str(exc))
        if min(min(n1, n2) for _, n1, n2 in runs) < int(sub.conventions["min_cells"]):
            return Outcome.discard("too_few_cells")
        km = runs[0][0]
        if km < 0.0005:
            return Outcome.discard("zero_shift")
        gold = formats.distance_km(km)
        if max(abs(k - km) for k, _, _ in runs) > formats.tolerance("distance", gold):
            return Outcome.discard(readings.READING_DEPENDENT)
        return Outcome(gold)
