"""SparqlCrawler against a real local SPARQL endpoint (http.server + pyoxigraph) on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pyoxigraph
import pytest
from fake_sparql import kwg_shaped_store, serving

from mgqa_platform.kg import vocab
from mgqa_platform.kg.sparql import DEFAULT_KWG_QUERIES, SparqlCrawler, SparqlError

# Every triple of tests/fixtures/kwg_shaped.ttl, one per solution: 139 solutions, 139 triples.
ALL = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o"
N_ALL = 139
TOKEN = "tok-3f9a1c77-never-print-me"


@pytest.fixture
def kwg_store() -> pyoxigraph.Store:
    return kwg_shaped_store()


@pytest.fixture
def endpoint(kwg_store):
    with serving(kwg_store) as server:
        yield server


def _triples(path: Path) -> set[str]:
    return {str(t) for t in pyoxigraph.parse(path=path, format=pyoxigraph.RdfFormat.N_TRIPLES)}


def test_paging_yields_the_same_triples_as_the_store(endpoint, kwg_store, tmp_path):
    out = tmp_path / "all.nt"
    stats = SparqlCrawler(endpoint.url, page_size=30).crawl([ALL], out)
    direct = {str(t) for t in kwg_store.query(ALL)}
    assert len(direct) == N_ALL
    assert _triples(out) == direct
    # 139 solutions in pages of 30 -> 5 pages with data, then one empty page ends the query.
    assert stats["pages"] == 6
    assert stats["per_query"] == [{"pages": 6, "triples": N_ALL}]
    assert stats["triples"] == N_ALL and stats["retries"] == 0 and stats["duplicates"] == 0
    offsets = [r["query"].rsplit("\n", 1)[1] for r in endpoint.requests]
    assert offsets == [f"LIMIT 30 OFFSET {k * 30}" for k in range(6)]
    assert all(r["accept"] == "application/n-triples" for r in endpoint.requests)
    assert all(r["content_type"] == "application/x-www-form-urlencoded" for r in endpoint.requests)


def test_default_kwg_queries_fetch_the_kwg_shapes(endpoint, tmp_path):
    out = tmp_path / "kwg.nt"
    stats = SparqlCrawler(endpoint.url, page_size=500).crawl(DEFAULT_KWG_QUERIES, out)
    assert stats["queries"] == len(DEFAULT_KWG_QUERIES) == 6 and stats["triples"] > 0
    got = pyoxigraph.Store()
    got.bulk_load(path=str(out), format=pyoxigraph.RdfFormat.N_TRIPLES)

    def count(cls: str) -> int:
        q = f"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s a <{cls}> }}"
        return int(next(iter(got.query(q)))["n"].value)

    ont, usgs = vocab.KWG_ONT, "http://gnis-ld.org/lod/usgs/ontology/"
    assert count(ont + "AdministrativeRegion_2") == 1 and count(ont + "AdministrativeRegion_1") == 1
    assert count(ont + "Wildfire") == 1 and count(ont + "MTBSFire") == 1
    assert count(ont + "Earthquake") == 1 and count(ont + "Hospital") == 1
    assert count(usgs + "School") == 1 and count(usgs + "Park") == 1
    assert count(ont + "RoadSegment") == 1
    n_obs = "SELECT (COUNT(?v) AS ?n) WHERE { ?o <http://www.w3.org/ns/sosa/hasSimpleResult> ?v }"
    assert int(next(iter(got.query(n_obs)))["n"].value) == 3  # acres burned, magnitude, depth


def test_5xx_is_retried(endpoint, tmp_path):
    endpoint.script = [(503, b"busy", {}), (503, b"still busy", {})]
    waits: list[float] = []
    out = tmp_path / "all.nt"
    stats = SparqlCrawler(endpoint.url, page_size=1000, backoff_s=0.25, sleep=waits.append).crawl(
        [ALL], out
    )
    assert stats["retries"] == 2
    assert waits == [0.25, 0.5]  # exponential backoff
    assert len(_triples(out)) == N_ALL


def test_429_honours_retry_after(endpoint, tmp_path):
    endpoint.script = [(429, b"slow down", {"Retry-After": "3"})]
    waits: list[float] = []
    stats = SparqlCrawler(endpoint.url, page_size=1000, sleep=waits.append).crawl(
        [ALL], tmp_path / "s.nt"
    )
    assert waits == [3.0] and stats["retries"] == 1


def test_retries_exhausted(endpoint, tmp_path):
    endpoint.script = [(502, b"bad gateway", {})] * 3
    out = tmp_path / "s.nt"
    out.write_text("previous crawl\n")
    with pytest.raises(SparqlError) as err:
        SparqlCrawler(endpoint.url, max_retries=2, sleep=lambda s: None).crawl([ALL], out)
    assert err.value.status == 502 and "3 attempts" in str(err.value)
    assert out.read_text() == "previous crawl\n"  # a failed crawl leaves the old file in place


def test_connection_refused_is_retried_then_fails(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    waits: list[float] = []
    with pytest.raises(SparqlError) as err:
        SparqlCrawler(
            f"http://127.0.0.1:{port}/sparql", max_retries=2, timeout_s=2, sleep=waits.append
        ).crawl([ALL], tmp_path / "x.nt")
    assert err.value.status is None and len(waits) == 2
    assert not (tmp_path / "x.nt").exists()


def test_400_raises_with_status_and_body(endpoint, tmp_path):
    bad = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o "  # unterminated: the store's parser rejects it
    with pytest.raises(SparqlError) as err:
        SparqlCrawler(endpoint.url, sleep=lambda s: None).crawl([bad], tmp_path / "x.nt")
    assert err.value.status == 400
    assert "HTTP 400" in str(err.value) and "Parse error" in str(err.value)
    assert len(endpoint.requests) == 1  # 4xx is not retried


def test_bearer_token_is_sent_but_never_exposed(endpoint, tmp_path, monkeypatch):
    monkeypatch.setenv("KWG_TEST_TOKEN", TOKEN)
    crawler = SparqlCrawler(
        endpoint.url, page_size=1000, token_env="KWG_TEST_TOKEN", sleep=lambda s: None
    )
    assert TOKEN not in repr(vars(crawler))
    stats = crawler.crawl([ALL], tmp_path / "s.nt")
    assert endpoint.requests and all(
        r["authorization"] == f"Bearer {TOKEN}" for r in endpoint.requests
    )
    assert TOKEN not in json.dumps(stats)
    # A server that echoes the Authorization header into its error body: the message is redacted.
    endpoint.script = [(403, b"forbidden for {auth}", {})]
    with pytest.raises(SparqlError) as err:
        crawler.crawl([ALL], tmp_path / "t.nt")
    assert err.value.status == 403
    assert TOKEN not in str(err.value) and "Bearer ***" in str(err.value)


def test_missing_token_variable_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("KWG_TEST_TOKEN_ABSENT", raising=False)
    with pytest.raises(SparqlError, match="KWG_TEST_TOKEN_ABSENT"):
        SparqlCrawler("http://127.0.0.1:9/sparql", token_env="KWG_TEST_TOKEN_ABSENT").crawl(
            [ALL], tmp_path / "x.nt"
        )


def test_invalid_page_and_own_limit_are_rejected(endpoint, tmp_path):
    endpoint.script = [(200, b"<html>not n-triples</html>", {"Content-Type": "text/html"})]
    with pytest.raises(SparqlError, match="not valid N-Triples"):
        SparqlCrawler(endpoint.url).crawl([ALL], tmp_path / "x.nt")
    with pytest.raises(ValueError, match="LIMIT"):
        SparqlCrawler(endpoint.url).crawl([ALL + "\nLIMIT 10"], tmp_path / "x.nt")


def test_kg_native_asset_crawls_a_live_endpoint_then_converts(endpoint, tmp_path):
    """The same Dagster assets the UI runs, with the KnowWhereGraph source switched to `sparql`."""
    import dagster as dg

    from mgqa_dagster import definitions
    from mgqa_dagster.resources.paths import PathsResource
    from mgqa_dagster.resources.sources import KwgSourceResource

    resources = definitions.build_resources(
        paths=PathsResource(home=str(tmp_path), warehouse=str(tmp_path / "wh.duckdb")),
        kwg=KwgSourceResource(mode="sparql", endpoint=endpoint.url, page_size=500),
    )
    selection = dg.AssetSelection.assets("kg_native") | dg.AssetSelection.groups("kg_conversion")
    result = dg.materialize(
        definitions.ALL_ASSETS, selection=selection, partition_key="kwg", resources=resources
    )
    assert result.success
    meta = result.asset_materializations_for_node("kg_native")[0].metadata
    assert meta["path"].value.endswith("kwg-sparql-crawl.nt")
    assert meta["build_counts"].value["triples"] == 90
    # The SHACL check ran on the crawl: no violation, only the two warnings real KWG data has too.
    [shacl_eval] = [
        e.asset_check_evaluation_data
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
        and e.asset_check_evaluation_data.check_name == "kwg_shacl"
    ]
    assert not shacl_eval.passed and shacl_eval.severity == dg.AssetCheckSeverity.WARN
    shacl_meta = shacl_eval.metadata
    assert shacl_meta["violations_by_shape"].value == {}
    assert shacl_meta["warnings_by_shape"].value == {
        "ObservationHasFeatureOfInterest": 3,
        "ObservationHasTime": 3,
    }
    from mgqa_platform import warehouse

    with warehouse.session(tmp_path / "wh.duckdb", read_only=True) as con:
        rows = con.execute(
            "SELECT category, name FROM entities WHERE kg = 'kwg' ORDER BY ALL"
        ).fetchall()
    names = {name for _, name in rows}
    # Converted from the crawl; the features of the neighbouring county never came back.
    assert {"SHERPA", "Santa Barbara County", "California"} <= names
    assert ("earthquake", "M 3.1 - 8km NW of Goleta, CA") in rows
    assert not names & {"OUTSIDE", "Ventura County", "VENTURA COUNTY MEDICAL CENTER"}


def test_kwg_region_setting_chooses_the_crawled_region(endpoint, tmp_path):
    """`MGQA_KWG_REGION` (KwgSourceResource.region) is the region the live crawl asks for."""
    from mgqa_dagster.assets.kg_build import _build_kwg
    from mgqa_dagster.resources.paths import PathsResource
    from mgqa_dagster.resources.sources import InputsResource, KwgSourceResource

    ventura = vocab.KWGR + "administrativeRegion.USA.06111"
    kwg = KwgSourceResource(mode="sparql", endpoint=endpoint.url, region=ventura)
    out, report = _build_kwg(InputsResource(), kwg, PathsResource(home=str(tmp_path)))
    text = out.read_text()
    assert "VENTURA COUNTY MEDICAL CENTER" in text and "OUTSIDE" in text
    assert "Santa Barbara County" not in text and "GOLETA" not in text
    assert report.counts["queries"] == 6


def test_a_crawl_file_made_elsewhere_is_registered_as_it_is(endpoint, tmp_path):
    """`MGQA_KWG_MODE=file`: a crawl file (here the live crawl's own output) is registered without a
    copy, declares no coverage, and converts to the same entities as the crawl itself; a missing
    file is a clear error naming the variable."""
    import dagster as dg

    from mgqa_dagster import definitions
    from mgqa_dagster.assets.kg_build import _build_kwg
    from mgqa_dagster.resources.paths import PathsResource
    from mgqa_dagster.resources.sources import InputsResource, KwgSourceResource
    from mgqa_platform import warehouse

    live = KwgSourceResource(mode="sparql", endpoint=endpoint.url, page_size=500)
    crawl, _ = _build_kwg(InputsResource(), live, PathsResource(home=str(tmp_path / "live")))
    selection = dg.AssetSelection.assets("kg_native") | dg.AssetSelection.groups("kg_conversion")
    entities = []
    for name, kwg in (
        ("live", live),
        ("file", KwgSourceResource(mode="file", crawl_file=str(crawl))),
    ):
        home = tmp_path / name
        resources = definitions.build_resources(
            paths=PathsResource(home=str(home), warehouse=str(home / "wh.duckdb")), kwg=kwg
        )
        result = dg.materialize(
            definitions.ALL_ASSETS, selection=selection, partition_key="kwg", resources=resources
        )
        assert result.success
        with warehouse.session(home / "wh.duckdb", read_only=True) as con:
            entities.append(
                con.execute(
                    "SELECT entity_id, category, name, ST_AsText(geometry) FROM entities ORDER BY 1"
                ).fetchall()
            )
            if name == "file":
                assert con.execute("SELECT path FROM kg_files WHERE kg = 'kwg'").fetchall() == [
                    (str(crawl),)
                ]
                # no declared coverage: conversion fell back to the hull of the entities
                assert con.execute("SELECT method FROM coverage WHERE kg = 'kwg'").fetchall() == [
                    ("entity_hull",)
                ]
    assert entities[0] == entities[1] and len(entities[0]) > 5
    with pytest.raises(FileNotFoundError, match="MGQA_KWG_CRAWL_FILE"):
        _build_kwg(
            InputsResource(),
            KwgSourceResource(mode="file", crawl_file=str(tmp_path / "missing.nt")),
            PathsResource(home=str(tmp_path)),
        )


@pytest.mark.parametrize(
    "status,body",
    [
        (
            403,
            b"x" * 170 + b" forbidden for {auth}",
        ),  # the 200-character cut falls inside the token
        (503, b"y" * 177 + b" busy, {auth}"),  # retried, then the last error is reported
        (200, b"<a> <b> " + b"z" * 150 + b" {auth} ."),  # not N-Triples: the first bytes are quoted
    ],
)
def test_token_is_scrubbed_before_the_error_text_is_cut(
    endpoint, tmp_path, monkeypatch, status, body
):
    monkeypatch.setenv("KWG_TEST_TOKEN", TOKEN)
    crawler = SparqlCrawler(
        endpoint.url, token_env="KWG_TEST_TOKEN", max_retries=1, sleep=lambda s: None
    )
    endpoint.script = [(status, body, {})] * 2
    with pytest.raises(SparqlError) as err:
        crawler.crawl([ALL], tmp_path / "t.nt")
    message = str(err.value)
    assert "***" in message, message
    for n in range(8, len(TOKEN) + 1):
        assert TOKEN[:n] not in message, (n, message)
