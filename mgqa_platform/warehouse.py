"""The DuckDB warehouse: one file, the spatial extension loaded offline on every connection.

Every component that opens the warehouse goes through :func:`connect`, so they all share one
connection configuration (docs/data_model.md). The spatial extension comes from the PyPI package
``duckdb-ext-spatial`` (pinned to DuckDB 1.4.4); nothing is downloaded.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from mgqa_platform import question_schema as schema

#: One connection config for every opener of the warehouse file.
CONNECTION_CONFIG: dict[str, str] = {
    "threads": "2",
    "memory_limit": "1GB",  # DuckDB spills to <db>.tmp beyond this: bounded memory on big inputs
    "preserve_insertion_order": "true",
}


class SpatialExtensionMissing(RuntimeError):
    """The offline spatial extension could not be found."""


def spatial_extension_path() -> Path:
    """Path of the ``spatial.duckdb_extension`` file shipped by ``duckdb-ext-spatial``."""
    spec = importlib.util.find_spec("duckdb_ext")
    if spec is None or not spec.submodule_search_locations:
        raise SpatialExtensionMissing(
            "install the PyPI package duckdb-ext-spatial (pinned with duckdb==1.4.4)"
        )
    base = Path(list(spec.submodule_search_locations)[0]) / "extensions" / f"v{duckdb.__version__}"
    found = sorted(base.glob("*/spatial.duckdb_extension"))
    if not found:
        raise SpatialExtensionMissing(
            f"no spatial.duckdb_extension under {base} for duckdb {duckdb.__version__}"
        )
    return found[0]


def load_spatial(con: duckdb.DuckDBPyConnection) -> None:
    """Install (from the local file) and load the spatial extension on ``con``."""
    con.execute(f"INSTALL '{spatial_extension_path()}'")
    con.execute("LOAD spatial")


def connect(path: str | Path | None = None, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the warehouse (``None`` = in-memory), with spatial loaded and the shared config."""
    database = ":memory:" if path is None else str(path)
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(database, read_only=read_only, config=dict(CONNECTION_CONFIG))
    load_spatial(con)
    return con


@contextlib.contextmanager
def session(
    path: str | Path | None = None, read_only: bool = False
) -> Iterator[duckdb.DuckDBPyConnection]:
    con = connect(path, read_only=read_only)
    try:
        yield con
    finally:
        con.close()


