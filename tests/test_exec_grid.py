"""SFID H executors (grid cells of representative points) on tiny hand-made worlds.

Expected cells come from documented vectors (h3-py's README example) and from an independent route:
H3 and S2 index bit arithmetic (digit / Hilbert-position prefixes) instead of the libraries'
lookups.
"""

from __future__ import annotations

import json

import duckdb
import h3
import pytest
import s2sphere

from mgqa_platform.questions import formats
from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executors import EXECUTORS, grid
from mgqa_platform.questions.generate import execute_sub_template, generate, replay
from tests import question_world as world

# h3-py's documented example: this point lies in cell 85283473fffffff at resolution 5
DOC_LAT, DOC_LON, DOC_CELL = 37.3615593, -122.0553238, "85283473fffffff"


# ---------------------------------------------------------------- independent index arithmetic
def h3_digits(cell: str) -> tuple[int, list[int]]:
    """(base cell, resolution digits) decoded from the 64-bit H3 index by bit arithmetic."""
    i, res = int(cell, 16), h3.get_resolution(cell)
    return (i >> 45) & 0x7F, [(i >> (3 * (15 - r))) & 7 for r in range(1, res + 1)]


def h3_common_prefix(c1: str, c2: str) -> int | None:
    """Resolution of the deepest common ancestor of two same-resolution cells, by digit prefix; None
    if none."""
    (b1, d1), (b2, d2) = h3_digits(c1), h3_digits(c2)
    if b1 != b2:
        return None
    n = 0
    while n < len(d1) and d1[n] == d2[n]:
        n += 1
    return n


def s2_common_token(id1: int, id2: int, max_level: int) -> str | None:
    """Token of the deepest common S2 ancestor (<= max_level) of two leaf ids, by XOR of the 64-bit
    ids."""
    if id1 >> 61 != id2 >> 61:  # 3 face bits
        return None
    diff = id1 ^ id2
    level = min(max_level, (64 - diff.bit_length() - 3) // 2 if diff else 30)
    lsb = 1 << (2 * (30 - level))
    parent = (id1 & ~(2 * lsb - 1)) | lsb
    return format(parent, "016x").rstrip("0")


# ---------------------------------------------------------------- library conventions
def test_h3_documented_vector_and_lon_lat_order():
    assert h3.latlng_to_cell(DOC_LAT, DOC_LON, 5) == DOC_CELL
    assert grid.h3_cell(DOC_LON, DOC_LAT, 5) == DOC_CELL  # our helpers take lon first
    assert h3.is_valid_cell(DOC_CELL) and h3.get_resolution(DOC_CELL) == 5
    assert h3_digits(h3.cell_to_parent(DOC_CELL, 3))[1] == h3_digits(DOC_CELL)[1][:3]


def test_s2_ids_above_2_63_travel_as_tokens(con):
    lon, lat = (
        140.0,
        -66.66,
    )  # Dumont d'Urville, Antarctica: southern and eastern hemisphere, cube face 5 (-z)
    cid = s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(lat, lon)).parent(15)
    assert cid.id() > 2**63 and cid.face() == 5 and cid.id() >> 61 == 5
    token = grid.s2_token(lon, lat, 15)
    assert token == format(cid.id(), "016x").rstrip("0")
    assert s2sphere.CellId.from_token(token).id() == cid.id()
    assert formats.s2_cell(token) == {"system": "s2", "cell": token, "resolution": 15}
    # the int would overflow DuckDB BIGINT; the token survives a VARCHAR round trip untouched
    with pytest.raises(duckdb.ConversionException):
        con.execute("SELECT CAST(? AS BIGINT)", [str(cid.id())]).fetchone()
    assert con.execute("SELECT CAST(? AS VARCHAR)", [token]).fetchone()[0] == token


