"""Reference solvers for SFID E on hand-made records.

Shapes are lon/lat boxes: EPSG:6933 is a cylindrical equal-area projection, so the share of a box
lying on one side of a meridian equals the share of its longitude span, which gives the expected
shares by hand (a 0.96 share is inside contain_share = 0.95, a 0.94 share is not).
"""

from __future__ import annotations

from tests.solver_records import KWG, R, Record, box


# ---------------------------------------------------------------------------------------------- E01
def test_membership_follows_cited_part_of_chain():
    rec = Record("E01.2", "boolean", "admin.membership")
    # entity_A is far outside entity_B's polygon: only the KG chain A -> county -> state can say yes
    rec.add("POINT (50 50)", "entity_A", extra=((KWG + "sfWithin", f"{R}3"),))
    rec.add(box(0, 0, 1, 1), "entity_B")
    rec.add(
        box(0, 0, 0.5, 0.5), extra=((KWG + "administrativePartOf", f"{R}2"),)
    )  # the county, cited as evidence
    assert rec.value() is True


def test_membership_kg_route_without_chain_is_no():
    rec = Record("E01.2", "boolean", "admin.membership")
    rec.add(
        "POINT (0.5 0.5)", "entity_A", extra=((KWG + "sfWithin", f"{R}99"),)
    )  # part of something else
    rec.add(box(0, 0, 1, 1), "entity_B")
    assert rec.value() is False  # the KG route wins over the geometry, which would say yes


def test_membership_point_by_geometry():
    inside, outside = (
        Record("E01.2", "boolean", "admin.membership"),
        Record("E01.2", "boolean", "admin.membership"),
    )
    for rec, pt in ((inside, "POINT (0.3 0.7)"), (outside, "POINT (1.3 0.7)")):
        rec.add(pt, "entity_A")
        rec.add(box(0, 0, 1, 1), "entity_B")
    assert inside.value() is True and outside.value() is False


def test_membership_region_needs_share_and_larger_parent():
    big = Record("E01.1", "boolean", "admin.membership")
    big.add(box(0.1, 0.1, 0.2, 0.2), "entity_A")
    big.add(box(0, 0, 1, 1), "entity_B")
    assert big.value() is True
    # entity_B covers 0.97 of entity_A (>= 0.95) but is the smaller one: not a parent
    small = Record("E01.1", "boolean", "admin.membership")
    small.add(box(0, 0, 1, 1), "entity_A")
    small.add(box(0, 0, 0.97, 1), "entity_B")
    assert small.value() is False
    # half of entity_A outside
    half = Record("E01.1", "boolean", "admin.membership")
    half.add(box(0.5, 0, 1.5, 0.5), "entity_A")
    half.add(box(0, 0, 1, 1), "entity_B")
    assert half.value() is False


# ---------------------------------------------------------------------------------------------- E02
def test_components_count_share_threshold():
    rec = Record("E02.2", "count", "admin.components")
    rec.record["bindings"]["category_A"] = "building"
    rec.add(box(0, 0, 1, 1), "entity_B")
    rec.add(box(0.1, 0.1, 0.2, 0.2))  # fully inside
    rec.add(box(0.04, 0.2, 1.04, 0.3))  # 0.96 of its lon span inside: counted
    rec.add(box(0.06, 0.4, 1.06, 0.5))  # 0.94 inside: not counted
    assert rec.value() == 2


def test_components_count_point_and_line_members_that_the_region_covers():
    rec = Record("E02.2", "count", "admin.components")
    rec.record["bindings"]["category_A"] = "museum"
    rec.add(box(0, 0, 1, 1), "entity_B")
    rec.add(box(0.1, 0.1, 0.2, 0.2))  # a polygon member inside
    rec.add("POINT (0.5 0.5)")  # a point member inside
    rec.add("LINESTRING (0.3 0.3, 0.4 0.4)")  # a line member inside
    rec.add("POINT (1.5 0.5)")  # outside: not counted
    assert rec.value() == 3


def test_parts_counts_polygons():
    rec = Record("E02.3", "count", "admin.parts")
    rec.add(
        "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((2 0, 3 0, 3 1, 2 0)), ((5 5, 6 5, 6 6, 5 5)))",
        "entity_B",
    )
    assert rec.value() == 3


# ---------------------------------------------------------------------------------------------- E03
def test_collection_count_points_in_region_boundary_inside():
    rec = Record(
        "E03.3", "count", "admin.collection_count", {"collection_of_entity": "banks and ATMs"}
    )
    rec.add(box(0, 0, 1, 1), "entity_A")
    rec.add("POINT (0.5 0.5)")
    rec.add("POINT (1 0.5)")  # on the boundary: inside
    rec.add("POINT (1.5 0.5)")  # outside
    assert rec.value() == 2


# ---------------------------------------------------------------------------------------------- E04
def test_full_containment_triage():
    def run(b: str):
        rec = Record("E04.1", "boolean", "admin.full_containment")
        rec.add(box(0, 0, 1, 1), "entity_A")
        rec.add(b, "entity_B")
        return rec.solve()

    assert run(box(0.2, 0.2, 0.4, 0.4)).answer == {"value": True}
    assert run(box(0.5, 0.2, 1.05, 0.3)).answer == {"value": False}  # 0.05 / 0.55 = 9 % outside
    s = run(box(0.9, 0.2, 1.0004, 0.3))  # 0.0004 / 0.1004 = 0.4 % outside: between 0.1 % and 1 %
    assert s.answer is None and s.reason == "containment_ambiguous"


def test_full_containment_just_inside_tolerance():
    rec = Record("E04.1", "boolean", "admin.full_containment")
    rec.add(box(0, 0, 1, 1), "entity_A")
    rec.add(box(0, 0.2, 1.0009, 0.3), "entity_B")  # 0.0009 / 1.0009 = 0.09 % outside <= 0.1 %
    assert rec.value() is True


# ---------------------------------------------------------------------------------------------- E05
def test_ranked_containment_longest_and_shortest():
    def run(rank: str):
        rec = Record("E05.1", "boolean", "admin.ranked_containment", {"rank_type": rank})
        rec.add(box(0, 0, 1, 1), "entity_A")
        rec.add(box(0, 0, 3, 3), "entity_C")
        rec.add("LINESTRING (0.5 0.5, 2.5 0.5)")  # long, 3/4 outside entity_A
        rec.add("LINESTRING (0.2 0.2, 0.4 0.2)")  # short, inside
        return rec.value()

    assert run("longest") is False
    assert run("shortest") is True
