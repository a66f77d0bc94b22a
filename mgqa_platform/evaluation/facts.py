"""What a released question states: its gold triples read back into entities, without the warehouse.

The reference solver (:mod:`mgqa_platform.evaluation.solver`) may use nothing but a question record
(text, template, bindings, parameters) and its cited ``gold_triples``. This module turns those ``[s,
p, o]`` triples, in any of the three KGs' native vocabularies, into :class:`Entity` objects:

* labels: ``rdfs:label``, OSM ``name`` / ``name:en``, WorldKG ``nameEn``, KWG ``hasRoadSign`` and
  ``hospitalName``;
* geometry: ``geo:hasGeometry`` / ``geo:hasDefaultGeometry`` / ``wkgs:spatialObject`` -> node ->
  ``geo:asWKT`` (a CRS IRI prefix allowed), parsed by :func:`mgqa_platform.geometry.parse_wkt` into
  shapely in EPSG:4326, **x = longitude, y = latitude**;
* types: ``rdf:type`` objects, local names;
* time: ``kwg-ont:hasTemporalScope`` or ``time:hasTime`` -> ``time:Instant``
  (``inXSDDate``/``inXSDDateTime``) or ``time:Interval`` (``hasBeginning``/``hasEnd`` -> instants),
  as ISO date strings;
* observations: ``sosa:isFeatureOfInterestOf`` -> collection -> ``sosa:hasMember`` -> observation
  with ``sosa:observedProperty`` (the attribute of
  :data:`mgqa_platform.kg.vocab.KWG_OBSERVED_ATTRIBUTES`, e.g. ``magnitude``, else its local name)
  and ``sosa:hasSimpleResult``, kept as attributes;
* attributes: any other literal, keyed by the predicate's local name (``population``, ``ele``...).

``entity_subjects`` (entity id -> triple subject) in the record ties bindings to subjects.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from shapely.geometry.base import BaseGeometry

from mgqa_platform import geometry as geo
from mgqa_platform.kg import vocab

_LOCAL = re.compile(r"[#/]([^#/]*)$")


def local_name(iri: str) -> str:
    """``http://www.w3.org/2000/01/rdf-schema#label`` -> ``label``; ``geo:asWKT`` -> ``asWKT``;
    ``urn:mgqa:population`` -> ``population``; ``name:en`` stays."""
    if iri.startswith("urn:"):
        return iri.rsplit(":", 1)[1]
    if iri.startswith("http") or iri.startswith("<"):
        m = _LOCAL.search(iri.rstrip(">"))
        return m.group(1) if m else iri
    return iri.split(":", 1)[1] if iri.startswith(("geo:", "rdf:", "rdfs:", "wkgs:")) else iri


#: preference order of the English label; KnowWhereGraph: a road segment's ``kwg-ont:hasRoadSign``
#: before its label (the converter's name rule), a hospital's ``kwg-ont:hospitalName``
LABEL_PREDICATES = ("name:en", "nameEn", "hasRoadSign", "label", "name", "hospitalName")
GEOMETRY_LINKS = {"hasGeometry", "hasDefaultGeometry", "spatialObject"}
TIME_LINKS = {"hasTemporalScope", "hasTime"}
INSTANT_VALUES = {"inXSDDate", "inXSDDateTime", "inXSDDateTimeStamp"}


@dataclass
class Entity:
    """One cited entity: its id (``<kg>:<local>``), triple subject and the facts its triples
    state."""

    entity_id: str
    subject: str
    labels: dict[str, list[str]] = field(
        default_factory=dict
    )  # label predicate local name -> values
    types: list[str] = field(default_factory=list)  # rdf:type local names
    wkt: str | None = None
    times: list[str] = field(
        default_factory=list
    )  # raw xsd date/dateTime values of its temporal scope, sorted
    attributes: dict[str, list[str]] = field(
        default_factory=dict
    )  # other literals by predicate local name

    @property
    def name(self) -> str | None:
        """The English label, by :data:`LABEL_PREDICATES`: ``name:en`` > ``nameEn`` >
        ``hasRoadSign`` > ``rdfs:label`` > ``name`` > ``hospitalName``."""
        for p in LABEL_PREDICATES:
            if self.labels.get(p):
                return sorted(self.labels[p])[0]
        return None

    @property
    def dates(self) -> list[str]:
        """ISO dates (``YYYY-MM-DD``) of the temporal scope: one for an instant, begin and end for
        an interval."""
        return sorted({t[:10] for t in self.times})

    @property
    def all_labels(self) -> set[str]:
        return {v for vals in self.labels.values() for v in vals}

    @cached_property
    def geometry(self) -> BaseGeometry | None:
        """Shapely geometry in EPSG:4326 (lon, lat), repaired as the entity table repairs it, or
        None."""
        return geo.parse_wkt(self.wkt) if self.wkt else None

    @property
    def lonlat(self) -> tuple[float, float]:
        """Representative point (lon, lat) degrees, the entity table's rule (point / line midpoint /
        point on surface). Raises ``LookupError`` when no geometry was cited."""
        if self.geometry is None:
            raise LookupError(f"{self.entity_id}: no geometry in the gold triples")
        return geo.representative_lonlat(self.geometry)

    def number(self, key: str) -> float:
        """The first numeric value of attribute ``key`` (predicate local name). Raises
        ``LookupError``."""
        for v in self.attributes.get(key, []):
            try:
                return float(v)
            except ValueError:
                continue
        raise LookupError(f"{self.entity_id}: no numeric {key!r} in the gold triples")


class Facts:
    """The entities of one question, built from its ``gold_triples`` and ``entity_subjects``.

    ``entities`` maps entity id -> :class:`Entity` for every id in ``entity_subjects`` (bound and
    evidence entities); ``bound(role)`` resolves a binding; ``others()`` lists the cited entities
    that are not bound.
    """

    def __init__(
        self,
        triples: Sequence[Sequence[str]],
        entity_subjects: Mapping[str, str],
        bindings: Mapping[str, str],
    ):
        self.bindings = dict(bindings)
        self.triples = [
            tuple(t) for t in triples
        ]  #: every cited (s, p, o), non-KG facts (urn:mgqa:...) included
        by_s: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for s, p, o in triples:
            by_s[s].append((p, o))
        self.entities: dict[str, Entity] = {}
        for eid, subject in sorted(entity_subjects.items()):
            self.entities[eid] = self._entity(eid, subject, by_s)

    @staticmethod
    def _entity(eid: str, subject: str, by_s: Mapping[str, list[tuple[str, str]]]) -> Entity:
        e = Entity(eid, subject)
        for p, o in sorted(by_s.get(subject, [])):
            key = local_name(p)
            if key in LABEL_PREDICATES:
                e.labels.setdefault(key, []).append(o)
            elif key == "type":
                e.types.append(local_name(o))
            elif key in GEOMETRY_LINKS:
                for gp, go in by_s.get(o, []):
                    if local_name(gp) == "asWKT":
                        e.wkt = go
            elif key == "asWKT":
                e.wkt = o
            elif key in TIME_LINKS:
                e.times += _times(o, by_s)
            elif key == "isFeatureOfInterestOf":
                for prop, value in _observations(o, by_s):
                    e.attributes.setdefault(prop, []).append(value)
            else:
                e.attributes.setdefault(key, []).append(o)
        e.times = sorted(set(e.times))
        return e

    @classmethod
    def of(cls, question: Mapping[str, Any]) -> Facts:
        """Facts of a question record (JSON columns as strings or already decoded)."""
        return cls(
            _json(question["gold_triples"]),
            _json(question.get("entity_subjects") or "{}"),
            _json(question["bindings"]),
        )

    def bound(self, role: str) -> Entity:
        """The entity bound to ``role`` (e.g. ``entity_A``). Raises ``LookupError`` if it was not
        cited."""
        eid = self.bindings.get(role)
        if eid is None or eid not in self.entities:
            raise LookupError(f"role {role!r} is not bound to a cited entity")
        return self.entities[eid]

    def about(self, prefix: str) -> dict[str, dict[str, str]]:
        """Cited facts whose subject starts with ``prefix`` (e.g. ``urn:mgqa:raster:``): subject ->
        {predicate local name: object}."""
        out: dict[str, dict[str, str]] = defaultdict(dict)
        for s, p, o in self.triples:
            if s.startswith(prefix):
                out[s][local_name(p)] = o
        return dict(out)

    def others(self) -> list[Entity]:
        """Cited entities that are not bound to a role (the evidence), in entity-id order."""
        bound = set(self.bindings.values())
        return [e for eid, e in self.entities.items() if eid not in bound]


def _times(node: str, by_s: Mapping[str, list[tuple[str, str]]]) -> list[str]:
    """xsd date/dateTime literals reachable from a temporal-scope node: an instant's value, or an
    interval's beginning and end instants."""
    out = []
    for p, o in by_s.get(node, []):
        key = local_name(p)
        if key in INSTANT_VALUES:
            out.append(o)
        elif key in ("hasBeginning", "hasEnd"):
            out += _times(o, by_s)
    return out


def _observations(
    collection: str, by_s: Mapping[str, list[tuple[str, str]]]
) -> list[tuple[str, str]]:
    """(attribute, simple result) of every member observation of a SOSA collection; the attribute
    is :data:`vocab.KWG_OBSERVED_ATTRIBUTES` of the observed property, else its local name."""
    out = []
    for p, member in by_s.get(collection, []):
        if local_name(p) != "hasMember":
            continue
        facts = {local_name(mp): mo for mp, mo in by_s.get(member, [])}
        if "observedProperty" in facts and "hasSimpleResult" in facts:
            prop = facts["observedProperty"]
            attr = vocab.KWG_OBSERVED_ATTRIBUTES.get(prop.strip("<>")) or local_name(prop)
            out.append((attr, facts["hasSimpleResult"]))
    return sorted(out)


def _json(v: Any) -> Any:
    return json.loads(v) if isinstance(v, str) else v
