"""OSM PBF -> OSMH3KG triples in the published form (``subject, predicate, object, date``; all strings).

The published OSMH3KG (MartinBoeckling/stkg_construction; docs/kg_fidelity.md (OSMH3KG)) is built from
the features GDAL's OSM driver emits and one H3 grid level. Per feature, here a way::

    way/42            rdf:type          residential        (a (key, value) pair of the main-tag table)
    residential       rdfs:subClassOf   highway            (once per pair, at the end)
    way/42            name              Rua Sarmento Leite (every other kept tag, raw key)
    way/42            geo:hasGeometry   geoway/42          ("geo" + subject)
    geoway/42         geo:asWKT         LINESTRING (-51.2 -30.0, ...)
    89a8100c6afffff   geo:sfIntersects  way/42             (every cell the feature intersects ...)
    89a8100c6afffff   geo:sfCrosses     way/42             (... plus each DE-9IM relation that holds)

and per cell of the grid (the cells that intersect a feature)::

    89a8100c6afffff   geo:hasGeometry   geoH389a8100c6afffff
    geoH389a8100c6afffff geo:asWKT      POLYGON ((...))    (the cell boundary, lon lat)
    89a8100c6afffff   hcf:isAdjacentTo  89a8100c6bfffff    (both ways, between neighbouring grid cells)

Every row carries the snapshot date (``YYYY-MM-DD``). Subjects stay typed (``node/<id>``, ``way/<id>``,
``relation/<id>``): OSM ids collide across element types, the published bare ids do not tell them apart.
Geometries are EPSG:4326, lon/lat. Closed ways are areas by GDAL's ``closed_ways_are_polygons`` rule,
other ways lines; multipolygon and boundary relations are assembled into MULTIPOLYGONs by libosmium.
Elements that cannot be built are skipped *with a reason* in the build report (the asset writes them to
``quarantine``); an unclosed way whose first main key is ``boundary`` is a piece of an area's outline
(skipped as ``boundary_segment``).
"""

from __future__ import annotations

import datetime
from pathlib import Path

import h3
import numpy as np
import osmium
import pyarrow as pa
import pyarrow.parquet as pq
import shapely
from shapely.geometry.base import BaseGeometry

from mgqa_platform import geometry
from mgqa_platform.files import atomic_path
from mgqa_platform.kg import osm_features, vocab
from mgqa_platform.kg.osm_reader import header_timestamp, open_pbf
from mgqa_platform.kg.worldkg_build import BuildReport

SCHEMA = pa.schema(
    [
        ("subject", pa.string()),
        ("predicate", pa.string()),
        ("object", pa.string()),
        ("date", pa.string()),
    ]
)
#: GDAL osmconf.ini ``ignore=``: keys never reported (``openGeoDB:`` is a prefix); areas also drop ``area``.
IGNORED_KEYS = frozenset(
    ("created_by", "converted_by", "source", "time", "ele", "note", "todo", "fixme", "FIXME")
)
IGNORED_KEY_PREFIXES = ("openGeoDB:",)
AREA_IGNORED_KEYS = frozenset(("area",))
#: GDAL osmconf.ini ``closed_ways_are_polygons``: keys, and key=value pairs, that make a closed way an area.
POLYGON_KEYS = frozenset(
    (
        "aeroway",
        "amenity",
        "boundary",
        "building",
        "craft",
        "geological",
        "historic",
        "landuse",
        "leisure",
        "military",
        "natural",
        "office",
        "place",
        "shop",
        "sport",
        "tourism",
    )
)
POLYGON_TAGS = frozenset((("highway", "platform"), ("public_transport", "platform")))
AREA_RELATION_TYPES = ("multipolygon", "boundary")
#: DE-9IM matrix of a cell lying in the interior of the feature (no boundary contact): cell within feature.
INTERIOR_CELL_MATRIX = "2FF1FF212"


class _TripleSink:
    """Buffers triples and writes Parquet row groups of ``batch`` rows (bounded memory)."""

    def __init__(self, writer: pq.ParquetWriter, date: str, batch: int = 200_000):
        self.writer, self.date, self.batch = writer, date, batch
        self.s: list[str] = []
        self.p: list[str] = []
        self.o: list[str] = []
        self.n = 0
        self.by_predicate: dict[str, int] = {}

    def add(self, s: str, p: str, o: str) -> None:
        self.s.append(s)
        self.p.append(p)
        self.o.append(o)
        self.by_predicate[p] = self.by_predicate.get(p, 0) + 1
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


def snapshot_date(pbf: str | Path, fallback: str | None = None) -> str:
    """The snapshot date ``YYYY-MM-DD`` written on every row: the PBF header's
    ``osmosis_replication_timestamp``, else ``fallback`` (a configured date). Raises ValueError when
    neither is there: an OSMH3KG row without its date is not OSMH3KG."""
    ts = header_timestamp(pbf)
    date = ts[:10] if ts else (fallback or "")
    if not date:
        raise ValueError(
            f"{pbf}: the PBF header has no osmosis_replication_timestamp and no snapshot date is "
            "configured (MGQA_OSMH3KG_SNAPSHOT_DATE): OSMH3KG needs the date on every row"
        )
    try:
        return datetime.date.fromisoformat(date).isoformat()
    except ValueError as e:
        raise ValueError(f"{pbf}: snapshot date {date!r} is not a YYYY-MM-DD date") from e


