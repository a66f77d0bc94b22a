"""Reference solvers for SFID D (what a route traverses or passes by), from the gold triples alone.

Units and frames: coordinates are EPSG:4326 degrees, **x = longitude, y = latitude**; lengths and
distances are metres. Lengths are WGS84 geodesic lengths of the line parts
(``pyproj.Geod.geometry_length``) of shapely overlays computed on the lon/lat coordinates. Pass-by
distances (100-200 m buffers) are measured in an azimuthal-equidistant projection (pyproj, WGS84)
centred on the member's representative point (points) or on the polygon's representative point
(polygons) -- an independent stand-in for the generator's local tangent plane, which the conventions
state agrees with the geodesic to well under 0.1 %; members within 5 % of a threshold are never
asked.

* traverse (polygon): len(route ∩ P) - len(route ∩ ∂P) >= ``min_inside_m``;
* traverse (line): the lines intersect and share less than ``max_shared_m`` of collinear length;
* pass by (point categories): distance from the member's geometry (a point member's point, the
  nearest point of a line or polygon member) to the route <= ``buffer_m``;
* pass by (polygon categories): boundary-to-route distance <= ``buffer_m`` and not traversed; a
  point or line member by its whole geometry.

Candidates are the cited evidence entities (:meth:`Facts.others`); the generator cites the selected
members only, so a member it missed cannot be recovered from the record."""

from __future__ import annotations

import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from mgqa_platform.evaluation.facts import Entity
from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.distance import category_of, counted_members, label
from mgqa_platform.evaluation.solver.geo import GEOD, aeqd, cited_geometry, project
from mgqa_platform.geometry import representative_lonlat
from mgqa_platform.questions import formats


def line_length_m(g: BaseGeometry) -> float:
    """WGS84 geodesic length in metres of the line parts of ``g`` (points and areas contribute 0;
    collections flattened): unlike :func:`geo.geodesic_length_m`, polygon rings do not count."""
    parts = shapely.get_parts(
        shapely.get_parts(g)
    )  # collections, then multi-lines, into single parts
    return sum(
        GEOD.geometry_length(q) for q in parts if q.geom_type in ("LineString", "LinearRing")
    )


def inside_length_m(route: BaseGeometry, poly: BaseGeometry) -> float:
    """Metres of ``route`` in the interior of ``poly``: the part inside minus the part along the
    boundary."""
    return max(
        line_length_m(route.intersection(poly)) - line_length_m(route.intersection(poly.boundary)),
        0.0,
    )


def point_route_m(lonlat: tuple[float, float], route: BaseGeometry) -> float:
    """Metres from (lon, lat) to the nearest point of ``route`` (AEQD centred on the point)."""
    return float(Point(0.0, 0.0).distance(project(route, aeqd(*lonlat))))


def geometry_route_m(g: BaseGeometry, route: BaseGeometry, boundary: bool = False) -> float:
    """Metres between ``g`` (with ``boundary``: the boundary of a polygon ``g``) and ``route`` (AEQD
    centred on ``g``'s representative point); 0 when they meet."""
    t = aeqd(*representative_lonlat(g))
    edge = g.boundary if boundary and g.geom_type in ("Polygon", "MultiPolygon") else g
    return float(project(edge, t).distance(project(route, t)))


def _answer(p: Problem, chosen: list[Entity]) -> dict:
    if p.sub.answer_format == "count":
        return formats.count(len(chosen))
    return formats.entity_set(
        [e.entity_id for e in chosen], [label(e) for e in chosen], allow_empty=True
    )


def _candidates(p: Problem) -> tuple[BaseGeometry, list[Entity]]:
    rid = p.bindings[p.sub.entity_roles[0]]
    route = cited_geometry(p.facts.bound(p.sub.entity_roles[0]))
    return route, [e for e in counted_members(p, category_of(p)) if e.entity_id != rid]


def _category_kind(p: Problem) -> str:
    return p.sub.roles[next(r for r in p.sub.roles if r not in p.sub.entity_roles)]


@solves("path.traverse")
def traverse(p: Problem) -> dict:
    """D01 (set) / D02 (count): members the route traverses -- polygons with >= min_inside_m of the
    route in their interior; lines crossed (intersecting, < max_shared_m collinear)."""
    route, cands = _candidates(p)
    c = p.conventions
    if _category_kind(p) == "category_line":
        limit = float(c["max_shared_m"])
        chosen = [
            e
            for e in cands
            if route.intersects(cited_geometry(e))
            and line_length_m(route.intersection(cited_geometry(e))) < limit
        ]
    else:
        limit = float(c["min_inside_m"])
        chosen = [e for e in cands if inside_length_m(route, cited_geometry(e)) >= limit]
    return _answer(p, chosen)


@solves("path.pass_by")
def pass_by(p: Problem) -> dict:
    """D03 (set) / D04 (count): members within buffer_m of the route -- points by their distance to
    it, polygons by their boundary's distance, excluding polygons the route traverses."""
    route, cands = _candidates(p)
    if route.is_empty or route.length == 0:
        raise Unsolvable("empty_route")
    buffer_m = float(p.conventions["buffer_m"])
    min_inside = float(p.conventions.get("min_inside_m", 0.0))
    chosen = []
    for e in cands:
        g = cited_geometry(e)
        if g.geom_type in ("Point", "MultiPoint"):
            d = point_route_m(e.lonlat, route)
        elif _category_kind(p) == "category_poi":
            d = geometry_route_m(g, route)
        else:
            if inside_length_m(route, g) >= min_inside:
                continue  # traversed, not passed by
            d = geometry_route_m(g, route, boundary=True)
        if d <= buffer_m:
            chosen.append(e)
    return _answer(p, chosen)
