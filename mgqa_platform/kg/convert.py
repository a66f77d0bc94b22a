"""KG conversion: one native KG file -> ``entities``, ``entity_labels``, ``entity_triples``,
``quarantine``.

The route is the same for the three KGs (docs/data_model.md):

1. **stage** the triples into DuckDB, streaming: N-Triples lines by DuckDB's CSV reader and a
   regular expression where that parse is exact, the other lines and Turtle by pyoxigraph
   (:mod:`rdf_stream`, worker processes for large files), into Parquet parts; an OSMH3KG table
   (Parquet, CSV parts, Delta) is read by DuckDB directly. Unparseable statements and null rows ->
   quarantine (stage ``parse``);
2. **facts**: the KG's profile (:mod:`profiles`) maps its triples onto one shared vocabulary
   ``facts(s, k, v)``, then one SQL query pivots them into a wide row per entity with its category,
   geometry WKT and the reason it must be rejected (missing name or geometry, duplicate id, unknown
   category), all set-based;
3. **geometry** in Python, vectorized with shapely over Arrow batches: WKT parsed and validated (the
   rare bad ones through :func:`mgqa_platform.geometry.parse_wkt`, which repairs or rejects them),
   representative point, H3 cells. Batches are written to Parquet, so memory stays bounded;
4. **finish**: the name rules (:mod:`names`, in Python over the KG's entities) give each entity
   the base of its display name and a ``name_rule``; SQL disambiguates display names within the KG
   (:data:`DISAMBIGUATE_SQL`: the base, then with its category word, street, locality; never
   coordinates or ids), attaches labels (with the accepted names as aliases) and source triples,
   and replaces the KG's partition of every output table in one transaction.

Re-running on the same file gives the same rows in the same order.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import h3
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import shapely

from mgqa_platform import geometry, lexicon
from mgqa_platform.category_words import localized_nouns
from mgqa_platform.columns import arrow_schema
from mgqa_platform.kg import designations, names, osmh3kg_table, profiles, whole
from mgqa_platform.kg.rdf_stream import format_for, parse_file, parse_ntriples_duckdb
from mgqa_platform.warehouse import registered, transaction

H3_RESOLUTIONS = (3, 5, 7, 9)
BATCH_ROWS = 50_000

ENTITY_ARROW = arrow_schema(
    "entity_id VARCHAR, iri VARCHAR, subject VARCHAR, name VARCHAR, street VARCHAR, "
    "locality VARCHAR, category VARCHAR, types VARCHAR[], wkb BLOB, geom_kind VARCHAR, "
    "lon DOUBLE, lat DOUBLE, h3 VARCHAR[], image_url VARCHAR, wikidata VARCHAR, "
    "valid_from VARCHAR, valid_to VARCHAR, attributes VARCHAR"
)
QUARANTINE_ARROW = arrow_schema(
    "stage VARCHAR, reason VARCHAR, detail VARCHAR, source VARCHAR, payload VARCHAR"
)
REJECT_DETAILS = {
    "missing_geometry": "no geometry linked to the entity",
    "duplicate_id": "the subject is defined more than once: several different values for one "
    "property",
    "missing_name": "entity has no name / rdfs:label",
    "unknown_category": "no known class or OSM main map-feature tag",
    "no_worldkg_class": "WorldKG gives the node no class: none of its (key, value) pairs is in "
    "its class table",
}


@dataclass
class ConversionResult:
    kg: str
    triples_staged: int = 0
    entities: int = 0
    labels: int = 0
    entity_triples: int = 0
    quarantined: Counter = field(default_factory=Counter)
    categories: Counter = field(default_factory=Counter)
    geom_kinds: Counter = field(default_factory=Counter)
    disambiguated_names: int = 0  # display name differs from the name (a rule, a disambiguator)
    ambiguous_names: int = 0  # name_unique is false (excluded or ambiguous): never an entity role
    names_by_rule: dict = field(default_factory=dict)  # rule -> {"entities": n, "excluded": n}
    road_parts_merged: int = 0  # road pieces that became parts of a whole road (entity_parts rows)
    roads_merged: int = 0  # whole roads made of two or more pieces
    # family -> {"parts": pieces merged, "wholes": whole features} (mgqa_platform.kg.whole)
    wholes_by_family: dict = field(default_factory=dict)

    def metadata(self) -> dict:
        return {
            "triples_staged": self.triples_staged,
            "entities": self.entities,
            "labels": self.labels,
            "entity_triples": self.entity_triples,
            "quarantined_total": sum(self.quarantined.values()),
            "quarantined_by_reason": dict(sorted(self.quarantined.items())),
            "entities_by_category_top20": dict(self.categories.most_common(20)),
            "entities_by_geom_kind": dict(sorted(self.geom_kinds.items())),
            "names_disambiguated": self.disambiguated_names,
            "names_ambiguous": self.ambiguous_names,
            "names_by_rule": self.names_by_rule,
            "road_parts_merged": self.road_parts_merged,
            "roads_merged": self.roads_merged,
            "wholes_by_family": self.wholes_by_family,
        }


# ----------------------------------------------------------------------------------------- 1. stage
def _stage(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    scratch: Path,
    quarantine: _QuarantineSink,
    parse_workers: int,
) -> int:
    """Stage the native file as ``stage(s, p, o)``; return the number of triples.

    N-Triples go through :func:`rdf_stream.parse_ntriples_duckdb` (the same triples and bad
    statements as pyoxigraph's; 1.6x to 1.9x the speed of the pyoxigraph parse at 1M triples, 1.4x
    at 5M). Turtle and the N-Triples DuckDB cannot read line for line go to
    :func:`rdf_stream.parse_file` (large N-Triples in ``parse_workers`` processes, 0: the CPU count,
    at most 4). Either writes Parquet parts under ``scratch``, and ``stage`` is a TEMP view over
    them: the compressed parts are scanned where a statement needs them, so no uncompressed copy of
    the whole file is held in memory."""
    if osmh3kg_table.is_table(path):
        _stage_osmh3kg(con, path, quarantine)
        return int(con.execute("SELECT count(*) FROM stage").fetchone()[0])
    out = scratch / "parsed"
    parsed = parse_ntriples_duckdb(con, path, out) if format_for(path) == "ntriples" else None
    select = "s, p, o"
    where = "s IS NOT NULL"  # the lines the DuckDB parse left to pyoxigraph
    if parsed is None:
        parsed = parse_file(path, out, workers=parse_workers)
        select, where = "*", "true"
    parts, triples, bad_statements = parsed
    for b in bad_statements:
        quarantine.append(_qrow("parse", b.reason, b.detail, f"{path.name}:{b.line}", b.text))
    files = ", ".join("'" + str(p).replace("'", "''") + "'" for p in parts)
    con.execute(
        "CREATE OR REPLACE TEMP VIEW stage AS "
        f"SELECT {select} "
        f"FROM read_parquet([{files}]) "
        f"WHERE {where}"
    )
    return triples


def _drop_temp(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Drop the TEMP table or view ``name`` if it exists."""
    view = con.execute(
        "SELECT 1 FROM duckdb_views() WHERE temporary AND view_name = ?", [name]
    ).fetchone()
    con.execute(f"DROP {'VIEW' if view else 'TABLE'} IF EXISTS {name}")


