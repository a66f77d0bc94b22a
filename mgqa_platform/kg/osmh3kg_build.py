"""OSM PBF -> OSMH3KG-format Parquet triples (``subject, predicate, object, date``; all strings).

Every map-feature element of the snapshot becomes a subject ``node/<id>``, ``way/<id>`` or
``relation/<id>`` (nodes, ways and relations share one id space in OSM, so the element type is part of
the subject: see docs/decisions.md). Per element::

    way/42   rdf:type          residential          (residential rdfs:subClassOf highway)
    way/42   highway           residential          (every tag as a raw-key predicate)
    way/42   name              Rua Sarmento Leite
    way/42   geo:hasGeometry   geo/way/42
    geo/way/42 geo:asWKT       LINESTRING (-51.2 -30.0, ...)
    h3:89a8...  geo:sfIntersects  way/42            (or geo:sfContains when the element lies in one cell)
    h3:89a8...  h3:adjacentTo     h3:89a9...        (between cells that both carry features)

Geometries are EPSG:4326, lon/lat. Linear features (roads, railways, waterways, barriers, unclosed
ways) are LINESTRINGs; closed area ways and multipolygon/boundary relations are assembled into
MULTIPOLYGONs by libosmium. Relations that cannot be assembled (members missing from the snapshot, as
in clipped extracts) and relation types without an area semantics are skipped *with a reason* in the
build report, which the asset writes to ``quarantine``. An unclosed way whose main key is ``boundary``
(a stretch of a country or parish border such as "France - Andorra") is a piece of an area's outline,
not a feature of its own: it is skipped as ``boundary_segment``; the area is its relation.
"""

from __future__ import annotations

from pathlib import Path

import h3
import osmium
import pyarrow as pa
import pyarrow.parquet as pq
import shapely

from mgqa_platform import geometry
from mgqa_platform.files import atomic_path
from mgqa_platform.kg import osm_features, vocab
from mgqa_platform.kg.osm_reader import open_pbf
from mgqa_platform.kg.worldkg_build import BuildReport

SCHEMA = pa.schema(
    [
        ("subject", pa.string()),
        ("predicate", pa.string()),
        ("object", pa.string()),
        ("date", pa.string()),
    ]
)
LINEAR_KEYS = ("highway", "railway", "waterway", "barrier", "route", "power")
AREA_RELATION_TYPES = ("multipolygon", "boundary")


class _TripleSink:
    """Buffers triples and writes Parquet row groups of ``batch`` rows (bounded memory)."""

    def __init__(self, writer: pq.ParquetWriter, date: str, batch: int = 200_000):
        self.writer, self.date, self.batch = writer, date, batch
        self.s: list[str] = []
        self.p: list[str] = []
        self.o: list[str] = []
        self.n = 0

    def add(self, s: str, p: str, o: str) -> None:
        self.s.append(s)
        self.p.append(p)
        self.o.append(o)
        if len(self.s) >= self.batch:
            self.flush()

    def flush(self) -> None:
        if not self.s:
            return
        d = pa.array([self.date] * len(self.s), pa.string())
        self.writer.write_table(
            pa.table([pa.array(self.s), pa.array(self.p), pa.array(self.o), d], schema=SCHEMA)
        )
        self.n += len(self.s)
        self.s, self.p, self.o = [], [], []


def _is_linear(tags: dict[str, str]) -> bool:
    return tags.get("area") != "yes" and any(k in tags for k in LINEAR_KEYS)


def _is_boundary_segment(tags: dict[str, str]) -> bool:
    """True when ``boundary`` is the element's main key (the first of MAIN_KEYS it carries)."""
    return next(k for k in osm_features.MAIN_KEYS if k in tags) == "boundary"


