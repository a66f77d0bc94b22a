"""SFID C executors (topological relationships) on tiny hand-made worlds.

Coordinates are multiples of 1/1024 degree (exact in binary and in WKT), so touching, shared edges
and endpoints on lines are exact. Independent checks recompute every predicate with shapely on the
WKT that DuckDB writes back (``ST_AsText``), and the DE-9IM matrices with ``relate_pattern``.
"""

from __future__ import annotations

import json
import random

import pyarrow as pa
import pytest
import shapely
from shapely import wkt as shapely_wkt
from shapely.geometry import Polygon
from shapely.ops import unary_union

from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executor import replay_sql, t_columns
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.questions.generate import generate, replay
from tests import question_world as world

CATALOG = load_catalog()
KG = "osmh3kg"
U = 1 / 1024  # one grid unit in degrees
X0, Y0 = -51.0, -30.0


def xy(x: float, y: float) -> str:
    return f"{X0 + x * U} {Y0 + y * U}"


def box(x0, y0, x1, y1, hole=None) -> str:
    ring = lambda a, b, c, d: f"({xy(a, b)}, {xy(c, b)}, {xy(c, d)}, {xy(a, d)}, {xy(a, b)})"  # noqa: E731
    return f"POLYGON({ring(x0, y0, x1, y1)}{', ' + ring(*hole) if hole else ''})"


def line(*pts) -> str:
    return "LINESTRING(" + ", ".join(xy(x, y) for x, y in pts) + ")"


def point(x, y) -> str:
    return f"POINT({xy(x, y)})"


POLYGONS = {
    "P1": box(0, 0, 10, 10),
    "P2": box(10, 0, 20, 10),  # shares the edge x=10 with P1
    "P3": box(5, 5, 15, 15),  # overlaps P1 and P2
    "P4": box(10, 10, 20, 20),  # only the corner (10, 10) in common with P1; shares y=10 with P2
    "P5": box(100, 100, 110, 110),  # far away
    "P7": box(2, 2, 4, 4),  # inside P1
    "R": box(200, 0, 230, 30, hole=(210, 10, 220, 20)),  # a ring
    "P6": box(212, 12, 218, 18),  # in the hole of R
}
LINES = {
    "L1": line((-10, 50), (30, 50)),
    "L2": line((0, 45), (5, 55), (10, 45)),  # crosses L1 twice
    "L3": line((15, 60), (15, 50)),  # ends on L1's interior (T junction)
    "L4": line((20, 50), (40, 50)),  # shares the segment 20..30 with L1
    "L5": line((25, 40), (25, 60)),  # crosses L1 once
    "L6": line((30, 50), (35, 55)),  # starts at L1's end point
    "L7": line((-10, 70), (30, 70)),  # parallel, disjoint
    "L8": line((-5, 5), (4, 5)),  # crosses P1's boundary, ends inside P1
    "L9": line((1, 9), (9, 9)),  # inside P1, off its boundary
    "L10": line((0, 0), (0, 10)),  # runs along P1's west edge
    "L11": line((-5, -5), (-1, -5)),  # outside P1
}
POINTS = {
    "X1": point(215, 15),
    "X2": point(205, 5),
    "X3": point(200, 15),
    "X4": point(250, 15),
    "X5": point(210, 15),
}
EVENTS = {"F1": box(300, 0, 320, 20), "F2": box(310, 10, 330, 30)}
EVENT_LINES = {
    "L12": line((290, 5), (330, 5)),
    "L13": line((305, 2), (315, 2)),
    "L14": line((315, -5), (315, 25)),
}


def eid(name: str) -> str:
    return f"{KG}:way/{name}"


@pytest.fixture
def topo(con):
    for name, wkt in POLYGONS.items():
        world.add(con, eid(name), name, "city_block", wkt)
    for name, wkt in {**LINES, **EVENT_LINES}.items():
        world.add(con, eid(name), name, "road", wkt)
    for name, wkt in POINTS.items():
        world.add(con, f"{KG}:node/{name}", name, "bench", wkt)
    for name, wkt in EVENTS.items():
        world.add(
            con, eid(name), name, "wildfire", wkt, valid_from="2020-08-01", valid_to="2020-08-20"
        )
    return con


