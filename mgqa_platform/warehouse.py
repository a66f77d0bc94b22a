"""The DuckDB warehouse: one file, the spatial extension loaded offline on every connection.

Every component that opens the warehouse goes through :func:`connect`, so they all share one
connection configuration (DESIGN §10). The spatial extension comes from the PyPI package
``duckdb-ext-spatial`` (pinned to DuckDB 1.4.4); nothing is downloaded.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator
from pathlib import Path

import duckdb

#: One connection config for every opener of the warehouse file.
CONNECTION_CONFIG: dict[str, str] = {
    "threads": "2",
    "memory_limit": "4GB",
    "preserve_insertion_order": "true",
}


class SpatialExtensionMissing(RuntimeError):
    """The offline spatial extension could not be found."""


def spatial_extension_path() -> Path:
    """Path of the ``spatial.duckdb_extension`` file shipped by ``duckdb-ext-spatial``."""
    spec = importlib.util.find_spec("duckdb_ext")
    if spec is None or not spec.submodule_search_locations:
        raise SpatialExtensionMissing("install the PyPI package duckdb-ext-spatial (pinned with duckdb==1.4.4)")
    base = Path(list(spec.submodule_search_locations)[0]) / "extensions" / f"v{duckdb.__version__}"
    found = sorted(base.glob("*/spatial.duckdb_extension"))
    if not found:
        raise SpatialExtensionMissing(f"no spatial.duckdb_extension under {base} for duckdb {duckdb.__version__}")
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
def session(path: str | Path | None = None, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    con = connect(path, read_only=read_only)
    try:
        yield con
    finally:
        con.close()


# --------------------------------------------------------------------------------------------------
# Tables owned by the foundation stages (DESIGN §3-5). Later stages add their own DDL next to them.
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
CREATE TABLE IF NOT EXISTS kg_files (
    kg            VARCHAR PRIMARY KEY,
    snapshot_id   VARCHAR NOT NULL,      -- id of the native KG file ('<stem>-<sha12>')
    source_snapshot_id VARCHAR,          -- the OSM snapshot it was built from (NULL for KnowWhereGraph)
    path          VARCHAR NOT NULL,
    sha256        VARCHAR NOT NULL,
    bytes         BIGINT NOT NULL,
    build_report  JSON,
    run_id        VARCHAR,               -- Dagster run that built the file
    conversion_run_id VARCHAR            -- Dagster run that converted it into the entity tables
);
CREATE TABLE IF NOT EXISTS entities (
    entity_id     VARCHAR NOT NULL,
    kg            VARCHAR NOT NULL,
    iri           VARCHAR NOT NULL,
    name          VARCHAR NOT NULL,
    display_name  VARCHAR NOT NULL,
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
    snapshot_id   VARCHAR NOT NULL
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


def replace_partition(con: duckdb.DuckDBPyConnection, table: str, key_col: str, key: str, select_sql: str, params=None) -> int:
    """Atomically replace the rows of ``table`` where ``key_col = key`` by the rows of ``select_sql``.

    Runs in one transaction: an interrupted run leaves the previous partition intact. Returns the
    number of rows written.
    """
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(f"DELETE FROM {table} WHERE {key_col} = ?", [key])
        con.execute(f"INSERT INTO {table} {select_sql}", params or [])
        n = con.execute(f"SELECT count(*) FROM {table} WHERE {key_col} = ?", [key]).fetchone()[0]
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return int(n)
