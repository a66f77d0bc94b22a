"""Reference solvers for SFID K (shape and geometry properties of polygons), from the gold triples
alone.

Geometries are shapely objects in EPSG:4326, x = longitude, y = latitude (degrees). Measures, as the
template's conventions define them:

* area: planar area in EPSG:6933 (WGS84 equal-area cylindrical; pyproj ``Transformer``,
  ``always_xy=True``), holes subtracted, km2;
* perimeter: WGS84 geodesic length (``pyproj.Geod.line_length``) of every ring, exterior and
  interior, of every part, km (the generator uses DuckDB ``ST_Perimeter_Spheroid``);
* compactness: Polsby-Popper 4*pi*A/P^2 with the two measures above;
* elongation: 1 - minor/major side of the minimum-area enclosing rectangle, found here by rotating
  calipers over the convex hull (not shapely's ``minimum_rotated_rectangle``), in a local azimuthal
  equidistant projection (WGS84, metres) centred on the representative point;
* irregularity at scale s km: Douglas-Peucker (shapely ``simplify(s*1000, preserve_topology=True)``)
  in that local projection; shape index P/(2 sqrt(pi A)) of the simplified polygon, perimeter ratio
  P(original)/P(simplified), planar metres.
"""

from __future__ import annotations

import math

import shapely

from mgqa_platform.evaluation.facts import Entity
from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.geo import (
    aeqd,
    area_km2,
    geodesic_length_m,
    geometry_of,
    is_polygonal,
    min_area_rectangle_sides,
    project,
)
from mgqa_platform.questions import formats


def perimeter_km(g: shapely.Geometry) -> float:
    """Sum of the WGS84 geodesic lengths of all rings of all parts, km."""
    return geodesic_length_m(g) / 1000.0


def elongation(e: Entity) -> float:
    lon, lat = e.lonlat
    local = project(e.geometry, aeqd(float(lon), float(lat)))
    sides = min_area_rectangle_sides(shapely.get_coordinates(local))
    if sides is None or min(sides) <= 0:
        raise Unsolvable("degenerate_shape", e.entity_id)
    return 1.0 - min(sides) / max(sides)


def _polygon(p: Problem, role: str) -> Entity:
    e = p.facts.bound(role)
    g = geometry_of(e)
    if not is_polygonal(g):
        raise Unsolvable("not_a_polygon", e.entity_id)
    if g.area <= 0:
        raise Unsolvable("zero_area", e.entity_id)
    return e


def measure(name: str, e: Entity) -> float:
    if name == "area":
        return area_km2(e.geometry)
    if name == "compactness":
        return 4.0 * math.pi * area_km2(e.geometry) / perimeter_km(e.geometry) ** 2
    if name == "elongation":
        return elongation(e)
    raise Unsolvable("unknown_measure", name)


@solves("shape.compare")
def compare(p: Problem) -> dict:
    """K01-K03: is A's area / compactness / elongation larger than B's?"""
    ra, rb = p.sub.entity_roles[:2]
    name = p.conventions["measure"]
    va, vb = measure(name, _polygon(p, ra)), measure(name, _polygon(p, rb))
    if va == vb:
        raise Unsolvable("tie")
    return formats.boolean(va > vb)


@solves("shape.perimeter")
def perimeter(p: Problem) -> dict:
    """K04: geodesic perimeter (km) of all rings of the polygon."""
    return formats.distance_km(perimeter_km(_polygon(p, p.sub.entity_roles[0]).geometry))


@solves("shape.irregularity")
def irregularity(p: Problem) -> dict:
    """K05: shape index or perimeter ratio of the polygon simplified at ``scale_value`` km (local
    aeqd)."""
    e = _polygon(p, p.sub.entity_roles[0])
    metric, scale = str(p.param("irregularity_metric")), float(p.param("scale_value"))
    lon, lat = e.lonlat
    local = project(e.geometry, aeqd(float(lon), float(lat)))
    simple = local.simplify(scale * 1000.0, preserve_topology=True)
    if simple.is_empty or simple.area <= 0 or simple.geom_type not in ("Polygon", "MultiPolygon"):
        raise Unsolvable("simplified_away")
    if simple.area / local.area < float(p.conventions.get("min_area_kept", 0.5)):
        raise Unsolvable("simplification_too_coarse")
    if metric == "shape index":
        return formats.ratio(simple.length / (2.0 * math.sqrt(math.pi * simple.area)))
    if metric == "perimeter ratio":
        return formats.ratio(local.length / simple.length)
    raise Unsolvable("unknown_metric", metric)