def _stage_osmh3kg(con: duckdb.DuckDBPyConnection, path: Path, quarantine: _QuarantineSink) -> None:
    """Stage an OSMH3KG table (:mod:`osmh3kg_table`: Parquet, CSV parts or Delta) and list its H3
    cells in TEMP table ``h3_cells(s)``: subjects that :func:`h3.is_valid_cell` accepts.

    Rows with a null or empty subject, predicate or object are quarantined one by one; rows without
    a snapshot date are staged (the date is no fact of an entity) and counted in one quarantine
    row."""
    osmh3kg_table.create_view(con, path, "osmh3kg_src")
    bad = """
        subject IS NULL OR predicate IS NULL OR object IS NULL
        OR trim(subject) = '' OR trim(predicate) = ''"""
    for row in con.execute(
        f"""
        SELECT subject, predicate, object
        FROM osmh3kg_src
        WHERE {bad}"""
    ).fetchall():
        quarantine.append(
            _qrow(
                "parse",
                "malformed_triple",
                "null or empty subject/predicate/object",
                path.name,
                json.dumps(row, ensure_ascii=False),
            )
        )
    undated = con.execute(
        f"""
        SELECT count(*)
        FROM osmh3kg_src
        WHERE NOT ({bad})
          AND coalesce(trim(date), '') = ''"""
    ).fetchone()[0]
    if undated:
        quarantine.append(
            _qrow(
                "parse",
                "missing_date",
                f"{undated} rows have no snapshot date (staged all the same)",
                path.name,
            )
        )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE stage AS
        SELECT subject AS s, predicate AS p, object AS o
        FROM osmh3kg_src
        WHERE NOT ({bad})"""
    )
    hexes = [
        r[0]
        for r in con.execute(
            """
            SELECT DISTINCT s
            FROM stage
            WHERE regexp_full_match(s, '[0-9a-f]{15}')"""
        ).fetchall()
    ]
    cells = pa.table({"s": pa.array([h for h in hexes if h3.is_valid_cell(h)], pa.string())})
    with registered(con, valid_h3_cells=cells):
        con.execute("CREATE OR REPLACE TEMP TABLE h3_cells AS SELECT s FROM valid_h3_cells")


class _QuarantineSink(list):
    """Quarantine rows, spilled to a Parquet file every ``flush_rows`` rows (bounded memory)."""

    def __init__(self, path: Path, flush_rows: int = 20_000):
        super().__init__()
        self.path, self.flush_rows = path, flush_rows
        self.writer = pq.ParquetWriter(path, QUARANTINE_ARROW)

    def append(self, row: dict) -> None:
        super().append(row)
        if len(self) >= self.flush_rows:
            self.flush()

    def flush(self) -> None:
        if self:
            self.writer.write_table(pa.Table.from_pylist(list(self), schema=QUARANTINE_ARROW))
            self.clear()

    def close(self) -> Path:
        self.flush()
        self.writer.close()
        return self.path


def _qrow(stage: str, reason: str, detail: str, source: str, payload: str = "") -> dict:
    return {
        "stage": stage,
        "reason": reason,
        "detail": (detail or "")[:500],
        "source": source,
        "payload": (payload or "")[:500],
    }


# ----------------------------------------------------------------------------------------- 2. facts
def _wide_sql(prof: profiles.Profile, kg: str) -> str:
    def one(k: str) -> str:
        return f"min(v) FILTER (WHERE k = '{k}')"

    no_class = (
        f"WHEN coalesce(len(w.types), 0) = 0 THEN '{prof.no_class_reason}'"
        if prof.no_class_reason
        else ""
    )

    attributes = ", ".join(
        f"{one(k)} AS {col}"
        for k, (col, _) in zip(profiles.ATTRIBUTE_KEYS, _ATTR_COLUMNS, strict=True)
    )
    # no ORDER BY: a sorted streamed result stays pinned in memory; rows are sorted when written
    return f"""
    WITH geo AS (SELECT s, min(wkt) <> max(wkt) AS wkt_conflict, min(wkt) AS wkt FROM geom GROUP BY
        s),
    wide AS (
        SELECT s,
            list_sort(list_distinct(list(v) FILTER (WHERE k = '@type'))) AS types,
            {one("name")} AS label, {one("name:en")} AS name_en,
            {one(profiles.STREET_KEY)} AS street,
            coalesce({", ".join(one(k) for k in profiles.LOCALITY_KEYS)}) AS locality,
            {one("image")} AS image, {one("wikimedia_commons")} AS commons, {one("wikidata")} AS
                wikidata,
            {attributes},
            min(v) FILTER (WHERE k = '@instant') AS instant_min, max(v) FILTER (WHERE k =
                '@instant') AS instant_max,
            min(v) FILTER (WHERE k = '@begin') AS begin_min, max(v) FILTER (WHERE k = '@end') AS
                end_max,
            list_sort(list(struct_pack(k := substr(k, 5), v := v)) FILTER (WHERE k LIKE 'obs:%')) AS
                obs
        FROM facts GROUP BY s
    )
    SELECT w.*, '{kg}:' || ({prof.local_id_sql}) AS entity_id, {prof.iri_sql} AS iri,
        trim(coalesce(w.name_en, w.label)) AS name,
        coalesce(w.image, CASE WHEN w.commons LIKE 'http%' THEN w.commons
            ELSE 'https://commons.wikimedia.org/wiki/' || url_encode(
                CASE WHEN w.commons LIKE 'File:%' OR w.commons LIKE 'Category:%' THEN w.commons ELSE
                    'File:' || w.commons END) END) AS image_url,
        coalesce(w.begin_min, w.instant_min) AS valid_from, coalesce(w.end_max, w.instant_max) AS
            valid_to,
        c.category, c.main_key, c.main_value, g.wkt,
        CASE WHEN g.s IS NULL THEN 'missing_geometry'
             WHEN d.s IS NOT NULL OR g.wkt_conflict THEN 'duplicate_id'
             {no_class}
             WHEN trim(coalesce(w.name_en, w.label, '')) = '' THEN 'missing_name'
             WHEN c.category IS NULL THEN 'unknown_category' END AS reject
    FROM wide w LEFT JOIN cat c USING (s) LEFT JOIN geo g USING (s) LEFT JOIN dups d USING (s)
    """


#: The temp table ``dups``: the subjects with several different values for one property (not
#: their types, times or observations), rejected as ``duplicate_id``. Built on its own before the
#: wide rows, so that its (large) aggregation and theirs do not hold memory at the same time.
DUPS_SQL = """
CREATE OR REPLACE TEMP TABLE dups AS
SELECT DISTINCT s
FROM (
    SELECT s
    FROM facts
    WHERE k NOT IN ('@type', '@instant', '@begin', '@end') AND k NOT LIKE 'obs:%'
    GROUP BY s, k
    HAVING min(v) <> max(v)
)
"""


def _facts(con: duckdb.DuckDBPyConnection, prof: profiles.Profile) -> None:
    """The temp tables ``ents``, ``facts``, ``geom``, ``cat`` and ``dups`` (:data:`DUPS_SQL`) of
    ``prof`` over ``stage``.

    The lookup tables of :func:`profiles.lookup_tables` must be registered on ``con``."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE ents AS {prof.entities_sql}")
    con.execute(f"CREATE OR REPLACE TEMP TABLE facts AS {prof.facts_sql}")
    con.execute(f"INSERT INTO facts {prof.derived_facts_sql}")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE geom AS "
        "SELECT * "
        f"FROM ({prof.geometry_sql}) "
        "SEMI JOIN ents USING (s)"
    )
    con.execute(f"CREATE OR REPLACE TEMP TABLE cat AS {prof.category_sql}")
    con.execute(DUPS_SQL)


