"""Reference solver, SFID C: hand-made records whose DE-9IM answers are evident from the drawings
(unit squares, straight lines in lon/lat)."""

from __future__ import annotations

from mgqa_platform.evaluation.solver import solve
from tests.solver_records import ent, record

SQ = "POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))"


def boolean(sub: str, executor: str, wkt_a: str, wkt_b: str):
    a, b = ent(1, wkt_a), ent(2, wkt_b)
    s = solve(record(sub, executor, "boolean", {"entity_A": a[0], "entity_B": b[0]}, [a, b]))
    return s.answer["value"] if s.answer else s.reason


def test_intersects_and_disjoint_touching_counts_as_meeting():
    assert (
        boolean("C01.1", "topology.intersects", "LINESTRING (0 0, 1 1)", "LINESTRING (0 1, 1 0)")
        is True
    )
    assert (
        boolean("C01.1", "topology.intersects", "LINESTRING (0 0, 1 0)", "LINESTRING (1 0, 2 5)")
        is True
    )  # endpoint
    assert (
        boolean("C01.1", "topology.intersects", "LINESTRING (0 0, 1 0)", "LINESTRING (0 1, 1 1)")
        is False
    )
    touching = "POLYGON ((1 0, 2 0, 2 1, 1 1, 1 0))"
    assert boolean("C10.1", "topology.disjoint", SQ, touching) is False
    assert (
        boolean("C10.1", "topology.disjoint", SQ, "POLYGON ((1.01 0, 2 0, 2 1, 1.01 1, 1.01 0))")
        is True
    )


def test_overlaps_and_nested_pairs():
    assert (
        boolean("C07.1", "topology.overlaps", SQ, "POLYGON ((0.5 0.5, 2 0.5, 2 2, 0.5 2, 0.5 0.5))")
        is True
    )
    assert (
        boolean("C07.1", "topology.overlaps", SQ, "POLYGON ((1 0, 2 0, 2 1, 1 1, 1 0))") is False
    )  # touching only
    assert (
        boolean(
            "C07.1",
            "topology.overlaps",
            SQ,
            "POLYGON ((0.2 0.2, 0.8 0.2, 0.8 0.8, 0.2 0.8, 0.2 0.2))",
        )
        == "nested_geometries"
    )


def test_touches_boundary_includes_hole_rings():
    holed = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 6, 4 4))"
    assert (
        boolean("C08.1", "topology.touches_boundary", "LINESTRING (1 1, 2 2)", holed) is False
    )  # inside only
    assert (
        boolean("C08.1", "topology.touches_boundary", "LINESTRING (1 1, 4 5)", holed) is True
    )  # reaches the hole
    assert (
        boolean("C08.1", "topology.touches_boundary", "LINESTRING (5 -1, 5 1)", holed) is True
    )  # crosses outer ring


def test_adjacent_needs_a_shared_edge_for_areas_and_an_end_touch_for_lines():
    assert (
        boolean("C09.1", "topology.adjacent", SQ, "POLYGON ((1 0.5, 2 0.5, 2 2, 1 2, 1 0.5))")
        is True
    )  # edge piece
    assert (
        boolean("C09.1", "topology.adjacent", SQ, "POLYGON ((1 1, 2 1, 2 2, 1 2, 1 1))") is False
    )  # one corner
    assert (
        boolean("C09.1", "topology.adjacent", SQ, "POLYGON ((0.5 0, 2 0, 2 1, 0.5 1, 0.5 0))")
        is False
    )  # overlap
    assert (
        boolean("C09.2", "topology.adjacent", "LINESTRING (0 0, 1 0)", "LINESTRING (1 0, 1 1)")
        is True
    )
    assert (
        boolean("C09.2", "topology.adjacent", "LINESTRING (0 0, 1 1)", "LINESTRING (0 1, 1 0)")
        is False
    )  # crossing


def test_encloses_fills_holes_but_not_outer_contact():
    holed = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 6, 4 4))"
    assert boolean("C11.1", "topology.encloses", holed, "POINT (5 5)") is True  # in the hole
    assert boolean("C11.1", "topology.encloses", holed, "POINT (0 5)") is False  # on the outer ring
    assert boolean("C11.1", "topology.encloses", holed, "LINESTRING (1 1, 11 1)") is False


def test_crossing_points_counts_distinct_points_and_rejects_shared_segments():
    zigzag = "LINESTRING (0 -1, 1 1, 2 -1, 3 1)"
    a, b = ent(1, zigzag), ent(2, "LINESTRING (-1 0, 4 0)")
    assert solve(
        record(
            "C03.1",
            "topology.crossing_points",
            "count",
            {"entity_A": a[0], "entity_B": b[0]},
            [a, b],
        )
    ).answer == {"value": 3}
    a, b = ent(1, "LINESTRING (0 0, 2 0)"), ent(2, "LINESTRING (1 0, 3 0)")
    s = solve(
        record(
            "C03.1",
            "topology.crossing_points",
            "count",
            {"entity_A": a[0], "entity_B": b[0]},
            [a, b],
        )
    )
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