def _id(name: str) -> str:
    return f"{KG}:node/{name}" if name.startswith("X") else eid(name)


def run(con, sub_id: str, **names):
    """Gold of one tuple (roles bound to entity names, category roles passed through) via the replay
    query."""
    sub = CATALOG.sub_template(sub_id)
    ex = EXECUTORS[sub.executor]
    values = {r: (v if r.startswith("category") else _id(v)) for r, v in names.items()}
    cur = con.execute(replay_sql(ex, sub, {"row_id": 0, "kg": KG, **values}))
    row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    return ex.finish(sub, row)


def value(con, sub_id: str, **names):
    out = run(con, sub_id, **names)
    return out.gold["value"] if out.gold else out.reason


def test_boolean_predicates_hand_world(topo):
    c = topo
    # intersects / disjoint
    assert value(c, "C01.1", entity_A="L1", entity_B="L3") is True
    assert value(c, "C01.1", entity_A="L1", entity_B="L7") is False
    assert value(c, "C02.1", entity_A="P1", entity_B="P4") is True  # a single common corner
    assert value(c, "C02.2", entity_A="R", entity_B="X3") is True  # point on the boundary
    assert value(c, "C02.2", entity_A="R", entity_B="X1") is False  # point in the hole
    assert value(c, "C10.1", entity_A="P1", entity_B="P5") is True
    assert value(c, "C10.1", entity_A="P1", entity_B="L10") is False
    assert value(c, "C01.2", entity_A="F1", entity_B="L13") is True
    # overlaps: partial only; nesting is discarded
    assert value(c, "C07.1", entity_A="P1", entity_B="P3") is True
    assert value(c, "C07.1", entity_A="P1", entity_B="P2") is False
    assert value(c, "C07.1", entity_A="P1", entity_B="P7") == "nested_geometries"
    assert value(c, "C07.2", entity_A="F1", entity_B="F2") is True
    # touches the boundary of B
    assert value(c, "C08.1", entity_A="L8", entity_B="P1") is True
    assert value(c, "C08.1", entity_A="L10", entity_B="P1") is True
    assert value(c, "C08.1", entity_A="L9", entity_B="P1") is False
    assert value(c, "C08.1", entity_A="L11", entity_B="P1") is False
    assert value(c, "C08.2", entity_A="L12", entity_B="F1") is True
    assert value(c, "C08.2", entity_A="L13", entity_B="F1") is False
    # adjacency: shared edge yes, corner only no, overlap no; lines touching yes, crossing no
    assert value(c, "C09.1", entity_A="P1", entity_B="P2") is True
    assert value(c, "C09.1", entity_A="P2", entity_B="P4") is True
    assert value(c, "C09.1", entity_A="P1", entity_B="P4") is False
    assert value(c, "C09.1", entity_A="P1", entity_B="P3") is False
    assert value(c, "C09.2", entity_A="L1", entity_B="L3") is True
    assert value(c, "C09.2", entity_A="L1", entity_B="L6") is True
    assert value(c, "C09.2", entity_A="L1", entity_B="L5") is False
    # enclosure: fill(A) contains B properly; holes count as inside, the outer boundary does not
    for b, expected in (
        ("X1", True),
        ("X2", True),
        ("X5", True),
        ("X3", False),
        ("X4", False),
        ("P6", True),
    ):
        assert value(c, "C11.1", entity_A="R", entity_B=b) is expected, b
    assert value(c, "C11.1", entity_A="P1", entity_B="P7") is True
    assert value(c, "C11.1", entity_A="P1", entity_B="L10") is False  # on the boundary
    assert value(c, "C11.1", entity_A="P1", entity_B="P1") == "identical_geometries"


def test_crossing_points_hand_world(topo):
    c = topo
    assert value(c, "C03.1", entity_A="L1", entity_B="L2") == 2
    assert value(c, "C03.1", entity_A="L1", entity_B="L3") == 1
    assert value(c, "C03.1", entity_A="L1", entity_B="L6") == 1
    assert value(c, "C03.1", entity_A="L1", entity_B="L4") == "shared_segment"
    assert value(c, "C03.1", entity_A="L1", entity_B="L7") == "no_intersection"


