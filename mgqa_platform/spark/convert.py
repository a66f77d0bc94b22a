"""KG conversion on Spark: the per-entity stage of :func:`mgqa_platform.kg.convert.convert_kg`.

DuckDB pivots the staged triples into wide rows (one per subject) and writes them to Parquet; Spark
runs :func:`mgqa_platform.kg.convert._build_batch` (rejections, geometry repair, representative
point, H3 cells, attributes JSON) over those rows inside ``mapInArrow``, the very function the
in-process engine runs, so both engines give the same rows. The accepted entities become the
partitioned GeoParquet dataset ``<datasets>/entities_accepted`` (``kg=`` / ``h3_r0=``, the
resolution-0 H3 cell of the representative point); DuckDB reads it as the view
``spark_entities_accepted`` and the conversion goes on from there (duplicate ids, whole features,
names, the audited publish).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import h3
import pyarrow as pa
import pyarrow.parquet as pq

from mgqa_platform.kg import convert as kg_convert
from mgqa_platform.spark import geoparquet
from mgqa_platform.spark.session import partition_count, spread_key
from mgqa_platform.warehouse import registered

ENTITIES_DATASET = "entities_accepted"
ENTITIES_VIEW = "spark_entities_accepted"
HIVE_TYPES = {"kg": "VARCHAR", "h3_r0": "VARCHAR"}
_Q_COLUMNS = [f"q_{name}" for name in kg_convert.QUARANTINE_ARROW.names]
BUILT_ARROW = pa.schema(
    [
        *kg_convert.ENTITY_ARROW,
        pa.field("kg", pa.string()),
        pa.field("h3_r0", pa.string()),
        *(pa.field(c, pa.string()) for c in _Q_COLUMNS),
    ]
)
_SPARK_TYPES = {
    pa.string(): "string",
    pa.binary(): "binary",
    pa.float64(): "double",
    pa.int64(): "bigint",
    pa.list_(pa.string()): "array<string>",
}


def spark_ddl(schema: pa.Schema) -> str:
    """The Spark DDL schema string of an Arrow schema (the types used here only)."""
    return ", ".join(f"`{f.name}` {_SPARK_TYPES[f.type]}" for f in schema)


def h3_r0(cells: list[str] | None) -> str | None:
    """The resolution-0 H3 cell above the first (coarsest) cell of an entity's ``h3`` list."""
    return h3.cell_to_parent(cells[0], 0) if cells and cells[0] else None


def built_rows(entities: pa.Table, quarantine: list[dict], kg: str) -> pa.Table:
    """One table of :data:`BUILT_ARROW`: the entity rows (with ``kg`` and ``h3_r0``) and the
    quarantine rows (``q_*`` columns, the entity columns null)."""
    ents = entities.append_column("kg", pa.array([kg] * entities.num_rows, pa.string()))
    ents = ents.append_column(
        "h3_r0", pa.array([h3_r0(c) for c in entities.column("h3").to_pylist()], pa.string())
    )
    for c in _Q_COLUMNS:
        ents = ents.append_column(c, pa.nulls(entities.num_rows, pa.string()))
    rows = [{"kg": kg, **{f"q_{k}": v for k, v in q.items()}} for q in quarantine]
    return pa.concat_tables(
        [ents.cast(BUILT_ARROW), pa.Table.from_pylist(rows, schema=BUILT_ARROW)]
    )


