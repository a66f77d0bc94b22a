"""A plain-data snapshot of the code location: every asset's spec, every check, job, sensor and
schedule, and the order `mgqa build` walks the jobs in.

``tests/test_definitions.py`` compares the code location with the committed snapshot
(``tests/golden/definitions.json``); after an intended change, rewrite it with

    .venv/bin/python -m mgqa_dagster.spec_snapshot --write

and review the diff like code.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import dagster as dg

#: The committed snapshot the definitions test compares with.
SNAPSHOT_PATH = Path(__file__).resolve().parents[1] / "tests" / "golden" / "definitions.json"


def _partitions(pdef: dg.PartitionsDefinition | None) -> str | None:
    """A partitions definition as one line: ``static: <keys in order>``, ``dynamic: <name>``, or
    None."""
    if pdef is None:
        return None
    if isinstance(pdef, dg.DynamicPartitionsDefinition):
        return f"dynamic: {pdef.name}"
    return "static: " + " ".join(pdef.get_partition_keys())


def _condition(cond: dg.AutomationCondition | None) -> str | None:
    """An automation condition by its label (``eager``), else its name."""
    if cond is None:
        return None
    return cond.get_label() or cond.name


def _assets(defs: dg.Definitions) -> dict[str, dict]:
    """Per asset key: group, kind, partitions, parents, automation condition, pool and kinds."""
    graph = defs.resolve_asset_graph()
    out: dict[str, dict] = {}
    for key in sorted(graph.get_all_asset_keys(), key=lambda k: k.to_user_string()):
        node = graph.get(key)
        assets_def = node.assets_def
        out[key.to_user_string()] = {
            "group": node.group_name,
            "materializable": node.is_materializable,
            "observable": node.is_observable,
            "partitions": _partitions(node.partitions_def),
            "parents": sorted(k.to_user_string() for k in node.parent_keys),
            "automation": _condition(node.automation_condition),
            "pool": assets_def.op.pool if node.is_materializable else None,
            "kinds": sorted(node.kinds),
            "multi_asset": sorted(k.to_user_string() for k in assets_def.keys)
            if len(assets_def.keys) > 1
            else None,
        }
    return out


def _checks(defs: dg.Definitions) -> dict[str, dict]:
    """Per check (``asset:name``): blocking, partitioned, description."""
    graph = defs.resolve_asset_graph()
    out: dict[str, dict] = {}
    for assets_def in graph.assets_defs:
        for spec in assets_def.check_specs:
            out[f"{spec.asset_key.to_user_string()}:{spec.name}"] = {
                "blocking": spec.blocking,
                "partitions": _partitions(spec.partitions_def),
                "description": spec.description,
            }
    return dict(sorted(out.items()))


def _jobs(defs: dg.Definitions) -> dict[str, dict]:
    """Per named job: the asset keys it materializes, its partitions and executor."""
    out: dict[str, dict] = {}
    for job in defs.resolve_all_job_defs():
        if job.name.startswith("__"):
            continue
        layer = job.asset_layer
        out[job.name] = {
            "assets": sorted(k.to_user_string() for k in layer.executable_asset_keys),
            "partitions": _partitions(job.partitions_def),
            "executor": job.executor_def.name,
            "description": job.description,
        }
    return dict(sorted(out.items()))


def snapshot(defs: dg.Definitions, build_plan: tuple) -> dict:
    """The whole snapshot as JSON-ready data."""
    sensors = {
        s.name: {
            "default_status": s.default_status.value,
            "targets": sorted(
                k.to_user_string() for k in (s.asset_selection.resolve(defs.resolve_asset_graph()))
            )
            if s.asset_selection is not None
            else None,
        }
        for s in defs.sensors or []
    }
    schedules = {
        s.name: {
            "cron": s.cron_schedule,
            "job": s.job_name,
            "default_status": s.default_status.value,
        }
        for s in defs.schedules or []
    }
    return {
        "assets": _assets(defs),
        "checks": _checks(defs),
        "jobs": _jobs(defs),
        "build_plan": [job.name for job in build_plan],
        "sensors": dict(sorted(sensors.items())),
        "schedules": dict(sorted(schedules.items())),
    }


def current() -> dict:
    """The snapshot of ``mgqa_dagster.definitions`` as it is now."""
    from mgqa_dagster import definitions

    return snapshot(definitions.defs, definitions.BUILD_PLAN)


def render(data: dict) -> str:
    """The snapshot's committed text: sorted-key JSON, two-space indent, final newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"rewrite {SNAPSHOT_PATH.name}")
    args = ap.parse_args(argv)
    text = render(current())
    if args.write:
        SNAPSHOT_PATH.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT_PATH.write_text(text)
        print(f"wrote {SNAPSHOT_PATH}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
