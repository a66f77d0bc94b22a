"""Executors for SFID D: network and path-based reasoning (what a route traverses or passes by).

Geometry conventions: EPSG:4326, x = longitude, y = latitude. Lengths are WGS84 geodesic lengths in
metres (DuckDB ``ST_Length_Spheroid``, which wants (lat, lon) axis order, so geometries go through
``ST_FlipCoordinates`` first; see :func:`geodesic_length_m_sql`). Short distances (pass-by buffers
of 100-200 m) are planar distances in a local tangent plane centred on the member (east/north metres
from the WGS84 radii of curvature at its latitude, :func:`to_local_m`); for the buffers used here
this agrees with a geodesic / azimuthal-equidistant distance to well under 0.1 %.

- traverse (polygon): the part of the route inside the polygon's interior, len(route ∩ P) -
  len(route ∩ ∂P), is at least ``min_inside_m``; running along the boundary does not count.
- traverse (line): the two lines intersect and share less than ``max_shared_m`` of collinear length.
- traverse, members without the extent to traverse (a point, or a line of a polygon category): never
  traversed; one within ``unmeasured_margin_m`` of the route (planar lower bound) makes the tuple
  ambiguous.
- pass by (point categories): distance from the member's geometry (a point, or the nearest point of
  a line or polygon) to the route is at most ``buffer_m``.
- pass by (polygon categories): distance from the polygon's boundary (a point or line member: its
  geometry) to the route is at most ``buffer_m`` and the route does not traverse it.

Values within a relative band of a threshold (:data:`BAND`) make the whole tuple ambiguous: it is
discarded."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import shapely
from shapely import wkt as shapely_wkt

from mgqa_platform.questions import formats, roles
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import Executor, Outcome, Pool, bound_join
from mgqa_platform.questions.executors.topology import (
    bbox_sql,
    boxes_meet_sql,
    category_members_sql,
)

# : relative band around a threshold (buffer, min inside length, max shared length): ambiguous
BAND = 0.05
#: D03 false premise: no member within this many buffers ("pass by" read widely)
PREMISE_REACH = 3.0
M_PER_DEG_MIN = (
    110_000.0  #: a little under the shortest degree of latitude: bbox margins err on the large side
)
M_PER_DEG_MAX = (
    111_700.0  #: a little over the longest degree of latitude: lower bounds on ground distance
)
MAX_SET = 15  #: largest answer set kept
MAX_COUNT = 100  #: largest count kept
MAX_BBOX_MEMBERS = (
    60  #: candidates: a (route, category) pair with more bbox members than this is not proposed
)
WGS84_A, WGS84_F = 6378137.0, 1 / 298.257223563


# -------------------------------------------------------------------------------------- SQL helpers
def geodesic_length_m_sql(g: str) -> str:
    """SQL: WGS84 geodesic length in metres of the line parts of ``g`` (lon/lat geometry); 0 for no
    lines."""
    return f"ST_Length_Spheroid(ST_FlipCoordinates(ST_CollectionExtract({g}, 2)))"


def inside_length_m_sql(route: str, poly: str) -> str:
    """SQL: geodesic metres of ``route`` inside the interior of polygon ``poly`` (the boundary part
    removed)."""
    inter = geodesic_length_m_sql(f"ST_Intersection({route}, {poly})")
    along = geodesic_length_m_sql(f"ST_Intersection({route}, ST_Boundary({poly}))")
    return f"greatest({inter} - {along}, 0.0)"


def shared_length_m_sql(a: str, b: str) -> str:
    """SQL: geodesic metres of collinear overlap between lines ``a`` and ``b``."""
    return geodesic_length_m_sql(f"ST_Intersection({a}, {b})")


def lower_bound_m_sql(a: str, b: str, lat: str) -> str:
    """SQL: a lower bound in metres on the ground distance between geometries ``a`` and ``b`` near
    latitude ``lat``: planar lon/lat distance times cos(latitude + 0.01 degree) times a little under
    1 degree of latitude (valid for separations of a few km)."""
    return (
        f"(ST_Distance({a}, {b}) * cos(radians(least(abs({lat}) + 0.01, 89.0))) * {M_PER_DEG_MIN})"
    )


def grown_bbox_sql(g: str, margin_m: float) -> str:
    """SQL select-list items ``x0, x1, y0, y1``: lon/lat bbox of ``g`` grown by at least
    ``margin_m`` metres (longitude margin scaled by the cosine of the bbox's most poleward latitude,
    capped near the poles)."""
    if not margin_m:
        return bbox_sql(g)
    dlat = margin_m / M_PER_DEG_MIN
    dlon = (
        f"({dlat} / greatest(cos(radians(least(greatest(abs(ST_YMin({g})), abs(ST_YMax({g}))) "
        f"+ {dlat}, 89.0))), 0.01))"
    )
    return (
        f"ST_XMin({g}) - {dlon} AS x0, ST_XMax({g}) + {dlon} AS x1, "
        f"ST_YMin({g}) - {dlat} AS y0, ST_YMax({g}) + {dlat} AS y1"
    )


def category_role(sub: SubTemplate) -> str:
    """The first category placeholder of ``sub``."""
    return next(r for r, t in sub.roles.items() if roles.is_category(t))


def anchor_category_candidates_sql(
    pool: Pool,
    sub: SubTemplate,
    anchor: str,
    cat: str,
    *,
    hit: str = "TRUE",
    margin_m: float = 0.0,
    min_hits: int = 1,
    max_hits: int = MAX_BBOX_MEMBERS,
    exclude: tuple[str, ...] = (),
    only: tuple[str, ...] = (),
    per_anchor: int = 1,
    zero_every: int = 0,
) -> str:
    """Candidates ``(stratum, <anchor>, <cat>)``: per stratum up to ``pool.per_stratum`` anchors
    (seeded) of the anchor's role type near a member of the category role; per anchor ``per_anchor``
    categories (seeded) among those with ``min_hits``..``max_hits`` members whose bbox meets the
    anchor's bbox (grown by ``margin_m``) and that pass ``hit`` (SQL over the geometries
    ``ae.geometry``, ``me.geometry``; ``TRUE`` skips the join). Categories need at least
    ``roles.MIN_CATEGORY_MEMBERS`` members in the KG; ``exclude`` lists categories never drawn, a
    non-empty ``only`` the categories allowed. With ``zero_every = n`` (and ``min_hits = 0``), one
    anchor in n asks for a category without hits (a near miss), the others for one with hits.

    "Near a member": for point categories (many members) the anchor's representative point shares a
    0.05-degree grid cell with a member (a hash semi-join); otherwise the bboxes meet. CTEs carry
    bboxes and ids; geometries are joined in only for ``hit``."""
    cat_type, a_type = sub.roles[cat], sub.roles[anchor]
    filt = f"AND p.category NOT IN ({', '.join(repr(c) for c in exclude)})" if exclude else ""
    filt += f" AND p.category IN ({', '.join(repr(c) for c in only)})" if only else ""
    cell = lambda x: f"(floor({x}.lat * 20) * 100000 + floor({x}.lon * 20))"  # noqa: E731
    want = (
        f"md5_number('{pool.seed}|{pool.kg}|{sub.id}|zero|' || ea) % {zero_every} <> 0"
        if zero_every
        else "hits > 0"
    )
    near_any = (
        f"SEMI JOIN (SELECT DISTINCT {cell('m')} AS c FROM m) mc ON mc.c = {cell('a0')}"
        if cat_type == "category_poi"
        else f"SEMI JOIN m ON {boxes_meet_sql('a0', 'm')} AND m.entity_id <> a0.entity_id"
    )
    judged = (
        "JOIN entities ae ON ae.entity_id = n.ea JOIN entities me ON me.entity_id = n.em"
        if hit != "TRUE"
        else ""
    )
    return (
        "WITH big AS (SELECT category "
        "FROM pool p "
        f"WHERE {roles.candidate_predicate(cat_type, 'p')} {filt} "
        "GROUP BY category "
        f"HAVING count(*) >= {roles.MIN_CATEGORY_MEMBERS}), "
        f"m AS (SELECT p.entity_id, p.category, p.lon, p.lat, {bbox_sql('p.geometry')} FROM pool p "
        f"WHERE {roles.predicate(cat_type, 'p')} AND p.category IN (SELECT category FROM big) "
        f"AND {roles.not_country_sql(sub.conventions, 'p')}), "
        "a0 AS (SELECT p.entity_id, p.stratum, p.lon, p.lat, "
        f"{grown_bbox_sql('p.geometry', margin_m)} "
        "FROM pool p "
        f"WHERE {roles.predicate(a_type, 'p')}), "
        f"a AS (SELECT * FROM a0 {near_any} "
        "QUALIFY row_number() OVER (PARTITION BY stratum ORDER BY "
        f"{pool.order_key(sub.id + '|a', 'entity_id')}) <= {pool.per_stratum}), "
        "near AS (SELECT a.stratum, a.entity_id AS ea, m.entity_id AS em, m.category "
        "FROM a "
        "JOIN m "
        f"ON {boxes_meet_sql('a', 'm')} AND m.entity_id <> a.entity_id), "
        "hits AS (SELECT n.stratum, n.ea, n.category, "
        f"count_if(coalesce({hit}, FALSE)) AS hits "
        f"FROM near n {judged} "
        f"GROUP BY ALL HAVING hits BETWEEN {min_hits} AND {max_hits}) "
        f"SELECT stratum, ea AS {anchor}, category AS {cat} FROM hits "
        f"QUALIFY row_number() OVER (PARTITION BY ea ORDER BY (hits > 0) = ({want}) DESC, "
        f"{pool.order_key(sub.id, 'ea', 'category')}) <= {per_anchor} AND (hits > 0) = ({want})"
    )


# ------------------------------------------------------------------------------------- local metres
def _radii(lat: float) -> tuple[float, float]:
    """(meridional, prime-vertical) WGS84 radii of curvature in metres at latitude ``lat``
    (degrees)."""
    e2 = WGS84_F * (2 - WGS84_F)
    s = math.sin(math.radians(lat))
    w = math.sqrt(1 - e2 * s * s)
    return WGS84_A * (1 - e2) / w**3, WGS84_A / w


def to_local_m(geom: shapely.Geometry, lon0: float, lat0: float) -> shapely.Geometry:
    """``geom`` (lon/lat degrees) in a local tangent plane centred on (lon0, lat0): x east, y north,
    metres."""
    m, n = _radii(lat0)
    kx, ky = math.radians(1) * n * math.cos(math.radians(lat0)), math.radians(1) * m
    return shapely.transform(geom, lambda c: (c - (lon0, lat0)) * (kx, ky))


def point_route_m(lon: float, lat: float, route: shapely.Geometry) -> float:
    """Distance in metres from the point (lon, lat) to the route (lon/lat geometry), in the point's
    tangent plane."""
    return float(shapely.Point(0, 0).distance(to_local_m(route, lon, lat)))


def geometry_route_m(geom: shapely.Geometry, route: shapely.Geometry) -> float:
    """Distance in metres between the nearest points of ``geom`` and ``route`` (lon/lat; 0 when they
    meet), in the tangent plane centred on ``geom``'s representative point."""
    c = geom.representative_point()
    return float(to_local_m(geom, c.x, c.y).distance(to_local_m(route, c.x, c.y)))


