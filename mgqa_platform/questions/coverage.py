"""Coverage gate: keep a question only when the area its answer depends on lies inside the KG's
coverage.

A KG snapshot holds its features completely only inside its coverage (the ``coverage`` table, filled
at KG build and conversion; :mod:`mgqa_platform.snapshots`). Outside it, a count, a nearest member
or a ranking silently stops at the edge of the extract. Each sub-template that depends on an area
states it in its catalog conventions as a *support rule*:

* ``disc(<role>, <radius>)``: the geodesic disc of ``<radius>`` km around the representative point
  of the entity bound to ``<role>``; ``<radius>`` is a parameter of the tuple, a numeric convention
  of the sub-template, or a number (B01, B02, F04, I02.2);
* ``nearest(<role>)``: the geodesic disc around ``<role>``'s point through the farthest evidence
  member (the members the answer depends on, e.g. the ranked neighbours of A08): every entity nearer
  than those lies in it (A08, L04);
* ``region(<role>)``: the whole geometry of the entity bound to ``<role>`` (A06, A07, E03, E05,
  F01-F03, I02.1, I02.3);
* ``corridor(<role>, <buffer>)``: every point within ``<buffer>`` metres of the whole geometry of
  the entity bound to ``<role>`` (a road or line; D01-D04); ``<buffer>`` is resolved like a disc
  radius but in metres (:func:`corridor`).

``premise_support`` (optional, same grammar) is the rule applied to a false premise (the premise
query has no evidence members: L04 asks for its whole search disc). The check is shapely ``covers``
in lon/lat degrees (EPSG:4326) against the union of the KG's coverage rows grown by
:data:`EDGE_TOLERANCE_DEG`, so a region that *is* the coverage polygon (Santa Barbara County in the
KnowWhereGraph crawl) is covered despite rounding. Discs are polygons of :data:`DISC_VERTICES`
geodesic points, pushed out so that the polygon contains the true disc. Regions crossing the
antimeridian are not handled (no sample KG has one). A KG without a coverage row is not checked
(hand-made executor worlds); the platform always writes one."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyproj
import shapely
import shapely.ops
from pyproj import Geod
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry

from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.warehouse import registered

REASON = "beyond_coverage"
DISC_VERTICES = 72
#: growth of the coverage polygon before the test, degrees (about 0.1 m): absorbs WKT rounding only
EDGE_TOLERANCE_DEG = 1e-6
GEOD = Geod(ellps="WGS84")
LONLAT = pyproj.CRS.from_epsg(4326)
#: shapely buffer arcs: segments per quarter circle, and the outward factor that keeps their chords
#: outside
CORRIDOR_QUAD_SEGS = 16
CORRIDOR_CHORD_FACTOR = 1.0 / math.cos(math.pi / (4 * CORRIDOR_QUAD_SEGS))
#: spacing, degrees, at which a line is densified before projection (its lon/lat segments stay
#: straight)
CORRIDOR_STEP_DEG = 0.005
#: WGS84 semi-minor axis, metres: the smallest sphere radius, for the projection's scale bound
WGS84_B_M = 6_356_752.3
_RULE_RE = re.compile(r"^(disc|nearest|region|corridor)\(\s*(\w+)\s*(?:,\s*([\w.]+)\s*)?\)$")
_SIZED = ("disc", "corridor")


class SupportRuleError(ValueError):
    """A catalog ``support`` convention does not follow the grammar of this module."""


@dataclass(frozen=True)
class SupportRule:
    """A parsed support rule: ``kind`` in disc | nearest | region | corridor, the role of the
    centre, region or line, and for a disc the radius in km, for a corridor the buffer in metres (a
    parameter or convention name, or a number as text)."""

    kind: str
    role: str
    radius: str | None = None


def parse_rule(text: str) -> SupportRule:
    """Parse ``disc(entity_B, value)``, ``nearest(entity_B)``, ``region(entity_A)`` or
    ``corridor(entity_B, buffer_m)``."""
    m = _RULE_RE.match(text.strip())
    if m is None or (m.group(1) in _SIZED) != (m.group(3) is not None):
        raise SupportRuleError(
            f"bad support rule {text!r}: expected disc(role, radius), nearest(role), region(role)"
            " or corridor(role, buffer)"
        )
    return SupportRule(m.group(1), m.group(2), m.group(3))


def rule_for(sub: SubTemplate, premise: bool = False) -> SupportRule | None:
    """The support rule of ``sub`` (its ``premise_support`` for a false premise, else ``support``);
    None when the sub-template's answer does not depend on an area."""
    text = sub.conventions.get("premise_support") if premise else None
    text = text or sub.conventions.get("support")
    return parse_rule(str(text)) if text else None


