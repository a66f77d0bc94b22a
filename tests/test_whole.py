"""Whole features: pieces of roads, waterways and rail lines, and same-name stops and points close
together, merged at KG conversion, on hand-made KG files.

Coordinates are multiples of 1/1024 degree near Porto Alegre (EPSG:4326, lon/lat), so shared
endpoints are exact. Lengths are checked independently with pyproj's WGS84 geodesic, positions with
shapely.
"""

from __future__ import annotations

import json

import h3
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import shapely
from pyproj import Geod

from mgqa_platform.kg import whole
from mgqa_platform.kg.convert import convert_kg
from mgqa_platform.lineage import describe
from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.execution import triple_subject
from mgqa_platform.questions.executor import replay_sql
from mgqa_platform.questions.executors import EXECUTORS

U = 1 / 1024  # one grid unit in degrees
X0, Y0 = -51.0, -30.0
GEOD = Geod(ellps="WGS84")
CATALOG = load_catalog()


def line(*pts) -> str:
    return "LINESTRING(" + ", ".join(f"{X0 + x * U} {Y0 + y * U}" for x, y in pts) + ")"


def way(i: int, name: str, wkt: str, ref: str | None = None, tags: tuple = ()):
    s, g = f"way/{i}", f"geo/way/{i}"
    out = [
        (s, "rdf:type", "residential"),
        (s, "highway", "residential"),
        (s, "name", name),
        (s, "geo:hasGeometry", g),
        (g, "geo:asWKT", wkt),
    ]
    return out + ([(s, "ref", ref)] if ref else []) + [(s, k, v) for k, v in tags]


WAYS = {
    1: ("Rua A", line((0, 0), (10, 0)), None),
    2: ("Rua A", line((10, 0), (20, 0), (20, 5)), None),  # shares (10, 0) with way 1
    3: ("Rua A", line((500, 0), (510, 0)), None),  # same name, far away: another road
    4: ("Rua B", line((5, -5), (5, 5)), None),  # crosses Rua A: another name, untouched
    5: ("Rua B", line((15, -5), (15, 5)), None),  # crosses Rua A, not connected to way 4
    6: ("Estrada Velha", line((0, 50), (30, 50)), "RS-118"),
    7: ("Estrada Nova", line((30, 50), (40, 50)), "RS-118"),  # other name, same ref, touching
    8: ("rua  a", line((20, 5), (20, 9)), None),  # same name once normalized, touching way 2
    # a bilingual name on one piece, its French part as name:fr on the next: one road
    10: ("Avenue X", line((0, 100), (15, 100)), None),
    11: ("Avenue X شارع", line((15, 100), (25, 100)), None, (("name:fr", "Avenue X"),)),
    # named after the same person (name:etymology:wikidata is no name): two roads
    12: ("Rua C", line((0, 150), (10, 150)), None, (("name:etymology:wikidata", "Q1"),)),
    13: ("Rua D", line((10, 150), (20, 150)), None, (("name:etymology:wikidata", "Q1"),)),
}


def osmh3kg_file(path, ways=WAYS):
    triples = [t for i, (n, w, r, *tags) in ways.items() for t in way(i, n, w, r, *tags)]
    triples += [
        ("node/9", "rdf:type", "bench"),
        ("node/9", "amenity", "bench"),
        ("node/9", "name", "Banco"),
        ("node/9", "geo:hasGeometry", "geo/node/9"),
        ("geo/node/9", "geo:asWKT", f"POINT({X0} {Y0 + U})"),
    ]
    return write_triples(path, triples)


def write_triples(path, triples: list[tuple[str, str, str]], date: str = ""):
    """An OSM-H3-KG-shaped Parquet table of ``triples`` (subject, predicate, object) at ``path``,
    every row dated ``date``; returns ``path``."""
    cols = list(zip(*triples, strict=True))
    pq.write_table(
        pa.table(
            {
                "subject": list(cols[0]),
                "predicate": list(cols[1]),
                "object": list(cols[2]),
                "date": [date] * len(triples),
            }
        ),
        path,
    )
    return path


def rows(con, sql, *params):
    cur = con.execute(sql, list(params))
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


@pytest.fixture
def osm(con, tmp_path):
    res = convert_kg(con, "osmh3kg", osmh3kg_file(tmp_path / "o.parquet"), "snap")
    return con, res


def entities(con):
    return {
        r["entity_id"]: r
        for r in rows(con, "SELECT *, ST_AsText(geometry) AS wkt FROM entities ORDER BY entity_id")
    }


