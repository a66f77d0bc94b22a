"""Run one named job of the code location for one partition, in a process of its own, the way a
run worker launched by the UI runs it (``execute_job`` on the reconstructable job, the instance of
``$DAGSTER_HOME``).

    python tests/run_partition.py JOB PARTITION [ASSET ...]

ASSET names narrow the run to those assets of the job (as a UI launch of a subset does). The exit
status is 0 when the run succeeded. tests/test_concurrency.py starts several at once.
"""

from __future__ import annotations

import os
import sys

import dagster as dg
from dagster._core.definitions.reconstruct import ReconstructableRepository


def main(job: str, partition: str, *assets: str) -> int:
    repo = ReconstructableRepository.for_module(
        "mgqa_dagster.definitions", "defs", working_directory=os.getcwd()
    )
    with dg.DagsterInstance.get() as instance:
        result = dg.execute_job(
            repo.get_reconstructable_job(job),
            instance,
            tags={"dagster/partition": partition},
            asset_selection=[dg.AssetKey(a) for a in assets] or None,
            raise_on_error=False,
        )
        print(result.run_id)
        return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
