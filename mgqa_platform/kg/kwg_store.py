"""Crawl a local RDF file as if it were the KnowWhereGraph endpoint.

The file is loaded into an in-memory pyoxigraph store and
:func:`mgqa_platform.kg.sparql.kwg_queries` are run against it through
:func:`mgqa_platform.kg.sparql.crawl_queries`, the paging and stopping logic of the HTTP crawler.
The output is therefore the same form (canonical N-Triples, one triple per line, in page order), and
for the same graph the same bytes, as a crawl of a live endpoint holding that graph.
:func:`select_results_to_ntriples` gives the same form from SELECT results saved from a KWG endpoint
(the :func:`mgqa_platform.kg.sparql.as_select` form of each query).
"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph

from mgqa_platform.files import atomic_path
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
    """An in-memory store whose default graph holds the RDF graph file ``graph_path`` (format from
    its extension: ``.ttl``, ``.nt``, ``.n3``, ``.rdf``). Raises ``ValueError`` for an unknown
    extension or a dataset format (``.nq``, ``.trig``: the queries read the default graph only) and
    the parser's ``SyntaxError`` for a malformed file."""
    fmt = pyoxigraph.RdfFormat.from_extension(graph_path.suffix.lstrip("."))
    if fmt is None or fmt.supports_datasets:
        raise ValueError(
            f"{graph_path}: extension {graph_path.suffix!r} is not an RDF graph format "
            "(Turtle .ttl, N-Triples .nt, N3 .n3, RDF/XML .rdf)"
        )
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


def select_results_to_ntriples(results_paths: list[Path], out_nt: Path) -> dict:
    """Write the solutions ``?s ?p ?o`` of saved SPARQL SELECT results as the crawl file ``out_nt``.

    ``results_paths`` are SPARQL 1.1 results files (JSON ``.srj``/``.json``, XML ``.srx``/``.xml``
    or TSV ``.tsv``; CSV drops the difference between IRIs and literals and is refused), one per
    query of :func:`mgqa_platform.kg.sparql.kwg_queries` in
    :func:`~mgqa_platform.kg.sparql.as_select` form, in query order. Triples are written as the
    crawler writes them: canonical N-Triples in solution order, each once, atomically; for the
    results of a complete run of the queries the bytes equal those of a crawl. Returns ``{"files",
    "solutions", "triples", "duplicates"}``. Raises ``ValueError`` naming the file and solution
    number for results without the variables ``s``, ``p``, ``o``, an unbound value, or values that
    make no RDF triple (a literal subject or predicate).
    """
    stats = {"files": len(results_paths), "solutions": 0, "triples": 0, "duplicates": 0}
    seen: set[pyoxigraph.Triple] = set()
    with atomic_path(Path(out_nt)) as tmp, open(tmp, "wb") as out:
        for path in map(Path, results_paths):
            triples = []
            for i, solution in enumerate(_solutions(path)):
                triples.append(_triple(path, i, solution))
            stats["solutions"] += len(triples)
            new = [t for t in dict.fromkeys(triples) if t not in seen]
            seen.update(new)
            stats["triples"] += len(new)
            stats["duplicates"] += len(triples) - len(new)
            pyoxigraph.serialize(new, out, format=pyoxigraph.RdfFormat.N_TRIPLES)
    return stats


def _solutions(path: Path) -> pyoxigraph.QuerySolutions:
    """The solutions of the SELECT results file ``path`` (format from the extension)."""
    ext = path.suffix.lstrip(".").lower()
    fmt = pyoxigraph.QueryResultsFormat.from_extension(ext)
    if fmt is None or fmt == pyoxigraph.QueryResultsFormat.CSV:
        raise ValueError(
            f"{path}: "
            "SELECT results must be SPARQL JSON (.srj/.json), "
            "XML (.srx/.xml) or TSV (.tsv); "
            f"{path.suffix!r} is not one (CSV loses the difference between IRIs and literals)"
        )
    results = pyoxigraph.parse_query_results(path=path, format=fmt)
    if not isinstance(results, pyoxigraph.QuerySolutions):
        raise ValueError(f"{path}: holds an ASK answer, not SELECT results")
    variables = {v.value for v in results.variables}
    if not {"s", "p", "o"} <= variables:
        raise ValueError(
            f"{path}: SELECT results need the variables s, p, o (has {sorted(variables)})"
        )
    return results


def _triple(path: Path, i: int, solution: pyoxigraph.QuerySolution) -> pyoxigraph.Triple:
    """The triple of solution number ``i`` (0-based) of ``path``."""
    s, p, o = solution["s"], solution["p"], solution["o"]
    if s is None or p is None or o is None:
        raise ValueError(f"{path}: solution {i} leaves s, p or o unbound")
    if not isinstance(s, pyoxigraph.NamedNode | pyoxigraph.BlankNode) or not isinstance(
        p, pyoxigraph.NamedNode
    ):
        raise ValueError(f"{path}: solution {i} is no RDF triple (subject {s}, predicate {p})")
    return pyoxigraph.Triple(s, p, o)


__all__ = ["crawl_store", "load_store", "select_results_to_ntriples", "store_fetcher"]
