"""SFID E executors (administrative hierarchy, containment) on tiny hand-made worlds.

A KWG-like world near Santa Barbara: a state, two counties (one of two parts), part-of triples,
schools; and an OSM-like world with city blocks, buildings, cafes/bars and roads. Independent checks
recompute areas with pyproj (EPSG:6933, always_xy) + shapely, lengths with pyproj.Geod and
point-in-polygon with shapely.
"""

from __future__ import annotations

import json

import pytest
from pyproj import Geod, Transformer
from shapely import ops
from shapely import wkt as shapely_wkt

from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executor import replay_sql
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.questions.generate import generate, replay
from tests import question_world as world

CATALOG = load_catalog()
GEOD = Geod(ellps="WGS84")
TO_6933 = Transformer.from_crs("EPSG:4326", "EPSG:6933", always_xy=True)
PART_OF = "http://stko-kwg.geog.ucsb.edu/lod/ontology/administrativePartOf"
SF_WITHIN = "http://stko-kwg.geog.ucsb.edu/lod/ontology/sfWithin"


def box(x0, y0, x1, y1) -> str:
    return f"POLYGON(({x0} {y0}, {x1} {y0}, {x1} {y1}, {x0} {y1}, {x0} {y0}))"


def iri(entity_id: str) -> str:
    kg, local = entity_id.split(":", 1)
    return f"http://example.org/{kg}/{local}"


def edge(con, child: str, p: str, parent_iri: str) -> None:
    con.execute(
        "INSERT INTO entity_triples VALUES (?, ?, ?, ?, ?)",
        [child, child.split(":")[0], iri(child), p, parent_iri],
    )


def area_m2(w: str) -> float:
    return ops.transform(TO_6933.transform, shapely_wkt.loads(w)).area


def run(con, sub_id: str, kg: str, **values):
    sub = CATALOG.sub_template(sub_id)
    ex = EXECUTORS[sub.executor]
    cur = con.execute(replay_sql(ex, sub, {"row_id": 0, "kg": kg, **values}))
    row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    return ex.finish(sub, row), row


def premise(con, sub_id: str, kg: str, **values) -> bool:
    sub = CATALOG.sub_template(sub_id)
    ex = EXECUTORS[sub.executor]
    sql = replay_sql(ex, sub, {"row_id": 0, "kg": kg, **values}).split("\nSELECT * FROM (")[0]
    return con.execute(f"{sql} SELECT holds FROM ({ex.premise_sql(sub)}) q").fetchone()[0]


# ---------------------------------------------------------------------------------------- KWG world
STATE = box(-121.0, 34.0, -119.0, 35.5)
COUNTY = (
    "MULTIPOLYGON(((-120.5 34.4, -119.5 34.4, -119.5 35.0, -120.5 35.0, -120.5 34.4)), "
    "((-120.2 34.0, -120.0 34.0, -120.0 34.1, -120.2 34.1, -120.2 34.0)))"
)
OTHER = box(-119.5, 34.4, -119.0, 35.0)  # neighbouring county, shares the edge lon -119.5
FIRES = {
    "F1": box(-120.3, 34.5, -120.2, 34.6),
    "F2": box(-119.6, 34.5, -119.4, 34.6),
    "F3": box(-119.52, 34.5, -119.4, 34.6),
}


@pytest.fixture
def kwg(con):
    st = "HIC/high"
    world.add(con, "kwg:state", "State", "administrative_region", STATE, stratum=st, iso3="USA")
    world.add(con, "kwg:county", "County", "administrative_region", COUNTY, stratum=st, iso3="USA")
    world.add(
        con, "kwg:other", "Other County", "administrative_region", OTHER, stratum=st, iso3="USA"
    )
    edge(con, "kwg:county", PART_OF, iri("kwg:state"))
    edge(con, "kwg:other", PART_OF, iri("kwg:state"))
    schools = dict(S1=(-120.0, 34.7), S2=(-119.2, 34.7), S3=(-120.1, 34.05), S4=(-120.4, 34.8))
    for n, (x, y) in schools.items():
        world.add(
            con, f"kwg:{n}", f"School {n}", "school", f"POINT({x} {y})", stratum=st, iso3="USA"
        )
    edge(con, "kwg:S1", SF_WITHIN, iri("kwg:county"))
    edge(con, "kwg:S2", SF_WITHIN, iri("kwg:other"))
    edge(
        con, "kwg:S4", SF_WITHIN, iri("kwg:other")
    )  # the KG edge disagrees with the geometry: the edge wins
    for n, w in FIRES.items():
        world.add(
            con,
            f"kwg:{n}",
            f"Fire {n}",
            "wildfire",
            w,
            stratum=st,
            iso3="USA",
            valid_from="2017-12-04",
        )
    for i in range(3):
        world.add(
            con,
            f"kwg:P{i}",
            f"Park {i}",
            "park",
            f"POINT({-120.3 + 0.1 * i} {34.6 + 0.05 * i})",
            stratum=st,
            iso3="USA",
        )
    return con


