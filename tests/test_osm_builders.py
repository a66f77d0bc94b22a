"""OSM PBF -> WorldKG Turtle and OSMH3KG Parquet, checked against independent readers (pyoxigraph,
h3)."""

from __future__ import annotations

import h3
import osmium
import pyarrow.parquet as pq
import pyoxigraph as ox
import pytest
import shapely

from mgqa_platform.files import sha256_file
from mgqa_platform.kg import vocab
from mgqa_platform.kg.osm_reader import OsmSnapshotError
from mgqa_platform.kg.osmh3kg_build import build_osmh3kg
from mgqa_platform.kg.worldkg_build import build_worldkg, turtle_literal
from tests import osm_elements as osm
from tests.conftest import CAFE

WKG, WKGS = vocab.WKG, vocab.WKGS


def _graph(path) -> set[tuple[str, str, str]]:
    return {
        (t.subject.value, t.predicate.value, t.object.value)
        for t in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE)
    }


def test_worldkg_turtle_shape(tiny_pbf, tmp_path):
    out = tmp_path / "wkg.ttl"
    report = build_worldkg(tiny_pbf, out)
    g = _graph(out)
    cafe = WKG + "1"
    assert (cafe, vocab.RDF_TYPE, WKGS + "Cafe") in g
    # no instance-level hierarchy: it lives in WorldKG's ontology file
    assert not any(p == vocab.RDFS_SUBCLASS for _, p, _ in g)
    assert (cafe, vocab.RDFS_LABEL, "Café Central") in g
    assert (cafe, WKGS + "nameEn", "Central Cafe") in g
    assert (cafe, WKGS + "image", "https://example.org/cafe.jpg") in g
    # addr:street and name:pt are not in WorldKG's key list: no property
    assert not any(s == cafe and p in (WKGS + "addrStreet", WKGS + "namePt") for s, p, _ in g)
    assert (cafe, WKGS + "wikidata", "http://www.wikidata.org/wiki/Q1") in g
    assert (cafe, WKGS + "osmLink", "https://www.openstreetmap.org/node/1") in g
    assert (cafe, WKGS + "spatialObject", WKG + "geo1") in g
    wkt = next(o for s, p, o in g if s == WKG + "geo1" and p == vocab.GEO_AS_WKT)
    pt = shapely.from_wkt(wkt)
    assert (pt.x, pt.y) == CAFE[1]  # lon first, as WKT requires
    # nodes 5 and 6 have one tag each: not WorldKG entities; untagged nodes never appear
    assert not any(s in (WKG + "5", WKG + "6", WKG + "10") for s, _, _ in g)
    assert report.counts["nodes_two_tags"] == 4 and report.counts["nodes_one_tag"] == 2


def test_worldkg_is_deterministic(tiny_pbf, tmp_path):
    build_worldkg(tiny_pbf, tmp_path / "a.ttl")
    build_worldkg(tiny_pbf, tmp_path / "b.ttl")
    assert sha256_file(tmp_path / "a.ttl") == sha256_file(tmp_path / "b.ttl")


@pytest.mark.parametrize("raw", ['say "hi"', "back\\slash", "two\nlines", "tab\there"])
def test_turtle_literal_roundtrip(raw):
    doc = f"<urn:s> <urn:p> {turtle_literal(raw)} ."
    (t,) = list(ox.parse(input=doc.encode(), format=ox.RdfFormat.TURTLE))
    assert t.object.value == raw


