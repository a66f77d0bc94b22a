"""KG conversion: entity rows from each native format, and every kind of bad input quarantined."""

from __future__ import annotations

import json

import h3
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import shapely

from mgqa_platform.kg.convert import convert_kg
from mgqa_platform.kg.osmh3kg_build import build_osmh3kg
from mgqa_platform.kg.rdf_stream import RdfStreamReader
from mgqa_platform.kg.worldkg_build import build_worldkg

PREFIXES = """@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix geo: <http://www.opengis.net/ont/geosparql#> .
@prefix wkg: <http://www.worldkg.org/resource/> .
@prefix wkgs: <http://www.worldkg.org/schema/> .
"""


def wkg_node(i: int, name: str | None, wkt: str, cls: str = "Pharmacy", extra: str = "") -> str:
    """One entity in WorldKG's published form: its class's key tag is consumed as the type."""
    label = f' ;\n    rdfs:label "{name}"' if name is not None else ""
    return (
        f"wkg:{i} a wkgs:{cls}{label}{extra} ;\n    wkgs:spatialObject wkg:geo{i} .\n"
        f'wkg:geo{i} geo:asWKT "{wkt}"^^geo:wktLiteral .\n'
    )


def rows(con, sql, *params):
    cur = con.execute(sql, list(params))
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def quarantine(con, kg):
    return {
        (r["reason"], r["source"])
        for r in rows(con, "SELECT reason, source FROM quarantine WHERE kg = ?", kg)
    }


def test_worldkg_from_pbf(con, tiny_pbf, tmp_path):
    ttl = tmp_path / "wkg.ttl"
    build_worldkg(tiny_pbf, ttl)
    res = convert_kg(con, "worldkg", ttl, "snap-1")
    ents = {
        r["entity_id"]: r
        for r in rows(
            con, "SELECT *, ST_AsText(geometry) AS wkt FROM entities WHERE kg = 'worldkg'"
        )
    }
    assert set(ents) == {"worldkg:1", "worldkg:2", "worldkg:3", "worldkg:4"}
    cafe = ents["worldkg:1"]
    # canonical name = English label; category from rdf:type; lon/lat from the WKT; H3 from h3-py
    assert (
        cafe["name"] == "Central Cafe" and cafe["category"] == "cafe" and cafe["types"] == ["Cafe"]
    )
    assert (cafe["lon"], cafe["lat"]) == (-51.22, -30.03)
    assert (
        cafe["h3"][3] == h3.latlng_to_cell(-30.03, -51.22, 9)
        and h3.get_resolution(cafe["h3"][0]) == 3
    )
    assert cafe["image_url"] == "https://example.org/cafe.jpg" and cafe["wikidata"] == "Q1"
    assert cafe["snapshot_id"] == "snap-1" and cafe["geom_kind"] == "point"
    # "Café Central" twice on Rua B, both cafes: neither street nor category word separates them, so
    # both keep the plain name and are flagged ambiguous (never coordinates or ids)
    for twin in ("worldkg:2", "worldkg:3"):
        assert (ents[twin]["display_name"], ents[twin]["name_unique"]) == ("Café Central", False)
    assert cafe["display_name"] == "Central Cafe" and cafe["name_unique"]  # unique as it is
    assert (res.ambiguous_names, res.disambiguated_names) == (2, 0)
    labels = {
        (r["lang"], r["label"], r["is_alias"])
        for r in rows(con, "SELECT * FROM entity_labels WHERE entity_id = 'worldkg:1'")
    }
    assert {("eng", "Central Cafe", False), ("und", "Café Central", False)} <= labels
    # name:pt is not in WorldKG's key list: the real KG has no Portuguese label, nor do we
    assert not any(lang == "por" for lang, _, _ in labels)
    assert ("und", "Popular", True) in {
        (r["lang"], r["label"], r["is_alias"])
        for r in rows(con, "SELECT * FROM entity_labels WHERE entity_id = 'worldkg:4'")
    }
    # the source triples include the geometry node, so the gold answer can cite the coordinates
    cited = {
        (r["s"], r["p"])
        for r in rows(con, "SELECT s, p FROM entity_triples WHERE entity_id = 'worldkg:1'")
    }
    assert (
        "http://www.worldkg.org/resource/geo1",
        "http://www.opengis.net/ont/geosparql#asWKT",
    ) in cited
    # node 5 (amenity=bench, unnamed) has a single tag: WorldKG never made it an entity
    assert not any(src.endswith("/5") for _, src in quarantine(con, "worldkg"))
    assert res.entities == 4 and sum(res.quarantined.values()) == 0


