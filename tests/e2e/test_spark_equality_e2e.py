"""End to end, the two engines: the bundled sample's strata inputs and KGs built with
``MGQA_ENGINE=spark`` (local mode, 2 cores) have the KG files and the tables of the shared DuckDB
build, byte for byte and row for row.

Only the two jobs that take the engine run on Spark (`mgqa build --job build_strata_inputs
build_kgs`): every later asset reads their tables and files whichever engine wrote them
(tests/test_definitions.py, ``test_only_the_first_two_jobs_take_the_engine``), so the equal tables
and files below give the shared build's release, whose checksums tests/e2e/test_e2e_release.py
pins. Skipped where no ``java`` is on the PATH (Spark needs a JVM; CI installs one, .ci/run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import build_once, engine_record, shared_root

pytestmark = [pytest.mark.e2e, pytest.mark.requires_tool("java")]  # Spark needs a JVM
#: The jobs whose assets take the engine, in build order.
ENGINE_JOBS = ("build_strata_inputs", "build_kgs")


@pytest.fixture(scope="session")
def spark_built(tmp_path_factory) -> Path:
    """MGQA_HOME of `mgqa build --job` :data:`ENGINE_JOBS` on the sample with the Spark engine,
    one per run (:func:`build_once`)."""
    env = {"MGQA_ENGINE": "spark", "MGQA_SPARK_MASTER": "local[2]"}
    args = ["--job", *ENGINE_JOBS]
    return build_once(shared_root(tmp_path_factory), "mgqa-home-spark", args, env)


def test_spark_builds_the_engine_jobs(spark_built):
    """The Spark build's own datasets: the features and cells of the OSMH3KG build, the accepted
    entities of each KG and the strata joins."""
    datasets = spark_built / "datasets"
    assert sorted(p.name for p in datasets.iterdir()) == [
        "entities_accepted",
        "entity_country",
        "entity_density",
        "entity_strata",
        "osm_features",
        "osmh3kg_cells",
        "osmh3kg_rows",
    ]
    kgs = {p.name for p in (datasets / "entities_accepted").iterdir()}
    assert kgs == {"kg=kwg", "kg=osmh3kg", "kg=worldkg"}


def test_spark_build_equals_the_duckdb_build(spark_built, build_record):
    spark = engine_record(spark_built)
    assert spark["kg_files"] == build_record["kg_files"]
    assert {p.split("/")[0] for p in spark["kg_files"]} == {"kwg", "osmh3kg", "worldkg"}
    for table, digest in build_record["tables"].items():
        assert spark["tables"][table] == digest, table
    entities = spark["tables"]["entities"][0]
    assert entities > 0 and spark["tables"]["entity_strata"][0] == entities