def kept_tags(tags: dict[str, str], area: bool) -> dict[str, str]:
    """The tags GDAL reports: without ``IGNORED_KEYS`` and ``openGeoDB:*`` (and ``area`` on areas)."""
    return {
        k: v
        for k, v in tags.items()
        if k not in IGNORED_KEYS
        and not k.startswith(IGNORED_KEY_PREFIXES)
        and not (area and k in AREA_IGNORED_KEYS)
    }


def tag_triples(subject: str, tags: dict[str, str]) -> tuple[list[tuple[str, str, str]], set]:
    """``(triples, classes)`` of one feature's tags, sorted by key. A (key, value) pair of the main-tag
    table becomes ``rdf:type <value>`` (and ``(value, key)`` goes into ``classes``, for the
    ``rdfs:subClassOf`` row); every other tag stays a raw ``<key> <value>`` triple."""
    table = osm_features.map_features()
    triples, classes = [], set()
    for k in sorted(tags):
        v = tags[k]
        if (k, v) in table:
            triples.append((subject, vocab.OSMH3_TYPE, v))
            classes.add((v, k))
        else:
            triples.append((subject, k, v))
    return triples, classes


def is_area_way(tags: dict[str, str]) -> bool:
    """GDAL's rule for a closed way: an area unless ``area=no``; ``area=yes``, a key of
    ``POLYGON_KEYS`` or a pair of ``POLYGON_TAGS`` make it one."""
    if tags.get("area") == "no":
        return False
    return (
        tags.get("area") == "yes"
        or any(k in POLYGON_KEYS for k in tags)
        or any((k, v) in POLYGON_TAGS for k, v in tags.items())
    )


def _is_boundary_segment(tags: dict[str, str]) -> bool:
    """True when ``boundary`` is the element's main key (the first of MAIN_KEYS it carries)."""
    return next(k for k in osm_features.MAIN_KEYS if k in tags) == "boundary"


def cell_polygons(cells: list[str]) -> np.ndarray:
    """Shapely polygons of H3 cells, lon/lat (EPSG:4326), closed rings."""
    out = np.empty(len(cells), dtype=object)
    out[:] = [shapely.Polygon([(lng, lat) for lat, lng in h3.cell_to_boundary(c)]) for c in cells]
    return out


def candidate_cells(g: BaseGeometry, res: int) -> list[str]:
    """Cells at ``res`` that may intersect ``g``: :func:`geometry.h3_cover` grown by one ring (a grid
    path can step past a cell a segment clips; a point on a cell edge touches two cells). Sorted."""
    cover = geometry.h3_cover(g, res)
    return sorted({n for c in cover for n in h3.grid_disk(c, 1)})


def de9im_predicates(matrices: np.ndarray, feature_dim: int) -> dict[str, np.ndarray]:
    """Boolean masks of the GeoSPARQL relations ``cell R feature`` from DE-9IM matrices of
    (cell, feature): ``matrices`` is an array of 9-character strings, the cell (a polygon) first."""
    m = np.array([list(s) for s in matrices], dtype="U1").reshape(-1, 9)
    t = m != "F"
    f = ~t
    meets = t[:, 0] | t[:, 1] | t[:, 3] | t[:, 4]
    none = np.zeros(len(m), dtype=bool)
    return {
        vocab.OSMH3_SF_INTERSECTS: meets,
        vocab.OSMH3_SF_CONTAINS: t[:, 0] & f[:, 6] & f[:, 7],
        vocab.OSMH3_SF_WITHIN: t[:, 0] & f[:, 2] & f[:, 5],
        vocab.OSMH3_SF_EQUALS: t[:, 0] & f[:, 2] & f[:, 5] & f[:, 6] & f[:, 7],
        vocab.OSMH3_SF_TOUCHES: f[:, 0] & (t[:, 1] | t[:, 3] | t[:, 4]),
        vocab.OSMH3_SF_CROSSES: t[:, 0] & t[:, 6] if feature_dim < 2 else none,
        vocab.OSMH3_SF_OVERLAPS: t[:, 0] & t[:, 2] & t[:, 6] if feature_dim == 2 else none,
        vocab.OSMH3_EH_COVERS: meets & f[:, 6] & f[:, 7],
        vocab.OSMH3_EH_COVERED_BY: meets & f[:, 2] & f[:, 5],
    }


