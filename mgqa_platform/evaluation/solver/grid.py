"""Reference solvers for SFID H (grid and spatial indexing), from the gold triples alone.

Positions are the entities' representative points (:attr:`Entity.lonlat`, EPSG:4326 degrees, **lon
first**). h3-py v4 and s2sphere take **(lat, lng)**: every call here swaps explicitly. H3 cells are
v4 hex strings; S2 cells are answered as tokens. The S2 common ancestor is found with integer bit
arithmetic on the two leaf ids (the highest differing bit), not by walking ``CellId.parent`` as the
generator does; the H3 one is found by comparing cells level by level and cross-checked against the
``cell_to_parent`` hierarchy.
"""

from __future__ import annotations

import h3
import s2sphere

from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.questions import formats

S2_MAX_LEVEL = 30
_MASK64 = (1 << 64) - 1


def h3_at(lonlat: tuple[float, float], res: int) -> str:
    """H3 v4 cell of a (lon, lat) point at resolution ``res``."""
    lon, lat = lonlat
    return h3.latlng_to_cell(lat, lon, res)


def s2_leaf(lonlat: tuple[float, float]) -> int:
    """Unsigned 64-bit id of the level-30 S2 cell holding a (lon, lat) point."""
    lon, lat = lonlat
    return s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(lat, lon)).id()


def s2_ancestor(leaf: int, level: int) -> int:
    """Id of the level-``level`` ancestor of a leaf id: keep the top 3 + 2*level bits, set the
    marker bit."""
    lsb = 1 << (2 * (S2_MAX_LEVEL - level))
    return ((leaf & ~(2 * lsb - 1)) | lsb) & _MASK64


def s2_token(cell_id: int) -> str:
    """Token of an S2 cell id: 16 hex digits with the trailing zeros removed ('X' for id 0)."""
    return format(cell_id, "016x").rstrip("0") or "X"


def s2_common_level(a: int, b: int) -> int | None:
    """Deepest level at which two leaf ids share an ancestor, None on different cube faces.

    Level L keeps bits 63 .. 61-2L; with h the highest differing bit, they agree iff h < 61 - 2L."""
    x = a ^ b
    if x == 0:
        return S2_MAX_LEVEL
    h = x.bit_length() - 1
    if h >= 61:  # the face bits differ
        return None
    return min((60 - h) // 2, S2_MAX_LEVEL)


def _two_points(p: Problem) -> tuple[tuple[float, float], tuple[float, float]]:
    ra, rb = p.sub.entity_roles[:2]
    a, b = p.facts.bound(ra).lonlat, p.facts.bound(rb).lonlat
    if a == b:
        raise Unsolvable("coincident_points")
    return a, b


@solves("grid.finest_common")
def finest_common(p: Problem) -> dict:
    """H01: finest H3 (r <= max_resolution) or S2 (level <= max_resolution) cell holding both
    points."""
    a, b = _two_points(p)
    grid, top = p.conventions["grid"], int(p.conventions["max_resolution"])
    if grid == "s2":
        level = s2_common_level(s2_leaf(a), s2_leaf(b))
        if level is None:
            raise Unsolvable("no_common_cell", "different S2 cube faces")
        return formats.s2_cell(s2_token(s2_ancestor(s2_leaf(a), min(level, top))))
    shared = [r for r in range(top + 1) if h3_at(a, r) == h3_at(b, r)]
    if not shared:
        raise Unsolvable("no_common_cell", "different H3 base cells")
    r = shared[-1]
    cell = h3_at(a, r)
    # the convention: the answer must also be what the H3 hierarchy says (all coarser shared, common
    # parent)
    if shared != list(range(r + 1)) or any(
        h3.cell_to_parent(h3_at(x, top), r) != cell for x in (a, b)
    ):
        raise Unsolvable("h3_hierarchy_ambiguous", f"resolution {r}")
    return formats.h3_cell(cell)


@solves("grid.shared_cell")
def shared_cell(p: Problem) -> dict:
    """H02: the H3 / S2 cell at the parameter resolution / level holding both points."""
    a, b = _two_points(p)
    grid = p.conventions["grid"]
    res = int(p.param(p.conventions["parameter"]))
    if grid == "s2":
        ca, cb = (s2_token(s2_ancestor(s2_leaf(x), res)) for x in (a, b))
        if ca != cb:
            raise Unsolvable("not_in_same_cell", f"{ca} vs {cb}")
        return formats.s2_cell(ca)
    ca, cb = h3_at(a, res), h3_at(b, res)
    if ca != cb:
        raise Unsolvable("not_in_same_cell", f"{ca} vs {cb}")
    return formats.h3_cell(ca)


@solves("grid.composite")
def composite(p: Problem) -> dict:
    """H03: H3 cell at ``resolution`` and S2 cell token at ``level`` of the entity's representative
    point."""
    pt = p.facts.bound(p.sub.entity_roles[0]).lonlat
    res, level = int(p.param("resolution")), int(p.param("level"))
    return formats.composite_cell(h3_at(pt, res), s2_token(s2_ancestor(s2_leaf(pt), level)))