def test_osmh3kg_from_pbf(con, tiny_pbf, tmp_path):
    pq_path = tmp_path / "o.parquet"
    build_osmh3kg(tiny_pbf, pq_path, fallback_date="2026-11-01")
    convert_kg(con, "osmh3kg", pq_path, "snap-2")
    ents = {
        r["entity_id"]: r
        for r in rows(
            con, "SELECT *, ST_AsText(geometry) AS wkt FROM entities WHERE kg = 'osmh3kg'"
        )
    }
    road = ents["osmh3kg:way/100"]
    assert (
        road["category"] == "road"
        and road["geom_kind"] == "line"
        and road["name"] == "Ipiranga Avenue"
    )
    assert road["iri"] == "https://www.openstreetmap.org/way/100"
    # J03 needs a road's direction of travel: the oneway tag is kept as an attribute
    assert json.loads(road["attributes"]) == {"oneway": "yes", "osm_highway": "primary"}
    park = ents["osmh3kg:way/101"]
    assert park["geom_kind"] == "polygon" and park["category"] == "park"
    # the representative point lies inside the polygon (checked with shapely, independently of
    # DuckDB)
    assert shapely.from_wkt(park["wkt"]).contains(shapely.Point(park["lon"], park["lat"]))
    assert ents["osmh3kg:relation/200"]["category"] == "forest"


def test_crs_prefix_invalid_and_repaired_geometries(con, tmp_path):
    ttl = tmp_path / "bad.ttl"
    ttl.write_text(
        PREFIXES
        + wkg_node(1, "Prefixed", "<http://www.opengis.net/def/crs/OGC/1.3/CRS84> POINT(10 20)")
        + wkg_node(
            2, "Mercator", "<http://www.opengis.net/def/crs/EPSG/0/3857> POINT(1113194 2273030)"
        )
        + wkg_node(3, "Garbage", "POINT(10 20")
        + wkg_node(4, "Bowtie", "POLYGON((0 0, 2 2, 2 0, 0 2, 0 0))")
        + wkg_node(5, "Off the globe", "POINT(200 95)")
        + wkg_node(6, "Collection", "GEOMETRYCOLLECTION(POINT(1 1))"),
        encoding="utf-8",
    )
    convert_kg(con, "worldkg", ttl, "s")
    ents = {
        r["entity_id"]: r
        for r in rows(
            con,
            "SELECT entity_id, lon, lat, ST_IsValid(geometry) AS ok, "
            "ST_GeometryType(geometry)::VARCHAR AS t "
            "FROM entities",
        )
    }
    assert (ents["worldkg:1"]["lon"], ents["worldkg:1"]["lat"]) == (10.0, 20.0)
    assert ents["worldkg:4"]["ok"] and ents["worldkg:4"]["t"] in (
        "POLYGON",
        "MULTIPOLYGON",
    )  # repaired by make_valid
    q = quarantine(con, "worldkg")
    assert ("unsupported_crs", "http://www.worldkg.org/resource/2") in q
    assert ("invalid_wkt", "http://www.worldkg.org/resource/3") in q
    assert ("out_of_range", "http://www.worldkg.org/resource/5") in q
    assert ("unsupported_geometry", "http://www.worldkg.org/resource/6") in q