# --------------------------------------------------------------------------------------------------
# Tables owned by the foundation stages. Later stages add their own DDL next to them.
# --------------------------------------------------------------------------------------------------
SCHEMA = """
CREATE TABLE IF NOT EXISTS snapshots (
    snapshot_id   VARCHAR PRIMARY KEY,   -- '<file stem>-<sha256[:12]>'
    kind          VARCHAR NOT NULL,      -- 'osm_pbf' | 'kwg_crawl' | 'source_file'
    path          VARCHAR NOT NULL,
    sha256        VARCHAR NOT NULL,
    bytes         BIGINT NOT NULL,
    osm_timestamp VARCHAR               -- PBF header osmosis_replication_timestamp, when present
);
CREATE TABLE IF NOT EXISTS snapshot_states (
    snapshot_id   VARCHAR PRIMARY KEY,   -- a `snapshots` id; no row: usable, the newest usable wins
    state         VARCHAR NOT NULL,      -- 'pinned' | 'retired' | 'failed' | 'rejected'
    reason        VARCHAR                -- why (the failed check, the intake error, the operator)
);
CREATE TABLE IF NOT EXISTS kg_files (
    kg            VARCHAR PRIMARY KEY,
    snapshot_id   VARCHAR NOT NULL,      -- id of the native KG file ('<stem>-<sha12>')
    source_snapshot_id VARCHAR,         
        -- the OSM snapshot it was built from (NULL for KnowWhereGraph)
    path          VARCHAR NOT NULL,
    sha256        VARCHAR NOT NULL,
    bytes         BIGINT NOT NULL,
    build_report  JSON,
    run_id        VARCHAR,               -- Dagster run that built the file
    conversion_run_id VARCHAR            -- Dagster run that converted it into the entity tables
);
CREATE TABLE IF NOT EXISTS kg_file_history (  -- every native file kg_files has held, by id
    kg            VARCHAR NOT NULL,
    snapshot_id   VARCHAR NOT NULL,
    source_snapshot_id VARCHAR,
    path          VARCHAR NOT NULL,
    sha256        VARCHAR NOT NULL,
    bytes         BIGINT NOT NULL,
    build_report  JSON,
    run_id        VARCHAR,
    conversion_run_id VARCHAR,
    PRIMARY KEY (kg, snapshot_id)
);
CREATE TABLE IF NOT EXISTS entities (
    entity_id     VARCHAR NOT NULL,
    kg            VARCHAR NOT NULL,
    iri           VARCHAR NOT NULL,
    name          VARCHAR NOT NULL,
    display_name  VARCHAR NOT NULL,
    name_unique   BOOLEAN NOT NULL,      -- display_name identifies the entity within its KG
    name_rule     VARCHAR,               -- the name rule that renamed or excluded it (kg/names.py)
    category      VARCHAR NOT NULL,
    types         VARCHAR[] NOT NULL,
    geometry      GEOMETRY NOT NULL,
    geom_kind     VARCHAR NOT NULL,
    lon           DOUBLE NOT NULL,
    lat           DOUBLE NOT NULL,
    h3            VARCHAR[] NOT NULL,
    image_url     VARCHAR,
    wikidata      VARCHAR,
    valid_from    VARCHAR,
    valid_to      VARCHAR,
    attributes    JSON,
    snapshot_id   VARCHAR NOT NULL,
    category_kind VARCHAR                -- geom_kind most entities of this category have in the KG
);
CREATE TABLE IF NOT EXISTS entity_labels (
    entity_id VARCHAR NOT NULL,
    kg        VARCHAR NOT NULL,
    lang      VARCHAR NOT NULL,
    label     VARCHAR NOT NULL,
    is_alias  BOOLEAN NOT NULL
);
CREATE TABLE IF NOT EXISTS entity_triples (
    entity_id VARCHAR NOT NULL,
    kg        VARCHAR NOT NULL,
    s         VARCHAR NOT NULL,
    p         VARCHAR NOT NULL,
    o         VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS entity_parts (
    kg             VARCHAR NOT NULL,
    entity_id      VARCHAR NOT NULL,   -- a whole feature ('<kg>:<family>/<smallest part local id>')
    part_entity_id VARCHAR NOT NULL,  
        -- the id the piece had as an entity (an OSM way, a KWG segment)
    part_subject   VARCHAR NOT NULL    -- the piece's subject in the native KG
);
CREATE TABLE IF NOT EXISTS coverage (
    kg            VARCHAR NOT NULL,
    snapshot_id   VARCHAR NOT NULL,      -- the native KG file it describes (kg_files.snapshot_id)
    part          VARCHAR NOT NULL,      -- source part (file) or 'entities' for the hull fallback
    method        VARCHAR NOT NULL,     
        -- 'header_bbox' | 'data_bbox' | 'country_polygon' | 'crawl_region' | 'entity_hull'
    complete_for  VARCHAR NOT NULL,      -- which features the part holds completely inside the area
    geometry      GEOMETRY NOT NULL      -- EPSG:4326, lon/lat
);
CREATE TABLE IF NOT EXISTS quarantine (
    kg        VARCHAR NOT NULL,
    stage     VARCHAR NOT NULL,    -- 'kg_build' | 'parse' | 'entity'
    reason    VARCHAR NOT NULL,    -- short machine-readable reason, e.g. 'invalid_wkt'
    detail    VARCHAR,             -- human-readable detail (error message)
    source    VARCHAR,             -- file and line, or subject IRI
    payload   VARCHAR              -- the offending text (truncated)
);
"""


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(SCHEMA)
    con.execute(STRATA_SCHEMA)
    con.execute(QUESTION_SCHEMA)
    con.execute(EVALUATION_SCHEMA)
    con.execute(MULTILINGUAL_SCHEMA)
    con.execute(RELEASE_SCHEMA)


