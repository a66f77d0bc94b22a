"""OSM PBF -> WorldKG Turtle, as WorldKG's own creation code writes it (docs/kg_fidelity.md
(WorldKG)).

Every OSM node with at least two tags becomes one entity, whether or not it gets a class::

    wkg:<id> a wkgs:AmenitySchool ;              # WorldKG's class of (amenity, school)
        rdfs:label "Escola Andorrana" ;          # OSM name, plain literal
        wkgs:addrHousenumber "12" ;              # a tag of a key in WorldKG's key list
        wkgs:osmLink <https://www.openstreetmap.org/node/<id>> ;
        wkgs:spatialObject wkg:geo<id> ;
        wkgs:wikidata <http://www.wikidata.org/wiki/Q123> ;
        wkgs:wikipedia <https://ca.wikipedia.org/wiki/ca%3AEscola> .

    wkg:geo<id> a sf:Point ;
        geo:asWKT "Point(<lon> <lat>)"^^geo:wktLiteral .

The rules come from WorldKG's own tables, bundled in ``mgqa_platform/data/worldkg/`` (MIT, Copyright
(c) 2021 Alishiba Dsouza): a tag whose key is a key of the class table
(``OSM_Ontology_map_features.csv``) is consumed as a type (``rdf:type wkgs:<appendedClass>`` when
its (key, value) is in the table, nothing otherwise; every such tag of the node gives its own type);
``name`` gives ``rdfs:label``; ``wikidata``, ``wikipedia`` and the node's OSM link are IRIs; any
other tag becomes ``wkgs:<property>`` (:func:`property_name`) only when its key is in
``Key_List.csv``. The class hierarchy is in the ontology (``WorldKG_Ontolgy.ttl``), never in
instance files.

Coordinates are WGS84 (EPSG:4326), written lon before lat as WKT requires. Output is streamed in
file order (sorted by node id), so the same PBF always gives the same bytes."""

from __future__ import annotations

import csv
import functools
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import osmium

from mgqa_platform.files import atomic_path
from mgqa_platform.kg import vocab
from mgqa_platform.kg.osm_reader import OsmSnapshotError, open_pbf
from mgqa_platform.settings import PACKAGE_DATA

WORLDKG_DATA = PACKAGE_DATA / "worldkg"
CLASS_TABLE = WORLDKG_DATA / "OSM_Ontology_map_features.csv"
KEY_LIST = WORLDKG_DATA / "Key_List.csv"
ONTOLOGY = WORLDKG_DATA / "WorldKG_Ontolgy.ttl"

#: Characters that may not appear in a Turtle IRIREF (besides controls and space): percent-encoded.
_IRI_UNSAFE = re.compile(r'[\x00-\x20<>"{}|^`\\]')
#: Local names written as ``prefix:local``; any other name is written as a full IRI.
_PLAIN_LOCAL = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_\-]*[A-Za-z0-9_])?")


def turtle_literal(value: str) -> str:
    """Quote ``value`` as a Turtle/N-Triples string literal (escapes \\, ", newline, CR, tab)."""
    esc = (
        value.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
    )
    return f'"{esc}"'


def iri(value: str) -> str:
    """``<value>`` as a Turtle IRI, with the characters an IRIREF forbids percent-encoded
    (UTF-8)."""
    return "<" + _IRI_UNSAFE.sub(lambda m: urllib.parse.quote(m.group(0), safe=""), value) + ">"


def schema_term(local: str) -> str:
    """A ``wkgs:`` term: ``wkgs:<local>`` when ``local`` is a plain name, else the full IRI."""
    return f"wkgs:{local}" if _PLAIN_LOCAL.fullmatch(local) else iri(vocab.WKGS + local)


@dataclass
class BuildReport:
    """Counts of a KG build plus the elements it skipped and why (they go to quarantine)."""

    counts: dict[str, int] = field(default_factory=dict)
    skipped: list[dict[str, str]] = field(default_factory=list)

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def skip(self, reason: str, source: str, detail: str = "", payload: str = "") -> None:
        self.add(f"skipped_{reason}")
        self.skipped.append(
            {"reason": reason, "source": source, "detail": detail, "payload": payload[:500]}
        )


# ----------------------------------------------------------------------------- WorldKG's own tables
@functools.cache
def class_table() -> dict[tuple[str, str], str]:
    """WorldKG's tag-to-class table: OSM (key, value) -> class local name (``appendedClass``)."""
    with open(CLASS_TABLE, newline="", encoding="utf-8") as f:
        return {
            (r["key"], r["value"]): r["appendedClass"] for r in csv.DictReader(f, delimiter="\t")
        }


@functools.cache
def class_keys() -> frozenset[str]:
    """The keys of the class table: a tag with one of them is a type, never a property."""
    return frozenset(k for k, _ in class_table())


@functools.cache
def key_list() -> frozenset[str]:
    """WorldKG's key list: the OSM keys (other than class keys) that become properties."""
    with open(KEY_LIST, newline="", encoding="utf-8") as f:
        return frozenset(r["key"] for r in csv.DictReader(f, delimiter="\t"))


