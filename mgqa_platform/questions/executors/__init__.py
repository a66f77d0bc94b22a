"""Executors, one module per spatial function (SFID), and :data:`EXECUTORS`, their registry.

A distance (``distance``), B containment (``containment``), C topology (``topology``), D network and
path (``path``), E administrative hierarchy (``admin``), F comparison and ordering (``ordering``), G
centrality (``centrality``), H grid indexing (``grid``), I spatio-temporal events (``events``), J
direction (``direction``), K shape (``shape``), L uncertainty (``fuzzy``), M reference change
(``transform``), N coordinates (``coords``).

The registry is written out below: an executor is in it because its class is listed in
:data:`CLASSES`, never because its module was imported. A new executor class is added to that
list, under its SFID; the catalog names it by its ``name`` (``executor: distance.pair``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from mgqa_platform.questions.executor import Executor
from mgqa_platform.questions.executors import (
    admin,
    centrality,
    containment,
    coords,
    direction,
    distance,
    events,
    fuzzy,
    grid,
    ordering,
    path,
    shape,
    topology,
    transform,
)

__all__ = ["CLASSES", "EXECUTORS", "registry"]

#: Every executor class, by SFID (A to N) and in each module's order.
CLASSES: tuple[type[Executor], ...] = (
    # A distance
    distance.PairDistance,
    distance.PointGeometryDistance,
    distance.BoundaryDistance,
    distance.DirectionalDistance,
    distance.EventLocationDistance,
    distance.ComparativeDistance,
    distance.NeighbourCountryDistance,
    distance.AggregateDistance,
    distance.MinTotalDistance,
    distance.KthNearestDistance,
    # B containment
    containment.CountWithinRadius,
    containment.ListWithinRadius,
    containment.PopulationWithinRadius,
    # C topology
    topology.Intersects,
    topology.Overlaps,
    topology.TouchesBoundary,
    topology.Adjacent,
    topology.Disjoint,
    topology.Encloses,
    topology.CrossingPoints,
    topology.CountIntersecting,
    topology.ListIntersecting,
    topology.ListIntersectingExcept,
    # D network and path
    path.Traverse,
    path.PassBy,
    # E administrative hierarchy
    admin.Membership,
    admin.Components,
    admin.Parts,
    admin.CollectionCount,
    admin.FullContainment,
    admin.RankedContainment,
    # F comparison and ordering
    ordering.Extreme,
    ordering.Rank,
    ordering.RankPosition,
    ordering.Compound,
    # G centrality
    centrality.Centroid,
    centrality.LineMidpoint,
    centrality.Pole,
    centrality.ScaleShift,
    # H grid indexing
    grid.FinestCommonCell,
    grid.SharedCellAt,
    grid.CompositeCell,
    # I spatio-temporal events
    events.EventDistance,
    events.Affected,
    events.HitDate,
    events.AffectedArea,
    # J direction
    direction.Cardinal,
    direction.Bearing,
    direction.SideOfRoute,
    direction.AlongLine,
    # K shape
    shape.CompareShapes,
    shape.Perimeter,
    shape.Irregularity,
    # L uncertainty
    fuzzy.Near,
    fuzzy.Far,
    fuzzy.LikelierNear,
    fuzzy.RoughlyClosest,
    fuzzy.PlausiblyWithin,
    # M reference change
    transform.RelativePosition,
    transform.Conversion,
    # N coordinates
    coords.Centroid,
    coords.BoundingBox,
)


def registry(classes: Iterable[type[Executor]]) -> Mapping[str, Executor]:
    """A read-only mapping from each class's ``name`` to one instance of it, in the order given.

    Raises ValueError on an empty name, or on a name that two classes (or one class twice) share."""
    by_name: dict[str, Executor] = {}
    for cls in classes:
        if not cls.name or cls.name in by_name:
            name = f"executor name {cls.name!r} of {cls.__qualname__}"
            raise ValueError(f"{name} is empty or already taken")
        by_name[cls.name] = cls()
    return MappingProxyType(by_name)


#: Executor name (the catalog's ``executor`` field) -> the executor.
EXECUTORS: Mapping[str, Executor] = registry(CLASSES)
