"""``mgqa``: the command line of the MGQA platform.

    mgqa build [--kg KG ...] [--lang L ...] [--job JOB ...] [--skip-languages]
                               run the pipeline's named jobs in order on the configured inputs
                               (default: the bundled sample, every job and partition)
    mgqa summary               print what the warehouse holds (entities per KG/category/country, quarantine)
    mgqa lineage ID            print where a question's gold answer (or an entity) comes from
    mgqa evaluate ...          score a system (gold, majority, reference_solver, a predictions file, or a model
                               run against an OpenAI-compatible endpoint) and write its report
    mgqa images fetch          download the multimodal questions' images, with licence, author and sha256,
                               into the release (needs a network; docs/release.md)

``build`` walks ``definitions.BUILD_PLAN``: each named job of the code location over its partitions,
run in process against the Dagster instance in ``$DAGSTER_HOME`` (default ``$MGQA_HOME/dagster``,
whose config it writes from ``mgqa_dagster/dagster.yaml`` when missing), so its runs are the UI's
jobs and show up under them in ``dagster dev``. It imports
the code location as the installed package ``mgqa_dagster`` (``mgqa_dagster.definitions``), as
``dagster dev`` does, and takes its resources from ``definitions.build_resources()``: every command
finds the warehouse and the working directory through the same resource fields and environment
variables as a Dagster run (docs/configuration.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def _code_location():
    from mgqa_dagster import definitions

    return definitions


def _paths():
    """The code location's paths resource, read from the environment now (as a run would)."""
    return _code_location().build_resources()["paths"].resolved()


#: The instance config an MGQA home starts with: run queue and the warehouse pool's one slot.
INSTANCE_CONFIG = Path(__file__).with_name("dagster.yaml")


def _instance(paths):
    """The Dagster instance in ``$DAGSTER_HOME`` (default ``$MGQA_HOME/dagster``), its config
    written from :data:`INSTANCE_CONFIG` when the home has none."""
    import dagster as dg

    home = Path(os.environ.setdefault("DAGSTER_HOME", str(paths.dagster_home)))
    home.mkdir(parents=True, exist_ok=True)
    cfg = home / "dagster.yaml"
    if not cfg.exists():
        cfg.write_text(INSTANCE_CONFIG.read_text())
    return dg.DagsterInstance.get()


def _register_snapshots(defs_mod, resources, instance, pbfs: list[Path], run_config) -> None:
    """Register each PBF as an ``osm_snapshot`` partition with the job ``register_osm_snapshot``."""
    from mgqa_platform import snapshots

    described = [snapshots.describe_osm_pbf(p) for p in pbfs]
    warehouse = resources["warehouse"].resolved()
    with warehouse.get_connection() as con:  # registered rows spare the asset a second hash
        for d in described:
            snapshots.register(con, d)
    known = set(instance.get_dynamic_partitions(defs_mod.intake.osm_snapshot_partitions.name))
    for d in described:
        if d.snapshot_id not in known:
            instance.add_dynamic_partitions(
                defs_mod.intake.osm_snapshot_partitions.name, [d.snapshot_id]
            )
        with _run_job(defs_mod.intake_job.name, d.snapshot_id, instance, run_config) as r:
            print(f"registered OSM snapshot {d.snapshot_id} (run {r.run_id})")


def _run_job(job_name: str, partition: str | None, instance, run_config):
    """Run one named job of the code location in this process, as the UI's run worker would:
    the run carries the job's name and partition, so `dagster dev` lists it under the job."""
    import dagster as dg
    from dagster._core.definitions.reconstruct import ReconstructableRepository

    repo = ReconstructableRepository.for_module(
        "mgqa_dagster.definitions", "defs", working_directory=os.getcwd()
    )
    tags = {"dagster/partition": partition} if partition is not None else None
    return dg.execute_job(
        repo.get_reconstructable_job(job_name),
        instance,
        run_config=run_config,
        tags=tags,
        raise_on_error=False,
    )


def _failed_checks(result) -> list[str]:
    """The names of the asset checks that failed in a run."""
    return [
        e.asset_check_evaluation_data.check_name
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
        and not e.asset_check_evaluation_data.passed
    ]


def build_narrowing(args: argparse.Namespace) -> tuple[dict[str, list[str]], list[str] | None]:
    """``mgqa build``'s options as the arguments of :func:`definitions.build_runs`."""
    defs_mod = _code_location()
    narrow = {defs_mod.kg_job.name: list(args.kg)}
    if args.lang:
        narrow[defs_mod.language_job.name] = list(args.lang)
    jobs = list(args.job) if args.job else None
    if args.skip_languages:
        tail = {j.name for j in defs_mod.LANGUAGE_TAIL}
        jobs = [
            j.name
            for j in defs_mod.BUILD_PLAN
            if j.name not in tail and (jobs is None or j.name in jobs)
        ]
    return narrow, jobs


