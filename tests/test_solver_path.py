"""Reference solver, SFID D: hand-made records along the equator, where lengths are worked out by
hand (0.001 degree of longitude = 111.32 m, 0.001 degree of latitude = 110.57 m)."""

from __future__ import annotations

from mgqa_platform.evaluation.solver import solve
from tests.solver_records import box, ent, record

ROUTE = "LINESTRING (-0.01 0, 0.01 0)"


def run(
    sub: str,
    executor: str,
    fmt: str,
    category: str,
    members: list,
    route_types: tuple = ("Primary",),
):
    route = ent(1, ROUTE, *route_types)
    es = [route, *members]
    s = solve(record(sub, executor, fmt, {"category_A": category, "entity_B": route[0]}, es))
    assert s.reason is None, s.reason
    return s.answer["entity_ids"] if fmt == "set" else s.answer["value"]


PARKS = [
    ent(2, box(0, -0.001, 0.001, 0.001), "Park"),  # 111 m of the route inside: traversed
    ent(3, box(0.005, -0.001, 0.0053, 0.001), "Park"),  # 33 m inside: below min_inside_m = 50
    ent(
        4, box(0.002, 0, 0.004, 0.001), "Park"
    ),  # the route runs 222 m along its edge only: not inside
    ent(5, box(0.006, -0.001, 0.0065, 0.001), "Park"),  # 55.7 m inside: traversed
    ent(6, box(-0.005, -0.001, -0.003, 0.001), "Wood"),  # traversed, but another category
]


def test_traverse_polygons_excludes_boundary_runs():
    assert run("D01.2", "path.traverse", "set", "park", PARKS) == ["worldkg:2", "worldkg:5"]
    assert run("D02.2", "path.traverse", "count", "park", PARKS) == 2


def test_traverse_lines_by_crossing_with_short_shared_length():
    rivers = [
        ent(2, "LINESTRING (0.003 -0.01, 0.003 0.01)", "River"),  # crosses
        ent(
            3, "LINESTRING (0.004 0, 0.006 0, 0.006 0.01)", "River"
        ),  # shares 222 m: runs along, not crossed
        ent(4, "LINESTRING (0 0.001, 0.01 0.001)", "River"),  # disjoint
        ent(
            5, "LINESTRING (0.007 0.01, 0.007 0, 0.0073 0, 0.0073 -0.01)", "River"
        ),  # shares 33 m < 50: crossed
    ]
    assert run("D01.3", "path.traverse", "set", "river", rivers) == ["worldkg:2", "worldkg:5"]
    assert run("D02.3", "path.traverse", "count", "river", rivers) == 2


def test_pass_by_points_within_the_buffer():
    pois = [
        ent(2, "POINT (0.005 0.0008)", "Cafe"),  # 88.5 m
        ent(3, "POINT (0.005 0.001)", "Cafe"),  # 110.6 m
        ent(4, "POINT (0.0105 0)", "Cafe"),  # 55.7 m past the end point
        ent(5, "POINT (0.0115 0)", "Cafe"),  # 167 m past the end point
        ent(6, "POINT (0.0125 0)", "Cafe"),  # 278 m past the end point
    ]
    assert run("D03.1", "path.pass_by", "set", "cafe", pois) == ["worldkg:2", "worldkg:4"]
    assert run("D04.1", "path.pass_by", "count", "cafe", pois) == 2
    # D04.2 (any line): buffer 200 m
    assert run("D04.2", "path.pass_by", "count", "cafe", pois) == 4


def test_pass_by_polygons_not_traversed():
    polys = [
        ent(2, box(0, 0.0005, 0.001, 0.001), "Park"),  # boundary 55 m from the route
        ent(3, box(0.002, -0.001, 0.003, 0.001), "Park"),  # traversed (111 m inside): not passed by
        ent(4, box(0, 0.0012, 0.001, 0.002), "Park"),  # 133 m away
        ent(
            5, box(0.004, 0, 0.005, 0.001), "Park"
        ),  # the route runs along its edge: passed by, not entered
    ]
    assert run("D03.3", "path.pass_by", "set", "park", polys) == ["worldkg:2", "worldkg:5"]


def test_pass_by_members_of_other_kinds():
    """A point category's polygon member counts by its nearest point, not its representative point;
    a polygon category's point member by its point (issue 15: a category means all its members)."""
    stations = [
        ent(
            2, box(0.005, 0.0008, 0.006, 0.003), "BusStation"
        ),  # edge 88.5 m away, centre 210 m away
        ent(3, "POINT (0.003 0.0008)", "BusStation"),  # 88.5 m
        ent(4, box(0.007, 0.001, 0.008, 0.003), "BusStation"),  # edge 110.6 m away
    ]
    assert run("D03.1", "path.pass_by", "set", "bus_station", stations) == [
        "worldkg:2",
        "worldkg:3",
    ]
    parks = [
        ent(2, box(0, 0.0005, 0.001, 0.001), "Park"),  # boundary 55 m from the route
        ent(3, "POINT (0.003 0.0008)", "Park"),  # a park mapped as a point 88.5 m away
        ent(4, "POINT (0.003 0.0012)", "Park"),  # 133 m away
    ]
    assert run("D03.3", "path.pass_by", "set", "park", parks) == ["worldkg:2", "worldkg:3"]