def test_finest_common_helpers_agree_with_index_arithmetic():
    base = (-51.2200, -30.0300)
    for i in range(40):  # partners at growing distances in several directions
        other = (base[0] + 0.00037 * i * (-1) ** i, base[1] + 0.00023 * i)
        if other == base:
            continue
        cell, reason = grid.finest_common_h3(base, other, 12)
        if cell is not None:
            leaves = [grid.h3_cell(*p, 12) for p in (base, other)]
            assert h3.get_resolution(cell) == h3_common_prefix(*leaves)
        else:
            assert reason in ("h3_hierarchy_ambiguous", "no_common_cell")
        token, _ = grid.finest_common_s2(base, other, 20)
        assert token == s2_common_token(grid.s2_id(*base).id(), grid.s2_id(*other).id(), 20)


# ---------------------------------------------------------------- executors on a tiny world
def _sibling_centre(cell: str, avoid: str) -> tuple[float, float]:
    """(lon, lat) of the centre of a child of ``cell`` one resolution finer that is not
    ``avoid``."""
    kids = sorted(c for c in h3.cell_to_children(cell) if c != avoid)
    lat, lon = h3.cell_to_latlng(kids[0])
    return lon, lat


@pytest.fixture
def grid_world(con):
    """Pairs of points in Porto Alegre plus the documented h3 point and a partner sharing only its
    res-5 cell."""
    pts = [
        ("worldkg:1", "Cafe Azul", -51.2200, -30.0300),
        ("worldkg:2", "Padaria Sol", -51.2195, -30.0302),
        ("worldkg:3", "Farmacia Lua", -51.2150, -30.0330),
        ("worldkg:4", "Banca Rio", -51.2101, -30.0290),
        ("worldkg:5", "Loja Vento", -51.1800, -30.0600),
        ("worldkg:6", "Bar Ponte", -51.2199, -30.0301),
    ]
    for eid, name, lon, lat in pts:
        world.add(con, eid, name, "shop", f"POINT({lon} {lat})")
    world.add(
        con,
        "worldkg:10",
        "Doc Point",
        "shop",
        f"POINT({DOC_LON} {DOC_LAT})",
        stratum="HIC/high",
        iso3="USA",
    )
    lon, lat = _sibling_centre(DOC_CELL, grid.h3_cell(DOC_LON, DOC_LAT, 6))
    world.add(
        con,
        "worldkg:11",
        "Doc Neighbour",
        "shop",
        f"POINT({lon} {lat})",
        stratum="HIC/high",
        iso3="USA",
    )
    # flagged as conversion flags a name no form makes unique in the KG: never bound as an entity
    world.add(
        con, "worldkg:12", "Named Spot", "shop", "POINT(-51.2190 -30.0310)", name_unique=False
    )
    return con


def _finish(sub_id: str, **row):
    sub = load_catalog().sub_template(sub_id)
    return EXECUTORS[sub.executor].finish(sub, row)


def test_h01_finest_common_h3_cell_of_documented_pair(grid_world):
    lon, lat = _sibling_centre(DOC_CELL, grid.h3_cell(DOC_LON, DOC_LAT, 6))
    out = _finish(
        "H01.1", entity_A_lon=DOC_LON, entity_A_lat=DOC_LAT, entity_B_lon=lon, entity_B_lat=lat
    )
    assert out.gold == {"system": "h3", "cell": DOC_CELL, "resolution": 5}
    assert (
        _finish(
            "H01.1", entity_A_lon=1.0, entity_A_lat=2.0, entity_B_lon=1.0, entity_B_lat=2.0
        ).reason
        == "coincident_points"
    )
    # opposite cube faces share no S2 cell, and antipodes share no H3 cell
    far = dict(entity_A_lon=10.0, entity_A_lat=0.0, entity_B_lon=-170.0, entity_B_lat=0.0)
    assert _finish("H01.2", **far).reason == "no_common_cell"
    assert _finish("H01.1", **far).reason == "no_common_cell"


