"""Executors for SFID M: spatial transformation and reference change.

M01 expresses one entity in a polar frame centred on another: the forward azimuth (degrees clockwise
from true north) and the WGS84 geodesic distance (km) from B's representative point to A's, computed
with ``pyproj.Geod(ellps="WGS84").inv(lonB, latB, lonA, latA)``. M02 converts a representative point
(lon/lat, EPSG:4326) to an H3 cell, an S2 cell token or a geohash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pygeohash
from pyproj import Geod

from mgqa_platform.questions import formats
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import Executor, Outcome, Pool
from mgqa_platform.questions.executors.grid import (
    AtPoint,
    cell_of,
    cell_pairs,
    lonlat,
    points_gold_sql,
)

GEOD = Geod(ellps="WGS84")
MIN_POLAR_KM = 0.01  #: below 10 m the bearing of rounded coordinates is unstable


def polar_from(origin: tuple[float, float], target: tuple[float, float]) -> tuple[float, float]:
    """(azimuth degrees clockwise from north in (-180, 180], geodesic km) from ``origin`` to
    ``target``, both (lon, lat)."""
    az, _, metres = GEOD.inv(origin[0], origin[1], target[0], target[1])
    return az, metres / 1000.0


class RelativePosition(Executor):
    """M01: polar coordinates of the first entity role in the frame centred on the second (the
    reference). Pairs share a stored H3 cell at resolution 3, 5 or 7 (seeded), i.e. lie roughly
    0.1-100 km apart."""

    name = "transform.polar"
    cell_local = True
    gold_bound_only = True

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return cell_pairs(sub, pool, [1, 2, 3])

    def gold_sql(self, sub: SubTemplate) -> str:
        return points_gold_sql(sub)

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        target, origin = (lonlat(row, r) for r in sub.entity_roles[:2])
        az, km = polar_from(origin, target)
        if km < MIN_POLAR_KM:
            return Outcome.discard("points_too_close")
        return Outcome(formats.polar(az, km))


class Conversion(AtPoint):
    """M02: the cell of ``conventions.grid`` (h3 | s2 | geohash) containing the entity's
    representative point, at the resolution / level / precision given by the parameter named in
    ``conventions.parameter``."""

    name = "transform.convert"
    gold_bound_only = True
    stratum_local = True

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        lon, lat = lonlat(row, sub.entity_roles[0])
        grid, value = sub.conventions["grid"], int(row[sub.conventions["parameter"]])
        if grid == "geohash":
            return Outcome(formats.geohash(pygeohash.encode(lat, lon, precision=value)))
        return Outcome(cell_of(grid, lon, lat, value))