def boundary_route_m(poly: shapely.Geometry, route: shapely.Geometry) -> float:
    """Distance in metres between the boundary of ``poly`` and ``route`` (lon/lat), in the tangent
    plane centred on the polygon's representative point. A member mapped as a point or a line is
    measured from its whole geometry (it has no area to leave out)."""
    c = poly.representative_point()
    edge = poly.boundary if poly.geom_type in ("Polygon", "MultiPolygon") else poly
    return float(to_local_m(edge, c.x, c.y).distance(to_local_m(route, c.x, c.y)))


def near_threshold(value: float, threshold: float, band: float = BAND) -> bool:
    return abs(value - threshold) <= band * threshold


def _answer(sub: SubTemplate, members: list[Mapping[str, Any]]) -> Outcome:
    """Set or count gold (by the sub-template's answer format) over the selected members."""
    ids = tuple(m["id"] for m in members)
    if sub.answer_format == "count":
        if len(members) > MAX_COUNT:
            return Outcome.discard("count_too_large")
        return Outcome(formats.count(len(members)), evidence=ids)
    if not members:
        return Outcome.discard("empty_set")
    if len(members) > MAX_SET:
        return Outcome.discard("set_too_large")
    return Outcome(formats.entity_set(list(ids), [m["name"] for m in members]), evidence=ids)


