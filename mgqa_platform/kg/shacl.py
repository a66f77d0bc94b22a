"""SHACL validation of a KnowWhereGraph crawl against our GeoSPARQL and SOSA shapes (pyshacl).

The shapes live in ``mgqa_platform/data/shapes/`` (``kwg_geosparql.ttl``, ``kwg_sosa.ttl``); each
shape is a named IRI in ``urn:mgqa:shapes:`` with an ``rdfs:comment`` saying what it requires.
Shapes of severity ``sh:Warning`` are the ones real KnowWhereGraph data fails as well (feature of
interest and time on each observation: KWG attaches both to the observation collection); every other
shape is a ``sh:Violation``.

Cost. Only the triples a shape can read are validated: every ``rdf:type`` and ``rdfs:subClassOf``
triple, and every triple whose predicate is an IRI named in the shapes (paths, targets). The shapes
look at nothing else, so the report is the same as for the whole graph, while the big feature
triples that no shape reads (labels, names, spatial links) are never handed to rdflib.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph
import pyshacl
import rdflib
from rdflib.namespace import RDF, RDFS, SH

from mgqa_platform.kg import vocab
from mgqa_platform.kg.kwg_store import load_store
from mgqa_platform.settings import PACKAGE_DATA

SHAPES_DIR = PACKAGE_DATA / "shapes"
SHAPE_FILES = ("kwg_geosparql.ttl", "kwg_sosa.ttl")
SHAPES_NS = "urn:mgqa:shapes:"
_MAX_EXAMPLES = 5


@dataclass
class ShaclReport:
    """The outcome of one validation.

    ``violations`` / ``warnings``: results per shape name (the IRI after ``urn:mgqa:shapes:``, the
    node shape a property shape belongs to), by severity; ``reasons``: each reported shape's
    ``rdfs:comment``; ``examples``: up to five ``"<shape>: <focus node>: <message>"`` lines;
    ``triples_validated``: the triples handed to pyshacl; ``seconds``: wall time of the whole
    validation (loading included).
    """

    violations: dict[str, int] = field(default_factory=dict)
    warnings: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    triples_validated: int = 0
    seconds: float = 0.0

    @property
    def conforms(self) -> bool:
        """True when no shape of severity Violation failed (warnings allowed)."""
        return not self.violations


def shapes_graph() -> rdflib.Graph:
    """The shapes of :data:`SHAPE_FILES` in one rdflib graph."""
    g = rdflib.Graph()
    for name in SHAPE_FILES:
        g.parse(SHAPES_DIR / name, format="turtle")
    return g


def shape_predicates(shapes: rdflib.Graph) -> set[str]:
    """Every IRI named in ``shapes`` outside the SHACL, RDF and shapes namespaces: the predicates
    (and classes) the shapes can read."""
    skip = (str(SH), SHAPES_NS, str(RDF), str(RDFS))
    return {
        str(term)
        for triple in shapes
        for term in triple
        if isinstance(term, rdflib.URIRef) and not str(term).startswith(skip)
    }


def relevant_triples(store: pyoxigraph.Store, predicates: set[str]) -> list[pyoxigraph.Triple]:
    """The triples of ``store`` (default graph) that shapes naming ``predicates`` can read: every
    ``rdf:type`` and ``rdfs:subClassOf`` triple and every triple with one of ``predicates``."""
    keep = sorted(predicates | {vocab.RDF_TYPE, vocab.RDFS_SUBCLASS})
    out: list[pyoxigraph.Triple] = []
    for p in keep:
        out.extend(q.triple for q in store.quads_for_pattern(None, pyoxigraph.NamedNode(p), None))
    return out


def validate_store(store: pyoxigraph.Store) -> ShaclReport:
    """Validate the default graph of ``store`` against the shapes (see :class:`ShaclReport`)."""
    t0 = time.perf_counter()
    shapes = shapes_graph()
    triples = relevant_triples(store, shape_predicates(shapes))
    data = rdflib.Graph()
    if triples:
        data.parse(
            data=pyoxigraph.serialize(triples, format=pyoxigraph.RdfFormat.N_TRIPLES),
            format="nt",
        )
    _, results, _ = pyshacl.validate(
        data, shacl_graph=shapes, inference="none", advanced=False, allow_warnings=True
    )
    report = _read_results(results, shapes)
    report.triples_validated = len(triples)
    report.seconds = round(time.perf_counter() - t0, 3)
    return report


def validate_file(graph_path: Path) -> ShaclReport:
    """Validate the RDF file ``graph_path`` (Turtle, N-Triples, ...; format from the extension)."""
    t0 = time.perf_counter()
    report = validate_store(load_store(Path(graph_path)))
    report.seconds = round(time.perf_counter() - t0, 3)
    return report


def _shape_name(shape: rdflib.term.Node, shapes: rdflib.Graph) -> str:
    """The name of the node shape ``shape`` is (or belongs to, for a property shape)."""
    for parent in shapes.subjects(SH.property, shape):
        return _shape_name(parent, shapes)
    text = str(shape)
    return text[len(SHAPES_NS) :] if text.startswith(SHAPES_NS) else text


def _read_results(results: rdflib.Graph, shapes: rdflib.Graph) -> ShaclReport:
    """Count pyshacl's validation results per shape and severity."""
    report = ShaclReport()
    counts = {SH.Violation: Counter(), SH.Warning: Counter()}
    rows = []
    for r in results.subjects(RDF.type, SH.ValidationResult):
        shape = results.value(r, SH.sourceShape)
        name = _shape_name(shape, shapes)
        severity = results.value(r, SH.resultSeverity)
        counts[SH.Warning if severity == SH.Warning else SH.Violation][name] += 1
        node_shape = rdflib.URIRef(SHAPES_NS + name)
        report.reasons[name] = str(shapes.value(node_shape, RDFS.comment) or "")
        rows.append(
            f"{name}: {results.value(r, SH.focusNode)}: {results.value(r, SH.resultMessage)}"
        )
    report.violations = dict(sorted(counts[SH.Violation].items()))
    report.warnings = dict(sorted(counts[SH.Warning].items()))
    report.reasons = dict(sorted(report.reasons.items()))
    report.examples = sorted(rows)[:_MAX_EXAMPLES]
    return report


__all__ = [
    "SHAPE_FILES",
    "SHAPES_DIR",
    "ShaclReport",
    "relevant_triples",
    "shape_predicates",
    "shapes_graph",
    "validate_file",
    "validate_store",
]