def test_membership_follows_part_of_edges_transitively(kwg):
    yes, _ = run(
        kwg, "E01.2", "kwg", entity_A="kwg:S1", entity_B="kwg:state"
    )  # S1 -> county -> state
    assert yes.gold == {"value": True}
    no, _ = run(kwg, "E01.2", "kwg", entity_A="kwg:S1", entity_B="kwg:other")
    assert no.gold == {"value": False}
    edge_wins, _ = run(
        kwg, "E01.2", "kwg", entity_A="kwg:S4", entity_B="kwg:county"
    )  # inside geometrically
    assert edge_wins.gold == {"value": False}
    region, _ = run(kwg, "E01.1", "kwg", entity_A="kwg:county", entity_B="kwg:state")
    assert region.gold == {"value": True}


def test_membership_geometry_fallback(kwg):
    yes, _ = run(
        kwg, "E01.2", "kwg", entity_A="kwg:S3", entity_B="kwg:county"
    )  # no edge: second part of the county
    assert yes.gold == {"value": True}
    assert shapely_wkt.loads(COUNTY).contains(shapely_wkt.loads("POINT(-120.1 34.05)"))
    world.add(
        kwg,
        "kwg:S5",
        "School S5",
        "school",
        "POINT(-120.5001 34.7)",
        stratum="HIC/high",
        iso3="USA",
    )  # ~9 m outside
    near, _ = run(kwg, "E01.2", "kwg", entity_A="kwg:S5", entity_B="kwg:county")
    assert near.reason == "near_boundary"


def test_membership_ignores_s2_cells(kwg):
    """A KnowWhereGraph feature linked only to its S2 grid cell has no part-of edge: geometry
    decides (the cell is no region of the KG)."""
    cell = "http://stko-kwg.geog.ucsb.edu/lod/resource/s2.level13.9288978710273196032"
    world.add(
        kwg, "kwg:S6", "School S6", "school", "POINT(-120.0 34.8)", stratum="HIC/high", iso3="USA"
    )
    edge(kwg, "kwg:S6", SF_WITHIN, cell)
    yes, row = run(kwg, "E01.2", "kwg", entity_A="kwg:S6", entity_B="kwg:county")
    assert yes.gold == {"value": True}
    assert row["n_edges"] == 0
    edge(kwg, "kwg:S3", SF_WITHIN, cell)  # and an S2 link beside a real edge changes nothing
    edge(kwg, "kwg:S3", SF_WITHIN, iri("kwg:county"))
    via_edge, row = run(kwg, "E01.2", "kwg", entity_A="kwg:S3", entity_B="kwg:state")
    assert via_edge.gold == {"value": True}
    assert row["n_edges"] == 2  # S3 -> county -> state, the cell not counted


def test_parts_of_multipolygon(kwg):
    out, row = run(kwg, "E02.3", "kwg", entity_B="kwg:county")
    assert out.gold == {"value": len(shapely_wkt.loads(COUNTY).geoms)} == {"value": 2}
    expected = sorted(area_m2(p.wkt) for p in shapely_wkt.loads(COUNTY).geoms)
    assert sorted(row["part_m2"]) == pytest.approx(expected, rel=1e-9)


def test_full_containment_of_event_areas(kwg):
    inside, row = run(kwg, "E04.3", "kwg", entity_A="kwg:county", entity_B="kwg:F1")
    assert inside.gold == {"value": True} and row["share_out"] == pytest.approx(0.0, abs=1e-12)
    half, row = run(kwg, "E04.3", "kwg", entity_A="kwg:county", entity_B="kwg:F2")
    assert half.gold == {"value": False}
    fire, county = shapely_wkt.loads(FIRES["F2"]), shapely_wkt.loads(COUNTY)
    assert row["share_out"] == pytest.approx(
        area_m2(fire.difference(county).wkt) / area_m2(fire.wkt), rel=1e-9
    )