def test_osmh3kg_triples(tiny_pbf, tmp_path):
    out = tmp_path / "osmh3kg.parquet"
    report = build_osmh3kg(tiny_pbf, out, fallback_date="2026-11-01", h3_res=9)
    rows = pq.read_table(out).to_pylist()
    triples = {(r["subject"], r["predicate"], r["object"]) for r in rows}
    assert {r["date"] for r in rows} == {"2026-11-01"}
    # typed subjects, raw-key predicates, subclass links; the main tag is only a type
    assert ("node/1", "rdf:type", "cafe") in triples and (
        "cafe",
        "rdfs:subClassOf",
        "amenity",
    ) in triples
    assert ("node/1", "amenity", "cafe") not in triples
    assert ("node/1", "name:en", "Central Cafe") in triples
    assert ("way/100", "rdf:type", "primary") in triples
    assert ("way/100", "geo:hasGeometry", "geoway/100") in triples
    wkts = {s: o for s, p, o in triples if p == "geo:asWKT"}
    assert shapely.from_wkt(wkts["geoway/100"]).geom_type == "LineString"
    assert shapely.from_wkt(wkts["geoway/101"]).geom_type == "MultiPolygon"
    assert shapely.from_wkt(wkts["georelation/200"]).geom_type == "MultiPolygon"
    # H3: the cafe's cell, computed independently with h3-py (lat, lng order!), a bare index
    cell = h3.latlng_to_cell(CAFE[1][1], CAFE[1][0], 9)
    assert {(cell, p, "node/1") for p in ("geo:sfIntersects", "geo:sfContains")} <= triples
    assert (cell, "geo:hasGeometry", "geoH3" + cell) in triples
    # a line crosses several cells -> sfIntersects links, and adjacency among grid cells, both ways
    road_cells = {s for s, p, o in triples if o == "way/100" and p == "geo:sfIntersects"}
    assert len(road_cells) > 3
    adjacent = {(s, o) for s, p, o in triples if p == "hcf:isAdjacentTo"}
    assert adjacent and all(h3.are_neighbor_cells(a, b) for a, b in adjacent)
    assert all((b, a) in adjacent for a, b in adjacent)
    # the boundary relation lacks its member way; the route relation has no area semantics
    reasons = {(x["source"], x["reason"]) for x in report.skipped}
    assert ("relation/201", "relation_incomplete") in reasons
    assert ("relation/202", "relation_type_unsupported") in reasons


def test_boundary_ways_are_outlines_not_features(tmp_path):
    """Two unclosed border ways close one ring: the boundary relation is the region, the ways are
    not entities; a closed boundary way is an area of its own."""
    pbf = tmp_path / "border.osm.pbf"
    square = [(1, (1.50, 42.50)), (2, (1.52, 42.50)), (3, (1.52, 42.52)), (4, (1.50, 42.52))]
    border = {"boundary": "administrative", "admin_level": "7"}
    w = osmium.SimpleWriter(str(pbf))
    try:
        for nid, loc in square:
            w.add_node(osm.node(nid, loc))
        w.add_way(osm.way(10, [1, 2, 3], {**border, "name": "A - B"}))
        w.add_way(osm.way(11, [3, 4, 1], border))
        w.add_way(osm.way(12, [1, 2, 3, 1], {**border, "name": "Closed"}))
        w.add_relation(
            osm.relation(
                20,
                [("w", 10, "outer"), ("w", 11, "outer")],
                {**border, "type": "boundary", "name": "Parish"},
            )
        )
    finally:
        w.close()
    out = tmp_path / "border.parquet"
    report = build_osmh3kg(pbf, out, fallback_date="2026-11-01")
    subjects = {r["subject"] for r in pq.read_table(out).to_pylist()}
    assert {(x["source"], x["reason"]) for x in report.skipped} == {
        ("way/10", "boundary_segment"),
        ("way/11", "boundary_segment"),
    }
    assert "way/10" not in subjects and "way/11" not in subjects
    assert {"relation/20", "way/12"} <= subjects
    wkts = {
        r["subject"]: r["object"]
        for r in pq.read_table(out).to_pylist()
        if r["predicate"] == vocab.OSMH3_AS_WKT
    }
    parish = shapely.from_wkt(wkts["georelation/20"])
    assert parish.geom_type == "MultiPolygon" and parish.area == pytest.approx(0.02 * 0.02)