# -------------------------------------------------------------------------------------- 3. geometry
_KIND = {0: "point", 1: "line", 3: "polygon", 4: "point", 5: "line", 6: "polygon"}
#: The encoder of ``attributes`` (what ``json.dumps(..., sort_keys=True, ensure_ascii=False)``
#: builds on every call, built once).
_ATTRIBUTES_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False)
_ATTR_COLUMNS = [
    (f"attr_{re.sub('[^a-z]', '_', key)}", name) for key, name in profiles.ATTRIBUTE_KEYS.items()
]


def _number(v: str) -> int | float | str:
    try:
        f = float(v.replace(",", "."))
    except ValueError:
        return v
    return int(f) if f.is_integer() and "." not in v and "e" not in v.lower() else f


def _geometries(wkts: list[str]) -> tuple[list, list[tuple[str, str] | None]]:
    """Vectorized fast path: plain, valid, in-range WKT with finite coordinates is accepted as is;
    everything else goes through :func:`geometry.parse_wkt` (CRS prefixes, repair, precise rejection
    reasons; a NaN or infinite coordinate is rejected there before GEOS sees it)."""
    geoms = shapely.from_wkt(np.array(wkts, dtype=object), on_invalid="ignore")
    ok = ~shapely.is_missing(geoms)
    ok[ok] &= ~shapely.is_empty(geoms[ok])
    ok[ok] &= np.isin(shapely.get_type_id(geoms[ok]), list(_KIND))
    if ok.any():
        coords, owner = shapely.get_coordinates(geoms[ok], return_index=True)
        finite = np.ones(int(ok.sum()), dtype=bool)
        finite[owner[~np.isfinite(coords).all(axis=1)]] = False
        ok[ok] = finite
    if ok.any():
        b = shapely.bounds(geoms[ok])
        inrange = (b[:, 0] >= -180) & (b[:, 2] <= 180) & (b[:, 1] >= -90) & (b[:, 3] <= 90)
        sub = ok.copy()
        ok[sub] = inrange
        ok[ok] &= shapely.is_valid(geoms[ok])
    errors: list[tuple[str, str] | None] = [None] * len(wkts)
    out = list(geoms)
    for i in np.flatnonzero(~ok):
        try:
            out[i] = geometry.parse_wkt(wkts[i])
        except geometry.GeometryError as e:
            out[i], errors[i] = None, (e.reason, e.detail)
    return out, errors


