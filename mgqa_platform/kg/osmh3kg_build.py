"""OSM PBF -> OSMH3KG triples in the published form (``subject, predicate, object, date``; all
strings).

The published OSMH3KG (MartinBoeckling/stkg_construction; docs/kg_fidelity.md (OSMH3KG)) is built
from the features GDAL's OSM driver emits and one H3 grid level. Per feature, here a way::

    way/42            rdf:type          residential        (a (key, value) pair of the main tags)
    residential       rdfs:subClassOf   highway            (once per pair, at the end)
    way/42            name              Rua Sarmento Leite (every other kept tag, raw key)
    way/42            geo:hasGeometry   geoway/42          ("geo" + subject)
    geoway/42         geo:asWKT         LINESTRING (-51.2 -30.0, ...)
    89a8100c6afffff   geo:sfIntersects  way/42             (every cell the feature intersects ...)
    89a8100c6afffff   geo:sfCrosses     way/42             (... and each DE-9IM relation that holds)

and per cell of the grid (the cells that intersect a feature)::

    89a8100c6afffff   geo:hasGeometry   geoH389a8100c6afffff
    geoH389a8100c6afffff geo:asWKT      POLYGON ((...))    (the cell boundary, lon lat)
    89a8100c6afffff   hcf:isAdjacentTo  89a8100c6bfffff    (both ways, between neighbouring cells)

Every row carries the snapshot date (``YYYY-MM-DD``). Subjects stay typed (``node/<id>``,
``way/<id>``, ``relation/<id>``): OSM ids collide across element types, the published bare ids do
not tell them apart. Geometries are EPSG:4326, lon/lat. Closed ways are areas by GDAL's
``closed_ways_are_polygons`` rule, other ways lines; multipolygon and boundary relations are
assembled into MULTIPOLYGONs by libosmium. Elements that cannot be built are skipped *with a reason*
in the build report (the asset writes them to ``quarantine``); an unclosed way whose first main key
is ``boundary`` is a piece of an area's outline (skipped as ``boundary_segment``); a closed area way
libosmium makes no area of (a degenerate ring, a node missing from the snapshot) is skipped as
``area_not_assembled``.

The build runs in three steps: :func:`read_elements` (the one sequential pyosmium pass: GDAL-like
feature rows), :func:`element_rows` and :func:`cell_rows` (the per-feature and per-cell work, pure
functions over Arrow batches: in process by :func:`in_process_rows`, or on Spark by
:class:`mgqa_platform.spark.osmh3kg.SparkOsmh3kg`) and :func:`write_rows` (the one output file).
"""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import h3
import numpy as np
import osmium
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import shapely
from shapely.geometry.base import BaseGeometry

from mgqa_platform import geometry
from mgqa_platform.columns import arrow_schema
from mgqa_platform.files import atomic_path
from mgqa_platform.kg import osm_features, vocab
from mgqa_platform.kg.osm_reader import header_timestamp, open_pbf
from mgqa_platform.kg.worldkg_build import BuildReport

SCHEMA = arrow_schema("subject VARCHAR, predicate VARCHAR, object VARCHAR, date VARCHAR")
#: GDAL osmconf.ini ``ignore=``: keys never reported (``openGeoDB:`` is a prefix); areas also drop
#: ``area``.
IGNORED_KEYS = frozenset(
    ("created_by", "converted_by", "source", "time", "ele", "note", "todo", "fixme", "FIXME")
)
IGNORED_KEY_PREFIXES = ("openGeoDB:",)
AREA_IGNORED_KEYS = frozenset(("area",))
#: GDAL osmconf.ini ``closed_ways_are_polygons``: keys, and key=value pairs, that make a closed way
#: an area.
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
#: One row per OSM element with a main key, in file order (``seq``): a feature as GDAL's OSM driver
#: exports it (the tags it reports, sorted by key; osmium's WKT of the geometry, lon/lat), or an
#: element that cannot be one (``skip_reason``, ``skip_detail``; no WKT).
ELEMENTS_ARROW = arrow_schema(
    "seq BIGINT, subject VARCHAR, tag_keys VARCHAR[], tag_values VARCHAR[], wkt VARCHAR, "
    "skip_reason VARCHAR, skip_detail VARCHAR"
)
#: Records of the per-element work, ordered by (``seq``, ``pos``): ``triple`` (a row of the KG),
#: ``class`` (``subject`` a main-tag value, ``object`` its key: an ``rdfs:subClassOf`` row to write
#: once), ``entity`` (``object`` the feature's kind: point, line, polygon), ``skip`` (``subject``
#: the element, ``predicate`` the reason, ``object`` the detail, ``payload`` the WKT refused).
ROWS_ARROW = arrow_schema(
    "seq BIGINT, pos BIGINT, record VARCHAR, subject VARCHAR, predicate VARCHAR, "
    "object VARCHAR, payload VARCHAR"
)
TRIPLE, CLASS, ENTITY, SKIP = "triple", "class", "entity", "skip"
ELEMENT_BATCH = 10_000
#: DE-9IM matrix of a cell lying in the interior of the feature (no boundary contact): cell within
#: feature.
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
    """The tags GDAL reports: without ``IGNORED_KEYS`` and ``openGeoDB:*`` (and ``area`` on
    areas)."""
    return {
        k: v
        for k, v in tags.items()
        if k not in IGNORED_KEYS
        and not k.startswith(IGNORED_KEY_PREFIXES)
        and not (area and k in AREA_IGNORED_KEYS)
    }


