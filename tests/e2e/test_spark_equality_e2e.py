"""End to end, the two engines: the bundled sample's strata inputs and KGs built with
``MGQA_ENGINE=spark`` (local mode, 2 cores) have the KG files and the tables of the shared DuckDB
build, byte for byte and row for row.

Only the two jobs that take the engine run on Spark (`mgqa build --job build_strata_inputs
build_kgs`): every later asset reads their tables and files whichever engine wrote them
(tests/test_definitions.py, ``test_only_the_first_two_jobs_take_the_engine``), so the equal tables
and files below give the shared build's release, whose checksums tests/e2e/test_e2e_release.py
pins. Skipped where no ``java`` is on the PATH (Spark needs a JVM; CI installs one, .ci/run)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import SPARK_E2E_GROUP
from tests.e2e.conftest import BUILD_TIMEOUT_S, engine_record, home_env, run

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.requires_tool("java"),  # Spark needs a JVM
    pytest.mark.xdist_group(SPARK_E2E_GROUP),
]
#: The jobs whose assets take the engine, in build order.
ENGINE_JOBS = ("build_strata_inputs", "build_kgs")


@pytest.fixture(scope="module")
def spark_built(tmp_path_factory) -> Path:
    """MGQA_HOME of `mgqa build --job` :data:`ENGINE_JOBS` on the sample with the Spark engine."""
    home = tmp_path_factory.mktemp("mgqa-home-spark")
    env = home_env(home, MGQA_ENGINE="spark", MGQA_SPARK_MASTER="local[2]")
    args = [sys.executable, "-m", "mgqa_dagster.cli", "build", "--job", *ENGINE_JOBS]
    proc = run(args, env, timeout=BUILD_TIMEOUT_S)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return home


def test_spark_build_equals_the_duckdb_build(spark_built, build_record):
    spark = engine_record(spark_built)
    assert spark["kg_files"] == build_record["kg_files"]
    for table, digest in build_record["tables"].items():
        assert spark["tables"][table] == digest, table
    entities = spark["tables"]["entities"][0]
    assert entities > 0 and spark["tables"]["entity_strata"][0] == entities
    assert {p.split("/")[0] for p in spark["kg_files"]} == {"kwg", "osmh3kg", "worldkg"}
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
