"""End to end, the two engines: the bundled sample built with ``MGQA_ENGINE=spark`` (local mode,
2 cores) has the entity rows, the strata rows and the release checksums of the shared DuckDB build.
Skipped where no ``java`` is on the PATH (Spark needs a JVM; CI installs one, .ci/run)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mgqa_platform import warehouse
from tests.e2e.conftest import BUILD_TIMEOUT_S, home_env, run

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.requires_tool("java"),  # Spark needs a JVM
]

#: A content hash over the sorted rows of a table (every column; geometry as hex WKB) and the count.
TABLE_DIGEST = """
    SELECT count(*), md5(string_agg(row, '|' ORDER BY row))
    FROM (SELECT CAST(t AS VARCHAR) AS row FROM ({select}) t)
"""
TABLES = {
    "entities": "SELECT * EXCLUDE (geometry), ST_AsHEXWKB(geometry) AS wkb FROM entities",
    "entity_labels": "SELECT * FROM entity_labels",
    "entity_country": "SELECT * FROM entity_country",
    "entity_density": "SELECT * FROM entity_density",
    "entity_strata": "SELECT * FROM entity_strata",
}


def digests(home: Path) -> dict[str, tuple]:
    """:data:`TABLE_DIGEST` of every table of :data:`TABLES` in the warehouse of ``home``."""
    with warehouse.session(home / "warehouse.duckdb", read_only=True) as con:
        return {
            name: con.execute(TABLE_DIGEST.format(select=select)).fetchone()
            for name, select in TABLES.items()
        }


@pytest.fixture(scope="module")
def spark_built(tmp_path_factory) -> Path:
    """MGQA_HOME of one `mgqa build` of the sample with the Spark engine."""
    home = tmp_path_factory.mktemp("mgqa-home-spark")
    env = home_env(home, MGQA_ENGINE="spark", MGQA_SPARK_MASTER="local[2]")
    proc = run([sys.executable, "-m", "mgqa_dagster.cli", "build"], env, timeout=BUILD_TIMEOUT_S)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return home


def test_spark_build_equals_the_duckdb_build(built, spark_built):
    spark = digests(spark_built)
    assert spark == digests(built)
    assert spark["entities"][0] > 0 and spark["entity_strata"][0] == spark["entities"][0]
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
    # the OSMH3KG file built from the PBF on Spark is the DuckDB engine's, byte for byte
    kg_files = {
        home: {p.name: p.read_bytes() for p in (home / "kg" / "osmh3kg").glob("*.parquet")}
        for home in (built, spark_built)
    }
    assert kg_files[spark_built] and kg_files[spark_built] == kg_files[built]
    kgs = {p.name for p in (datasets / "entities_accepted").iterdir()}
    assert kgs == {"kg=kwg", "kg=osmh3kg", "kg=worldkg"}
    sums = (spark_built / "release" / "SHA256SUMS").read_bytes()
    assert sums == (built / "release" / "SHA256SUMS").read_bytes()