@contextlib.contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """``BEGIN`` ... ``COMMIT``, or ``ROLLBACK`` on any exception: writers either land whole or not
    at all."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def fetch_dicts(
    con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] | None = None
) -> list[dict[str, Any]]:
    """Run ``sql`` and return its rows as dicts keyed by column name, in the query's order."""
    cur = con.execute(sql, list(params) if params is not None else [])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


@contextlib.contextmanager
def registered(
    con: duckdb.DuckDBPyConnection, **tables: Any
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Register each keyword's Arrow table (or DataFrame) as a view named by the keyword for the
    ``with`` block, then unregister them, also on error: ``with registered(con, _ids=table):
    con.execute("... FROM _ids")``."""
    for name, table in tables.items():
        con.register(name, table)
    try:
        yield con
    finally:
        for name in tables:
            con.unregister(name)


def replace_partition(
    con: duckdb.DuckDBPyConnection, table: str, key_col: str, key: str, select_sql: str, params=None
) -> int:
    """Atomically replace the rows of ``table`` where ``key_col = key`` by the rows of
    ``select_sql``.

    Runs in one transaction: an interrupted run leaves the previous partition intact. Returns the
    number of rows written.
    """
    with transaction(con):
        con.execute(f"DELETE FROM {table} WHERE {key_col} = ?", [key])
        con.execute(f"INSERT INTO {table} {select_sql}", params or [])
    return int(
        con.execute(f"SELECT count(*) FROM {table} WHERE {key_col} = ?", [key]).fetchone()[0]
    )


# --------------------------------------------------------------------------------------------------
# Write-audit-publish: an asset writes into a staging copy of its slices, its audits judge the
# staged rows, and only then are they swapped into the published tables, in one transaction. The
# staging copies live in an in-memory database attached for the write, so staged rows never reach
# the warehouse file (its WAL and checkpoints see only the published swap).
# --------------------------------------------------------------------------------------------------
STAGING_SCHEMA = "staging"
#: The in-memory database attached for a write; its schema ``staging`` holds the staged tables.
STAGING_CATALOG = "mgqa_staging"
STAGED = f"{STAGING_CATALOG}.{STAGING_SCHEMA}"


@dataclass(frozen=True)
class Slice:
    """The rows of ``table`` one asset owns and replaces: those where ``where`` (SQL over the
    table's columns, ``?`` placeholders bound to ``params``) holds; ``TRUE`` for a whole table.
    ``guarded=False`` exempts a slice from the volume guard (quarantine, discard counts, logs: fewer
    rows there is no loss)."""

    table: str
    where: str = "TRUE"
    params: tuple[Any, ...] = ()
    guarded: bool = True

    def count(self, con: duckdb.DuckDBPyConnection, schema_name: str) -> int:
        """Rows of the slice in ``schema_name`` (``main`` = published, :data:`STAGED` = staged)."""
        sql = f"SELECT count(*) FROM {schema_name}.{self.table} WHERE {self.where}"
        return int(con.execute(sql, list(self.params)).fetchone()[0])


def partition_slices(key_col: str, key: str, *tables: str) -> tuple[Slice, ...]:
    """One slice ``key_col = key`` of each of ``tables`` (e.g. the ``kg`` or ``lang`` partition)."""
    return tuple(Slice(t, f"{key_col} = ?", (key,)) for t in tables)


def whole_tables(*tables: str) -> tuple[Slice, ...]:
    """Slices that are whole tables (an unpartitioned asset replaces all its rows)."""
    return tuple(Slice(t) for t in tables)


class SliceViolation(RuntimeError):
    """A writer left rows outside its declared slice in a staging table."""


@dataclass(frozen=True)
class SliceCount:
    """Rows of one slice before (``published``) and after (``staged``) a write."""

    table: str
    published: int
    staged: int


def _staging_ddl(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """The ``CREATE TABLE`` of published ``table`` (constraints included), aimed at
    :data:`STAGED`."""
    row = con.execute(
        "SELECT sql FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = ?",
        [table],
    ).fetchone()
    if row is None:
        raise LookupError(f"no published table {table!r} to stage")
    head = f"CREATE TABLE {table}("
    if not row[0].startswith(head):
        raise ValueError(f"unexpected DDL for {table!r}: {row[0][:80]}")
    return f"CREATE TABLE {STAGED}.{table}(" + row[0][len(head) :]


class Staging:
    """Staged copies of some slices, open on one connection (see :func:`staging`).

    ``published`` holds each slice's published row count, taken when its rows were copied in (the
    published tables do not change while a writer holds the warehouse pool)."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        slices: Sequence[Slice],
        published: Sequence[int],
        database: str,
    ):
        self.con = con
        self.slices = tuple(slices)
        self.published = tuple(published)
        self.database = database

    def counts(self) -> list[SliceCount]:
        """Published and staged row counts of every guarded slice, in declaration order."""
        return [
            SliceCount(s.table, n, s.count(self.con, STAGED))
            for s, n in zip(self.slices, self.published, strict=True)
            if s.guarded
        ]

    def _outside(self, s: Slice) -> int:
        sql = f"SELECT count(*) FROM {STAGED}.{s.table} WHERE NOT coalesce({s.where}, FALSE)"
        return int(self.con.execute(sql, list(s.params)).fetchone()[0])

    def publish(self) -> None:
        """Swap every staged slice into its published table, all in one transaction.

        Raises :class:`SliceViolation` (publishing nothing) when a staging table holds a row outside
        its slice: a writer may only replace what it declared."""
        stray = {s.table: n for s in self.slices if (n := self._outside(s))}
        if stray:
            raise SliceViolation(f"rows written outside the declared slice: {stray}")
        with transaction(self.con):
            for s in self.slices:
                target = f"{_quoted(self.database)}.main.{s.table}"
                self.con.execute(f"DELETE FROM {target} WHERE {s.where}", list(s.params))
                self.con.execute(f"INSERT INTO {target} SELECT * FROM {STAGED}.{s.table}")