def test_collection_count_in_county(kwg):
    out, _ = run(kwg, "E03.1", "kwg", entity_A="kwg:county", category_A="school", category_B="park")
    pts = {"S1": (-120.0, 34.7), "S3": (-120.1, 34.05), "S4": (-120.4, 34.8), "S2": (-119.2, 34.7)}
    county = shapely_wkt.loads(COUNTY)
    expected = (
        sum(county.intersects(shapely_wkt.loads(f"POINT({x} {y})")) for x, y in pts.values()) + 3
    )
    assert out.gold == {"value": expected} == {"value": 6}
    dup, _ = run(
        kwg, "E03.1", "kwg", entity_A="kwg:county", category_A="school", category_B="school"
    )
    assert dup.reason == "repeated_category"


# ---------------------------------------------------------------------------------------- OSM world
OKG = "osmh3kg"
REGION = box(24.90, 60.10, 24.92, 60.11)
REGION2 = box(24.91, 60.105, 24.93, 60.12)  # overlaps REGION
BUILDINGS = {
    "H1": box(24.901, 60.101, 24.902, 60.102),  # inside
    "H2": box(24.903, 60.101, 24.904, 60.102),  # inside
    "H3": box(24.919, 60.101, 24.921, 60.102),  # half outside
    "H4": box(24.95, 60.101, 24.951, 60.102),  # far
}


def oid(n: str) -> str:
    return f"{OKG}:way/{n}"


@pytest.fixture
def osm(con):
    st = "HIC/high"
    world.add(con, oid("R1"), "Block One", "city_block", REGION, stratum=st, iso3="FIN")
    world.add(con, oid("R2"), "Block Two", "city_block", REGION2, stratum=st, iso3="FIN")
    world.add(
        con,
        oid("R3"),
        "Block Three",
        "city_block",
        box(25.0, 60.0, 25.01, 60.01),
        stratum=st,
        iso3="FIN",
    )
    for n, w in BUILDINGS.items():
        world.add(con, oid(n), f"Building {n}", "building", w, stratum=st, iso3="FIN")
    pois = {
        "c1": ("cafe", 24.905, 60.105),
        "c2": ("cafe", 24.915, 60.107),
        "c3": ("cafe", 24.94, 60.107),
        "b1": ("bar", 24.906, 60.104),
        "b2": ("bar", 24.95, 60.2),
        "b3": ("bar", 24.96, 60.2),
        "r1": ("restaurant", 24.907, 60.103),
        "r2": ("restaurant", 24.97, 60.2),
        "r3": ("restaurant", 24.98, 60.2),
    }
    for n, (c, x, y) in pois.items():
        world.add(con, f"{OKG}:node/{n}", f"{c} {n}", c, f"POINT({x} {y})", stratum=st, iso3="FIN")
    roads = {
        "L1": "LINESTRING(24.912 60.106, 24.918 60.106)",  # 333 m, inside R1 and R2
        "L2": "LINESTRING(24.915 60.108, 24.925 60.108)",  # longest, leaves R1
        "L3": "LINESTRING(24.913 60.109, 24.914 60.109)",
    }  # shortest, inside R1
    for n, w in roads.items():
        world.add(con, oid(n), f"Road {n}", "road", w, stratum=st, iso3="FIN")
    return con


def test_components_count_inside(osm):
    out, row = run(osm, "E02.2", OKG, category_A="building", entity_B=oid("R1"))
    assert out.gold == {"value": 2} and set(out.evidence) == {oid("H1"), oid("H2")}
    region = shapely_wkt.loads(REGION)
    for m in row["members"]:
        b = shapely_wkt.loads(BUILDINGS[m["id"].rsplit("/", 1)[1]])
        assert m["share"] == pytest.approx(
            area_m2(b.intersection(region).wkt) / area_m2(b.wkt), rel=1e-9
        )
    assert premise(osm, "E02.2", OKG, category_A="building", entity_B=oid("R1")) is True
    assert premise(osm, "E02.2", OKG, category_A="building", entity_B=oid("R3")) is False


def test_collection_count_named_collection(osm):
    out, _ = run(
        osm, "E03.3", OKG, entity_A=oid("R1"), collection_of_entity="bars, cafes and restaurants"
    )
    assert out.gold == {"value": 4}  # c1, c2, b1, r1
    out, _ = run(
        osm,
        "E03.2",
        OKG,
        entity_A=oid("R1"),
        category_A="cafe",
        category_B="bar",
        category_C="restaurant",
    )
    assert out.gold == {"value": 4}