def tag_triples(subject: str, tags: dict[str, str]) -> tuple[list[tuple[str, str, str]], set]:
    """``(triples, classes)`` of one feature's tags, sorted by key. A (key, value) pair of the
    main-tag table becomes ``rdf:type <value>`` (and ``(value, key)`` goes into ``classes``, for the
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


def unassembled_way(node_refs: int) -> str:
    """Why libosmium made no area of a closed area way of ``node_refs`` node references: a ring
    needs four (three distinct nodes and the first again); a longer way's ring refers to a node the
    snapshot lacks or gives no valid location."""
    if node_refs < 4:
        return (
            f"closed area way of {node_refs} node refs: a degenerate ring (an area needs at least "
            "three distinct nodes), libosmium assembles no area"
        )
    return (
        f"closed area way of {node_refs} node refs: libosmium assembled no area (a node of the "
        "ring is missing from the snapshot or has no valid location)"
    )


def cell_polygons(cells: list[str]) -> np.ndarray:
    """Shapely polygons of H3 cells, lon/lat (EPSG:4326), closed rings."""
    out = np.empty(len(cells), dtype=object)
    out[:] = [shapely.Polygon([(lng, lat) for lat, lng in h3.cell_to_boundary(c)]) for c in cells]
    return out


def candidate_cells(g: BaseGeometry, res: int) -> list[str]:
    """Cells at ``res`` that may intersect ``g``: :func:`geometry.h3_cover` grown by one ring (a
    grid path can step past a cell a segment clips; a point on a cell edge touches two cells).
    Sorted."""
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
    relation (cell first) that holds, sorted. Vectorized: cells strictly inside ``g`` are found with
    one prepared ``contains_properly`` call; the others get one ``shapely.relate`` each."""
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


def _element(
    seq: int,
    subject: str,
    tags: dict[str, str] | None = None,
    wkt_text: str | None = None,
    skip: tuple[str, str] | None = None,
) -> dict:
    """One row of :data:`ELEMENTS_ARROW`: a feature (kept tags sorted by key, WKT) or a skip."""
    keys = sorted(tags or {})
    reason, detail = skip or (None, None)
    return {
        "seq": seq,
        "subject": subject,
        "tag_keys": keys,
        "tag_values": [tags[k] for k in keys],
        "wkt": wkt_text,
        "skip_reason": reason,
        "skip_detail": detail,
    }


def read_elements(pbf: str | Path, batch: int = ELEMENT_BATCH) -> Iterator[pa.Table]:
    """The one sequential pass over ``pbf`` (pyosmium): tables of :data:`ELEMENTS_ARROW`, in file
    order, ``batch`` rows each. A feature is what GDAL's OSM driver would export: its subject, the
    tags GDAL reports (:func:`kept_tags`) and its geometry as osmium's WKT; an element that cannot
    be a feature is a row with ``skip_reason``/``skip_detail`` (no WKT). Closed area ways, then
    relations, that libosmium did not assemble into areas come last (``area_not_assembled``,
    :func:`unassembled_way`; ``relation_incomplete``)."""
    state = _PassState(osmium.geom.WKTFactory())
    rows: list[dict] = []
    seq = itertools.count()
    for subject, kw in itertools.chain(_features(pbf, state), _unassembled(state)):
        rows.append(_element(next(seq), subject, **kw))
        if len(rows) >= batch:
            yield pa.Table.from_pylist(rows, schema=ELEMENTS_ARROW)
            rows.clear()
    if rows:
        yield pa.Table.from_pylist(rows, schema=ELEMENTS_ARROW)


