"""Executors for SFID J: directional and orientation reasoning (templates J01-J04).

Positions are representative points (``entities.lon``/``lat``, EPSG:4326, lon first). Azimuths are
forward geodesic azimuths on WGS84 (``pyproj.Geod.inv``), degrees clockwise from true north wrapped
into [0, 360). A compass is a list of ``n`` equal, half-open sectors [offset + i*w, offset +
(i+1)*w) (w = 360/n) named by ``sector_labels`` (or the answer options
``formats.OPTION_SETS[options]``) and rotated by ``sector_offset_deg`` (-45 for N/E/S/W centred on
the axes, 0 for quadrants, -22.5 for the 8-point rose); azimuths within ``sector_margin_deg`` of a
sector edge are ambiguous and discarded. J01 asks a direction word without naming a compass, so it
decides under every reading of ``conventions.readings.direction``
(:mod:`mgqa_platform.questions.readings`) and keeps only golds they agree on; J04's answer options
name its compass.

Side of a route (J02) and position along a line (J03) use a local azimuthal-equidistant projection
(pyproj ``+proj=aeqd``, WGS84, metres) centred on the route's start / the line's representative
point.

Candidates are found in SQL with equirectangular approximations (x = cos(lat) * dlon, y = dlat) so
that the exact geodesic tests in ``finish`` keep most of them. Bound entities have a unique display
name, which never spells out coordinates (:func:`mgqa_platform.questions.roles.predicate`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from pyproj import Geod
from shapely import wkt as shapely_wkt
from shapely.geometry import LineString, Point

from mgqa_platform.kg.whole import FAMILIES, parts_attribute
from mgqa_platform.questions import formats, readings, roles
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import Executor, Outcome, Pool
from mgqa_platform.questions.executors.containment import seeded_int_sql
from mgqa_platform.questions.executors.distance import (
    H3_RES_INDEX,
    frame_to_km_sql,
    nearest_point_sql,
)
from mgqa_platform.questions.executors.grid import (
    cell_pairs,
    lonlat,
    points_gold_sql,
)
from mgqa_platform.questions.executors.transform import MIN_POLAR_KM

GEOD = Geod(ellps="WGS84")
KM_PER_DEG = 111.195  #: mean km per degree of latitude (candidate filters only)


# ---------------------------------------------------------------- pure geometry
def azimuth_deg(origin: tuple[float, float], target: tuple[float, float]) -> tuple[float, float]:
    """(forward geodesic azimuth at ``origin`` towards ``target`` in [0, 360), geodesic km); both
    (lon, lat)."""
    az, _, metres = GEOD.inv(origin[0], origin[1], target[0], target[1])
    return az % 360.0, metres / 1000.0


def sector(az: float, labels: Sequence[str], offset_deg: float) -> tuple[str, float]:
    """(label of the sector holding azimuth ``az``, degrees from ``az`` to the nearest sector edge).

    Sector i covers [offset + i*w, offset + (i+1)*w) with w = 360 / len(labels), all modulo 360."""
    w = 360.0 / len(labels)
    a = (az - offset_deg) % 360.0
    i = min(int(a // w), len(labels) - 1)
    return labels[i], min(a - i * w, (i + 1) * w - a)


def aeqd_xy(
    centre: tuple[float, float], points: Sequence[tuple[float, float]]
) -> list[tuple[float, float]]:
    """(x east, y north) metres of ``points`` (lon, lat) in the azimuthal-equidistant projection on
    WGS84 centred on ``centre`` (lon, lat): the geodesic distance from the centre along the forward
    azimuth, which is how the ellipsoidal ``+proj=aeqd`` is defined (one vectorised ``Geod.inv``
    call instead of a Transformer per centre)."""
    if not points:
        return []
    lons, lats = zip(*points, strict=True)
    az, _, dist = GEOD.inv([centre[0]] * len(lons), [centre[1]] * len(lons), list(lons), list(lats))
    return [
        (d * math.sin(math.radians(a)), d * math.cos(math.radians(a)))
        for a, d in zip(az, dist, strict=True)
    ]


def side_of_route(
    a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]
) -> tuple[float, float, float]:
    """A's position relative to the straight route B -> C in the aeqd frame centred on B (metres).

    Returns (cross, t, |BC|): cross = (C - B) x (A - B) / |BC| is A's signed perpendicular offset in
    metres (> 0: left of the direction of travel), t the parameter of A's orthogonal projection on
    BC (0 at B, 1 at C)."""
    (ax, ay), (cx, cy) = aeqd_xy(b, [a, c])
    length = math.hypot(cx, cy)
    if length == 0.0:
        return 0.0, 0.0, 0.0
    return (cx * ay - cy * ax) / length, (ax * cx + ay * cy) / length**2, length


def positions_along(
    line_wkt: str, centre: tuple[float, float], points: Sequence[tuple[float, float]]
) -> list[tuple[float, float]] | None:
    """Per point: (position along the line from its first vertex, offset from the line), metres, in
    the aeqd frame centred on ``centre``; None when the geometry is not a single connected
    LineString."""
    line = shapely_wkt.loads(line_wkt)
    if line.geom_type != "LineString" or line.is_empty:
        return None
    local = LineString(aeqd_xy(centre, [(x, y) for x, y, *_ in line.coords]))
    return [(local.project(Point(p)), local.distance(Point(p))) for p in aeqd_xy(centre, points)]


# ---------------------------------------------------------------- SQL helpers
#: OSM waterway values whose ways are digitised in the direction of flow (downstream)
FLOWING_WATERWAYS = ("river", "stream", "drain", "ditch")
#: OSM ``oneway`` values meaning "only in the digitised direction" (``-1``, against it, is not
#: taken)
ONEWAY_YES = ("yes", "true", "1")


def directed_line_sql(alias: str) -> str:
    """SQL boolean over entity ``alias``: a line whose digitised direction is the direction of flow
    or travel: a flowing OSM waterway (:data:`FLOWING_WATERWAYS`), or a road tagged ``oneway=yes``
    that is one OSM way; a whole feature (attribute ``<family>_parts``,
    :mod:`mgqa_platform.kg.whole`) is line-merged without keeping direction: never
    directed."""
    attr = f"{alias}.attributes"
    single = " AND ".join(
        f"json_extract({attr}, '$.{parts_attribute(f)}') IS NULL" for f in FAMILIES
    )
    return (
        f"((coalesce(json_extract_string({attr}, '$.osm_waterway') IN "
        f"{roles.sql_in(FLOWING_WATERWAYS)}, FALSE) "
        f"OR coalesce(json_extract_string({attr}, '$.oneway') IN "
        f"{roles.sql_in(ONEWAY_YES)}, FALSE)) "
        f"AND {single})"
    )


def _azimuth_sql(o: str, t: str) -> str:
    """SQL: approximate azimuth (degrees in [0, 360)) from alias ``o`` to alias ``t`` in the
    equirectangular frame at their mean latitude."""
    dx = (
        f"((((({t}.lon - {o}.lon + 540) % 360) + 360) % 360 - 180) * "
        f"cos(radians(({o}.lat + {t}.lat) / 2)))"
    )
    return f"((degrees(atan2({dx}, {t}.lat - {o}.lat)) + 360) % 360)"


def _labels(sub: SubTemplate) -> list[str]:
    c = sub.conventions
    return list(c.get("sector_labels") or formats.OPTION_SETS[c["options"]])


def _sector_index_sql(az: str, n: int, offset: float) -> str:
    """SQL: 0-based sector index of azimuth expression ``az`` (see :func:`sector`)."""
    return (
        f"CAST(floor((((({az}) - ({offset})) % 360) + 360) % 360 / {360.0 / n}) AS INTEGER) % {n}"
    )


def cap_per_stratum(sql: str, pool: Pool, salt: str, key: str) -> str:
    """SQL: at most ``pool.per_stratum`` rows of ``sql`` per stratum, in seeded order of column
    ``key``."""
    return (
        "SELECT * "
        f"FROM ({sql}) z "
        "QUALIFY row_number() OVER (PARTITION BY stratum ORDER BY "
        f"{pool.order_key(salt, key)}) <= {pool.per_stratum}"
    )


# ---------------------------------------------------------------- J01 cardinal relation
class Cardinal(Executor):
    """J01: is A in the named direction (``cardinal_direction``) as seen from B? Boolean.

    The gold is decided under every direction reading the sub-template lists
    (``readings.direction``, :mod:`mgqa_platform.questions.readings`): kept only when all agree
    (else ``reading_dependent``) and the azimuth lies at least ``sector_margin_deg`` from the word's
    arc edge under each (else ``near_sector_edge``). Candidates: ``grid.cell_pairs`` (A, B sharing a
    stored H3 cell at the resolutions of ``candidate_h3_res``) with the direction word supplied per
    tuple: the sector of the approximate azimuth B -> A for half of the tuples (seeded), another
    sector for the rest, so yes and no are balanced. The gold query re-reads both points and whether
    the geometries intersect (region pairs must be disjoint)."""

    name = "direction.cardinal"
    cell_local = True
    gold_bound_only = True

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a, b = sub.entity_roles[:2]
        labels, off = _labels(sub), float(sub.conventions["sector_offset_deg"])
        n = len(labels)
        cols = [H3_RES_INDEX[r] for r in sub.conventions.get("candidate_h3_res", [3, 5, 7])]
        true_i = _sector_index_sql(_azimuth_sql("eb", "ea"), n, off)
        h = seeded_int_sql(pool, f"{sub.id}|yes", f"c.{a}")
        pick = (
            f"CASE WHEN {h} % 2 = 0 THEN {true_i} "
            f"ELSE ({true_i} + 1 + CAST(({h} // 2) % {n - 1} AS INTEGER)) % {n} END"
        )
        arr = "[" + ", ".join(f"'{x}'" for x in labels) + "]"
        return (
            f"SELECT c.stratum, c.{a}, c.{b}, {arr}[1 + ({pick})] AS cardinal_direction "
            f"FROM ({cell_pairs(sub, pool, cols)}) c "
            f"JOIN pool ea ON ea.entity_id = c.{a} JOIN pool eb ON eb.entity_id = c.{b}"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        a, b = sub.entity_roles[:2]
        return (
            "SELECT q.*, ST_Intersects(ea.geometry, eb.geometry) AS intersects "
            f"FROM ({points_gold_sql(sub)}) q "
            f"JOIN entities ea ON ea.entity_id = q.{a} JOIN entities eb ON eb.entity_id = q.{b}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        a, b = sub.entity_roles[:2]
        if row["intersects"]:
            return Outcome.discard("entities_intersect")
        az, km = azimuth_deg(lonlat(row, b), lonlat(row, a))
        if km < MIN_POLAR_KM:
            return Outcome.discard("points_too_close")
        word, checked = row["cardinal_direction"], sub.conventions["readings"]["direction"]
        verdicts = readings.direction_verdicts(az, word, checked)
        if len(verdicts) > 1:
            return Outcome.discard(readings.READING_DEPENDENT)
        margin = float(sub.conventions["sector_margin_deg"])
        if min(readings.edge_distance_deg(az, word, r) for r in checked) < margin:
            return Outcome.discard("near_sector_edge")
        return Outcome(formats.boolean(verdicts.pop()))


# ---------------------------------------------------------------- J04 bearing
class Bearing(Executor):
    """J04: compass sector (predefined ``options``: cardinal8 / cardinal4) of the azimuth from A to
    B."""

    name = "direction.bearing"
    cell_local = True
    gold_bound_only = True

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return cell_pairs(
            sub, pool, [H3_RES_INDEX[r] for r in sub.conventions.get("candidate_h3_res", [3, 5, 7])]
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        return points_gold_sql(sub)

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        a, b = sub.entity_roles[:2]
        az, km = azimuth_deg(lonlat(row, a), lonlat(row, b))
        if km < MIN_POLAR_KM:
            return Outcome.discard("points_too_close")
        label, edge = sector(az, _labels(sub), float(sub.conventions["sector_offset_deg"]))
        if edge < float(sub.conventions["sector_margin_deg"]):
            return Outcome.discard("near_sector_edge")
        return Outcome(formats.predefined(label, formats.OPTION_SETS[sub.conventions["options"]]))


# ---------------------------------------------------------------- J02 side of a route
class SideOfRoute(Executor):
    """J02: is A left or right of the straight route from B to C (:func:`side_of_route`)?

    Candidates: (B, C) from ``grid.cell_pairs`` at ``candidate_h3_res``; A among the points in the
    box of BC (grown by a quarter of its length) whose approximate projection falls well inside the
    segment (0.05 <= t <= 0.95) and whose offset exceeds 1.2 x the ambiguity threshold; one A per
    pair, the side preferred by a seeded coin so that left and right are balanced."""

    name = "direction.side_of_route"
    gold_bound_only = True

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a, b, c = sub.entity_roles[:3]
        conv = sub.conventions
        bc_sub = dataclasses.replace(sub, roles={b: sub.roles[b], c: sub.roles[c]})
        pairs = cell_pairs(bc_sub, pool, [H3_RES_INDEX[int(conv["candidate_h3_res"])]])
        ux, uy = "((ec.lon - eb.lon) * cos(radians(eb.lat)))", "(ec.lat - eb.lat)"
        vx, vy = "((p.lon - bc.bx) * bc.k)", "(p.lat - bc.by)"
        min_off_deg = (
            f"greatest({float(conv['min_offset_m'])} / 1000.0 / {KM_PER_DEG}, "
            f"{float(conv['min_offset_rel'])} * bc.len)"
        )
        want_left = f"{seeded_int_sql(pool, f'{sub.id}|side', f'bc.{b}')} % 2 = 0"
        sql = (
            f"WITH bc AS (SELECT c.{b}, c.{c}, eb.lon AS bx, eb.lat AS by, "
            f"cos(radians(eb.lat)) AS k, {ux} AS ux, {uy} AS uy, "
            f"sqrt({ux} * {ux} + {uy} * {uy}) AS len, least(eb.lon, ec.lon) AS x0, "
            "greatest(eb.lon, ec.lon) AS x1, "
            f"least(eb.lat, ec.lat) AS y0, greatest(eb.lat, ec.lat) AS y1 FROM ({pairs}) c "
            f"JOIN pool eb ON eb.entity_id = c.{b} JOIN pool ec ON ec.entity_id = c.{c}), "
            f"m AS (SELECT p.stratum, p.entity_id AS {a}, bc.{b}, bc.{c}, "
            f"({vx} * bc.ux + {vy} * bc.uy) / (bc.len * bc.len) AS t, "
            f"(bc.ux * {vy} - bc.uy * {vx}) / bc.len AS off, {min_off_deg} AS min_off, "
            f"{want_left} AS want_left "
            "FROM bc "
            "JOIN pool p "
            "ON p.lon BETWEEN bc.x0 - bc.len / 4 / bc.k AND bc.x1 + bc.len / 4 / bc.k "
            "AND p.lat BETWEEN bc.y0 - bc.len / 4 AND bc.y1 + bc.len / 4 "
            f"WHERE bc.len > 0 AND {roles.predicate(sub.roles[a], 'p')} "
            f"AND p.entity_id <> bc.{b} AND p.entity_id <> bc.{c}) "
            f"SELECT stratum, {a}, {b}, {c} "
            "FROM m "
            "WHERE t BETWEEN 0.05 AND 0.95 AND abs(off) > 1.2 * min_off "
            f"QUALIFY row_number() OVER (PARTITION BY {b}, "
            f"{c} ORDER BY ((off > 0) = want_left) DESC, "
            f"{pool.order_key(f'{sub.id}|{a}', b, c, a)}) = 1"
        )
        return cap_per_stratum(sql, pool, f"{sub.id}|cap", a)

    def gold_sql(self, sub: SubTemplate) -> str:
        return points_gold_sql(sub)

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        a, b, c = sub.entity_roles[:3]
        conv = sub.conventions
        cross, t, length = side_of_route(lonlat(row, a), lonlat(row, b), lonlat(row, c))
        if length < MIN_POLAR_KM * 1000.0:
            return Outcome.discard("route_too_short")
        if not 0.0 <= t <= 1.0:
            return Outcome.discard("outside_route_span")
        if abs(cross) < max(float(conv["min_offset_m"]), float(conv["min_offset_rel"]) * length):
            return Outcome.discard("too_close_to_route")
        return Outcome(
            formats.predefined("left" if cross > 0 else "right", formats.OPTION_SETS["left_right"])
        )


# ---------------------------------------------------------------- J03 upstream / downstream
class AlongLine(Executor):
    """J03: is A upstream (smaller linear position) or downstream of B along line C's digitised
    direction?

    Only along lines whose digitised direction means something (:func:`directed_line_sql`):
    elsewhere the answer flips with the mapper's drawing order, so other lines are not candidates
    and a replay on one discards ``reading_dependent``.
    Candidates: lines at least 3 x ``min_separation_m`` long (equirectangular) sampled per stratum;
    points of the anchor's role type in the line's bbox (grown by ``max_offset_m``) whose lon/lat
    distance to the line is small enough (a superset filter); per line one seeded pair whose
    approximate positions (``ST_LineLocatePoint`` x the line's equirectangular length) are at least
    1.5 x ``min_separation_m`` apart; multi-part lines are not drawn. ``finish`` does the linear
    referencing (:func:`positions_along`). ``premise_sql``: both points within ``max_offset_m`` of C
    (nearest point of C found in the local equirectangular frame, geodesic km, as in SFID A)."""

    name = "direction.along_line"
    gold_bound_only = True

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a, b, c = sub.entity_roles[:3]
        conv = sub.conventions
        off_km, sep_km = (
            float(conv["max_offset_m"]) / 1000.0,
            float(conv["min_separation_m"]) / 1000.0,
        )
        m = off_km / 110.0
        long_enough = (
            "ST_Length(ST_Affine(p.geometry, cos(radians(p.lat)), 0, 0, 1, 0, 0)) * "
            f"{KM_PER_DEG} >= {3 * sep_km}"
        )
        line = pool.sample(
            sub.roles[c], f"{sub.id}|{c}", where=f"{long_enough} AND {directed_line_sql('p')}"
        )
        sql = (
            "WITH l AS (SELECT s.entity_id, s.geometry, "
            "ST_Length(ST_Affine(s.geometry, cos(radians(s.lat)), 0, 0, 1, 0, 0)) * "
            f"{KM_PER_DEG} AS km, "
            f"ST_XMin(s.geometry) - {m} / cos(radians(s.lat)) AS x0, "
            f"ST_XMax(s.geometry) + {m} / cos(radians(s.lat)) AS x1, "
            f"ST_YMin(s.geometry) - {m} AS y0, ST_YMax(s.geometry) + {m} AS y1 "
            f"FROM ({line}) s "
            f"WHERE ST_GeometryType(s.geometry) = 'LINESTRING'), "
            "near AS (SELECT l.entity_id AS line_id, p.entity_id, p.stratum, p.lon, "
            "p.lat, l.km * ST_LineLocatePoint(l.geometry, ST_Point(p.lon, p.lat)) AS pos, "
            "row_number() OVER (PARTITION BY l.entity_id "
            f"ORDER BY {pool.order_key(f'{sub.id}|pt', 'l.entity_id', 'p.entity_id')}) AS "
            "r "
            "FROM l "
            "JOIN pool p "
            "ON p.lon BETWEEN l.x0 AND l.x1 AND p.lat BETWEEN l.y0 AND l.y1 "
            f"WHERE {roles.predicate(sub.roles[a], 'p')} "
            "AND ST_Distance(l.geometry, ST_Point(p.lon, p.lat)) * 110.5 * "
            f"cos(radians(p.lat)) <= {off_km}), "
            f"pairs AS (SELECT x.stratum, x.entity_id AS {a}, y.entity_id AS {b}, "
            f"x.line_id AS {c} "
            "FROM near x "
            "JOIN near y "
            "ON x.line_id = y.line_id AND x.entity_id <> y.entity_id AND x.r <= 20 "
            "AND y.r <= 20 "
            f"WHERE abs(x.pos - y.pos) >= 1.5 * {sep_km}) "
            "SELECT * "
            "FROM pairs "
            f"QUALIFY row_number() OVER (PARTITION BY {c} ORDER BY "
            f"{pool.order_key(f'{sub.id}|pair', a, b)}) = 1"
        )
        return cap_per_stratum(sql, pool, f"{sub.id}|cap", a)

    def gold_sql(self, sub: SubTemplate) -> str:
        c = sub.entity_roles[2]
        return f"""
            SELECT q.*, ST_AsText(l.geometry) AS line_wkt, {directed_line_sql("l")} AS directed
            FROM ({points_gold_sql(sub)}) q
            JOIN entities l ON l.entity_id = q.{c}"""

    def premise_sql(self, sub: SubTemplate) -> str:
        a, b, c = sub.entity_roles[:3]
        ends = (
            f"SELECT row_id, {a} AS id, {c} AS line FROM t UNION ALL SELECT row_id, {b}, {c} FROM t"
        )
        ep = nearest_point_sql("p.lon", "p.lat", "l.geometry")
        km = frame_to_km_sql("lon", "lat", "ep")[2]
        return (
            f"WITH d AS (SELECT e.row_id, p.lon, p.lat, {ep} AS ep "
            f"FROM ({ends}) e "
            "JOIN entities p ON p.entity_id = e.id "
            f"JOIN entities l ON l.entity_id = e.line) "
            "SELECT row_id, "
            f"bool_and({km} <= {float(sub.conventions['max_offset_m']) / 1000.0}) AS holds "
            "FROM d "
            "GROUP BY row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        a, b, c = sub.entity_roles[:3]
        conv = sub.conventions
        if not row["directed"]:
            return Outcome.discard(readings.READING_DEPENDENT)
        pos = positions_along(row["line_wkt"], lonlat(row, c), [lonlat(row, a), lonlat(row, b)])
        if pos is None:
            return Outcome.discard("not_single_linestring")
        (pa, da), (pb, db) = pos
        if max(da, db) > float(conv["max_offset_m"]):
            return Outcome.discard("too_far_from_line")
        if abs(pa - pb) < float(conv["min_separation_m"]):
            return Outcome.discard("positions_too_close")
        return Outcome(
            formats.predefined(
                "upstream" if pa < pb else "downstream", formats.OPTION_SETS["upstream_downstream"]
            )
        )
