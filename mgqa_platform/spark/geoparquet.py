"""Partitioned GeoParquet datasets: the outputs of the Spark stages, read by DuckDB as views.

A dataset is a folder of Hive partitions (``<root>/kg=<kg>/<key>=<value>/part-<task>.parquet``).
Each file carries the GeoParquet ``geo`` metadata for its WKB geometry column (EPSG:4326 lon/lat,
the GeoParquet default CRS, so no ``crs`` member), its geometry types and bounding box. Rows in a
file are sorted by the dataset's sort key, and a file is named by the Spark task that wrote it, so
the same input and partitioning give the same files.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import shapely

GEOPARQUET_VERSION = "1.1.0"
NULL_PARTITION = "none"
WRITTEN_DDL = "path string, rows bigint"
_WRITTEN = pa.schema([("path", pa.string()), ("rows", pa.int64())])
_GEOMETRY_TYPES = {
    0: "Point",
    1: "LineString",
    3: "Polygon",
    4: "MultiPoint",
    5: "MultiLineString",
    6: "MultiPolygon",
    7: "GeometryCollection",
}


def geo_metadata(table: pa.Table, column: str) -> dict:
    """The GeoParquet ``geo`` metadata of ``table`` whose ``column`` holds WKB geometries."""
    wkb = [v for v in table.column(column).to_pylist() if v is not None]
    geoms = shapely.from_wkb(np.array(wkb, dtype=object)) if wkb else np.array([])
    types = sorted({_GEOMETRY_TYPES[t] for t in shapely.get_type_id(geoms)}) if wkb else []
    meta = {"encoding": "WKB", "geometry_types": types}
    if wkb:
        b = shapely.bounds(geoms)
        meta["bbox"] = [
            float(b[:, 0].min()),
            float(b[:, 1].min()),
            float(b[:, 2].max()),
            float(b[:, 3].max()),
        ]
    return {"version": GEOPARQUET_VERSION, "primary_column": column, "columns": {column: meta}}


def write_file(table: pa.Table, path: Path, geometry_column: str | None) -> None:
    """Write ``table`` to ``path`` (folders created), with ``geo`` metadata when it has geometry."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if geometry_column is not None:
        geo = json.dumps(geo_metadata(table, geometry_column), sort_keys=True).encode()
        table = table.replace_schema_metadata({b"geo": geo})
    pq.write_table(table, path, compression="zstd")


def write_partitions(
    table: pa.Table,
    root: Path,
    partition_by: tuple[str, ...],
    sort_by: str,
    file_name: str,
    geometry_column: str | None,
) -> list[tuple[str, int]]:
    """Write the rows of ``table`` as one file ``file_name`` per distinct value of the
    ``partition_by`` columns (dropped from the file: the folder names hold them), rows sorted by
    ``sort_by``. Returns (path, rows) per file written."""
    if table.num_rows == 0:
        return []
    keys = pa.table({c: pc.fill_null(table.column(c), NULL_PARTITION) for c in partition_by})
    groups = keys.group_by(list(partition_by)).aggregate([]).to_pylist()
    written = []
    for group in sorted(groups, key=lambda g: tuple(g.values())):
        mask = None
        for c, v in group.items():
            m = pc.equal(keys.column(c), v)
            mask = m if mask is None else pc.and_(mask, m)
        part = table.filter(mask).drop_columns(list(partition_by))
        part = part.take(pc.sort_indices(part, [(sort_by, "ascending")]))
        folder = root.joinpath(*(f"{c}={v}" for c, v in group.items()))
        write_file(part, folder / file_name, geometry_column)
        written.append((str(folder / file_name), part.num_rows))
    return written


def write_task(
    batches: Iterator[pa.RecordBatch],
    root: str,
    schema: pa.Schema,
    partition_by: tuple[str, ...],
    sort_by: str,
    geometry_column: str | None,
) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body: the rows of one Spark partition (cast to ``schema``) written by
    :func:`write_partitions` into files named by the task; yields (path, rows) per file
    (:data:`WRITTEN_DDL`)."""
    from pyspark import TaskContext

    received = list(batches)
    table = pa.Table.from_batches(received).cast(schema) if received else schema.empty_table()
    name = f"part-{TaskContext.get().partitionId():05d}.parquet"
    written = write_partitions(table, Path(root), partition_by, sort_by, name, geometry_column)
    yield pa.RecordBatch.from_pylist([{"path": p, "rows": n} for p, n in written], schema=_WRITTEN)


def clear_partition(root: Path, key: str, value: str) -> None:
    """Remove the partition ``<root>/<key>=<value>`` (a rewrite replaces it whole)."""
    shutil.rmtree(root / f"{key}={value}", ignore_errors=True)


def files(root: Path, key: str | None = None, value: str | None = None) -> list[Path]:
    """The Parquet files of the dataset at ``root``, or of its partition ``key=value``, sorted."""
    base = root / f"{key}={value}" if key is not None else root
    return sorted(base.rglob("*.parquet")) if base.is_dir() else []


def read_sql(root: Path, hive_types: dict[str, str]) -> str:
    """A DuckDB table expression over the dataset at ``root``: its files with the Hive partition
    columns typed by ``hive_types`` (column -> DuckDB type)."""
    glob = str(root / "**" / "*.parquet").replace("'", "''")
    types = ", ".join(f"'{c}': {t}" for c, t in hive_types.items())
    return f"read_parquet('{glob}', hive_partitioning = true, hive_types = {{{types}}})"


def register_view(
    con: duckdb.DuckDBPyConnection, name: str, root: Path, hive_types: dict[str, str]
) -> None:
    """Create or replace the TEMP view ``name`` over the dataset at ``root`` (:func:`read_sql`)."""
    con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM {read_sql(root, hive_types)}")
