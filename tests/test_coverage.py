"""Coverage gate (questions/coverage.py, snapshots coverage) on hand-made worlds.

The coverage is a lon/lat box near Porto Alegre. Distances to its west edge and disc radii are
checked independently with pyproj's Geod (WGS84 geodesics).
"""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
from pyproj import Geod
from shapely.geometry import LineString, Point, box

from mgqa_platform import snapshots
from mgqa_platform.questions import coverage, false_premise
from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executors import path
from mgqa_platform.questions.generate import execute_sub_template, generate
from mgqa_platform.settings import SAMPLE_DIR
from tests import question_world as world

GEOD = Geod(ellps="WGS84")
CATALOG = load_catalog()
WEST, SOUTH, EAST, NORTH = -51.5, -30.3, -51.0, -29.8
CENTRE = (-51.25, -30.05)  # more than 20 km from every edge of the box
EDGE = (-51.495, -30.05)  # about 0.48 km east of the west edge


def at(lon: float, lat: float, km: float, az: float) -> tuple[float, float]:
    x, y, _ = GEOD.fwd(lon, lat, az, km * 1000.0)
    return x, y


def km_to_west_edge(lon: float, lat: float) -> float:
    """Geodesic km from (lon, lat) to the box's west edge (a meridian: the nearest point is at
    ~lat)."""
    return min(GEOD.inv(lon, lat, WEST, y)[2] for y in (lat - 0.001, lat, lat + 0.001)) / 1000.0


def declare_box(con, kg: str = "worldkg", bounds=(WEST, SOUTH, EAST, NORTH)) -> None:
    part = snapshots.CoveragePart("box", "header_bbox", "all features", box(*bounds))
    snapshots.record_coverage(con, kg, f"{kg}-test", [part])


@pytest.mark.parametrize("lat", [-30.05, 60.17, 71.0])
@pytest.mark.parametrize("radius_km", [0.5, 10.0, 50.0])
def test_disc_contains_the_geodesic_circle(lat, radius_km):
    disc = coverage.geodesic_disc(24.9, lat, radius_km)
    reach = radius_km / math.cos(math.pi / coverage.DISC_VERTICES)
    for x, y in list(disc.exterior.coords)[:-1]:
        assert GEOD.inv(24.9, lat, x, y)[2] / 1000.0 == pytest.approx(reach, rel=1e-9)
    for az in range(0, 360, 3):
        assert disc.covers(Point(*at(24.9, lat, radius_km * 0.9999, az + 0.5)))
        assert not disc.covers(Point(*at(24.9, lat, reach * 1.001, az + 0.5)))


def test_rules_of_the_catalog_parse_and_name_roles():
    ruled = {s.id: coverage.rule_for(s) for s in CATALOG.sub_templates if coverage.rule_for(s)}
    assert {"A08.1", "B01.1", "B02.2", "E03.1", "F04.2", "I02.2", "L04.1"} <= set(ruled)
    for sid, rule in ruled.items():
        assert rule.role in CATALOG.sub_template(sid).roles
    assert coverage.rule_for(CATALOG.sub_template("L04.1"), premise=True) == coverage.SupportRule(
        "disc", "entity_B", "search_radius_km"
    )
    with pytest.raises(coverage.SupportRuleError):
        coverage.parse_rule("disc(entity_B)")
    with pytest.raises(coverage.SupportRuleError):
        coverage.parse_rule("corridor(entity_B)")


def test_path_and_ranked_containment_rules():
    """D01-D04 declare a corridor around the route, D03's false premise one of PREMISE_REACH buffers
    (the reach of its premise query), E05 the region its member is ranked in."""
    for sub in CATALOG.sub_templates:
        rule, premise = coverage.rule_for(sub), coverage.rule_for(sub, premise=True)
        if sub.id.startswith("D"):
            size = "unmeasured_margin_m" if sub.id < "D03" else "buffer_m"
            assert rule == coverage.SupportRule("corridor", "entity_B", size)
            if sub.id.startswith("D03"):
                reach = float(sub.conventions["buffer_m"]) * path.PREMISE_REACH
                assert premise == coverage.SupportRule("corridor", "entity_B", f"{reach:g}")
            else:
                assert premise == rule
        if sub.id.startswith("E05"):
            assert rule == coverage.SupportRule("region", "entity_C")


