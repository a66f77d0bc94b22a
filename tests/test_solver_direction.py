"""Reference solvers for SFID J on hand-made records.

Points are laid out on axis-aligned grids near the equator (or placed with ``Geod.fwd`` at a chosen
azimuth) so the expected direction, side or order is evident by hand; sector edges are tested on the
compass helper with exact azimuths.
"""

from __future__ import annotations

from pyproj import Geod

from mgqa_platform.evaluation.solver.direction import compass
from tests.solver_records import solved

GEOD = Geod(ellps="WGS84")


def pt(lon: float, lat: float) -> str:
    return f"POINT ({lon!r} {lat!r})"


def at(origin: tuple[float, float], az: float, km: float) -> str:
    lon, lat, _ = GEOD.fwd(origin[0], origin[1], az, km * 1000.0)
    return pt(lon, lat)


def cardinal(sub: str, geoms: dict, word: str):
    """The reference solver's answer to "is entity_A ``word`` of entity_B?" (``sub`` of J01)."""
    params = {"cardinal_direction": word}
    return solved(sub, "boolean", "direction.cardinal", geoms, params).answer["value"]


def test_compass_sector_edges_are_half_open():
    nesw = ["north", "east", "south", "west"]
    assert compass(45.0, nesw, -45)[0] == "east"
    assert compass(44.999, nesw, -45)[0] == "north"
    assert compass(315.0, nesw, -45)[0] == "north"
    assert compass(314.999, nesw, -45)[0] == "west"
    assert compass(0.0, nesw, -45) == ("north", 45.0)
    quads = ["northeast", "southeast", "southwest", "northwest"]
    assert compass(90.0, quads, 0)[0] == "southeast"
    assert compass(359.999, quads, 0)[0] == "northwest"
    rose = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
    assert compass(22.5, rose, -22.5)[0] == "NE" and compass(337.5, rose, -22.5)[0] == "N"


def test_cardinal_is_seen_from_entity_b():
    b = (24.94, 60.17)
    geoms = {"entity_A": at(b, 10.0, 3.0), "entity_B": pt(*b)}  # A 3 km at azimuth 10 from B
    assert cardinal("J01.1", geoms, "north") is True
    assert cardinal("J01.1", geoms, "south") is False


def test_cardinal_quadrants():
    b = (-46.6, -23.5)
    geoms = {"entity_A": at(b, 100.0, 20.0), "entity_B": pt(*b)}  # azimuth 100: south-east quadrant
    assert cardinal("J01.2", geoms, "southeast") is True
    assert cardinal("J01.2", geoms, "northeast") is False


def test_cardinal_regions_must_be_disjoint():
    geoms = {
        "entity_A": "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))",
        "entity_B": "POLYGON ((1 1, 3 1, 3 3, 1 3, 1 1))",
    }
    s = solved("J01.3", "boolean", "direction.cardinal", geoms, {"cardinal_direction": "west"})
    assert s.answer is None and s.reason == "entities_intersect"


def test_bearing_eight_and_four_point():
    geoms = {"entity_A": pt(0.0, 0.0), "entity_B": pt(1.0, -0.5)}  # azimuth ~116.6 deg
    assert solved("J04.1", "predefined", "direction.bearing", geoms).answer["value"] == "SE"
    assert solved("J04.3", "predefined", "direction.bearing", geoms).answer["value"] == "E"
    rev = {"entity_A": pt(1.0, -0.5), "entity_B": pt(0.0, 0.0)}  # the way back: ~296.6 deg
    assert solved("J04.1", "predefined", "direction.bearing", rev).answer["value"] == "NW"


def test_side_of_route_left_and_right():
    route = {"entity_B": pt(0.0, 0.0), "entity_C": pt(0.0, 0.1)}  # travelling due north
    east = solved(
        "J02.1", "predefined", "direction.side_of_route", {"entity_A": pt(0.01, 0.05), **route}
    )
    west = solved(
        "J02.1", "predefined", "direction.side_of_route", {"entity_A": pt(-0.01, 0.05), **route}
    )
    assert east.answer["value"] == "right" and west.answer["value"] == "left"
    back = {"entity_B": pt(0.0, 0.1), "entity_C": pt(0.0, 0.0)}  # due south: east is on the left
    assert (
        solved(
            "J02.1",
            "predefined",
            "direction.side_of_route",
            {"entity_A": pt(0.01, 0.05), **back},
        ).answer["value"]
        == "left"
    )


def test_side_of_route_outside_span_is_unsolvable():
    route = {"entity_B": pt(0.0, 0.0), "entity_C": pt(0.0, 0.1)}
    s = solved(
        "J02.1", "predefined", "direction.side_of_route", {"entity_A": pt(0.01, 0.15), **route}
    )
    assert s.answer is None and s.reason == "outside_route_span"


def test_along_line_follows_digitised_direction():
    line = "LINESTRING (0 0, 0.005 0.001, 0.01 0)"
    pts = {"entity_A": pt(0.002, 0.0008), "entity_B": pt(0.008, 0.0009)}
    s = solved("J03.1", "predefined", "direction.along_line", {**pts, "entity_C": line})
    assert s.answer["value"] == "upstream"
    rev = "LINESTRING (0.01 0, 0.005 0.001, 0 0)"
    s = solved("J03.1", "predefined", "direction.along_line", {**pts, "entity_C": rev})
    assert s.answer["value"] == "downstream"


def test_along_line_multipart_is_unsolvable():
    multi = "MULTILINESTRING ((0 0, 0.005 0), (0.006 0, 0.01 0))"
    s = solved(
        "J03.1",
        "predefined",
        "direction.along_line",
        {"entity_A": pt(0.002, 0.0), "entity_B": pt(0.008, 0.0), "entity_C": multi},
    )
    assert s.answer is None and s.reason == "not_single_linestring"
