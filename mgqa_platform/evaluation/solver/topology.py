"""Reference solvers for SFID C (topological relationships), from the gold triples alone.

Frame: the stated EPSG:4326 coordinates, **x = longitude, y = latitude**, taken as planar (edges are
straight lon/lat segments), as the catalog conventions say; predicates are evaluated with shapely
(GEOS) on the geometries parsed from the cited WKT, not with the generator's DuckDB ``ST_*`` calls.
Point separations (C03's 1 m rule) are WGS84 geodesics in metres (``pyproj.Geod``).

Predicates (DE-9IM, matrix for (A, B), rows I, B, E of A):

* intersects: not FF*FF****; disjoint: FF*FF****;
* overlaps: DE-9IM overlaps (nested or equal pairs are not asked);
* touches the boundary of B: A ∩ ∂B non-empty, ∂B every ring of B;
* adjacent: interiors disjoint (touches) and, for two areas, a shared boundary piece of positive
  length;
* encloses: B lies properly inside fill(A), A's polygons with their holes filled.

C04-C06 candidates are the cited evidence entities (:meth:`Facts.others`), filtered by category when
their ``rdf:type`` triples are cited; the members the generator did not cite cannot be recovered
from the record."""

from __future__ import annotations

from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from mgqa_platform.evaluation.facts import Entity
from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.distance import category_of, counted_members, label
from mgqa_platform.evaluation.solver.geo import cited_geometry, geodesic_m
from mgqa_platform.questions import formats

MIN_POINT_SEPARATION_M = (
    1.0  #: C03: intersection points closer than this (geodesic) make the count ambiguous
)


def _pair(p: Problem) -> tuple[BaseGeometry, BaseGeometry]:
    ra, rb = p.sub.entity_roles[:2]
    a, b = cited_geometry(p.facts.bound(ra)), cited_geometry(p.facts.bound(rb))
    if a.equals(b):
        raise Unsolvable("identical_geometries")
    return a, b


def fill(g: BaseGeometry) -> BaseGeometry:
    """The polygons bounded by the exterior rings of polygonal ``g`` (holes filled), unioned."""
    polys = [g] if isinstance(g, Polygon) else list(g.geoms) if isinstance(g, MultiPolygon) else []
    if not polys:
        raise Unsolvable("not_a_polygon", g.geom_type)
    return unary_union([Polygon(q.exterior) for q in polys])


def adjacent(a: BaseGeometry, b: BaseGeometry) -> bool:
    """Interiors disjoint and boundaries meet; two areas must share a boundary piece of positive
    length."""
    if not a.touches(b):
        return False
    if _dim(a) < 2 or _dim(b) < 2:
        return True
    return (
        sum(
            q.length
            for q in _flat(a.intersection(b))
            if q.geom_type in ("LineString", "LinearRing")
        )
        > 0
    )


def _dim(g: BaseGeometry) -> int:
    t = g.geom_type
    return 0 if t.endswith("Point") else 1 if t.endswith("LineString") else 2


def _flat(g: BaseGeometry) -> list[BaseGeometry]:
    """The single-part members of ``g`` (multi-geometries and collections flattened recursively)."""
    if hasattr(g, "geoms"):
        return [q for part in g.geoms for q in _flat(part)]
    return [g]


def _boolean(v: bool) -> dict:
    return formats.boolean(bool(v))


@solves("topology.intersects")
def intersects(p: Problem) -> dict:
    """C01/C02: do A and B share at least one point (closures included)?"""
    a, b = _pair(p)
    return _boolean(a.intersects(b))


@solves("topology.disjoint")
def disjoint(p: Problem) -> dict:
    """C10: do A and B have no point in common (touching is not disjoint)?"""
    a, b = _pair(p)
    return _boolean(a.disjoint(b))


@solves("topology.overlaps")
def overlaps(p: Problem) -> dict:
    """C07: DE-9IM overlap (interiors meet, each has a part outside the other); nested pairs are not
    asked."""
    a, b = _pair(p)
    if a.covers(b) or b.covers(a):
        raise Unsolvable("nested_geometries")
    return _boolean(a.overlaps(b))


@solves("topology.touches_boundary")
def touches_boundary(p: Problem) -> dict:
    """C08: does A meet the boundary (every ring) of B?"""
    a, b = _pair(p)
    return _boolean(a.intersects(b.boundary))


@solves("topology.adjacent")
def adjacent_pair(p: Problem) -> dict:
    """C09: are A and B adjacent (areas share a boundary segment without overlapping; lines
    touch)?"""
    a, b = _pair(p)
    return _boolean(adjacent(a, b))


@solves("topology.encloses")
def encloses(p: Problem) -> dict:
    """C11: does B lie properly inside fill(A) (A's polygons with holes filled, no boundary
    contact)?"""
    a, b = _pair(p)
    return _boolean(fill(a).contains_properly(b))


@solves("topology.crossing_points")
def crossing_points(p: Problem) -> dict:
    """C03: number of distinct points in which lines A and B intersect (crossings and shared
    endpoints)."""
    ra, rb = p.sub.entity_roles[:2]
    inter = cited_geometry(p.facts.bound(ra)).intersection(cited_geometry(p.facts.bound(rb)))
    if inter.is_empty:
        raise Unsolvable("no_intersection")
    parts = _flat(inter)
    if any(q.geom_type != "Point" for q in parts):
        raise Unsolvable("shared_segment")
    pts = sorted({(q.x, q.y) for q in parts})
    for i, (x0, y0) in enumerate(pts):
        for x1, y1 in pts[i + 1 :]:
            if geodesic_m((x0, y0), (x1, y1)) < MIN_POINT_SEPARATION_M:
                raise Unsolvable("near_coincident_points")
    return formats.count(len(pts))


def _hitting(p: Problem, target_role: str, exclude_roles: list[str]) -> list[Entity]:
    """Cited category members (the bound entities of ``exclude_roles`` excluded) intersecting
    ``target_role``."""
    target = cited_geometry(p.facts.bound(target_role))
    excluded = {p.bindings[r] for r in exclude_roles}
    return [
        e
        for e in counted_members(p, category_of(p))
        if e.entity_id not in excluded and cited_geometry(e).intersects(target)
    ]


@solves("topology.count_intersecting")
def count_intersecting(p: Problem) -> dict:
    """C04: how many category members (B excluded) intersect B? 0 allowed."""
    b = p.sub.entity_roles[0]
    return formats.count(len(_hitting(p, b, [b])))


@solves("topology.list_intersecting")
def list_intersecting(p: Problem) -> dict:
    """C05: which category members (B excluded) intersect B?"""
    b = p.sub.entity_roles[0]
    ms = _hitting(p, b, [b])
    return formats.entity_set([e.entity_id for e in ms], [label(e) for e in ms], allow_empty=True)


@solves("topology.list_intersecting_except")
def list_intersecting_except(p: Problem) -> dict:
    """C06: which category members (B, C excluded) intersect B and are disjoint from C?"""
    b, c = p.sub.entity_roles[:2]
    gc = cited_geometry(p.facts.bound(c))
    ms = [e for e in _hitting(p, b, [b, c]) if not cited_geometry(e).intersects(gc)]
    return formats.entity_set([e.entity_id for e in ms], [label(e) for e in ms], allow_empty=True)
