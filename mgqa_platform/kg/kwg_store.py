"""Crawl a local RDF file as if it were the KnowWhereGraph endpoint.

The file is loaded into an in-memory pyoxigraph store and :func:`mgqa_platform.kg.sparql.kwg_queries`
are run against it through :func:`mgqa_platform.kg.sparql.crawl_queries`, the paging and stopping
logic of the HTTP crawler. The output is therefore the same form (canonical N-Triples, one triple per
line, in page order), and for the same graph the same bytes, as a crawl of a live endpoint holding
that graph.
"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph

from mgqa_platform.kg.sparql import PageFetcher, crawl_queries, kwg_queries


def store_fetcher(store: pyoxigraph.Store) -> PageFetcher:
    """A page fetcher answering CONSTRUCT/DESCRIBE queries from ``store`` with N-Triples bytes.

    Raises ``ValueError`` for a query whose result is not a graph (SELECT, ASK); a query the
    store's parser rejects raises its ``SyntaxError``.
    """

    def fetch(query: str) -> bytes:
        results = store.query(query)
        if not isinstance(results, pyoxigraph.QueryTriples):
            raise ValueError("only CONSTRUCT/DESCRIBE queries can be crawled")
        return results.serialize(format=pyoxigraph.RdfFormat.N_TRIPLES)

    return fetch


def load_store(graph_path: Path) -> pyoxigraph.Store:
    """An in-memory store holding the RDF file ``graph_path`` (format from its extension:
    ``.ttl``, ``.nt``, ``.nq``, ``.trig``, ``.rdf``, ...). Raises ``ValueError`` for an unknown
    extension and the parser's ``SyntaxError`` for a malformed file."""
    fmt = pyoxigraph.RdfFormat.from_extension(graph_path.suffix.lstrip("."))
    if fmt is None:
        raise ValueError(f"{graph_path}: unknown RDF file extension {graph_path.suffix!r}")
    store = pyoxigraph.Store()
    store.bulk_load(path=str(graph_path), format=fmt)
    return store


def crawl_store(graph_path: Path, region_iri: str, out_nt: Path, page_size: int = 10_000) -> dict:
    """Crawl the KWG queries for ``region_iri`` from the RDF file ``graph_path`` into ``out_nt``.

    ``page_size`` solutions are fetched per page, as :class:`mgqa_platform.kg.sparql.SparqlCrawler`
    does. Returns the stats of :func:`mgqa_platform.kg.sparql.crawl_queries` (``queries``,
    ``pages``, ``triples``, ``retries`` = 0, ``short_pages_then_more``, ``per_query``). The same
    input gives the same bytes.
    """
    store = load_store(Path(graph_path))
    return crawl_queries(
        kwg_queries(region_iri), Path(out_nt), store_fetcher(store), page_size=page_size
    )


__all__ = ["crawl_store", "load_store", "store_fetcher"]