def _rep_points(geoms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lon, lat) arrays of :func:`geometry.representative_lonlat`, vectorized by geometry type."""
    types = shapely.get_type_id(geoms)
    pts = np.empty(len(geoms), dtype=object)
    m = types == 0
    pts[m] = geoms[m]
    m = types == 4
    pts[m] = shapely.get_geometry(geoms[m], 0)
    m = types == 1
    pts[m] = shapely.line_interpolate_point(geoms[m], 0.5, normalized=True)
    m = (types == 3) | (types == 6)
    pts[m] = shapely.point_on_surface(geoms[m])
    for i in np.flatnonzero(types == 5):
        pts[i] = shapely.Point(geometry.representative_lonlat(geoms[i]))
    return shapely.get_x(pts), shapely.get_y(pts)


_PASSTHROUGH = [
    "entity_id",
    "iri",
    "s",
    "name",
    "street",
    "locality",
    "category",
    "types",
    "image_url",
    "wikidata",
    "valid_from",
    "valid_to",
]


def _build_batch(rows: pa.Table, quarantine: list[dict]) -> pa.Table:
    """Entity rows of one batch of wide rows: rejections to ``quarantine``, geometry and H3
    computed, the other columns passed through by Arrow."""
    reject = rows.column("reject").to_pylist()
    subjects = rows.column("s").to_pylist()
    wkts_all = rows.column("wkt").to_pylist()
    labels = rows.column("label").to_pylist()
    keep = [i for i, r in enumerate(reject) if r is None]
    for i, r in enumerate(reject):
        if r is not None:
            payload = wkts_all[i] if r == "duplicate_id" else labels[i]
            quarantine.append(_qrow("entity", r, REJECT_DETAILS[r], subjects[i], payload or ""))
    wkts = [wkts_all[i] for i in keep]
    geoms, errors = _geometries(wkts)
    good = []
    for j, e in enumerate(errors):
        if e is None:
            good.append(j)
        else:
            quarantine.append(_qrow("entity", e[0], e[1], subjects[keep[j]], wkts[j]))
    idx = pa.array([keep[j] for j in good], pa.int64())
    garr = np.array([geoms[j] for j in good], dtype=object)
    kept = rows.take(idx)
    cols = {name: kept.column(name) for name in _PASSTHROUGH}
    cols["subject"] = cols.pop("s")
    cols["types"] = pc.fill_null(cols["types"], pa.scalar([], pa.list_(pa.string())))
    cols.update(geometry_columns(garr), attributes=_attributes(kept))
    return pa.table({name: cols[name] for name in ENTITY_ARROW.names}).cast(ENTITY_ARROW)


def _present(col: pa.ChunkedArray) -> tuple[np.ndarray, list]:
    """(row indices, values) of the rows of ``col`` whose value is true in Python: neither null
    nor empty for a string or a list column (found by Arrow), tested one by one for any other
    type (a column that is all NULL in a profile's SQL)."""
    t = col.type
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        size = pc.list_value_length(col)
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        size = pc.utf8_length(col)
    else:
        values = col.to_pylist()
        idx = np.array([j for j, v in enumerate(values) if v], dtype=np.int64)
        return idx, [values[j] for j in idx]
    idx = np.flatnonzero(pc.fill_null(pc.greater(size, 0), False).to_numpy(zero_copy_only=False))
    return idx, col.take(pa.array(idx, pa.int64())).to_pylist()


def _attributes(kept: pa.Table) -> pa.Array:
    """The ``attributes`` JSON of each wide row (None when it has none): the attribute columns
    (:data:`_ATTR_COLUMNS`, numbers parsed), ``osm_<main key>`` and the observations, a later key
    replacing an earlier one. Built column by column, only over the rows that have a value."""
    attrs: dict[int, dict] = {}
    for col, name in _ATTR_COLUMNS:
        for j, v in zip(*_present(kept.column(col)), strict=True):
            attrs.setdefault(j, {})[name] = _number(v)
    main_idx, main_keys = _present(kept.column("main_key"))
    main_values = kept.column("main_value").take(pa.array(main_idx, pa.int64())).to_pylist()
    for j, k, v in zip(main_idx, main_keys, main_values, strict=True):
        attrs.setdefault(j, {})["osm_" + k] = v
    for j, observations in zip(*_present(kept.column("obs")), strict=True):
        row = attrs.setdefault(j, {})
        for ob in observations:
            row[ob["k"]] = _number(ob["v"])
    encode = _ATTRIBUTES_JSON.encode
    return pa.array(
        [encode(attrs[j]) if j in attrs else None for j in range(kept.num_rows)], pa.string()
    )


def geometry_columns(garr: np.ndarray) -> dict[str, pa.Array]:
    """The geometry columns of entity rows (``wkb``, ``geom_kind``, ``lon``, ``lat``, ``h3``) for an
    array of valid shapely geometries in EPSG:4326 (x = lon, y = lat): the representative point of
    :func:`_rep_points` and its H3 cells at :data:`H3_RESOLUTIONS`."""
    lon, lat = _rep_points(garr) if len(garr) else (np.array([]), np.array([]))
    return dict(
        wkb=pa.array(shapely.to_wkb(garr) if len(garr) else [], pa.binary()),
        geom_kind=pa.array(
            [_KIND[t] for t in shapely.get_type_id(garr)] if len(garr) else [], pa.string()
        ),
        lon=pa.array(lon, pa.float64()),
        lat=pa.array(lat, pa.float64()),
        h3=pa.array(_point_cells(lon.tolist(), lat.tolist()), pa.list_(pa.string())),
    )


def _point_cells(lons: list[float], lats: list[float]) -> list[list[str]]:
    """The H3 cells (:func:`geometry.point_cell`) of each point at :data:`H3_RESOLUTIONS`: h3's own
    call per point and resolution (a coarser cell is not always the parent of a finer one)."""
    cell = h3.latlng_to_cell
    return [[cell(y, x, r) for r in H3_RESOLUTIONS] for x, y in zip(lons, lats, strict=True)]


def accept_in_process(
    con: duckdb.DuckDBPyConnection,
    wide_sql: str,
    kg: str,
    scratch: Path,
    quarantine: list,
) -> None:
    """The TEMP table ``new_entities`` (:data:`ENTITY_ARROW`) from the wide rows of ``wide_sql``,
    built batch by batch in this process (:func:`_build_batch`) through a Parquet file in
    ``scratch``; rejected rows go to ``quarantine``. ``kg`` is unused here (the Spark engine,
    :class:`mgqa_platform.spark.convert.SparkConversion`, partitions by it)."""
    accepted = scratch / "entities.parquet"
    reader = con.execute(wide_sql).fetch_record_batch(BATCH_ROWS)
    with pq.ParquetWriter(accepted, ENTITY_ARROW) as w:
        for batch in reader:
            w.write_table(_build_batch(pa.Table.from_batches([batch]), quarantine))
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE new_entities AS
        SELECT *
        FROM read_parquet(?)
        """,
        [str(accepted)],
    )


# ------------------------------------------------------------------------------------------ driver
def convert_kg(
    con: duckdb.DuckDBPyConnection,
    kg: str,
    path: str | Path,
    snapshot_id: str,
    scratch_dir: str | Path | None = None,
    parse_workers: int = 0,
    country_names: Iterable[str] = (),
    accept: Callable[..., None] | None = None,
) -> ConversionResult:
    """Convert the native file of ``kg`` into the warehouse tables (replacing the KG's partition).

    ``con`` must be a warehouse connection (spatial loaded, schema ensured). Intermediate files go
    to a temporary folder under ``scratch_dir`` (default: the system temp dir), removed afterwards.
    N-Triples files are parsed by DuckDB and pyoxigraph (:func:`rdf_stream.parse_ntriples_duckdb`);
    the ones DuckDB cannot read line for line by ``parse_workers`` processes (0: the CPU count, at
    most 4).
    ``country_names``: country names a POI must not wear bare (Natural Earth's, from
    :func:`mgqa_platform.strata.countries.country_names`), besides the KG's own settlements and
    regions. ``accept`` builds ``new_entities`` from the wide rows, with the signature of
    :func:`accept_in_process` (the default); the Spark engine passes
    :class:`mgqa_platform.spark.convert.SparkConversion`.
    """
    path = Path(path)
    if not (path.is_file() or (kg == "osmh3kg" and path.is_dir())):
        raise FileNotFoundError(
            f"{path}: native file of KG {kg!r} not found; materialize kg_native[{kg}] first"
        )
    prof = profiles.PROFILES[kg]
    if scratch_dir is not None:
        Path(scratch_dir).mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f"mgqa-convert-{kg}-", dir=scratch_dir))
    quarantine = _QuarantineSink(scratch / "quarantine.parquet")
    # every table written below is sorted explicitly: intermediate results need no order
    ordered = con.execute("SELECT current_setting('preserve_insertion_order')").fetchone()[0]
    con.execute("SET preserve_insertion_order = false")
    try:
        with registered(con, **profiles.lookup_tables()):
            staged = _stage(con, path, scratch, quarantine, parse_workers)
            _facts(con, prof)
            (accept or accept_in_process)(con, _wide_sql(prof, kg), kg, scratch, quarantine)
            for t in ("ents", "geom", "cat", "dups"):  # read only by the wide rows
                _drop_temp(con, t)
            _quarantine_duplicate_ids(con, quarantine)
            _fold_label_nodes(con, quarantine)
            con.execute(
                """
                CREATE OR REPLACE TEMP TABLE new_quarantine AS
                SELECT *
                FROM read_parquet(?)
                """,
                [str(quarantine.close())],
            )
            whole.merge_wholes(con, kg, geometry_columns, prof.route_signs)
            _finish(con, kg, prof, snapshot_id, names.keys(country_names))
    finally:
        con.execute(f"SET preserve_insertion_order = {bool(ordered)}")
        quarantine.writer.close()
        for t in _TEMP_TABLES:
            _drop_temp(con, t)
        shutil.rmtree(scratch, ignore_errors=True)
    return _result(con, kg, staged)


#: The temporary tables a conversion may leave behind, dropped when it ends (or fails).
_TEMP_TABLES = (
    "stage",
    "ents",
    "facts",
    "geom",
    "cat",
    "dups",
    "new_entities",
    "new_quarantine",
    "label_facts",
    "new_parts",
    "new_whole_triples",
    "named",
    "new_labels",
    "owners",
)


def _quarantine_duplicate_ids(con: duckdb.DuckDBPyConnection, quarantine: list) -> None:
    """Two subjects that map to one entity id: keep the first subject in ``new_entities``,
    quarantine the others (reason ``duplicate_id``)."""
    dup = """
        SELECT entity_id, subject
        FROM (
            SELECT
                entity_id,
                subject,
                row_number() OVER (PARTITION BY entity_id ORDER BY subject) AS rn
            FROM new_entities
        )
        WHERE rn > 1
    """
    for eid, subj in con.execute(f"{dup} ORDER BY entity_id, subject").fetchall():
        why = f"entity id {eid} already produced by another subject"
        quarantine.append(_qrow("entity", "duplicate_id", why, subj))
    con.execute(f"DELETE FROM new_entities WHERE (entity_id, subject) IN ({dup})")


def _result(con: duckdb.DuckDBPyConnection, kg: str, triples_staged: int) -> ConversionResult:
    """What the warehouse holds for ``kg`` after its conversion, counted there."""

    def count(sql: str) -> int:
        return int(con.execute(sql, [kg]).fetchone()[0])

    def counter(sql: str) -> Counter:
        return Counter(dict(con.execute(sql, [kg]).fetchall()))

    res = ConversionResult(kg=kg, triples_staged=triples_staged)
    res.entities = count("SELECT count(*) FROM entities WHERE kg = ?")
    res.labels = count("SELECT count(*) FROM entity_labels WHERE kg = ?")
    res.entity_triples = count("SELECT count(*) FROM entity_triples WHERE kg = ?")
    res.wholes_by_family = _wholes_by_family(con, kg)
    roads = res.wholes_by_family.get(whole.ROAD.family, {})
    res.road_parts_merged, res.roads_merged = roads.get("parts", 0), roads.get("wholes", 0)
    res.disambiguated_names = count(
        """
        SELECT count(*)
        FROM entities
        WHERE kg = ? AND display_name <> name
        """
    )
    res.ambiguous_names = count(
        """
        SELECT count(*)
        FROM entities
        WHERE kg = ? AND NOT name_unique
        """
    )
    res.names_by_rule = {
        rule: {"entities": n, "excluded": x}
        for rule, n, x in con.execute(
            """
            SELECT name_rule, count(*), count(*) FILTER (WHERE NOT name_unique)
            FROM entities
            WHERE kg = ? AND name_rule IS NOT NULL
            GROUP BY name_rule
            ORDER BY name_rule
            """,
            [kg],
        ).fetchall()
    }
    res.quarantined = counter(
        "SELECT reason, count(*) FROM quarantine WHERE kg = ? AND stage <> 'kg_build' GROUP BY 1"
    )
    res.categories = counter("SELECT category, count(*) FROM entities WHERE kg = ? GROUP BY 1")
    res.geom_kinds = counter("SELECT geom_kind, count(*) FROM entities WHERE kg = ? GROUP BY 1")
    return res


def _wholes_by_family(con: duckdb.DuckDBPyConnection, kg: str) -> dict[str, dict[str, int]]:
    """Family -> pieces merged (``parts``) and whole features (``wholes``) of ``kg``, counted in
    ``entity_parts`` (the family is in the whole's id, :func:`whole.family_of`)."""
    out: dict[str, dict[str, int]] = {}
    for eid, n in con.execute(
        """
        SELECT entity_id, count(*)
        FROM entity_parts
        WHERE kg = ?
        GROUP BY entity_id
        """,
        [kg],
    ).fetchall():
        fam = out.setdefault(whole.family_of(eid) or "other", {"parts": 0, "wholes": 0})
        fam["parts"] += n
        fam["wholes"] += 1
    return dict(sorted(out.items()))


#: Categories of a country's or a state's point (its OSM label node, ``place=country``/``state``).
LABEL_NODE_CATEGORIES = ("country", "state")

#: ``(point entity_id, point subject, area entity_id)``: each country or state point of
#: ``new_entities`` that names the same Wikidata item as an administrative area of the KG.
LABEL_NODES_SQL = f"""
SELECT p.entity_id, p.subject, min(a.entity_id) AS area_id
FROM new_entities p
JOIN new_entities a ON a.wikidata = p.wikidata AND a.entity_id <> p.entity_id
WHERE p.geom_kind = 'point'
    AND p.category IN ({", ".join(f"'{c}'" for c in LABEL_NODE_CATEGORIES)})
    AND a.geom_kind = 'polygon'
    AND a.category IN ({", ".join(f"'{c}'" for c in lexicon.REGION_CATEGORIES)})
GROUP BY p.entity_id, p.subject
ORDER BY p.entity_id
"""


def _fold_label_nodes(con: duckdb.DuckDBPyConnection, quarantine: list) -> None:
    """Drop from ``new_entities`` the point of a country or state whose area the KG also has.

    OSM maps a country twice: the ``place=country`` label node and the boundary relation
    (``boundary=administrative``, ``admin_level=2``), both with the country's Wikidata item. Kept
    apart, the two are one place with two names ("Andorra (country)", "Andorra (administrative
    region)"). The area holds the place (its extent, containment, border); the point goes to the
    quarantine with the reason ``label_node_of_area`` and the area's entity id."""
    for eid, subject, area in con.execute(LABEL_NODES_SQL).fetchall():
        why = f"label node of {area}: the same Wikidata item, and the KG has its area"
        quarantine.append(_qrow("entity", "label_node_of_area", why, subject, eid))
    con.execute(
        f"DELETE FROM new_entities WHERE entity_id IN (SELECT entity_id FROM ({LABEL_NODES_SQL}))"
    )


# ---------------------------------------------------------------------------------------- 4. finish
#: Categories whose members are places (settlements, regions, countries): a POI that bears one of
#: their names is named with its category word (:mod:`mgqa_platform.kg.names`).
#: Categories named by their designation where their bare name is shared
#: (:mod:`mgqa_platform.kg.designations`).
ADMIN_CATEGORIES = frozenset({"administrative_region"})
PLACE_CATEGORIES = frozenset(
    (*lexicon.SETTLEMENT_CATEGORIES, *lexicon.REGION_CATEGORIES, "country", "state")
)

#: The temp table ``named``: ``display_name``, ``name_unique`` and ``name_rule`` of each entity of
#: ``new_entities`` (by ``entity_id``). The name rules (``name_rules``: entity -> ``base``,
#: ``name_rule``, ``excluded``, ``with_category``, ``designated``;
#: :func:`mgqa_platform.kg.names.name_entities`) give each entity the base of its display name. Its
#: candidate forms, in this order: the base; the base with its category word (``category_nouns``:
#: category -> singular English noun); with its street; with its locality (suburb, ``is_in``,
#: city); with category word and street; with category word and locality. A POI named like a place
#: (``with_category``) only has the forms that carry the category word, the second as a reader
#: says it: "the Helsinki tram stop", not "Helsinki (tram stop)". An administrative region
#: (:data:`ADMIN_CATEGORIES`) never carries its category word: its ``designated`` form ("the parish
#: of La Massana") stands in place of the base with the word (rule ``admin_designation`` when it
#: is chosen); one without a designation whose bare name is shared keeps its base and is
#: ``admin_undesignated``. An excluded entity has no form. Each entity takes its first form that
#: no other entity of the KG has among its candidates (compared without case and accents); an
#: entity with none keeps its base, gets ``name_unique = false`` and, when no rule applied, the
#: rule ``ambiguous``. Never coordinates or ids.
DISAMBIGUATE_SQL = """
CREATE OR REPLACE TEMP TABLE named AS
WITH ruled AS (
    SELECT
        e.entity_id,
        e.street,
        e.locality,
        r.base,
        r.name_rule,
        r.excluded,
        r.with_category,
        r.designated,
        e.category IN (__ADMIN__) AS is_admin,
        c.noun
    FROM new_entities e
    JOIN name_rules r USING (entity_id)
    JOIN category_nouns c USING (category)
),
candidates AS (
    SELECT
        entity_id,
        f.rank,
        f.form,
        lower(strip_accents(f.form)) AS form_key
    FROM (
        SELECT
            entity_id,
            unnest([
                {'rank': 1, 'form': CASE WHEN NOT with_category THEN base END},
                {'rank': 2, 'form': CASE
                    WHEN is_admin THEN designated
                    WHEN with_category THEN 'the ' || base || ' ' || noun
                    ELSE base || ' (' || noun || ')'
                END},
                {'rank': 3, 'form': CASE WHEN NOT with_category THEN base || ' (' || street || ')'
                    END},
                {'rank': 4, 'form': CASE WHEN NOT with_category THEN base || ' (' || locality || ')'
                    END},
                {'rank': 5, 'form': CASE WHEN NOT is_admin THEN
                    base || ' (' || noun || ', ' || street || ')' END},
                {'rank': 6, 'form': CASE WHEN NOT is_admin THEN
                    base || ' (' || noun || ', ' || locality || ')' END}
            ]) AS f
        FROM ruled
        WHERE NOT excluded
    )
    WHERE f.form IS NOT NULL
),
unique_keys AS (
    SELECT form_key
    FROM candidates
    GROUP BY form_key
    HAVING min(entity_id) = max(entity_id)
),
chosen AS (
    SELECT
        c.entity_id,
        arg_min(c.form, c.rank) AS form
    FROM candidates c
    SEMI JOIN unique_keys USING (form_key)
    GROUP BY c.entity_id
)
SELECT
    r.entity_id,
    coalesce(ch.form, r.base) AS display_name,
    ch.form IS NOT NULL AS name_unique,
    CASE
        WHEN ch.form IS NULL AND r.is_admin THEN coalesce(r.name_rule, 'admin_undesignated')
        WHEN ch.form IS NULL THEN coalesce(r.name_rule, 'ambiguous')
        WHEN ch.form = r.designated THEN 'admin_designation'
        ELSE r.name_rule
    END AS name_rule
FROM ruled r
LEFT JOIN chosen ch USING (entity_id)
""".replace("__ADMIN__", ", ".join(f"'{c}'" for c in sorted(ADMIN_CATEGORIES)))


def _category_nouns(categories: list[str]) -> dict[str, str]:
    """Category -> singular English noun: the one place conversion names categories."""
    return {c: lexicon.noun(c) for c in categories}


def _label_facts(con: duckdb.DuckDBPyConnection, prof: profiles.Profile) -> None:
    """The temp table ``label_facts(entity_id, lang, label, is_alias)``: the labels of
    ``new_entities`` in ``facts`` (language tags, the KG label, the alias keys); a whole feature
    also takes its other parts' labels, as aliases (``new_parts``,
    :mod:`mgqa_platform.kg.whole`)."""
    aliases = ", ".join(f"'{k}'" for k in profiles.ALIAS_KEYS)
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE label_facts AS
        WITH l AS (
            SELECT f.s, nl.lang, f.v AS label, false AS is_alias FROM facts f JOIN lk_name_langs nl
                ON nl.tag = f.k
            UNION ALL SELECT s, '{prof.label_lang}', v, false FROM facts WHERE k = 'name'
            UNION ALL SELECT s, 'und', trim(a), true FROM (SELECT s, unnest(string_split(v, ';')) AS
                a FROM facts WHERE k IN ({aliases}))
        )
        SELECT DISTINCT n.entity_id, l.lang, trim(l.label) AS label, l.is_alias OR n.is_part AS
            is_alias
        FROM l
        JOIN (
            SELECT entity_id, subject, false AS is_part FROM new_entities
            UNION ALL
            SELECT p.entity_id, p.part_subject, true
            FROM new_parts p
            JOIN new_entities n USING (entity_id)
            WHERE p.part_subject <> n.subject
        ) n ON n.subject = l.s
        WHERE trim(l.label) <> ''"""
    )


def _rule_labels(
    con: duckdb.DuckDBPyConnection, entity_ids: list[str]
) -> dict[str, list[tuple[str, str, bool]]]:
    """The labels of ``label_facts`` (lang, label, is_alias; sorted) of ``entity_ids``: the name
    rules read an entity's labels only when its name has letters of another script
    (:func:`names.latin_alternative`)."""
    wanted = pa.table({"entity_id": pa.array(entity_ids, pa.string())})
    labels: dict[str, list[tuple[str, str, bool]]] = {}
    with registered(con, rule_label_ids=wanted):
        for eid, lang, label, is_alias in con.execute(
            """
            SELECT entity_id, lang, label, is_alias
            FROM label_facts
            SEMI JOIN rule_label_ids USING (entity_id)
            ORDER BY ALL
            """
        ).fetchall():
            labels.setdefault(eid, []).append((lang, label, is_alias))
    return labels


def _rule_attributes(category: str, attributes: str | None) -> dict:
    """The attributes the name rules read of an entity: only an earthquake's
    (:func:`names.event_name` reads its magnitude); ``{}`` for every other category."""
    if attributes and category in names.EARTHQUAKE_CATEGORIES:
        return json.loads(attributes)
    return {}


def _designation_patterns(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Entity id -> English designation pattern (:func:`designations.english_pattern`) of each
    administrative region of ``new_entities``, from its tags in ``facts`` (its own designation
    tags, else its country and ``admin_level`` in the reviewed table)."""
    keys = ", ".join(f"'{k}'" for k in (*designations.TAGS, "admin_level"))
    tags: dict[str, dict[str, str]] = {}
    for eid, k, v in con.execute(
        f"""
        SELECT e.entity_id, f.k, min(f.v)
        FROM new_entities e
        JOIN facts f ON f.s = e.subject
        WHERE e.category IN ({", ".join(f"'{c}'" for c in sorted(ADMIN_CATEGORIES))})
            AND f.k IN ({keys})
        GROUP BY ALL
        """
    ).fetchall():
        tags.setdefault(eid, {})[k] = v
    out = {}
    for eid, t in tags.items():
        level = t.get("admin_level", "")
        pattern = designations.english_pattern(t, int(level) if level.isdigit() else None)
        if pattern:
            out[eid] = pattern
    return out


def _name_rules(
    con: duckdb.DuckDBPyConnection,
    nouns: dict[str, str],
    country_names: frozenset[str],
    route_signs: bool,
    patterns: dict[str, str] | None = None,
) -> tuple[pa.Table, pa.Table]:
    """The name rules over ``new_entities`` and ``label_facts`` (``route_signs``: the profile's,
    :attr:`profiles.Profile.route_signs`; ``patterns``: :func:`_designation_patterns`): the Arrow
    tables ``name_rules`` (entity_id, base, name_rule, excluded, with_category, designated) and
    ``name_aliases`` (entity_id, label)."""
    events = ", ".join(f"'{c}'" for c in sorted(names.EARTHQUAKE_CATEGORIES))
    rows = con.execute(
        f"""
        SELECT
            entity_id, name, category, valid_from,
            CASE WHEN category IN ({events}) THEN attributes END AS attributes
        FROM new_entities
        ORDER BY entity_id
        """
    ).fetchall()
    labels = _rule_labels(con, [eid for eid, name, *_ in rows if names.other_script(name)])
    entities = [
        names.Entity(
            eid,
            name,
            category,
            valid_from,
            _rule_attributes(category, attributes),
            tuple(labels.get(eid, ())),
            (patterns or {}).get(eid),
        )
        for eid, name, category, valid_from, attributes in rows
    ]
    words = names.category_words(nouns.values(), nouns, localized_nouns(nouns))
    out = names.name_entities(entities, words, country_names, PLACE_CATEGORIES, route_signs)
    rules = pa.table(
        {
            "entity_id": pa.array([n.entity_id for n in out], pa.string()),
            "base": pa.array([n.base for n in out], pa.string()),
            "name_rule": pa.array([n.rule for n in out], pa.string()),
            "excluded": pa.array([n.excluded for n in out], pa.bool_()),
            "with_category": pa.array([n.with_category for n in out], pa.bool_()),
            "designated": pa.array([n.designated for n in out], pa.string()),
        }
    )
    pairs = [(n.entity_id, a) for n in out for a in n.aliases]
    aliases = pa.table(
        {
            "entity_id": pa.array([p[0] for p in pairs], pa.string()),
            "label": pa.array([p[1] for p in pairs], pa.string()),
        }
    )
    return rules, aliases


def _source_triples_sql(prof: profiles.Profile) -> str:
    """``INSERT INTO entity_triples`` (parameter: the KG) of the source triples of the entities:
    each entity's own subjects (``owners``: entity_id, subject, with its whole's parts), the nodes
    up to two ``prof.cited_links`` hops away, and the wholes' derived statements
    (``new_whole_triples``),
    sorted."""
    links = ", ".join("'" + p.replace("'", "''") + "'" for p in prof.cited_links)
    return f"""INSERT INTO entity_triples
        WITH linked AS (SELECT s, o FROM stage WHERE p IN ({links})),
        hop1 AS (SELECT n.entity_id, t.o AS node FROM owners n JOIN linked t ON t.s = n.subject),
        hop2 AS (SELECT h.entity_id, t.o AS node FROM hop1 h JOIN linked t ON t.s = h.node),
        src AS (SELECT entity_id, subject AS node FROM owners UNION SELECT * FROM hop1 UNION SELECT
            * FROM hop2),
        rows AS (
            SELECT src.entity_id, t.s, t.p, t.o FROM src JOIN stage t ON t.s = src.node
            UNION ALL SELECT entity_id, s, p, o FROM new_whole_triples
        )
        SELECT entity_id, $1, s, p, o FROM rows ORDER BY entity_id, s, p, o"""


def _finish(
    con: duckdb.DuckDBPyConnection,
    kg: str,
    prof: profiles.Profile,
    snapshot_id: str,
    country_names: frozenset[str],
) -> None:
    """Name the new entities and their labels (:func:`_name_entities`), then replace the KG's
    partition of the entity tables with them (:func:`_replace_kg`)."""
    _name_entities(con, prof, country_names)
    _replace_kg(con, kg, prof, snapshot_id)


def _name_entities(
    con: duckdb.DuckDBPyConnection, prof: profiles.Profile, country_names: frozenset[str]
) -> None:
    """The temp tables ``named`` (display name, uniqueness and rule of each new entity, by the
    name rules) and ``new_labels`` (the labels, with every other accepted name as an alias)."""
    categories = [
        r[0] for r in con.execute("SELECT DISTINCT category FROM new_entities").fetchall()
    ]
    nouns = _category_nouns(categories)
    _label_facts(con, prof)
    patterns = _designation_patterns(con)
    _drop_temp(con, "facts")  # label_facts is its last reader: free memory early
    rules, name_aliases = _name_rules(con, nouns, country_names, prof.route_signs, patterns)
    noun_table = pa.table(
        {
            "category": pa.array(list(nouns), pa.string()),
            "noun": pa.array(list(nouns.values()), pa.string()),
        }
    )
    with registered(con, category_nouns=noun_table, name_rules=rules):
        con.execute(DISAMBIGUATE_SQL)
    # every accepted name that is not the display name is an alias (scoring accepts it)
    with registered(con, name_aliases=name_aliases):
        con.execute(
            """
            CREATE OR REPLACE TEMP TABLE new_labels AS
            SELECT DISTINCT *
            FROM (
                SELECT *
                FROM label_facts
                UNION ALL
                SELECT a.entity_id, 'eng', a.label, true
                FROM name_aliases a
                JOIN named n USING (entity_id)
                WHERE a.label <> n.display_name
                    AND NOT EXISTS (
                        SELECT 1
                        FROM label_facts l
                        WHERE l.entity_id = a.entity_id AND l.label = a.label
                    )
            )
            ORDER BY ALL
            """
        )
    _drop_temp(con, "label_facts")


def _replace_kg(
    con: duckdb.DuckDBPyConnection, kg: str, prof: profiles.Profile, snapshot_id: str
) -> None:
    """In one transaction, replace the rows of ``kg`` in ``entities``, ``entity_labels``,
    ``entity_triples``, ``entity_parts`` and its conversion quarantine by the new ones, dropping
    each temp table after its last reader."""
    with transaction(con):
        for table in ("entities", "entity_labels", "entity_triples", "entity_parts"):
            con.execute(f"DELETE FROM {table} WHERE kg = ?", [kg])
        con.execute("DELETE FROM quarantine WHERE kg = ? AND stage <> 'kg_build'", [kg])
        con.execute(
            """
            INSERT INTO entities
            SELECT
                entity_id, ?, e.iri, e.name, n.display_name, n.name_unique, n.name_rule,
                e.category, e.types, ST_GeomFromWKB(e.wkb), e.geom_kind, e.lon, e.lat, e.h3,
                e.image_url, e.wikidata, e.valid_from, e.valid_to, e.attributes::JSON, ?, NULL
            FROM new_entities e
            JOIN named n USING (entity_id)
            ORDER BY entity_id
            """,
            [kg, snapshot_id],
        )
        assign_category_kinds(con, kg)
        con.execute(
            """
            CREATE OR REPLACE TEMP TABLE owners AS
            SELECT entity_id, subject FROM new_entities
            UNION
            SELECT entity_id, part_subject FROM new_parts
            """
        )
        _drop_temp(con, "new_entities")
        _drop_temp(con, "named")
        con.execute(
            "INSERT INTO entity_labels SELECT entity_id, ?, lang, label, is_alias FROM new_labels",
            [kg],
        )
        _drop_temp(con, "new_labels")
        con.execute(_source_triples_sql(prof), [kg])
        _drop_temp(con, "stage")
        con.execute(
            "INSERT INTO entity_parts "
            "SELECT ?, entity_id, part_entity_id, part_subject "
            "FROM new_parts",
            [kg],
        )
        con.execute(
            "INSERT INTO quarantine "
            "SELECT ?, stage, reason, detail, source, payload "
            "FROM new_quarantine "
            "ORDER BY ALL",
            [kg],
        )
    _drop_temp(con, "owners")


#: ``entities.category_kind`` of one KG: the geometry kind (point, line, polygon) that most entities
#: of the row's category have in that KG; ties go to the alphabetically first kind. Category role
#: types bind a category by this kind while counting every member (questions/roles.py).
CATEGORY_KIND_SQL = """
UPDATE entities
SET category_kind = k.kind
FROM (
    SELECT category, arg_max(geom_kind, [n, -rank]) AS kind
    FROM (
        SELECT
            category,
            geom_kind,
            count(*) AS n,
            dense_rank() OVER (PARTITION BY category ORDER BY geom_kind) AS rank
        FROM entities
        WHERE kg = $kg
        GROUP BY category, geom_kind
    )
    GROUP BY category
) k
WHERE entities.kg = $kg
    AND entities.category = k.category
"""


def assign_category_kinds(con: duckdb.DuckDBPyConnection, kg: str) -> None:
    """Set ``entities.category_kind`` for every entity of ``kg`` (:data:`CATEGORY_KIND_SQL`)."""
    con.execute(CATEGORY_KIND_SQL, {"kg": kg})
