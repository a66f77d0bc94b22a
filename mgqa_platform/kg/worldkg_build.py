"""OSM PBF -> WorldKG-format Turtle (tagged nodes only, as WorldKG is built).

Per tagged node that is a map feature (see :mod:`mgqa_platform.kg.osm_features`)::

    wkg:<id> a wkgs:Cafe ;                      # value class; wkgs:Cafe rdfs:subClassOf wkgs:Amenity
        rdfs:label "Café Regatta" ;             # OSM name, no language tag
        wkgs:nameEn "Cafe Regatta" ;            # every other tag as a lower-camel-case property
        wkgs:osmLink "https://www.openstreetmap.org/node/<id>" ;
        wkgs:spatialObject wkg:geo<id> .
    wkg:geo<id> a sf:Point ; geo:asWKT "Point(<lon> <lat>)"^^geo:wktLiteral .

Coordinates are WGS84 (EPSG:4326), written lon before lat as WKT requires. Output is streamed in file
order (sorted by node id), so the same PBF always gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import osmium

from mgqa_platform.files import atomic_path
from mgqa_platform.kg import osm_features, vocab
from mgqa_platform.kg.osm_reader import OsmSnapshotError, open_pbf


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


SPECIAL_TAGS = {"name", "wikidata", "image", "is_in"}


def node_block(
    node_id: int, lon: float, lat: float, tags: dict[str, str], report: BuildReport
) -> tuple[str, set[tuple[str, str]]] | None:
    """Turtle statements of one node, and the (class, superclass) pairs it uses; None if not a feature."""
    classes = osm_features.classify(tags)
    if not classes:
        return None
    lines = [f"wkg:{node_id} a " + ", ".join(f"wkgs:{c}" for c, _ in classes)]
    if "name" in tags:
        lines.append(f"rdfs:label {turtle_literal(tags['name'])}")
    for k in sorted(tags):
        if k == "name":
            continue
        prop = {"wikidata": "wikidata", "image": "image", "is_in": "isIn"}.get(
            k
        ) or osm_features.tag_property(k)
        if prop is None:
            report.add("tags_not_representable")
            continue
        lines.append(f"wkgs:{prop} {turtle_literal(tags[k])}")
    lines.append(f'wkgs:osmLink "https://www.openstreetmap.org/node/{node_id}"')
    lines.append(f"wkgs:spatialObject wkg:geo{node_id}")
    block = " ;\n    ".join(lines) + " .\n"
    block += f'wkg:geo{node_id} a sf:Point ; geo:asWKT "Point({lon!r} {lat!r})"^^geo:wktLiteral .\n'
    return block, set(classes)


def build_worldkg(pbf: str | Path, out_ttl: str | Path) -> BuildReport:
    """Stream the tagged nodes of ``pbf`` into WorldKG Turtle at ``out_ttl`` (written atomically).

    Raises :class:`OsmSnapshotError` on a truncated or corrupt PBF (nothing is written then).
    """
    report = BuildReport()
    used: set[tuple[str, str]] = set()
    with atomic_path(out_ttl) as tmp:
        body = tmp.with_suffix(".body")
        try:
            with open(body, "w", encoding="utf-8") as f:
                for node in open_pbf(pbf, osmium.osm.NODE, with_tags_only=True):
                    report.add("tagged_nodes")
                    tags = {t.k: t.v for t in node.tags}
                    if not node.location.valid():
                        report.skip(
                            "invalid_location", f"node/{node.id}", "node has no valid coordinates"
                        )
                        continue
                    res = node_block(node.id, node.location.lon, node.location.lat, tags, report)
                    if res is None:
                        report.add("not_a_map_feature")
                        continue
                    block, classes = res
                    used |= classes
                    f.write(block)
                    report.add("entities")
                    report.add("entities_named" if "name" in tags else "entities_unnamed")
            with open(tmp, "w", encoding="utf-8") as out:
                for p, iri in vocab.WKG_PREFIXES.items():
                    out.write(f"@prefix {p}: <{iri}> .\n")
                out.write("\n")
                for c, sup in sorted(used):
                    if sup:
                        out.write(f"wkgs:{c} rdfs:subClassOf wkgs:{sup} .\n")
                out.write("\n")
                with open(body, encoding="utf-8") as f:
                    while chunk := f.read(1 << 20):
                        out.write(chunk)
        finally:
            if body.exists():
                body.unlink()
    report.add("classes", len(used))
    return report


__all__ = ["build_worldkg", "BuildReport", "OsmSnapshotError", "turtle_literal"]