def test_closed_area_ways_libosmium_cannot_assemble_are_quarantined(tmp_path):
    """A closed area way libosmium makes no area of, a degenerate ring (two refs, three refs) or a
    ring with a node missing from the snapshot, is skipped as ``area_not_assembled`` with its ref
    count, never dropped; a valid ring, a bowtie (an area libosmium refuses) and a closed line are
    not."""
    pbf = tmp_path / "rings.osm.pbf"
    square = [(1, (1.50, 42.50)), (2, (1.52, 42.50)), (3, (1.52, 42.52)), (4, (1.50, 42.52))]
    ways = [
        (10, [1, 2, 3, 4, 1], {"building": "yes", "name": "Whole"}),
        (11, [1, 2, 1], {"building": "yes", "name": "Sliver"}),
        (12, [3, 3], {"amenity": "parking"}),
        (13, [1, 2, 999, 4, 1], {"leisure": "park", "name": "Cut"}),
        (14, [1, 3, 2, 4, 1], {"landuse": "grass"}),
        (15, [1, 2, 1], {"highway": "footway"}),
    ]
    w = osmium.SimpleWriter(str(pbf))
    try:
        for nid, loc in square:
            w.add_node(osm.node(nid, loc))
        for wid, nodes, tags in ways:
            w.add_way(osm.way(wid, nodes, tags))
    finally:
        w.close()
    out = tmp_path / "rings.parquet"
    report = build_osmh3kg(pbf, out, fallback_date="2026-11-01")
    skipped = [(x["source"], x["reason"], x["detail"]) for x in report.skipped]
    assert skipped[0][:2] == ("way/14", "area_geometry_failed")  # libosmium's empty area
    assert [s[:2] for s in skipped[1:]] == [
        ("way/11", "area_not_assembled"),
        ("way/12", "area_not_assembled"),
        ("way/13", "area_not_assembled"),
    ]
    assert [s[2].split(":")[0] for s in skipped[1:]] == [
        "closed area way of 3 node refs",
        "closed area way of 2 node refs",
        "closed area way of 5 node refs",
    ]
    assert "degenerate ring" in skipped[1][2] and "missing from the snapshot" in skipped[3][2]
    kinds = {
        r["subject"]: shapely.from_wkt(r["object"]).geom_type
        for r in pq.read_table(out).to_pylist()
        if r["predicate"] == vocab.OSMH3_AS_WKT and r["subject"].startswith("geoway/")
    }
    assert kinds == {"geoway/10": "MultiPolygon", "geoway/15": "LineString"}


def test_truncated_pbf_is_a_clear_error(tiny_pbf, tmp_path):
    data = tiny_pbf.read_bytes()
    bad = tmp_path / "truncated.osm.pbf"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(OsmSnapshotError, match="truncated or corrupt"):
        build_worldkg(bad, tmp_path / "x.ttl")
    assert not (tmp_path / "x.ttl").exists()  # nothing half-written
    with pytest.raises(OsmSnapshotError):
        build_osmh3kg(bad, tmp_path / "x.parquet", fallback_date="2026-11-01")
    assert not (tmp_path / "x.parquet").exists()


def test_pbf_framing_check(tiny_pbf, tmp_path):
    from mgqa_platform.kg.osm_reader import check_pbf_framing

    assert check_pbf_framing(tiny_pbf) >= 2  # OSMHeader + at least one OSMData blob
    data = tiny_pbf.read_bytes()
    for cut in (3, len(data) // 2, len(data) - 1):
        bad = tmp_path / f"cut{cut}.osm.pbf"
        bad.write_bytes(data[:cut])
        with pytest.raises(OsmSnapshotError, match="truncated|corrupt"):
            check_pbf_framing(bad)
    garbage = tmp_path / "garbage.osm.pbf"
    garbage.write_bytes(b"this is not a pbf at all")
    with pytest.raises(OsmSnapshotError):
        check_pbf_framing(garbage)