def test_touching_same_name_pieces_become_one_road(osm):
    con, res = osm
    ents = entities(con)
    road = ents["osmh3kg:road/way/1"]
    assert (road["name"], road["category"], road["geom_kind"]) == ("Rua A", "road", "line")
    assert road["iri"] == "urn:mgqa:road:osmh3kg:road/way/1"
    assert json.loads(road["attributes"])["road_parts"] == 3
    # the pieces are no longer entities; the far namesake and the crossing roads are untouched
    assert {"osmh3kg:way/1", "osmh3kg:way/2", "osmh3kg:way/8"}.isdisjoint(ents)
    assert ents["osmh3kg:way/3"]["name"] == "Rua A" and ents["osmh3kg:way/3"]["attributes"]
    for i in (4, 5):
        assert ents[f"osmh3kg:way/{i}"]["wkt"] == shapely.from_wkt(WAYS[i][1]).wkt
        assert "road_parts" not in json.loads(ents[f"osmh3kg:way/{i}"]["attributes"])
    parts = rows(
        con, "SELECT entity_id, part_entity_id, part_subject FROM entity_parts ORDER BY ALL"
    )
    assert parts == [
        {"entity_id": e, "part_entity_id": f"osmh3kg:way/{i}", "part_subject": f"way/{i}"}
        for e, i in [
            ("osmh3kg:road/way/1", 1),
            ("osmh3kg:road/way/1", 2),
            ("osmh3kg:road/way/1", 8),
            ("osmh3kg:road/way/10", 10),
            ("osmh3kg:road/way/10", 11),
            ("osmh3kg:road/way/6", 6),
            ("osmh3kg:road/way/6", 7),
        ]
    ]
    assert (res.road_parts_merged, res.roads_merged) == (7, 3)
    assert res.metadata()["roads_merged"] == 3
    assert ents["osmh3kg:road/way/10"]["name"] == "Avenue X"  # the longer piece's name
    assert {"osmh3kg:way/12", "osmh3kg:way/13"} <= set(ents)
    assert res.entities == len(ents) == 9


def test_merged_geometry_length_point_and_cells(osm):
    con, _ = osm
    road = entities(con)["osmh3kg:road/way/1"]
    g = shapely.from_wkt(road["wkt"])
    assert g.geom_type == "LineString"  # line-merged across the shared endpoints
    pieces = [shapely.from_wkt(WAYS[i][1]) for i in (1, 2, 8)]
    assert GEOD.geometry_length(g) == pytest.approx(
        sum(GEOD.geometry_length(p) for p in pieces), rel=1e-9
    )
    assert g.equals(shapely.union_all(pieces))
    assert shapely.Point(road["lon"], road["lat"]).distance(g) < 1e-9
    assert road["h3"] == [h3.latlng_to_cell(road["lat"], road["lon"], r) for r in (3, 5, 7, 9)]


def test_same_ref_merges_other_names_and_the_longest_share_names_the_road(osm):
    con, _ = osm
    road = entities(con)["osmh3kg:road/way/6"]
    assert road["name"] == "Estrada Velha"  # 30 units against 10
    labels = {
        (r["label"], r["is_alias"])
        for r in rows(con, "SELECT * FROM entity_labels WHERE entity_id = 'osmh3kg:road/way/6'")
    }
    assert ("Estrada Velha", False) in labels and ("Estrada Nova", True) in labels
    assert ("Estrada Nova", False) not in labels


def test_road_triples_cite_every_part_and_state_the_whole_road(osm):
    con, _ = osm
    trs = rows(con, "SELECT s, p, o FROM entity_triples WHERE entity_id = 'osmh3kg:road/way/1'")
    subjects = {t["s"] for t in trs}
    assert {"way/1", "way/2", "way/8", "geo/way/1", "geo/way/2", "geo/way/8"} <= subjects
    own = {(t["p"], t["o"]) for t in trs if t["s"] == "urn:mgqa:road:osmh3kg:road/way/1"}
    assert (whole.RDFS_LABEL, "Rua A") in own and ("rdf:type", "residential") in own
    assert {o for p, o in own if p == whole.DCT_HAS_PART} == {"way/1", "way/2", "way/8"}
    (wkt,) = [o for p, o in own if p == whole.GEO_AS_WKT]
    road = entities(con)["osmh3kg:road/way/1"]
    assert shapely.from_wkt(wkt).equals(shapely.from_wkt(road["wkt"]))
    assert triple_subject(road["entity_id"], road["iri"]) == "urn:mgqa:road:osmh3kg:road/way/1"
    assert triple_subject("osmh3kg:way/3", "https://www.openstreetmap.org/way/3") == "way/3"