def test_category_intersections_hand_world(topo):
    c = topo
    # roads meeting L1: L2 (twice), L3, L4, L5, L6; L1 itself is never a member
    out = run(c, "C04.1", category_A="road", entity_B="L1")
    assert out.gold == {"value": 5} and set(out.evidence) == {
        eid(n) for n in ("L2", "L3", "L4", "L5", "L6")
    }
    assert value(c, "C04.2", category_A="city_block", entity_B="L8") == 1  # P1 only
    assert value(c, "C04.2", category_A="city_block", entity_B="L11") == 0
    assert value(c, "C04.3", category_A="road", entity_B="F1") == 3  # L12 and L14 cross, L13 inside
    listed = run(c, "C05.2", category_A="city_block", entity_B="P1")
    assert listed.gold["entity_ids"] == sorted(eid(n) for n in ("P2", "P3", "P4", "P7"))
    assert run(c, "C05.1", category_A="road", entity_B="L7").reason == "empty_set"
    # roads meeting L1 but not L4: L5 and L6 also meet L4 and are removed; L2 and L3 stay
    but_not = run(c, "C06.1", category_A="road", entity_B="L1", entity_C="L4")
    assert but_not.gold["entity_ids"] == [eid("L2"), eid("L3")]
    assert set(but_not.evidence) == {eid(n) for n in ("L2", "L3", "L5", "L6")}
    assert (
        run(c, "C06.1", category_A="road", entity_B="L1", entity_C="L7").reason
        == "vacuous_exclusion"
    )
    fires = run(
        c, "C06.2", category_A="road", entity_B="F1", entity_C="F2"
    )  # L14 crosses both fires
    assert fires.gold["entity_ids"] == [eid("L12"), eid("L13")] and eid("L14") in fires.evidence


# ------------------------------------------------------------------------------------------ shapely
def dim(g) -> int:
    return int(shapely.get_dimensions(g))


def _fill(g):
    parts = getattr(g, "geoms", [g])
    return unary_union([Polygon(p.exterior) for p in parts])


SHAPELY = {
    "topology.intersects": lambda a, b: a.intersects(b),
    "topology.disjoint": lambda a, b: a.disjoint(b),
    "topology.overlaps": lambda a, b: a.overlaps(b),
    "topology.touches_boundary": lambda a, b: a.intersects(b.boundary),
    "topology.adjacent": lambda a, b: (
        a.relate_pattern(b, "F***1****") if dim(a) == dim(b) == 2 else a.touches(b)
    ),
    "topology.encloses": lambda a, b: _fill(a).contains_properly(b),
}
SUBS = {
    "topology.intersects": "C01.1",
    "topology.disjoint": "C10.1",
    "topology.overlaps": "C07.1",
    "topology.touches_boundary": "C08.1",
    "topology.adjacent": "C09.1",
    "topology.encloses": "C11.1",
}


def _random_world(con, seed: int) -> list[str]:
    """Random boxes, triangles, rings and grid-snapped lines on a 24 x 24 unit board (many exact
    contacts)."""
    rng = random.Random(seed)
    ids = []
    for i in range(45):
        kind = rng.choice(["box", "box", "tri", "ring", "line", "line"])
        x, y = rng.randrange(0, 20), rng.randrange(0, 20)
        w, h = rng.randrange(1, 8), rng.randrange(1, 8)
        if kind == "box":
            wkt = box(x, y, x + w, y + h)
        elif kind == "ring":
            wkt = box(x, y, x + 6, y + 6, hole=(x + 2, y + 2, x + 4, y + 4))
        elif kind == "tri":
            wkt = f"POLYGON(({xy(x, y)}, {xy(x + w, y)}, {xy(x, y + h)}, {xy(x, y)}))"
        else:
            wkt = line(
                *[(rng.randrange(0, 24), rng.randrange(0, 24)) for _ in range(rng.randrange(2, 4))]
            )
        if kind == "line" and shapely_wkt.loads(wkt).length == 0:
            continue
        ids.append(eid(f"G{i}"))
        world.add(con, ids[-1], f"G{i}", "thing", wkt)
    return ids


