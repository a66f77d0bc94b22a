"""Reference solvers for SFID E (containment and administrative hierarchy), from the gold triples
alone.

Geometries are the cited WKT literals parsed into shapely in EPSG:4326 (x = longitude, y =
latitude). Areas are planar areas in the equal-area EPSG:6933 projection, obtained here by
projecting every vertex with pyproj (``always_xy``: lon/lat in, metres out) and measuring with
shapely (:mod:`.geo`) -- not DuckDB's ``ST_Transform``/``ST_Area``. Line lengths are WGS84 geodesics
summed leg by leg with ``pyproj.Geod``. Shares (contained / outside) are dimensionless. An entity is
"in" a region when its representative point (:attr:`Entity.lonlat`) intersects the region (boundary
counts as inside).

Administrative membership follows the cited part-of triples (``administrativePartOf`` /
``sfWithin``, subject -> object IRI) transitively through the cited entities; entity_A without such
a triple is decided by geometry.
"""

from __future__ import annotations

from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from mgqa_platform.evaluation.facts import Entity
from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.geo import (
    area_m2,
    geodesic_length_m,
    geometry_of,
    is_polygonal,
)
from mgqa_platform.questions import formats

PART_OF = ("administrativePartOf", "sfWithin")  #: predicate local names of the part-of edges
POINT_ROLES = ("poi", "place", "event_point", "category_poi")


# ----------------------------------------------------------------------------------------- measures
def share_outside(inner: BaseGeometry, outer: BaseGeometry) -> float | None:
    """Share of ``inner``'s area (polygons) or geodesic length (lines) lying outside ``outer``; None
    for a zero measure."""
    if is_polygonal(inner):
        whole = area_m2(inner)
        return area_m2(inner.difference(outer)) / whole if whole > 0 else None
    whole = geodesic_length_m(inner)
    return geodesic_length_m(inner.difference(outer)) / whole if whole > 0 else None


def triage(share_out: float | None, conventions: dict) -> bool:
    """E04/E05: contained when the outside share is at most ``inside_tolerance``, not contained from
    ``outside_min`` on; in between the record's gold cannot be reproduced (``Unsolvable``)."""
    if share_out is None:
        raise Unsolvable("zero_measure")
    tol, out_min = float(conventions["inside_tolerance"]), float(conventions["outside_min"])
    if share_out <= tol:
        return True
    if share_out >= out_min:
        return False
    raise Unsolvable(
        "containment_ambiguous", f"outside share {share_out:.6f} in ({tol}, {out_min})"
    )


def point_in(e: Entity, region: BaseGeometry) -> bool:
    """The entity's representative point intersects ``region`` (boundary inside)."""
    return bool(region.intersects(Point(*e.lonlat)))


# ---------------------------------------------------------------------------------------------- E01
def part_of_closure(p: Problem, start: Entity) -> set[str] | None:
    """IRIs reachable from ``start`` by cited part-of triples (transitively through the cited
    entities whose subject is an object reached); None when ``start`` has no part-of triple."""
    by_subject = {e.subject: e for e in p.facts.entities.values()}
    first = [o for k in PART_OF for o in start.attributes.get(k, [])]
    if not first:
        return None
    seen, todo = set(), list(first)
    while todo:
        iri = todo.pop()
        if iri in seen:
            continue
        seen.add(iri)
        nxt = by_subject.get(iri)
        if nxt is not None:
            todo += [o for k in PART_OF for o in nxt.attributes.get(k, [])]
    return seen


@solves("admin.membership")
def membership(p: Problem) -> dict:
    """E01: is entity_A administratively part of entity_B (part-of triples, else geometry)?"""
    ra, rb = p.sub.entity_roles[:2]
    a, b = p.facts.bound(ra), p.facts.bound(rb)
    closure = part_of_closure(p, a)
    if closure is not None:
        return formats.boolean(b.subject in closure)
    ga, gb = geometry_of(a), geometry_of(b)
    if p.sub.roles[ra] in POINT_ROLES:
        return formats.boolean(bool(gb.intersects(ga)))
    whole = area_m2(ga)
    if whole <= 0:
        raise Unsolvable("zero_measure")
    share = area_m2(ga.intersection(gb)) / whole
    need = float(p.conventions["contain_share"])
    return formats.boolean(bool(share >= need and area_m2(gb) > whole))


# ---------------------------------------------------------------------------------------------- E02
@solves("admin.components")
def components(p: Problem) -> dict:
    """E02.1/E02.2: cited members C inside B: a polygon with area(C n B) / area(C) >= contain_share
    (EPSG:6933), a point or line member that B covers (the catalog's ``member_kinds``)."""
    b = p.facts.bound(p.sub.entity_roles[0])
    gb = geometry_of(b)
    need = float(p.conventions["contain_share"])
    n = 0
    for c in p.facts.others():
        gc = geometry_of(c)
        if not is_polygonal(gc):
            n += bool(gb.covers(gc))
            continue
        whole = area_m2(gc)
        if whole > 0 and area_m2(gc.intersection(gb)) / whole >= need:
            n += 1
    return formats.count(n)


@solves("admin.parts")
def parts(p: Problem) -> dict:
    """E02.3/E02.4: number of polygons making up entity_B's (multi)polygon."""
    g = geometry_of(p.facts.bound(p.sub.entity_roles[0]))
    if not is_polygonal(g):
        raise Unsolvable("not_a_polygon", g.geom_type)
    return formats.count(len(getattr(g, "geoms", [g])))


# ---------------------------------------------------------------------------------------------- E03
@solves("admin.collection_count")
def collection_count(p: Problem) -> dict:
    """E03: cited entities of the collection whose representative point lies in entity_A.

    Only the cited (counted) entities can be checked; an uncited member of the collection is
    invisible."""
    region = geometry_of(p.facts.bound(p.sub.entity_roles[0]))
    return formats.count(
        sum(1 for e in p.facts.others() if e.geometry is not None and point_in(e, region))
    )


# ---------------------------------------------------------------------------------------- E04 / E05
@solves("admin.full_containment")
def full_containment(p: Problem) -> dict:
    """E04: does entity_A contain entity_B's area, by the outside share area(B - A) / area(B)?"""
    ra, rb = p.sub.entity_roles[:2]
    ga, gb = geometry_of(p.facts.bound(ra)), geometry_of(p.facts.bound(rb))
    return formats.boolean(triage(share_outside(gb, ga), p.conventions))


@solves("admin.ranked_containment")
def ranked_containment(p: Problem) -> dict:
    """E05: does entity_A contain the ranked member of category_B in entity_C (length or area
    outside share)?

    The generator cites only the ranked member, so the ranking is taken over the cited members (in
    entity_C) alone; the containment of the ranked one in entity_A is recomputed."""
    ra, rc = p.sub.entity_roles[:2]
    ga, gc = geometry_of(p.facts.bound(ra)), geometry_of(p.facts.bound(rc))
    members = [e for e in p.facts.others() if e.geometry is not None]
    members = [e for e in members if point_in(e, gc)] or members
    if not members:
        raise Unsolvable("not_in_triples", "no ranked member cited")

    def measure(e: Entity) -> float:
        return area_m2(e.geometry) if is_polygonal(e.geometry) else geodesic_length_m(e.geometry)

    top = str(p.param(next(iter(p.sub.parameters)))) in ("longest", "largest")
    best = sorted(members, key=lambda e: (-measure(e) if top else measure(e), e.entity_id))[0]
    return formats.boolean(triage(share_outside(best.geometry, ga), p.conventions))