def _off_line(lon: float, lat: float, metres: float, az: float) -> Point:
    x, y, _ = GEOD.fwd(lon, lat, az, metres)
    return Point(x, y)


@pytest.mark.parametrize("lat", [-30.05, 60.17])
@pytest.mark.parametrize("buffer_m", [50.0, 300.0])
def test_corridor_against_geodesic_distances(lat, buffer_m):
    """Points at 0.99 buffer from the line (across its middle, beyond each end, around a bend) lie
    in the corridor, points at 1.01 buffer do not. The line runs 5 km east along a parallel, then 3
    km north; distances are pyproj WGS84 geodesics from the nearest point of the lon/lat line."""
    lon0 = -51.3
    east, _, _ = GEOD.fwd(lon0, lat, 90.0, 5000.0)
    line = LineString([(lon0, lat), (east, lat), _off_line(east, lat, 3000.0, 0.0).coords[0]])
    top = line.coords[-1]
    mid = ((lon0 + east) / 2.0, lat)
    probes = [
        (mid, 0.0),
        (mid, 180.0),
        ((lon0, lat), 270.0),
        (top, 0.0),
        (top, 90.0),
        ((east, lat), 135.0),
    ]
    area = coverage.corridor(line, buffer_m)
    for (lon, lat_p), az in probes:
        assert area.covers(_off_line(lon, lat_p, buffer_m * 0.99, az))
        assert not area.covers(_off_line(lon, lat_p, buffer_m * 1.01, az))


@pytest.fixture
def two_clusters(con):
    """Cafes around CENTRE (deep inside the box) and around EDGE (all within 0.9 km of the west
    edge)."""
    n = 0
    for tag, (lon0, lat0) in (("centre", CENTRE), ("edge", EDGE)):
        for i in range(6):
            n += 1
            x, y = at(lon0, lat0, 0.1 + 0.05 * i, 60 * i)
            world.add(con, f"worldkg:{n}", f"Cafe {tag} {i}", "cafe", f"POINT({x} {y})")
    declare_box(con)
    return con


def test_b01_disc_crossing_the_edge_is_discarded(two_clusters):
    con, sub = two_clusters, CATALOG.sub_template("B01.1")
    execs, _ = execute_sub_template(con, sub, world.pool(con))
    kept, dropped = coverage.keep_covered(con, coverage.kg_coverage(con, "worldkg"), sub, execs)
    assert execs and kept and dropped
    names = {r[0]: r[1] for r in con.execute("SELECT entity_id, name FROM entities").fetchall()}
    pos = {
        r[0]: (r[1], r[2])
        for r in con.execute("SELECT entity_id, lon, lat FROM entities").fetchall()
    }
    for e in execs:
        anchor = e.values["entity_B"]
        inside = km_to_west_edge(*pos[anchor]) > float(e.values["value"])
        assert (e in kept) == inside == ("centre" in names[anchor])
    assert sum(dropped.values()) == len(execs) - len(kept)
    assert set(dropped) == {(e.stratum, "beyond_coverage") for e in execs if e not in kept}


def test_generate_counts_beyond_coverage(two_clusters):
    gen = generate(
        two_clusters,
        CATALOG,
        ["worldkg"],
        only={"B01.1"},
        seed=5,
        non_trivial=False,
        false_premises=False,
        multimodal_slice=False,
    )
    assert gen.questions and all("centre" in q["text"] for q in gen.questions)
    assert gen.discards[("worldkg", "B01.1", "UMC/high", "beyond_coverage")] > 0