def _quoted(identifier: str) -> str:
    """``identifier`` as a double-quoted SQL identifier."""
    return '"' + identifier.replace('"', '""') + '"'


@contextlib.contextmanager
def staging(con: duckdb.DuckDBPyConnection, slices: Sequence[Slice]) -> Iterator[Staging]:
    """Stage ``slices`` for a write: inside the block every table of a slice resolves to its staging
    copy.

    The staging copies live in an in-memory database attached as :data:`STAGING_CATALOG` (schema
    ``staging``): staged rows never reach the warehouse file. Each has the published table's DDL and
    starts with the slice's published rows, so a writer sees the state it would see on the published
    table; unqualified names resolve to the staged tables first (``search_path``), so writers and
    audits run unchanged on the staged rows while other tables (and ``main.<table>``) still resolve
    to the published ones. A writer's transaction may write staged tables or published ones, not
    both. Nothing reaches the published tables unless :meth:`Staging.publish` is called; on leaving,
    the staging database is detached and the search path restored, also on error."""
    tables = [s.table for s in slices]
    if len(set(tables)) != len(tables):
        raise ValueError(f"one slice per table: {tables}")
    database = con.execute("SELECT current_database()").fetchone()[0]
    con.execute(f"ATTACH ':memory:' AS {STAGING_CATALOG}")
    try:
        con.execute(f"CREATE SCHEMA {STAGED}")
        published = []
        for s in slices:
            con.execute(_staging_ddl(con, s.table))
            copied = con.execute(
                f"INSERT INTO {STAGED}.{s.table} SELECT * FROM main.{s.table} WHERE {s.where}",
                list(s.params),
            ).fetchone()[0]
            published.append(int(copied))
        con.execute(f"SET search_path = '{STAGED},{_quoted(database)}.main'")
        yield Staging(con, slices, published, database)
    finally:
        con.execute("RESET search_path")
        con.execute(f"DETACH DATABASE IF EXISTS {STAGING_CATALOG}")


