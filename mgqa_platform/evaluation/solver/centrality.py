"""Reference solvers for SFID G (centrality and medial geometry), from the gold triples alone.

Input geometries are EPSG:4326 lon/lat (x = longitude); answers are WGS84 points (lon, lat degrees)
or a geodesic distance in km. Recomputed independently of the generator:

* centroid: shapely area centroid of the polygon projected vertex by vertex into EPSG:6933 (pyproj),
  and projected back;
* line midpoint: geodesic legs of the digitised line (``pyproj.Geod.inv`` on arrays), cumulative
  length, then ``Geod.fwd`` from the vertex that starts the leg holding half the length;
* pole of inaccessibility: GEOS maximum inscribed circle (``shapely.maximum_inscribed_circle``) of
  the largest part in an azimuthal-equidistant frame around the representative point, built from
  geodesic azimuth/distance (x = d sin az, y = d cos az, metres) and mapped back with ``Geod.fwd``;
* scale shift: the grid cell centres ((i + 0.5) size, (j + 0.5) size) in EPSG:6933 metres tested one
  by one with ``shapely.intersects_xy`` (boundary inside), their mean projected back to WGS84, and
  the geodesic km between the two raster centroids.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.geo import (
    FROM_6933,
    GEOD,
    centroid_6933,
    from_local,
    geodesic_km,
    geodesic_m,
    geometry_of,
    is_polygonal,
    project_local,
    to_6933,
)
from mgqa_platform.questions import formats

ROW_CHUNK = 2_000_000  #: grid centres tested per batch


def _polygon(p: Problem) -> BaseGeometry:
    g = geometry_of(p.facts.bound(p.sub.entity_roles[0]))
    if not is_polygonal(g):
        raise Unsolvable("not_a_polygon", g.geom_type)
    return g


# ---------------------------------------------------------------------------------------- G01 / G02
@solves("centrality.centroid")
def centroid(p: Problem) -> dict:
    """G01.1 / G01.4 / G02: EPSG:6933 area centroid of entity_A, as a WGS84 point."""
    return formats.point(*centroid_6933(_polygon(p)))


def walk_vertices(g: BaseGeometry, max_gap_m: float) -> list[tuple[float, float]]:
    """The vertices walked from the first one: parts appended in order, a zero gap merged, a gap
    above ``max_gap_m`` (geodesic metres) unsolvable (the generator discards such lines)."""
    parts = [np.asarray(x.coords)[:, :2] for x in getattr(g, "geoms", [g]) if not x.is_empty]
    if not parts:
        raise Unsolvable("empty_geometry")
    out = [tuple(map(float, c)) for c in parts[0]]
    for part in parts[1:]:
        gap = geodesic_m(out[-1], (float(part[0][0]), float(part[0][1])))
        if gap > max_gap_m:
            raise Unsolvable("disconnected_parts", f"gap {gap:.1f} m")
        out += [tuple(map(float, c)) for c in (part[1:] if gap == 0 else part)]
    return out


@solves("centrality.line_midpoint")
def line_midpoint(p: Problem) -> dict:
    """G01.2: the point at half the geodesic length of line entity_A, walking from its first
    vertex."""
    g = geometry_of(p.facts.bound(p.sub.entity_roles[0]))
    xy = np.asarray(walk_vertices(g, float(p.conventions["max_gap_m"])))
    if len(xy) < 2:
        raise Unsolvable("zero_length")
    az, _, d = GEOD.inv(xy[:-1, 0], xy[:-1, 1], xy[1:, 0], xy[1:, 1])
    d = np.asarray(d, float)
    cum = np.cumsum(d)
    total = float(cum[-1])
    if total <= 0:
        raise Unsolvable("zero_length")
    half = total / 2.0
    i = int(np.searchsorted(cum, half, side="left"))
    i = min(i, len(d) - 1)
    before = float(cum[i] - d[i])
    lon, lat, _ = GEOD.fwd(xy[i, 0], xy[i, 1], float(np.asarray(az)[i]), half - before)
    return formats.point(float(lon), float(lat))


@solves("centrality.pole")
def pole(p: Problem) -> dict:
    """G01.3: pole of inaccessibility (maximum inscribed circle centre) of entity_A's largest
    part."""
    e = p.facts.bound(p.sub.entity_roles[0])
    g = _polygon(p)
    lon0, lat0 = e.lonlat
    local = project_local(g, lon0, lat0)
    part = max(getattr(local, "geoms", [local]), key=lambda q: q.area)
    tol = min(float(p.conventions["precision_m"]), max(math.sqrt(part.area) / 100.0, 0.01))
    centre = shapely.get_coordinates(shapely.maximum_inscribed_circle(part, tolerance=tol))[0]
    return formats.point(*from_local(lon0, lat0, float(centre[0]), float(centre[1])))


# ---------------------------------------------------------------------------------------------- G03
def raster_mean(g6933: BaseGeometry, size_m: float) -> tuple[tuple[float, float] | None, int]:
    """Mean (x, y) of the grid cell centres inside ``g6933`` (EPSG:6933 metres) and their number,
    for cells of side ``size_m`` with edges at integer multiples of it."""
    x0, y0, x1, y1 = g6933.bounds
    ii = np.arange(math.ceil(x0 / size_m - 0.5), math.floor(x1 / size_m - 0.5) + 1)
    jj = np.arange(math.ceil(y0 / size_m - 0.5), math.floor(y1 / size_m - 0.5) + 1)
    if not len(ii) or not len(jj):
        return None, 0
    xs, ys = (ii + 0.5) * size_m, (jj + 0.5) * size_m
    shapely.prepare(g6933)
    n, sx, sy = 0, 0.0, 0.0
    rows = max(1, ROW_CHUNK // len(xs))
    for k in range(0, len(ys), rows):
        gx, gy = np.meshgrid(xs, ys[k : k + rows])
        hit = shapely.intersects_xy(g6933, gx.ravel(), gy.ravel())
        n += int(hit.sum())
        sx += float(gx.ravel()[hit].sum())
        sy += float(gy.ravel()[hit].sum())
    return ((sx / n, sy / n), n) if n else (None, 0)


@solves("centrality.scale_shift")
def scale_shift(p: Problem) -> dict:
    """G03: geodesic km between the raster centroids of entity_A at cell sizes value_1 and value_2
    km."""
    g = to_6933(_polygon(p))
    pts = []
    for key in ("value_1", "value_2"):
        c, n = raster_mean(g, float(p.param(key)) * 1000.0)
        if c is None or n < int(p.conventions.get("min_cells", 1)):
            raise Unsolvable("too_few_cells", f"{key}: {n} cells")
        pts.append(FROM_6933.transform(*c))
    return formats.distance_km(geodesic_km(pts[0], pts[1]))
