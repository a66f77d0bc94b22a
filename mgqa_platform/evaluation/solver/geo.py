"""Geodesy shared by the reference solvers: one WGS84 ellipsoid, the EPSG:6933 equal-area frame,
local azimuthal-equidistant frames and the measures built on them.

Conventions for every function here: points are ``(lon, lat)`` tuples in EPSG:4326 degrees
(**longitude first**, shapely / WKT order); shapely geometries are in EPSG:4326 with x = longitude,
y = latitude unless the name says otherwise (``..._6933``: EPSG:6933 metres); every pyproj
transformer is ``always_xy``. The functions are pure (the caches hold transformers only) and never
read the warehouse.

Helpers that look alike but compute different things stay in their modules on purpose, e.g. the
local *equirectangular* frame of :func:`distance.nearest_point_km` (a catalog convention) or the
line-parts-only length of :func:`path.line_length_m`.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import shapely
from pyproj import Geod, Transformer
from shapely.geometry.base import BaseGeometry

from mgqa_platform.evaluation.facts import Entity
from mgqa_platform.evaluation.solver import Unsolvable

GEOD = Geod(ellps="WGS84")
#: EPSG:4326 (lon, lat) degrees -> EPSG:6933 (x, y) metres (WGS84 equal-area cylindrical) and back
TO_6933 = Transformer.from_crs("EPSG:4326", "EPSG:6933", always_xy=True)
FROM_6933 = Transformer.from_crs("EPSG:6933", "EPSG:4326", always_xy=True)


# ---------------------------------------------------------------------------------------- geodesics
def geodesic_m(a: tuple[float, float], b: tuple[float, float]) -> float:
    """WGS84 geodesic distance in metres between two (lon, lat) points in degrees (``Geod.inv``)."""
    return GEOD.inv(a[0], a[1], b[0], b[1])[2]


def geodesic_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """WGS84 geodesic distance in km between two (lon, lat) points in degrees (``Geod.inv``)."""
    return geodesic_m(a, b) / 1000.0


def azimuth_km(origin: tuple[float, float], target: tuple[float, float]) -> tuple[float, float]:
    """(forward azimuth in degrees clockwise from true north in [0, 360), WGS84 geodesic km) of the
    geodesic from ``origin`` to ``target``, both (lon, lat) degrees."""
    az, _, m = GEOD.inv(origin[0], origin[1], target[0], target[1])
    return az % 360.0, m / 1000.0


def geodesic_length_m(g: BaseGeometry | None) -> float:
    """WGS84 geodesic length in metres (``Geod.line_length``, vertex to vertex) of every linear part
    of a lon/lat geometry, polygon rings (exterior and holes) included; 0 for None, empty and
    points.

    Not :func:`path.line_length_m`, which counts line parts only (areas contribute 0 there)."""
    if g is None or g.is_empty:
        return 0.0
    total = 0.0
    for part in getattr(g, "geoms", [g]):
        if part.geom_type == "Polygon":
            rings = [part.exterior, *part.interiors]
        elif part.geom_type in ("LineString", "LinearRing"):
            rings = [part]
        else:
            continue
        for r in rings:
            xy = np.asarray(r.coords)
            if len(xy) >= 2:
                total += float(GEOD.line_length(xy[:, 0], xy[:, 1]))
    return total


# -------------------------------------------------------------------------------------- projections
def project(g: BaseGeometry, tr: Transformer) -> BaseGeometry:
    """``g`` with every vertex passed through ``tr`` (x, y in; x, y out): edges stay straight in the
    target."""
    return shapely.transform(g, lambda xy: np.column_stack(tr.transform(xy[:, 0], xy[:, 1])))


def to_6933(g: BaseGeometry) -> BaseGeometry:
    """Lon/lat geometry projected vertex by vertex to EPSG:6933 metres."""
    return project(g, TO_6933)


def area_m2(g: BaseGeometry | None) -> float:
    """Planar area in m2 of a lon/lat geometry projected to EPSG:6933 (equal-area), holes
    subtracted; 0 for None, empty, points and lines."""
    if g is None or g.is_empty:
        return 0.0
    return float(to_6933(g).area)


def area_km2(g: BaseGeometry | None) -> float:
    """:func:`area_m2` in km2 (EPSG:6933)."""
    return area_m2(g) / 1e6


def centroid_6933(g: BaseGeometry) -> tuple[float, float]:
    """(lon, lat) degrees of the planar centroid of ``g`` in EPSG:6933 (area-weighted for polygons,
    length-weighted in projected metres for lines), projected back to EPSG:4326."""
    c = to_6933(g).centroid
    lon, lat = FROM_6933.transform(c.x, c.y)
    return float(lon), float(lat)


@lru_cache(maxsize=512)
def aeqd(lon: float, lat: float) -> Transformer:
    """EPSG:4326 (lon, lat) degrees -> PROJ azimuthal-equidistant (x east, y north) metres centred
    on (lon, lat), WGS84; ``direction="INVERSE"`` maps back."""
    lon, lat = float(lon), float(lat)
    return Transformer.from_crs(
        "EPSG:4326",
        f"+proj=aeqd +lat_0={lat!r} +lon_0={lon!r} +datum=WGS84 +units=m +no_defs",
        always_xy=True,
    )


def local_xy(lon0: float, lat0: float, lons, lats) -> tuple[np.ndarray, np.ndarray]:
    """Geodesic azimuthal-equidistant coordinates (metres) of points around the centre (lon0, lat0),
    all degrees: with d the WGS84 geodesic distance and az the forward azimuth from the centre, x =
    d sin az (east), y = d cos az (north). Vertices are exact; straight edges in this frame are not
    geodesics."""
    lons, lats = np.atleast_1d(np.asarray(lons, float)), np.atleast_1d(np.asarray(lats, float))
    az, _, d = GEOD.inv(np.full_like(lons, lon0), np.full_like(lats, lat0), lons, lats)
    az = np.radians(np.asarray(az))
    d = np.asarray(d)
    return d * np.sin(az), d * np.cos(az)


def from_local(lon0: float, lat0: float, x: float, y: float) -> tuple[float, float]:
    """Inverse of :func:`local_xy`: the (lon, lat) at azimuth atan2(x, y) and geodesic distance
    hypot(x, y) metres from (lon0, lat0)."""
    lon, lat, _ = GEOD.fwd(lon0, lat0, math.degrees(math.atan2(x, y)), math.hypot(x, y))
    return float(lon), float(lat)


def project_local(g: BaseGeometry, lon0: float, lat0: float) -> BaseGeometry:
    """``g`` in the :func:`local_xy` frame (metres) centred on (lon0, lat0)."""

    def local(xy: np.ndarray) -> np.ndarray:
        x, y = local_xy(lon0, lat0, xy[:, 0], xy[:, 1])
        return np.column_stack([x, y])

    return shapely.transform(g, local)


# ------------------------------------------------------------------------------------ planar shapes
def min_area_rectangle_sides(xy: np.ndarray) -> tuple[float, float] | None:
    """(short, long) sides of the minimum-area rectangle enclosing planar points ``xy`` (n x 2, any
    unit): one edge of the optimal rectangle lies on a convex hull edge, so every hull edge
    direction is tried (rotating calipers), as Python floats; None when the hull is degenerate."""
    hull = shapely.convex_hull(shapely.multipoints(xy))
    if hull.geom_type != "Polygon" or hull.area <= 0:
        return None
    pts = np.asarray(hull.exterior.coords)[:-1]
    best = None
    for i in range(len(pts)):
        dx, dy = pts[(i + 1) % len(pts)] - pts[i]
        norm = math.hypot(dx, dy)
        if norm == 0:
            continue
        ux, uy = dx / norm, dy / norm
        along = pts @ np.array([ux, uy])
        across = pts @ np.array([-uy, ux])
        w, h = along.max() - along.min(), across.max() - across.min()
        if best is None or w * h < best[0]:
            best = (w * h, min(w, h), max(w, h))
    return None if best is None else (float(best[1]), float(best[2]))


# ----------------------------------------------------------------------------------- cited geometry
def is_polygonal(g: BaseGeometry) -> bool:
    return g.geom_type in ("Polygon", "MultiPolygon")


def geometry_of(e: Entity) -> BaseGeometry:
    """The entity's cited geometry; ``Unsolvable("not_in_triples")`` when no WKT was cited."""
    if e.geometry is None:
        raise Unsolvable("not_in_triples", f"{e.entity_id}: no geometry cited")
    return e.geometry


def cited_geometry(e: Entity) -> BaseGeometry:
    """The entity's cited geometry; ``LookupError`` (a record error, as :attr:`Entity.lonlat`
    raises) when no WKT was cited."""
    if e.geometry is None:
        raise LookupError(f"{e.entity_id}: no geometry in the gold triples")
    return e.geometry
