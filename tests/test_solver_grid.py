"""Reference solvers for SFID H on hand-made records.

Expected cells come from the other direction: a cell is chosen first and the points are put at (or
next to) its centre, so the answer is that cell; the finest common S2 cell is checked against an
explicit ``CellId.parent`` walk, the finest common H3 cell against the ``cell_to_parent`` chain of
resolution-12 cells.
"""

from __future__ import annotations

import h3
import s2sphere

from mgqa_platform.evaluation.solver import solve
from tests.solver_records import geoms_record, solved


def s2_centre(token: str) -> tuple[float, float]:
    ll = s2sphere.CellId.from_token(token).to_lat_lng()
    return ll.lng().degrees, ll.lat().degrees  # (lon, lat)


def h3_centre(cell: str) -> tuple[float, float]:
    lat, lon = h3.cell_to_latlng(cell)
    return lon, lat


def cell_pair(sub: str, ref: str, a: tuple, b: tuple, params: dict | None = None):
    """A grid-cell record of two points, entity A at ``a`` and B at ``b`` (lon, lat)."""
    return geoms_record(sub, "grid_cell", ref, {"entity_A": a, "entity_B": b}, params)


def test_shared_cell_h3_is_the_cell_the_points_were_put_in():
    cell = h3.latlng_to_cell(60.17, 24.94, 5)  # Helsinki, resolution 5 (~9 km edge)
    lon, lat = h3_centre(cell)
    r = cell_pair(
        "H02.1", "grid.shared_cell", (lon, lat), (lon + 0.002, lat - 0.001), {"resolution": 5}
    )
    s = solve(r)
    assert s.answer == {"system": "h3", "cell": cell, "resolution": 5}, s


def test_shared_cell_lonlat_order_matters():
    # a point whose swapped (lat, lon) would be another valid place: the answer must be the Helsinki
    # cell
    cell = h3.latlng_to_cell(60.17, 24.94, 6)
    lon, lat = h3_centre(cell)
    s = solve(
        cell_pair("H02.1", "grid.shared_cell", (lon, lat), (lon, lat + 0.0005), {"resolution": 6})
    )
    assert s.answer["cell"] == cell
    assert s.answer["cell"] != h3.latlng_to_cell(lon, lat, 6)


def test_shared_cell_points_in_different_cells_is_unsolvable():
    s = solve(
        cell_pair("H02.1", "grid.shared_cell", (24.94, 60.17), (25.5, 60.4), {"resolution": 9})
    )
    assert s.answer is None and s.reason == "not_in_same_cell"


def test_shared_cell_s2_level():
    token = (
        s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(-23.54, -46.62))
        .parent(12)
        .to_token()
    )
    lon, lat = s2_centre(token)
    s = solved(
        "H02.2",
        "grid_cell",
        "grid.shared_cell",
        {"entity_A": (lon, lat), "entity_B": (lon + 0.0003, lat)},
        {"level": 12},
    )
    assert s.answer == {"system": "s2", "cell": token, "resolution": 12}


def test_finest_common_s2_matches_parent_walk():
    a, b = (-46.6205674, -23.539724), (-46.6261601, -23.5447392)
    ia = s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(a[1], a[0]))
    ib = s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(b[1], b[0]))
    level = next(lv for lv in range(20, -1, -1) if ia.parent(lv) == ib.parent(lv))
    s = solve(cell_pair("H01.2", "grid.finest_common", a, b))
    assert s.answer["cell"] == ia.parent(level).to_token() and s.answer["resolution"] == level
    assert 5 < level < 20  # a real interior case, not a cap


def test_finest_common_s2_random_pairs_match_parent_walk():
    import random

    rnd = random.Random(11)
    for _ in range(60):
        lon, lat = rnd.uniform(-170, 170), rnd.uniform(-80, 80)
        sep = 10 ** rnd.uniform(-6, -1)  # 0.1 m .. 10 km apart: levels 20 down to ~8, both parities
        a, b = (lon, lat), (lon + sep * rnd.uniform(-1, 1), lat + sep * rnd.uniform(-1, 1))
        ia = s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(a[1], a[0]))
        ib = s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(b[1], b[0]))
        level = next(lv for lv in range(20, -1, -1) if ia.parent(lv) == ib.parent(lv))
        s = solve(cell_pair("H01.2", "grid.finest_common", a, b))
        assert s.answer == {
            "system": "s2",
            "cell": ia.parent(level).to_token(),
            "resolution": level,
        }, (a, b)


def test_finest_common_s2_capped_at_max_level():
    a = (24.9, 60.1)
    b = (24.9 + 1e-9, 60.1)  # ~0.1 mm apart: same leaf ancestry far below level 20
    s = solve(cell_pair("H01.2", "grid.finest_common", a, b))
    assert s.answer["resolution"] == 20


def test_finest_common_s2_different_faces_is_unsolvable():
    s = solve(cell_pair("H01.2", "grid.finest_common", (0.0, 0.0), (90.0, 0.0)))
    assert s.answer is None and s.reason == "no_common_cell"


def test_finest_common_h3_matches_parent_chain():
    a, b = (24.9376648, 60.1687611), (24.9366147, 60.1682197)
    la, lb = h3.latlng_to_cell(a[1], a[0], 12), h3.latlng_to_cell(b[1], b[0], 12)
    r = max(r for r in range(13) if h3.cell_to_parent(la, r) == h3.cell_to_parent(lb, r))
    s = solve(cell_pair("H01.1", "grid.finest_common", a, b))
    assert s.answer == {"system": "h3", "cell": h3.cell_to_parent(la, r), "resolution": r}
    assert h3.latlng_to_cell(a[1], a[0], r + 1) != h3.latlng_to_cell(b[1], b[0], r + 1)


def test_composite_cell_from_cell_centres():
    cell = h3.latlng_to_cell(-33.45, -70.66, 8)
    lon, lat = h3_centre(cell)
    token = (
        s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(lat, lon)).parent(14).to_token()
    )
    s = solved(
        "H03.1",
        "composite_cell",
        "grid.composite",
        {"entity_A": (lon, lat)},
        {"resolution": 8, "level": 14},
    )
    assert s.answer["h3"]["cell"] == cell and s.answer["s2"]["cell"] == token
    # the token is a prefix of the leaf id in hex: check with plain integer arithmetic
    leaf = s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(lat, lon)).id()
    lsb = 1 << (2 * (30 - 14))
    assert int(token.ljust(16, "0"), 16) == (leaf & ~(2 * lsb - 1)) | lsb
