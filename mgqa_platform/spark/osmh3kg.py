"""The OSMH3KG build on Spark: the per-feature work of :mod:`mgqa_platform.kg.osmh3kg_build`.

Reading the PBF stays one sequential pass with pyosmium (:func:`osmh3kg_build.read_elements`, on the
driver); its rows, GDAL-like features (subject, kept tags, WKT) and the elements skipped while
reading, become the Parquet table ``<datasets>/osm_features/source=<name>/``. Spark then runs
:func:`osmh3kg_build.element_rows` (geometry parsing and repair, tag triples, the candidate H3 cells
and the exact DE-9IM test per cell) over it inside ``mapInArrow``, the very function the DuckDB
engine runs, and writes the records to ``<datasets>/osmh3kg_rows/source=<name>/``; the grid cells
(every cell a feature intersects) get their geometry and adjacency rows
(:func:`osmh3kg_build.cell_rows`, neighbours kept by a semi-join with the grid) in
``<datasets>/osmh3kg_cells/source=<name>/``. Files are named by the Spark task that wrote them,
rows sorted by (``seq``, ``pos``, ``object``). The driver reads both back in that order, the
``rdfs:subClassOf`` rows between them, and writes the one KG file as the DuckDB engine does.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mgqa_platform.kg import osmh3kg_build as build
from mgqa_platform.kg import vocab
from mgqa_platform.spark.convert import spark_ddl

FEATURES_DATASET = "osm_features"
ROWS_DATASET = "osmh3kg_rows"
CELLS_DATASET = "osmh3kg_cells"
WRITTEN_DDL = "path string, rows bigint"
_WRITTEN = pa.schema([("path", pa.string()), ("rows", pa.int64())])
SORT_KEYS = [("seq", "ascending"), ("pos", "ascending"), ("object", "ascending")]
READ_BATCH = 100_000


def rows_task(batches: Iterator[pa.RecordBatch], h3_res: int) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body: :data:`osmh3kg_build.ELEMENTS_ARROW` rows -> their records."""
    for batch in batches:
        elements = pa.Table.from_batches([batch]).cast(build.ELEMENTS_ARROW)
        yield from build.element_rows(elements, h3_res).to_batches()


