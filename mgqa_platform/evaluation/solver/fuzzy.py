"""Reference solvers for SFID L (fuzzy / vague spatial notions), from the gold triples alone.

d(X, Y) is the WGS84 geodesic distance in km (``pyproj.Geod.inv``) between representative points
(:attr:`Entity.lonlat`, EPSG:4326 degrees, **lon first**); the generator uses DuckDB
``ST_Distance_Spheroid``. Each vague notion is the crisp rule of the sub-template's ``conventions``;
a value in the vague band (which the generator discards) is reported as :class:`Unsolvable`.

L05 for a point A: covered = B covers A's point (shapely, boundary included); otherwise the nearest
point of B's boundary is searched in a local azimuthal-equidistant projection (pyproj
``+proj=aeqd``, WGS84) centred on A, transformed back and measured as a WGS84 geodesic (the
generator searches in an equirectangular frame). For a polygon A, share = area(A n B) / area(A) with
both polygons projected to the equal-area EPSG:6933 before intersecting.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.ops import nearest_points

from mgqa_platform.evaluation.facts import Entity
from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.geo import (
    aeqd,
    geodesic_km,
    geometry_of,
    is_polygonal,
    project,
    to_6933,
)
from mgqa_platform.questions import formats

COINCIDENT_KM = 0.0005


def _c(p: Problem, key: str) -> float:
    return float(p.conventions[key])


def _pair_km(p: Problem, r1: str, r2: str) -> float:
    d = geodesic_km(p.facts.bound(r1).lonlat, p.facts.bound(r2).lonlat)
    if d <= COINCIDENT_KM:
        raise Unsolvable("coincident_points")
    return d


@solves("fuzzy.near")
def near(p: Problem) -> dict:
    """L01: yes when d <= near_km, no when d >= not_near_km."""
    d = _pair_km(p, *p.sub.entity_roles[:2])
    if d <= _c(p, "near_km"):
        return formats.boolean(True)
    if d >= _c(p, "not_near_km"):
        return formats.boolean(False)
    raise Unsolvable("vague_band", f"{d:.4f} km")


@solves("fuzzy.far")
def far(p: Problem) -> dict:
    """L02: yes when d >= far_km, no when d <= not_far_km."""
    d = _pair_km(p, *p.sub.entity_roles[:2])
    if d >= _c(p, "far_km"):
        return formats.boolean(True)
    if d <= _c(p, "not_far_km"):
        return formats.boolean(False)
    raise Unsolvable("vague_band", f"{d:.4f} km")


def membership(d: float, full: float, zero: float) -> float:
    """Piecewise-linear "near" membership: 1 up to ``full`` km, 0 from ``zero`` km."""
    return float(np.interp(d, [full, zero], [1.0, 0.0]))


@solves("fuzzy.likelier_near")
def likelier_near(p: Problem) -> dict:
    """L03: is mu(d(A, B)) - mu(d(A, C)) >= margin (yes) or <= -margin (no)?"""
    ra, rb, rc = p.sub.entity_roles[:3]
    db, dc = _pair_km(p, ra, rb), _pair_km(p, ra, rc)
    full, zero = _c(p, "near_full_km"), _c(p, "near_zero_km")
    diff = membership(db, full, zero) - membership(dc, full, zero)
    if abs(diff) < _c(p, "margin"):
        raise Unsolvable("too_close_to_call", f"diff {diff:.4f}")
    return formats.boolean(diff > 0)


def _norm(s: str) -> str:
    return s.replace("_", "").replace(" ", "").casefold()


@solves("fuzzy.roughly_closest")
def roughly_closest(p: Problem) -> dict:
    """L04: members of the category within search_radius_km of B with d <= max(d_min (1 + rel),
    d_min + abs).

    Candidates are the cited, unbound entities (the generator cites the answer set only)."""
    b_role = p.sub.entity_roles[0]
    cat_role = next(r for r in p.sub.roles if r not in p.sub.entity_roles)
    b = p.facts.bound(b_role)
    category = _norm(str(p.bindings.get(cat_role, "")))
    cands = [e for e in p.facts.others() if e.geometry is not None]
    typed = [e for e in cands if any(_norm(t) == category for t in e.types)]
    members = (
        typed or cands
    )  # a KG whose cited types do not spell the category: every cited candidate
    radius = _c(p, "search_radius_km")
    dists = [(geodesic_km(b.lonlat, e.lonlat), e) for e in members]
    dists = [(d, e) for d, e in dists if d <= radius]
    if not dists:
        raise Unsolvable("no_member_in_radius")
    d_min = min(d for d, _ in dists)
    cut = max(d_min * (1.0 + _c(p, "tie_tolerance_rel")), d_min + _c(p, "tie_tolerance_abs_km"))
    chosen = [e for d, e in dists if d <= cut]
    return formats.entity_set(
        [e.entity_id for e in chosen], [e.name or e.entity_id for e in chosen]
    )


def boundary_km(pt: tuple[float, float], region: shapely.Geometry) -> float:
    """Geodesic km from ``pt`` (lon, lat) to the nearest point of ``region``'s boundary, searched in
    aeqd at pt."""
    tr = aeqd(float(pt[0]), float(pt[1]))
    local = project(region.boundary, tr)
    q = nearest_points(Point(0.0, 0.0), local)[1]
    lon, lat = tr.transform(q.x, q.y, direction="INVERSE")
    return geodesic_km(pt, (float(lon), float(lat)))


def _region(e: Entity) -> shapely.Geometry:
    g = geometry_of(e)
    if not is_polygonal(g):
        raise Unsolvable("not_a_polygon", e.entity_id)
    return g


@solves("fuzzy.plausibly_within")
def plausibly_within(p: Problem) -> dict:
    """L05: ternary containment (true / 'plausibly' / false) of A in region B."""
    ra, rb = p.sub.entity_roles[:2]
    a, b = p.facts.bound(ra), p.facts.bound(rb)
    gb = _region(b)
    if "inside_share_yes" in p.conventions:
        ga = _region(a)
        if ga.equals(gb):
            raise Unsolvable("identical_geometries")
        pa, pb = to_6933(ga), to_6933(gb)  # intersected in EPSG:6933, not in lon/lat
        share = pa.intersection(pb).area / pa.area if pa.intersects(pb) else 0.0
        if share >= _c(p, "inside_share_yes"):
            return formats.boolean(True)
        if share <= _c(p, "inside_share_no"):
            return formats.boolean(False)
        return formats.boolean("plausibly")
    pt = a.lonlat
    if gb.covers(Point(pt)):
        return formats.boolean(True)
    d = boundary_km(pt, gb)
    return formats.boolean("plausibly" if d <= _c(p, "boundary_buffer_km") else False)
