"""A Spark session for MGQA runs: UTC time zone, no UI, scratch folders under the run's scratch
dir."""

from __future__ import annotations

import os
import sys
from pathlib import Path

DEFAULT_MASTER = "local[2]"
#: The most rows one Spark task of a stage handles (a task's rows are held in memory when written).
ROWS_PER_PARTITION = 100_000


def spark_config(master: str, scratch_dir: str | Path) -> dict[str, str]:
    """The Spark configuration of an MGQA session on ``master`` (any Spark master URL), its local
    and warehouse folders under ``scratch_dir``. Python workers run this interpreter, so executors
    import the same ``mgqa_platform`` (on a cluster: the same environment on every node). Local
    mode shuffles the joins into 8 partitions; a cluster keeps its own
    ``spark.sql.shuffle.partitions`` (``spark-defaults.conf``), which sets the join parallelism only
    (the datasets' files do not depend on it)."""
    scratch = Path(scratch_dir).resolve() / "spark"
    utc = f"-Duser.timezone=UTC -Dderby.system.home={scratch / 'derby'}"
    conf = {
        "spark.master": master,
        "spark.app.name": "mgqa",
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.extraJavaOptions": utc,
        "spark.executor.extraJavaOptions": utc,
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.local.dir": str(scratch / "local"),
        "spark.sql.warehouse.dir": str(scratch / "warehouse"),
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
        "spark.sql.adaptive.enabled": "false",
        "spark.sql.execution.arrow.useLargeVarTypes": "false",
    }
    if master.startswith("local"):
        conf |= {
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.sql.shuffle.partitions": "8",
        }
    return conf


def local_session(master: str = DEFAULT_MASTER, scratch_dir: str | Path = "."):
    """A Spark session configured by :func:`spark_config` (created, or the running one reused)."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder
    for key, value in spark_config(master, scratch_dir).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def partition_count(rows: int, minimum: int, rows_per_partition: int = ROWS_PER_PARTITION) -> int:
    """The number of Spark partitions for a stage over ``rows`` rows: ``minimum``, or more so that
    no partition holds more than ``rows_per_partition`` rows (the work spreads over every core of
    a cluster and a task's memory stays bounded as the input grows)."""
    return max(minimum, -(-rows // rows_per_partition))


def spread_key(rows: int, column: str = "entity_id"):
    """A Spark column that spreads the rows of one partition value (an H3 cell, a country) over
    several write tasks: ``xxhash64(column)`` modulo one bucket per ``ROWS_PER_PARTITION`` rows
    of the stage (a single bucket for a small stage). Hashed with the partition value, it keeps a
    large cell or country from loading one task, and the same rows always go to the same task."""
    from pyspark.sql import functions as F

    return F.pmod(F.xxhash64(column), F.lit(partition_count(rows, 1)))