def test_malformed_and_non_utf8_statements_are_quarantined(con, tmp_path):
    nt = tmp_path / "bad.nt"
    good = (
        "<http://www.worldkg.org/resource/1> "
        "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
        "<http://www.worldkg.org/schema/Pharmacy> .\n"
    )
    good += (
        "<http://www.worldkg.org/resource/1> <http://www.w3.org/2000/01/rdf-schema#label> "
        '"Apoteket" .\n'
    )
    good += (
        "<http://www.worldkg.org/resource/1> <http://www.worldkg.org/schema/spatialObject> "
        "<http://www.worldkg.org/resource/geo1> .\n"
    )
    good += (
        "<http://www.worldkg.org/resource/geo1> <http://www.opengis.net/ont/geosparql#asWKT> "
        '"POINT(24.9 60.2)" .\n'
    )
    data = (
        good.encode()
        + b"<http://x/s> <http://x/p> broken literal .\n"
        + b'<http://x/s> <http://x/p> "caf\xe9" .\n'
        + b"<http://x/a> <http://x/b> <http://x/c> .\n"
    )
    nt.write_bytes(data)
    reader = RdfStreamReader(nt, block_statements=2)
    n = sum(b.num_rows for b in reader.batches())
    assert n == 5  # every good statement survives, including the one after the bad ones
    assert [(b.reason, b.line) for b in reader.bad] == [("malformed_triple", 5), ("non_utf8", 6)]
    convert_kg(con, "worldkg", nt, "s")
    q = quarantine(con, "worldkg")
    assert ("malformed_triple", "bad.nt:5") in q and ("non_utf8", "bad.nt:6") in q
    assert rows(con, "SELECT name FROM entities") == [{"name": "Apoteket"}]


def test_turtle_syntax_error_keeps_the_rest(con, tmp_path):
    ttl = tmp_path / "t.ttl"
    ttl.write_text(
        PREFIXES
        + wkg_node(1, "First", "POINT(1 1)")
        + "wkg:2 a wkgs:Pharmacy ; rdfs:label 'unterminated .\n"
        + wkg_node(3, "Third", "POINT(3 3)")
    )
    convert_kg(con, "worldkg", ttl, "s")
    assert {r["name"] for r in rows(con, "SELECT name FROM entities")} == {"First", "Third"}
    assert any(
        reason == "malformed_triple" and src.startswith("t.ttl:")
        for reason, src in quarantine(con, "worldkg")
    )


def test_duplicate_ids_are_quarantined(con, tmp_path):
    ttl = tmp_path / "dup.ttl"
    # the same subject defined twice with different names and places (e.g. two dumps concatenated)
    ttl.write_text(
        PREFIXES
        + wkg_node(7, "Old name", "POINT(1 1)")
        + wkg_node(7, "New name", "POINT(2 2)")
        + wkg_node(8, "Fine", "POINT(3 3)")
    )
    convert_kg(con, "worldkg", ttl, "s")
    assert [r["entity_id"] for r in rows(con, "SELECT entity_id FROM entities")] == ["worldkg:8"]
    assert ("duplicate_id", "http://www.worldkg.org/resource/7") in quarantine(con, "worldkg")


def test_osmh3kg_null_rows_and_missing_columns(con, tmp_path):
    t = pa.table(
        {
            "subject": ["node/1", "cafe", "node/1", "node/1", "geo/node/1", None, "node/2"],
            "predicate": [
                "rdf:type",
                "rdfs:subClassOf",
                "name",
                "geo:hasGeometry",
                "geo:asWKT",
                "name",
                "",
            ],
            "object": ["cafe", "amenity", "Kaffe", "geo/node/1", "POINT(24.9 60.2)", "x", "y"],
            "date": [""] * 7,
        }
    )
    p = tmp_path / "o.parquet"
    pq.write_table(t, p)
    convert_kg(con, "osmh3kg", p, "s")
    assert [r["entity_id"] for r in rows(con, "SELECT entity_id FROM entities")] == [
        "osmh3kg:node/1"
    ]
    assert (
        con.execute("SELECT count(*) FROM quarantine WHERE reason = 'malformed_triple'").fetchone()[
            0
        ]
        == 2
    )
    # rows without a date are staged all the same, and counted in one quarantine row
    (undated,) = rows(con, "SELECT detail FROM quarantine WHERE reason = 'missing_date'")
    assert undated["detail"].startswith("5 rows have no snapshot date")
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"s": ["a"], "p": ["b"]}), bad)
    with pytest.raises(ValueError, match="lacks column"):
        convert_kg(con, "osmh3kg", bad, "s")


