"""WorldKG as its own creation code writes it: node selection, classes, properties and IRIs on a
small PBF (checked with pyoxigraph and rdflib, independent Turtle readers), real WorldKG output
(tests/fixtures/worldkg/), conversion of the real form, and a dump read through
``MGQA_WORLDKG_DUMP``."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import pyoxigraph as ox
import pytest
import rdflib
from osmium import SimpleWriter
from osmium.osm import mutable

from mgqa_dagster.assets.kg_build import kg_native
from mgqa_dagster.resources.engine import EngineResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.sources import InputsResource, KwgSourceResource
from mgqa_dagster.resources.warehouse import WarehouseResource
from mgqa_platform import warehouse
from mgqa_platform.kg import native, profiles, vocab
from mgqa_platform.kg.convert import convert_kg
from mgqa_platform.kg.worldkg_build import (
    build_worldkg,
    class_table,
    key_list,
    property_name,
    wikipedia_iri,
)
from mgqa_platform.settings import SAMPLE_DIR

WKG, WKGS, RDF_TYPE = vocab.WKG, vocab.WKGS, vocab.RDF_TYPE
FIXTURES = Path(__file__).parent / "fixtures" / "worldkg"

#: node id -> (lon, lat), tags; in Andorra la Vella (EPSG:4326)
NODES = {
    1: (
        (1.5211, 42.5078),
        {
            "amenity": "school",
            "name": "Escola Andorrana",
            "ref:LOCODE": "ADALV",
            "addr:housenumber": "12",
            "addr:street": "Carrer Major",
            "name:es": "Escuela Andorrana",
            "wikidata": "Q42",
            "wikipedia": "ca:Escola Andorrana (Sant Julià)",
        },
    ),
    2: ((1.5220, 42.5080), {"barrier": "gate", "access": "private"}),
    3: ((1.5230, 42.5082), {"name": "Casa Rull", "description": "una casa"}),
    4: ((1.5240, 42.5084), {"amenity": "bench"}),
    5: ((1.5250, 42.5086), {"amenity": "no_such_value", "name": "Cosa"}),
    6: ((1.5260, 42.5088), {"shop": "bakery", "amenity": "cafe", "name": "Forn i Cafè"}),
    7: ((1.5270, 42.5090), {"tourism": "artwork", "wikidata": "not-a-qid"}),
    8: ((1.5280, 42.5092), {"amenity": "bench", "backrest": "yes"}),
    9: ((1.5290, 42.5094), {"name": 'Bar "El Pi"\nnou', "pyörä_väistää_aina_autoa": "yes"}),
}


def write_pbf(path: Path) -> Path:
    w = SimpleWriter(str(path))
    try:
        for nid, (loc, tags) in NODES.items():
            w.add_node(mutable.Node(id=nid, version=1, location=loc, tags=tags))
    finally:
        w.close()
    return path


@pytest.fixture
def andorra_pbf(tmp_path) -> Path:
    return write_pbf(tmp_path / "andorra.osm.pbf")


def graph(path: Path) -> set[tuple[str, str, str]]:
    return {
        (t.subject.value, t.predicate.value, t.object.value)
        for t in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE)
    }


def about(g: set[tuple[str, str, str]], node: int) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for s, p, o in g:
        if s == f"{WKG}{node}":
            out.setdefault(p, set()).add(o)
    return out


@pytest.mark.parametrize(
    ("key", "prop"),
    [
        ("ref:LOCODE", "refLocode"),
        ("addr:housenumber", "addrHousenumber"),
        ("name:en", "nameEn"),
        ("alt_name", "altName"),
        ("AND_nosr_r", "ANDNosrR"),  # the first word keeps its case
        ("name:vi-Hani", "nameVi-Hani"),
        ("pyörä_väistää_aina_autoa", "pyöräVäistääAinaAutoa"),  # non-ASCII kept
    ],
)
def test_property_names(key, prop):
    assert property_name(key) == prop


def test_worldkg_tables_are_bundled():
    assert class_table()[("amenity", "school")] == "AmenitySchool"
    assert class_table()[("barrier", "gate")] == "BarrierGate"
    assert "ref:LOCODE" in key_list() and "addr:street" not in key_list()


def test_node_selection_classes_properties_and_iris(andorra_pbf, tmp_path):
    out = tmp_path / "wkg.ttl"
    report = build_worldkg(andorra_pbf, out)
    g = graph(out)
    subjects = {s for s, _, _ in g if not s.startswith(WKG + "geo")}
    # every node with two or more tags, classed or not; node 4 has one tag
    assert subjects == {f"{WKG}{i}" for i in (1, 2, 3, 5, 6, 7, 8, 9)}
    school = about(g, 1)
    assert school[RDF_TYPE] == {WKGS + "AmenitySchool"}
    assert WKGS + "amenity" not in school  # the class's key tag is consumed as the type
    assert school[vocab.RDFS_LABEL] == {"Escola Andorrana"}
    assert school[WKGS + "refLocode"] == {"ADALV"}
    assert school[WKGS + "addrHousenumber"] == {"12"}
    # addr:street and name:es are not in WorldKG's key list
    assert WKGS + "addrStreet" not in school and WKGS + "nameEs" not in school
    assert school[WKGS + "wikidata"] == {"http://www.wikidata.org/wiki/Q42"}
    assert school[WKGS + "wikipedia"] == {
        "https://ca.wikipedia.org/wiki/ca%3AEscola%20Andorrana%20%28Sant%20Juli%C3%A0%29"
    }
    assert school[WKGS + "osmLink"] == {"https://www.openstreetmap.org/node/1"}
    assert school[WKGS + "spatialObject"] == {WKG + "geo1"}
    assert (WKG + "geo1", RDF_TYPE, vocab.SF + "Point") in g
    assert (WKG + "geo1", vocab.GEO_AS_WKT, "Point(1.5211 42.5078)") in g  # lon lat
    assert about(g, 2)[RDF_TYPE] == {WKGS + "BarrierGate"}
    assert about(g, 2)[WKGS + "access"] == {"private"}
    assert RDF_TYPE not in about(g, 3)  # two tags, nothing in the class table: kept, no class
    assert about(g, 3)[WKGS + "description"] == {"una casa"}
    # a value not in the table: no class, and the key tag is still no property (no fallback)
    assert RDF_TYPE not in about(g, 5) and WKGS + "amenity" not in about(g, 5)
    assert about(g, 6)[RDF_TYPE] == {WKGS + "Cafe", WKGS + "ShopBakery"}  # every classed key
    assert about(g, 7)[RDF_TYPE] == {WKGS + "Artwork"}
    assert about(g, 7)[WKGS + "wikidata"] == {"not-a-qid"}  # not a Q-id: a plain literal
    assert about(g, 9)[vocab.RDFS_LABEL] == {'Bar "El Pi" nou'}  # newline read as a space
    assert about(g, 9)[WKGS + "pyöräVäistääAinaAutoa"] == {"yes"}
    assert not any(p == vocab.RDFS_SUBCLASS for _, p, _ in g)  # hierarchy: the ontology file
    literal_typed = {
        str(p)
        for _, p, o in rdflib.Graph().parse(out, format="turtle")
        if isinstance(o, rdflib.URIRef)
    }
    assert literal_typed == {
        RDF_TYPE,
        WKGS + "osmLink",
        WKGS + "spatialObject",
        WKGS + "wikidata",
        WKGS + "wikipedia",
    }
    assert report.counts["nodes_two_tags"] == 8 and report.counts["nodes_one_tag"] == 1
    assert (report.counts["classed"], report.counts["unclassed"]) == (5, 3)
    assert report.counts["multi_typed"] == 1 and report.counts["tags_class_key_not_in_table"] == 1
    assert report.counts["properties_dropped_not_in_key_list"] == 2


def test_same_pbf_same_bytes(andorra_pbf, tmp_path):
    build_worldkg(andorra_pbf, tmp_path / "a.ttl")
    build_worldkg(andorra_pbf, tmp_path / "b.ttl")
    assert (tmp_path / "a.ttl").read_bytes() == (tmp_path / "b.ttl").read_bytes()


def test_wikipedia_iris_equal_real_worldkg_output(tmp_path):
    """The 130 wikipedia triples of real WorldKG output for Andorra, IRI by IRI, in our build of the
    sample PBF (which holds the same Andorra extract)."""
    real = graph(FIXTURES / "italyTriples.ttl")
    assert len(real) == 130
    ours = graph(_built_sample(tmp_path))
    assert real <= ours
    assert (
        wikipedia_iri("fr:Pic_dels_Aspres") == "https://fr.wikipedia.org/wiki/fr%3APic_dels_Aspres"
    )


def _built_sample(tmp_path: Path) -> Path:
    out = tmp_path / "sample.ttl"
    build_worldkg(SAMPLE_DIR / "osm" / "mgqa-sample.osm.pbf", out)
    return out


def entity_table(con, kg: str = "worldkg") -> list[tuple]:
    return con.execute(
        """
        SELECT * EXCLUDE (snapshot_id, geometry), ST_AsText(geometry)
        FROM entities
        WHERE kg = ?
        ORDER BY entity_id
        """,
        [kg],
    ).fetchall()


def test_conversion_of_the_real_form(con, andorra_pbf, tmp_path):
    ttl = tmp_path / "wkg.ttl"
    build_worldkg(andorra_pbf, ttl)
    res = convert_kg(con, "worldkg", ttl, "s")
    got = {
        r[0]: r[1:]
        for r in con.execute(
            "SELECT entity_id, category, types, wikidata, attributes FROM entities"
        ).fetchall()
    }
    school = got["worldkg:1"]
    assert school[:3] == ("school", ["AmenitySchool"], "Q42")  # Q-id from the wikidata IRI
    assert json.loads(school[3])["osm_amenity"] == "school"  # main key/value from our class table
    assert got["worldkg:6"][0] == "cafe"  # two classes: amenity comes first among main keys
    # nodes 3 and 5 have no WorldKG class: quarantined with their reason, never given a category
    reasons = {
        (r[0], r[1])
        for r in con.execute(
            "SELECT reason, source FROM quarantine WHERE kg = 'worldkg'"
        ).fetchall()
    }
    assert {("no_worldkg_class", f"{WKG}3"), ("no_worldkg_class", f"{WKG}5")} <= reasons
    assert ("missing_name", f"{WKG}8") in reasons and res.quarantined["unknown_category"] == 0
    assert set(got) == {"worldkg:1", "worldkg:6"}  # 2 and 7 are unnamed, 9 has no class


def test_every_classed_entity_of_the_sample_gets_a_category(con, tmp_path):
    res = convert_kg(con, "worldkg", _built_sample(tmp_path), "s")
    assert res.entities > 30_000
    assert res.quarantined["unknown_category"] == 0 and res.quarantined["no_worldkg_class"] > 0
    classes = {r["worldkg_class"] for r in profiles.worldkg_classes()}
    assert set(class_table().values()) <= classes


def test_real_worldkg_output_reads_as_a_dump(con, tmp_path):
    """italyTriples.ttl has no classes or geometry: its 130 subjects are entities without a class,
    quarantined with that reason, none given a category."""
    res = convert_kg(con, "worldkg", FIXTURES / "italyTriples.ttl", "s")
    assert res.triples_staged == 130 and res.entities == 0
    assert res.quarantined == {"missing_geometry": 130}


def test_dump_path_gives_the_same_entity_table(con, andorra_pbf, tmp_path):
    """Our build of a PBF, and the same triples serialized by rdflib (as WorldKG's code does) and
    registered through MGQA_WORLDKG_DUMP, give the same entity table."""
    ttl = tmp_path / "built.ttl"
    build_worldkg(andorra_pbf, ttl)
    convert_kg(con, "worldkg", ttl, "s")
    built = entity_table(con)
    g = rdflib.Graph()
    g.bind("wd", "http://www.wikidata.org/wiki/")
    g.bind("osmn", vocab.OSM_NODE)
    g.parse(ttl, format="turtle")
    dump = tmp_path / "dump" / "andorraTriples.ttl"
    dump.parent.mkdir()
    g.serialize(dump, format="turtle", encoding="utf-8")
    paths = PathsResource(home=str(tmp_path / "home"))
    result = dg.materialize(
        [kg_native],
        partition_key="worldkg",
        resources={
            "inputs": InputsResource(worldkg_dump=str(dump)),
            "kwg": KwgSourceResource(),
            "paths": paths,
            "warehouse": WarehouseResource(paths=paths),
            "engine": EngineResource(paths=paths),
        },
    )
    assert result.success
    with warehouse.connect(paths.warehouse_path) as wh:
        row = native.current(wh, "worldkg")
    assert Path(row["path"]) == dump and row["source_snapshot_id"] is None
    convert_kg(con, "worldkg", row["path"], "s")
    assert entity_table(con) == built and len(built) == 2


def test_missing_dump_is_a_clear_error(tmp_path):
    paths = PathsResource(home=str(tmp_path / "home"))
    with pytest.raises(FileNotFoundError, match="MGQA_WORLDKG_DUMP"):
        dg.materialize(
            [kg_native],
            partition_key="worldkg",
            resources={
                "inputs": InputsResource(worldkg_dump=str(tmp_path / "nope.ttl")),
                "kwg": KwgSourceResource(),
                "paths": paths,
                "warehouse": WarehouseResource(paths=paths),
                "engine": EngineResource(paths=paths),
            },
        )
