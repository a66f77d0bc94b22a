"""Small pure geometry functions shared by the KG builders and KG conversion.

Conventions: geometries are shapely objects in EPSG:4326 with **x = longitude, y = latitude** (WKT
order). h3-py takes and returns **(lat, lng)**: every call below swaps explicitly.
"""

from __future__ import annotations

import re

import h3
import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

#: GeoSPARQL allows a CRS IRI before the WKT: ``<http://www.opengis.net/def/crs/OGC/1.3/CRS84>
#: POINT(...)``.
_CRS_PREFIX = re.compile(r"^\s*<([^>]*)>\s*")
#: CRS IRIs whose axis order is lon/lat degrees on WGS84 (or NAD83, within a metre or two of it).
LONLAT_CRS = {
    "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
    "http://www.opengis.net/def/crs/OGC/1.3/CRS83",
}
#: CRS IRIs in degrees whose axis order is lat/lon (the EPSG definitions): coordinates are swapped.
LATLON_CRS = {
    "http://www.opengis.net/def/crs/EPSG/0/4326",
    "http://www.opengis.net/def/crs/EPSG/0/4269",
}


class GeometryError(ValueError):
    """A WKT literal that cannot be turned into a valid EPSG:4326 geometry. ``reason`` is a short
    code."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def split_crs(wkt: str) -> tuple[str | None, str]:
    """``'<CRS84> POINT(1 2)'`` -> ``('...CRS84', 'POINT(1 2)')``; no prefix -> ``(None, wkt)``."""
    m = _CRS_PREFIX.match(wkt)
    if not m:
        return None, wkt.strip()
    return m.group(1), wkt[m.end() :].strip()


def parse_wkt(wkt: str) -> BaseGeometry:
    """Parse a (GeoSPARQL) WKT literal into a valid, non-empty lon/lat geometry.

    * a CRS IRI prefix is accepted when it denotes geographic degrees: CRS84/CRS83 (lon/lat) as is,
      EPSG:4326/4269 (lat/lon by their definition) with the axes swapped; any other CRS ->
      ``unsupported_crs``;
    * unparseable text -> ``invalid_wkt``; empty geometries -> ``empty_geometry``;
    * a NaN or infinite coordinate -> ``non_finite_coordinates`` (before GEOS sees it);
    * coordinates outside [-180, 180] x [-90, 90] -> ``out_of_range``;
    * invalid polygons are repaired with ``shapely.make_valid`` (keeping the polygonal part);
      unrepairable ones -> ``invalid_geometry``;
    * geometry collections and other kinds -> ``unsupported_geometry``.
    """
    crs, body = split_crs(wkt)
    if crs is not None and crs not in LONLAT_CRS and crs not in LATLON_CRS:
        raise GeometryError("unsupported_crs", crs)
    try:
        g = shapely.from_wkt(body)
    except Exception as e:  # shapely raises GEOSException / ValueError subclasses
        raise GeometryError("invalid_wkt", str(e).splitlines()[0][:200]) from e
    if g is None or g.is_empty:
        raise GeometryError("empty_geometry", body[:80])
    coords = shapely.get_coordinates(g)
    if not np.isfinite(coords).all():
        raise GeometryError("non_finite_coordinates", body[:80])
    if crs in LATLON_CRS:
        g = shapely.transform(g, lambda xy: xy[:, ::-1])
    minx, miny, maxx, maxy = g.bounds
    if minx < -180 or maxx > 180 or miny < -90 or maxy > 90:
        raise GeometryError("out_of_range", f"bounds {g.bounds} outside lon/lat range")
    if g.geom_type not in (
        "Point",
        "MultiPoint",
        "LineString",
        "MultiLineString",
        "Polygon",
        "MultiPolygon",
    ):
        raise GeometryError("unsupported_geometry", g.geom_type)
    if not g.is_valid:
        fixed = shapely.make_valid(g)
        if g.geom_type.endswith("Polygon"):
            polys = [
                p
                for p in getattr(fixed, "geoms", [fixed])
                if p.geom_type in ("Polygon", "MultiPolygon")
            ]
            fixed = shapely.union_all(polys) if polys else None
        if fixed is None or fixed.is_empty or not fixed.is_valid:
            raise GeometryError("invalid_geometry", shapely.is_valid_reason(g))
        g = fixed
    return g


def geom_kind(g: BaseGeometry) -> str:
    """'point' | 'line' | 'polygon' (multi-geometries map to their single kind)."""
    t = g.geom_type
    if t.endswith("Point"):
        return "point"
    if t.endswith("LineString"):
        return "line"
    return "polygon"


def representative_lonlat(g: BaseGeometry) -> tuple[float, float]:
    """A point guaranteed to lie on the geometry, as (lon, lat) in degrees.

    Points: the point itself (first point of a MultiPoint); lines: the interpolated midpoint along
    the line; polygons: ``point_on_surface`` (inside even for concave shapes).
    """
    kind = geom_kind(g)
    if kind == "point":
        p = g if g.geom_type == "Point" else g.geoms[0]
    elif kind == "line":
        line = g if g.geom_type == "LineString" else max(g.geoms, key=lambda x: x.length)
        p = line.interpolate(0.5, normalized=True)
    else:
        p = g.point_on_surface()
    return float(p.x), float(p.y)


def point_cell(lon: float, lat: float, res: int) -> str:
    """H3 cell (v4 string) containing the point (lon, lat) at resolution ``res``."""
    return h3.latlng_to_cell(lat, lon, res)


def _line_cells(coords, res: int) -> set[str]:
    cells: set[str] = set()
    prev = None
    for lon, lat in coords:
        c = h3.latlng_to_cell(lat, lon, res)
        if prev is not None and c != prev:
            try:
                cells.update(h3.grid_path_cells(prev, c))
            except (
                h3.H3BaseException
            ):  # across pentagons / icosahedron faces: fall back to the vertices
                pass
        cells.add(c)
        prev = c
    return cells


def h3_cover(g: BaseGeometry, res: int) -> set[str]:
    """H3 cells at ``res`` that the geometry touches.

    Points: the containing cell. Lines: the vertex cells joined by grid paths. Polygons: every cell
    whose area overlaps the polygon, plus the cells of its boundary.
    """
    kind = geom_kind(g)
    if kind == "point":
        pts = [g] if g.geom_type == "Point" else list(g.geoms)
        return {h3.latlng_to_cell(p.y, p.x, res) for p in pts}
    if kind == "line":
        lines = [g] if g.geom_type == "LineString" else list(g.geoms)
        out: set[str] = set()
        for ln in lines:
            out |= _line_cells(ln.coords, res)
        return out
    cells = set(h3.h3shape_to_cells_experimental(h3.geo_to_h3shape(g), res, contain="overlap"))
    polys = [g] if g.geom_type == "Polygon" else list(g.geoms)
    for p in polys:
        cells |= _line_cells(p.exterior.coords, res)
    return cells


def adaptive_h3_cover(g: BaseGeometry, res: int, max_cells: int) -> tuple[int, set[str]]:
    """:func:`h3_cover` at ``res``, coarsened one resolution at a time until at most ``max_cells``
    cells.

    Returns ``(resolution used, cells)``. Bounded work for country-sized polygons.
    """
    r = res
    # estimate from the bounding box before computing a huge cover
    while r > 0:
        minx, miny, maxx, maxy = g.bounds
        approx_km2 = abs(maxx - minx) * abs(maxy - miny) * 111.0 * 111.0
        if approx_km2 / h3.average_hexagon_area(r, unit="km^2") <= max_cells * 4:
            break
        r -= 1
    while True:
        cells = h3_cover(g, r)
        if len(cells) <= max_cells or r == 0:
            return r, cells
        r -= 1