# --------------------------------------------------------------------------------------------------
# Strata tables (income tiers, density tiers, strata).
# --------------------------------------------------------------------------------------------------
STRATA_SCHEMA = """
CREATE TABLE IF NOT EXISTS countries (
    iso3          VARCHAR PRIMARY KEY,
    name          VARCHAR NOT NULL,
    name_long     VARCHAR,
    continent     VARCHAR,
    iso3_source   VARCHAR NOT NULL,     -- 'ISO_A3' | 'ISO_A3_EH' | 'ADM0_A3'
    income_tier   VARCHAR,              -- 'LIC' | 'LMC' | 'UMC' | 'HIC'; NULL when not classified
    income_group  VARCHAR,
    income_source VARCHAR,              -- e.g. 'World Bank FY2026'
    income_note   VARCHAR,              -- why the tier is NULL or came from a fallback
    geometry      GEOMETRY NOT NULL     -- EPSG:4326, lon/lat
);
CREATE TABLE IF NOT EXISTS entity_country (
    entity_id   VARCHAR NOT NULL,
    kg          VARCHAR NOT NULL,
    iso3        VARCHAR,                -- NULL when unassigned
    method      VARCHAR NOT NULL,       -- 'within' | 'nearest' | 'unassigned'
    distance_km DOUBLE,                 -- geodesic distance to the country (0 when within)
    reason      VARCHAR                 -- why unassigned
);
CREATE TABLE IF NOT EXISTS density_cells (
    h3          VARCHAR PRIMARY KEY,    -- H3 v4 cell, resolution 3
    population  DOUBLE NOT NULL,       
        -- people (sum of the valid pixels whose centre lies in the cell)
    valid_pixels BIGINT NOT NULL,
    area_km2    DOUBLE NOT NULL,        -- h3.cell_area(cell, 'km^2')
    density     DOUBLE NOT NULL,        -- people per km2
    tier        VARCHAR NOT NULL        -- 'low' | 'medium' | 'high'
);
CREATE TABLE IF NOT EXISTS density_breaks (
    raster      VARCHAR NOT NULL,       -- path of the population raster
    raster_sha256 VARCHAR NOT NULL,
    is_proxy    BOOLEAN NOT NULL,      
        -- TRUE for the GeoNames-derived proxy surface (not WorldPop)
    label       VARCHAR NOT NULL,
    p33         DOUBLE NOT NULL,
    p67         DOUBLE NOT NULL,
    cells       BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS entity_density (
    entity_id    VARCHAR NOT NULL,
    kg           VARCHAR NOT NULL,
    h3           VARCHAR NOT NULL,      -- resolution-3 cell of the representative point
    density      DOUBLE,               
        -- people per km2 of that cell; NULL when the cell has no valid pixels
    density_tier VARCHAR,               -- 'low' | 'medium' | 'high' | NULL
    reason       VARCHAR                -- why the tier is NULL
);
CREATE TABLE IF NOT EXISTS entity_strata (
    entity_id    VARCHAR NOT NULL,
    kg           VARCHAR NOT NULL,
    iso3         VARCHAR,
    income_tier  VARCHAR,
    density_tier VARCHAR,
    density      DOUBLE,
    stratum      VARCHAR,               -- '<income>/<density>', NULL when either tier is missing
    reason       VARCHAR                -- why stratum is NULL
);
"""


# --------------------------------------------------------------------------------------------------
# Question tables (template catalog, English questions, discard counts). See docs/questions.md. The
# question tables' DDL is derived from the declared record (mgqa_platform/question_schema.py).
# --------------------------------------------------------------------------------------------------
QUESTION_SCHEMA = (
    schema.create_table_sql("questions_en")
    + """
CREATE TABLE IF NOT EXISTS templates (
    sfid VARCHAR NOT NULL, tid VARCHAR NOT NULL, sub_function VARCHAR, template VARCHAR,
    sub_template_id VARCHAR NOT NULL, variant_id VARCHAR NOT NULL, text VARCHAR NOT NULL,
    answer_format VARCHAR NOT NULL, executor VARCHAR, implemented BOOLEAN NOT NULL,
    roles JSON, parameters JSON, conventions JSON, premise VARCHAR, catalog_version VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS split_small (
    question_id VARCHAR NOT NULL, kg VARCHAR NOT NULL, sfid VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS question_discards (
    kg VARCHAR NOT NULL, sub_template_id VARCHAR NOT NULL, stratum VARCHAR, reason VARCHAR NOT NULL,
        n BIGINT NOT NULL
);
"""
)