def osmh3kg_rows(entities: dict[str, dict[str, str]], wkts: dict[str, str]) -> pa.Table:
    """An OSMH3KG table (subject, predicate, object, date) of ``entities`` (subject -> tags, the
    ``rdf:type`` among them) with their geometries, and the types' ``rdfs:subClassOf`` rows."""
    triples = [("country", "rdfs:subClassOf", "place"), ("state", "rdfs:subClassOf", "place")]
    triples.append(("administrative", "rdfs:subClassOf", "boundary"))
    for subject, tags in entities.items():
        triples += [(subject, k, v) for k, v in tags.items()]
        triples += [
            (subject, "geo:hasGeometry", f"geo{subject}"),
            (f"geo{subject}", "geo:asWKT", wkts[subject]),
        ]
    cols = list(zip(*triples, strict=True))
    return pa.table(
        {
            "subject": cols[0],
            "predicate": cols[1],
            "object": cols[2],
            "date": ["2021-06-22"] * len(triples),
        }
    )


def test_a_country_label_node_folds_into_its_boundary(con, tmp_path):
    square = "MULTIPOLYGON (((1.4 42.4, 1.8 42.4, 1.8 42.7, 1.4 42.7, 1.4 42.4)))"
    entities = {
        "node/148874198": {"rdf:type": "country", "name": "Andorra", "wikidata": "Q228"},
        "relation/9407": {
            "rdf:type": "administrative",
            "name": "Andorra",
            "wikidata": "Q228",
            "admin_level": "2",
        },
        # a state point whose area the KG lacks, and a country point of another Wikidata item
        "node/2912811858": {"rdf:type": "state", "name": "Margibi"},
        "node/424311573": {"rdf:type": "country", "name": "Liberia", "wikidata": "Q1014"},
    }
    wkts = {s: "POINT (1.57 42.54)" for s in entities} | {"relation/9407": square}
    p = tmp_path / "o.parquet"
    pq.write_table(osmh3kg_rows(entities, wkts), p)
    res = convert_kg(con, "osmh3kg", p, "s")
    got = rows(con, "SELECT entity_id, display_name, category FROM entities ORDER BY entity_id")
    assert [(r["entity_id"], r["display_name"]) for r in got] == [
        ("osmh3kg:node/2912811858", "Margibi"),
        ("osmh3kg:node/424311573", "Liberia"),
        ("osmh3kg:relation/9407", "Andorra"),  # no longer "Andorra (administrative region)"
    ]
    (q,) = rows(
        con, "SELECT source, detail, payload FROM quarantine WHERE reason = 'label_node_of_area'"
    )
    assert q == {
        "source": "node/148874198",
        "detail": "label node of osmh3kg:relation/9407: the same Wikidata item, "
        "and the KG has its area",
        "payload": "osmh3kg:node/148874198",
    }
    assert res.quarantined["label_node_of_area"] == 1
    # its labels and source triples went with it
    assert not rows(con, "SELECT 1 FROM entity_labels WHERE entity_id = 'osmh3kg:node/148874198'")
    assert not rows(con, "SELECT 1 FROM entity_triples WHERE entity_id = 'osmh3kg:node/148874198'")


def _worldkg_rows(con) -> dict[str, list[tuple]]:
    """The worldkg rows of the entity tables and the quarantine, geometries as WKT."""
    dump = (
        "SELECT * EXCLUDE (geometry), ST_AsText(geometry) FROM {} WHERE kg = 'worldkg' ORDER BY ALL"
    )
    return {
        t: con.execute(
            dump.format(t)
            if t == "entities"
            else f"SELECT * FROM {t} WHERE kg = 'worldkg' ORDER BY ALL"
        ).fetchall()
        for t in ("entities", "entity_labels", "entity_triples", "quarantine")
    }


def test_reconversion_replaces_the_partition_with_identical_rows(con, tiny_pbf, tmp_path):
    ttl = tmp_path / "wkg.ttl"
    build_worldkg(tiny_pbf, ttl)
    convert_kg(con, "worldkg", ttl, "s")
    first = _worldkg_rows(con)
    convert_kg(con, "worldkg", ttl, "s")
    assert _worldkg_rows(con) == first and len(first["entities"]) == 4


#: The Turtle prefixes of the KnowWhereGraph fixtures.
KWG_PREFIXES = """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix geo: <http://www.opengis.net/ont/geosparql#> .
@prefix time: <http://www.w3.org/2006/time#> .
@prefix sosa: <http://www.w3.org/ns/sosa/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix kwgr: <http://stko-kwg.geog.ucsb.edu/lod/resource/> .
@prefix kwg-ont: <http://stko-kwg.geog.ucsb.edu/lod/ontology/> .
"""

