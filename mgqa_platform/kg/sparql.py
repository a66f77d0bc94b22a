"""Paged SPARQL CONSTRUCT crawler for a KnowWhereGraph-like endpoint, writing N-Triples.

Each query is fetched page by page: ``LIMIT <page_size> OFFSET <k * page_size>`` is appended to the
query text and POSTed as an ``application/x-www-form-urlencoded`` body ``query=...`` with
``Accept: application/n-triples`` (SPARQL 1.1 Protocol, "query via URL-encoded POST").

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
one extra (empty) request per query. A page with fewer triples than ``page_size`` that is followed by
a non-empty page is counted in ``short_pages_then_more``: it is legitimate for multi-triple
templates, but with a one-triple-per-solution template it means the endpoint caps results below
``page_size`` (e.g. a server-side row limit), and the page size should be lowered.

Every page is parsed with pyoxigraph as N-Triples before it is accepted; the accepted triples are
written re-serialized (canonical N-Triples, one triple per line) in page order, atomically.
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
    response's ``Retry-After`` (seconds or HTTP date), capped at ``max_wait_s``. ``headers`` are sent
    with every request. If ``token_env`` names an environment variable, its value is read when
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
        """Headers for this crawl and the bearer token (for redaction), read from the environment now."""
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
                last_status, last_problem = None, f"{type(e).__name__}: {e}"
            else:
                status = response.status_code
                if 200 <= status < 300:
                    return response.content
                body = _redact(response.text[:200], token)
                if status != 429 and status < 500:
                    raise SparqlError(
                        f"SPARQL endpoint answered HTTP {status}: {body}", status=status
                    )
                last_status, last_problem = status, f"HTTP {status}: {body}"
            if attempt < self.max_retries:
                stats["retries"] += 1
                self._sleep(self._wait_s(attempt, response))
        raise SparqlError(
            f"SPARQL request failed after {self.max_retries + 1} attempts; last error: {_redact(last_problem, token)}",
            status=last_status,
        )

    def crawl(self, queries: list[str], out_nt: Path) -> dict:
        """Run every CONSTRUCT query in ``queries`` to completion and write all triples to ``out_nt``.

        ``out_nt`` is replaced atomically only when every page of every query succeeded. Returns
        stats: ``queries``, ``pages`` (requests that returned a page, including final empty ones),
        ``triples`` (lines written; a triple returned by two pages or queries is written twice),
        ``retries``, ``short_pages_then_more`` (see module docstring) and ``per_query`` (a list of
        ``{"pages", "triples"}``). Raises :class:`SparqlError` on failure, ``ValueError`` for a
        query that already ends in LIMIT/OFFSET.
        """
        for q in queries:
            if _TRAILING_LIMIT.search(q.strip()):
                raise ValueError(
                    "queries must not end with their own LIMIT/OFFSET; the crawler appends them"
                )
        headers, token = self._request_headers()
        stats: dict = {
            "queries": len(queries),
            "pages": 0,
            "triples": 0,
            "retries": 0,
            "short_pages_then_more": 0,
            "per_query": [],
        }
        with (
            atomic_path(out_nt) as tmp,
            open(tmp, "wb") as out,
            httpx.Client(timeout=self.timeout_s) as client,
        ):
            for qi, query in enumerate(queries):
                q_pages = q_triples = 0
                previous_short = False
                while True:
                    if q_pages >= self.max_pages:
                        raise SparqlError(
                            f"query {qi}: more than {self.max_pages} pages; is the endpoint ignoring OFFSET?"
                        )
                    paged = f"{query.rstrip()}\nLIMIT {self.page_size} OFFSET {q_pages * self.page_size}"
                    body = self._fetch_page(client, paged, headers, token, stats)
                    try:
                        triples = list(
                            pyoxigraph.parse(body, format=pyoxigraph.RdfFormat.N_TRIPLES)
                        )
                    except (SyntaxError, ValueError) as e:
                        raise SparqlError(
                            f"query {qi} page {q_pages}: response is not valid N-Triples ({e}); first bytes: "
                            f"{_redact(body[:200].decode('utf-8', 'replace'), token)}"
                        ) from None
                    q_pages += 1
                    if not triples:
                        break
                    if previous_short:
                        stats["short_pages_then_more"] += 1
                    previous_short = len(triples) < self.page_size
                    pyoxigraph.serialize(triples, out, format=pyoxigraph.RdfFormat.N_TRIPLES)
                    q_triples += len(triples)
                stats["pages"] += q_pages
                stats["triples"] += q_triples
                stats["per_query"].append({"pages": q_pages, "triples": q_triples})
        return stats


def _redact(text: str, token: str | None) -> str:
    """``text`` with every occurrence of ``token`` replaced by ``***`` (servers may echo headers)."""
    return text.replace(token, "***") if token else text


def _retry_after_s(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP date), None if absent/unparseable."""
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