# --------------------------------------------------------------------------------------------------
# Evaluation tables: one row per (system, question) score, and the reference solver's misses.
# --------------------------------------------------------------------------------------------------
EVALUATION_SCHEMA = """
CREATE TABLE IF NOT EXISTS scores (
    system VARCHAR NOT NULL, split VARCHAR NOT NULL, lang VARCHAR NOT NULL, question_id VARCHAR NOT
        NULL,
    kg VARCHAR NOT NULL, sfid VARCHAR NOT NULL, sub_template_id VARCHAR NOT NULL, answer_format
        VARCHAR NOT NULL,
    false_premise BOOLEAN NOT NULL, income_tier VARCHAR, density_tier VARCHAR, status VARCHAR NOT
        NULL,
    covered BOOLEAN NOT NULL, refused BOOLEAN NOT NULL, em DOUBLE NOT NULL, ne DOUBLE NOT NULL,
    prediction JSON, detail VARCHAR
);
"""


# --------------------------------------------------------------------------------------------------
# Multilingual tables (issue 7), one slice per language (the partition key, ISO 639-3 ``lang``).
# --------------------------------------------------------------------------------------------------
MULTILINGUAL_SCHEMA = (
    schema.create_table_sql("questions_localized")
    + schema.create_table_sql("questions_postedited")
    + """
CREATE TABLE IF NOT EXISTS template_translations (
    lang VARCHAR NOT NULL, variant_id VARCHAR NOT NULL, sub_template_id VARCHAR NOT NULL, source
        VARCHAR NOT NULL,
    text VARCHAR, engine VARCHAR NOT NULL, status VARCHAR NOT NULL, problems JSON, needs_post_edit
        BOOLEAN NOT NULL
);
CREATE TABLE IF NOT EXISTS template_translations_resolved (
    lang VARCHAR NOT NULL, variant_id VARCHAR NOT NULL, sub_template_id VARCHAR NOT NULL, source
        VARCHAR NOT NULL,
    text VARCHAR NOT NULL, method VARCHAR NOT NULL, status VARCHAR NOT NULL, labels JSON, detail
        VARCHAR
);
CREATE TABLE IF NOT EXISTS annotation_agreement (
    lang VARCHAR NOT NULL, stats JSON NOT NULL, rejected_rows BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS ensemble_edit_log (
    lang VARCHAR NOT NULL, question_id VARCHAR NOT NULL, member VARCHAR NOT NULL, status VARCHAR NOT
        NULL,
    op VARCHAR, original VARCHAR, fix VARCHAR, applied BOOLEAN NOT NULL, detail VARCHAR
);
CREATE TABLE IF NOT EXISTS ensemble_stats (
    lang VARCHAR NOT NULL, members JSON NOT NULL, stats JSON NOT NULL
);
"""
)


# --------------------------------------------------------------------------------------------------
# Release manifest: what each released question file holds, as written by release_questions.
# --------------------------------------------------------------------------------------------------
RELEASE_SCHEMA = """
CREATE TABLE IF NOT EXISTS release_files (
    lang VARCHAR NOT NULL, split VARCHAR NOT NULL,
    path VARCHAR NOT NULL,               
        -- relative to the release folder: data/<lang>/<split>.parquet
    rows BIGINT NOT NULL, sha256 VARCHAR NOT NULL,
    source_fingerprint VARCHAR NOT NULL  
        -- export.source_fingerprint of the warehouse it was written from
);
"""
