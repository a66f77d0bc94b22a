"""The strata join on Spark: entity -> country, density tier, income tier (``entity_country``,
``entity_density``, ``entity_strata`` of one KG).

DuckDB exports each stage's inputs (the KG's entities, the country polygons, the density cells) to
Parquet; Spark computes the rows (point in polygon and the nearest country with the functions of
:mod:`mgqa_platform.strata.countries` inside ``mapInArrow``; the density and strata joins in Spark
SQL, the same expressions as :mod:`mgqa_platform.strata.strata`) and writes the Parquet datasets
``<datasets>/<table>`` partitioned by ``kg=`` and ``country=`` (iso3, ``none`` when unassigned);
DuckDB reads each as the view ``spark_<table>`` and publishes the KG's rows from it.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import shapely

from mgqa_platform.spark import geoparquet
from mgqa_platform.spark.session import partition_count, spread_key
from mgqa_platform.strata import countries as countries_lib
from mgqa_platform.strata import strata as strata_lib
from mgqa_platform.warehouse import replace_partition, transaction

HIVE_TYPES = {"kg": "VARCHAR", "country": "VARCHAR"}
#: ``entity_country`` rows plus their partition column ``country``.
COUNTRY_ARROW = countries_lib.ENTITY_COUNTRY_ARROW.append(pa.field("country", pa.string()))
COUNTRY_DDL = (
    "entity_id string, kg string, iso3 string, method string, distance_km double, "
    "reason string, country string"
)

DENSITY_SQL = """
SELECT e.entity_id, e.kg, e.h3_r3 AS h3, d.density, d.tier AS density_tier,
    CASE WHEN d.h3 IS NULL THEN 'no valid population pixels in H3 cell ' || e.h3_r3 END AS reason,
    coalesce(c.iso3, 'none') AS country
FROM ents e
LEFT JOIN cells d ON d.h3 = e.h3_r3
LEFT JOIN entity_country c ON c.entity_id = e.entity_id
"""
STRATA_SQL = """
SELECT e.entity_id, e.kg, ec.iso3, c.income_tier, ed.density_tier, ed.density,
    CASE WHEN c.income_tier IS NOT NULL AND ed.density_tier IS NOT NULL
         THEN c.income_tier || '/' || ed.density_tier END AS stratum,
    nullif(concat_ws('; ',
        CASE WHEN ec.iso3 IS NULL THEN coalesce(ec.reason, 'no country assignment') END,
        CASE WHEN ec.iso3 IS NOT NULL AND c.income_tier IS NULL
             THEN coalesce(c.income_note, 'no income tier') END,
        CASE WHEN ed.density_tier IS NULL THEN coalesce(ed.reason, 'no density tier') END), '')
        AS reason,
    coalesce(ec.iso3, 'none') AS country
FROM ents e
LEFT JOIN entity_country ec ON ec.entity_id = e.entity_id
LEFT JOIN countries c ON c.iso3 = ec.iso3
LEFT JOIN entity_density ed ON ed.entity_id = e.entity_id
"""
_COLUMNS = {
    "entity_country": "entity_id, kg, iso3, method, distance_km, reason",
    "entity_density": "entity_id, kg, h3, density, density_tier, reason",
    "entity_strata": "entity_id, kg, iso3, income_tier, density_tier, density, stratum, reason",
}


def country_batches(
    batches: Iterator[pa.RecordBatch], countries: list[tuple[str, bytes]], max_distance_km: float
) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body: points (entity_id, kg, lon, lat) -> ``entity_country`` rows. A point
    intersecting a country polygon is ``'within'`` its smallest iso3; any other goes to
    :func:`countries_lib.nearest_country` and :func:`countries_lib.outside_assignment`."""
    index = countries_lib.build_country_index(
        [c[0] for c in countries], [shapely.from_wkb(c[1]) for c in countries]
    )
    for batch in batches:
        pts = batch.to_pydict()
        points = shapely.points(np.array(pts["lon"]), np.array(pts["lat"]))
        hits, polys = index.tree.query(points, predicate="intersects")
        inside: dict[int, str] = {}
        for i, j in zip(hits.tolist(), polys.tolist(), strict=True):
            iso3 = index.iso3[j]
            inside[i] = min(inside.get(i, iso3), iso3)
        rows = []
        for i, (eid, kg) in enumerate(zip(pts["entity_id"], pts["kg"], strict=True)):
            if i in inside:
                row = {"iso3": inside[i], "method": "within", "distance_km": 0.0, "reason": None}
            else:
                near = countries_lib.nearest_country(index, pts["lon"][i], pts["lat"][i])
                row = countries_lib.outside_assignment(near, max_distance_km)
            rows.append({"entity_id": eid, "kg": kg, **row, "country": row["iso3"] or "none"})
        yield from pa.Table.from_pylist(rows, schema=COUNTRY_ARROW).to_batches()


