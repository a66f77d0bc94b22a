"""``mgqa``: the command line of the MGQA platform.

    mgqa build [--kg KG ...]   materialize the pipeline on the configured inputs (default: bundled sample)
    mgqa summary               print what the warehouse holds (entities per KG/category/country, quarantine)
    mgqa lineage ID            print where a question's gold answer (or an entity) comes from

``build`` runs the same Dagster assets the UI runs, in process, against the Dagster instance in
``$DAGSTER_HOME`` (default ``.mgqa/dagster``), so its runs show up in ``dagster dev``. This module is the
one bridge from the installed command to the code location at the repository root (``definitions.py``,
``assets/``, ``resources/``, ``data_quality/``), which it puts on ``sys.path``; see docs/decisions.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent


def _code_location():
    if not (REPO_ROOT / "definitions.py").is_file():
        sys.exit(f"mgqa: definitions.py not found next to {__file__}; install the project in editable mode (pip install -e .)")
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    import definitions

    return definitions


def _instance():
    import dagster as dg

    from mgqa_platform import settings

    home = Path(os.environ.setdefault("DAGSTER_HOME", str(settings.home() / "dagster")))
    home.mkdir(parents=True, exist_ok=True)
    cfg = home / "dagster.yaml"
    if not cfg.exists():  # an offline platform: no telemetry, and no welcome banner on every fresh home
        cfg.write_text("telemetry:\n  enabled: false\n")
    return dg.DagsterInstance.get()


def cmd_build(args: argparse.Namespace) -> int:
    import dagster as dg

    from mgqa_platform import settings, snapshots

    defs_mod = _code_location()
    from assets import intake

    instance = _instance()
    resources = defs_mod.build_resources()
    quiet = {"loggers": {"console": {"config": {"log_level": "DEBUG" if args.verbose else "WARNING"}}}}
    t0 = time.perf_counter()
    inputs = resources["inputs"]
    pbfs = inputs.watched_pbfs()
    if not pbfs and set(args.kg) & set(settings.OSM_DERIVED_KGS):
        print(f"mgqa: no *.osm.pbf in {inputs.osm_watch_dir}", file=sys.stderr)
        return 2
    described = [snapshots.describe_osm_pbf(p) for p in pbfs]
    ids = [d.snapshot_id for d in described]
    with resources["warehouse"].get_connection() as con:  # registered rows spare the asset a second hash
        for d in described:
            snapshots.register(con, d)
    known = set(instance.get_dynamic_partitions(intake.osm_snapshot_partitions.name))
    for sid in ids:
        if sid not in known:
            instance.add_dynamic_partitions(intake.osm_snapshot_partitions.name, [sid])
        r = dg.materialize(defs_mod.ALL_ASSETS, selection=[intake.osm_snapshot], partition_key=sid, instance=instance, resources=resources, run_config=quiet)
        print(f"registered OSM snapshot {sid} (run {r.run_id})")
    steps = [("strata inputs", defs_mod.GLOBAL_STRATA, None)]
    steps += [(kg, defs_mod.PER_KG, kg) for kg in args.kg]
    steps += [("strata coverage", defs_mod.COVERAGE, None), ("questions", defs_mod.QUESTIONS, None)]
    for label, selection, partition in steps:
        r = dg.materialize(
            defs_mod.ALL_ASSETS, selection=selection, partition_key=partition, instance=instance,
            resources=resources, raise_on_error=False, run_config=quiet,
        )  # fmt: skip
        failed_checks = [
            e.asset_check_evaluation_data.check_name
            for e in r.all_events
            if e.event_type_value == "ASSET_CHECK_EVALUATION" and not e.asset_check_evaluation_data.passed
        ]
        status = "ok" if r.success else "FAILED"
        print(f"built {label}: {status} (run {r.run_id})" + (f"; failed checks: {', '.join(failed_checks)}" if failed_checks else ""))
        if not r.success:
            return 1
    print(f"done in {time.perf_counter() - t0:.1f} s\n")
    return cmd_summary(args)


def cmd_summary(args: argparse.Namespace) -> int:
    from mgqa_platform import report, settings, warehouse

    path = settings.default_warehouse_path()
    if not path.exists():
        print(f"mgqa: no warehouse at {path}; run `mgqa build` first", file=sys.stderr)
        return 2
    with warehouse.session(path, read_only=True) as con:
        print(report.summary(con))
    return 0


def cmd_lineage(args: argparse.Namespace) -> int:
    from mgqa_platform import lineage, settings, warehouse

    with warehouse.session(settings.default_warehouse_path(), read_only=True) as con:
        try:
            print(lineage.describe(con, args.id))
        except KeyError as e:
            print(f"mgqa: {e.args[0]}", file=sys.stderr)
            return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    from mgqa_platform import settings

    ap = argparse.ArgumentParser(prog="mgqa", description="MGQA platform command line")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="materialize the pipeline on the configured inputs (default: the bundled sample)")
    b.add_argument("--kg", nargs="+", choices=settings.KGS, default=list(settings.KGS))
    b.add_argument("--verbose", action="store_true", help="show Dagster's debug log")
    b.set_defaults(fn=cmd_build)
    s = sub.add_parser("summary", help="print entities per KG, category and country, and quarantine counts")
    s.set_defaults(fn=cmd_summary)
    lg = sub.add_parser("lineage", help="print the provenance chain of an entity id")
    lg.add_argument("id")
    lg.set_defaults(fn=cmd_lineage)
    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
