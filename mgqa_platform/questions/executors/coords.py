"""Executors for SFID N: absolute coordinates (centroid) and spatial extent (bounding box).

Geometries are EPSG:4326 with x = longitude, y = latitude. The centroid is the planar centroid
computed in the equal-area projection EPSG:6933 and projected back to lon/lat (DuckDB
``ST_Transform`` with ``always_xy := true``): area-weighted for polygons, length-weighted (in
projected units) for lines, the point itself for a single point. The bounding box is the lon/lat
min/max of the geometry's vertices. Geometries spanning more than 180 degrees of longitude are taken
to wrap the antimeridian and are discarded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mgqa_platform.questions import formats
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import LocalExecutor, Outcome, Pool, bound_join
from mgqa_platform.questions.executors.grid import point_sample

TO_6933 = "'EPSG:4326', 'EPSG:6933', always_xy := true"
FROM_6933 = "'EPSG:6933', 'EPSG:4326', always_xy := true"
# : ~11 m: thinner boxes (straight east-west or north-south streets) are slivers that IoU cannot
# score
MIN_BOX_SIDE_DEG = 1e-4


def centroid_sql(g: str) -> str:
    """SQL for the lon/lat centroid of geometry expression ``g`` (see the module docstring)."""
    return (
        f"CASE WHEN ST_GeometryType({g}) = 'POINT' THEN {g} "
        f"ELSE ST_Transform(ST_Centroid(ST_Transform({g}, {TO_6933})), {FROM_6933}) END"
    )


def extent_problem(row: Mapping[str, Any]) -> str | None:
    """Discard reason for a geometry whose extent cannot be stated as one lon/lat box, else None."""
    if not row["valid"]:
        return "invalid_geometry"
    if row["max_lon"] - row["min_lon"] > 180.0:
        return "crosses_antimeridian"
    return None


def extent_sql(sub: SubTemplate, extra: str = "") -> str:
    """Gold SQL: per row_id the bound entity's validity and lon/lat extent (degrees), plus ``extra``
    columns (SQL over the entity's geometry ``g``)."""
    return (
        f"WITH x AS (SELECT t.row_id, e.geometry AS g {bound_join(e=sub.entity_roles[0])}) "
        "SELECT row_id, ST_IsValid(g) AS valid, ST_XMin(g) AS min_lon, ST_YMin(g) AS min_lat, "
        f"ST_XMax(g) AS max_lon, ST_YMax(g) AS max_lat{extra} FROM x"
    )


class Centroid(LocalExecutor):
    """N01: (lon, lat) of the entity's centroid (EPSG:6933 planar centroid, see the module
    docstring)."""

    name = "coords.centroid"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return point_sample(sub, pool)

    def gold_sql(self, sub: SubTemplate) -> str:
        c = centroid_sql("g")
        return extent_sql(sub, f", ST_X({c}) AS c_lon, ST_Y({c}) AS c_lat")

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = extent_problem(row)
        if reason:
            return Outcome.discard(reason)
        return Outcome(formats.point(row["c_lon"], row["c_lat"]))


class BoundingBox(LocalExecutor):
    """N02: lon/lat bounding box of a line or polygon; slivers narrower than
    :data:`MIN_BOX_SIDE_DEG` are discarded."""

    name = "coords.bbox"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return point_sample(sub, pool)

    def gold_sql(self, sub: SubTemplate) -> str:
        return extent_sql(sub)

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = extent_problem(row)
        if reason:
            return Outcome.discard(reason)
        box = formats.bbox(row["min_lon"], row["min_lat"], row["max_lon"], row["max_lat"])
        if min(box["max_lon"] - box["min_lon"], box["max_lat"] - box["min_lat"]) < MIN_BOX_SIDE_DEG:
            return Outcome.discard("degenerate_bbox")
        return Outcome(box)