def test_lineage_shows_the_parts(osm):
    con, _ = osm
    text = describe(con, "osmh3kg:road/way/1")
    assert "parts (3)" in text and "osmh3kg:way/8  (subject way/8)" in text
    assert describe(con, "osmh3kg:way/2").startswith(
        "osmh3kg:way/2 is a part of the whole feature osmh3kg:road/way/1"
    )


def test_reconversion_gives_the_same_rows(con, tmp_path):
    path = osmh3kg_file(tmp_path / "o.parquet")

    def dump():
        return [
            rows(con, f"SELECT * EXCLUDE (geometry), ST_AsWKB(geometry) AS g FROM {t}")
            if t == "entities"
            else rows(con, f"SELECT * FROM {t}")
            for t in ("entities", "entity_labels", "entity_triples", "entity_parts")
        ]

    convert_kg(con, "osmh3kg", path, "snap")
    first = dump()
    convert_kg(con, "osmh3kg", path, "snap")
    assert dump() == first


def _gold(con, sub_id: str, **values):
    sub = CATALOG.sub_template(sub_id)
    ex = EXECUTORS[sub.executor]
    cur = con.execute(replay_sql(ex, sub, {"row_id": 0, "kg": "osmh3kg", **values}))
    return ex.finish(sub, dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True)))


def one_stratum(con) -> None:
    """Every entity in one stratum (Brazil, upper-middle income, high density)."""
    con.execute(
        """
        INSERT INTO entity_strata
        SELECT entity_id, kg, 'BRA', 'UMC', 'high', NULL, 'UMC/high', NULL
        FROM entities
        """
    )


def test_road_questions_never_list_pieces_of_the_named_road(osm):
    con, _ = osm
    one_stratum(con)
    road = "osmh3kg:road/way/1"
    # roads that cross or touch Rua A: the two Rua B pieces, no piece of Rua A itself
    count = _gold(con, "C04.1", category_A="road", entity_B=road)
    assert count.gold == {"value": 2}
    assert set(count.evidence) == {"osmh3kg:way/4", "osmh3kg:way/5"}
    listed = _gold(con, "C05.1", category_A="road", entity_B=road)
    assert listed.gold["entity_ids"] == ["osmh3kg:way/4", "osmh3kg:way/5"]
    # and from a crossing road, Rua A is one road
    assert _gold(con, "C05.1", category_A="road", entity_B="osmh3kg:way/4").gold["entity_ids"] == [
        road
    ]


def test_components_tolerance_and_identity():
    def part(i, name, wkt, ref=None):
        return whole.Part(f"k:{i}", str(i), name, ref, "road", ("road",), shapely.from_wkt(wkt))

    gap = lambda m: m / whole.METRES_PER_DEGREE  # noqa: E731  metres of latitude in degrees
    parts = [
        part(1, "Main  Street", "LINESTRING(0 0, 0 0.01)"),
        part(2, "main street", f"LINESTRING(0 {0.01 + gap(0.5)}, 0 0.02)"),  # 0.5 m gap: joined
        part(3, "Main Street", f"LINESTRING(0 {0.02 + gap(3)}, 0 0.03)"),  # 3 m gap: separate
        part(4, "Side Street", "LINESTRING(-0.01 0.005, 0.01 0.005)"),  # crosses, other name
    ]
    assert whole.components(parts) == [[0, 1]]
    signed = [
        part(1, "S1", "LINESTRING(0 0, 0 0.01)", ref="S1"),
        part(2, "S1", "LINESTRING(1 0, 1 0.01)", ref="S1"),  # 111 km away: the same route
        part(3, "S2", "LINESTRING(2 0, 2 0.01)", ref="S2"),
    ]
    assert whole.components(signed) == []
    assert whole.components(signed, route_signs=True) == [[0, 1]]
    assert whole.identity("  Rua   São  JOÃO ") == whole.identity("rua são joão")
    assert whole.identity(" ") is None


KWG_PREFIXES = """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix geo: <http://www.opengis.net/ont/geosparql#> .
@prefix kwgr: <http://stko-kwg.geog.ucsb.edu/lod/resource/> .
@prefix kwg-ont: <http://stko-kwg.geog.ucsb.edu/lod/ontology/> .
@prefix seg: <urn:mgqa:kwg:> .
"""


