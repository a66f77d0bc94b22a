"""Reference solvers for SFID N (absolute coordinates and extent), from the gold triples alone.

Geometries are shapely objects in EPSG:4326 with x = longitude, y = latitude (degrees). The centroid
of a single point is the point; of anything else it is the planar centroid in the equal-area
projection EPSG:6933 (pyproj ``Transformer``, ``always_xy=True``), i.e. area-weighted for polygons
and length-weighted (projected metres) for lines, transformed back to lon/lat. The bounding box is
the min/max of the vertices' lon/lat. Geometries spanning more than 180 degrees of longitude are
taken to wrap the antimeridian and are not answered.
"""

from __future__ import annotations

import shapely

from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.geo import centroid_6933, geometry_of
from mgqa_platform.questions import formats

MIN_BOX_SIDE_DEG = 1e-4  #: the template's min_side_deg


def _geometry(p: Problem) -> shapely.Geometry:
    g = geometry_of(p.facts.bound(p.sub.entity_roles[0]))
    if g.bounds[2] - g.bounds[0] > 180.0:
        raise Unsolvable("crosses_antimeridian")
    return g


def _vertex_extent(g: shapely.Geometry) -> tuple[float, float, float, float]:
    xy = shapely.get_coordinates(g)
    return (
        float(xy[:, 0].min()),
        float(xy[:, 1].min()),
        float(xy[:, 0].max()),
        float(xy[:, 1].max()),
    )


@solves("coords.centroid")
def centroid(p: Problem) -> dict:
    """N01: (lon, lat) of the point itself, or of the EPSG:6933 planar centroid of a line / polygon
    / multi."""
    g = _geometry(p)
    if g.geom_type == "Point":
        return formats.point(g.x, g.y)
    return formats.point(*centroid_6933(g))


@solves("coords.bbox")
def bbox(p: Problem) -> dict:
    """N02: min/max lon and lat of the geometry's vertices."""
    x0, y0, x1, y1 = _vertex_extent(_geometry(p))
    box = formats.bbox(x0, y0, x1, y1)
    if min(box["max_lon"] - box["min_lon"], box["max_lat"] - box["min_lat"]) < MIN_BOX_SIDE_DEG:
        raise Unsolvable("degenerate_bbox")
    return box