def test_full_containment_polygons(osm):
    assert run(osm, "E04.1", OKG, entity_A=oid("R1"), entity_B=oid("H1"))[0].gold == {"value": True}
    assert run(osm, "E04.1", OKG, entity_A=oid("R1"), entity_B=oid("H3"))[0].gold == {
        "value": False
    }
    world.add(
        osm,
        oid("H5"),
        "Building H5",
        "building",
        box(24.9195, 60.103, 24.920003, 60.104),
        stratum="HIC/high",
        iso3="FIN",
    )
    assert (
        run(osm, "E04.1", OKG, entity_A=oid("R1"), entity_B=oid("H5"))[0].reason
        == "containment_ambiguous"
    )


def test_ranked_containment(osm):
    def roads(a: str, c: str, rank_type: str) -> dict:
        return dict(entity_A=oid(a), category_B="road", entity_C=oid(c), rank_type=rank_type)

    longest, row = run(osm, "E05.1", OKG, **roads("R1", "R2", "longest"))
    assert longest.gold == {"value": False} and longest.evidence == (oid("L2"),)
    lengths = {m["id"]: m["measure"] for m in row["members"]}
    assert lengths[oid("L2")] == pytest.approx(
        GEOD.inv(24.915, 60.108, 24.925, 60.108)[2], rel=1e-6
    )
    shortest, _ = run(osm, "E05.1", OKG, **roads("R1", "R2", "shortest"))
    assert shortest.gold == {"value": True} and shortest.evidence == (oid("L3"),)
    assert premise(osm, "E05.1", OKG, **roads("R1", "R2", "longest")) is True
    assert premise(osm, "E05.1", OKG, **roads("R2", "R3", "longest")) is False


# ----------------------------------------------------------------------------------------- generate
def test_generate_and_replay_sfid_e(kwg, osm):
    gen = generate(kwg, CATALOG, ["kwg", OKG], only={"E"})
    assert gen.questions
    assert {q["tid"] for q in gen.questions} >= {"E01", "E02", "E03", "E04", "E05"}
    for q in gen.questions:
        assert replay(kwg, CATALOG, q) == json.loads(q["gold"])


def test_components_count_direct_subdivisions_only(con):
    """E02.1 on an Andorra-like hierarchy: a country (admin_level 2) tiled by two parishes (7), one
    of which holds a municipality (8). The country is made up of 2 regions, not 3; the parish of
    1."""
    st = "HIC/high"
    levels = {
        "C": (box(1.0, 42.0, 2.0, 43.0), 2),
        "P1": (box(1.0, 42.0, 1.5, 43.0), 7),
        "P2": (box(1.5, 42.0, 2.0, 43.0), 7),
        "M1": (box(1.1, 42.1, 1.3, 42.3), 8),
    }
    for n, (w, level) in levels.items():
        world.add(
            con,
            f"{OKG}:relation/{n}",
            f"Region {n}",
            "administrative_region",
            w,
            stratum=st,
            iso3="AND",
            attributes={"admin_level": level},
        )
    out, row = run(
        con, "E02.1", OKG, category_A="administrative_region", entity_B=f"{OKG}:relation/C"
    )
    assert len(row["members"]) == 3  # all three lie inside the country ...
    assert out.gold == {"value": 2}  # ... but only the parishes make it up
    assert set(out.evidence) == {f"{OKG}:relation/P1", f"{OKG}:relation/P2"}
    out, _ = run(
        con, "E02.1", OKG, category_A="administrative_region", entity_B=f"{OKG}:relation/P1"
    )
    assert out.gold == {"value": 1} and out.evidence == (f"{OKG}:relation/M1",)


def test_ranked_containment_never_ranks_entity_c_itself(con):
    """E05.2 over administrative regions: Ordino-like C holds no other region, so "the smallest
    administrative region in C" does not exist (C is not in itself): the tuple is discarded; with a
    municipality inside C, that municipality is ranked."""
    st = "HIC/high"
    for n, w in {"A": box(1.0, 42.0, 1.5, 43.0), "C": box(1.5, 42.0, 2.0, 43.0)}.items():
        world.add(con, f"{OKG}:relation/{n}", f"Parish {n}", "administrative_region", w, stratum=st)
    values = dict(
        entity_A=f"{OKG}:relation/A",
        category_B="administrative_region",
        entity_C=f"{OKG}:relation/C",
        rank_type="smallest",
    )
    out, row = run(con, "E05.2", OKG, **values)
    assert not row["members"] and out.gold is None
    world.add(
        con, f"{OKG}:relation/M", "Town M", "administrative_region", box(1.6, 42.1, 1.7, 42.2)
    )
    out, row = run(con, "E05.2", OKG, **values)
    assert [m["id"] for m in row["members"]] == [f"{OKG}:relation/M"]
    assert out.gold == {"value": False} and out.evidence == (f"{OKG}:relation/M",)
