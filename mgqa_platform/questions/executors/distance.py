"""Executors for SFID A: metric distance and proximity (templates A01-A09).

Distance model (recorded in every sub-template's ``conventions``):

* Point-to-point: WGS84 geodesic in km between representative points (EPSG:4326, ``lon``/``lat``
  columns), DuckDB ``ST_Distance_Spheroid`` on POINT(lat lon) — see :func:`geodesic_km_sql`.
* Point-to-geometry (a line, a polygon's boundary, a country polygon): the nearest point of the
  geometry is searched in a *local equirectangular frame* centred on the point (x = cos(lat0) * (lon
  - lon0), y = lat - lat0, degrees; GEOS ``ST_ShortestLine``), then the km value is the WGS84
  geodesic length from the point to that nearest point. The result is a point of the geometry, so it
  is an upper bound of the true geodesic minimum; against an azimuthal-equidistant projection
  centred on the point it was within 0.2 % on the sample (county boundary up to 30 km, country
  borders up to 770 km), while plain lon/lat nearest points err by up to 25 % at 60 N. A point
  inside a polygon is 0 km from it. No antimeridian handling (no sample data lies near it).
* Directional components: north-south = meridian arc between the two latitudes; east-west = arc of
  the parallel at the mean latitude, ``dlon * N(phi) * cos(phi)`` with N the WGS84 prime-vertical
  radius.

Candidate tuples are proposed for all strata at once. Sub-templates whose entities should be close
to each other draw the partners of the anchor from the anchor's H3 cell (``h3[1..4]`` = resolutions
3, 5, 7, 9 of the representative point); entity-in-polygon roles use a lon/lat bounding-box
prefilter before ``ST_Contains``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

from mgqa_platform.lexicon import MONTHS
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

WGS84_A_KM = 6378.137  #: semi-major axis
WGS84_E2 = 0.00669437999014  #: first eccentricity squared
SPHERE_R_KM = 6371.0088  #: mean Earth radius used by the haversine prefilter
HAVERSINE_SLACK = (
    1.0203  #: (1 + 0.01) / (1 - 0.01): haversine vs ellipsoid differ by < 0.6 %, use 1 %
)
#: A06/A07 bind only categories with at most this many members in the polygon: the work is quadratic
#: in it, and a question over hundreds of members is no longer one a reader can check
MAX_MEMBERS = 150
#: A08 searches members within this many degrees of latitude of B (and the same km in longitude);
#: the k-th nearest is trusted only within KTH_TRUST_KM, so nothing outside the window could have
#: outranked it
KTH_WINDOW_DEG = 0.5
KTH_TRUST_KM = 50.0
DIRECTIONS = ("north", "south", "east", "west")
H3_RES_INDEX = {3: 1, 5: 2, 7: 3, 9: 4}  #: H3 resolution -> 1-based index into ``entities.h3``


# ---------------------------------------------------------------- SQL helpers
def inside_sql(poly: str, pt: str, margin_deg: float = 0.0) -> str:
    """SQL: the representative point of alias ``pt`` lies in the bbox of ``poly`` (columns x0, x1,
    y0, y1, lon/lat degrees) grown by ``margin_deg``; the caller adds ``ST_Contains`` when it needs
    containment."""
    m = float(margin_deg)
    return (
        f"{pt}.lon BETWEEN {poly}.x0 - {m} AND {poly}.x1 + {m} "
        f"AND {pt}.lat BETWEEN {poly}.y0 - {m} AND {poly}.y1 + {m}"
    )


def bbox_cols(geom: str = "geometry") -> str:
    return (
        f"ST_XMin({geom}) AS x0, ST_XMax({geom}) AS x1, ST_YMin({geom}) AS y0, "
        f"ST_YMax({geom}) AS y1"
    )


def contains_sql(poly: str, pt: str) -> str:
    return f"ST_Contains({poly}.geometry, ST_Point({pt}.lon, {pt}.lat))"


def covers_sql(poly: str, pt: str) -> str:
    """SQL: the polygon of alias ``poly`` covers the representative point of alias ``pt`` (lon/lat,
    EPSG:4326): a point on the boundary counts as in it."""
    return f"ST_Covers({poly}.geometry, ST_Point({pt}.lon, {pt}.lat))"


def in_polygon_sql(sub: SubTemplate, poly: str, pt: str) -> str:
    """SQL: the point of ``pt`` is in the polygon of ``poly`` under the sub-template's boundary rule
    (``conventions.boundary: covers`` -> :func:`covers_sql`, else :func:`contains_sql`)."""
    covers = sub.conventions.get("boundary") == "covers"
    return covers_sql(poly, pt) if covers else contains_sql(poly, pt)


def nearest_point_sql(lon: str, lat: str, geom: str) -> str:
    """SQL: the nearest point of ``geom`` to (lon, lat), *in the local equirectangular frame*
    centred there (x = cos(lat0) * (lon - lon0), y = lat - lat0); use :func:`frame_to_km_sql` on the
    result."""
    k = f"cos(radians({lat}))"
    return (
        "ST_EndPoint(ST_ShortestLine(ST_Point(0, 0), "
        f"ST_Affine({geom}, {k}, 0, 0, 1, -{k} * {lon}, -{lat})))"
    )


def frame_to_km_sql(lon: str, lat: str, ep: str) -> tuple[str, str, str]:
    """SQL for (nearest lon, nearest lat, geodesic km from (lon, lat)) given a frame point
    ``ep``."""
    nlon, nlat = f"({lon} + ST_X({ep}) / cos(radians({lat})))", f"({lat} + ST_Y({ep}))"
    return (
        nlon,
        nlat,
        f"(ST_Distance_Spheroid(ST_Point({lat}, {lon}), ST_Point({nlat}, {nlon})) / 1000.0)",
    )


def haversine_km_sql(a: str, b: str) -> str:
    """SQL: great-circle km (sphere R = 6371.0088 km) between aliases' lon/lat; a cheap prefilter
    only."""
    return (
        f"(2 * {SPHERE_R_KM} * asin(sqrt(pow(sin(radians({b}.lat - {a}.lat) / 2), 2) + "
        f"cos(radians({a}.lat)) * "
        f"cos(radians({b}.lat)) * pow(sin(radians({b}.lon - {a}.lon) / 2), 2))))"
    )


def local_tuples(sub: SubTemplate, pool: Pool, h3_res: int) -> str:
    """Candidates whose entity roles are all near the anchor: the anchor (first entity role) is
    sampled per stratum; every other entity role is filled from the pool entities of its role type
    in the anchor's H3 cell at ``h3_res``. Per cell, those entities are put in a seeded order and
    the j-th anchor of the cell (seeded order) takes positions j*m .. j*m+m-1 (mod the cell's
    count), so anchors of one cell get different partners; all bound entities are distinct. Columns:
    stratum + entity roles. Only the pool and the anchors are hashed (no per-pair sort keys). The
    anchors of every stratum are numbered, but only those of the strata the pool keeps
    (:meth:`Pool.kept`) get partners and tuples: the callers' windows are partitioned by stratum or
    by tuple, so the others' tuples are not needed. Partners are numbered only in those anchors'
    cells (whole cells, the window's partitions)."""
    anchor, *others = sub.entity_roles
    idx, m = H3_RES_INDEX[h3_res], len(others) + 1
    ctes = [
        f"a AS ({pool.sample(sub.roles[anchor], f'{sub.id}|{anchor}')})",
        f"aj AS (SELECT a.stratum, a.entity_id, a.h3[{idx}] AS cell, row_number() "
        f"OVER (PARTITION BY a.h3[{idx}] "
        f"ORDER BY {pool.order_key(f'{sub.id}|j', 'a.entity_id')}) - 1 AS j FROM a)",
    ]
    for i, r in enumerate(others):
        ctes += [
            f"c{i} AS (SELECT p.entity_id, p.h3[{idx}] AS cell, row_number() "
            f"OVER (PARTITION BY p.h3[{idx}] ORDER BY "
            f"{pool.order_key(f'{sub.id}|{r}', 'p.entity_id')}) - 1 AS pos, count(*) "
            f"OVER (PARTITION BY p.h3[{idx}]) AS n "
            f"FROM pool p WHERE {roles.predicate(sub.roles[r], 'p')} "
            f"AND p.h3[{idx}] IN (SELECT cell FROM aj WHERE {pool.kept('aj')}))",
            f"p{i} AS (SELECT aj.entity_id AS anchor, c{i}.entity_id AS {r}, w.k AS k{i} FROM aj "
            "JOIN (SELECT DISTINCT cell, n "
            f"FROM c{i}) n{i} ON n{i}.cell = aj.cell "
            f"CROSS JOIN range({m}) w(k) "
            f"JOIN c{i} ON c{i}.cell = aj.cell AND c{i}.pos = (aj.j * {m} + w.k) % n{i}.n "
            f"WHERE c{i}.entity_id <> aj.entity_id AND {pool.kept('aj')})",
        ]
    joins = " ".join(f"JOIN p{i} ON p{i}.anchor = aj.entity_id" for i in range(len(others)))
    distinct = [pool.kept("aj")] + [
        f"p{i}.{r} <> p{j}.{s}" for i, r in enumerate(others) for j, s in enumerate(others) if i < j
    ]
    ranks = ", ".join(f"k{i}" for i in range(len(others))) or "1"
    cols = ", ".join(f"p{i}.{r}" for i, r in enumerate(others))
    return (
        f"WITH {', '.join(ctes)} "
        f"SELECT aj.stratum, aj.entity_id AS {anchor}{', ' + cols if cols else ''} "
        f"FROM aj {joins} "
        f"WHERE {' AND '.join(distinct)} "
        f"QUALIFY row_number() OVER (PARTITION BY aj.entity_id ORDER BY {ranks}) = 1"
    )


def local_tuples_samples(sub: SubTemplate) -> tuple[tuple[str, str], ...]:
    """The sample :func:`local_tuples` takes in every stratum (its anchors), as
    :meth:`Executor.cell_samples` names it: anchors of several strata in one H3 cell are numbered
    together, so a cell neighbourhood must hold every stratum's sampled anchors."""
    anchor = sub.entity_roles[0]
    return ((sub.roles[anchor], f"{sub.id}|{anchor}"),)


class CellTuplesExecutor(Executor):
    """An executor whose candidates are :func:`local_tuples` in each anchor's H3 cell of
    resolution :meth:`h3_res`, and whose gold reads only its bound entities."""

    gold_bound_only = True
    cell_local = True
    #: The H3 resolution of the anchor's cell the other entities are picked in.
    cell_res: ClassVar[int] = 5

    def h3_res(self, sub: SubTemplate) -> int:
        """The resolution of the cell for ``sub`` (:attr:`cell_res` unless a subclass reads it
        from the sub-template)."""
        return self.cell_res

    def cell_samples(self, sub: SubTemplate) -> tuple[tuple[str, str], ...]:
        """The anchors :func:`local_tuples` samples in every stratum."""
        return local_tuples_samples(sub)

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return local_tuples(sub, pool, self.h3_res(sub))


def members_sql(poly_cte: str, member_pred: str, category: str, inside: str = "") -> str:
    """SQL: (row_id, entity_id, display_name, lon, lat) of the entities satisfying ``member_pred``
    (alias m) of category ``category`` (a column of ``poly_cte``) whose representative point lies in
    the polygon of ``poly_cte`` (columns row_id, kg, geometry, x0, x1, y0, y1): ``inside`` (SQL over
    aliases g, m) or, by default, :func:`contains_sql`."""
    return (
        "SELECT g.row_id, m.entity_id, m.display_name, m.lon, m.lat "
        f"FROM {poly_cte} g "
        "JOIN entities m "
        f"ON m.kg = g.kg AND m.category = g.{category} AND {member_pred} "
        f"AND {inside_sql('g', 'm')} AND {inside or contains_sql('g', 'm')}"
    )


# ---------------------------------------------------------------- finish helpers
def _tolerance(sub: SubTemplate, d1: float, d2: float) -> float:
    """Tie tolerance in km from the conventions: max(tie_abs_km, tie_rel * max(d1, d2))."""
    c = sub.conventions
    return max(float(c.get("tie_abs_km", 0.0)), float(c.get("tie_rel", 0.0)) * max(d1, d2))


def _distance_gold(km: Any, zero_reason: str = "coincident_points") -> Outcome:
    """A distance gold, or a discard for NULL / non-positive / over-half-circumference values."""
    if km is None or (isinstance(km, float) and math.isnan(km)):
        return Outcome.discard("no_distance")
    if km <= 0.0005:  # rounds to 0.000 km
        return Outcome.discard(zero_reason)
    if km > formats.HALF_CIRCUMFERENCE_KM:
        return Outcome.discard("distance_out_of_range")
    return Outcome(formats.distance_km(km))


def parallel_arc_km(dlon_deg: float, lat_deg: float) -> float:
    """Length in km of the arc of the parallel at ``lat_deg`` spanning ``dlon_deg`` (WGS84,
    signed)."""
    phi = math.radians(lat_deg)
    return (
        math.radians(dlon_deg)
        * WGS84_A_KM
        * math.cos(phi)
        / math.sqrt(1 - WGS84_E2 * math.sin(phi) ** 2)
    )


def time_period(valid_from: str | None, kind: str) -> str | None:
    """English period of an ISO date-time: ``year`` -> ``2015``, ``month`` -> ``November 2015``."""
    if (
        not valid_from
        or len(valid_from) < 7
        or not valid_from[:4].isdigit()
        or not valid_from[5:7].isdigit()
    ):
        return None
    year, month = valid_from[:4], int(valid_from[5:7])
    if not 1 <= month <= 12:
        return None
    if kind == "year":
        return year
    if kind == "month":
        return f"{MONTHS[month - 1]} {year}"
    raise ValueError(f"unknown time_period kind {kind!r}")


def _word_index(sub: SubTemplate, param: str, value: str) -> int:
    """0-based position of a parameter value in the catalog's value list (the list order is the
    meaning)."""
    return list(sub.parameters[param]).index(value)


# ---------------------------------------------------------------- A01 direct distance
def pair_km_sql(sub: SubTemplate) -> str:
    """SQL: each row's ``row_id`` and the geodesic ``km`` between the points of its first two
    entity roles."""
    a, b = sub.entity_roles[:2]
    return (
        f"SELECT t.row_id, {geodesic_km_sql('a', 'b')} AS km FROM t "
        f"JOIN entities a ON a.entity_id = t.{a} JOIN entities b ON b.entity_id = t.{b}"
    )


class PairDistance(LocalExecutor):
    """A01: geodesic distance (km) between the representative points of two entities in one
    stratum."""

    name = "distance.pair"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a, b = sub.entity_roles[:2]
        return (
            f"WITH a AS ({pool.sample(sub.roles[a], f'{sub.id}|{a}')}), b "
            f"AS ({pool.sample(sub.roles[b], f'{sub.id}|{b}')}) "
            f"SELECT a.stratum, a.entity_id AS {a}, b.entity_id AS {b} "
            "FROM a "
            "JOIN b ON a.stratum = b.stratum AND a.rn = b.rn "
            f"WHERE a.entity_id <> b.entity_id"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        return pair_km_sql(sub)

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if row["km"] is None or row["km"] <= 0:
            return Outcome.discard("coincident_points")
        return Outcome(formats.distance_km(row["km"]))


class _NearestPointBase(Executor):
    """Geodesic km from the representative point of the first entity role to the nearest point of
    the second role's geometry (``boundary``: of its boundary), nearest point found in the local
    equirectangular frame (module docstring). The result row also carries the nearest point
    (lon/lat)."""

    boundary: ClassVar[bool] = False

    def gold_sql(self, sub: SubTemplate) -> str:
        a, b = sub.entity_roles[:2]
        geom = "ST_Boundary(b.geometry)" if self.boundary else "b.geometry"
        nlon, nlat, km = frame_to_km_sql("lon", "lat", "ep")
        return (
            "WITH g AS (SELECT t.row_id, a.lon, a.lat, ST_IsValid(b.geometry) AS valid, "
            "b.geom_kind, "
            f"{contains_sql('b', 'a')} AS inside, "
            f"{nearest_point_sql('a.lon', 'a.lat', geom)} AS ep "
            f"{bound_join(a=a, b=b)}) "
            f"SELECT row_id, valid, geom_kind, inside, {nlon} AS near_lon, "
            f"{nlat} AS near_lat, {km} AS km "
            "FROM g"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if not row["valid"]:
            return Outcome.discard("invalid_geometry")
        if self.boundary and row["geom_kind"] != "polygon":
            return Outcome.discard("not_a_polygon")
        if sub.conventions.get("position") == "inside" and not row["inside"]:
            return Outcome.discard("outside_polygon")
        return _distance_gold(row["km"], "on_geometry")


class PointGeometryDistance(_NearestPointBase, CellTuplesExecutor):
    """A01 (point to line): km from a point to the nearest point of a nearby line (same H3 res-7
    cell)."""

    name = "distance.to_geometry"
    cell_res = 7


class BoundaryDistance(_NearestPointBase):
    """A09: minimum km from a point to the boundary of a polygon.

    Candidates: (point, polygon) pairs whose point lies in the polygon's bbox grown by the
    conventions' ``search_margin_deg``; with ``position: inside`` the point must lie in the polygon.
    One polygon per point (seeded), then ``per_stratum`` points per stratum of the point.
    """

    name = "distance.to_boundary"
    gold_bound_only = True
    boundary = True

    def premise_sql(self, sub: SubTemplate) -> str:
        """Premise of the ``position: inside`` sub-template: A's representative point lies in
        polygon B."""
        a, b = sub.entity_roles[:2]
        return (
            f"SELECT t.row_id, {contains_sql('b', 'a')} AS holds {bound_join(a=a)} "
            f"JOIN entities b ON b.entity_id = t.{b}"
        )

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a, b = sub.entity_roles[:2]
        margin = float(sub.conventions.get("search_margin_deg", 0.0))
        inside = (
            f"AND {contains_sql('b', 'a')}" if sub.conventions.get("position") == "inside" else ""
        )
        return (
            f"WITH b AS (SELECT p.entity_id, p.geometry, {bbox_cols('p.geometry')} "
            "FROM pool p "
            f"WHERE {roles.predicate(sub.roles[b], 'p')}), "
            f"pairs AS (SELECT a.stratum, a.entity_id AS {a}, b.entity_id AS {b} "
            "FROM pool a "
            f"JOIN b ON {inside_sql('b', 'a', margin)} "
            f"WHERE {roles.predicate(sub.roles[a], 'a')} AND a.entity_id <> b.entity_id {inside} "
            "QUALIFY row_number() OVER (PARTITION BY a.entity_id ORDER BY "
            f"{pool.order_key(f'{sub.id}|{b}', 'a.entity_id', 'b.entity_id')}) = 1) "
            "SELECT * "
            "FROM pairs "
            "QUALIFY row_number() OVER (PARTITION BY stratum ORDER BY "
            f"{pool.order_key(f'{sub.id}|{a}', a)}) <= {pool.per_stratum}"
        )


# ---------------------------------------------------------------- A02 directional distance
class DirectionalDistance(CellTuplesExecutor):
    """A02: "How far {direction} is A from B?" = the component of A's offset from B along that
    direction.

    north/south: meridian arc (km) between lat(B) and lat(A); east/west: arc of the parallel at the
    mean latitude spanning the longitude difference (normalised to [-180, 180)). The direction word
    is a parameter filled by the candidates from the data: the dominant axis of A's offset from B
    and its sign (B is a seeded pick in A's H3 res-5 cell); the gold query re-checks that A does lie
    that way of B.
    """

    name = "distance.directional"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a, b = sub.entity_roles[:2]
        dlon, mid = "(((ea.lon - eb.lon + 540) % 360) - 180)", "radians((ea.lat + eb.lat) / 2)"
        dx, dy = f"({dlon} * cos({mid}))", "(ea.lat - eb.lat)"
        words = ", ".join(f"'{w}'" for w in sub.parameters["direction"])
        return (
            "SELECT * "
            f"FROM (SELECT c.*, CASE WHEN abs({dx}) >= abs({dy}) "
            f"THEN (CASE WHEN {dx} < 0 THEN 'west' ELSE 'east' END) "
            f"ELSE (CASE WHEN {dy} < 0 THEN 'south' ELSE 'north' END) END AS direction "
            f"FROM ({super().candidates(sub, pool)}) c "
            f"JOIN pool ea ON ea.entity_id = c.{a} "
            f"JOIN pool eb ON eb.entity_id = c.{b} "
            f"WHERE greatest(abs({dx}), abs({dy})) > 0) "
            f"WHERE direction IN ({words})"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        a, b = sub.entity_roles[:2]
        phi, dlon = "radians((a.lat + b.lat) / 2)", "(((a.lon - b.lon + 540) % 360) - 180)"
        return (
            f"SELECT t.row_id, t.direction, sign(a.lat - b.lat) AS ns_sign, "
            "ST_Distance_Spheroid(ST_Point(a.lat, b.lon), ST_Point(b.lat, b.lon)) / "
            "1000.0 AS ns_km, "
            f"radians({dlon}) * {WGS84_A_KM} * cos({phi}) / "
            f"sqrt(1 - {WGS84_E2} * pow(sin({phi}), 2)) AS ew_km "
            f"{bound_join(a=a, b=b)}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        d, ew = row["direction"], row["ew_km"]
        holds = {
            "north": row["ns_sign"] > 0,
            "south": row["ns_sign"] < 0,
            "east": ew > 0,
            "west": ew < 0,
        }
        if d not in holds:
            raise ValueError(f"{sub.id}: unknown direction {d!r} (expected one of {DIRECTIONS})")
        if not holds[d]:
            return Outcome.discard("direction_does_not_hold")
        return _distance_gold(
            row["ns_km"] if d in ("north", "south") else abs(ew), "negligible_offset"
        )


# ---------------------------------------------------------------- A03 event to location
class EventLocationDistance(Executor):
    """A03: km from an event's point to a feature B lying in region C; ``time_period`` (extra) is
    the event's calendar year or month (conventions ``time_period``: year | month) from
    ``valid_from``.

    Candidates: events sampled per stratum; each gets a seeded (B, C) pair with B's point inside C.
    """

    name = "distance.event_location"
    gold_bound_only = True
    evidence = ("geometry", "time")

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        ev, b, c = sub.entity_roles[:3]
        return (
            f"WITH a AS ({pool.sample(sub.roles[ev], f'{sub.id}|{ev}')}), "
            "ag AS (SELECT *, row_number() OVER "
            f"(ORDER BY {pool.order_key(f'{sub.id}|g', 'entity_id')}) - 1 AS g "
            "FROM a), "
            f"c AS (SELECT p.entity_id, p.geometry, {bbox_cols('p.geometry')} "
            "FROM pool p "
            f"WHERE {roles.predicate(sub.roles[c], 'p')}), "
            f"bc AS (SELECT b.entity_id AS {b}, c.entity_id AS {c}, row_number() OVER (ORDER BY "
            f"{pool.order_key(f'{sub.id}|{b}', 'b.entity_id', 'c.entity_id')}) - 1 AS i, "
            "count(*) OVER () AS n "
            f"FROM pool b JOIN c ON {inside_sql('c', 'b')} AND {contains_sql('c', 'b')} "
            f"WHERE {roles.predicate(sub.roles[b], 'b')} AND b.entity_id <> c.entity_id) "
            f"SELECT ag.stratum, ag.entity_id AS {ev}, bc.{b}, bc.{c} "
            "FROM ag "
            "JOIN bc ON bc.i = ag.g % bc.n"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        ev, b, c = sub.entity_roles[:3]
        return (
            f"SELECT t.row_id, a.valid_from, {geodesic_km_sql('a', 'b')} AS km, "
            f"{contains_sql('c', 'b')} AS inside "
            f"{bound_join(a=ev, b=b)} "
            f"JOIN entities c ON c.entity_id = t.{c}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if not row["inside"]:
            return Outcome.discard("feature_outside_region")
        period = time_period(row["valid_from"], sub.conventions.get("time_period", "year"))
        if period is None:
            return Outcome.discard("no_event_date")
        out = _distance_gold(row["km"])
        return Outcome(out.gold, out.reason, extras={"time_period": period}) if out.gold else out


# ---------------------------------------------------------------- A04 comparative
class ComparativeDistance(CellTuplesExecutor):
    """A04: which of A and B is closer to / farther from C (representative points, geodesic km).

    ``rank_type`` values start with "closer"/"nearer" (min) or "farther"/"further" (max). Near ties
    (|dA - dB| < max(tie_abs_km, tie_rel * max)) are discarded. B and C are seeded picks in A's H3
    res-5 cell.
    """

    name = "distance.compare"
    cell_res = 5

    def gold_sql(self, sub: SubTemplate) -> str:
        a, b, c = sub.entity_roles[:3]
        return (
            "SELECT t.row_id, t.rank_type, a.entity_id AS a_id, a.display_name AS a_name, "
            "b.entity_id AS b_id, "
            f"b.display_name AS b_name, {geodesic_km_sql('a', 'c')} AS a_km, "
            f"{geodesic_km_sql('b', 'c')} AS b_km "
            f"{bound_join(a=a, b=b, c=c)}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        return _pick_one(sub, row, want_min=_wants_min(row["rank_type"]))


def _wants_min(rank_type: str) -> bool:
    word = rank_type.split()[0].lower()
    if word in ("closer", "nearer"):
        return True
    if word in ("farther", "further"):
        return False
    raise ValueError(f"unknown rank_type {rank_type!r}")


def _pick_one(sub: SubTemplate, row: Mapping[str, Any], want_min: bool) -> Outcome:
    """entity_name gold: the one of (a, b) with the smaller (``want_min``) or larger km; near ties
    discarded."""
    da, db = row["a_km"], row["b_km"]
    if da is None or db is None:
        return Outcome.discard("no_distance")
    if abs(da - db) < _tolerance(sub, da, db):
        return Outcome.discard("near_tie")
    a_wins = (da < db) == want_min
    side = "a" if a_wins else "b"
    return Outcome(formats.entity_name([row[f"{side}_id"]], [row[f"{side}_name"]]))


# ---------------------------------------------------------------- A05 neighbouring country
class NeighbourCountryDistance(CellTuplesExecutor):
    """A05: which of B and C is closer to a country bordering the country containing A.

    Countries are the ``countries`` table (Natural Earth 1:50m). A's country: the polygon containing
    A's representative point. Its neighbours: the other country polygons that intersect it (shared
    border). Distance of X to the neighbours: min over them of the geodesic km from X to the nearest
    point of the neighbour's polygon (0 inside it; nearest point in the local equirectangular
    frame). Near ties discarded. B and C are seeded picks in A's H3 res-3 cell.
    """

    name = "distance.neighbour_country"
    cell_res = 3

    def gold_sql(self, sub: SubTemplate) -> str:
        a, b, c = sub.entity_roles[:3]
        nlon, nlat, km = frame_to_km_sql("lon", "lat", "ep")
        return (
            f"WITH cb AS (SELECT iso3, geometry, {bbox_cols()} FROM countries), "
            f"home AS (SELECT t.row_id, min(cb.iso3) AS iso3 {bound_join(a=a)} "
            f"JOIN cb ON {inside_sql('cb', 'a')} AND {contains_sql('cb', 'a')} GROUP BY t.row_id), "
            "nb AS (SELECT h.iso3, n.iso3 AS nb_iso3, n.geometry "
            "FROM (SELECT DISTINCT iso3 "
            "FROM home) h "
            "JOIN countries c ON c.iso3 = h.iso3 "
            "JOIN countries n ON n.iso3 <> c.iso3 "
            "AND ST_Intersects(n.geometry, c.geometry)), "
            f"ends AS (SELECT row_id, 'b' AS side, {b} AS id "
            "FROM t "
            f"UNION ALL SELECT row_id, 'c', {c} "
            "FROM t), "
            "d AS (SELECT e.row_id, e.side, n.nb_iso3, p.lon, p.lat, "
            f"{nearest_point_sql('p.lon', 'p.lat', 'n.geometry')} AS ep "
            "FROM ends e "
            "JOIN entities p ON p.entity_id = e.id "
            "JOIN home h ON h.row_id = e.row_id "
            "JOIN nb n ON n.iso3 = h.iso3), "
            f"best AS (SELECT row_id, side, min({km}) AS km, "
            f"arg_min(nb_iso3, {km}) AS nearest "
            "FROM d "
            "GROUP BY row_id, side), "
            "nbl AS (SELECT iso3, list(nb_iso3 ORDER BY nb_iso3) AS neighbours "
            "FROM nb "
            "GROUP BY iso3) "
            "SELECT t.row_id, h.iso3 AS home_iso3, nbl.neighbours, eb.entity_id AS a_id, "
            "eb.display_name AS a_name, "
            "ec.entity_id AS b_id, ec.display_name AS b_name, xb.km AS a_km, "
            "xb.nearest AS a_nearest, xc.km AS b_km, xc.nearest AS b_nearest "
            f"{bound_join(eb=b, ec=c)} "
            f"LEFT JOIN home h ON h.row_id = t.row_id LEFT JOIN nbl ON nbl.iso3 = h.iso3 "
            "LEFT JOIN best xb ON xb.row_id = t.row_id AND xb.side = 'b' "
            "LEFT JOIN best xc ON xc.row_id = t.row_id AND xc.side = 'c'"
        )  # a_/b_ columns are the two answer options (roles entity_B / entity_C), as in A04

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if row["home_iso3"] is None:
            return Outcome.discard("no_containing_country")
        if not row["neighbours"]:
            return Outcome.discard("no_neighbouring_country")
        return _pick_one(sub, row, want_min=True)


# ---------------------------------------------------------------- A06 aggregation
class AggregateDistance(Executor):
    """A06: average / minimum / maximum geodesic km over all unordered pairs of the members of
    ``category_A`` whose representative points lie in polygon B. ``aggregation`` is a parameter (or
    the conventions' fixed ``aggregation``). Evidence: every member. Candidates: polygons sampled
    per stratum, up to 4 seeded categories per polygon with >= MIN_CATEGORY_MEMBERS members inside,
    each with every aggregation word of the parameter list.
    """

    name = "distance.aggregate"
    evidence = ("geometry", "type")
    AGG = {"average": "avg_km", "minimum": "min_km", "maximum": "max_km"}

    @staticmethod
    def _members(sub: SubTemplate, cat: str) -> str:
        """The members of ``cat`` in polygon g under the boundary rule (:func:`in_polygon_sql`)."""
        pred = roles.predicate(sub.roles[cat], "m")
        return members_sql("g", pred, cat, in_polygon_sql(sub, "g", "m"))

    def premise_sql(self, sub: SubTemplate) -> str:
        """Premise: at least two members of ``category_A`` lie in polygon B (a pair to aggregate
        over)."""
        cat = next(r for r, t in sub.roles.items() if roles.is_category(t))
        (b,) = sub.entity_roles[:1]
        return (
            f"WITH g AS (SELECT t.row_id, t.kg, t.{cat}, e.geometry, "
            f"{bbox_cols('e.geometry')} {bound_join(e=b)}), "
            f"m AS ({self._members(sub, cat)}) "
            "SELECT t.row_id, count(m.entity_id) >= 2 AS holds "
            "FROM t "
            "LEFT JOIN m ON m.row_id = t.row_id "
            "GROUP BY t.row_id"
        )

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        cat = next(r for r, t in sub.roles.items() if roles.is_category(t))
        (b,) = sub.entity_roles[:1]
        values = ", ".join(f"'{v}'" for v in sub.parameters.get("aggregation", []))
        aggs = (
            f", unnest([{values}]) AS aggregation" if values else ""
        )  # every aggregation is its own question
        return (
            f"WITH b AS (SELECT s.*, {bbox_cols('s.geometry')} "
            f"FROM ({pool.sample(sub.roles[b], f'{sub.id}|{b}')}) s), "
            f"m AS (SELECT b.stratum, b.entity_id AS {b}, p.category AS {cat} "
            "FROM b "
            f"JOIN pool p ON {inside_sql('b', 'p')} "
            f"AND {in_polygon_sql(sub, 'b', 'p')} "
            f"WHERE {roles.candidate_predicate(sub.roles[cat], 'p')} "
            "GROUP BY ALL "
            f"HAVING count(*) BETWEEN {roles.MIN_CATEGORY_MEMBERS} AND {MAX_MEMBERS}), "
            "mc AS (SELECT * "
            "FROM m "
            f"QUALIFY row_number() OVER (PARTITION BY {b} ORDER BY "
            f"{pool.order_key(f'{sub.id}|{cat}', b, cat)}) <= 4) "
            f"SELECT mc.*{aggs} FROM mc"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        cat = next(r for r, t in sub.roles.items() if roles.is_category(t))
        (b,) = sub.entity_roles[:1]
        agg = "t.aggregation" if "aggregation" in sub.parameters else "NULL"
        return (
            f"WITH g AS (SELECT t.row_id, t.kg, t.{cat}, e.geometry, "
            f"{bbox_cols('e.geometry')} {bound_join(e=b)}), "
            f"m AS ({self._members(sub, cat)}), "
            f"pr AS (SELECT x.row_id, {geodesic_km_sql('x', 'y')} AS km "
            "FROM m x "
            "JOIN m y ON x.row_id = y.row_id AND x.entity_id < y.entity_id), "
            "agg AS (SELECT row_id, count(*) AS n_pairs, "
            "kahan_sum(km) / count(*) AS avg_km, min(km) AS min_km, max(km) AS max_km "
            "FROM pr "
            "GROUP BY row_id), "
            "mem AS (SELECT row_id, list(entity_id ORDER BY entity_id) AS members "
            "FROM m "
            "GROUP BY row_id) "
            f"SELECT t.row_id, {agg} AS aggregation, mem.members, agg.n_pairs, agg.avg_km, "
            "agg.min_km, agg.max_km "
            f"FROM t LEFT JOIN mem ON mem.row_id = t.row_id LEFT JOIN agg ON agg.row_id = t.row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        members = row["members"] or []
        if len(members) < 2:
            return Outcome.discard("too_few_members")
        agg = row["aggregation"] or sub.conventions["aggregation"]
        out = _distance_gold(row[self.AGG[agg]], "coincident_members")
        return Outcome(out.gold, out.reason, evidence=tuple(members)) if out.gold else out


# ---------------------------------------------------------------- A07 optimisation
class MinTotalDistance(Executor):
    """A07: the member of ``category_A`` in polygon B whose summed geodesic km to every member of
    ``category_C`` in B is smallest (a 1-median among the candidates). Members within ``tie_rel`` of
    the best total are all accepted (entity_name G*); more than ``max_tied`` such members ->
    discard. Evidence: all members of both categories in B. Candidates: polygons sampled per
    stratum, up to 6 seeded (category_A, category_C) pairs (distinct categories, >=
    MIN_CATEGORY_MEMBERS each inside)."""

    name = "distance.min_total"
    evidence = ("geometry", "type")

    def _cats(self, sub: SubTemplate) -> tuple[str, str]:
        cats = [r for r, t in sub.roles.items() if roles.is_category(t)]
        return cats[0], cats[1]

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        ca, cc = self._cats(sub)
        (b,) = sub.entity_roles[:1]
        return (
            f"WITH b AS (SELECT s.*, {bbox_cols('s.geometry')} "
            f"FROM ({pool.sample(sub.roles[b], f'{sub.id}|{b}')}) s), "
            "m AS (SELECT b.stratum, b.entity_id AS b_id, p.category, p.geom_kind, "
            "p.category_kind, p.valid_from "
            "FROM b "
            "JOIN pool p "
            f"ON {inside_sql('b', 'p')} AND {contains_sql('b', 'p')}), "
            "ma AS (SELECT stratum, b_id, category "
            "FROM m p "
            f"WHERE {roles.candidate_predicate(sub.roles[ca], 'p')} "
            "GROUP BY ALL "
            f"HAVING count(*) BETWEEN {roles.MIN_CATEGORY_MEMBERS} AND {MAX_MEMBERS}), "
            "mc AS (SELECT stratum, b_id, category "
            "FROM m p "
            f"WHERE {roles.candidate_predicate(sub.roles[cc], 'p')} "
            "GROUP BY ALL "
            f"HAVING count(*) BETWEEN {roles.MIN_CATEGORY_MEMBERS} AND {MAX_MEMBERS}) "
            f"SELECT ma.stratum, ma.b_id AS {b}, ma.category AS {ca}, mc.category AS {cc} "
            "FROM ma "
            "JOIN mc ON mc.b_id = ma.b_id "
            "AND mc.category <> ma.category "
            "QUALIFY row_number() OVER (PARTITION BY ma.b_id ORDER BY "
            f"{pool.order_key(f'{sub.id}|cats', 'ma.b_id', 'ma.category', 'mc.category')}) <= 6"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        ca, cc = self._cats(sub)
        (b,) = sub.entity_roles[:1]
        return (
            f"WITH g AS (SELECT t.row_id, t.kg, t.{ca}, t.{cc}, e.geometry, "
            f"{bbox_cols('e.geometry')} {bound_join(e=b)}), "
            f"ma AS ({members_sql('g', roles.predicate(sub.roles[ca], 'm'), ca)}), "
            f"mc AS ({members_sql('g', roles.predicate(sub.roles[cc], 'm'), cc)}), "
            "tot AS (SELECT x.row_id, x.entity_id, x.display_name, "
            f"kahan_sum({geodesic_km_sql('x', 'y')}) AS total_km "
            "FROM ma x "
            "JOIN mc y ON x.row_id = y.row_id AND x.entity_id <> y.entity_id "
            "GROUP BY ALL), "
            "rk AS (SELECT row_id, list(struct_pack(id := entity_id, "
            "name := display_name, total_km := total_km) ORDER BY total_km, entity_id) AS "
            "ranking "
            f"FROM tot GROUP BY row_id), "
            "cl AS (SELECT row_id, list(entity_id ORDER BY entity_id) AS c_members "
            "FROM mc "
            "GROUP BY row_id) "
            "SELECT t.row_id, rk.ranking, cl.c_members "
            "FROM t "
            "LEFT JOIN rk ON rk.row_id = t.row_id "
            "LEFT JOIN cl ON cl.row_id = t.row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        ranking, c_members = row["ranking"] or [], row["c_members"] or []
        if len(ranking) < 2 or not c_members:
            return Outcome.discard("too_few_members")
        best = ranking[0]["total_km"]
        if best <= 0:
            return Outcome.discard("coincident_points")
        tied = [
            r
            for r in ranking
            if r["total_km"] - best <= float(sub.conventions.get("tie_rel", 0.0)) * best
        ]
        if len(tied) > int(sub.conventions.get("max_tied", 1)):
            return Outcome.discard("ambiguous_optimum")
        gold = formats.entity_name([r["id"] for r in tied], [r["name"] for r in tied])
        return Outcome(gold, evidence=tuple([r["id"] for r in ranking] + list(c_members)))


# ---------------------------------------------------------------- A08 k-th nearest
class KthNearestDistance(Executor):
    """A08: km between the k-th nearest member X of ``category_A`` to B (B itself excluded; k =
    position of the ``rank`` word in the catalog's list + 1) and entity C.

    Members are searched in a window of +-KTH_WINDOW_DEG of latitude around B (the same km in
    longitude, >= 55 km from B); the k-th is trusted only up to KTH_TRUST_KM (50 km), so every
    member outside the window is farther than the k-th and, by > 5 km, than any tie tolerance (else
    ``beyond_search_window``). Ranking is by exact geodesic km over the members in the window; a
    haversine prefilter keeps every member whose great-circle km is <= 1.0203 x the (k+1)-th
    smallest great-circle km (the sphere and the ellipsoid differ by < 0.6 %, so the true top k+1
    are always kept). Discards: fewer than k members, a near tie between the k-th and its neighbours
    in the ranking, X = C. Evidence: the ranked members up to k+1. Candidates: B sampled per
    stratum, a seeded category with >= MIN_CATEGORY_MEMBERS members in B's H3 res-5 cell, C a seeded
    pick in that cell.
    """

    name = "distance.kth_nearest"
    evidence = ("geometry", "type")
    cell_local = True

    def cell_samples(self, sub: SubTemplate) -> tuple[tuple[str, str], ...]:
        """The anchors (B) :func:`local_tuples` samples in every stratum; the category counts are
        per res-5 cell of B, which the cell neighbourhood holds whole."""
        return local_tuples_samples(sub)

    def _roles(self, sub: SubTemplate) -> tuple[str, str, str]:
        cat = next(r for r, t in sub.roles.items() if roles.is_category(t))
        b, c = sub.entity_roles[:2]
        return cat, b, c

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        cat, b, c = self._roles(sub)
        return (
            f"WITH bc AS ({local_tuples(sub, pool, 5)}), "
            "cc AS (SELECT p.h3[2] AS cell, p.category, count(*) AS n "
            "FROM pool p "
            f"WHERE {roles.candidate_predicate(sub.roles[cat], 'p')} "
            "GROUP BY ALL), "
            f"cats AS (SELECT bc.{b}, cc.category "
            "FROM bc "
            f"JOIN pool e ON e.entity_id = bc.{b} "
            "JOIN cc ON cc.cell = e.h3[2] "
            "WHERE cc.n - CASE WHEN cc.category = e.category "
            f"AND {roles.predicate(sub.roles[cat], 'e')} THEN 1 ELSE 0 END "
            f">= {roles.MIN_CATEGORY_MEMBERS}) "  # members other than B itself
            f"SELECT bc.stratum, bc.{b}, bc.{c}, cats.category AS {cat} "
            "FROM bc "
            f"JOIN cats ON cats.{b} = bc.{b} "
            f"QUALIFY row_number() OVER (PARTITION BY bc.{b} ORDER BY "
            f"{pool.order_key(f'{sub.id}|{cat}', f'bc.{b}', 'cats.category')}) = 1"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        cat, b, c = self._roles(sub)
        k_case = " ".join(f"WHEN '{w}' THEN {i}" for i, w in enumerate(sub.parameters["rank"], 1))
        return (
            f"WITH q AS (SELECT t.row_id, t.kg, t.{cat} AS category, "
            f"CASE t.rank {k_case} END AS k, b.entity_id AS b_id, b.lon, b.lat "
            f"{bound_join(b=b)}), "
            f"h AS (SELECT q.row_id, q.k, m.entity_id, {haversine_km_sql('q', 'm')} AS hav "
            "FROM q "
            "JOIN entities m ON m.kg = q.kg "
            f"AND m.category = q.category AND {roles.predicate(sub.roles[cat], 'm')} "
            "AND m.entity_id <> q.b_id "
            f"AND m.lat BETWEEN q.lat - {KTH_WINDOW_DEG} AND q.lat + {KTH_WINDOW_DEG} "
            f"AND m.lon BETWEEN q.lon - {KTH_WINDOW_DEG} / cos(radians(q.lat)) "
            f"AND q.lon + {KTH_WINDOW_DEG} / cos(radians(q.lat))), "
            "hr AS (SELECT *, row_number() OVER "
            "(PARTITION BY row_id ORDER BY hav, entity_id) AS r "
            "FROM h), "
            "hk AS (SELECT *, max(hav) FILTER (WHERE r = k + 1) "
            "OVER (PARTITION BY row_id) AS cut "
            "FROM hr), "
            "ex AS (SELECT hk.row_id, hk.k, m.entity_id, m.display_name, "
            f"{geodesic_km_sql('q', 'm')} AS km_b, {geodesic_km_sql('m', 'c')} AS km_c "
            f"FROM hk JOIN q ON q.row_id = hk.row_id JOIN entities m ON m.entity_id = hk.entity_id "
            "JOIN t ON t.row_id = hk.row_id "
            f"JOIN entities c ON c.entity_id = t.{c} "
            f"WHERE hk.cut IS NULL OR hk.hav <= hk.cut * {HAVERSINE_SLACK}), "
            "rk AS (SELECT *, row_number() OVER "
            "(PARTITION BY row_id ORDER BY km_b, entity_id) AS r "
            "FROM ex), "
            "lst AS (SELECT row_id, list(struct_pack(id := entity_id, "
            "name := display_name, km_b := km_b, km_c := km_c) ORDER BY r) "
            f"FILTER (WHERE r <= k + 1) AS ranked FROM rk GROUP BY row_id) "
            f"SELECT t.row_id, t.rank, t.{c} AS c_id, lst.ranked "
            "FROM t "
            "LEFT JOIN lst ON lst.row_id = t.row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        k = _word_index(sub, "rank", row["rank"]) + 1
        ranked = row["ranked"] or []
        if len(ranked) < k:
            return Outcome.discard("too_few_members")
        d = [r["km_b"] for r in ranked]
        for j in (k - 2, k):  # neighbours of the k-th in the ranking (0-based k-1)
            if 0 <= j < len(d) and abs(d[j] - d[k - 1]) < _tolerance(sub, d[j], d[k - 1]):
                return Outcome.discard("rank_tie")
        chosen = ranked[k - 1]
        if chosen["km_b"] > KTH_TRUST_KM:  # a member outside the search window could be nearer
            return Outcome.discard("beyond_search_window")
        if chosen["id"] == row["c_id"]:
            return Outcome.discard("selected_is_entity_c")
        out = _distance_gold(chosen["km_c"])
        return (
            Outcome(out.gold, out.reason, evidence=tuple(r["id"] for r in ranked))
            if out.gold
            else out
        )
