"""One language partition from the UI path and from `mgqa build`, timed on the same built home.

    .venv/bin/python scripts/bench_ui_vs_cli.py [--home .mgqa] [--lang fra] [--port 3377]

The home is copied to a temporary folder first (the warehouse, release, reports, strata and KG
files, and its Dagster instance with the shipped instance config), so the benchmark never writes
to it. Both paths then rebuild the same language partition of
the job `build_language` on that copy:

- UI: `dagster dev -w workspace.yaml` on the copy's Dagster home (its instance config from
  mgqa_dagster/dagster.yaml, run queue included), and the launch the UI's "Materialize" button
  sends: a GraphQL `launchRun` through `DagsterGraphQLClient.submit_job_execution`, timed from the
  submission until the run succeeds (queueing, the run worker's start and the run itself).
- CLI: `mgqa build --job build_language --lang LANG` in a subprocess, timed from the start of the
  command until it exits (interpreter start, imports, the run, the summary).

It prints both times, the run's own duration in each, and the ratio UI / CLI (target: within 2x).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import dagster as dg
from dagster_graphql import DagsterGraphQLClient, DagsterGraphQLClientError

from mgqa_dagster.cli import INSTANCE_CONFIG

REPO_ROOT = Path(__file__).resolve().parents[1]

#: What of a built home the language job reads or rewrites (its Dagster instance is copied too).
COPIED = ("warehouse.duckdb", "release", "reports", "strata", "kg")
LOCATION = "mgqa_platform"


def copy_home(home: Path, into: Path) -> dict[str, str]:
    """Copy the parts of ``home`` a language run touches into ``into``; the environment of a
    command on the copy (its own Dagster home with the shipped instance config)."""
    into.mkdir(parents=True)
    for name in COPIED:
        src = home / name
        if src.is_dir():
            shutil.copytree(src, into / name)
        elif src.exists():
            shutil.copy2(src, into / name)
    # the home's own instance: its snapshot partitions and materializations are known, so the
    # sensors of `dagster dev` find nothing new to rebuild while the timed run goes
    if (home / "dagster").is_dir():
        shutil.copytree(home / "dagster", into / "dagster", ignore=shutil.ignore_patterns("*.yaml"))
    (into / "dagster").mkdir(exist_ok=True)
    (into / "dagster" / "dagster.yaml").write_text(INSTANCE_CONFIG.read_text())
    os.environ["DAGSTER_HOME"] = str(into / "dagster")
    with dg.DagsterInstance.get():  # create the storage now: the server's processes then share it
        pass
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MGQA_", "DAGSTER_"))}
    env.update(MGQA_HOME=str(into), DAGSTER_HOME=str(into / "dagster"))
    return env


def run_seconds(dagster_home: Path, run_id: str) -> float:
    """A run's own duration (start to end) as the instance recorded it."""
    os.environ["DAGSTER_HOME"] = str(dagster_home)
    with dg.DagsterInstance.get() as instance:
        record = instance.get_run_record_by_id(run_id)
        return record.end_time - record.start_time


def time_cli(env: dict[str, str], lang: str) -> tuple[float, str]:
    """Wall seconds of `mgqa build --job build_language --lang LANG`, and its run id."""
    mgqa = Path(sys.executable).with_name("mgqa")
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(mgqa), "build", "--job", "build_language", "--lang", lang],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"mgqa build failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    line = next(x for x in proc.stdout.splitlines() if x.startswith("built build_language"))
    return wall, line.rsplit("(run ", 1)[1].rstrip(")")


def _free(port: int) -> bool:
    """Whether nothing listens on 127.0.0.1:port."""
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def wait_for_run_queue(dagster_home: Path, deadline: float) -> None:
    """Wait until the daemon of `dagster dev` dequeues runs (its run-queue heartbeat), so that the
    timed launch does not include the server's own start."""
    os.environ["DAGSTER_HOME"] = str(dagster_home)
    with dg.DagsterInstance.get() as instance:
        while "QUEUED_RUN_COORDINATOR" not in instance.get_daemon_heartbeats():
            if time.monotonic() > deadline:
                raise SystemExit("the dagster dev daemon did not start")
            time.sleep(1.0)


def time_ui(env: dict[str, str], lang: str, port: int, timeout_s: float) -> tuple[float, str]:
    """Seconds from a GraphQL launch of build_language[LANG] to the run's success, against
    `dagster dev` on the copy; and the run id. The server's and the daemon's start are not
    counted."""
    if not _free(port):
        raise SystemExit(f"port {port} is taken; pass --port")
    dev = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("dagster")),
            "dev",
            "-w",
            "workspace.yaml",
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
        ],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        client = DagsterGraphQLClient("127.0.0.1", port_number=port)
        deadline = time.monotonic() + timeout_s
        wait_for_run_queue(Path(env["DAGSTER_HOME"]), deadline)
        while True:  # the server is up once the code location answers a launch
            try:
                t0 = time.perf_counter()
                run_id = client.submit_job_execution(
                    "build_language",
                    repository_location_name=LOCATION,
                    tags={"dagster/partition": lang},
                )
                break
            except (DagsterGraphQLClientError, OSError) as exc:
                if time.monotonic() > deadline:
                    raise SystemExit(f"dagster dev did not accept a launch: {exc}") from exc
                time.sleep(1.0)
        while True:
            status = client.get_run_status(run_id)
            if status == dg.DagsterRunStatus.SUCCESS:
                return time.perf_counter() - t0, run_id
            if status in (dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED):
                raise SystemExit(f"the UI run {run_id} ended {status.value}")
            if time.monotonic() > deadline:
                raise SystemExit(f"the UI run {run_id} did not finish in {timeout_s} s")
            time.sleep(0.25)
    finally:
        os.killpg(dev.pid, signal.SIGTERM)
        dev.wait(timeout=60)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", default=str(REPO_ROOT / ".mgqa"), help="a built MGQA home")
    ap.add_argument("--lang", default="fra")
    ap.add_argument("--port", type=int, default=3377)
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds for the UI path")
    args = ap.parse_args()
    home = Path(args.home)
    if not (home / "warehouse.duckdb").exists():
        print(f"no built home at {home}; run `mgqa build` first", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mgqa-bench-ui-") as tmp:
        ui_env = copy_home(home, Path(tmp) / "ui")
        cli_env = copy_home(home, Path(tmp) / "cli")
        cli_wall, cli_run = time_cli(cli_env, args.lang)
        ui_wall, ui_run = time_ui(ui_env, args.lang, args.port, args.timeout)
        cli_own = run_seconds(Path(tmp) / "cli" / "dagster", cli_run)
        ui_own = run_seconds(Path(tmp) / "ui" / "dagster", ui_run)
    print(f"language {args.lang}, job build_language, home {home}")
    print(
        f"  UI path (GraphQL launch -> run success): {ui_wall:7.1f} s  "
        f"(the run itself {ui_own:.1f} s)"
    )
    print(
        f"  CLI (mgqa build, whole command):        {cli_wall:7.1f} s  "
        f"(the run itself {cli_own:.1f} s)"
    )
    print(f"  ratio UI / CLI: {ui_wall / cli_wall:.2f}x (target <= 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