class _PassState:
    """What the pass over a PBF remembers: the WKT factory, the relations that may become areas
    (id -> type), those assembled, and the closed area ways whose area has not come yet (id ->
    node count)."""

    def __init__(self, wkt: osmium.geom.WKTFactory) -> None:
        self.wkt = wkt
        self.area_candidates: dict[int, str] = {}
        self.assembled_relations: set[int] = set()
        self.area_ways: dict[int, int] = {}


def _features(pbf: str | Path, state: _PassState) -> Iterator[tuple[str, dict]]:
    """``(subject, element fields)`` of each tagged element with a main key, in file order."""
    for obj in open_pbf(pbf, with_tags_only=True, areas=True):
        tags = {t.k: t.v for t in obj.tags}
        if not any(k in tags for k in osm_features.MAIN_KEYS):
            continue
        if obj.is_node():
            found = _node(obj, tags)
        elif obj.is_way():
            found = _way(obj, tags, state)
        elif obj.is_relation():
            found = _relation(obj, tags, state)
        elif obj.is_area():
            found = _area(obj, tags, state)
        else:
            found = None
        if found is not None:
            yield found


def _node(obj, tags: dict[str, str]) -> tuple[str, dict]:
    """A node: its point, or ``invalid_location``."""
    subject = f"node/{obj.id}"
    if not obj.location.valid():
        return subject, {"skip": ("invalid_location", "node has no valid coordinates")}
    loc = obj.location
    return subject, {"tags": kept_tags(tags, False), "wkt_text": f"POINT({loc.lon!r} {loc.lat!r})"}


def _way(obj, tags: dict[str, str], state: _PassState) -> tuple[str, dict] | None:
    """A way: its line; None for a closed area way (emitted as an area later, or skipped at the
    end); ``boundary_segment`` for an unclosed boundary piece; ``way_geometry_failed``."""
    subject = f"way/{obj.id}"
    if obj.is_closed() and is_area_way(tags):
        state.area_ways[obj.id] = len(obj.nodes)
        return None
    if not obj.is_closed() and _is_boundary_segment(tags):
        why = "unclosed boundary way: a piece of an area's outline, not a feature"
        return subject, {"skip": ("boundary_segment", why)}
    try:
        text = state.wkt.create_linestring(obj)
    except (osmium.InvalidLocationError, RuntimeError) as e:
        return subject, {"skip": ("way_geometry_failed", str(e))}
    return subject, {"tags": kept_tags(tags, False), "wkt_text": text}


def _relation(obj, tags: dict[str, str], state: _PassState) -> tuple[str, dict] | None:
    """A relation: None when its type may make an area (remembered), else
    ``relation_type_unsupported``."""
    rtype = tags.get("type", "")
    if rtype in AREA_RELATION_TYPES:
        state.area_candidates[obj.id] = rtype
        return None
    why = f"type={rtype or '(none)'} has no area semantics"
    return f"relation/{obj.id}", {"skip": ("relation_type_unsupported", why)}


def _area(obj, tags: dict[str, str], state: _PassState) -> tuple[str, dict] | None:
    """An area libosmium assembled, from a way or a relation: its multipolygon, or
    ``area_geometry_failed``; None for a closed way that is a line (already emitted)."""
    if obj.from_way():
        if not is_area_way(tags):
            return None
        state.area_ways.pop(obj.orig_id(), None)
        subject = f"way/{obj.orig_id()}"
    else:
        subject = f"relation/{obj.orig_id()}"
        state.assembled_relations.add(obj.orig_id())
    try:
        text = state.wkt.create_multipolygon(obj)
    except RuntimeError as e:
        return subject, {"skip": ("area_geometry_failed", str(e))}
    return subject, {"tags": kept_tags(tags, True), "wkt_text": text}


def _unassembled(state: _PassState) -> Iterator[tuple[str, dict]]:
    """After the pass: the closed area ways, then the area relations, that were not assembled."""
    for wid in sorted(state.area_ways):
        yield f"way/{wid}", {"skip": ("area_not_assembled", unassembled_way(state.area_ways[wid]))}
    for rid in sorted(set(state.area_candidates) - state.assembled_relations):
        why = (
            f"{state.area_candidates[rid]} relation could not be assembled into an area (member "
            "ways missing from the snapshot or rings not closed)"
        )
        yield f"relation/{rid}", {"skip": ("relation_incomplete", why)}


