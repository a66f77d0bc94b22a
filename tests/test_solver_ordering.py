"""Reference solvers for SFID F on hand-made records.

Expected winners are set up so a wrong convention gives another answer: boxes of known relative size
(EPSG:6933 areas scale with the longitude span at a fixed latitude band), lines along the equator
(geodesic length proportional to the longitude span), diagonal extremes checked against an explicit
pyproj azimuthal-equidistant projection, sector edges through the sector test itself.
"""

from __future__ import annotations

import math

import pytest
from pyproj import Geod, Transformer

from mgqa_platform.evaluation.solver.ordering import in_sector
from tests.solver_records import Record, box

POP = "http://www.worldkg.org/schema/population"


def category_record(
    sub: str, fmt: str, executor: str, params: dict | None = None, category: str = "thing"
) -> Record:
    """A record whose members are of ``category`` (category_A)."""
    return Record(sub, fmt, executor, params, {"category_A": category})


REGION = box(-1, -1, 3, 3)


def ranked_in_region(sub: str, params: dict, category: str = "thing") -> Record:
    """An F02 ranking record of ``category`` members in :data:`REGION` (entity B)."""
    rec = category_record(sub, "entity_name", "ordering.rank", params, category)
    rec.add(REGION, "entity_B")
    return rec


# ---------------------------------------------------------------------------------------------- F01
def test_extreme_cardinal_with_tie():
    rec = category_record(
        "F01.1", "entity_name", "ordering.extreme", {"cardinal_direction": "north"}
    )
    rec.add(REGION, "entity_B")
    a = rec.add("POINT (0.1 2.0)")
    b = rec.add("POINT (0.9 2.0000005)")  # within 1e-6 degrees of the top: tied
    rec.add("POINT (0.5 1.9)")
    assert rec.ids() == sorted([a, b])
    rec.record["parameters"] = {"cardinal_direction": "west"}
    assert rec.ids() == [a]


def test_extreme_diagonal_uses_azimuthal_frame_of_entity_b():
    rec = category_record(
        "F01.3", "entity_name", "ordering.extreme", {"cardinal_direction": "northeast"}
    )
    rec.add(box(-1, 59, 1, 61), "entity_B")  # representative point near (0, 60)
    pts = {
        rec.add("POINT (0.9 60.0)"): (0.9, 60.0),
        rec.add("POINT (0.0 60.55)"): (0.0, 60.55),
        rec.add("POINT (-0.9 59.2)"): (-0.9, 59.2),
    }
    # third method: PROJ's azimuthal-equidistant projection, dot product with (sin 45, cos 45)
    from mgqa_platform.evaluation.facts import Facts

    lon0, lat0 = Facts.of(rec.record).bound("entity_B").lonlat
    t = Transformer.from_crs(
        "EPSG:4326", f"+proj=aeqd +lat_0={lat0} +lon_0={lon0} +datum=WGS84", always_xy=True
    )

    def score(lonlat):
        x, y = t.transform(*lonlat)
        return (x + y) / math.sqrt(2)

    want = max(pts, key=lambda k: score(pts[k]))
    assert rec.ids() == [want]
    # 0.9 deg of longitude at 60 N is ~50 km east (score ~35 km); 0.55 deg of latitude is ~61 km
    # north (~43 km): the northern point wins, although a lon/lat-degree sum would pick the eastern
    # one (0.9 > 0.55)
    assert want == "worldkg:3"


# ---------------------------------------------------------------------------------------------- F02
def test_rank_area_perimeter():
    rec = ranked_in_region("F02.1", {"attribute_A": "area", "rank_type": "largest"})
    big = rec.add(box(0, 0, 0.5, 0.5))
    small = rec.add(box(1, 1, 1.2, 1.2))
    rec.add(box(2, 0, 2.3, 0.3))
    assert rec.ids() == [big]
    rec.record["parameters"] = {"attribute_A": "perimeter", "rank_type": "smallest"}
    assert rec.ids() == [small]