def property_name(key: str) -> str:
    """WorldKG property local name of an OSM key: ``:`` read as ``_``, split on ``_``, the first
    word as it is, each later word title-cased (``str.title``), joined.

    ``'ref:LOCODE'`` -> ``'refLocode'``; ``'addr:housenumber'`` -> ``'addrHousenumber'``;
    ``'name:en'`` -> ``'nameEn'``; ``'AND_nosr_r'`` -> ``'ANDNosrR'``; ``'name:vi-Hani'`` ->
    ``'nameVi-Hani'``.
    """
    first, *rest = key.replace(":", "_").split("_")
    return first + "".join(w.title() for w in rest)


def yes_class_name(key: str) -> str:
    """The class WorldKG gives a class-table key whose value is exactly ``Yes`` (``building=Yes`` ->
    ``Building``): ``:`` read as ``_``, each ``_``-separated word capitalized, joined."""
    return "".join(w.capitalize() or "_" for w in key.replace(":", "_").split("_"))


def wikipedia_iri(value: str) -> str:
    """WorldKG's IRI of a ``wikipedia`` tag ``lang:Title``: ``https://`` + the URL-quoted
    ``{lang}.wikipedia.org/wiki/{lang}:{title}``, where ``title`` is the text between the first and
    the second ``:`` (the builder's own split); a value without ``:`` has an empty ``lang`` and is
    the title."""
    parts = value.split(":")
    lang, title = (parts[0], parts[1]) if len(parts) > 1 else ("", value)
    return "https://" + urllib.parse.quote(f"{lang}.wikipedia.org/wiki/{lang}:{title}")


# ------------------------------------------------------------------------------ one node
def node_block(
    node_id: int, lon: float, lat: float, tags: list[tuple[str, str]], report: BuildReport
) -> str:
    """Turtle statements of one node with at least two tags (``tags`` in OSM order), counting in
    ``report`` what became of each tag."""
    table, keys, kept = class_table(), class_keys(), key_list()
    types: set[str] = set()
    props: list[tuple[str, str]] = [
        ("wkgs:osmLink", iri(f"{vocab.OSM_NODE}{node_id}")),
        ("wkgs:spatialObject", f"wkg:geo{node_id}"),
    ]
    for raw_key, raw_value in tags:
        k, v = raw_key.replace(" ", ""), raw_value.replace("\n", " ")
        if k in keys:
            cls = table.get((k, v)) or (yes_class_name(k) if v == "Yes" else None)
            report.add("tags_typed" if cls else "tags_class_key_not_in_table")
            if cls:
                types.add(cls)
        elif k == "name":
            props.append(("rdfs:label", turtle_literal(v)))
        elif k == "wikidata":
            report.add("wikidata_iri" if v.startswith("Q") else "wikidata_literal")
            obj = iri(vocab.WIKIDATA_PAGE + v) if v.startswith("Q") else turtle_literal(v)
            props.append(("wkgs:wikidata", obj))
        elif k == "wikipedia":
            props.append(("wkgs:wikipedia", iri(wikipedia_iri(v))))
        elif k in kept:
            report.add("properties")
            props.append((schema_term(property_name(k)), turtle_literal(v)))
        else:
            report.add("properties_dropped_not_in_key_list")
    report.add("classed" if types else "unclassed")
    if len(types) > 1:
        report.add("multi_typed")
    report.add("entities_named" if any(p == "rdfs:label" for p, _ in props) else "entities_unnamed")
    pairs = [("a", schema_term(c)) for c in sorted(types)] + sorted(props)
    body = " ;\n    ".join(f"{p} {o}" for p, o in pairs)
    geo = f'"Point({lon!r} {lat!r})"^^geo:wktLiteral'
    return f"wkg:{node_id} {body} .\n\nwkg:geo{node_id} a sf:Point ;\n    geo:asWKT {geo} .\n\n"


def build_worldkg(pbf: str | Path, out_ttl: str | Path) -> BuildReport:
    """Stream the nodes of ``pbf`` with at least two tags into WorldKG Turtle at ``out_ttl``
    (written atomically). Counts: ``tagged_nodes``, ``nodes_one_tag`` (not entities),
    ``nodes_two_tags`` (entities), ``classed`` / ``unclassed``, ``multi_typed``, per-tag outcomes
    (``tags_typed``, ``tags_class_key_not_in_table``, ``properties``,
    ``properties_dropped_not_in_key_list``, ``wikidata_iri`` / ``wikidata_literal``); a node without
    a valid location is skipped with reason ``invalid_location``.

    Raises :class:`OsmSnapshotError` on a truncated or corrupt PBF (nothing is written then).
    """
    report = BuildReport()
    with atomic_path(out_ttl) as tmp, open(tmp, "w", encoding="utf-8") as out:
        for p, base in vocab.WKG_PREFIXES.items():
            out.write(f"@prefix {p}: <{base}> .\n")
        out.write("\n")
        for node in open_pbf(pbf, osmium.osm.NODE, with_tags_only=True):
            report.add("tagged_nodes")
            tags = [(t.k, t.v) for t in node.tags]
            if len(tags) < 2:
                report.add("nodes_one_tag")
                continue
            if not node.location.valid():
                report.skip("invalid_location", f"node/{node.id}", "node has no valid coordinates")
                continue
            report.add("nodes_two_tags")
            out.write(node_block(node.id, node.location.lon, node.location.lat, tags, report))
    return report


__all__ = [
    "BuildReport",
    "OsmSnapshotError",
    "build_worldkg",
    "class_table",
    "key_list",
    "property_name",
    "turtle_literal",
    "wikipedia_iri",
]