def cmd_build(args: argparse.Namespace) -> int:
    from mgqa_platform import settings

    defs_mod = _code_location()
    resources = defs_mod.build_resources()  # each run reads the environment as it initializes them
    instance = _instance(resources["paths"].resolved())
    quiet = {
        "loggers": {"console": {"config": {"log_level": "DEBUG" if args.verbose else "WARNING"}}}
    }
    t0 = time.perf_counter()
    narrow, jobs = build_narrowing(args)
    runs = defs_mod.build_runs(narrow, jobs)
    kgs = {p for name, p in runs if name == defs_mod.kg_job.name}
    if kgs & set(settings.OSM_DERIVED_KGS):
        inputs = resources["inputs"].resolved()
        pbfs = inputs.watched_pbfs()
        if not pbfs:
            print(f"mgqa: no *.osm.pbf in {inputs.osm_watch_dir}", file=sys.stderr)
            return 2
        _register_snapshots(defs_mod, resources, instance, pbfs, quiet)
    for job_name, partition in runs:
        with _run_job(job_name, partition, instance, quiet) as r:
            failed = _failed_checks(r)
            label = job_name + (f" [{partition}]" if partition else "")
            status = "ok" if r.success else "FAILED"
            print(
                f"built {label}: {status} (run {r.run_id})"
                + (f"; failed checks: {', '.join(failed)}" if failed else "")
            )
            if not r.success:
                return 1
    print(f"done in {time.perf_counter() - t0:.1f} s\n")
    return cmd_summary(args)


def _built_warehouse(paths) -> Path | None:
    """The configured warehouse file, or None (with a message) when nothing has been built yet."""
    path = paths.warehouse_path
    if not path.exists():
        print(f"mgqa: no warehouse at {path}; run `mgqa build` first", file=sys.stderr)
        return None
    return path


def cmd_summary(args: argparse.Namespace) -> int:
    from mgqa_platform import report, warehouse

    paths = _paths()
    path = _built_warehouse(paths)
    if path is None:
        return 2
    with warehouse.session(path, read_only=True) as con:
        print(report.summary(con, paths.release_path))
    return 0


def cmd_lineage(args: argparse.Namespace) -> int:
    from mgqa_platform import lineage, warehouse

    with warehouse.session(_paths().warehouse_path, read_only=True) as con:
        try:
            print(lineage.describe(con, args.id))
        except KeyError as e:
            print(f"mgqa: {e.args[0]}", file=sys.stderr)
            return 2
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from mgqa_platform import warehouse
    from mgqa_platform.evaluation import baseline, evaluate, report

    paths = _paths()
    path = _built_warehouse(paths)
    if path is None:
        return 2
    with warehouse.session(path, read_only=True) as con:
        questions = evaluate.load_questions(con, args.split, args.lang)
    if not questions:
        print(f"mgqa: no {args.lang} questions in the {args.split} split", file=sys.stderr)
        return 2
    if args.limit:
        questions = questions[: args.limit]
    if args.run:
        from mgqa_platform.evaluation import runner
        from mgqa_platform.llm import ChatClient

        if not (args.base_url and args.model):
            print("mgqa: --run needs --base-url and --model", file=sys.stderr)
            return 2
        key = os.environ.get(args.api_key_env) if args.api_key_env else None
        client = ChatClient(args.base_url, args.model, api_key=key)
        name = args.name or f"{args.model}-{args.tier}".replace("/", "_")
        run_dir = Path(args.run_dir or paths.runs_dir / f"{name}-{args.split}-{args.lang}")
        kg = None
        if args.tier == "T3a":  # the retrieval tools see a KG-only copy, never the golds
            from mgqa_platform.evaluation.agent import export_kg

            kg = str(export_kg(path, run_dir / "kg.duckdb"))
        summary = runner.run(
            questions,
            client,
            args.tier,
            run_dir,
            concurrency=args.concurrency,
            system_name=name,
            warehouse=kg,
        )
        print(f"run {name}: {summary}")
        predictions, system = runner.load_predictions(run_dir / "predictions.jsonl"), name
    elif args.predictions:
        from mgqa_platform.evaluation import runner

        predictions, system = (
            runner.load_predictions(Path(args.predictions)),
            args.name or Path(args.predictions).stem,
        )
    else:
        predictions, system = baseline.predictions_for(args.system, questions), args.system
    rows = evaluate.score_rows(system, args.split, args.lang, questions, predictions)
    with warehouse.session(path) as con:
        evaluate.write_scores(con, rows, system, args.split, args.lang)
    suffix = "" if args.lang == "eng" else f"-{args.lang}"
    default_out = paths.reports_dir / "evaluation" / f"{system}-{args.split}{suffix}"
    out = Path(args.report_dir or default_out)
    written = report.write_report(rows, out, f"{system} on the {args.split} split ({args.lang})")
    m = evaluate.summary(rows)
    print(
        f"{system} on {args.split}/{args.lang}: "
        + ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in m.items())
    )
    print(f"report: {written['report']}")
    return 0