def test_rank_compactness_and_elongation():
    rec = ranked_in_region("F02.2", {"attribute_A": "compactness", "rank_type": "highest"})
    square = rec.add(box(0, 0, 0.2, 0.2))
    thin = rec.add(box(1, 1, 1.8, 1.2))
    rotated = rec.add("POLYGON ((2 0, 2.3 0.3, 2.25 0.35, 1.95 0.05, 2 0))")  # a thin diagonal bar
    assert rec.ids() == [square]
    rec.record["parameters"] = {"attribute_A": "elongation", "rank_type": "lowest"}
    assert rec.ids() == [square]
    rec.record["parameters"] = {"attribute_A": "elongation", "rank_type": "highest"}
    # bar: 0.42 x 0.07 deg rotated 45 deg (elongation ~0.83) beats the 0.8 x 0.2 box (~0.75); an
    # axis-aligned envelope would see the bar as a square (0) and answer the box
    assert rec.ids() == [rotated]
    rec.record["parameters"] = {"attribute_A": "compactness", "rank_type": "lowest"}
    assert rec.ids() == [rotated] and thin != rotated


def test_rank_population_attribute():
    rec = ranked_in_region("F02.3", {"attribute_A": "population", "rank_type": "largest"}, "town")
    rec.add("POINT (0 0)", extra=((POP, "1200"),))
    top = rec.add("POINT (1 1)", extra=((POP, "54000"),))
    low = rec.add("POINT (2 2)", extra=((POP, "800"),))
    assert rec.ids() == [top]
    rec.record["parameters"] = {"attribute_A": "population", "rank_type": "smallest"}
    assert rec.ids() == [low]


# ---------------------------------------------------------------------------------------------- F03
def test_rank_position_by_length():
    rec = category_record(
        "F03.1",
        "entity_name",
        "ordering.rank_position",
        {"rank_position": "second", "attribute": "longest"},
    )
    rec.add(box(-1, -1, 10, 1), "entity_B")
    lines = [
        rec.add(f"LINESTRING (0 {y}, {n} {y})") for n, y in ((1, 0.1), (4, 0.2), (2, 0.3), (3, 0.4))
    ]
    assert rec.ids() == [lines[3]]  # 3 degrees: second longest
    rec.record["parameters"] = {"rank_position": "third", "attribute": "shortest"}
    assert rec.ids() == [lines[3]]  # 1, 2, 3: third shortest
    rec.record["parameters"] = {"rank_position": "second", "attribute": "shortest"}
    assert rec.ids() == [lines[2]]


# ---------------------------------------------------------------------------------------------- F04
def test_compound_radius_and_sector():
    rec = category_record(
        "F04.1", "set", "ordering.compound", {"value": 10, "cardinal_direction": "north"}
    )
    rec.add("POINT (0 0)", "entity_B")
    rec.add("POINT (0 0.01)", "entity_C")
    north = rec.add("POINT (0.001 0.05)")  # ~5.5 km from B, north of C
    rec.add("POINT (0 -0.02)")  # south of C
    rec.add("POINT (0 0.2)")  # north of C but ~22 km from B
    east = rec.add("POINT (0.05 0.012)")  # east of C
    assert rec.ids() == [north]
    rec.record["parameters"] = {"value": 10, "cardinal_direction": "east"}
    assert rec.ids() == [east]


def test_compound_kept_under_every_reading():
    """The set the executor keeps for "north of C" with members at bearings 10 and 200 degrees from
    C (north under every reading, and under none): the solver's quadrant test gives the same set."""
    geod = Geod(ellps="WGS84")
    rec = category_record(
        "F04.1", "set", "ordering.compound", {"value": 2, "cardinal_direction": "north"}
    )
    rec.add("POINT (24.94 60.17)", "entity_B")
    c = geod.fwd(24.94, 60.17, 270, 300)[:2]
    rec.add(f"POINT ({c[0]} {c[1]})", "entity_C")
    ids = []
    for az in (10, 200):
        x, y, _ = geod.fwd(*c, az, 600)
        ids.append(rec.add(f"POINT ({x} {y})"))
    assert rec.ids() == ids[:1]


@pytest.mark.parametrize(
    "az,direction,inside",
    [
        (45.0, "north", False),
        (45.0, "east", True),
        (315.0, "north", True),
        (314.999, "north", False),
        (-10.0, "north", True),
        (0.0, "northeast", True),
        (359.99, "northwest", True),
        (90.0, "northeast", False),
    ],
)
def test_sector_edges(az, direction, inside):
    assert in_sector(az, direction) is inside
