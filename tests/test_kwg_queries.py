"""The KnowWhereGraph crawl queries on a KWG-shaped graph (tests/fixtures/kwg_shaped.ttl): what
comes back, what stays out, paging, and the local-store crawl against the HTTP crawler."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph
import pytest
from fake_sparql import KWG_SHAPED, kwg_shaped_store, serving

from mgqa_platform.kg import vocab
from mgqa_platform.kg.kwg_store import (
    crawl_store,
    load_store,
    select_results_to_ntriples,
    store_fetcher,
)
from mgqa_platform.kg.sparql import (
    DEFAULT_KWG_REGION,
    KWG_QUERY_PREFIXES,
    SparqlCrawler,
    SparqlError,
    as_select,
    crawl_queries,
    kwg_queries,
)

KWGR, ONT, TIME, SOSA = vocab.KWGR, vocab.KWG_ONT, vocab.TIME, vocab.SOSA
PREFIXES = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in KWG_QUERY_PREFIXES.items())
WILDFIRE = KWGR + "hazard.wildfire.CA3450611971220170708"
MTBS = KWGR + "hazard.mtbsFire.CA3459612021320160618"
QUAKE = KWGR + "Earthquake.ci37507183"
HOSPITAL = KWGR + "hospital.GOLETA_VALLEY_COTTAGE_HOSPITAL"
SCHOOL = "http://gnis-ld.org/lod/gnis/feature/1652751"
ROAD = KWGR + "roadSegment.U101.0042"
OUTSIDE = {
    KWGR + "hazard.wildfire.CA3440011900020180101",
    KWGR + "observationCollection.wildfire.CA3440011900020180101",
    KWGR + "observation.wildfire.CA3440011900020180101.acres",
    KWGR + "hospital.VENTURA_COUNTY_MEDICAL_CENTER",
    KWGR + "administrativeRegion.USA.06111",
}


@pytest.fixture(scope="module")
def crawl(tmp_path_factory) -> tuple[Path, dict, pyoxigraph.Store]:
    out = tmp_path_factory.mktemp("kwg") / "crawl.nt"
    stats = crawl_store(KWG_SHAPED, DEFAULT_KWG_REGION, out)
    got = pyoxigraph.Store()
    got.bulk_load(path=str(out), format=pyoxigraph.RdfFormat.N_TRIPLES)
    return out, stats, got


def _ask(store: pyoxigraph.Store, body: str) -> bool:
    return bool(store.query(PREFIXES + "ASK { " + body + " }"))


def _objects(store: pyoxigraph.Store, s: str, p: str) -> set[str]:
    return {
        q.object.value
        for q in store.quads_for_pattern(pyoxigraph.NamedNode(s), pyoxigraph.NamedNode(p), None)
    }


def test_region_parent_fips_and_geometries(crawl):
    _, _, got = crawl
    r = f"<{DEFAULT_KWG_REGION}>"
    assert _ask(
        got,
        f"""{r} a kwg-ont:AdministrativeRegion_2 ; rdfs:label "Santa Barbara County" ;
            kwg-ont:hasFIPS "06083" ; kwg-ont:administrativePartOf ?state ;
            geo:hasGeometry/geo:asWKT ?w .
        ?state a kwg-ont:AdministrativeRegion_1 ; kwg-ont:hasFIPS "06" ;
            geo:hasGeometry/geo:asWKT ?sw""",
    )


def test_wildfire_keeps_its_interval(crawl):
    _, _, got = crawl
    [t] = _objects(got, WILDFIRE, ONT + "hasTemporalScope")
    assert _objects(got, t, vocab.RDF_TYPE) == {TIME + "Interval"}  # never typed an Instant
    [begin] = _objects(got, t, TIME + "hasBeginning")
    [end] = _objects(got, t, TIME + "hasEnd")
    assert _objects(got, begin, TIME + "inXSDDate") == {"2017-07-08"}
    assert _objects(got, end, TIME + "inXSDDate") == {"2017-07-28"}
    assert _objects(got, WILDFIRE, vocab.RDF_TYPE) == {ONT + "Wildfire"}
    assert _objects(got, WILDFIRE, vocab.RDFS_LABEL) == {"WHITTIER"}


def test_mtbs_fire_instant_and_observation(crawl):
    _, _, got = crawl
    [t] = _objects(got, MTBS, ONT + "hasTemporalScope")
    assert _objects(got, t, vocab.RDF_TYPE) == {TIME + "Instant"}
    assert _objects(got, t, TIME + "inXSDDateTime") == {"2016-06-15T00:00:00Z"}
    assert _ask(
        got,
        f"""<{MTBS}> sosa:isFeatureOfInterestOf ?c . ?c sosa:hasMember ?o .
        ?o sosa:observedProperty kwgr:mtbsFireObservableProperty.NumberOfAcresBurned ;
           sosa:hasSimpleResult "7474"^^xsd:decimal .
        kwgr:mtbsFireObservableProperty.NumberOfAcresBurned a sosa:ObservableProperty ;
           rdfs:label "Number of acres burned" """,
    )


def test_earthquake_through_an_s2_cell_with_declared_properties(crawl):
    _, _, got = crawl
    assert _objects(got, QUAKE, vocab.RDF_TYPE) == {ONT + "Earthquake"}
    for prop, value in (("mag", "3.1"), ("depth", "9.2")):
        assert _ask(
            got,
            f"""<{QUAKE}> sosa:isFeatureOfInterestOf ?c . ?c sosa:hasMember ?o ;
                sosa:phenomenonTime/time:inXSDDateTime "2015-12-21T03:12:44Z"^^xsd:dateTime .
            ?o sosa:observedProperty kwgr:EarthquakeObservableProperty.{prop} ;
               sosa:hasSimpleResult {value} .
            kwgr:EarthquakeObservableProperty.{prop} a sosa:ObservableProperty ; rdfs:label ?l""",
        )


def test_hospital_school_and_road_segment_as_the_graph_holds_them(crawl):
    _, _, got = crawl
    assert _objects(got, HOSPITAL, ONT + "hospitalName") == {"GOLETA VALLEY COTTAGE HOSPITAL"}
    assert _objects(got, HOSPITAL, ONT + "helipadAvailability") == {KWGR + "no"}
    assert _objects(got, HOSPITAL, ONT + "noHospitalBeds") == {"20.0"}
    [g] = _objects(got, HOSPITAL, vocab.GEO + "hasDefaultGeometry")
    assert _objects(got, g, vocab.GEO_AS_WKT) == {"POINT(-119.78 34.44)"}
    assert _objects(got, SCHOOL, vocab.RDF_TYPE) == {"http://gnis-ld.org/lod/usgs/ontology/School"}
    [g] = _objects(got, SCHOOL, vocab.GEO_HAS_GEOMETRY)
    assert _objects(got, g, vocab.GEO_AS_WKT) == {
        "<http://www.opengis.net/def/crs/OGC/1.3/CRS84> POINT(-119.88 34.44)"
    }
    assert _objects(got, ROAD, ONT + "hasRoadSign") == {"U101"}
    assert _objects(got, ROAD, vocab.RDF_TYPE) == {ONT + "RoadSegment"}


def test_nothing_outside_the_region_and_no_cells_or_links(crawl):
    _, stats, got = crawl
    terms = {t.value for q in got for t in (q.subject, q.object)}
    assert not terms & OUTSIDE
    assert not any("s2.level13" in t for t in terms)
    predicates = {q.predicate.value for q in got}
    assert not predicates & {ONT + "sfWithin", ONT + "sfOverlaps", ONT + "sfContains"}
    assert stats["triples"] == len(got) == 90
    # A time instant shared by the MTBS fire's scope and its collection is written once.
    assert stats["duplicates"] == 2


def test_hazards_through_the_class_hierarchy(tmp_path):
    """A hazard of a class outside the named list comes back only through rdfs:subClassOf*."""
    ttl = KWG_SHAPED.read_text() + (
        '\nkwgr:hazard.fire.X a kwg-ont:Fire ; rdfs:label "X" ;'
        f" kwg-ont:sfWithin <{DEFAULT_KWG_REGION}> .\n"
    )
    with_hierarchy = tmp_path / "h.ttl"
    with_hierarchy.write_text(ttl)
    without = tmp_path / "n.ttl"
    without.write_text(ttl.replace("kwg-ont:Fire rdfs:subClassOf kwg-ont:Hazard .", ""))
    for path, expected in ((with_hierarchy, {"X"}), (without, set())):
        crawl_store(path, DEFAULT_KWG_REGION, tmp_path / "out.nt")
        got = load_store(tmp_path / "out.nt")
        assert _objects(got, KWGR + "hazard.fire.X", vocab.RDFS_LABEL) == expected


@pytest.mark.parametrize("page_size", [1, 4])
def test_small_pages_give_the_same_bytes(crawl, tmp_path, page_size):
    one_page, stats, _ = crawl
    out = tmp_path / "paged.nt"
    paged = crawl_store(KWG_SHAPED, DEFAULT_KWG_REGION, out, page_size=page_size)
    assert out.read_bytes() == one_page.read_bytes()
    assert paged["triples"] == stats["triples"] and paged["pages"] > stats["pages"]


def test_same_input_same_bytes(crawl, tmp_path):
    out = tmp_path / "again.nt"
    crawl_store(KWG_SHAPED, DEFAULT_KWG_REGION, out)
    assert out.read_bytes() == crawl[0].read_bytes()


def test_local_store_and_http_crawler_give_the_same_crawl(crawl, tmp_path):
    out = tmp_path / "http.nt"
    with serving(kwg_shaped_store()) as endpoint:
        stats = SparqlCrawler(endpoint.url, page_size=7).crawl(kwg_queries(DEFAULT_KWG_REGION), out)
    assert out.read_bytes() == crawl[0].read_bytes()
    assert stats["triples"] == crawl[1]["triples"] and stats["retries"] == 0


def test_every_query_runs_as_select_too():
    """The WHERE part stands alone: the SELECT form answers the same triples as the CONSTRUCT."""
    store = kwg_shaped_store()
    for q in kwg_queries(DEFAULT_KWG_REGION):
        rows = [(r["s"], r["p"], r["o"]) for r in store.query(as_select(q))]
        assert rows and {pyoxigraph.Triple(*r) for r in rows} == set(store.query(q))
    with pytest.raises(ValueError, match="kwg_queries"):
        as_select("CONSTRUCT { ?a ?b ?c } WHERE { ?a ?b ?c }")


def test_store_fetcher_rejects_non_graph_queries_and_bad_pages(tmp_path):
    fetch = store_fetcher(kwg_shaped_store())
    with pytest.raises(ValueError, match="CONSTRUCT"):
        fetch("ASK { ?s ?p ?o }")
    with pytest.raises(SparqlError, match="not valid N-Triples"):
        crawl_queries(
            ["CONSTRUCT {} WHERE {}"], tmp_path / "x.nt", lambda q: b"<a> <b> .", page_size=5
        )
    for name in ("graph.unknown", "graph.nq"):
        with pytest.raises(ValueError, match="not an RDF graph format"):
            crawl_store(tmp_path / name, DEFAULT_KWG_REGION, tmp_path / "x.nt")


@pytest.mark.parametrize("fmt", ["srj", "srx", "tsv"])
def test_saved_select_results_give_the_crawl_bytes(crawl, tmp_path, fmt):
    """The SELECT form of every query, saved as a KWG web UI would, converts to the crawl file."""
    store = kwg_shaped_store()
    formats = pyoxigraph.QueryResultsFormat
    paths = []
    for i, q in enumerate(kwg_queries(DEFAULT_KWG_REGION)):
        path = tmp_path / f"q{i}.{fmt}"
        path.write_bytes(store.query(as_select(q)).serialize(format=formats.from_extension(fmt)))
        paths.append(path)
    out = tmp_path / "from_select.nt"
    stats = select_results_to_ntriples(paths, out)
    assert out.read_bytes() == crawl[0].read_bytes()
    assert stats == {"files": 6, "solutions": 92, "triples": 90, "duplicates": 2}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("r.csv", "s,p,o\nhttp://a,http://b,c\n", "CSV loses"),
        ("v.tsv", '?fire\t?name\n<http://a>\t"x"\n', "variables s, p, o"),
        (
            "u.tsv",
            '?s\t?p\t?o\n<http://a>\t<http://b>\t"c"\n<http://a>\t\t"c"\n',
            "solution 1 leaves",
        ),
        ("l.tsv", '?s\t?p\t?o\n"a"\t<http://b>\t"c"\n', "solution 0 is no RDF triple"),
    ],
)
def test_bad_select_results_are_clear_errors(tmp_path, name, text, message):
    results = tmp_path / name
    results.write_text(text)
    with pytest.raises(ValueError, match=message):
        select_results_to_ntriples([results], tmp_path / "x.nt")
    assert not (tmp_path / "x.nt").exists()
