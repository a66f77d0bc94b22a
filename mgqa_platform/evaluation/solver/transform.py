"""Reference solvers for SFID M (reference change and conversion), from the gold triples alone.

Positions are representative points (:attr:`Entity.lonlat`, EPSG:4326 degrees, **lon first**). M01
angles are forward geodesic azimuths on WGS84 (``pyproj.Geod.inv``), degrees clockwise from true
north in [0, 360); distances are WGS84 geodesic km. M02 cells: H3 v4 (h3-py takes (lat, lng)), S2
tokens (s2sphere, (lat, lng)) and geohashes, the latter encoded here by plain bisection (base-32,
longitude bit first) rather than with pygeohash.
"""

from __future__ import annotations

from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.geo import azimuth_km
from mgqa_platform.evaluation.solver.grid import h3_at, s2_ancestor, s2_leaf, s2_token
from mgqa_platform.questions import formats

MIN_POLAR_KM = 0.01  #: the template's min_distance_km default
_BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz"


def geohash_encode(lon: float, lat: float, precision: int) -> str:
    """Geohash of (lon, lat) with ``precision`` characters: interleaved bisection bits, longitude
    first, each interval split at its midpoint with the upper half taken when the value is >= the
    midpoint."""
    lo = [-180.0, 180.0]
    la = [-90.0, 90.0]
    out, bits, ch, even = [], 0, 0, True
    while len(out) < precision:
        rng, v = (lo, lon) if even else (la, lat)
        mid = (rng[0] + rng[1]) / 2.0
        if v >= mid:
            ch = (ch << 1) | 1
            rng[0] = mid
        else:
            ch <<= 1
            rng[1] = mid
        even = not even
        bits += 1
        if bits == 5:
            out.append(_BASE32[ch])
            bits, ch = 0, 0
    return "".join(out)


@solves("transform.polar")
def polar(p: Problem) -> dict:
    """M01: azimuth and geodesic km of the first entity role as seen from the second (the
    origin)."""
    ra, rb = p.sub.entity_roles[:2]
    target, origin = p.facts.bound(ra).lonlat, p.facts.bound(rb).lonlat
    az, km = azimuth_km(origin, target)
    if km < float(p.conventions.get("min_distance_km", MIN_POLAR_KM)):
        raise Unsolvable("points_too_close", f"{km} km")
    return formats.polar(az, km)


@solves("transform.convert")
def convert(p: Problem) -> dict:
    """M02: the H3 / S2 / geohash cell holding the entity's representative point at the parameter
    value."""
    pt = p.facts.bound(p.sub.entity_roles[0]).lonlat
    grid, value = p.conventions["grid"], int(p.param(p.conventions["parameter"]))
    if grid == "geohash":
        return formats.geohash(geohash_encode(pt[0], pt[1], value))
    if grid == "s2":
        return formats.s2_cell(s2_token(s2_ancestor(s2_leaf(pt), value)))
    return formats.h3_cell(h3_at(pt, value))