def build_batches(
    batches: Iterator[pa.RecordBatch], wide_schema: pa.Schema, kg: str
) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body: wide rows -> :data:`BUILT_ARROW` rows via ``_build_batch``."""
    for batch in batches:
        quarantine: list[dict] = []
        rows = pa.Table.from_batches([batch]).cast(wide_schema)
        entities = kg_convert._build_batch(rows, quarantine)
        yield from built_rows(entities, quarantine, kg).to_batches()


@dataclass
class SparkConversion:
    """The ``accept`` stage of :func:`mgqa_platform.kg.convert.convert_kg` on Spark: build
    ``new_entities`` from the wide rows of ``wide_sql`` through the GeoParquet dataset under
    ``datasets`` (a folder every executor can reach: local disk in local mode, a shared or
    mounted path on a cluster). The wide rows are spread round-robin over ``partitions`` Spark
    partitions, more for a large KG (:func:`mgqa_platform.spark.session.partition_count`), and
    the accepted rows are hash-partitioned by ``h3_r0`` and
    :func:`mgqa_platform.spark.session.spread_key` over as many before they are written: a large
    cell spans several tasks (one file each) instead of loading one."""

    spark: object
    datasets: Path
    partitions: int = 8

    @property
    def root(self) -> Path:
        return Path(self.datasets) / ENTITIES_DATASET

    def __call__(
        self,
        con: duckdb.DuckDBPyConnection,
        wide_sql: str,
        kg: str,
        scratch: Path,
        quarantine: list,
    ) -> None:
        wide = scratch / "wide.parquet"
        (n_rows,) = con.execute(
            f"COPY ({wide_sql} ORDER BY s) TO '{wide}' "
            f"(FORMAT parquet, ROW_GROUP_SIZE {kg_convert.BATCH_ROWS})"
        ).fetchone()
        partitions = partition_count(n_rows, self.partitions)
        built = scratch / "built"
        (
            self.spark.read.parquet(str(wide))
            .repartition(partitions)
            .mapInArrow(
                functools.partial(build_batches, wide_schema=pq.read_schema(wide), kg=kg),
                spark_ddl(BUILT_ARROW),
            )
            .write.mode("overwrite")
            .parquet(str(built))
        )
        geoparquet.clear_partition(self.root, "kg", kg)
        schema = pa.schema([f for f in BUILT_ARROW if f.name not in _Q_COLUMNS])
        (
            self.spark.read.parquet(str(built))
            .where("q_reason IS NULL")
            .drop(*_Q_COLUMNS)
            .repartition(partitions, "h3_r0", spread_key(n_rows))
            .mapInArrow(
                functools.partial(
                    geoparquet.write_task,
                    root=str(self.root),
                    schema=schema,
                    partition_by=("kg", "h3_r0"),
                    sort_by="entity_id",
                    geometry_column="wkb",
                ),
                geoparquet.WRITTEN_DDL,
            )
            .collect()
        )
        for row in con.execute(
            f"""
            SELECT {", ".join(_Q_COLUMNS)}
            FROM read_parquet('{built}/*.parquet')
            WHERE q_reason IS NOT NULL
            ORDER BY ALL
            """
        ).fetchall():
            quarantine.append(dict(zip(kg_convert.QUARANTINE_ARROW.names, row, strict=True)))
        publish_view(con, self.root, kg)


def publish_view(con: duckdb.DuckDBPyConnection, root: Path, kg: str) -> None:
    """The view :data:`ENTITIES_VIEW` over the dataset at ``root`` and the TEMP table
    ``new_entities`` (:data:`mgqa_platform.kg.convert.ENTITY_ARROW`) of ``kg`` read from it."""
    if not geoparquet.files(root, "kg", kg):
        with registered(con, _no_entities=kg_convert.ENTITY_ARROW.empty_table()):
            con.execute("CREATE OR REPLACE TEMP TABLE new_entities AS SELECT * FROM _no_entities")
        return
    geoparquet.register_view(con, ENTITIES_VIEW, root, HIVE_TYPES)
    # DuckDB reads a GeoParquet geometry column as GEOMETRY: back to its WKB bytes
    columns = ", ".join(
        "ST_AsWKB(wkb)::BLOB AS wkb" if c == "wkb" else c for c in kg_convert.ENTITY_ARROW.names
    )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE new_entities AS
        SELECT {columns}
        FROM {ENTITIES_VIEW}
        WHERE kg = ?
        """,
        [kg],
    )
