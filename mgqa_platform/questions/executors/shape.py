"""Executors for SFID K: shape and geometry properties of polygons (templates K01-K05).

One definition per measure (recorded in every sub-template's ``conventions``; F02 may import them):

* area: EPSG:6933 (WGS84 equal-area cylindrical) area of all parts, holes subtracted, km2 — DuckDB
  ``ST_Area(ST_Transform(g, 'EPSG:4326', 'EPSG:6933', always_xy := true))``; with ``always_xy`` the
  stored (lon, lat) order is read as (x = lon, y = lat) (:func:`area_km2_sql`).
* perimeter: WGS84 geodesic length of every ring (exterior and interior) of every part, km — DuckDB
  ``ST_Perimeter_Spheroid``, which expects (lat, lon) coordinates, on ``ST_FlipCoordinates(g)``
  (:func:`perimeter_km_sql`; tests cross-check it with pyproj ``Geod``).
* compactness: Polsby-Popper ``4 * pi * area / perimeter**2`` with the two measures above (1 for a
  circle). A comparison that does not name the score is also decided under the other readings of
  ``conventions.readings.compactness`` (:func:`compactness_readings`: Reock) and kept only when all
  agree, none within ``min_abs_diff`` (else ``reading_dependent``).
* elongation: ``1 - minor / major`` of the sides of the minimum rotated rectangle of the geometry in
  a local azimuthal-equidistant projection (WGS84, metres) centred on the representative point;
  checked against the second-moment reading of ``conventions.readings.elongation``
  (:func:`elongation_readings`) the same way.
* irregularity (K05) at a scale s km: the polygon in that local projection is simplified with
  Douglas-Peucker (shapely ``simplify(s * 1000, preserve_topology=True)``); shape index = P / (2
  sqrt(pi A)) of the simplified polygon, perimeter ratio = P(original) / P(simplified), all planar
  in the projection.

Comparisons (K01-K03) whose two values are too close to call (``min_rel_diff`` / ``min_abs_diff`` of
the conventions) are discarded. Candidates pair polygons of one stratum (seeded), so both entities
are always of the same role type; the K05 scale is proposed by the candidates among the catalog's
values that are at most ``max_scale_fraction`` of the polygon's size sqrt(area)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np
import shapely
from pyproj import Transformer
from shapely import wkt as shapely_wkt
from shapely.geometry.polygon import orient

from mgqa_platform.questions import formats, readings
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import LocalExecutor, Outcome, Pool, bound_join

PAIRS_PER_ANCHOR = (
    3  #: K01-K03: partners proposed per sampled anchor (seeded rotation within the stratum)
)
SCALES_PER_POLYGON = 2  #: K05: seeded scales proposed per sampled polygon (among those that fit it)


# ---------------------------------------------------------------- measures (SQL)
def area_km2_sql(g: str) -> str:
    """SQL: EPSG:6933 area in km2 of geometry expression ``g`` (EPSG:4326, x = lon, y = lat)."""
    return f"(ST_Area(ST_Transform({g}, 'EPSG:4326', 'EPSG:6933', always_xy := true)) / 1e6)"


def perimeter_km_sql(g: str) -> str:
    """SQL: WGS84 geodesic length in km of all rings of ``g`` (``ST_Perimeter_Spheroid`` reads (lat,
    lon))."""
    return f"(ST_Perimeter_Spheroid(ST_FlipCoordinates({g})) / 1000.0)"


def _measure_cols(alias: str, prefix: str, wkt: bool) -> str:
    """SQL select-list items ``<prefix>_valid, _kind, _area, _perim[, _wkt, _lon, _lat]`` of entity
    ``alias``."""
    g = f"{alias}.geometry"
    cols = (
        f"ST_IsValid({g}) AS {prefix}_valid, {alias}.geom_kind AS {prefix}_kind, "
        f"{area_km2_sql(g)} AS {prefix}_area, {perimeter_km_sql(g)} AS {prefix}_perim"
    )
    if wkt:
        cols += (
            f", ST_AsText({g}) AS {prefix}_wkt, {alias}.lon AS {prefix}_lon, "
            f"{alias}.lat AS {prefix}_lat"
        )
    return cols


# ---------------------------------------------------------------- measures (Python)
def polsby_popper(area_km2: float, perimeter_km: float) -> float:
    """Polsby-Popper compactness 4*pi*A/P^2 (A in km2, P in km); 1 for a circle."""
    return 4.0 * math.pi * area_km2 / perimeter_km**2


@lru_cache(maxsize=256)
def _aeqd(lon: float, lat: float) -> Transformer:
    return Transformer.from_crs(
        "EPSG:4326",
        f"+proj=aeqd +lat_0={lat!r} +lon_0={lon!r} +datum=WGS84 +units=m +no_defs",
        always_xy=True,
    )


def local_aeqd(geom: shapely.Geometry, lon: float, lat: float) -> shapely.Geometry:
    """``geom`` (EPSG:4326, x = lon, y = lat) in the azimuthal-equidistant projection (WGS84,
    metres) centred on (lon, lat)."""
    tr = _aeqd(float(lon), float(lat))
    return shapely.transform(geom, lambda xy: np.column_stack(tr.transform(xy[:, 0], xy[:, 1])))


def elongation(geom: shapely.Geometry, lon: float, lat: float) -> float | None:
    """1 - minor/major side of the minimum rotated rectangle of ``geom`` in the local AEQD
    projection centred on (lon, lat); None when the rectangle is degenerate."""
    rect = shapely.minimum_rotated_rectangle(local_aeqd(geom, lon, lat))
    if rect.geom_type != "Polygon" or rect.area <= 0:
        return None
    xy = np.asarray(rect.exterior.coords)[:3]
    s1, s2 = float(np.hypot(*(xy[1] - xy[0]))), float(np.hypot(*(xy[2] - xy[1])))
    return 1.0 - min(s1, s2) / max(s1, s2)


def compactness_readings(
    geom: shapely.Geometry, lon: float, lat: float, area_km2: float, perimeter_km: float
) -> dict[str, float]:
    """The compactness of ``geom`` (EPSG:4326, x = lon, y = lat) under each reading of
    :data:`mgqa_platform.questions.readings.COMPACTNESS_READINGS`, each 1 for a disc:
    ``polsby_popper`` from ``area_km2`` (EPSG:6933) and ``perimeter_km`` (geodesic); ``reock``, the
    area over the area of the minimum enclosing circle, planar in the local AEQD projection centred
    on (lon, lat)."""
    return {
        "polsby_popper": polsby_popper(area_km2, perimeter_km),
        "reock": reock(local_aeqd(geom, lon, lat)),
    }


def reock(proj: shapely.Geometry) -> float:
    """Reock compactness of the planar polygon(s) ``proj``: area over the area of the minimum
    enclosing circle (1 for a disc, 2/pi for a square); 0 for a degenerate shape."""
    radius = float(shapely.minimum_bounding_radius(proj))
    return proj.area / (math.pi * radius**2) if radius > 0 else 0.0


def inertia_elongation(proj: shapely.Geometry) -> float | None:
    """1 - sqrt(I_min / I_max) of the principal second moments of area of the planar polygon(s)
    ``proj`` (holes subtracted; Green's theorem on each ring about the centroid): 0 for a disc or a
    square, 1 - h/w for a w x h rectangle. None for zero area."""
    c = proj.centroid
    if proj.area <= 0 or c.is_empty:
        return None
    ixx = iyy = ixy = 0.0
    for part in getattr(proj, "geoms", [proj]):
        part = orient(part, 1.0)  # exterior CCW, holes CW
        for ring in (part.exterior, *part.interiors):
            xy = np.asarray(ring.coords) - (c.x, c.y)
            x, y, x1, y1 = xy[:-1, 0], xy[:-1, 1], xy[1:, 0], xy[1:, 1]
            cross = x * y1 - x1 * y
            ixx += float(((y * y + y * y1 + y1 * y1) * cross).sum()) / 12.0
            iyy += float(((x * x + x * x1 + x1 * x1) * cross).sum()) / 12.0
            ixy += float(((x * y1 + 2 * x * y + 2 * x1 * y1 + x1 * y) * cross).sum()) / 24.0
    low, high = np.linalg.eigvalsh([[iyy, ixy], [ixy, ixx]])
    return 1.0 - math.sqrt(max(low, 0.0) / high) if high > 0 else None


def elongation_readings(geom: shapely.Geometry, lon: float, lat: float) -> dict[str, float | None]:
    """The elongation of ``geom`` (EPSG:4326, x = lon, y = lat) under each reading of
    :data:`mgqa_platform.questions.readings.ELONGATION_READINGS`, planar in the local AEQD
    projection centred on (lon, lat): ``rotated_rectangle`` (:func:`elongation`) and ``inertia``
    (:func:`inertia_elongation`)."""
    return {
        "rotated_rectangle": elongation(geom, lon, lat),
        "inertia": inertia_elongation(local_aeqd(geom, lon, lat)),
    }


def irregularity(
    geom: shapely.Geometry, lon: float, lat: float, scale_km: float
) -> dict[str, float] | None:
    """Shape index and perimeter ratio of ``geom`` simplified at ``scale_km`` (Douglas-Peucker,
    topology preserved) in the local AEQD projection centred on (lon, lat), plus the share of area
    kept. None when the simplified polygon is empty or not polygonal."""
    proj = local_aeqd(geom, lon, lat)
    simple = proj.simplify(scale_km * 1000.0, preserve_topology=True)
    if simple.is_empty or simple.area <= 0 or simple.geom_type not in ("Polygon", "MultiPolygon"):
        return None
    return {
        "shape index": simple.length / (2.0 * math.sqrt(math.pi * simple.area)),
        "perimeter ratio": proj.length / simple.length,
        "area_kept": simple.area / proj.area,
    }


def _polygon_problem(row: Mapping[str, Any], prefix: str) -> str | None:
    if row[f"{prefix}_kind"] != "polygon":
        return "not_a_polygon"
    if not row[f"{prefix}_valid"]:
        return "invalid_geometry"
    if not row[f"{prefix}_area"] or row[f"{prefix}_area"] <= 0 or not row[f"{prefix}_perim"]:
        return "zero_area"
    return None


def measure(name: str, row: Mapping[str, Any], prefix: str) -> float | None:
    """The value of measure ``name`` (area, compactness, elongation) from the ``<prefix>_*``
    columns."""
    if name == "area":
        return float(row[f"{prefix}_area"])
    if name == "compactness":
        return polsby_popper(row[f"{prefix}_area"], row[f"{prefix}_perim"])
    if name == "elongation":
        return elongation(
            shapely_wkt.loads(row[f"{prefix}_wkt"]), row[f"{prefix}_lon"], row[f"{prefix}_lat"]
        )
    raise KeyError(f"unknown measure {name!r}")


def too_close(sub: SubTemplate, va: float, vb: float) -> bool:
    """Whether two measure values are too close to call: |va - vb| < max(min_abs_diff,
    min_rel_diff * max(|va|, |vb|)) with the conventions' thresholds (missing ones are 0)."""
    c = sub.conventions
    tol = max(
        float(c.get("min_abs_diff", 0.0)), float(c.get("min_rel_diff", 0.0)) * max(abs(va), abs(vb))
    )
    return abs(va - vb) < tol


def _one_sql(sub: SubTemplate, pool: Pool) -> str:
    a = sub.entity_roles[0]
    return f"SELECT stratum, entity_id AS {a} FROM ({pool.sample(sub.roles[a], f'{sub.id}|{a}')})"


# ---------------------------------------------------------------- K01-K03
class CompareShapes(LocalExecutor):
    """K01-K03: is A's measure (``conventions.measure``: area, compactness, elongation) larger than
    B's?

    Candidates: per stratum, up to ``per_stratum`` seeded polygons of the role; each takes the next
    :data:`PAIRS_PER_ANCHOR` polygons of a second seeded order of the stratum as partners (rotation,
    so no self pairs and every polygon appears in several pairs). Discards: not a valid polygon,
    zero area, a near tie (:func:`too_close`); when ``readings.<measure>`` is listed, readings that
    disagree or are near ties themselves (``reading_dependent``)."""

    name = "shape.compare"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a, b = sub.entity_roles[:2]
        return (
            f"WITH s AS ({pool.sample(sub.roles[a], f'{sub.id}|{a}')}), "
            f"r AS (SELECT stratum, entity_id, row_number() OVER (PARTITION BY stratum ORDER BY "
            f"{pool.order_key(f'{sub.id}|{b}', 'entity_id')}) - 1 AS pos, count(*) "
            "OVER (PARTITION BY stratum) AS n "
            "FROM s) "
            f"SELECT DISTINCT x.stratum, x.entity_id AS {a}, y.entity_id AS {b} "
            "FROM r x "
            f"CROSS JOIN range(1, {PAIRS_PER_ANCHOR + 1}) w(k) "
            "JOIN r y ON y.stratum = x.stratum AND y.pos = (x.pos + w.k) % x.n "
            "WHERE x.entity_id <> y.entity_id"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        a, b = sub.entity_roles[:2]
        wkt = sub.conventions["measure"] == "elongation" or "readings" in sub.conventions
        return (
            f"SELECT t.row_id, {_measure_cols('a', 'a', wkt)}, {_measure_cols('b', 'b', wkt)} "
            f"{bound_join(a=a, b=b)}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = _polygon_problem(row, "a") or _polygon_problem(row, "b")
        if reason:
            return Outcome.discard(reason)
        va, vb = (
            measure(sub.conventions["measure"], row, "a"),
            measure(sub.conventions["measure"], row, "b"),
        )
        if va is None or vb is None:
            return Outcome.discard("degenerate_shape")
        if too_close(sub, va, vb):
            return Outcome.discard("near_tie")
        if not _readings_agree(sub, row, va > vb):
            return Outcome.discard(readings.READING_DEPENDENT)
        return Outcome(formats.boolean(va > vb))


def _measure_readings(name: str, row: Mapping[str, Any], prefix: str) -> dict[str, float | None]:
    """Measure ``name`` (compactness, elongation) of the ``<prefix>_*`` columns under each of its
    readings."""
    g, lon, lat = (
        shapely_wkt.loads(row[f"{prefix}_wkt"]),
        row[f"{prefix}_lon"],
        row[f"{prefix}_lat"],
    )
    if name == "compactness":
        return compactness_readings(g, lon, lat, row[f"{prefix}_area"], row[f"{prefix}_perim"])
    return elongation_readings(g, lon, lat)


def _readings_agree(sub: SubTemplate, row: Mapping[str, Any], verdict: bool) -> bool:
    """Whether every reading of the measure that ``conventions.readings`` lists gives ``verdict``
    (A's value larger than B's) by more than a near tie (:func:`too_close`); True when none is
    listed."""
    name = sub.conventions["measure"]
    listed = sub.conventions.get("readings", {}).get(name, ())
    if not listed:
        return True
    a, b = _measure_readings(name, row, "a"), _measure_readings(name, row, "b")
    return all(
        a[n] is not None
        and b[n] is not None
        and not too_close(sub, a[n], b[n])
        and (a[n] > b[n]) == verdict
        for n in listed
    )


# ---------------------------------------------------------------- K04
class Perimeter(LocalExecutor):
    """K04: geodesic perimeter (km, WGS84) of all rings of a polygon, :func:`perimeter_km_sql`."""

    name = "shape.perimeter"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return _one_sql(sub, pool)

    def gold_sql(self, sub: SubTemplate) -> str:
        a = sub.entity_roles[0]
        return f"SELECT t.row_id, {_measure_cols('a', 'a', False)} {bound_join(a=a)}"

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = _polygon_problem(row, "a")
        if reason:
            return Outcome.discard(reason)
        if row["a_perim"] > formats.HALF_CIRCUMFERENCE_KM:
            return Outcome.discard("distance_out_of_range")
        return Outcome(formats.distance_km(row["a_perim"]))


# ---------------------------------------------------------------- K05
class Irregularity(LocalExecutor):
    """K05: ``irregularity_metric`` (shape index | perimeter ratio) of a polygon simplified at
    ``scale_value`` km (:func:`irregularity`). Candidates: seeded polygons per stratum, each with up
    to :data:`SCALES_PER_POLYGON` seeded scales among the catalog values <= ``max_scale_fraction`` *
    sqrt(EPSG:6933 area in km2). Discards: not a valid polygon, the simplified polygon empty or
    keeping less than ``min_area_kept`` of the area."""

    name = "shape.irregularity"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a = sub.entity_roles[0]
        values = ", ".join(f"CAST({float(v)!r} AS DOUBLE)" for v in sub.parameters["scale_value"])
        frac = float(sub.conventions.get("max_scale_fraction", 0.2))
        return (
            "WITH s AS (SELECT stratum, entity_id, "
            f"list_filter([{values}], v -> v <= {frac} * "
            f"sqrt(greatest({area_km2_sql('geometry')}, 0))) AS fit "
            f"FROM ({pool.sample(sub.roles[a], f'{sub.id}|{a}')})) "
            f"SELECT stratum, entity_id AS {a}, scale_value "
            "FROM (SELECT stratum, entity_id, unnest(fit) AS scale_value "
            "FROM s) "
            "QUALIFY row_number() OVER (PARTITION BY entity_id ORDER BY "
            f"{pool.order_key(sub.id + '|scale', 'entity_id', 'scale_value')}) <= "
            f"{SCALES_PER_POLYGON}"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        a = sub.entity_roles[0]
        return (
            "SELECT t.row_id, t.irregularity_metric AS metric, t.scale_value, "
            f"{_measure_cols('a', 'a', True)} "
            f"{bound_join(a=a)}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = _polygon_problem(row, "a")
        if reason:
            return Outcome.discard(reason)
        out = irregularity(
            shapely_wkt.loads(row["a_wkt"]), row["a_lon"], row["a_lat"], float(row["scale_value"])
        )
        if out is None:
            return Outcome.discard("simplified_away")
        if out["area_kept"] < float(sub.conventions.get("min_area_kept", 0.5)):
            return Outcome.discard("simplification_too_coarse")
        return Outcome(formats.ratio(out[row["metric"]]))