def kwg_segment(code: str, n: int, wkt: str, label: str | None = None, within: bool = True) -> str:
    """A KnowWhereGraph road segment: its sign, an optional label, its line, an S2 cell link, and
    the direct ``sfWithin`` link to the county when ``within``."""
    s = f"seg:roadSegment.{code}.{n}"
    extra = f' ; rdfs:label "{label}"' if label else ""
    extra += " ; kwg-ont:sfWithin kwgr:county" if within else ""
    return (
        f'{s} a kwg-ont:RoadSegment ; kwg-ont:hasRoadSign "{code}" ; '
        f"kwg-ont:sfCrosses kwgr:s2.level13.{n} ; geo:hasGeometry kwgr:g.{code}.{n}{extra} .\n"
        f'kwgr:g.{code}.{n} geo:asWKT "{wkt}"^^geo:wktLiteral .\n'
    )


def test_kwg_segments_merge_by_road_sign(con, tmp_path):
    ttl = tmp_path / "kwg.ttl"
    ttl.write_text(
        KWG_PREFIXES
        + kwg_segment("S1", 1, "LINESTRING(-120 34, -120 34.015)")
        + kwg_segment("S1", 2, "LINESTRING(-120 34.015, -120 34.02)", label="State Route 1")
        + kwg_segment("S1", 3, "LINESTRING(-119 34, -119 34.01)")
        + kwg_segment("S2", 1, "LINESTRING(-118 34, -118 34.01)")
        + kwg_segment("S2", 2, "LINESTRING(-118 34.01, -118 34.02)", within=False)
        + kwg_segment("U101", 1, "LINESTRING(-120.01 34.005, -119.99 34.005)"),
        encoding="utf-8",
    )
    res = convert_kg(con, "kwg", ttl, "s")
    ents = entities(con)
    # KnowWhereGraph names roads by route signs: S1's third segment, 1 degree away, is still S1
    assert set(ents) == {
        "kwg:road/roadSegment.S1.1",
        "kwg:road/roadSegment.S2.1",
        "kwg:roadSegment.U101.1",
    }
    # a segment is named by its sign even where it has a label
    assert ents["kwg:road/roadSegment.S1.1"]["name"] == "S1"
    assert ents["kwg:road/roadSegment.S1.1"]["display_name"] == "State Route 1"
    assert ents["kwg:roadSegment.U101.1"]["display_name"] == "US Route 101"
    assert (res.road_parts_merged, res.roads_merged) == (5, 2)

    def own(road: str) -> set[tuple[str, str]]:
        return {
            (r["p"].rsplit("/", 1)[1], r["o"])
            for r in rows(
                con, "SELECT p, o FROM entity_triples WHERE s = ?", whole.ROAD_IRI_PREFIX + road
            )
        }

    s1, s2 = own("kwg:road/roadSegment.S1.1"), own("kwg:road/roadSegment.S2.1")
    road_type = ("22-rdf-syntax-ns#type", "http://stko-kwg.geog.ucsb.edu/lod/ontology/RoadSegment")
    assert road_type in s1 and road_type in s2
    county = "http://stko-kwg.geog.ucsb.edu/lod/resource/county"
    # both parts of S1 lie within the county, so the road does; one part of S2 does not
    assert ("sfWithin", county) in s1
    assert not any(p == "sfWithin" for p, _ in s2)
    # the segments' links to S2 cells are not restated for the road
    assert not any(p == "sfCrosses" for p, _ in s1 | s2)


def test_whole_parts_check(osm):
    from mgqa_dagster.data_quality import entities as entity_checks

    con, _ = osm
    (check,) = [c for c in entity_checks.ENTITY_CHECKS if c.name == "whole_parts_resolve"]
    assert check.blocking and check.run(con, "osmh3kg").passed
    con.execute(
        """
        INSERT INTO entity_parts
        VALUES ('osmh3kg', 'osmh3kg:road/way/99', 'osmh3kg:way/99', 'way/99')
        """
    )
    assert not check.run(con, "osmh3kg").passed
    con.execute("DELETE FROM entity_parts WHERE part_entity_id = 'osmh3kg:way/99'")
    con.execute(
        """
        INSERT INTO entity_parts
        VALUES ('osmh3kg', 'osmh3kg:road/way/1', 'osmh3kg:way/3', 'way/3')
        """
    )
    assert not check.run(con, "osmh3kg").passed  # way/3 is still an entity


