"""SFID J executors (direction) on tiny hand-made worlds.

Independent routes: spherical great-circle bearings (plain trigonometry, no pyproj) for sectors and
for the side of a route (sign of the bearing difference), explicit sector tables written out by
hand, PROJ's own ``+proj=aeqd`` Transformer for the azimuthal-equidistant frame, and hand-placed
points along a line.
"""

from __future__ import annotations

import json
import math

import pytest
from pyproj import Geod, Transformer

from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.questions.executors.direction import aeqd_xy, positions_along, sector
from mgqa_platform.questions.generate import execute_sub_template, generate, replay
from tests import question_world as world

CATALOG = load_catalog()
GEOD = Geod(ellps="WGS84")
ORIGIN = (-51.0, -30.0)  # lon, lat
R_KM = 6371.0088


def bearing(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Initial great-circle bearing in [0, 360) from a to b (lon, lat), spherical trigonometry."""
    p1, p2, dl = math.radians(a[1]), math.radians(b[1]), math.radians(b[0] - a[0])
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return math.degrees(math.atan2(y, x)) % 360


def offset(km_east: float, km_north: float, origin=ORIGIN) -> tuple[float, float]:
    """A point roughly km_east / km_north away from ``origin`` (spherical small-offset formula)."""
    lat = origin[1] + math.degrees(km_north / R_KM)
    return origin[0] + math.degrees(km_east / (R_KM * math.cos(math.radians(origin[1])))), lat


def wkt_point(p) -> str:
    return f"POINT({p[0]} {p[1]})"


CARDINAL4_WORDS = {
    "north": [(315, 360), (0, 45)],
    "east": [(45, 135)],
    "south": [(135, 225)],
    "west": [(225, 315)],
}
QUADRANTS = {
    "northeast": [(0, 90)],
    "southeast": [(90, 180)],
    "southwest": [(180, 270)],
    "northwest": [(270, 360)],
}
ROSE8 = {
    "N": [(337.5, 360), (0, 22.5)],
    "NE": [(22.5, 67.5)],
    "E": [(67.5, 112.5)],
    "SE": [(112.5, 157.5)],
    "S": [(157.5, 202.5)],
    "SW": [(202.5, 247.5)],
    "W": [(247.5, 292.5)],
    "NW": [(292.5, 337.5)],
}
ROSE4 = {"N": [(315, 360), (0, 45)], "E": [(45, 135)], "S": [(135, 225)], "W": [(225, 315)]}
OCTANT_WORDS = dict(
    zip(
        ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"],
        ROSE8.values(),
        strict=True,
    )
)
HALF_PLANES = {  # a direction word as half-planes: its components along the axes are positive
    "north": [(270, 360), (0, 90)],
    "east": [(0, 180)],
    "south": [(90, 270)],
    "west": [(180, 360)],
    "northeast": [(0, 90)],
    "southeast": [(90, 180)],
    "southwest": [(180, 270)],
    "northwest": [(270, 360)],
}


def word_holds(table: dict, word: str, az: float) -> bool:
    return any(lo <= az < hi for lo, hi in table[word])


def reading_answers(word: str, az: float) -> set[bool]:
    """Is the azimuth ``word`` under the 90-degree, 8-sector and half-plane readings, from the hand
    tables."""
    ninety = CARDINAL4_WORDS if word in CARDINAL4_WORDS else QUADRANTS
    return {word_holds(t, word, az) for t in (ninety, OCTANT_WORDS, HALF_PLANES)}


def in_table(table: dict, az: float) -> str:
    (label,) = [k for k, spans in table.items() if any(lo <= az < hi for lo, hi in spans)]
    return label


def ring(prefix: str, n: int, radius_km: float, first_deg: float, step_deg: float) -> dict:
    """``n`` points ``radius_km`` from the centre at bearings ``first_deg + i * step_deg``."""
    return {
        f"worldkg:{prefix}{i}": offset(
            radius_km * math.sin(math.radians(first_deg + step_deg * i)),
            radius_km * math.cos(math.radians(first_deg + step_deg * i)),
        )
        for i in range(n)
    }


RING = ring("", 9, 1.5, 10, 40)
CLUSTER = ring("s", 6, 0.4, 5, 60)
VILLAGES = ring("v", 5, 6, 25, 70)
# villages on the 45-degree diagonals, 9 km out: pairs whose bearing lies mid-quadrant (J01.2 yes)
DIAGONAL_VILLAGES = ring("d", 4, 9, 45, 90)


@pytest.fixture
def ring(con):
    world.add(con, "worldkg:o", "Centre Cafe", "cafe", wkt_point(ORIGIN))
    for eid, p in RING.items():
        world.add(con, eid, f"Cafe {eid[-1]}", "cafe", wkt_point(p))
    for eid, p in CLUSTER.items():
        world.add(con, eid, f"Shop {eid[-1]}", "convenience", wkt_point(p))
    for eid, p in VILLAGES.items():
        world.add(con, eid, f"Village {eid[-1]}", "village", wkt_point(p))
    for eid, p in DIAGONAL_VILLAGES.items():
        world.add(con, eid, f"Hamlet {eid[-1]}", "village", wkt_point(p))
    return con


def positions(con) -> dict[str, tuple[float, float]]:
    return {
        r[0]: (r[1], r[2])
        for r in con.execute("SELECT entity_id, lon, lat FROM entities").fetchall()
    }


# ---------------------------------------------------------------- pure helpers
def test_sector_bins_and_edges():
    labels = ["north", "east", "south", "west"]
    assert sector(0.0, labels, -45) == ("north", 45.0)
    assert sector(44.0, labels, -45) == ("north", 1.0)
    assert sector(45.0, labels, -45) == (
        "east",
        0.0,
    )  # half-open: the edge belongs to the next sector
    assert sector(359.5, labels, -45)[0] == "north"
    assert sector(200.0, ["NE", "SE", "SW", "NW"], 0) == ("SW", 20.0)
    assert sector(22.4, list("abcdefgh"), -22.5)[0] == "a"
    assert sector(22.5, list("abcdefgh"), -22.5)[0] == "b"


def test_aeqd_matches_proj():
    """The Geod-based frame equals PROJ's ellipsoidal azimuthal-equidistant projection."""
    tr = Transformer.from_crs(
        "EPSG:4326",
        f"+proj=aeqd +lat_0={ORIGIN[1]} +lon_0={ORIGIN[0]} +ellps=WGS84 +units=m",
        always_xy=True,
    )
    pts = [offset(3, 4), offset(-40, 10), offset(0.01, -0.02), offset(25, -30)]
    for (x, y), p in zip(aeqd_xy(ORIGIN, pts), pts, strict=True):
        px, py = tr.transform(*p)
        assert x == pytest.approx(px, abs=0.01) and y == pytest.approx(py, abs=0.01)


# ---------------------------------------------------------------- J01 / J04 on the ring world
@pytest.mark.parametrize(
    "sub_id,table,word_param",
    [
        ("J01.1", CARDINAL4_WORDS, True),
        ("J01.2", QUADRANTS, True),
        ("J04.1", ROSE8, False),
        ("J04.2", ROSE8, False),
        ("J04.3", ROSE4, False),
    ],
)
def test_sectors_against_spherical_bearings(ring, sub_id, table, word_param):
    sub = CATALOG.sub_template(sub_id)
    execs, _ = execute_sub_template(ring, sub, world.pool(ring, "worldkg"))
    assert execs
    pos = positions(ring)
    answers = set()
    for e in execs:
        a, b = pos[e.values["entity_A"]], pos[e.values["entity_B"]]
        if (
            word_param
        ):  # J01: is A <word> of B -> bearing from B to A; kept only when the readings agree
            assert reading_answers(e.values["cardinal_direction"], bearing(b, a)) == {
                e.outcome.gold["value"]
            }
            assert in_table(table, bearing(b, a)) == e.values["cardinal_direction"] or (
                e.outcome.gold["value"] is False
            )
        else:  # J04: direction travelling from A to B
            assert e.outcome.gold["value"] == in_table(table, bearing(a, b))
        answers.add(str(e.outcome.gold["value"]))
    assert len(answers) >= 2


def test_cardinal_balanced_words_and_edge_discard(ring):
    sub = CATALOG.sub_template("J01.1")
    execs, dis = execute_sub_template(ring, sub, world.pool(ring, "worldkg"))
    golds = [e.outcome.gold["value"] for e in execs]
    assert True in golds and False in golds
    ex = EXECUTORS["direction.cardinal"]

    def ask(word: str, az: float, sub_id: str = "J01.1"):
        """finish on A 2 km from B (ORIGIN) at azimuth ``az``, cross-checked with pyproj
        Geod.inv."""
        lon, lat, _ = GEOD.fwd(ORIGIN[0], ORIGIN[1], az, 2000.0)
        assert GEOD.inv(ORIGIN[0], ORIGIN[1], lon, lat)[0] % 360 == pytest.approx(az, abs=1e-6)
        row = {
            "entity_A_lon": lon,
            "entity_A_lat": lat,
            "entity_B_lon": ORIGIN[0],
            "entity_B_lat": ORIGIN[1],
            "intersects": False,
            "cardinal_direction": word,
        }
        return ex.finish(CATALOG.sub_template(sub_id), row)

    # A north-east of B (azimuth 45 deg): on the north/east edge as a cone, east of the north octant
    assert ask("north", 45.0).reason == "reading_dependent"
    assert ask("north", 45.0).gold is None
    assert ask("north", 21.0).reason == "near_sector_edge"  # all say yes, 1.5 deg inside the octant
    assert ask("north", 10.0).gold == {"value": True}
    assert ask("north", 80.0).reason == "reading_dependent"  # north only as a half-plane
    assert ask("north", 95.0).gold == {"value": False}
    assert ask("north", 91.0).reason == "near_sector_edge"
    assert ask("north", 200.0).gold == {"value": False}
    # the example: bearing 78.9 deg is northeast as a quadrant, east on 8 sectors
    assert ask("northeast", 78.9, "J01.2").reason == "reading_dependent"
    assert ask("northeast", 40.0, "J01.2").gold == {"value": True}
    assert ask("northeast", 100.0, "J01.2").gold == {"value": False}
    assert ask("southwest", 300.0, "J01.2").gold == {"value": False}
    row = {"entity_A_lon": 0.0, "entity_A_lat": 1.0, "entity_B_lon": 0.0, "entity_B_lat": 0.0}
    intersecting = {**row, "intersects": True, "cardinal_direction": "north"}
    assert ex.finish(sub, intersecting).reason == "entities_intersect"


# ---------------------------------------------------------------- J02 side of route
def test_side_of_route_known_answers():
    sub = CATALOG.sub_template("J02.1")
    ex = EXECUTORS["direction.side_of_route"]
    c = offset(0, 2)  # route due north from ORIGIN
    row = {
        "entity_B_lon": ORIGIN[0],
        "entity_B_lat": ORIGIN[1],
        "entity_C_lon": c[0],
        "entity_C_lat": c[1],
    }

    def side(a):
        return ex.finish(sub, {**row, "entity_A_lon": a[0], "entity_A_lat": a[1]})

    assert side(offset(-0.3, 1)).gold["value"] == "left"  # west of a northbound route
    assert side(offset(0.3, 1)).gold["value"] == "right"
    assert side(offset(0.03, 1)).reason == "too_close_to_route"  # 30 m < max(50 m, 2 % of 2 km)
    assert side(offset(0.3, 2.5)).reason == "outside_route_span"
    assert side(offset(0.3, -0.1)).reason == "outside_route_span"


def test_side_of_route_world_against_bearing_difference(ring):
    sub = CATALOG.sub_template("J02.1")
    execs, _ = execute_sub_template(ring, sub, world.pool(ring, "worldkg"))
    assert execs
    pos = positions(ring)
    for e in execs:
        a, b, c = (pos[e.values[r]] for r in ("entity_A", "entity_B", "entity_C"))
        turn = (bearing(b, a) - bearing(b, c)) % 360  # A counter-clockwise from the route -> left
        assert e.outcome.gold["value"] == ("left" if turn > 180 else "right")


# ---------------------------------------------------------------- J03 along a line
LINE = "LINESTRING(-51.0 -30.0, -50.99 -30.0, -50.98 -30.0)"  # digitised west -> east, ~1.9 km
LINE_REV = "LINESTRING(-50.98 -30.0, -50.99 -30.0, -51.0 -30.0)"
LINE_TWO_WAY = "LINESTRING(-51.0 -30.0001, -50.99 -30.0001, -50.98 -30.0001)"  # no oneway tag
P1, P2, P3 = (-50.998, -30.001), (-50.985, -29.999), (-50.99, -30.02)  # P3 is ~2.2 km south


@pytest.fixture
def river(con):
    oneway = {"oneway": "yes", "osm_highway": "residential"}
    world.add(con, "osmh3kg:way/1", "River Road", "road", LINE, attributes=oneway)
    world.add(con, "osmh3kg:way/2", "Back Road", "road", LINE_REV, attributes=oneway)
    world.add(con, "osmh3kg:way/3", "Two Way Road", "road", LINE_TWO_WAY)
    merged = {
        **oneway,
        "road_parts": 2,
    }  # line-merged from two ways: its direction is not the tag's
    world.add(con, "osmh3kg:road/4", "Merged Road", "road", LINE_TWO_WAY, attributes=merged)
    world.add(
        con, "osmh3kg:way/5", "Blue Creek", "stream", LINE, attributes={"osm_waterway": "stream"}
    )
    for i, p in enumerate((P1, P2, P3), 1):
        world.add(con, f"osmh3kg:node/{i}", f"Shop {i}", "cafe", wkt_point(p))
    return con


def test_positions_along_by_hand():
    (pa, da), (pb, db) = positions_along(LINE, (-50.99, -30.0), [P1, P2])
    m_per_deg_lon = 111320 * math.cos(math.radians(30.0))  # ~96.4 km per degree at 30 S
    assert pa == pytest.approx(0.002 * m_per_deg_lon, rel=0.01) and pb == pytest.approx(
        0.015 * m_per_deg_lon, rel=0.01
    )
    assert da == pytest.approx(110.8, rel=0.01) and db == pytest.approx(110.8, rel=0.01)
    assert (
        positions_along("MULTILINESTRING((0 0, 1 0), (2 0, 3 0))", (1.5, 0.0), [(0.5, 0.0)]) is None
    )


def test_along_line_world(river):
    sub = CATALOG.sub_template("J03.1")
    ex = EXECUTORS["direction.along_line"]
    values = {
        "row_id": 0,
        "kg": "osmh3kg",
        "entity_A": "osmh3kg:node/1",
        "entity_B": "osmh3kg:node/2",
        "entity_C": "osmh3kg:way/1",
    }

    def run(sql, **over):
        return world.on_row(river, sql, {**values, **over})

    assert ex.finish(sub, run(ex.gold_sql(sub))).gold["value"] == "upstream"
    assert (
        ex.finish(sub, run(ex.gold_sql(sub), entity_C="osmh3kg:way/2")).gold["value"]
        == "downstream"
    )
    assert (
        ex.finish(
            sub, run(ex.gold_sql(sub), entity_A="osmh3kg:node/2", entity_B="osmh3kg:node/1")
        ).gold["value"]
        == "downstream"
    )
    assert (
        ex.finish(sub, run(ex.gold_sql(sub), entity_B="osmh3kg:node/3")).reason
        == "too_far_from_line"
    )
    # the digitised direction decides only along a oneway road or a flowing waterway
    assert (
        ex.finish(sub, run(ex.gold_sql(sub), entity_C="osmh3kg:way/5")).gold["value"] == "upstream"
    )
    for undirected in ("osmh3kg:way/3", "osmh3kg:road/4"):
        assert (
            ex.finish(sub, run(ex.gold_sql(sub), entity_C=undirected)).reason == "reading_dependent"
        )
    assert run(ex.premise_sql(sub))["holds"] is True
    assert run(ex.premise_sql(sub), entity_B="osmh3kg:node/3")["holds"] is False
    execs, _ = execute_sub_template(river, sub, world.pool(river, "osmh3kg"))
    assert execs and all(
        {e.values["entity_A"], e.values["entity_B"]} == {"osmh3kg:node/1", "osmh3kg:node/2"}
        for e in execs
    )
    assert {e.values["entity_C"] for e in execs} <= {
        "osmh3kg:way/1",
        "osmh3kg:way/2",
        "osmh3kg:way/5",
    }


# ---------------------------------------------------------------- generate / replay
def test_generate_and_replay_J(ring, river):
    # every tuple of the ring and the river: their few sides and directions are alike, which the
    # triviality cap would drop
    gen = generate(ring, CATALOG, ["worldkg", "osmh3kg"], only={"J"}, non_trivial=False)
    tids = {q["tid"] for q in gen.questions}
    assert {"J01", "J02", "J03", "J04"} <= tids
    for q in gen.questions:
        assert replay(ring, CATALOG, q) == json.loads(q["gold"])