def _records(rows: list[tuple]) -> pa.Table:
    """A table of :data:`ROWS_ARROW` from tuples in its column order."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(ROWS_ARROW)
    return pa.table(
        {name: list(values) for name, values in zip(ROWS_ARROW.names, columns, strict=True)},
        schema=ROWS_ARROW,
    )


def feature_records(
    subject: str,
    tags: dict[str, str],
    wkt_text: str | None,
    skip: tuple[str, str] | None,
    h3_res: int,
) -> list[tuple[str, str, str | None, str, str | None]]:
    """The ``(record, subject, predicate, object, payload)`` records of one element, in order: a
    ``skip`` (the reason and detail read with the element, or the refusal of
    :func:`geometry.parse_wkt` with the WKT as payload), or the tag triples, the ``class`` records,
    ``geo:hasGeometry``, ``geo:asWKT``, the cell links of :func:`cell_links` at ``h3_res`` and an
    ``entity`` record naming the feature's kind."""
    if skip is not None:
        return [(SKIP, subject, skip[0], skip[1], "")]
    try:
        g = geometry.parse_wkt(wkt_text)
    except geometry.GeometryError as e:
        return [(SKIP, subject, e.reason, e.detail, wkt_text)]
    triples, classes = tag_triples(subject, tags)
    gnode = vocab.OSMH3_GEOMETRY_PREFIX + subject
    text = shapely.to_wkt(g, rounding_precision=7, trim=True)
    return [
        *((TRIPLE, s, p, o, None) for s, p, o in triples),
        *((CLASS, value, None, key, None) for value, key in sorted(classes)),
        (TRIPLE, subject, vocab.OSMH3_HAS_GEOMETRY, gnode, None),
        (TRIPLE, gnode, vocab.OSMH3_AS_WKT, text, None),
        *((TRIPLE, cell, pred, subject, None) for cell, pred in cell_links(g, h3_res)),
        (ENTITY, subject, None, geometry.geom_kind(g), None),
    ]


def element_rows(elements: pa.Table | pa.RecordBatch, h3_res: int) -> pa.Table:
    """The per-feature work, a pure function over a batch of :data:`ELEMENTS_ARROW`: the records
    of :func:`feature_records` of every element, as :data:`ROWS_ARROW` (``seq`` the element's,
    ``pos`` numbering its records)."""
    columns = (elements.column(n).to_pylist() for n in ELEMENTS_ARROW.names)
    rows = []
    for seq, subject, keys, values, wkt_text, reason, detail in zip(*columns, strict=True):
        tags = dict(zip(keys, values, strict=True))
        skip = None if reason is None else (reason, detail)
        records = feature_records(subject, tags, wkt_text, skip, h3_res)
        rows += [(seq, pos, *r) for pos, r in enumerate(records)]
    return _records(rows)


def class_rows(classes: list[tuple[str, str]]) -> pa.Table:
    """``<value> rdfs:subClassOf <key>`` triple records of :data:`ROWS_ARROW`, in the given
    order."""
    return _records(
        [(None, i, TRIPLE, v, vocab.OSMH3_SUBCLASS, k, None) for i, (v, k) in enumerate(classes)]
    )


def cell_rows(cells: list[str], grid: set[str] | frozenset[str] | None = None) -> pa.Table:
    """Triple records of :data:`ROWS_ARROW` of grid cells: per cell ``geo:hasGeometry``, its
    ``geo:asWKT`` and ``hcf:isAdjacentTo`` each neighbour in ``grid`` (every neighbour when ``grid``
    is None: a caller that holds no grid filters them itself), neighbours sorted. ``seq`` is the
    cell's H3 index as an integer (the order of the cell strings, all 15 hex digits long), ``pos``
    0, 1 and 2 (adjacency)."""
    rows = []
    for c in cells:
        seq, gnode = int(c, 16), vocab.OSMH3_CELL_GEOMETRY_PREFIX + c
        ring = h3.grid_ring(c, 1)
        neighbours = sorted(ring if grid is None else set(ring) & grid)
        rows.append((seq, 0, TRIPLE, c, vocab.OSMH3_HAS_GEOMETRY, gnode, None))
        rows.append((seq, 1, TRIPLE, gnode, vocab.OSMH3_AS_WKT, cell_wkt(c), None))
        rows += [(seq, 2, TRIPLE, c, vocab.OSMH3_ADJACENT, nb, None) for nb in neighbours]
    return _records(rows)