def feature(s: str, key: str, value: str, name: str, wkt: str, tags: tuple = ()) -> list:
    """An OSMH3KG feature ``s`` tagged ``key=value`` (its type ``value``) with a name and a WKT."""
    g = f"geo/{s}"
    out = [(s, "rdf:type", value), (s, key, value), (s, "name", name), (s, "geo:hasGeometry", g)]
    return out + [(g, "geo:asWKT", wkt)] + [(s, k, v) for k, v in tags]


def point(x: float, y: float) -> str:
    return f"POINT({X0 + x * U} {Y0 + y * U})"


#: One grid unit is 1/1024 degree: 108.6 m north-south, 94 m east-west at 30 degrees south.
FAMILY_FEATURES = [
    # a stream in two pieces 54 m apart (within 100 m): one stream; a namesake 326 m on: another
    *feature("way/20", "waterway", "stream", "Arroio X", line((0, 300), (10, 300))),
    *feature("way/21", "waterway", "stream", "Arroio X", line((10.5, 300), (30, 300))),
    *feature("way/22", "waterway", "stream", "Arroio X", line((33, 300), (40, 300))),
    # subway track pieces: "Linha 4" with a 300 m gap is one line; "Linha 1" joins by its ref
    *feature("way/30", "railway", "subway", "Linha 4", line((0, 400), (20, 400))),
    *feature("way/31", "railway", "subway", "Linha 4", line((20, 403), (20, 420))),
    *feature("way/32", "railway", "subway", "Linha 1", line((10, 390), (10, 410)), (("ref", "1"),)),
    *feature("way/33", "railway", "subway", "Linha 1 - Azul", line((10, 412), (10, 440)))
    + [("way/33", "ref", "1")],
    # a tram line of the same name is not the subway line
    *feature("way/34", "railway", "tram", "Linha 4", line((0, 380), (20, 380))),
    # a road that crosses all four subway track pieces, of two subway lines
    *feature("way/35", "highway", "residential", "Rua X", line((5, 395), (25, 415), (5, 420))),
    # the two platforms of one bus stop 109 m apart: one stop; a namesake 435 m away: another
    *feature("node/40", "highway", "bus_stop", "Parada P", point(0, 500)),
    *feature("node/41", "highway", "bus_stop", "Parada P", point(0, 501)),
    *feature("node/42", "highway", "bus_stop", "Parada P", point(0, 505)),
    # same-name cafes 27 m apart: one cafe; one 109 m away stays; a same-name bank stays
    *feature("node/50", "amenity", "cafe", "Café C", point(0, 600)),
    *feature("node/51", "amenity", "cafe", "Café C", point(0, 600.25)),
    *feature("node/52", "amenity", "cafe", "Café C", point(0, 601.25)),
    *feature("node/53", "amenity", "bank", "Café C", point(0.1, 600)),
]


@pytest.fixture
def families(con, tmp_path):
    path = write_triples(tmp_path / "f.parquet", FAMILY_FEATURES)
    return con, convert_kg(con, "osmh3kg", path, "snap")


def test_every_family_merges_its_pieces(families):
    con, res = families
    ents = entities(con)
    parts = {
        e: sorted(
            p
            for (p,) in con.execute(
                "SELECT part_entity_id FROM entity_parts WHERE entity_id = ?", [e]
            ).fetchall()
        )
        for e in ents
    }
    merged = {e: ps for e, ps in parts.items() if ps}
    n = "osmh3kg:"
    assert merged == {
        f"{n}waterway/way/20": [f"{n}way/20", f"{n}way/21"],
        f"{n}rail/way/30": [f"{n}way/30", f"{n}way/31"],
        f"{n}rail/way/32": [f"{n}way/32", f"{n}way/33"],
        f"{n}stop/node/40": [f"{n}node/40", f"{n}node/41"],
        f"{n}point/node/50": [f"{n}node/50", f"{n}node/51"],
    }
    for kept in ("way/22", "way/34", "node/42", "node/52", "node/53"):
        assert f"{n}{kept}" in ents
    stop = ents[f"{n}stop/node/40"]
    assert (stop["name"], stop["category"], stop["geom_kind"]) == ("Parada P", "bus_stop", "point")
    assert stop["iri"] == f"urn:mgqa:stop:{n}stop/node/40"
    assert json.loads(stop["attributes"])["stop_parts"] == 2
    assert ents[f"{n}rail/way/32"]["name"] == "Linha 1 - Azul"  # the longer piece's name
    assert res.wholes_by_family == {
        "point": {"parts": 2, "wholes": 1},
        "rail": {"parts": 4, "wholes": 2},
        "stop": {"parts": 2, "wholes": 1},
        "waterway": {"parts": 2, "wholes": 1},
    }
    assert res.metadata()["wholes_by_family"]["rail"] == {"parts": 4, "wholes": 2}
    assert (res.road_parts_merged, res.roads_merged) == (0, 0)


