"""Materialize one asset selection of the code location for one partition, in a process of its own.

    python tests/e2e/materialize.py SELECTION PARTITION

SELECTION names a selection of ``mgqa_dagster.definitions`` (``PER_KG``, ``MULTILINGUAL``,
``LANGUAGE`` ...). Resources come from the environment as in `mgqa build` (MGQA_HOME,
MGQA_TRANSLATION_MEMORY ...). The last line of stdout is JSON:
``{"success": bool, "checks": {check name: passed}}``. The e2e tests run it so that every write to
the warehouse happens outside the test process.
"""

from __future__ import annotations

import json
import sys

import dagster as dg

from mgqa_dagster import definitions

QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def main(selection: str, partition: str) -> int:
    result = dg.materialize(
        definitions.ALL_ASSETS,
        selection=getattr(definitions, selection),
        partition_key=partition,
        resources=definitions.build_resources(),
        instance=dg.DagsterInstance.ephemeral(),
        raise_on_error=False,
        run_config=QUIET,
    )
    checks = {
        e.asset_check_evaluation_data.check_name: e.asset_check_evaluation_data.passed
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }
    print(json.dumps({"success": result.success, "checks": checks}))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