_SPARQL_PREFIXES = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in vocab.KWG_PREFIXES.items())


def kwg_queries(region_iri: str) -> list[str]:
    """CONSTRUCT queries fetching, for one KnowWhereGraph region, the shapes of the crawl file.

    ``region_iri`` is a KWG administrative region (e.g. ``kwgr:administrativeRegion.USA.06083``).
    The queries return, in this order:

    1. the region, its parent region and the region's geometry;
    2. hazards (``kwg-ont:MTBSFire``, ``kwg-ont:Earthquake``) ``kwg-ont:sfWithin`` the region, with
       label, geometry (WKT) and temporal scope (``time:inXSDDate`` / ``time:inXSDDateTime``);
    3. the SOSA observations (magnitude, depth, bed count, ...) of features within the region;
    4. hospitals within the region. Besides the crawl-file predicates (``rdfs:label``,
       ``kwg-ont:hasHelipad``, ``geo:hasGeometry``), this also accepts the predicates that the
       public KWG examples query on the live graph (``kwg-ont:hospitalName``,
       ``kwg-ont:helipadAvailability``, ``geo:hasDefaultGeometry``, ``kwg-ont:noHospitalBeds``,
       membership via an S2 cell the region ``kwg-ont:sfContains``) and maps them to the crawl shape.

    Each ends with an ORDER BY over all its variables, as :class:`SparqlCrawler` requires.
    """
    r = f"<{region_iri}>"
    region = f"""{_SPARQL_PREFIXES}CONSTRUCT {{
  ?region a ?cls ; rdfs:label ?label ; kwg-ont:administrativePartOf ?parent ; geo:hasGeometry ?g .
  ?g a geo:Geometry ; geo:asWKT ?wkt .
  ?parent a ?pcls ; rdfs:label ?plabel .
}} WHERE {{
  VALUES ?region {{ {r} }}
  ?region a ?cls .
  OPTIONAL {{ ?region rdfs:label ?label }}
  OPTIONAL {{ ?region geo:hasGeometry ?g . ?g geo:asWKT ?wkt }}
  OPTIONAL {{
    ?region kwg-ont:administrativePartOf ?parent .
    OPTIONAL {{ ?parent a ?pcls }}
    OPTIONAL {{ ?parent rdfs:label ?plabel }}
  }}
}}
ORDER BY ?region ?cls ?label ?g ?wkt ?parent ?pcls ?plabel"""
    hazards = f"""{_SPARQL_PREFIXES}CONSTRUCT {{
  ?h a ?cls ; rdfs:label ?label ; geo:hasGeometry ?g ; kwg-ont:hasTemporalScope ?t ; kwg-ont:sfWithin {r} .
  ?g a geo:Geometry ; geo:asWKT ?wkt .
  ?t a time:Instant ; time:inXSDDate ?d ; time:inXSDDateTime ?dt .
}} WHERE {{
  VALUES ?cls {{ kwg-ont:MTBSFire kwg-ont:Earthquake }}
  ?h a ?cls ; kwg-ont:sfWithin {r} ; geo:hasGeometry ?g .
  ?g geo:asWKT ?wkt .
  OPTIONAL {{ ?h rdfs:label ?label }}
  OPTIONAL {{
    ?h kwg-ont:hasTemporalScope ?t .
    OPTIONAL {{ ?t time:inXSDDate ?d }}
    OPTIONAL {{ ?t time:inXSDDateTime ?dt }}
  }}
}}
ORDER BY ?cls ?h ?g ?wkt ?label ?t ?d ?dt"""
    observations = f"""{_SPARQL_PREFIXES}CONSTRUCT {{
  ?f sosa:isFeatureOfInterestOf ?c .
  ?c a sosa:ObservationCollection ; sosa:hasMember ?o .
  ?o a sosa:Observation ; sosa:observedProperty ?p ; sosa:hasSimpleResult ?v .
}} WHERE {{
  ?f kwg-ont:sfWithin {r} ; sosa:isFeatureOfInterestOf ?c .
  ?c sosa:hasMember ?o .
  ?o sosa:observedProperty ?p ; sosa:hasSimpleResult ?v .
}}
ORDER BY ?f ?c ?o ?p ?v"""
    hospitals = f"""{_SPARQL_PREFIXES}CONSTRUCT {{
  ?h a kwg-ont:Hospital ; rdfs:label ?name ; kwg-ont:hasHelipad ?heli ; geo:hasGeometry ?g ;
     kwg-ont:sfWithin {r} ; sosa:isFeatureOfInterestOf ?coll .
  ?g a geo:Geometry ; geo:asWKT ?wkt .
  ?coll a sosa:ObservationCollection ; sosa:hasMember ?obs .
  ?obs a sosa:Observation ; sosa:observedProperty kwg-ont:bedCount ; sosa:hasSimpleResult ?beds .
}} WHERE {{
  ?h a kwg-ont:Hospital .
  {{ ?h kwg-ont:sfWithin {r} }} UNION {{ {r} kwg-ont:sfContains ?cell . ?h kwg-ont:sfWithin ?cell }}
  {{ ?h geo:hasGeometry ?g }} UNION {{ ?h geo:hasDefaultGeometry ?g }}
  ?g geo:asWKT ?wkt .
  OPTIONAL {{ {{ ?h rdfs:label ?name }} UNION {{ ?h kwg-ont:hospitalName ?name }} }}
  OPTIONAL {{ {{ ?h kwg-ont:hasHelipad ?heli }} UNION {{ ?h kwg-ont:helipadAvailability ?heli }} }}
  OPTIONAL {{
    ?h kwg-ont:noHospitalBeds ?rawBeds .
    BIND(STRDT(STR(?rawBeds), xsd:decimal) AS ?beds)
    BIND(IRI(CONCAT(STR(kwgr:), "observationCollection.hospital.", STRAFTER(STR(?h), "/hospital."))) AS ?coll)
    BIND(IRI(CONCAT(STR(kwgr:), "observation.hospital.", STRAFTER(STR(?h), "/hospital."), ".bedCount")) AS ?obs)
  }}
}}
ORDER BY ?h ?cell ?g ?wkt ?name ?heli ?rawBeds"""
    return [region, hazards, observations, hospitals]


DEFAULT_KWG_REGION = vocab.KWGR + "administrativeRegion.USA.06083"
"""Santa Barbara County, California: the region of the bundled sample crawl."""

DEFAULT_KWG_QUERIES: list[str] = kwg_queries(DEFAULT_KWG_REGION)
"""The :func:`kwg_queries` for Santa Barbara County."""


__all__ = [
    "DEFAULT_KWG_QUERIES",
    "DEFAULT_KWG_REGION",
    "SparqlCrawler",
    "SparqlError",
    "kwg_queries",
]