def test_without_a_coverage_row_nothing_is_checked(two_clusters):
    snapshots.record_coverage(two_clusters, "worldkg", "worldkg-test", [])
    assert coverage.kg_coverage(two_clusters, "worldkg") is None
    sub = CATALOG.sub_template("B01.1")
    execs, _ = execute_sub_template(two_clusters, sub, world.pool(two_clusters))
    kept, dropped = coverage.keep_covered(two_clusters, None, sub, execs)
    assert kept == execs and not dropped


def test_nearest_member_disc_crossing_the_edge(two_clusters):
    """A08's support is the disc around B through its farthest evidence member: members all inside
    the box, but a disc reaching past the edge (B 0.48 km from it, a member 0.8 km away) is not
    covered."""
    con = two_clusters
    sub = CATALOG.sub_template("A08.1")
    b = (EDGE[0] + 0.002, EDGE[1])
    world.add(con, "worldkg:90", "Anchor", "school", f"POINT({b[0]} {b[1]})")
    near, far = at(*b, 0.3, 90), at(*b, 0.8, 90)
    world.add(con, "worldkg:91", "Near", "school", f"POINT({near[0]} {near[1]})")
    world.add(con, "worldkg:92", "Far", "school", f"POINT({far[0]} {far[1]})")
    edge_km = km_to_west_edge(*b)
    assert 0.3 < edge_km < 0.8
    area = coverage.kg_coverage(con, "worldkg")
    values = {"entity_B": "worldkg:90", "entity_C": "worldkg:91", "category_A": "school"}
    flags = coverage.covered(
        con, area, sub, [(values, ("worldkg:91",)), (values, ("worldkg:91", "worldkg:92"))]
    )
    assert flags == [True, False]


@pytest.fixture
def museum_world(con):
    """A cafe anchor at CENTRE, a second cafe 2 km north-east of it; museums (the replacement
    category) 15 to 19 km north: none lies within 10 km of the anchor, and the category is well
    mapped around it (false_premise.MIN_NEAR_MEMBERS within SPARSE_RADIUS_KM)."""
    world.add(con, "worldkg:1", "Cafe Anchor", "cafe", f"POINT({CENTRE[0]} {CENTRE[1]})")
    x, y = at(*CENTRE, 2.0, 45)
    world.add(con, "worldkg:2", "Cafe Near", "cafe", f"POINT({x} {y})")
    for i in range(5):
        x, y = at(*CENTRE, 15.0 + i, 0)
        world.add(con, f"worldkg:{10 + i}", f"Museum {i}", "museum", f"POINT({x} {y})")
    return con


def _f04_question() -> dict:
    sub = CATALOG.sub_template("F04.1")
    return {
        "question_id": "qtest",
        "kg": "worldkg",
        "sub_template_id": sub.id,
        "variant_id": sub.variants[0].id,
        "stratum": "UMC/high",
        "bindings": json.dumps(
            {"category_A": "cafe", "entity_B": "worldkg:1", "entity_C": "worldkg:2"}
        ),
        "parameters": json.dumps({"value": 10, "cardinal_direction": "north"}),
    }


@pytest.mark.parametrize(
    ("half_width_deg", "made"),
    [
        (
            1.0,
            True,
        ),  # the 10 km disc around the anchor lies inside (the box edges are > 90 km away)
        (0.05, False),  # the box edges are about 5 km away: no museum may be "absent" beyond them
    ],
)
def test_false_premise_needs_its_support_in_coverage(museum_world, half_width_deg, made):
    lon, lat = CENTRE
    bounds = (
        lon - half_width_deg,
        lat - half_width_deg,
        lon + half_width_deg,
        lat + half_width_deg,
    )
    declare_box(museum_world, bounds=bounds)
    west_km = GEOD.inv(lon, lat, bounds[0], lat)[2] / 1000.0
    assert (west_km > 10.0) == made
    rows, failures = false_premise.perturb(
        museum_world, CATALOG, [_f04_question()], ["worldkg"], seed=3, seen=set(), share=0.5
    )
    if made:
        assert len(rows) == 1 and json.loads(rows[0]["perturbation"])["replacement"] == "museum"
        assert not failures
    else:
        assert rows == []
        assert failures == Counter({("worldkg", "F04.1", "UMC/high", "beyond_coverage"): 1})


