"""SparqlCrawler against a real local SPARQL endpoint (http.server + pyoxigraph) on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pyoxigraph
import pytest

from mgqa_platform.kg import vocab
from mgqa_platform.kg.sparql import DEFAULT_KWG_QUERIES, SparqlCrawler, SparqlError

PREFIXES = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in vocab.KWG_PREFIXES.items())
SCHOOLS = (
    PREFIXES
    + """CONSTRUCT { ?s a kwg-ont:School ; rdfs:label ?l ; geo:hasGeometry ?g }
WHERE { ?s a kwg-ont:School ; rdfs:label ?l ; geo:hasGeometry ?g }
ORDER BY ?s ?l ?g"""
)
TOKEN = "tok-3f9a1c77-never-print-me"


class _Endpoint(ThreadingHTTPServer):
    """SPARQL endpoint state: the store, scripted failures to answer first, and request records."""

    daemon_threads = True

    def __init__(self, store: pyoxigraph.Store) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.store = store
        self.script: list[tuple[int, bytes, dict[str, str]]] = []
        self.requests: list[dict[str, str]] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/sparql"


class _Handler(BaseHTTPRequestHandler):
    server: _Endpoint

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for k, v in {"Content-Type": "text/plain; charset=utf-8", **(headers or {})}.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode("utf-8")
        query = parse_qs(raw).get("query", [""])[0]
        with self.server.lock:
            self.server.requests.append(
                {
                    "authorization": self.headers.get("Authorization", ""),
                    "accept": self.headers.get("Accept", ""),
                    "content_type": self.headers.get("Content-Type", ""),
                    "query": query,
                }
            )
            scripted = self.server.script.pop(0) if self.server.script else None
        if scripted is not None:
            status, body, headers = scripted
            self._send(
                status,
                body.replace(b"{auth}", self.headers.get("Authorization", "").encode()),
                headers,
            )
            return
        try:
            results = self.server.store.query(query)
        except SyntaxError as e:
            self._send(400, f"Parse error: {e}".encode())
            return
        if not isinstance(results, pyoxigraph.QueryTriples):
            self._send(400, b"only CONSTRUCT/DESCRIBE queries are served")
            return
        self._send(
            200,
            results.serialize(format=pyoxigraph.RdfFormat.N_TRIPLES),
            {"Content-Type": "application/n-triples"},
        )


@pytest.fixture
def endpoint(kwg_store):
    server = _Endpoint(kwg_store)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _triples(path: Path) -> set[str]:
    return {str(t) for t in pyoxigraph.parse(path=path, format=pyoxigraph.RdfFormat.N_TRIPLES)}


def test_paging_yields_the_same_triples_as_the_store(endpoint, kwg_store, tmp_path):
    out = tmp_path / "schools.nt"
    stats = SparqlCrawler(endpoint.url, page_size=50).crawl([SCHOOLS], out)
    direct = {str(t) for t in kwg_store.query(SCHOOLS)}
    assert len(direct) == 3 * 227
    assert _triples(out) == direct
    # 227 solutions in pages of 50 -> 5 pages with data, then one empty page ends the query.
    assert stats["pages"] == 6
    assert stats["per_query"] == [{"pages": 6, "triples": 3 * 227}]
    assert stats["triples"] == 3 * 227 and stats["retries"] == 0
    offsets = [r["query"].rsplit("\n", 1)[1] for r in endpoint.requests]
    assert offsets == [f"LIMIT 50 OFFSET {k * 50}" for k in range(6)]
    assert all(r["accept"] == "application/n-triples" for r in endpoint.requests)
    assert all(r["content_type"] == "application/x-www-form-urlencoded" for r in endpoint.requests)


def test_default_kwg_queries_fetch_the_crawl_shapes(endpoint, tmp_path):
    out = tmp_path / "kwg.nt"
    stats = SparqlCrawler(endpoint.url, page_size=500).crawl(DEFAULT_KWG_QUERIES, out)
    assert stats["queries"] == len(DEFAULT_KWG_QUERIES) and stats["triples"] > 0
    got = pyoxigraph.Store()
    got.bulk_load(path=str(out), format=pyoxigraph.RdfFormat.N_TRIPLES)

    def count(cls: str) -> int:
        q = f"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s a <{vocab.KWG_ONT}{cls}> }}"
        return int(next(iter(got.query(q)))["n"].value)

    assert count("AdministrativeRegion_2") == 1 and count("AdministrativeRegion_1") == 1
    assert count("MTBSFire") == 49 and count("Hospital") == 9
    assert 0 < count("Earthquake") < 50  # only the earthquakes within Santa Barbara County
    n_beds = (
        PREFIXES
        + "SELECT (COUNT(?v) AS ?n) WHERE { ?o sosa:observedProperty kwg-ont:bedCount ; sosa:hasSimpleResult ?v }"
    )
    assert int(next(iter(got.query(n_beds)))["n"].value) == 9


def test_5xx_is_retried(endpoint, tmp_path):
    endpoint.script = [(503, b"busy", {}), (503, b"still busy", {})]
    waits: list[float] = []
    out = tmp_path / "schools.nt"
    stats = SparqlCrawler(endpoint.url, page_size=1000, backoff_s=0.25, sleep=waits.append).crawl(
        [SCHOOLS], out
    )
    assert stats["retries"] == 2
    assert waits == [0.25, 0.5]  # exponential backoff
    assert len(_triples(out)) == 3 * 227


def test_429_honours_retry_after(endpoint, tmp_path):
    endpoint.script = [(429, b"slow down", {"Retry-After": "3"})]
    waits: list[float] = []
    stats = SparqlCrawler(endpoint.url, page_size=1000, sleep=waits.append).crawl(
        [SCHOOLS], tmp_path / "s.nt"
    )
    assert waits == [3.0] and stats["retries"] == 1


def test_retries_exhausted(endpoint, tmp_path):
    endpoint.script = [(502, b"bad gateway", {})] * 3
    out = tmp_path / "s.nt"
    out.write_text("previous crawl\n")
    with pytest.raises(SparqlError) as err:
        SparqlCrawler(endpoint.url, max_retries=2, sleep=lambda s: None).crawl([SCHOOLS], out)
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
        ).crawl([SCHOOLS], tmp_path / "x.nt")
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
    stats = crawler.crawl([SCHOOLS], tmp_path / "s.nt")
    assert endpoint.requests and all(
        r["authorization"] == f"Bearer {TOKEN}" for r in endpoint.requests
    )
    assert TOKEN not in json.dumps(stats)
    # A server that echoes the Authorization header into its error body: the message is redacted.
    endpoint.script = [(403, b"forbidden for {auth}", {})]
    with pytest.raises(SparqlError) as err:
        crawler.crawl([SCHOOLS], tmp_path / "t.nt")
    assert err.value.status == 403
    assert TOKEN not in str(err.value) and "Bearer ***" in str(err.value)


def test_missing_token_variable_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("KWG_TEST_TOKEN_ABSENT", raising=False)
    with pytest.raises(SparqlError, match="KWG_TEST_TOKEN_ABSENT"):
        SparqlCrawler("http://127.0.0.1:9/sparql", token_env="KWG_TEST_TOKEN_ABSENT").crawl(
            [SCHOOLS], tmp_path / "x.nt"
        )


def test_invalid_page_and_own_limit_are_rejected(endpoint, tmp_path):
    endpoint.script = [(200, b"<html>not n-triples</html>", {"Content-Type": "text/html"})]
    with pytest.raises(SparqlError, match="not valid N-Triples"):
        SparqlCrawler(endpoint.url).crawl([SCHOOLS], tmp_path / "x.nt")
    with pytest.raises(ValueError, match="LIMIT"):
        SparqlCrawler(endpoint.url).crawl([SCHOOLS + "\nLIMIT 10"], tmp_path / "x.nt")


def test_hospital_query_maps_live_kwg_predicates():
    """The live KWG (per its public examples) names hospital facts differently; the query maps them."""
    store = pyoxigraph.Store()
    store.load(
        input=PREFIXES.replace("PREFIX ", "@prefix ").replace(">\n", "> .\n")
        + """kwgr:hospital.X a kwg-ont:Hospital ; kwg-ont:hospitalName "X" ; kwg-ont:helipadAvailability kwgr:yes ;
            kwg-ont:noHospitalBeds "12.0" ; geo:hasDefaultGeometry kwgr:g1 ; kwg-ont:sfWithin kwgr:s2cell .
        kwgr:g1 geo:asWKT "POINT(-119.7 34.4)"^^geo:wktLiteral .
        kwgr:administrativeRegion.USA.06083 kwg-ont:sfContains kwgr:s2cell .""",
        format=pyoxigraph.RdfFormat.TURTLE,
    )
    got = pyoxigraph.Store()
    for t in store.query(DEFAULT_KWG_QUERIES[3]):
        got.add(pyoxigraph.Quad(t.subject, t.predicate, t.object))
    # Full IRI for the region: oxigraph 0.5's SPARQL parser rejects prefixed names like
    # kwgr:administrativeRegion.USA.06083 (two dots, then a digit) although the grammar allows them.
    check = (
        PREFIXES
        + """ASK { kwgr:hospital.X a kwg-ont:Hospital ; rdfs:label "X" ; kwg-ont:hasHelipad kwgr:yes ;
        geo:hasGeometry/geo:asWKT ?w ; kwg-ont:sfWithin <http://stko-kwg.geog.ucsb.edu/lod/resource/administrativeRegion.USA.06083> ;
        sosa:isFeatureOfInterestOf/sosa:hasMember ?o .
      ?o sosa:observedProperty kwg-ont:bedCount ; sosa:hasSimpleResult ?v . FILTER(?v = 12) }"""
    )
    assert bool(got.query(check))


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
    from mgqa_platform import warehouse

    with warehouse.session(tmp_path / "wh.duckdb", read_only=True) as con:
        cats = dict(
            con.execute(
                "SELECT category, count(*) FROM entities WHERE kg = 'kwg' GROUP BY 1"
            ).fetchall()
        )
    assert cats["wildfire"] == 49 and cats["hospital"] == 9 and cats["administrative_region"] == 1
