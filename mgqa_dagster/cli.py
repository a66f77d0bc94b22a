"""``mgqa``: the command line of the MGQA platform.

    mgqa build [--kg KG ...] [--lang L ...] [--job JOB ...] [--skip-languages]
                               run the pipeline's named jobs in order on the configured inputs
                               (default: the bundled sample, every job and partition)
    mgqa summary               print what the warehouse holds (entities per KG, category and
                               country; quarantine)
    mgqa lineage ID            print where a question's gold answer (or an entity) comes from
    mgqa evaluate ...          score a system (gold, majority, reference_solver, a predictions
                               file, or a model run against an OpenAI-compatible endpoint) and
                               write its report
    mgqa images fetch          download the multimodal questions' images, with licence, author
                               and sha256, into the release (needs a network; docs/release.md)
    mgqa snapshots list        the registered OSM snapshots, their states and the one that wins;
                               ``retire ID``, ``pin ID``, ``unpin`` change which one wins

An expected error (a bad input file, an unknown id: ``mgqa_platform.errors.UserError``) is printed
as one line naming the file or element; ``mgqa --debug ...`` or ``MGQA_DEBUG=1`` shows its
traceback.

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

from mgqa_platform.errors import UserError


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


def _register_snapshots(defs_mod, described: list, instance, run_config) -> None:
    """Register each snapshot :func:`_intake` accepted as an ``osm_snapshot`` partition with the
    job ``register_osm_snapshot``."""
    partitions = defs_mod.intake.osm_snapshot_partitions.name
    known = set(instance.get_dynamic_partitions(partitions))
    for d in described:
        if d.snapshot_id not in known:
            instance.add_dynamic_partitions(partitions, [d.snapshot_id])
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
    from mgqa_dagster import recovery

    tags = {**recovery.LAUNCHED_BY, **({"dagster/partition": partition} if partition else {})}
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
    from mgqa_dagster import recovery

    defs_mod = _code_location()
    resources = defs_mod.build_resources()  # each run reads the environment as it initializes them
    paths = resources["paths"].resolved()
    with recovery.build_lock(paths.home_path):
        instance = _instance(paths)
        for run_id in recovery.fail_stale_runs(instance):
            instance.event_log_storage.free_concurrency_slots_for_run(run_id)  # its pool slot
            print(f"marked failed: run {run_id}, left unfinished by a killed build")
        recovery.reset_scratch(paths.scratch_dir)
        return _build(args, defs_mod, resources, instance)


def _build(args: argparse.Namespace, defs_mod, resources: dict, instance) -> int:
    """The build steps of :func:`cmd_build`, run while it holds the build lock: the runs of
    ``definitions.build_runs`` for the command's options, in order."""
    from mgqa_platform import settings

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
        with resources["warehouse"].resolved().get_connection() as con:
            described = _intake(con, pbfs)  # registered rows spare the asset a second hash
        _register_snapshots(defs_mod, described, instance, quiet)
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
                for step, message in _step_errors(r):
                    print(f"  {step}: {message}", file=sys.stderr)
                print(
                    "  the run's log: `dagster dev` with "
                    f"DAGSTER_HOME={os.environ['DAGSTER_HOME']}, "
                    f"run {r.run_id}",
                    file=sys.stderr,
                )
                return 1
    print(f"done in {time.perf_counter() - t0:.1f} s\n")
    return cmd_summary(args)


def _intake(con, pbfs: list[Path]) -> list:
    """Describe and register each watched PBF; a file intake refuses (unreadable, empty) is recorded
    as a rejected snapshot and reported on one line, and never becomes a partition."""
    from mgqa_platform import snapshots

    described = []
    for p in pbfs:
        try:
            described.append(snapshots.describe_osm_pbf(p))
        except snapshots.OsmSnapshotError as e:
            snap = snapshots.reject(con, p, str(e))
            print(f"mgqa: rejected OSM snapshot {snap.snapshot_id}: {e}", file=sys.stderr)
            continue
        snapshots.register(con, described[-1])
    return described


def _step_errors(result) -> list[tuple[str, str]]:
    """(step, first line of its error) for each failed step of a Dagster run result."""
    out = []
    for e in result.all_events:
        if e.event_type_value == "STEP_FAILURE":
            err = e.event_specific_data.error
            while err.cause is not None and err.cls_name == "DagsterExecutionStepExecutionError":
                err = err.cause  # Dagster's wrapper: the asset's own error is its cause
            out.append((e.step_key, (err.message.strip().splitlines() or [""])[0]))
    return out


def cmd_snapshots(args: argparse.Namespace) -> int:
    """``mgqa snapshots list | retire ID | pin ID | unpin``: the OSM snapshots and which one
    wins."""
    from mgqa_dagster.assets import intake
    from mgqa_platform import snapshots

    resources = _code_location().build_resources()
    instance = _instance(resources["paths"].resolved())
    order = instance.get_dynamic_partitions(intake.osm_snapshot_partitions.name)
    with resources["warehouse"].resolved().get_connection() as con:
        if args.snapshots_cmd == "retire":
            snapshots.set_state(con, args.id, "retired", args.reason or "retired by the operator")
        elif args.snapshots_cmd == "pin":
            snapshots.set_state(con, args.id, "pinned", args.reason or "pinned by the operator")
        elif args.snapshots_cmd == "unpin":
            for st in snapshots.statuses(con, order):
                if st.state == "pinned":
                    snapshots.set_state(con, st.snapshot_id, None)
        rows = snapshots.statuses(con, order)
    if not rows:
        print(
            "no OSM snapshot registered; run `mgqa build` or drop a *.osm.pbf in the watched folder"
        )
        return 0
    for st in rows:
        flags = ("* " if st.chosen else "  ") + st.state
        where = st.path if st.file_present else f"{st.path} (file missing)"
        print(
            f"{flags:10} {st.snapshot_id}  {where}" + (f"\n{'':13}{st.reason}" if st.reason else "")
        )
    if not any(st.chosen for st in rows):
        print("no usable OSM snapshot: the next build of worldkg/osmh3kg fails", file=sys.stderr)
    return 0


