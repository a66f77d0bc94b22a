"""Paged SPARQL CONSTRUCT crawler for a KnowWhereGraph-like endpoint, writing N-Triples.

Each query is fetched page by page: ``LIMIT <page_size> OFFSET <k * page_size>`` is appended to the
query text and handed to a *page fetcher*, a function ``paged query text -> N-Triples bytes``.
:class:`SparqlCrawler` fetches over HTTP: it POSTs an ``application/x-www-form-urlencoded`` body
``query=...`` with ``Accept: application/n-triples`` (SPARQL 1.1 Protocol, "query via URL-encoded
POST"). :func:`mgqa_platform.kg.kwg_store.crawl_store` runs the same queries in process against a
pyoxigraph store. Both go through :func:`crawl_queries`, so paging, the stopping rule, validation
and the output bytes are the same whatever answers the queries.

**Queries must order their solutions deterministically.** LIMIT/OFFSET page over the *solution
sequence*, which SPARQL leaves unordered unless the query says otherwise, so without an order two
requests may return overlapping or missing solutions. End each query with an ``ORDER BY`` over all
variables of its WHERE clause (a total order; unbound values sort first), and do not give it its own
LIMIT/OFFSET. An endpoint whose order is stable by construction (e.g. a sub-select with ORDER BY
that is known to be preserved) also works, but only an outer ORDER BY is guaranteed by the standard.

Stopping rule. LIMIT counts *solutions*, while a CONSTRUCT page returns *triples*: a solution can
yield several triples (or none, when template variables are unbound), and duplicate triples are
merged. The crawler therefore stops after the first page that returns no triples, which is the only
rule that cannot stop early; when every page so far held at least ``page_size`` triples this costs
one extra (empty) request per query. A page with fewer triples than ``page_size`` that is followed
by a non-empty page is counted in ``short_pages_then_more``: it is legitimate for multi-triple
templates, but with a one-triple-per-solution template it means the endpoint caps results below
``page_size`` (e.g. a server-side row limit), and the page size should be lowered.

Every page is parsed with pyoxigraph as N-Triples before it is accepted; the accepted triples are
written re-serialized (canonical N-Triples, one triple per line) in page order, each triple once,
atomically.
"""

from __future__ import annotations

import email.utils
import math
import os
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pyoxigraph

from mgqa_platform.files import atomic_path
from mgqa_platform.kg import vocab
from mgqa_platform.redact import scrub

_TRAILING_LIMIT = re.compile(r"\b(LIMIT|OFFSET)\s+\d+\s*$", re.IGNORECASE)


