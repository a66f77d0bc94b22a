"""Reference solvers for SFID J (direction and orientation), from the gold triples alone.

Positions are representative points (:attr:`Entity.lonlat`, EPSG:4326 degrees, **lon first**).
Azimuths are forward geodesic azimuths on WGS84 (``pyproj.Geod.inv``), degrees clockwise from true
north in [0, 360). A compass of n labels is n equal half-open sectors starting at
``sector_offset_deg``. Side of a route (J02) and linear referencing (J03) use a real pyproj
``+proj=aeqd`` (WGS84, metres) transformer centred on the route start / the line's representative
point (the generator emulates that projection with ``Geod.inv``); distances there are planar metres
in the projection.
"""

from __future__ import annotations

import math

from shapely.geometry import LineString, Point

from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.geo import aeqd, azimuth_km, geometry_of
from mgqa_platform.questions import formats

MIN_KM = 0.01  #: pairs closer than 10 m are never asked (unstable bearing)


def to_local(
    centre: tuple[float, float], pts: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """(x, y) metres of (lon, lat) points in the PROJ aeqd frame centred on ``centre``
    (:func:`geo.aeqd`)."""
    tr = aeqd(float(centre[0]), float(centre[1]))
    xs, ys = tr.transform([q[0] for q in pts], [q[1] for q in pts])
    return list(zip((float(x) for x in xs), (float(y) for y in ys)))


def compass(az: float, labels: list[str] | tuple[str, ...], offset: float) -> tuple[str, float]:
    """(label, degrees to the nearest sector edge) of azimuth ``az`` on a compass of len(labels)
    sectors, sector k covering [offset + k*w, offset + (k+1)*w) with w = 360/n."""
    n = len(labels)
    w = 360.0 / n
    rel = math.fmod(az - offset, 360.0)
    if rel < 0:
        rel += 360.0
    k = int(rel / w)
    if k >= n:  # rel rounded up to 360
        k = n - 1
    lo = k * w
    return labels[k], min(rel - lo, lo + w - rel)


def _labels(p: Problem) -> list[str]:
    c = p.conventions
    return list(c.get("sector_labels") or formats.OPTION_SETS[c["options"]])


def _pair(p: Problem) -> tuple[tuple[float, float], tuple[float, float]]:
    ra, rb = p.sub.entity_roles[:2]
    return p.facts.bound(ra).lonlat, p.facts.bound(rb).lonlat


@solves("direction.cardinal")
def cardinal(p: Problem) -> dict:
    """J01: is A in the named sector of the compass seen from B (azimuth B -> A)?"""
    ra, rb = p.sub.entity_roles[:2]
    ea, eb = p.facts.bound(ra), p.facts.bound(rb)
    if ea.geometry is not None and eb.geometry is not None and ea.geometry.intersects(eb.geometry):
        raise Unsolvable("entities_intersect")
    az, km = azimuth_km(eb.lonlat, ea.lonlat)
    if km < MIN_KM:
        raise Unsolvable("points_too_close")
    label, _edge = compass(az, _labels(p), float(p.conventions["sector_offset_deg"]))
    return formats.boolean(label == str(p.param("cardinal_direction")))


@solves("direction.bearing")
def bearing(p: Problem) -> dict:
    """J04: compass option (cardinal8 / cardinal4) of the azimuth A -> B."""
    a, b = _pair(p)
    az, km = azimuth_km(a, b)
    if km < MIN_KM:
        raise Unsolvable("points_too_close")
    options = formats.OPTION_SETS[p.conventions["options"]]
    label, _edge = compass(az, list(options), float(p.conventions["sector_offset_deg"]))
    return formats.predefined(label, options)


@solves("direction.side_of_route")
def side_of_route(p: Problem) -> dict:
    """J02: left or right of the straight route B -> C, by the sign of (C - B) x (A - B) in aeqd at
    B."""
    ra, rb, rc = p.sub.entity_roles[:3]
    a, b, c = (p.facts.bound(r).lonlat for r in (ra, rb, rc))
    (bx, by), (ax, ay), (cx, cy) = to_local(b, [b, a, c])
    ux, uy, vx, vy = cx - bx, cy - by, ax - bx, ay - by
    length = math.hypot(ux, uy)
    if length < MIN_KM * 1000.0:
        raise Unsolvable("route_too_short")
    cross = (ux * vy - uy * vx) / length
    t = (ux * vx + uy * vy) / length**2
    if not 0.0 <= t <= 1.0:
        raise Unsolvable("outside_route_span", f"t={t:.3f}")
    if cross == 0.0:
        raise Unsolvable("on_route")
    return formats.predefined("left" if cross > 0 else "right", formats.OPTION_SETS["left_right"])


@solves("direction.along_line")
def along_line(p: Problem) -> dict:
    """J03: upstream (smaller linear position along C's digitised direction) or downstream of B."""
    ra, rb, rc = p.sub.entity_roles[:3]
    a, b = p.facts.bound(ra).lonlat, p.facts.bound(rb).lonlat
    line_e = p.facts.bound(rc)
    line = geometry_of(line_e)
    if line.geom_type != "LineString":
        raise Unsolvable("not_single_linestring", line.geom_type)
    centre = line_e.lonlat
    local = LineString(to_local(centre, [(x, y) for x, y, *_ in line.coords]))
    (pa, pb) = (Point(q) for q in to_local(centre, [a, b]))
    sa, sb = local.project(pa), local.project(pb)
    if sa == sb:
        raise Unsolvable("same_position")
    return formats.predefined(
        "upstream" if sa < sb else "downstream", formats.OPTION_SETS["upstream_downstream"]
    )