KWG_SHAPES = (
    KWG_PREFIXES
    + """@prefix usgs: <http://gnis-ld.org/lod/usgs/ontology/> .
@prefix mgqa: <urn:mgqa:ontology:> .
kwgr:Earthquake.ci1 a kwg-ont:Earthquake ; rdfs:label "M 2.5 - 10km N of Somewhere" ;
  geo:hasGeometry kwgr:g1 ; sosa:isFeatureOfInterestOf kwgr:c1 ;
    kwg-ont:sfWithin kwgr:s2.level13.1 .
kwgr:g1 geo:asWKT
  "<http://www.opengis.net/def/crs/OGC/1.3/CRS84> POINT(-119.7 34.4)"^^geo:wktLiteral .
kwgr:c1 a sosa:ObservationCollection ; sosa:phenomenonTime kwgr:t1 ;
  sosa:hasMember kwgr:o1, kwgr:o2 .
kwgr:t1 a time:Instant ; time:inXSDDateTime "2015-12-01T10:00:00Z"^^xsd:dateTime .
kwgr:o1 sosa:observedProperty kwgr:EarthquakeObservableProperty.mag ;
  sosa:hasSimpleResult "2.5"^^xsd:decimal .
kwgr:o2 sosa:observedProperty kwgr:EarthquakeObservableProperty.depth ;
  sosa:hasSimpleResult "7.1"^^xsd:decimal .
kwgr:EarthquakeObservableProperty.mag a
  kwg-ont:EarthquakeObservableProperty, sosa:ObservableProperty ;
  rdfs:label "mag" .
kwgr:s2.level13.1 a kwg-ont:S2Cell_Level13 ; kwg-ont:cellID 1 ; geo:hasGeometry kwgr:gc1 ;
  kwg-ont:sfContains kwgr:Earthquake.ci1, kwgr:hospital.X .
kwgr:gc1 geo:asWKT
  "POLYGON((-119.71 34.39, -119.69 34.39, -119.69 34.41, -119.71 34.41, -119.71 34.39))"
    ^^geo:wktLiteral .
kwgr:mtbsfire.X.FIRE.2001 a kwg-ont:MTBSFire ; rdfs:label "FIRE" ;
  geo:hasGeometry kwgr:g2 ; kwg-ont:hasTemporalScope kwgr:t2 ;
    kwg-ont:sfOverlaps kwgr:s2.level13.1 .
kwgr:g2 geo:asWKT "POLYGON((-120 34, -119.9 34, -119.9 34.1, -120 34))"^^geo:wktLiteral .
kwgr:t2 a time:Interval ; time:hasBeginning kwgr:b2 ; time:hasEnd kwgr:e2 .
kwgr:b2 time:inXSDDate "2001-07-01"^^xsd:date .
kwgr:e2 time:inXSDDate "2001-07-09"^^xsd:date .
kwgr:hospital.X a kwg-ont:Hospital ; kwg-ont:hospitalName "X HOSPITAL" ;
  kwg-ont:helipadAvailability kwgr:yes ; kwg-ont:noHospitalBeds "12.0" ;
  geo:hasDefaultGeometry kwgr:g3 ; kwg-ont:sfWithin kwgr:s2.level13.1 .
kwgr:g3 geo:asWKT "POINT (-119.70 34.40)"^^geo:wktLiteral .
<http://gnis-ld.org/lod/gnis/feature/7> a usgs:School ; rdfs:label "A School" ;
  geo:hasGeometry kwgr:g4 .
kwgr:g4 geo:asWKT "POINT (-119.71 34.41)"^^geo:wktLiteral .
<urn:mgqa:kwg:roadSegment.U101.1> a kwg-ont:RoadSegment ; kwg-ont:hasRoadSign "U101" ;
  geo:hasGeometry kwgr:g5 .
kwgr:g5 geo:asWKT "LINESTRING (-119.8 34.4, -119.79 34.41)"^^geo:wktLiteral .
kwgr:administrativeRegion.USA.06 a kwg-ont:AdministrativeRegion_1 ; rdfs:label "California" ;
  geo:hasGeometry kwgr:g6 .
kwgr:g6 geo:asWKT "POLYGON((-124 32, -114 32, -114 42, -124 42, -124 32))"^^geo:wktLiteral .
kwgr:administrativeRegion.USA.06083 a kwg-ont:AdministrativeRegion_2 ;
  rdfs:label "Santa Barbara County" ;
  kwg-ont:administrativePartOf kwgr:administrativeRegion.USA.06 ; geo:hasGeometry kwgr:g7 .
kwgr:g7 geo:asWKT
  "POLYGON((-120.6 34.3, -119.4 34.3, -119.4 35.1, -120.6 35.1, -120.6 34.3))"^^geo:wktLiteral .
kwgr:Earth.North_America.United_States.USA.5.42_1 a kwg-ont:AdministrativeRegion_3 ;
  rdfs:label "Santa Barbara" ; geo:hasGeometry kwgr:g7 .
<https://earthquake.usgs.gov/earthquakes/eventpage/ci2> a mgqa:Earthquake ;
  rdfs:label "M 3.1 - Ojai" ;
  geo:hasGeometry <urn:mgqa:usgs:ci2:geometry> ; time:hasTime <urn:mgqa:usgs:ci2:time> ;
  sosa:isFeatureOfInterestOf <urn:mgqa:usgs:ci2:observations> .
<urn:mgqa:usgs:ci2:geometry> geo:asWKT "POINT(-119.2 34.5)"^^geo:wktLiteral .
<urn:mgqa:usgs:ci2:time> a time:Instant ; time:inXSDDateTime "2015-12-02T08:00:00Z"^^xsd:dateTime .
<urn:mgqa:usgs:ci2:observations> a sosa:ObservationCollection ;
  sosa:phenomenonTime <urn:mgqa:usgs:ci2:time> ; sosa:hasMember <urn:mgqa:usgs:ci2:magnitude> .
<urn:mgqa:usgs:ci2:magnitude> sosa:observedProperty mgqa:magnitude ;
  sosa:hasSimpleResult "3.1"^^xsd:decimal .
mgqa:magnitude a sosa:ObservableProperty ; rdfs:label "earthquake magnitude" .
"""
)