def geodesic_disc(lon: float, lat: float, radius_km: float, n: int = DISC_VERTICES) -> Polygon:
    """Polygon (lon/lat degrees, EPSG:4326) containing the WGS84 geodesic disc of ``radius_km``
    around (``lon``, ``lat``): ``n`` points at the forward geodesic of azimuths 0, 360/n, ...,
    pushed out by 1 / cos(pi / n) so that the chords between them stay outside the true circle."""
    reach_m = radius_km * 1000.0 / math.cos(math.pi / n)
    azimuths = [360.0 * i / n for i in range(n)]
    lons, lats, _ = GEOD.fwd([lon] * n, [lat] * n, azimuths, [reach_m] * n)
    return Polygon(zip(lons, lats, strict=True))


def corridor(geom: BaseGeometry, buffer_m: float) -> BaseGeometry:
    """Polygon (lon/lat degrees, EPSG:4326) containing every point within ``buffer_m`` metres (WGS84
    geodesic) of ``geom`` (lon/lat; its segments read as straight in lon/lat, as the D executors
    read them).

    ``geom`` is densified to :data:`CORRIDOR_STEP_DEG`, projected to an azimuthal equidistant CRS
    centred on its bounding-box centre, buffered there and projected back. The projection keeps
    distances along its radii and stretches them across by at most c / sin(c) at angular distance c
    from the centre, so the buffer distance is multiplied by that factor at the farthest reach (the
    farthest vertex plus the buffer, on the smallest WGS84 sphere) and by
    :data:`CORRIDOR_CHORD_FACTOR` for the chords of the buffer's arcs: the polygon errs on the large
    side, by under 0.2 % of the buffer for lines up to a few hundred km."""
    x0, y0, x1, y1 = geom.bounds
    lon0, lat0 = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    crs = pyproj.CRS.from_proj4(f"+proj=aeqd +lat_0={lat0} +lon_0={lon0} +ellps=WGS84 +units=m")
    to_local = pyproj.Transformer.from_crs(LONLAT, crs, always_xy=True).transform
    to_lonlat = pyproj.Transformer.from_crs(crs, LONLAT, always_xy=True).transform
    local = shapely.ops.transform(to_local, shapely.segmentize(geom, CORRIDOR_STEP_DEG))
    coords = shapely.get_coordinates(local)
    reach = (float(np.hypot(coords[:, 0], coords[:, 1]).max()) + buffer_m) / WGS84_B_M
    stretch = reach / math.sin(reach) if reach > 0 else 1.0
    grown = local.buffer(buffer_m * stretch * CORRIDOR_CHORD_FACTOR, quad_segs=CORRIDOR_QUAD_SEGS)
    return shapely.ops.transform(to_lonlat, grown)


def _size(rule: SupportRule, sub: SubTemplate, values: Mapping[str, Any]) -> float:
    """A disc's radius (km) or a corridor's buffer (m): a tuple value, a convention of ``sub`` or a
    number."""
    name = rule.radius or ""
    if name in values:
        return float(values[name])
    if name in sub.conventions:
        return float(sub.conventions[name])
    return float(name)


