"""Executors for SFID H: grid and spatial indexing (H3 v4 cells and S2 cells of representative
points).

Positions are the entities' representative points (``lon``/``lat`` columns, EPSG:4326 degrees).
h3-py and s2sphere take **(lat, lon)**: every call below swaps explicitly. S2 cell ids are unsigned
64-bit integers that often exceed 2**63, so they only ever leave Python as tokens (hex strings).
Candidate pairs are found in SQL through the ``entities.h3`` column (H3 cells at resolutions 3, 5,
7, 9); the exact grid arithmetic happens in ``finish`` with the h3 / s2sphere libraries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import h3
import s2sphere

from mgqa_platform.questions import formats, roles
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import Executor, Outcome, Pool

H3_COLUMN_RES = (3, 5, 7, 9)  #: resolutions of the cells in ``entities.h3``, in list order
EARTH_RADIUS_KM = 6371.0088  #: mean radius used only to size S2 cells for candidate search


# ---------------------------------------------------------------- grid arithmetic (pure)
def h3_cell(lon: float, lat: float, res: int) -> str:
    """H3 v4 cell (hex string) containing (lon, lat) at resolution ``res`` (0..15)."""
    return h3.latlng_to_cell(lat, lon, res)


def s2_id(lon: float, lat: float, level: int = 30) -> s2sphere.CellId:
    """S2 CellId containing (lon, lat) at ``level`` (0..30)."""
    return s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(lat, lon)).parent(level)


def s2_token(lon: float, lat: float, level: int) -> str:
    """Token (hex id without trailing zeros) of the S2 cell containing (lon, lat) at ``level``."""
    return s2_id(lon, lat, level).to_token()


def cell_of(system: str, lon: float, lat: float, resolution: int) -> dict:
    """The ``grid_cell`` gold of the cell of ``system`` ('h3' | 's2') containing (lon, lat)."""
    if system == "h3":
        return formats.h3_cell(h3_cell(lon, lat, resolution))
    return formats.s2_cell(s2_token(lon, lat, resolution))


def finest_common_h3(
    a: tuple[float, float], b: tuple[float, float], max_res: int
) -> tuple[str | None, str | None]:
    """(cell, None) for the finest resolution r <= ``max_res`` with ``latlng_to_cell(A, r) ==
    latlng_to_cell(B, r)``, or (None, reason). H3 nests only approximately, so the answer must also
    be what the index hierarchy says: the points share the cell at every coarser resolution, and the
    cell is the common ancestor (``cell_to_parent``) of both points' ``max_res`` cells; otherwise
    ``h3_hierarchy_ambiguous``. ``a`` and ``b`` are (lon, lat)."""
    same = [h3_cell(*a, r) == h3_cell(*b, r) for r in range(max_res + 1)]
    if not any(same):
        return None, "no_common_cell"
    r = max(i for i, s in enumerate(same) if s)
    cell = h3_cell(*a, r)
    leaves = (h3_cell(*a, max_res), h3_cell(*b, max_res))
    if not all(same[: r + 1]) or any(h3.cell_to_parent(c, r) != cell for c in leaves):
        return None, "h3_hierarchy_ambiguous"
    return cell, None


def finest_common_s2(
    a: tuple[float, float], b: tuple[float, float], max_level: int
) -> tuple[str | None, str | None]:
    """(token, None) of the finest S2 cell at level <= ``max_level`` containing both (lon, lat)
    points, or (None, 'no_common_cell') when they lie on different cube faces. S2 nests exactly."""
    ia, ib = s2_id(*a), s2_id(*b)
    for level in range(max_level, -1, -1):
        if ia.parent(level) == ib.parent(level):
            return ia.parent(level).to_token(), None
    return None, "no_common_cell"


def s2_avg_area_km2(level: int) -> float:
    """Average S2 cell area at ``level`` on a sphere of :data:`EARTH_RADIUS_KM` (6 faces, 4 children
    per level)."""
    return 4 * math.pi * EARTH_RADIUS_KM**2 / (6 * 4**level)


def search_column(area_km2: float) -> int:
    """1-based index into ``entities.h3`` of the coarsest stored resolution whose average cell is no
    larger than ``area_km2`` (the finest, 9, if none is): pairs sharing that cell are likely to
    share the target cell."""
    fits = [
        i for i, r in enumerate(H3_COLUMN_RES, 1) if h3.average_hexagon_area(r, "km^2") <= area_km2
    ]
    return fits[0] if fits else len(H3_COLUMN_RES)


def target_area_km2(system: str, resolution: int) -> float:
    return (
        h3.average_hexagon_area(resolution, "km^2")
        if system == "h3"
        else s2_avg_area_km2(resolution)
    )


# ---------------------------------------------------------------- SQL helpers
def _array(values: Sequence[Any]) -> str:
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def point_sample(sub: SubTemplate, pool: Pool) -> str:
    """Candidates for one-entity sub-templates: seeded pool sample of the anchor role, per
    stratum."""
    a = sub.entity_roles[0]
    return (
        f"SELECT s.stratum, s.entity_id AS {a} "
        f"FROM ({pool.sample(sub.roles[a], f'{sub.id}|{a}')}) AS s"
    )


def cell_pairs(
    sub: SubTemplate,
    pool: Pool,
    columns: Sequence[int],
    param: str | None = None,
    values: Sequence[int] = (),
) -> str:
    """Candidates for two-entity sub-templates: per stratum up to ``pool.per_stratum`` anchors
    (first entity role), each with one seeded partner (second entity role) at a different position
    whose stored H3 cell ``entities.h3[k]`` equals the anchor's. ``k`` is drawn per anchor (seeded)
    from ``columns``; with ``param``, ``values[i]`` is drawn together with ``columns[i]`` and
    returned as the parameter column. Anchors are only drawn among those whose drawn cell holds at
    least two distinct positions, and only in the strata the pool keeps (:meth:`Pool.kept`): an
    anchor's tuple depends on its stratum's window and its cell's rows alone, so the other strata's
    anchors would only give tuples that are dropped. Partners are read (and cells counted) only in
    the cells drawn for those anchors: whole cells, so every count and partner is the one over the
    pool."""
    a, b = sub.entity_roles[:2]
    n = len(columns)
    pick = f"1 + CAST(md5_number({pool.order_key(f'{sub.id}|k', 'p.entity_id')}) % {n} AS INTEGER)"
    par = f", {_array(values)}[x.i] AS {param}" if param else ""
    par_out = f", s.{param}" if param else ""
    cell_of = f"x.h3[{_array(columns)}[x.i]]"
    a_order = pool.order_key(f"{sub.id}|{a}", "y.entity_id")
    b_order = pool.order_key(f"{sub.id}|{b}", "s.entity_id", "bc.entity_id")
    return f"""
        WITH x AS (
            SELECT p.entity_id, p.stratum, p.lon, p.lat, p.h3, {pick} AS i FROM pool p
            WHERE {roles.predicate(sub.roles[a], "p")} AND {pool.kept("p")}),
        y AS (SELECT x.entity_id, x.stratum, x.lon, x.lat, {cell_of} AS cell{par} FROM x),
        bc AS (
            SELECT * FROM (
                SELECT p.entity_id, p.lon, p.lat, unnest(p.h3) AS cell FROM pool p
                WHERE {roles.predicate(sub.roles[b], "p")})
            WHERE cell IN (SELECT cell FROM y)),
        dense AS (SELECT cell FROM bc GROUP BY cell HAVING count(DISTINCT [lon, lat]) >= 2),
        s AS (
            SELECT y.*, row_number() OVER (PARTITION BY y.stratum ORDER BY {a_order}) AS rn
            FROM y SEMI JOIN dense USING (cell)
            QUALIFY rn <= {pool.per_stratum})
        SELECT s.stratum, s.entity_id AS {a}, bc.entity_id AS {b}{par_out}
        FROM s JOIN bc ON bc.cell = s.cell AND (bc.lon <> s.lon OR bc.lat <> s.lat)
        QUALIFY row_number() OVER (PARTITION BY s.entity_id ORDER BY {b_order}) = 1
    """


def points_gold_sql(sub: SubTemplate) -> str:
    """Gold SQL: the ``t`` row plus the representative (lon, lat) of every bound entity, as
    ``<role>_lon/_lat``."""
    cols, joins = [], []
    for i, r in enumerate(sub.entity_roles):
        cols.append(f"e{i}.lon AS {r}_lon, e{i}.lat AS {r}_lat")
        joins.append(f"JOIN entities e{i} ON e{i}.entity_id = t.{r}")
    return f"SELECT t.*, {', '.join(cols)} FROM t {' '.join(joins)}"


def lonlat(row: Mapping[str, Any], role: str) -> tuple[float, float]:
    return float(row[f"{role}_lon"]), float(row[f"{role}_lat"])


# ---------------------------------------------------------------- executors
class _Pairs(Executor):
    """Two points that share an H3 cell; subclasses say which cells and parameters."""

    def columns(self, sub: SubTemplate) -> tuple[list[int], str | None, list[int]]:
        """(search columns, parameter name, parameter values aligned with the columns)."""
        return list(range(1, len(H3_COLUMN_RES) + 1)), None, []

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return cell_pairs(sub, pool, *self.columns(sub))

    def gold_sql(self, sub: SubTemplate) -> str:
        return points_gold_sql(sub)


class FinestCommonCell(_Pairs):
    """H01: the finest cell of ``conventions.grid`` (h3 | s2), at resolution/level <=
    ``conventions.max_resolution``, that contains the representative points of both entities.
    Partners are drawn in a shared stored H3 cell of a seeded resolution (3, 5, 7 or 9), which
    spreads the answer over many resolutions."""

    name = "grid.finest_common"
    cell_local = True
    gold_bound_only = True

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        a, b = (lonlat(row, r) for r in sub.entity_roles[:2])
        if a == b:
            return Outcome.discard("coincident_points")
        grid, top = sub.conventions["grid"], int(sub.conventions["max_resolution"])
        cell, reason = (finest_common_h3 if grid == "h3" else finest_common_s2)(a, b, top)
        if cell is None:
            return Outcome.discard(reason)
        return Outcome(formats.h3_cell(cell) if grid == "h3" else formats.s2_cell(cell))


class SharedCellAt(_Pairs):
    """H02: the cell of ``conventions.grid`` at the parameter resolution/level containing both
    representative points. Pairs come from the stored H3 cell sized like the target
    (:func:`search_column`); pairs that do not share the target cell are discarded
    (``not_in_same_cell``)."""

    name = "grid.shared_cell"
    cell_local = True
    gold_bound_only = True

    def columns(self, sub: SubTemplate) -> tuple[list[int], str | None, list[int]]:
        grid, param = sub.conventions["grid"], sub.conventions["parameter"]
        values = [int(v) for v in sub.parameters[param]]
        return [search_column(target_area_km2(grid, v)) for v in values], param, values

    def premise_sql(self, sub: SubTemplate) -> str:
        return points_gold_sql(sub)

    def premise_holds(self, sub: SubTemplate, row: Mapping[str, Any]) -> bool:
        """Premise: both points fall in one cell at the parameter resolution/level."""
        a, b = (lonlat(row, r) for r in sub.entity_roles[:2])
        grid, res = sub.conventions["grid"], int(row[sub.conventions["parameter"]])
        return cell_of(grid, *a, res) == cell_of(grid, *b, res)

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        a, b = (lonlat(row, r) for r in sub.entity_roles[:2])
        if a == b:
            return Outcome.discard("coincident_points")
        grid, res = sub.conventions["grid"], int(row[sub.conventions["parameter"]])
        ca, cb = cell_of(grid, *a, res), cell_of(grid, *b, res)
        if ca != cb:
            return Outcome.discard("not_in_same_cell")
        return Outcome(ca)


class AtPoint(Executor):
    """Base for executors over one entity's representative point: seeded point sample, lon/lat gold
    query."""

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return point_sample(sub, pool)

    def gold_sql(self, sub: SubTemplate) -> str:
        return points_gold_sql(sub)


class CompositeCell(AtPoint):
    """H03: the H3 cell at parameter ``resolution`` and the S2 cell at parameter ``level``
    containing the entity's representative point."""

    name = "grid.composite"
    gold_bound_only = True
    stratum_local = True

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        lon, lat = lonlat(row, sub.entity_roles[0])
        return Outcome(
            formats.composite_cell(
                h3_cell(lon, lat, int(row["resolution"])), s2_token(lon, lat, int(row["level"]))
            )
        )
