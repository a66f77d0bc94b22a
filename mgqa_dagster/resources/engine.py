"""The engine of the heavy stages (the OSMH3KG build's per-feature work, KG conversion's
per-entity work, the strata join): DuckDB in
process (the default) or Apache Spark on any master URL (docs/spark.md).

With ``MGQA_ENGINE=duckdb`` nothing here imports pyspark. With ``spark`` the session comes from
``dagster_pyspark.PySparkResource`` configured by :func:`mgqa_platform.spark.session.spark_config`
(UTC, no UI, Spark's local folders under the scratch folder), created once per process.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Literal

import dagster as dg
import duckdb

from mgqa_dagster.resources.env import EnvConfigurableResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_platform.spark.session import DEFAULT_MASTER, spark_config
from mgqa_platform.strata import countries as countries_lib
from mgqa_platform.strata import strata as strata_lib


@functools.cache
def _session(master: str, scratch: str):
    """The Spark session of ``master`` (one per process), built by ``PySparkResource``."""
    from dagster_pyspark import PySparkResource

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # Python workers: this environment
    resource = PySparkResource(spark_config=spark_config(master, scratch))
    resource.setup_for_execution(dg.build_init_resource_context())
    return resource.spark_session


class EngineResource(EnvConfigurableResource):
    """``engine``: ``duckdb`` or ``spark``; ``spark_master``: the Spark master URL (``local[2]``:
    this machine, two cores; ``spark://host:7077``, ``yarn``, ``k8s://...`` for a cluster, whose
    nodes must reach ``$MGQA_HOME``). Spark writes its datasets under ``$MGQA_HOME/datasets``."""

    engine: Annotated[Literal["duckdb", "spark"], dg.EnvVar("MGQA_ENGINE")] = "duckdb"
    spark_master: Annotated[str, dg.EnvVar("MGQA_SPARK_MASTER")] = DEFAULT_MASTER
    paths: PathsResource

    @property
    def datasets_dir(self) -> Path:
        """The partitioned (Geo)Parquet datasets the Spark stages write."""
        return self.paths.home_path / "datasets"

    @property
    def is_spark(self) -> bool:
        return self.engine == "spark"

    def spark_session(self):
        """The Spark session (created on first use)."""
        return _session(self.spark_master, str(self.paths.scratch_dir))

    def conversion_stage(self) -> Callable[..., None] | None:
        """The ``accept`` argument of :func:`mgqa_platform.kg.convert.convert_kg`: None (in
        process) or the Spark stage."""
        if not self.is_spark:
            return None
        from mgqa_platform.spark.convert import SparkConversion

        return SparkConversion(self.spark_session(), self.datasets_dir)

    def osmh3kg_stage(self) -> Callable[..., Iterator] | None:
        """The ``stage`` argument of :func:`mgqa_platform.kg.osmh3kg_build.build_osmh3kg`: None
        (in process) or the Spark stage."""
        if not self.is_spark:
            return None
        from mgqa_platform.spark.osmh3kg import SparkOsmh3kg

        return SparkOsmh3kg(self.spark_session(), self.datasets_dir)

    def _strata(self):
        from mgqa_platform.spark.strata import SparkStrata

        return SparkStrata(self.spark_session(), self.datasets_dir, self.paths.scratch_dir)

    def assign_countries(
        self, con: duckdb.DuckDBPyConnection, max_distance_km: float, kg: str
    ) -> dict:
        """``entity_country`` of ``kg`` on the configured engine."""
        if self.is_spark:
            return self._strata().assign_countries(con, max_distance_km, kg)
        return countries_lib.assign_countries(con, max_distance_km, kg=kg)

    def assign_density(self, con: duckdb.DuckDBPyConnection, kg: str) -> dict[str, int]:
        """``entity_density`` of ``kg`` on the configured engine."""
        if self.is_spark:
            return self._strata().assign_density(con, kg)
        return strata_lib.assign_density(con, kg)

    def assign_strata(self, con: duckdb.DuckDBPyConnection, kg: str) -> dict[str, int]:
        """``entity_strata`` of ``kg`` on the configured engine."""
        if self.is_spark:
            return self._strata().assign_strata(con, kg)
        return strata_lib.assign_strata(con, kg)