@dataclass
class SparkStrata:
    """The three per-KG strata stages on ``spark``, datasets under ``datasets``, exported inputs
    in a temporary folder under ``scratch_dir``. Each stage runs over ``partitions`` Spark
    partitions, more for a large KG (:func:`mgqa_platform.spark.session.partition_count`)."""

    spark: object
    datasets: Path
    scratch_dir: Path
    partitions: int = 8

    def _export(
        self, con: duckdb.DuckDBPyConnection, folder: Path, name: str, sql: str, params
    ) -> int:
        """Export the rows of ``sql`` to ``<folder>/<name>.parquet``, registered in Spark as the
        temporary view ``name``; returns the number of rows."""
        path = folder / f"{name}.parquet"
        (n_rows,) = con.execute(f"COPY ({sql}) TO '{path}' (FORMAT parquet)", params).fetchone()
        self.spark.read.parquet(str(path)).createOrReplaceTempView(name)
        return n_rows

    def _write(self, df, table: str, kg: str, rows: int) -> None:
        """Write ``df`` (the columns of ``table`` plus ``country``, ``rows`` rows) as the KG's
        partition of the dataset ``table``, hash-partitioned by ``country`` and
        :func:`mgqa_platform.spark.session.spread_key` (a large country spans several tasks, one
        file each)."""
        root = Path(self.datasets) / table
        geoparquet.clear_partition(root, "kg", kg)
        schema = pa.schema(
            [
                pa.field(f.name, pa.float64() if f.dataType.typeName() == "double" else pa.string())
                for f in df.schema.fields
            ]
        )
        partitions = partition_count(rows, self.partitions)
        df.repartition(partitions, "country", spread_key(rows)).mapInArrow(
            functools.partial(
                geoparquet.write_task,
                root=str(root),
                schema=schema,
                partition_by=("kg", "country"),
                sort_by="entity_id",
                geometry_column=None,
            ),
            geoparquet.WRITTEN_DDL,
        ).collect()

    def _publish(self, con: duckdb.DuckDBPyConnection, table: str, kg: str) -> None:
        """Replace the rows of ``kg`` in ``table`` by those of its dataset (view
        ``spark_<table>``)."""
        root = Path(self.datasets) / table
        select = f"SELECT {_COLUMNS[table]} FROM spark_{table} WHERE kg = ? ORDER BY entity_id"
        if geoparquet.files(root, "kg", kg):
            geoparquet.register_view(con, f"spark_{table}", root, HIVE_TYPES)
            replace_partition(con, table, "kg", kg, select, [kg])
        else:
            with transaction(con):
                con.execute(f"DELETE FROM {table} WHERE kg = ?", [kg])

    def _folder(self) -> tempfile.TemporaryDirectory:
        Path(self.scratch_dir).mkdir(parents=True, exist_ok=True)
        return tempfile.TemporaryDirectory(prefix="mgqa-spark-strata-", dir=self.scratch_dir)

    def assign_countries(
        self, con: duckdb.DuckDBPyConnection, max_distance_km: float, kg: str
    ) -> dict:
        """:func:`mgqa_platform.strata.countries.assign_countries` of one KG, on Spark."""
        if con.execute("SELECT count(*) FROM countries").fetchone()[0] == 0:
            raise ValueError("the countries table is empty: run write_countries first")
        polygons = [
            (iso3, bytes(wkb))
            for iso3, wkb in con.execute(
                "SELECT iso3, ST_AsWKB(geometry) FROM countries ORDER BY iso3"
            ).fetchall()
        ]
        with self._folder() as tmp:
            sql = "SELECT entity_id, kg, lon, lat FROM entities WHERE kg = ? ORDER BY entity_id"
            n_points = self._export(con, Path(tmp), "points", sql, [kg])
            rows = (
                self.spark.table("points")
                .repartition(partition_count(n_points, self.partitions))
                .mapInArrow(
                    functools.partial(
                        country_batches, countries=polygons, max_distance_km=max_distance_km
                    ),
                    COUNTRY_DDL,
                )
            )
            self._write(rows, "entity_country", kg, n_points)
        self._publish(con, "entity_country", kg)
        n_rows, n_entities = con.execute(
            """
            SELECT
                (SELECT count(*) FROM entity_country WHERE kg = $kg),
                (SELECT count(*) FROM entities WHERE kg = $kg)
            """,
            {"kg": kg},
        ).fetchone()
        if n_rows != n_entities:
            raise RuntimeError(f"entity_country has {n_rows} rows for {n_entities} entities")
        return countries_lib.country_summary(con, kg)

    def assign_density(self, con: duckdb.DuckDBPyConnection, kg: str) -> dict[str, int]:
        """:func:`mgqa_platform.strata.strata.assign_density` of one KG, on Spark."""
        with self._folder() as tmp:
            ents = "SELECT entity_id, kg, h3[1] AS h3_r3 FROM entities WHERE kg = ?"
            n_ents = self._export(con, Path(tmp), "ents", ents, [kg])
            self._export(con, Path(tmp), "cells", "SELECT h3, density, tier FROM density_cells", [])
            sql = "SELECT entity_id, iso3 FROM entity_country WHERE kg = ?"
            self._export(con, Path(tmp), "entity_country", sql, [kg])
            self._write(self.spark.sql(DENSITY_SQL), "entity_density", kg, n_ents)
        self._publish(con, "entity_density", kg)
        return strata_lib.density_counts(con, kg)

    def assign_strata(self, con: duckdb.DuckDBPyConnection, kg: str) -> dict[str, int]:
        """:func:`mgqa_platform.strata.strata.assign_strata` of one KG, on Spark."""
        with self._folder() as tmp:
            folder = Path(tmp)
            sql = "SELECT entity_id, kg FROM entities WHERE kg = ?"
            n_ents = self._export(con, folder, "ents", sql, [kg])
            sql = "SELECT entity_id, iso3, reason FROM entity_country WHERE kg = ?"
            self._export(con, folder, "entity_country", sql, [kg])
            sql = "SELECT entity_id, density_tier, density, reason FROM entity_density WHERE kg = ?"
            self._export(con, folder, "entity_density", sql, [kg])
            sql = "SELECT iso3, income_tier, income_note FROM countries"
            self._export(con, folder, "countries", sql, [])
            self._write(self.spark.sql(STRATA_SQL), "entity_strata", kg, n_ents)
        self._publish(con, "entity_strata", kg)
        return strata_lib.strata_counts(con, kg)
