"""Reference solver, SFID C: hand-made records whose DE-9IM answers are evident from the drawings
(unit squares, straight lines in lon/lat)."""

from __future__ import annotations

import pytest

from mgqa_platform.evaluation.solver import solve
from tests.solver_records import ent, record

SQ = "POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))"


def boolean(sub: str, executor: str, wkt_a: str, wkt_b: str):
    a, b = ent(1, wkt_a), ent(2, wkt_b)
    s = solve(record(sub, executor, "boolean", {"entity_A": a[0], "entity_B": b[0]}, [a, b]))
    return s.answer["value"] if s.answer else s.reason


HOLED = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 6, 4 4))"

#: (sub-template, executor, A, B, the answer or the reason it has none, why)
PAIRS = [
    # intersects and disjoint: touching counts as meeting
    ("C01.1", "intersects", "LINESTRING (0 0, 1 1)", "LINESTRING (0 1, 1 0)", True, "crossing"),
    ("C01.1", "intersects", "LINESTRING (0 0, 1 0)", "LINESTRING (1 0, 2 5)", True, "endpoint"),
    ("C01.1", "intersects", "LINESTRING (0 0, 1 0)", "LINESTRING (0 1, 1 1)", False, "apart"),
    ("C10.1", "disjoint", SQ, "POLYGON ((1 0, 2 0, 2 1, 1 1, 1 0))", False, "touching"),
    ("C10.1", "disjoint", SQ, "POLYGON ((1.01 0, 2 0, 2 1, 1.01 1, 1.01 0))", True, "apart"),
    # overlaps, and nested pairs
    ("C07.1", "overlaps", SQ, "POLYGON ((0.5 0.5, 2 0.5, 2 2, 0.5 2, 0.5 0.5))", True, "overlap"),
    ("C07.1", "overlaps", SQ, "POLYGON ((1 0, 2 0, 2 1, 1 1, 1 0))", False, "touching only"),
    (
        "C07.1",
        "overlaps",
        SQ,
        "POLYGON ((0.2 0.2, 0.8 0.2, 0.8 0.8, 0.2 0.8, 0.2 0.2))",
        "nested_geometries",
        "nested",
    ),
    # touches_boundary includes the hole rings
    ("C08.1", "touches_boundary", "LINESTRING (1 1, 2 2)", HOLED, False, "inside only"),
    ("C08.1", "touches_boundary", "LINESTRING (1 1, 4 5)", HOLED, True, "reaches the hole"),
    ("C08.1", "touches_boundary", "LINESTRING (5 -1, 5 1)", HOLED, True, "crosses outer ring"),
    # adjacent: a shared edge for areas, an end touch for lines
    ("C09.1", "adjacent", SQ, "POLYGON ((1 0.5, 2 0.5, 2 2, 1 2, 1 0.5))", True, "edge piece"),
    ("C09.1", "adjacent", SQ, "POLYGON ((1 1, 2 1, 2 2, 1 2, 1 1))", False, "one corner"),
    ("C09.1", "adjacent", SQ, "POLYGON ((0.5 0, 2 0, 2 1, 0.5 1, 0.5 0))", False, "overlap"),
    ("C09.2", "adjacent", "LINESTRING (0 0, 1 0)", "LINESTRING (1 0, 1 1)", True, "end touch"),
    ("C09.2", "adjacent", "LINESTRING (0 0, 1 1)", "LINESTRING (0 1, 1 0)", False, "crossing"),
    # encloses fills holes but not outer contact
    ("C11.1", "encloses", HOLED, "POINT (5 5)", True, "in the hole"),
    ("C11.1", "encloses", HOLED, "POINT (0 5)", False, "on the outer ring"),
    ("C11.1", "encloses", HOLED, "LINESTRING (1 1, 11 1)", False, "leaves the polygon"),
]


@pytest.mark.parametrize(
    ("sub", "predicate", "wkt_a", "wkt_b", "expected", "why"),
    PAIRS,
    ids=[f"{p[1]}-{p[5]}" for p in PAIRS],
)
def test_pair_predicates(sub, predicate, wkt_a, wkt_b, expected, why):
    got = boolean(sub, f"topology.{predicate}", wkt_a, wkt_b)
    assert got == expected and type(got) is type(expected)


def test_crossing_points_counts_distinct_points_and_rejects_shared_segments():

    def crossings(wkt_a: str, wkt_b: str):
        a, b = ent(1, wkt_a), ent(2, wkt_b)
        roles = {"entity_A": a[0], "entity_B": b[0]}
        return solve(record("C03.1", "topology.crossing_points", "count", roles, [a, b]))

    zigzag = "LINESTRING (0 -1, 1 1, 2 -1, 3 1)"
    assert crossings(zigzag, "LINESTRING (-1 0, 4 0)").answer == {"value": 3}
    s = crossings("LINESTRING (0 0, 2 0)", "LINESTRING (1 0, 3 0)")
    assert s.answer is None and s.reason == "shared_segment"


def _members():
    b = ent(1, "LINESTRING (0 0, 10 0)", "Road")
    c = ent(2, "POLYGON ((4 -1, 6 -1, 6 1, 4 1, 4 -1))", "Park")
    ms = [
        ent(3, "LINESTRING (1 -1, 1 1)", "Road"),  # crosses B
        ent(4, "LINESTRING (10 0, 12 3)", "Road"),  # touches B's end point: counts
        ent(5, "LINESTRING (5 -0.5, 5 2)", "Road"),  # crosses B inside C
        ent(6, "LINESTRING (0 1, 10 1.5)", "Road"),  # disjoint from B
        ent(7, "LINESTRING (2 -1, 2 1)", "River"),  # crosses B, wrong category
    ]
    return b, c, ms


def test_count_and_list_intersecting():
    b, c, ms = _members()
    bind = {"category_A": "road", "entity_B": b[0]}
    assert solve(
        record("C04.1", "topology.count_intersecting", "count", bind, [b, *ms])
    ).answer == {"value": 3}
    s = solve(record("C05.1", "topology.list_intersecting", "set", bind, [b, *ms]))
    assert s.answer["entity_ids"] == ["worldkg:3", "worldkg:4", "worldkg:5"]


def test_list_intersecting_except():
    b, c, ms = _members()
    bind = {"category_A": "road", "entity_B": b[0], "entity_C": c[0]}
    s = solve(record("C06.1", "topology.list_intersecting_except", "set", bind, [b, c, *ms]))
    assert s.answer["entity_ids"] == ["worldkg:3", "worldkg:4"]