def test_h_candidates_share_a_stored_cell_and_skip_ambiguous_names(grid_world):
    catalog = load_catalog()
    for sid in ("H01.1", "H01.2", "H02.1", "H02.2"):
        sub = catalog.sub_template(sid)
        pool = world.pool(grid_world, "worldkg")
        execs, discards = execute_sub_template(grid_world, sub, pool)
        assert execs, sid
        for e in execs:
            a, b = (
                grid_world.execute(
                    "SELECT lon, lat, h3 FROM entities WHERE entity_id = ?", [e.values[r]]
                ).fetchone()
                for r in ("entity_A", "entity_B")
            )
            assert set(a[2]) & set(b[2]) and a[:2] != b[:2]
            assert "worldkg:12" not in (e.values["entity_A"], e.values["entity_B"])
            if sid == "H01.1":  # independent: digit prefix of the resolution-12 cells
                leaves = [h3.latlng_to_cell(p[1], p[0], 12) for p in (a, b)]
                assert e.outcome.gold["resolution"] == h3_common_prefix(*leaves)
                assert e.outcome.gold["cell"] == h3.cell_to_parent(
                    leaves[0], e.outcome.gold["resolution"]
                )
            elif sid == "H01.2":
                ids = [
                    s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(p[1], p[0])).id()
                    for p in (a, b)
                ]
                assert e.outcome.gold["cell"] == s2_common_token(*ids, 20)
            elif sid == "H02.1":
                r = e.values["resolution"]
                assert r in (5, 6, 7, 8, 9)
                assert (
                    e.outcome.gold["cell"]
                    == h3.latlng_to_cell(a[1], a[0], r)
                    == h3.latlng_to_cell(b[1], b[0], r)
                )
            else:
                lv = e.values["level"]
                ids = [
                    s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(p[1], p[0])).id()
                    for p in (a, b)
                ]
                assert e.outcome.gold == {
                    "system": "s2",
                    "cell": s2_common_token(ids[0], ids[0], lv),
                    "resolution": lv,
                }
                assert s2_common_token(ids[1], ids[1], lv) == e.outcome.gold["cell"]


def test_h02_discards_pairs_that_do_not_share_the_cell():
    a, b = (-51.2200, -30.0300), (-51.1800, -30.0600)  # ~5 km apart: different resolution-9 cells
    row = dict(entity_A_lon=a[0], entity_A_lat=a[1], entity_B_lon=b[0], entity_B_lat=b[1])
    assert _finish("H02.1", resolution=9, **row).reason == "not_in_same_cell"
    assert _finish("H02.2", level=16, **row).reason == "not_in_same_cell"
    gold = _finish("H02.1", resolution=5, **row).gold
    assert gold["cell"] == h3.latlng_to_cell(a[1], a[0], 5) == h3.latlng_to_cell(b[1], b[0], 5)


def test_h03_composite_cell_documented_vector_and_bits():
    out = _finish("H03.1", entity_A_lon=DOC_LON, entity_A_lat=DOC_LAT, resolution=5, level=13)
    assert out.gold["h3"] == {"system": "h3", "cell": DOC_CELL, "resolution": 5}
    leaf = s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(DOC_LAT, DOC_LON)).id()
    assert out.gold["s2"] == {
        "system": "s2",
        "cell": s2_common_token(leaf, leaf, 13),
        "resolution": 13,
    }


def test_h_generation_replays(grid_world):
    catalog = load_catalog()
    gen = generate(grid_world, catalog, ["worldkg"], only={"H"})
    assert {q["tid"] for q in gen.questions} == {"H01", "H02", "H03"}
    for q in gen.questions:
        assert replay(grid_world, catalog, q) == json.loads(q["gold"])
        assert "{" not in q["text"] and "Named Spot" not in q["text"]
        assert "FROM t" in q["query"] and "pool" not in q["query"]
    assert gen.questions == generate(grid_world, catalog, ["worldkg"], only={"H"}).questions