def build_osmh3kg(
    pbf: str | Path,
    out_parquet: str | Path,
    *,
    date: str = "",
    h3_res: int = 9,
    max_cells: int = 500,
) -> BuildReport:
    """Stream ``pbf`` into OSMH3KG triples at ``out_parquet`` (written atomically).

    ``h3_res`` is the cell resolution linking features; features needing more than ``max_cells`` cells are
    linked at a coarser resolution (see :func:`mgqa_platform.geometry.adaptive_h3_cover`).
    Raises :class:`mgqa_platform.kg.osm_reader.OsmSnapshotError` on a truncated or corrupt PBF.
    """
    report = BuildReport()
    wkt = osmium.geom.WKTFactory()
    classes_used: set[tuple[str, str]] = set()
    cell_links: dict[str, int] = {}
    area_candidates: dict[int, str] = {}
    assembled_relations: set[int] = set()

    with atomic_path(out_parquet) as tmp:
        writer = pq.ParquetWriter(tmp, SCHEMA, compression="zstd")
        sink = _TripleSink(writer, date)
        try:

            def emit(subject: str, tags: dict[str, str], wkt_text: str) -> None:
                try:
                    g = geometry.parse_wkt(wkt_text)
                except geometry.GeometryError as e:
                    report.skip(e.reason, subject, e.detail, wkt_text)
                    return
                for cls, _sup in osm_features.classify(tags):
                    fc = osm_features.class_index().get(cls)
                    obj = fc.value if fc else cls[0].lower() + cls[1:]
                    sink.add(subject, vocab.OSMH3_TYPE, obj)
                    if fc:
                        classes_used.add((fc.value, fc.key))
                for k in sorted(tags):
                    sink.add(subject, k, tags[k])
                gnode = f"geo/{subject}"
                sink.add(subject, vocab.OSMH3_HAS_GEOMETRY, gnode)
                sink.add(
                    gnode, vocab.OSMH3_AS_WKT, shapely.to_wkt(g, rounding_precision=7, trim=True)
                )
                res, cells = geometry.adaptive_h3_cover(g, h3_res, max_cells)
                pred = vocab.OSMH3_SF_CONTAINS if len(cells) == 1 else vocab.OSMH3_SF_INTERSECTS
                for c in sorted(cells):
                    sink.add(vocab.H3_SUBJECT_PREFIX + c, pred, subject)
                    cell_links[c] = cell_links.get(c, 0) + 1
                report.add(f"entities_{geometry.geom_kind(g)}")

            for obj in open_pbf(pbf, with_tags_only=True, areas=True):
                tags = {t.k: t.v for t in obj.tags}
                if not osm_features.classify(tags):
                    continue
                if obj.is_node():
                    if obj.location.valid():
                        emit(
                            f"node/{obj.id}",
                            tags,
                            f"POINT({obj.location.lon!r} {obj.location.lat!r})",
                        )
                    else:
                        report.skip(
                            "invalid_location", f"node/{obj.id}", "node has no valid coordinates"
                        )
                elif obj.is_way():
                    if obj.is_closed() and not _is_linear(tags):
                        continue  # emitted as an area below
                    if not obj.is_closed() and _is_boundary_segment(tags):
                        report.skip(
                            "boundary_segment",
                            f"way/{obj.id}",
                            "unclosed boundary way: a piece of an area's outline, not a feature",
                        )
                        continue
                    try:
                        emit(f"way/{obj.id}", tags, wkt.create_linestring(obj))
                    except (osmium.InvalidLocationError, RuntimeError) as e:
                        report.skip("way_geometry_failed", f"way/{obj.id}", str(e))
                elif obj.is_relation():
                    rtype = tags.get("type", "")
                    if rtype in AREA_RELATION_TYPES:
                        area_candidates[obj.id] = rtype
                    else:
                        report.skip(
                            "relation_type_unsupported",
                            f"relation/{obj.id}",
                            f"type={rtype or '(none)'} has no area semantics",
                        )
                elif obj.is_area():
                    if obj.from_way():
                        if _is_linear(tags):
                            continue  # already emitted as a line
                        subject = f"way/{obj.orig_id()}"
                    else:
                        subject = f"relation/{obj.orig_id()}"
                        assembled_relations.add(obj.orig_id())
                    try:
                        emit(subject, tags, wkt.create_multipolygon(obj))
                    except RuntimeError as e:
                        report.skip("area_geometry_failed", subject, str(e))

            for rid in sorted(set(area_candidates) - assembled_relations):
                report.skip(
                    "relation_incomplete",
                    f"relation/{rid}",
                    f"{area_candidates[rid]} relation could not be assembled into an area (member ways missing from the snapshot or rings not closed)",
                )
            for value, key in sorted(classes_used):
                sink.add(value, vocab.OSMH3_SUBCLASS, key)
            for c in sorted(cell_links):
                sink.add(
                    vocab.H3_SUBJECT_PREFIX + c, vocab.OSMH3_RESOLUTION, str(h3.get_resolution(c))
                )
                for nb in sorted(set(h3.grid_ring(c, 1)) & cell_links.keys()):
                    sink.add(
                        vocab.H3_SUBJECT_PREFIX + c,
                        vocab.OSMH3_ADJACENT,
                        vocab.H3_SUBJECT_PREFIX + nb,
                    )
            sink.flush()
        finally:
            writer.close()
    report.add("triples", sink.n)
    report.add("h3_cells", len(cell_links))
    return report