def in_process_rows(elements: Iterator[pa.Table], h3_res: int) -> Iterator[pa.Table]:
    """The rows of the whole KG, in file order, in this process (the DuckDB engine): the rows of
    every element (:func:`element_rows`), then the ``rdfs:subClassOf`` rows of the classes used,
    sorted, then the rows of the grid's cells (:func:`cell_rows`), sorted."""
    classes: set[tuple[str, str]] = set()
    grid: set[str] = set()
    for batch in elements:
        rows = element_rows(batch, h3_res)
        record, pred = rows.column("record"), rows.column("predicate")
        found = rows.filter(pc.equal(record, CLASS))
        classes.update(zip(found.column("subject").to_pylist(), found.column("object").to_pylist()))
        links = rows.filter(
            pc.and_(pc.equal(record, TRIPLE), pc.equal(pred, vocab.OSMH3_SF_INTERSECTS))
        )
        grid.update(links.column("subject").to_pylist())
        yield rows
    yield class_rows(sorted(classes))
    ordered = sorted(grid)
    for i in range(0, len(ordered), ELEMENT_BATCH):
        yield cell_rows(ordered[i : i + ELEMENT_BATCH], grid)


def write_rows(rows: Iterator[pa.Table], sink: _TripleSink, report: BuildReport) -> None:
    """Write the ``triple`` records of ``rows`` to ``sink`` in their order; count ``entity``
    records, report ``skip`` records, count the grid cells (their ``geo:hasGeometry`` rows)."""
    for table in rows:
        columns = (
            table.column(n).to_pylist()
            for n in ("record", "subject", "predicate", "object", "payload")
        )
        for record, s, p, o, payload in zip(*columns, strict=True):
            if record == TRIPLE:
                sink.add(s, p, o)
                if p == vocab.OSMH3_HAS_GEOMETRY and o.startswith(vocab.OSMH3_CELL_GEOMETRY_PREFIX):
                    report.add("h3_cells")
            elif record == ENTITY:
                report.add(f"entities_{o}")
            elif record == SKIP:
                report.skip(p, s, o, payload)


#: ``stage(elements, h3_res, name)``: the rows of :func:`in_process_rows` computed elsewhere
#: (Spark).
RowStage = Callable[[Iterator[pa.Table], int, str], Iterator[pa.Table]]


def build_osmh3kg(
    pbf: str | Path,
    out_parquet: str | Path,
    *,
    fallback_date: str | None = None,
    h3_res: int = 9,
    stage: RowStage | None = None,
) -> BuildReport:
    """Stream ``pbf`` into OSMH3KG triples at ``out_parquet`` (written atomically).

    ``h3_res`` is the one grid level linking features to cells. The date on every row is
    :func:`snapshot_date` (header timestamp, else ``fallback_date``). ``stage`` computes the rows of
    the elements :func:`read_elements` reads (None: :func:`in_process_rows`; the Spark engine's is
    :class:`mgqa_platform.spark.osmh3kg.SparkOsmh3kg`, called with the output's stem as ``name``):
    both give the same rows in the same order, so the same file. Raises
    :class:`mgqa_platform.kg.osm_reader.OsmSnapshotError` on a truncated or corrupt PBF and
    ValueError when no snapshot date is known.
    """
    date = snapshot_date(pbf, fallback_date)
    report = BuildReport()
    elements = read_elements(pbf)
    if stage is None:
        rows = in_process_rows(elements, h3_res)
    else:
        rows = stage(elements, h3_res, Path(out_parquet).stem)
    with atomic_path(out_parquet) as tmp:
        writer = pq.ParquetWriter(tmp, SCHEMA, compression="zstd")
        sink = _TripleSink(writer, date)
        try:
            write_rows(rows, sink, report)
            sink.flush()
        finally:
            writer.close()
    report.add("triples", sink.n)
    report.counts.setdefault("h3_cells", 0)
    for p, n in sink.by_predicate.items():
        if p.startswith(("geo:", "hcf:", "rdf")):
            report.add(f"rows_{p}", n)
    return report