def cmd_images_fetch(args: argparse.Namespace) -> int:
    from mgqa_platform.release import images

    release = Path(args.release_dir) if args.release_dir else _paths().release_path
    if not (release / "data").is_dir():
        print(f"mgqa: no release at {release}; run `mgqa build` first", file=sys.stderr)
        return 2
    stats = images.ImageFetcher(args.api_url, timeout_s=args.timeout).fetch(release)
    print(f"images fetched: {stats['fetched']}; manifest {stats['manifest']}")
    for url, reason in stats["failed"]:
        print(f"  failed: {url}: {reason}", file=sys.stderr)
    return 1 if stats["failed"] else 0


def main(argv: list[str] | None = None) -> int:
    from mgqa_platform import settings
    from mgqa_platform.evaluation.tiers import TIERS
    from mgqa_platform.multilingual.languages import CODES

    ap = argparse.ArgumentParser(prog="mgqa", description="MGQA platform command line")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser(
        "build",
        help="materialize the pipeline on the configured inputs (default: the bundled sample)",
    )
    b.add_argument("--kg", nargs="+", choices=settings.KGS, default=list(settings.KGS))
    b.add_argument(
        "--lang", nargs="+", choices=CODES, help="only these language partitions (default: all 17)"
    )
    b.add_argument(
        "--job",
        nargs="+",
        choices=[j.name for j in _code_location().BUILD_PLAN],
        help="only these jobs of the build plan (default: all, in order)",
    )
    b.add_argument("--verbose", action="store_true", help="show Dagster's debug log")
    b.add_argument(
        "--skip-languages",
        action="store_true",
        help="stop after the English questions and their evaluation",
    )
    b.set_defaults(fn=cmd_build)
    s = sub.add_parser(
        "summary", help="print entities per KG, category and country, and quarantine counts"
    )
    s.set_defaults(fn=cmd_summary)
    lg = sub.add_parser("lineage", help="print the provenance chain of an entity id")
    lg.add_argument("id")
    lg.set_defaults(fn=cmd_lineage)
    ev = sub.add_parser(
        "evaluate",
        help="score a system on a split and write its report (EM, NE, coverage, FRR, NRR)",
    )
    what = ev.add_mutually_exclusive_group()
    what.add_argument(
        "--system", choices=("gold", "majority", "reference_solver"), default="majority"
    )
    what.add_argument(
        "--predictions", help="a predictions.jsonl written by a run (see docs/evaluation_runner.md)"
    )
    what.add_argument(
        "--run", action="store_true", help="run a model on an OpenAI-compatible endpoint first"
    )
    ev.add_argument("--split", choices=("large", "small"), default="small")
    ev.add_argument("--lang", default="eng")
    ev.add_argument(
        "--name", help="system name in the scores table (default: from the file or the model)"
    )
    ev.add_argument("--report-dir")
    ev.add_argument("--limit", type=int, help="only the first N questions (question-id order)")
    ev.add_argument("--base-url", help="--run: endpoint base URL, e.g. http://127.0.0.1:8000/v1")
    ev.add_argument("--model", help="--run: model name")
    ev.add_argument(
        "--tier",
        default="T1",
        choices=TIERS,
        help="--run: the evaluation tier (docs/evaluation_runner.md)",
    )
    ev.add_argument(
        "--api-key-env",
        default="MGQA_LLM_API_KEY",
        help="--run: environment variable holding the API key",
    )
    ev.add_argument("--concurrency", type=int, default=4)
    ev.add_argument(
        "--run-dir", help="--run: where predictions.jsonl goes (default $MGQA_HOME/runs/...)"
    )
    ev.set_defaults(fn=cmd_evaluate)
    im = sub.add_parser("images", help="the images of the multimodal questions")
    im_sub = im.add_subparsers(dest="images_cmd", required=True)
    fetch = im_sub.add_parser(
        "fetch",
        help="download every released image with its licence, author and sha256 into the release",
    )
    fetch.add_argument("--release-dir", help="release folder (default: the configured release)")
    fetch.add_argument(
        "--api-url",
        default="https://commons.wikimedia.org/w/api.php",
        help="MediaWiki API endpoint that describes the Commons files",
    )
    fetch.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    fetch.set_defaults(fn=cmd_images_fetch)
    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
