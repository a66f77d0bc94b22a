"""SHACL validation of KnowWhereGraph crawls against our GeoSPARQL and SOSA shapes."""

from __future__ import annotations

import dagster as dg
import pyoxigraph
import pytest
from fake_sparql import KWG_SHAPED, kwg_shaped_store

from mgqa_dagster.data_quality import kwg_shacl
from mgqa_platform.kg import shacl, vocab
from mgqa_platform.kg.kwg_store import crawl_store
from mgqa_platform.kg.sparql import DEFAULT_KWG_REGION

PREFIXES = "".join(f"@prefix {p}: <{iri}> .\n" for p, iri in vocab.KWG_PREFIXES.items())
WARNED = {"ObservationHasFeatureOfInterest", "ObservationHasTime"}


def _store(extra: str = "", drop: str = "") -> pyoxigraph.Store:
    """The fixture graph without the line ``drop`` and with the Turtle ``extra`` added."""
    text = KWG_SHAPED.read_text()
    if drop:
        assert drop in text
        text = text.replace(drop, "")
    store = pyoxigraph.Store()
    store.load(input=text + "\n" + PREFIXES + extra, format=pyoxigraph.RdfFormat.TURTLE)
    return store


def test_the_fixture_passes_with_only_the_kwg_warnings():
    report = shacl.validate_store(kwg_shaped_store())
    assert report.conforms and report.violations == {}
    # 4 observations, none with its own feature of interest or time (KWG puts them on the
    # collection).
    assert report.warnings == {name: 4 for name in WARNED}
    assert set(report.reasons) == WARNED and all("collection" in r for r in report.reasons.values())


def test_a_geometry_with_two_wkts_is_a_violation():
    report = shacl.validate_store(
        _store(
            "kwgr:geometry.point.Earthquake.ci37507183 geo:asWKT "
            '"POINT(-119.9 34.5)"^^geo:wktLiteral .'
        )
    )
    assert not report.conforms
    assert report.violations == {"GeometryHasOneWkt": 1}
    assert any("Earthquake.ci37507183" in e for e in report.examples)


@pytest.mark.parametrize(
    ("extra", "drop", "shape"),
    [
        (  # a WKT literal typed as a plain string
            'kwgr:g.x a geo:Geometry ; geo:asWKT "POINT(1 2)" .',
            "",
            "WktIsWktLiteral",
        ),
        (  # hasGeometry pointing to an untyped node
            "kwgr:feature.x geo:hasGeometry kwgr:g.y . kwgr:g.y geo:asWKT "
            '"POINT(1 2)"^^geo:wktLiteral .',
            "",
            "FeatureGeometryIsGeometry",
        ),
        (  # an observed property that is not declared sosa:ObservableProperty
            "",
            "kwgr:EarthquakeObservableProperty.mag a sosa:ObservableProperty ; "
            'rdfs:label "magnitude" .',
            "ObservationHasOneObservedProperty",
        ),
        (  # an interval ending in something that is no instant
            "kwgr:time.interval.20170708.20170728 time:hasEnd kwgr:not.an.instant .",
            "",
            "IntervalBoundsAreInstants",
        ),
    ],
)
def test_each_error_shape_catches_its_violation(extra, drop, shape):
    report = shacl.validate_store(_store(extra, drop))
    assert shape in report.violations, report.violations


def test_an_observation_without_feature_of_interest_only_warns():
    """An observation given its own feature of interest and time drops out of both warnings."""
    own = (
        "kwgr:observation.Earthquake.ci37507183.mag sosa:hasFeatureOfInterest "
        "kwgr:Earthquake.ci37507183 ;"
        " sosa:phenomenonTime kwgr:time.instant.2015-12-21T03.12.44 ."
    )
    report = shacl.validate_store(_store(own))
    assert report.conforms
    assert report.warnings == {name: 3 for name in WARNED}


def test_filtering_to_the_shape_predicates_changes_nothing():
    """The relevant-triple filter gives the same report as validating every triple."""
    import pyshacl
    import rdflib

    store = _store(
        'kwgr:geometry.point.Earthquake.ci37507183 geo:asWKT "POINT(0 0)"^^geo:wktLiteral .'
    )
    filtered = shacl.validate_store(store)
    full = rdflib.Graph()
    full.parse(
        data=pyoxigraph.serialize([q.triple for q in store], format=pyoxigraph.RdfFormat.N_TRIPLES),
        format="nt",
    )
    _, results, _ = pyshacl.validate(
        full, shacl_graph=shacl.shapes_graph(), inference="none", allow_warnings=True
    )
    n_results = len(set(results.subjects(rdflib.RDF.type, rdflib.SH.ValidationResult)))
    assert n_results == sum(filtered.violations.values()) + sum(filtered.warnings.values())
    assert filtered.triples_validated < len(store)


def test_asset_check_result_on_a_crawl(tmp_path):
    out = tmp_path / "crawl.nt"
    crawl_store(KWG_SHAPED, DEFAULT_KWG_REGION, out)
    key = dg.AssetKey("kg_native")
    r = kwg_shacl.check_result(key, "kwg", out)
    assert not r.passed and r.severity == dg.AssetCheckSeverity.WARN
    assert r.metadata["warnings_by_shape"].value == {name: 3 for name in WARNED}
    assert set(r.metadata["why"].value) == WARNED
    bad = tmp_path / "bad.nt"
    bad.write_bytes(
        out.read_bytes()
        + b'<http://x/g> <http://www.opengis.net/ont/geosparql#asWKT> "POINT(1 2)" .\n'
    )
    r = kwg_shacl.check_result(key, "kwg", bad)
    assert not r.passed and r.severity == dg.AssetCheckSeverity.ERROR
    assert r.metadata["violations_by_shape"].value == {"WktIsWktLiteral": 1}
    other = kwg_shacl.check_result(key, "worldkg", tmp_path / "missing.ttl")
    assert other.passed and other.metadata["applies"].value is False