def cell_links(g: BaseGeometry, res: int) -> list[tuple[str, str]]:
    """``(cell, predicate)`` for every cell at ``res`` that intersects ``g`` and every GeoSPARQL
    relation (cell first) that holds, sorted. Vectorized: cells strictly inside ``g`` are found with one
    prepared ``contains_properly`` call; the others get one ``shapely.relate`` each."""
    cells = candidate_cells(g, res)
    polys = cell_polygons(cells)
    shapely.prepare(g)
    inside = shapely.contains_properly(g, polys)
    matrices = np.full(len(cells), INTERIOR_CELL_MATRIX, dtype=object)
    if (~inside).any():
        matrices[~inside] = shapely.relate(polys[~inside], g)
    masks = de9im_predicates(matrices, int(shapely.get_dimensions(g)))
    return sorted((cells[i], pred) for pred, mask in masks.items() for i in np.flatnonzero(mask))


def cell_wkt(cell: str) -> str:
    """WKT of the cell polygon, lon lat, 7 decimals (as feature geometries)."""
    return shapely.to_wkt(cell_polygons([cell])[0], rounding_precision=7, trim=True)


def build_osmh3kg(
    pbf: str | Path,
    out_parquet: str | Path,
    *,
    fallback_date: str | None = None,
    h3_res: int = 9,
) -> BuildReport:
    """Stream ``pbf`` into OSMH3KG triples at ``out_parquet`` (written atomically).

    ``h3_res`` is the one grid level linking features to cells. The date on every row is
    :func:`snapshot_date` (header timestamp, else ``fallback_date``). Raises
    :class:`mgqa_platform.kg.osm_reader.OsmSnapshotError` on a truncated or corrupt PBF and ValueError
    when no snapshot date is known.
    """
    date = snapshot_date(pbf, fallback_date)
    report = BuildReport()
    wkt = osmium.geom.WKTFactory()
    classes_used: set[tuple[str, str]] = set()
    grid: set[str] = set()
    area_candidates: dict[int, str] = {}
    assembled_relations: set[int] = set()

    with atomic_path(out_parquet) as tmp:
        writer = pq.ParquetWriter(tmp, SCHEMA, compression="zstd")
        sink = _TripleSink(writer, date)
        try:

            def emit(subject: str, tags: dict[str, str], wkt_text: str, area: bool) -> None:
                try:
                    g = geometry.parse_wkt(wkt_text)
                except geometry.GeometryError as e:
                    report.skip(e.reason, subject, e.detail, wkt_text)
                    return
                triples, classes = tag_triples(subject, kept_tags(tags, area))
                for t in triples:
                    sink.add(*t)
                classes_used.update(classes)
                gnode = vocab.OSMH3_GEOMETRY_PREFIX + subject
                sink.add(subject, vocab.OSMH3_HAS_GEOMETRY, gnode)
                sink.add(
                    gnode, vocab.OSMH3_AS_WKT, shapely.to_wkt(g, rounding_precision=7, trim=True)
                )
                for cell, pred in cell_links(g, h3_res):
                    sink.add(cell, pred, subject)
                    grid.add(cell)
                report.add(f"entities_{geometry.geom_kind(g)}")

            for obj in open_pbf(pbf, with_tags_only=True, areas=True):
                tags = {t.k: t.v for t in obj.tags}
                if not any(k in tags for k in osm_features.MAIN_KEYS):
                    continue
                if obj.is_node():
                    if obj.location.valid():
                        loc = obj.location
                        emit(f"node/{obj.id}", tags, f"POINT({loc.lon!r} {loc.lat!r})", False)
                    else:
                        report.skip(
                            "invalid_location", f"node/{obj.id}", "node has no valid coordinates"
                        )
                elif obj.is_way():
                    if obj.is_closed() and is_area_way(tags):
                        continue  # emitted as an area below
                    if not obj.is_closed() and _is_boundary_segment(tags):
                        report.skip(
                            "boundary_segment",
                            f"way/{obj.id}",
                            "unclosed boundary way: a piece of an area's outline, not a feature",
                        )
                        continue
                    try:
                        emit(f"way/{obj.id}", tags, wkt.create_linestring(obj), False)
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
                        if not is_area_way(tags):
                            continue  # a closed line, already emitted
                        subject = f"way/{obj.orig_id()}"
                    else:
                        subject = f"relation/{obj.orig_id()}"
                        assembled_relations.add(obj.orig_id())
                    try:
                        emit(subject, tags, wkt.create_multipolygon(obj), True)
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
            for c in sorted(grid):
                gnode = vocab.OSMH3_CELL_GEOMETRY_PREFIX + c
                sink.add(c, vocab.OSMH3_HAS_GEOMETRY, gnode)
                sink.add(gnode, vocab.OSMH3_AS_WKT, cell_wkt(c))
                for nb in sorted(set(h3.grid_ring(c, 1)) & grid):
                    sink.add(c, vocab.OSMH3_ADJACENT, nb)
            sink.flush()
        finally:
            writer.close()
    report.add("triples", sink.n)
    report.add("h3_cells", len(grid))
    for p, n in sink.by_predicate.items():
        if p.startswith(("geo:", "hcf:", "rdf")):
            report.add(f"rows_{p}", n)
    return report