def _batch_gold(con, sub_id: str, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], object]:
    """Gold of many (A, B) pairs in one gold_sql batch (relation t registered with pyarrow)."""
    sub = CATALOG.sub_template(sub_id)
    ex = EXECUTORS[sub.executor]
    a, b = sub.entity_roles[:2]
    cols = {
        "row_id": list(range(len(pairs))),
        "kg": [KG] * len(pairs),
        a: [p[0] for p in pairs],
        b: [p[1] for p in pairs],
    }
    con.register("t", pa.table({c: cols[c] for c in t_columns(sub)}))
    try:
        cur = con.execute(f"SELECT * FROM ({ex.gold_sql(sub)}) q")
        names = [d[0] for d in cur.description]
        rows = {r[0]: dict(zip(names, r, strict=True)) for r in cur.fetchall()}
    finally:
        con.unregister("t")
    out = {}
    for i, p in enumerate(pairs):
        o = ex.finish(sub, rows[i])
        out[p] = o.gold["value"] if o.gold else o.reason
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_predicates_match_shapely_on_random_world(con, seed):
    ids = _random_world(con, seed)
    geoms = {
        i: shapely_wkt.loads(w)
        for i, w in con.execute(
            "SELECT entity_id, ST_AsText(geometry) FROM entities WHERE kg = ?", [KG]
        ).fetchall()
    }
    pairs = [(a, b) for a in ids for b in ids if a != b]
    seen = {True: 0, False: 0}
    for name, sub_id in SUBS.items():
        # enclosure is only defined for a polygonal A (the role types guarantee it)
        todo = [p for p in pairs if name != "topology.encloses" or dim(geoms[p[0]]) == 2]
        got = _batch_gold(con, sub_id, todo)
        for (a, b), v in got.items():
            ga, gb = geoms[a], geoms[b]
            if shapely.equals(ga, gb):
                assert v == "identical_geometries"
            elif name == "topology.overlaps" and (ga.covers(gb) or gb.covers(ga)):
                assert v == "nested_geometries"
            else:
                assert v is SHAPELY[name](ga, gb), (name, a, b, ga.wkt, gb.wkt)
                seen[v] += 1
    assert min(seen.values()) > 100  # both outcomes well represented


def test_crossing_points_match_shapely(con):
    ids = [i for i in _random_world(con, 3)]
    geoms = {
        i: shapely_wkt.loads(w)
        for i, w in con.execute(
            "SELECT entity_id, ST_AsText(geometry) FROM entities WHERE kg = ?", [KG]
        ).fetchall()
    }
    lines = [i for i in ids if geoms[i].geom_type == "LineString"]
    pairs = [(a, b) for a in lines for b in lines if a < b]
    got = _batch_gold(con, "C03.1", pairs)
    counted = 0
    for (a, b), v in got.items():
        inter = geoms[a].intersection(geoms[b])
        if inter.is_empty:
            assert v == "no_intersection"
        elif dim(inter) > 0:
            assert v == "shared_segment"
        else:
            assert v == len(shapely.get_coordinates(inter)), (a, b, inter.wkt)
            counted += 1
    assert counted > 10


# ----------------------------------------------------------------------------------------- generate
def test_generate_c_replays_every_question(topo):
    catalog = load_catalog()
    gen = generate(topo, catalog, [KG], only={"C"}, seed=5)
    assert gen.questions
    by_tid: dict[str, set] = {}
    for q in gen.questions:
        gold = json.loads(q["gold"])
        assert replay(topo, catalog, q) == gold, q["text"]
        by_tid.setdefault(q["tid"], set()).add(json.dumps(gold, sort_keys=True))
    for tid in ("C01", "C09", "C10"):
        assert {'{"value": true}', '{"value": false}'} <= by_tid[tid], tid  # both outcomes occur
    assert {"C03", "C04", "C05", "C06", "C07", "C08", "C11"} <= set(by_tid)
    assert generate(topo, catalog, [KG], only={"C"}, seed=5).questions == gen.questions