def test_merged_length_is_the_sum_of_the_parts(families):
    con, _ = families
    ents = entities(con)
    for whole_id, ids in {
        "osmh3kg:waterway/way/20": ("way/20", "way/21"),
        "osmh3kg:rail/way/30": ("way/30", "way/31"),
    }.items():
        wkts = [o for s, p, o in FAMILY_FEATURES if p == "geo:asWKT" and s[4:] in ids]
        g = shapely.from_wkt(ents[whole_id]["wkt"])
        assert g.geom_type == "MultiLineString"  # a gap between the pieces
        assert GEOD.geometry_length(g) == pytest.approx(
            sum(GEOD.geometry_length(shapely.from_wkt(w)) for w in wkts), rel=1e-9
        )


def test_line_counts_count_whole_lines(families):
    con, _ = families
    one_stratum(con)
    # Rua X crosses four subway track pieces of two subway lines
    count = _gold(con, "C04.1", category_A="subway", entity_B="osmh3kg:way/35")
    assert count.gold == {"value": 2}
    assert set(count.evidence) == {"osmh3kg:rail/way/30", "osmh3kg:rail/way/32"}


def test_whole_ids_and_iris():
    assert whole.family_of("osmh3kg:waterway/way/1") == "waterway"
    assert whole.family_of("osmh3kg:way/1") is None
    assert whole.whole_iri("kwg:road/x.1") == "urn:mgqa:road:kwg:road/x.1"
    assert whole.is_whole_iri("urn:mgqa:stop:osmh3kg:stop/node/1")
    assert not whole.is_whole_iri("urn:mgqa:kwg:roadSegment.S1.1")
    assert whole.kind_of("stream", "line").family == "waterway"
    assert whole.kind_of("bus_stop", "point").family == "stop"
    assert whole.kind_of("cafe", "point").family == "point"
    assert whole.kind_of("cafe", "polygon") is None


def test_events_are_never_pieces(con):
    """Two earthquakes of one title at one place are two events; two cafes there are one cafe."""
    con.execute(
        """
        CREATE TEMP TABLE facts (s VARCHAR, k VARCHAR, v VARCHAR);
        CREATE TEMP TABLE new_entities AS
        SELECT * FROM (VALUES
            ('k:1', 's1', 'M 2 - Near X', 'earthquake', 'point', '2020-01-01', NULL),
            ('k:2', 's2', 'M 2 - Near X', 'earthquake', 'point', '2021-01-01', NULL),
            ('k:3', 's3', 'Cafe', 'cafe', 'point', NULL, NULL),
            ('k:4', 's4', 'Cafe', 'cafe', 'point', NULL, NULL)
        ) t(entity_id, subject, name, category, geom_kind, valid_from, valid_to),
        (SELECT ST_AsWKB(ST_Point(-51.0, -30.0)) AS wkb, ['t'] AS types, NULL AS attributes)
        """
    )
    parts = whole.read_parts(con)
    assert [p.entity_id for p in parts["point"]] == ["k:3", "k:4"]
    assert whole.components(parts["point"], whole.KINDS[-1]) == [[0, 1]]


def test_stops_join_by_their_name_without_stop_numbers():
    def stop(i, name, lat):
        return whole.Part(f"k:{i}", str(i), name, None, "bus_stop", (), shapely.Point(1.5, lat))

    stop_kind = whole.kind_of("bus_stop", "point")
    near = 60 / whole.METRES_PER_DEGREE  # 60 m north
    parts = [
        stop(1, "605 La Riberola", 42.5),
        stop(2, "620 La Riberola", 42.5 + near),  # the other side of the road: one stop
        stop(3, "La Riberola", 42.5 + 20 * near),  # 1.2 km away: another stop
    ]
    assert whole.components(parts, stop_kind) == [[0, 1]]
    # the same numbers on cafes are part of their names: no join
    cafes = [whole.Part(p.entity_id, p.subject, p.name, None, "cafe", (), p.geom) for p in parts]
    assert whole.components(cafes, whole.kind_of("cafe", "point")) == []