def test_kwg_shapes(con, tmp_path):
    """The real KnowWhereGraph shapes (and the USGS events) become entities; S2 cells, observable
    properties and collections never do."""
    ttl = tmp_path / "kwg.ttl"
    ttl.write_text(KWG_SHAPES, encoding="utf-8")
    convert_kg(con, "kwg", ttl, "s")
    ents = {r["entity_id"]: r for r in rows(con, "SELECT * FROM entities")}
    assert set(ents) == {
        "kwg:Earthquake.ci1",
        "kwg:mtbsfire.X.FIRE.2001",
        "kwg:hospital.X",
        "kwg:gnis.7",
        "kwg:roadSegment.U101.1",
        "kwg:administrativeRegion.USA.06",
        "kwg:administrativeRegion.USA.06083",
        "kwg:Earth.North_America.United_States.USA.5.42_1",
        "kwg:usgs.ci2",
    }
    assert rows(con, "SELECT * FROM quarantine WHERE kg = 'kwg'") == []
    quake = ents["kwg:Earthquake.ci1"]
    assert quake["category"] == "earthquake"
    # time from the observation collection's phenomenonTime
    assert quake["valid_from"] == quake["valid_to"] == "2015-12-01T10:00:00Z"
    assert json.loads(quake["attributes"]) == {"magnitude": 2.5, "depthKm": 7.1}
    assert (quake["lon"], quake["lat"]) == (-119.7, 34.4)
    fire = ents["kwg:mtbsfire.X.FIRE.2001"]
    assert (fire["category"], fire["valid_from"], fire["valid_to"], fire["geom_kind"]) == (
        "wildfire",
        "2001-07-01",
        "2001-07-09",
        "polygon",
    )
    hosp = ents["kwg:hospital.X"]
    assert (hosp["category"], hosp["name"], hosp["geom_kind"]) == (
        "hospital",
        "X HOSPITAL",
        "point",
    )
    assert json.loads(hosp["attributes"]) == {"bedCount": 12, "helipad": "yes"}
    assert (ents["kwg:gnis.7"]["category"], ents["kwg:gnis.7"]["name"]) == ("school", "A School")
    assert ents["kwg:roadSegment.U101.1"]["category"] == "road"
    levels = {
        eid: json.loads(ents[eid]["attributes"])["admin_level"]
        for eid in ents
        if ents[eid]["category"] == "administrative_region"
    }
    assert levels == {
        "kwg:administrativeRegion.USA.06": 4,
        "kwg:administrativeRegion.USA.06083": 6,
        "kwg:Earth.North_America.United_States.USA.5.42_1": 6,
    }
    usgs = ents["kwg:usgs.ci2"]
    assert usgs["iri"] == "https://earthquake.usgs.gov/earthquakes/eventpage/ci2"
    assert (usgs["category"], usgs["valid_from"]) == ("earthquake", "2015-12-02T08:00:00Z")
    assert json.loads(usgs["attributes"]) == {"magnitude": 3.1}
    cited = {
        r["s"]
        for r in rows(con, "SELECT s FROM entity_triples WHERE entity_id = 'kwg:Earthquake.ci1'")
    }
    # the observations are two hops away (collection -> member) and still cited; so is the time
    # the collection points to
    kwgr = "http://stko-kwg.geog.ucsb.edu/lod/resource/"
    assert {kwgr + "o1", kwgr + "o2", kwgr + "c1", kwgr + "t1"} <= cited
    hosp_cited = {
        (r["p"], r["o"])
        for r in rows(con, "SELECT p, o FROM entity_triples WHERE entity_id = 'kwg:hospital.X'")
    }
    assert ("http://www.opengis.net/ont/geosparql#asWKT", "POINT (-119.70 34.40)") in hosp_cited