def support_geometry(
    rule: SupportRule,
    sub: SubTemplate,
    values: Mapping[str, Any],
    evidence: Sequence[str],
    points: Mapping[str, tuple[float, float]],
    shapes: Mapping[str, BaseGeometry],
) -> BaseGeometry:
    """The area (lon/lat, EPSG:4326) one tuple's answer depends on.

    ``values`` are the tuple's bindings and parameters; ``evidence`` the member ids the answer
    depends on; ``points`` maps entity ids to representative points (lon, lat); ``shapes`` maps the
    region and corridor ids to their geometries. A ``nearest`` rule with no evidence member is the
    centre point itself.
    """
    eid = values[rule.role]
    if rule.kind == "region":
        return shapes[eid]
    if rule.kind == "corridor":
        return corridor(shapes[eid], _size(rule, sub, values))
    lon, lat = points[eid]
    if rule.kind == "disc":
        return geodesic_disc(lon, lat, _size(rule, sub, values))
    members = [points[m] for m in evidence if m != eid and m in points]
    if not members:
        return Point(lon, lat)
    _, _, dist_m = GEOD.inv(
        [lon] * len(members), [lat] * len(members), [p[0] for p in members], [p[1] for p in members]
    )
    return geodesic_disc(lon, lat, max(dist_m) / 1000.0)


def kg_coverage(con: duckdb.DuckDBPyConnection, kg: str) -> BaseGeometry | None:
    """Union of ``kg``'s coverage rows (lon/lat), grown by :data:`EDGE_TOLERANCE_DEG` and prepared;
    None when the KG has no coverage row."""
    rows = con.execute(
        """
        SELECT ST_AsWKB(geometry)
        FROM coverage
        WHERE kg = ?
        ORDER BY part
        """,
        [kg],
    ).fetchall()
    if not rows:
        return None
    area = shapely.union_all([shapely.from_wkb(bytes(r[0])) for r in rows])
    area = area.buffer(EDGE_TOLERANCE_DEG)
    shapely.prepare(area)
    return area


def _entity_geometry(
    con: duckdb.DuckDBPyConnection, ids: set[str], region_ids: set[str]
) -> tuple[dict[str, tuple[float, float]], dict[str, BaseGeometry]]:
    """Representative points of ``ids`` and whole geometries of ``region_ids`` (lon/lat)."""
    t = pa.table(
        {
            "entity_id": pa.array(sorted(ids), pa.string()),
            "whole": pa.array([i in region_ids for i in sorted(ids)], pa.bool_()),
        }
    )
    with registered(con, _cov_ids=t):
        rows = con.execute(
            """
            SELECT e.entity_id, e.lon, e.lat, CASE WHEN i.whole THEN ST_AsWKB(e.geometry) END
            FROM entities e
            JOIN _cov_ids i ON i.entity_id = e.entity_id
            """
        ).fetchall()
    points = {r[0]: (float(r[1]), float(r[2])) for r in rows}
    shapes = {r[0]: shapely.from_wkb(bytes(r[3])) for r in rows if r[3] is not None}
    return points, shapes


def covered(
    con: duckdb.DuckDBPyConnection,
    area: BaseGeometry | None,
    sub: SubTemplate,
    tuples: Sequence[tuple[Mapping[str, Any], Sequence[str]]],
    premise: bool = False,
) -> list[bool]:
    """For each (values, evidence) tuple of ``sub``: does its support lie inside ``area``
    (:func:`kg_coverage`)? All True when there is no area or ``sub`` has no support rule."""
    rule = rule_for(sub, premise)
    if area is None or rule is None or not tuples:
        return [True] * len(tuples)
    anchors = {v[rule.role] for v, _ in tuples}
    members = {m for _, ev in tuples for m in ev} if rule.kind == "nearest" else set()
    points, shapes = _entity_geometry(
        con, anchors | members, anchors if rule.kind in ("region", "corridor") else set()
    )
    return [
        bool(area.covers(support_geometry(rule, sub, v, ev, points, shapes))) for v, ev in tuples
    ]


def keep_covered(
    con: duckdb.DuckDBPyConnection, area: BaseGeometry | None, sub: SubTemplate, execs: list
) -> tuple[list, Counter]:
    """The executions of ``sub`` whose support lies inside ``area``; the others counted
    ``(stratum, "beyond_coverage")``."""
    flags = covered(con, area, sub, [(e.values, e.outcome.evidence) for e in execs])
    dropped = Counter((e.stratum, REASON) for e, ok in zip(execs, flags, strict=True) if not ok)
    return [e for e, ok in zip(execs, flags, strict=True) if ok], dropped