def cells_task(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body: cells (column ``cell``) -> :func:`osmh3kg_build.cell_rows` with every
    neighbour (the grid is filtered by the caller)."""
    for batch in batches:
        yield from build.cell_rows(batch.column("cell").to_pylist()).to_batches()


def write_sorted_task(batches: Iterator[pa.RecordBatch], root: str) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body: the records of one Spark partition, sorted by :data:`SORT_KEYS`,
    written to ``<root>/part-<partition>.parquet`` (nothing for an empty partition); yields
    (path, rows)."""
    from pyspark import TaskContext

    received = [pa.Table.from_batches([b]).cast(build.ROWS_ARROW) for b in batches]
    table = pa.concat_tables(received) if received else build.ROWS_ARROW.empty_table()
    if table.num_rows == 0:
        yield pa.RecordBatch.from_pylist([], schema=_WRITTEN)
        return
    path = Path(root) / f"part-{TaskContext.get().partitionId():05d}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table.take(pc.sort_indices(table, SORT_KEYS)), path, compression="zstd")
    yield pa.RecordBatch.from_pylist([{"path": str(path), "rows": table.num_rows}], schema=_WRITTEN)


def write_features(elements: Iterator[pa.Table], folder: Path) -> int:
    """Write the element tables to ``<folder>/part-00000.parquet`` (one row group per table);
    returns the rows written."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    n = 0
    with pq.ParquetWriter(folder / "part-00000.parquet", build.ELEMENTS_ARROW) as w:
        for table in elements:
            w.write_table(table)
            n += table.num_rows
    return n


def ordered(folder: Path, batch: int = READ_BATCH) -> Iterator[pa.Table]:
    """The records of the dataset ``folder`` in :data:`SORT_KEYS` order,
    read by DuckDB in tables of at most ``batch`` rows (its sort spills to disk when it must)."""
    files = sorted(folder.glob("*.parquet"))
    if not files:
        return
    con = duckdb.connect()
    try:
        glob = str(folder / "*.parquet").replace("'", "''")
        reader = con.execute(
            f"""
            SELECT {", ".join(build.ROWS_ARROW.names)}
            FROM read_parquet('{glob}', hive_partitioning = false)
            ORDER BY seq, pos, object
            """
        ).fetch_record_batch(batch)
        for b in reader:
            yield pa.Table.from_batches([b]).cast(build.ROWS_ARROW)
    finally:
        con.close()


def classes_used(folder: Path) -> list[tuple[str, str]]:
    """The (value, key) pairs of the ``class`` records of the dataset ``folder``, sorted."""
    if not any(folder.glob("*.parquet")):
        return []
    glob = str(folder / "*.parquet").replace("'", "''")
    with duckdb.connect() as con:
        return con.execute(
            f"""
            SELECT DISTINCT subject, object
            FROM read_parquet('{glob}', hive_partitioning = false)
            WHERE record = '{build.CLASS}'
            ORDER BY 1, 2
            """
        ).fetchall()


@dataclass
class SparkOsmh3kg:
    """The ``stage`` of :func:`mgqa_platform.kg.osmh3kg_build.build_osmh3kg` on Spark: the rows
    of :func:`osmh3kg_build.in_process_rows`, computed by ``spark`` through the datasets under
    ``datasets`` (a folder every executor can reach)."""

    spark: object
    datasets: Path
    partitions: int = 8

    def folder(self, dataset: str, name: str) -> Path:
        """``<datasets>/<dataset>/source=<name>``."""
        return Path(self.datasets) / dataset / f"source={name}"

    def __call__(self, elements: Iterator[pa.Table], h3_res: int, name: str) -> Iterator[pa.Table]:
        features = self.folder(FEATURES_DATASET, name)
        rows, cells = self.folder(ROWS_DATASET, name), self.folder(CELLS_DATASET, name)
        write_features(elements, features)
        for folder in (rows, cells):
            shutil.rmtree(folder, ignore_errors=True)
        ddl = spark_ddl(build.ROWS_ARROW)
        write = functools.partial(write_sorted_task, root=str(rows))
        (
            self.spark.read.parquet(str(features))
            .repartition(self.partitions, "seq")
            .mapInArrow(functools.partial(rows_task, h3_res=h3_res), ddl)
            .mapInArrow(write, WRITTEN_DDL)
            .collect()
        )
        if rows.is_dir():
            self._cells(rows, cells)
        return self._read(rows, cells)

    def _cells(self, rows: Path, cells: Path) -> None:
        """The grid (the subjects of ``geo:sfIntersects`` rows) and its cell rows, adjacency kept
        between grid cells only, written to ``cells``."""
        grid = (
            self.spark.read.parquet(str(rows))
            .where(f"record = '{build.TRIPLE}' AND predicate = '{vocab.OSMH3_SF_INTERSECTS}'")
            .selectExpr("subject AS cell")
            .distinct()
        )
        candidates = grid.repartition(self.partitions, "cell").mapInArrow(
            cells_task, spark_ddl(build.ROWS_ARROW)
        )
        adjacent = candidates.where(f"predicate = '{vocab.OSMH3_ADJACENT}'").join(
            grid.withColumnRenamed("cell", "object"), "object", "left_semi"
        )
        (
            candidates.where(f"predicate <> '{vocab.OSMH3_ADJACENT}'")
            .unionByName(adjacent)
            .repartition(self.partitions, "seq")
            .mapInArrow(functools.partial(write_sorted_task, root=str(cells)), WRITTEN_DDL)
            .collect()
        )

    def _read(self, rows: Path, cells: Path) -> Iterator[pa.Table]:
        """The records in the order of :func:`osmh3kg_build.in_process_rows`."""
        yield from ordered(rows)
        yield build.class_rows(classes_used(rows))
        yield from ordered(cells)