def test_parallel_parse_matches_single_process_and_numbers_bad_lines(tmp_path):
    from mgqa_platform.kg.rdf_stream import parse_file

    lines = [f'<http://x/s{i}> <http://x/p> "value {i}" .\n'.encode() for i in range(3000)]
    lines[1700] = b"<http://x/broken> <http://x/p> oops .\n"  # in the second worker's byte range
    nt = tmp_path / "big.nt"
    nt.write_bytes(b"".join(lines))
    one_parts, one_n, one_bad = parse_file(nt, tmp_path / "one", workers=1)
    two_parts, two_n, two_bad = parse_file(nt, tmp_path / "two", workers=2, min_parallel_bytes=0)
    assert len(two_parts) == 2 and one_n == two_n == 2999
    read = lambda parts: [r for p in parts for r in pq.read_table(p).to_pylist()]  # noqa: E731
    assert read(one_parts) == read(two_parts)
    assert (
        [(b.reason, b.line) for b in one_bad]
        == [(b.reason, b.line) for b in two_bad]
        == [("malformed_triple", 1701)]
    )


def test_entity_triples_are_written_in_sorted_order(con, tmp_path):
    """The table holds the source triples in (entity_id, s, p, o) order, over several row groups,
    whatever order the file gives them in (lineage reads them by entity in that order)."""
    rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    label = "http://www.w3.org/2000/01/rdf-schema#label"
    wkg, wkgs = "http://www.worldkg.org/resource/", "http://www.worldkg.org/schema/"
    wkt = "http://www.opengis.net/ont/geosparql#asWKT"
    lines = []
    for i in range(45_000, 0, -1):  # written in reverse: the order comes from the sort
        lon, lat = (i % 3_600) / 10 - 180, (i % 1_700) / 10 - 85
        lines += [
            f"<{wkg}{i}> <{rdf}> <{wkgs}Pharmacy> .",
            f'<{wkg}{i}> <{label}> "Pharmacy {i}" .',
            f"<{wkg}{i}> <{wkgs}spatialObject> <{wkg}geo{i}> .",
            f'<{wkg}geo{i}> <{wkt}> "Point({lon} {lat})" .',
        ]
    nt = tmp_path / "wkg.nt"
    nt.write_text("\n".join(lines) + "\n")
    res = convert_kg(con, "worldkg", nt, "s")
    stored = con.execute(
        "SELECT entity_id, s, p, o FROM entity_triples WHERE kg = 'worldkg'"
    ).fetchall()
    assert res.entities == 45_000 and res.entity_triples == len(stored) == 180_000
    assert stored == sorted(stored)