def _built_warehouse(paths) -> Path:
    """The configured warehouse file; a :class:`UserError` when nothing has been built yet."""
    path = paths.warehouse_path
    if not path.exists():
        raise UserError(f"no warehouse at {path}; run `mgqa build` first")
    return path


def cmd_summary(args: argparse.Namespace) -> int:
    from mgqa_platform import report, warehouse

    paths = _paths()
    with warehouse.session(_built_warehouse(paths), read_only=True) as con:
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
    with warehouse.session(path, read_only=True) as con:
        questions = evaluate.load_questions(con, args.split, args.lang)
    if not questions:
        print(f"mgqa: no {args.lang} questions in the {args.split} split", file=sys.stderr)
        return 2
    if args.limit:
        questions = questions[: args.limit]
    if args.run:
        from mgqa_platform.evaluation import runner
        from mgqa_platform.evaluation.sandbox import SandboxUnavailable
        from mgqa_platform.llm import ChatClient

        if not (args.base_url and args.model):
            print("mgqa: --run needs --base-url and --model", file=sys.stderr)
            return 2
        key = os.environ.get(args.api_key_env) if args.api_key_env else None
        client = ChatClient(
            args.base_url, args.model, api_key=key, deadline_s=args.request_deadline
        )
        name = args.name or f"{args.model}-{args.tier}".replace("/", "_")
        run_dir = Path(args.run_dir or paths.runs_dir / f"{name}-{args.split}-{args.lang}")
        kg = None
        if args.tier == "T3a":  # the retrieval tools see a KG-only copy, never the golds
            from mgqa_platform.evaluation.agent import export_kg

            kg = str(export_kg(path, run_dir / "kg.duckdb"))
        try:
            summary = runner.run(
                questions,
                client,
                args.tier,
                run_dir,
                concurrency=args.concurrency,
                system_name=name,
                warehouse=kg,
                retry_errors=args.retry_errors,
            )
        except SandboxUnavailable as exc:
            print(f"mgqa: {exc}", file=sys.stderr)
            return 2
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
    """``mgqa``: run the subcommand of ``argv``; a :class:`UserError` prints one line and exits 2
    (its traceback with ``--debug`` or ``MGQA_DEBUG=1``)."""
    args = parser().parse_args(argv)
    try:
        return args.fn(args)
    except UserError as e:
        if args.debug or os.environ.get("MGQA_DEBUG", "") not in ("", "0"):
            raise
        print(f"mgqa: {e}", file=sys.stderr)
        print("mgqa: (`mgqa --debug ...` or MGQA_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 2


def parser() -> argparse.ArgumentParser:
    """The ``mgqa`` argument parser: one subcommand per ``cmd_*`` function."""
    ap = argparse.ArgumentParser(prog="mgqa", description="MGQA platform command line")
    ap.add_argument(
        "--debug", action="store_true", help="show the traceback of an error (also MGQA_DEBUG=1)"
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    _add_build(sub)
    s = sub.add_parser(
        "summary", help="print entities per KG, category and country, and quarantine counts"
    )
    s.set_defaults(fn=cmd_summary)
    lg = sub.add_parser("lineage", help="print the provenance chain of an entity id")
    lg.add_argument("id")
    lg.set_defaults(fn=cmd_lineage)
    _add_evaluate(sub)
    _add_images(sub)
    _add_snapshots(sub)
    return ap


def _add_build(sub) -> None:
    """``mgqa build``: materialize the pipeline, narrowed to some KGs, languages or jobs."""
    from mgqa_platform import settings
    from mgqa_platform.languages import CODES

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


def _add_evaluate(sub) -> None:
    """``mgqa evaluate``: score a system (or a model's run) on a split and write its report."""
    from mgqa_platform.evaluation.tiers import TIERS

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
        "--retry-errors",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="--run: ask harness_error questions of an earlier run again (default: yes)",
    )
    ev.add_argument(
        "--request-deadline",
        type=float,
        default=300.0,
        help="--run: total seconds one HTTP request may take, retries aside (default 300)",
    )
    ev.add_argument(
        "--run-dir", help="--run: where predictions.jsonl goes (default $MGQA_HOME/runs/...)"
    )
    ev.set_defaults(fn=cmd_evaluate)


def _add_images(sub) -> None:
    """``mgqa images fetch``: download the released images with their licences."""
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


def _add_snapshots(sub) -> None:
    """``mgqa snapshots list|retire|pin|unpin``: the OSM snapshots the KGs are built from."""
    sn = sub.add_parser(
        "snapshots",
        help="list the OSM snapshots and which one the OSM-derived KGs are built from; retire "
        "or pin one",
    )
    sn_sub = sn.add_subparsers(dest="snapshots_cmd", required=True)
    sn_sub.add_parser(
        "list", help="every registered OSM snapshot, its state; * marks the one that wins"
    )
    for name, text in (
        ("retire", "never build from this snapshot again"),
        ("pin", "build from this snapshot, whatever is newer (also overrides a failed state)"),
    ):
        one = sn_sub.add_parser(name, help=text)
        one.add_argument("id", help="a snapshot id from `mgqa snapshots list`")
        one.add_argument("--reason", help="why (shown by `mgqa snapshots list`)")
    sn_sub.add_parser("unpin", help="back to the newest usable snapshot")
    sn.set_defaults(fn=cmd_snapshots)


if __name__ == "__main__":
    sys.exit(main())