@pytest.fixture
def roads_world(con):
    """Two 4 km east-west roads (osmh3kg, the KG of SFID D) with a cafe 60 m north of each: one
    through CENTRE, one 0.07 km east of the box's west edge (its 100 m buffer crosses the edge); a
    third cafe 5 km south of CENTRE (a category needs three members to be asked)."""
    for n, (lon0, lat0) in enumerate((CENTRE, (WEST + 0.0007, CENTRE[1] + 0.1))):
        end = at(lon0, lat0, 4.0, 90)
        road = f"LINESTRING({lon0} {lat0}, {end[0]} {lat0})"
        world.add(con, f"osmh3kg:way/{10 + n}", f"Road {n}", "road", road)
        cafe = at(lon0 + 0.01, lat0, 0.06, 0)
        world.add(con, f"osmh3kg:node/{20 + n}", f"Cafe {n}", "cafe", f"POINT({cafe[0]} {cafe[1]})")
    far = at(*CENTRE, 5.0, 180)
    world.add(con, "osmh3kg:node/29", "Cafe far", "cafe", f"POINT({far[0]} {far[1]})")
    declare_box(con, kg="osmh3kg")
    return con


def test_d03_corridor_crossing_the_edge_is_discarded(roads_world):
    con, sub = roads_world, CATALOG.sub_template("D03.1")
    assert 0.0 < km_to_west_edge(WEST + 0.0007, CENTRE[1] + 0.1) < 0.1
    execs, _ = execute_sub_template(con, sub, world.pool(con, "osmh3kg"))
    by_road = {e.values["entity_B"]: e for e in execs}
    assert set(by_road) == {"osmh3kg:way/10", "osmh3kg:way/11"}
    area = coverage.kg_coverage(con, "osmh3kg")
    kept, dropped = coverage.keep_covered(con, area, sub, execs)
    assert kept == [by_road["osmh3kg:way/10"]]
    assert dropped == Counter({(by_road["osmh3kg:way/11"].stratum, "beyond_coverage"): 1})


def test_entity_hull_fallback_and_declared_coverage(two_clusters):
    con = two_clusters
    assert snapshots.ensure_coverage(con, "worldkg", "worldkg-test") == "declared"
    assert snapshots.ensure_coverage(con, "worldkg", "worldkg-other") == "entity_hull"
    row = con.execute(
        "SELECT snapshot_id, part, method FROM coverage WHERE kg = 'worldkg'"
    ).fetchall()
    assert row == [("worldkg-other", "entities", "entity_hull")]
    hull = coverage.kg_coverage(con, "worldkg")
    for lon, lat in con.execute("SELECT lon, lat FROM entities").fetchall():
        assert hull.covers(Point(lon, lat))
    assert not hull.covers(Point(*CENTRE).buffer(0.2))


def test_sample_coverage_file_declares_every_part():
    """The committed coverage of the sample PBF: one valid polygon per merged part
    (scripts/coverage.py); Andorra is its country relation (465.5 km2 geodesic,
    data/sample/osm/SOURCE_andorra.txt)."""
    pbf = SAMPLE_DIR / "osm" / "mgqa-sample.osm.pbf"
    assert snapshots.coverage_path(pbf).name == "mgqa-sample.coverage.geojson"
    parts = {p.part: p for p in snapshots.read_coverage(pbf)}
    assert len(parts) == 9 and all(p.geometry.is_valid for p in parts.values())
    andorra = parts["andorra-latest.osm.pbf"]
    assert andorra.method == "country_polygon"
    assert abs(GEOD.geometry_area_perimeter(andorra.geometry)[0]) / 1e6 == pytest.approx(
        465.5, abs=0.1
    )
    helsinki = parts["Helsinki.osm.pbf"].geometry
    assert helsinki.covers(Point(24.9445, 60.1718)) and not helsinki.covers(Point(24.9445, 60.25))
    assert snapshots.read_coverage(SAMPLE_DIR / "osm" / "absent.osm.pbf") == []