def _hit_range(sub: SubTemplate, most: int) -> dict[str, int]:
    """Candidate hit bounds: counts may be 0 (one anchor in 5 asks for a near miss), sets need a
    hit."""
    if sub.answer_format == "count":
        return {"min_hits": 0, "max_hits": most, "zero_every": 5}
    return {"min_hits": 1, "max_hits": most}


def _route(sub: SubTemplate) -> str:
    return sub.entity_roles[0]


# ---------------------------------------------------------------------------------------- D01 / D02
class Traverse(Executor):
    """D01 (set) / D02 (count): which / how many members of a category the route entity traverses.

    Polygon categories: inside length (geodesic, boundary excluded) >= ``min_inside_m``. Line
    categories: the lines intersect with shared collinear length < ``max_shared_m`` (a polygon
    member: the route's length inside it). A member within :data:`BAND` of the threshold discards
    the tuple (``member_near_threshold``). Members without the extent to be traversed
    (:meth:`_unmeasured`) are never traversed; one of them within ``unmeasured_margin_m`` of the
    route discards the tuple (``unmeasured_member_on_route``): a reader could not tell whether the
    route crosses it. Evidence: the traversed members."""

    name = "path.traverse"
    evidence = ("geometry", "topology", "type")  # members' rdf:type states their category

    @staticmethod
    def _lines(sub: SubTemplate) -> bool:
        return sub.roles[category_role(sub)] == "category_line"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        exclude = roles.ROAD_CATEGORIES if self._lines(sub) else ()
        only = roles.REGION_CATEGORIES if sub.conventions.get("regions_only") else ()
        hit = self._holds_sql(sub, self._measure_sql(sub, "ae.geometry", "me.geometry"), 0.0)
        hit = f"ST_Intersects(ae.geometry, me.geometry) AND {hit}"
        return anchor_category_candidates_sql(
            pool,
            sub,
            _route(sub),
            category_role(sub),
            hit=hit,
            exclude=exclude,
            only=only,
            **_hit_range(sub, MAX_BBOX_MEMBERS),
            per_anchor=2,
        )

    def _measure_sql(
        self, sub: SubTemplate, route: str = "b.tg", member: str = "m.geometry"
    ) -> str:
        """SQL metres: shared collinear length (line categories) or inside length (polygon
        categories)."""
        if self._lines(sub):
            return shared_length_m_sql(route, member)
        return inside_length_m_sql(route, member)

    def _holds_sql(self, sub: SubTemplate, metres: str, band: float) -> str:
        """SQL: ``metres`` passes the traverse threshold, widened by the relative ``band``."""
        c = sub.conventions
        if self._lines(sub):
            return f"{metres} < {float(c['max_shared_m']) * (1 + band)}"
        return f"{metres} >= {float(c['min_inside_m']) * (1 - band)}"

    def _unmeasured(self, sub: SubTemplate) -> str:
        """SQL list of the member geometry kinds that cannot be traversed: points (line categories),
        points and lines (polygon categories)."""
        return "('point')" if self._lines(sub) else "('point', 'line')"

    def members_sql(self, sub: SubTemplate) -> str:
        b, cat = _route(sub), category_role(sub)
        margin = float(sub.conventions["unmeasured_margin_m"])
        dlat = margin / M_PER_DEG_MIN
        dlon = (
            f"({dlat} / greatest(cos(radians(least(greatest(abs(b.y0), abs(b.y1)) + {dlat}, "
            "89.0))), 0.01))"
        )
        near = f"{lower_bound_m_sql('e.geometry', 'b.tg', 'e.lat')} <= {margin}"
        return (
            f"{category_members_sql(sub, b, [b])}, "
            "x AS (SELECT m.row_id, m.entity_id, m.display_name, "
            f"{self._measure_sql(sub)} AS metres "
            "FROM m "
            "JOIN b ON b.row_id = m.row_id "
            f"WHERE m.geom_kind NOT IN {self._unmeasured(sub)}), "
            "u AS (SELECT b.row_id, count(*) AS n "
            "FROM b "
            f"JOIN entities e ON e.kg = b.kg AND e.category = b.{cat} "
            f"AND {roles.predicate(sub.roles[cat], 'e')} "
            f"AND {roles.not_country_sql(sub.conventions, 'e')} "
            f"AND e.geom_kind IN {self._unmeasured(sub)} "
            f"AND e.entity_id <> b.{b} AND ST_XMax(e.geometry) >= b.x0 - {dlon} "
            f"AND ST_XMin(e.geometry) <= b.x1 + {dlon} "
            f"AND ST_YMax(e.geometry) >= b.y0 - {dlat} "
            f"AND ST_YMin(e.geometry) <= b.y1 + {dlat} "
            f"WHERE {near} "
            "GROUP BY b.row_id)"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        return (
            f"{self.members_sql(sub)} "
            "SELECT t.row_id, coalesce(any_value(u.n), 0) AS unmeasured_near, "
            "list(struct_pack(id := x.entity_id, name := x.display_name, "
            "metres := x.metres) "
            "ORDER BY x.entity_id) FILTER (WHERE x.entity_id IS NOT NULL) AS members "
            "FROM t "
            "LEFT JOIN x ON x.row_id = t.row_id "
            "LEFT JOIN u ON u.row_id = t.row_id "
            "GROUP BY t.row_id"
        )

    def premise_sql(self, sub: SubTemplate) -> str:
        """``row_id, holds``: some member is traversed, counting members within the ambiguity band
        and members without extent near the route (so ``holds`` is false only when the premise is
        certainly false)."""
        cond = self._holds_sql(sub, "x.metres", BAND)
        return (
            f"{self.members_sql(sub)} SELECT t.row_id, coalesce(bool_or({cond}), FALSE) "
            "OR coalesce(any_value(u.n), 0) > 0 AS holds "
            "FROM t "
            "LEFT JOIN x ON x.row_id = t.row_id "
            "LEFT JOIN u ON u.row_id = t.row_id "
            "GROUP BY t.row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if row["unmeasured_near"]:
            return Outcome.discard("unmeasured_member_on_route")
        members = row["members"] or []
        c = sub.conventions
        limit = float(c["max_shared_m"] if self._lines(sub) else c["min_inside_m"])
        if any(near_threshold(float(m["metres"]), limit) for m in members):
            return Outcome.discard("member_near_threshold")
        if self._lines(sub):
            chosen = [m for m in members if m["metres"] < limit]
        else:
            chosen = [m for m in members if m["metres"] >= limit]
        return _answer(sub, chosen)


# ---------------------------------------------------------------------------------------- D03 / D04
class PassBy(Executor):
    """D03 (set) / D04 (count): which / how many members of a category the route passes by.

    Point categories: distance from the member's geometry to the route <= ``buffer_m`` (a point
    member by its point, a line or polygon member by its nearest point). Polygon categories:
    boundary-to-route distance <= ``buffer_m`` and inside length < ``min_inside_m`` (not traversed);
    a point or line member by its geometry. gold_sql returns the route WKT and the members in its
    bbox grown by the buffer (plus the band); ``finish`` measures in local tangent planes. A member
    within :data:`BAND` of a threshold discards the tuple. Evidence: the members passed by."""

    name = "path.pass_by"
    evidence = ("geometry", "type")  # members' rdf:type states their category

    @staticmethod
    def _points(sub: SubTemplate) -> bool:
        return sub.roles[category_role(sub)] == "category_poi"

    @staticmethod
    def _margin(sub: SubTemplate) -> float:
        return float(sub.conventions["buffer_m"]) * (1 + BAND)

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        hit = f"{lower_bound_m_sql('me.geometry', 'ae.geometry', 'me.lat')} <= {self._margin(sub)}"
        most = MAX_COUNT if sub.answer_format == "count" else MAX_SET
        return anchor_category_candidates_sql(
            pool,
            sub,
            _route(sub),
            category_role(sub),
            hit=hit,
            margin_m=self._margin(sub),
            **_hit_range(sub, most),
            per_anchor=2,
        )

    def members_sql(self, sub: SubTemplate, margin_m: float | None = None) -> str:
        """Members of the category in the route's bbox grown by ``margin_m`` (default: buffer plus
        band)."""
        b, cat = _route(sub), category_role(sub)
        margin_m = self._margin(sub) if margin_m is None else margin_m
        inside = inside_length_m_sql("r.geometry", "e.geometry") if not self._points(sub) else "0.0"
        geom = "CASE WHEN e.geom_kind = 'point' THEN NULL ELSE ST_AsText(e.geometry) END"
        box = (
            "CASE WHEN e.geom_kind = 'point' THEN e.lon BETWEEN r.x0 AND r.x1 "
            "AND e.lat BETWEEN r.y0 AND r.y1 "
            "ELSE ST_XMax(e.geometry) >= r.x0 AND ST_XMin(e.geometry) <= r.x1 "
            "AND ST_YMax(e.geometry) >= r.y0 "
            "AND ST_YMin(e.geometry) <= r.y1 END"
        )
        return (
            f"WITH r AS (SELECT t.row_id, t.kg, t.{cat} AS category, g.entity_id AS rid, "
            "g.geometry, "
            f"{grown_bbox_sql('g.geometry', margin_m)} {bound_join(g=b)}), "
            "x AS (SELECT r.row_id, e.entity_id, e.display_name, e.lon, e.lat, "
            f"{geom} AS wkt, {inside} AS inside_m "
            "FROM r "
            "JOIN entities e ON e.kg = r.kg AND e.category = r.category "
            f"AND {roles.predicate(sub.roles[cat], 'e')} "
            f"AND e.entity_id <> r.rid AND {box})"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        return (
            f"{self.members_sql(sub)} "
            "SELECT t.row_id, ST_AsText(any_value(r.geometry)) AS route_wkt, "
            "list(struct_pack(id := x.entity_id, name := x.display_name, lon := x.lon, "
            "lat := x.lat, wkt := x.wkt, "
            "inside_m := x.inside_m) "
            "ORDER BY x.entity_id) FILTER (WHERE x.entity_id IS NOT NULL) AS members "
            "FROM t "
            "JOIN r ON r.row_id = t.row_id "
            "LEFT JOIN x ON x.row_id = t.row_id "
            "GROUP BY t.row_id"
        )

    def premise_sql(self, sub: SubTemplate) -> str:
        """``row_id, holds``: some member may lie within :data:`PREMISE_REACH` times the buffer
        (:func:`lower_bound_m_sql`, metres), so ``holds`` is false only when no member can be within
        that reach: no wider reading of "pass by" than that names a member."""
        reach = float(sub.conventions["buffer_m"]) * PREMISE_REACH
        lower = lower_bound_m_sql("e.geometry", "r.geometry", "e.lat")
        members = self.members_sql(sub, reach).replace(
            "x AS (SELECT r.row_id, e.entity_id,",
            f"x AS (SELECT r.row_id, {lower} AS lower_m, e.entity_id,",
        )
        return (
            f"{members} SELECT t.row_id, coalesce(bool_or(x.lower_m <= {reach}), FALSE) AS holds "
            "FROM t LEFT JOIN x ON x.row_id = t.row_id GROUP BY t.row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        route = shapely_wkt.loads(row["route_wkt"])
        if route.is_empty or route.length == 0:
            return Outcome.discard("empty_route")
        buffer_m = float(sub.conventions["buffer_m"])
        min_inside = float(sub.conventions.get("min_inside_m", 0.0))
        chosen = []
        for m in row["members"] or []:
            if m["wkt"] is None:
                d = point_route_m(m["lon"], m["lat"], route)
            elif self._points(sub):
                d = geometry_route_m(shapely_wkt.loads(m["wkt"]), route)
            else:
                if near_threshold(float(m["inside_m"]), min_inside):
                    return Outcome.discard("member_near_threshold")
                if m["inside_m"] >= min_inside:
                    continue  # traversed, not passed by
                d = boundary_route_m(shapely_wkt.loads(m["wkt"]), route)
            if near_threshold(d, buffer_m):
                return Outcome.discard("member_near_buffer")
            if d <= buffer_m:
                chosen.append(m)
        return _answer(sub, chosen)