class SparqlError(RuntimeError):
    """A SPARQL request failed for good (client error, retries exhausted, or an invalid page).

    ``status`` is the HTTP status code of the last response, or None when no response arrived.
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class SparqlCrawler:
    """Crawl SPARQL CONSTRUCT queries from ``endpoint`` into one N-Triples file.

    ``page_size`` solutions are requested per page; ``timeout_s`` is the per-request timeout in
    seconds; a request is retried at most ``max_retries`` times after connection errors, timeouts,
    HTTP 429 and HTTP 5xx, waiting ``backoff_s * 2**attempt`` seconds (attempt 0, 1, ...) or the
    response's ``Retry-After`` (seconds or HTTP date), capped at ``max_wait_s``. ``headers`` are
    sent with every request. If ``token_env`` names an environment variable, its value is read when
    :meth:`crawl` runs and sent as ``Authorization: Bearer <token>``; the token is never stored on
    the crawler, logged, returned in stats, or included in error messages.
    """

    def __init__(
        self,
        endpoint: str,
        *,
        page_size: int = 10000,
        timeout_s: float = 60,
        max_retries: int = 4,
        backoff_s: float = 0.5,
        headers: dict[str, str] | None = None,
        token_env: str | None = None,
        max_wait_s: float = 120.0,
        max_pages: int = 100_000,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if page_size < 1:
            raise ValueError("page_size must be >= 1")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.endpoint = endpoint
        self.page_size = page_size
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.headers = dict(headers or {})
        self.token_env = token_env
        self.max_wait_s = max_wait_s
        self.max_pages = max_pages
        self._sleep = sleep

    def _request_headers(self) -> tuple[dict[str, str], str | None]:
        """Headers for this crawl and the bearer token (for redaction), read from the environment
        now."""
        headers = {"Accept": "application/n-triples", **self.headers}
        token = None
        if self.token_env:
            token = os.environ.get(self.token_env)
            if not token:
                raise SparqlError(
                    f"environment variable {self.token_env} (bearer token) is not set or empty"
                )
            headers["Authorization"] = f"Bearer {token}"
        return headers, token

    def _wait_s(self, attempt: int, response: httpx.Response | None) -> float:
        """Seconds to wait before retry number ``attempt + 1``."""
        wait = self.backoff_s * (2**attempt)
        if response is not None:
            retry_after = _retry_after_s(response.headers.get("Retry-After"))
            if retry_after is not None:
                wait = retry_after
        return min(max(wait, 0.0), self.max_wait_s)

    def _fetch_page(
        self,
        client: httpx.Client,
        query: str,
        headers: dict[str, str],
        token: str | None,
        stats: dict,
    ) -> bytes:
        """POST one paged query and return the response body; retries as documented on the class."""
        last_status: int | None = None
        last_problem = ""
        for attempt in range(self.max_retries + 1):
            response: httpx.Response | None = None
            try:
                response = client.post(self.endpoint, data={"query": query}, headers=headers)
            except httpx.TransportError as e:  # connection refused/reset, timeouts, protocol errors
                last_status, last_problem = None, _redact(f"{type(e).__name__}: {e}", token)
            else:
                status = response.status_code
                if 200 <= status < 300:
                    return response.content
                body = _redact(response.text, token)[:200]
                if status != 429 and status < 500:
                    raise SparqlError(
                        f"SPARQL endpoint answered HTTP {status}: {body}", status=status
                    )
                last_status, last_problem = status, f"HTTP {status}: {body}"
            if attempt < self.max_retries:
                stats["retries"] += 1
                self._sleep(self._wait_s(attempt, response))
        raise SparqlError(
            f"SPARQL request failed after {self.max_retries + 1} attempts; last error: "
            f"{_redact(last_problem, token)}",
            status=last_status,
        )

    def crawl(self, queries: list[str], out_nt: Path) -> dict:
        """Run every CONSTRUCT query in ``queries`` against the endpoint into ``out_nt``.

        See :func:`crawl_queries` for the output, the stats returned and the errors raised; HTTP
        retries are counted in ``stats["retries"]``. Raises :class:`SparqlError` when a request
        fails for good.
        """
        check_queries(queries)
        headers, token = self._request_headers()
        retries = {"retries": 0}
        with httpx.Client(timeout=self.timeout_s) as client:
            stats = crawl_queries(
                queries,
                out_nt,
                lambda q: self._fetch_page(client, q, headers, token, retries),
                page_size=self.page_size,
                max_pages=self.max_pages,
                redact=lambda text: _redact(text, token),
            )
        stats["retries"] = retries["retries"]
        return stats


PageFetcher = Callable[[str], bytes]
"""Answers one paged CONSTRUCT query (the full query text) with its triples as N-Triples bytes."""


def check_queries(queries: list[str]) -> None:
    """Raise ``ValueError`` for a query that already ends in LIMIT/OFFSET (the crawler appends
    them)."""
    for q in queries:
        if _TRAILING_LIMIT.search(q.strip()):
            raise ValueError(
                "queries must not end with their own LIMIT/OFFSET; the crawler appends them"
            )


def crawl_queries(
    queries: list[str],
    out_nt: Path,
    fetch: PageFetcher,
    *,
    page_size: int,
    max_pages: int = 100_000,
    redact: Callable[[str], str] = str,
) -> dict:
    """Run every CONSTRUCT query in ``queries`` to completion through ``fetch`` into ``out_nt``.

    Pages are requested as described in the module docstring (stopping rule included) and parsed as
    N-Triples; the accepted triples are written canonically, in page order, each once: the file is
    an RDF graph, so a triple that an earlier page or query already returned (a time instant shared
    by two hazards, say) is not written again but counted in ``duplicates``. ``out_nt`` is replaced
    atomically only when every page of every query succeeded. Returns stats: ``queries``,
    ``pages`` (requests that returned a page, including final empty ones), ``triples`` (lines
    written), ``duplicates``, ``retries`` (0 here; the HTTP crawler fills it in),
    ``short_pages_then_more`` (see module docstring) and ``per_query`` (a list of
    ``{"pages", "triples"}``, the triples a query returned, repeats included). Raises
    :class:`SparqlError` for a page that is not valid N-Triples or a query with more than
    ``max_pages`` pages, ``ValueError`` for a query that already ends in LIMIT/OFFSET. ``redact``
    cleans response text quoted in error messages.
    """
    if page_size < 1:
        raise ValueError("page_size must be >= 1")
    check_queries(queries)
    stats: dict = {
        "queries": len(queries),
        "pages": 0,
        "triples": 0,
        "duplicates": 0,
        "retries": 0,
        "short_pages_then_more": 0,
        "per_query": [],
    }
    seen: set[pyoxigraph.Triple] = set()
    with atomic_path(out_nt) as tmp, open(tmp, "wb") as out:
        for qi, query in enumerate(queries):
            q_pages = q_triples = 0
            previous_short = False
            while True:
                if q_pages >= max_pages:
                    raise SparqlError(
                        f"query {qi}: more than {max_pages} pages; is the endpoint ignoring OFFSET?"
                    )
                body = fetch(f"{query.rstrip()}\nLIMIT {page_size} OFFSET {q_pages * page_size}")
                try:
                    triples = list(pyoxigraph.parse(body, format=pyoxigraph.RdfFormat.N_TRIPLES))
                except (SyntaxError, ValueError) as e:
                    raise SparqlError(
                        f"query {qi} page {q_pages}: response is not valid N-Triples "
                        + redact(f"({e}); first bytes: {body.decode('utf-8', 'replace')}")[:400]
                    ) from None
                q_pages += 1
                if not triples:
                    break
                if previous_short:
                    stats["short_pages_then_more"] += 1
                previous_short = len(triples) < page_size
                new = [t for t in dict.fromkeys(triples) if t not in seen]
                seen.update(new)
                pyoxigraph.serialize(new, out, format=pyoxigraph.RdfFormat.N_TRIPLES)
                q_triples += len(triples)
                stats["triples"] += len(new)
                stats["duplicates"] += len(triples) - len(new)
            stats["pages"] += q_pages
            stats["per_query"].append({"pages": q_pages, "triples": q_triples})
    return stats


def _redact(text: str, token: str | None) -> str:
    """``text`` with ``token`` (whole, or any piece of 8+ characters) replaced by ``***`` (servers
    may echo headers); callers redact before they cut."""
    return scrub(text, (token,))


def _retry_after_s(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP date), None if
    absent/unparseable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(seconds, 0.0)


USGS_ONT = "http://gnis-ld.org/lod/usgs/ontology/"
"""The ``usgs:`` namespace of the GNIS-LD feature classes (``usgs:School``, ``usgs:Park``, ...)."""

KWG_QUERY_PREFIXES = {**vocab.KWG_PREFIXES, "usgs": USGS_ONT}
_SPARQL_PREFIXES = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in KWG_QUERY_PREFIXES.items())

HAZARD_CLASSES = (
    "kwg-ont:MTBSFire",
    "kwg-ont:NIFCFire",
    "kwg-ont:Wildfire",
    "kwg-ont:PrescribedFire",
    "kwg-ont:Earthquake",
)
"""Hazard classes selected by name as well as through ``rdfs:subClassOf* kwg-ont:Hazard``: a store
without the KWG ontology (no hierarchy triples) still yields them."""

_GEOMETRY_LINKS = "geo:hasGeometry|geo:hasDefaultGeometry"
_GEOMETRY_PREDICATES = ("rdf:type", "geo:asWKT")
_TIME_PREDICATES = (
    "rdf:type",
    "time:inXSDDate",
    "time:inXSDDateTime",
    "time:hasBeginning",
    "time:hasEnd",
)


_FEATURE_LINKS = "kwg-ont:sfWithin|kwg-ont:sfOverlaps|kwg-ont:sfCrosses"
"""How a feature meets a region or an S2 cell: a point or area lies within it or overlaps it, a road
segment crosses it."""


def _linked_to(region: str) -> str:
    """Graph pattern: feature ``?f`` lies in ``region`` directly or through one of its S2 cells, a
    cell the region contains or one on its border (which it overlaps: a coastal point's cell is
    such a cell; conversion's coverage rules decide what lies outside the region)."""
    return f"""{{ ?f {_FEATURE_LINKS} {region} }}
      UNION
      {{ {region} kwg-ont:sfContains|kwg-ont:sfOverlaps ?cell . ?f {_FEATURE_LINKS} ?cell }}"""


def _hazards_in(region: str) -> str:
    """Graph pattern binding ``?f`` to every hazard in ``region`` (class hierarchy or class
    name)."""
    classes = " ".join(HAZARD_CLASSES)
    return f"""{_linked_to(region)}
      {{ ?f a ?cls . ?cls rdfs:subClassOf* kwg-ont:Hazard }}
      UNION
      {{ VALUES ?cls {{ {classes} }} ?f a ?cls }}"""


def _features_in(region: str, classes: tuple[str, ...]) -> str:
    """Graph pattern binding ``?f`` to every instance of ``classes`` in ``region``."""
    return f"""{_linked_to(region)}
      VALUES ?cls {{ {" ".join(classes)} }}
      ?f a ?cls ."""


def _resource_triples(selection: str, arms: list[tuple[str, tuple[str, ...]]]) -> str:
    """CONSTRUCT the triples ``?s ?p ?o`` of the resources reached from the features ``selection``
    binds to ``?f``, one triple per solution.

    Each arm is (path from ``?f`` to ``?s``, predicates kept for that ``?s``); the path ``""`` is
    the feature itself. The triples are emitted exactly as the graph holds them (no renaming).
    Every arm repeats the selection as a sub-select, so that the engine looks the arm's triples up
    from bound features (bottom-up evaluation would otherwise scan every feature of the graph),
    and filters predicates with ``FILTER(?p IN (...))`` after a subject lookup. DISTINCT plus the
    ORDER BY over ``?s ?p ?o`` (with the object's lexical form, language and datatype to break ties
    between literals that compare equal) give the total order paging needs.
    """
    features = f"""{{
          SELECT DISTINCT ?f
          WHERE {{
      {selection}
          }}
        }}"""
    parts = []
    for path, predicates in arms:
        keep = f"FILTER(?p IN ({', '.join(predicates)}))"
        if path:
            parts.append(
                f"{{\n        {features}\n        ?f {path} ?s .\n        ?s ?p ?o .\n     "
                f"   {keep}\n      }}"
            )
        else:
            parts.append(
                f"{{\n        {features}\n        ?f ?p ?o .\n        {keep}\n        "
                "BIND(?f AS ?s)\n      }"
            )
    union = "\n      UNION\n      ".join(parts)
    return f"""{_SPARQL_PREFIXES}CONSTRUCT {{ ?s ?p ?o }}
WHERE {{
  {{
    SELECT DISTINCT ?s ?p ?o
    WHERE {{
      {union}
    }}
  }}
}}
ORDER BY ?s ?p ?o STR(?o) LANG(?o) DATATYPE(?o)"""


#: The places a region holds, as (classes, predicates besides the feature links): hospitals, GNIS
#: features, road segments.
_PLACE_KINDS = (
    (
        ("kwg-ont:Hospital",),
        ("kwg-ont:hospitalName", "kwg-ont:helipadAvailability", "kwg-ont:noHospitalBeds"),
    ),
    (("usgs:School", "usgs:Park", "usgs:Airport"), ()),
    (("kwg-ont:RoadSegment",), ("kwg-ont:hasRoadSign",)),
)

#: The predicates every feature query emits: types, label and geometry links.
_FEATURE_PREDICATES = ("rdf:type", "rdfs:label", "geo:hasGeometry", "geo:hasDefaultGeometry")

#: The observation collections of a feature, their member observations, the observed
#: properties and the phenomenon times, as (path from the feature, predicates).
_OBSERVATION_COLLECTION = "sosa:isFeatureOfInterestOf/sosa:hasMember?"
_OBSERVATION_PATHS = [
    ("", ("sosa:isFeatureOfInterestOf",)),
    (
        _OBSERVATION_COLLECTION,
        (
            "rdf:type",
            "sosa:hasMember",
            "sosa:observedProperty",
            "sosa:hasSimpleResult",
            "sosa:phenomenonTime",
            "sosa:hasFeatureOfInterest",
        ),
    ),
    (f"{_OBSERVATION_COLLECTION}/sosa:observedProperty", ("rdf:type", "rdfs:label")),
    (
        f"{_OBSERVATION_COLLECTION}/sosa:phenomenonTime/(time:hasBeginning|time:hasEnd)?",
        _TIME_PREDICATES,
    ),
]


def kwg_queries(region_iri: str) -> list[str]:
    """CONSTRUCT queries fetching, for one KnowWhereGraph region, the real KWG shapes it holds.

    ``region_iri`` is a KWG administrative region (e.g. ``kwgr:administrativeRegion.USA.06083``,
    written as a full IRI). "In the region" means ``kwg-ont:sfWithin``/``sfOverlaps`` the region,
    or ``sfWithin``/``sfOverlaps`` an S2 cell that the region ``kwg-ont:sfContains``. Every query
    emits triples as the graph holds them, a whitelist of predicates per resource, one triple per
    solution (see docs/kg_fidelity.md (KnowWhereGraph: the crawl queries)). In this order:

    1. the region and its parent (``administrativePartOf``): types, label, ``hasFIPS``,
       ``administrativePartOf``, geometry links, and their geometries (type, ``geo:asWKT``);
    2. hazards (``rdfs:subClassOf* kwg-ont:Hazard`` or one of :data:`HAZARD_CLASSES`): types,
       label, geometry links, ``kwg-ont:hasTemporalScope``; their geometries; their temporal
       entities and, for a ``time:Interval``, its beginning/end instants;
    3. hospitals (``kwg-ont:Hospital``): ``hospitalName``, ``helipadAvailability``,
       ``noHospitalBeds``, label, geometry;
    4. GNIS features (``usgs:School``, ``usgs:Park``, ``usgs:Airport``): label, geometry;
    5. road segments (``kwg-ont:RoadSegment``): ``hasRoadSign``, label, geometry;
    6. the SOSA observations of the features of queries 2-5: the feature's
       ``sosa:isFeatureOfInterestOf``, the collections and their member observations
       (``hasMember``, ``observedProperty``, ``hasSimpleResult``, ``phenomenonTime``,
       ``hasFeatureOfInterest``), the observed properties (type, label) and the phenomenon times.

    Spatial links (to the region or to S2 cells) and the cells themselves are not emitted:
    conversion recomputes containment from the geometries. Each query ends with an ORDER BY over
    all its variables, as :func:`crawl_queries` requires.
    """
    r = f"<{region_iri}>"
    geometry = (_GEOMETRY_LINKS, _GEOMETRY_PREDICATES)
    hazards = _hazards_in(r)
    places, feature_links = _PLACE_KINDS, _FEATURE_PREDICATES
    region = _resource_triples(
        f"{{ VALUES ?f {{ {r} }} }} UNION {{ {r} kwg-ont:administrativePartOf ?f }}",
        [("", (*feature_links, "kwg-ont:hasFIPS", "kwg-ont:administrativePartOf")), geometry],
    )
    hazard = _resource_triples(
        hazards,
        [
            ("", (*feature_links, "kwg-ont:hasTemporalScope")),
            geometry,
            ("kwg-ont:hasTemporalScope/(time:hasBeginning|time:hasEnd)?", _TIME_PREDICATES),
        ],
    )
    place_queries = [
        _resource_triples(_features_in(r, classes), [("", (*feature_links, *extra)), geometry])
        for classes, extra in places
    ]
    all_places = tuple(c for classes, _ in places for c in classes)
    observations = _resource_triples(
        f"""{{
      {hazards}
      }}
      UNION
      {{
      {_features_in(r, all_places)}
      }}""",
        _OBSERVATION_PATHS,
    )
    return [region, hazard, *place_queries, observations]


def as_select(query: str) -> str:
    """The SELECT form of a :func:`kwg_queries` CONSTRUCT: ``SELECT ?s ?p ?o`` over the same WHERE
    clause and ORDER BY, for endpoints or web UIs that export SELECT results (SPARQL JSON, XML,
    TSV) rather than RDF; :func:`mgqa_platform.kg.kwg_store.select_results_to_ntriples` turns the
    saved results into the crawl file."""
    head, sep, where = query.partition("CONSTRUCT { ?s ?p ?o }\nWHERE")
    if not sep:
        raise ValueError("not a kwg_queries() query: no 'CONSTRUCT { ?s ?p ?o } WHERE'")
    return f"{head}SELECT ?s ?p ?o\nWHERE{where}"


DEFAULT_KWG_REGION = vocab.KWGR + "administrativeRegion.USA.06083"
"""Santa Barbara County, California: the region of the bundled sample crawl."""

DEFAULT_KWG_QUERIES: list[str] = kwg_queries(DEFAULT_KWG_REGION)
"""The :func:`kwg_queries` for Santa Barbara County."""


__all__ = [
    "DEFAULT_KWG_QUERIES",
    "DEFAULT_KWG_REGION",
    "HAZARD_CLASSES",
    "KWG_QUERY_PREFIXES",
    "PageFetcher",
    "SparqlCrawler",
    "SparqlError",
    "as_select",
    "check_queries",
    "crawl_queries",
    "kwg_queries",
]
