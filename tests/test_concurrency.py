"""Runs at once on one warehouse: three language partitions launched together, each in a process
of its own (as the UI's run launcher starts them), on an instance configured by the instance
config an MGQA home gets (mgqa_dagster/dagster.yaml). DuckDB lets one process write the file at a
time; the warehouse pool's single slot schedules the steps one after another, and the writer lock of
every warehouse connection guarantees it (tests/test_writer_lock.py): Dagster's SQLite storage can
grant the one slot to two claims made at the same instant (it reads a free slot, then updates it,
without a row lock), so the step windows themselves are not asserted here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dagster as dg

from mgqa_dagster import definitions
from mgqa_dagster.cli import INSTANCE_CONFIG
from mgqa_dagster.resources.warehouse import WAREHOUSE_POOL

REPO_ROOT = Path(__file__).resolve().parents[1]
RUNNER = Path(__file__).with_name("run_partition.py")
LANGS = ("fra", "rus", "jpn")
#: The warehouse-writing head of the language job: template translation and post-edit resolution.
ASSETS = ("template_translations", "template_translations_resolved", "annotation_agreement")


def _home(tmp_path: Path) -> dict[str, str]:
    """A fresh MGQA home whose Dagster instance has the shipped instance config."""
    dagster_home = tmp_path / "dagster"
    dagster_home.mkdir()
    (dagster_home / "dagster.yaml").write_text(INSTANCE_CONFIG.read_text())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MGQA_", "DAGSTER_"))}
    env.update(MGQA_HOME=str(tmp_path / "home"), DAGSTER_HOME=str(dagster_home))
    return env


def _step_windows(instance: dg.DagsterInstance, run_id: str) -> list[tuple[float, float]]:
    """(start, end) timestamps of each step of a run."""
    starts: dict[str, float] = {}
    windows = []
    for record in instance.all_logs(run_id):
        event = record.dagster_event
        if event is None:
            continue
        if event.event_type == dg.DagsterEventType.STEP_START:
            starts[event.step_key] = record.timestamp
        elif event.event_type in (
            dg.DagsterEventType.STEP_SUCCESS,
            dg.DagsterEventType.STEP_FAILURE,
        ):
            windows.append((starts[event.step_key], record.timestamp))
    return windows


def test_three_language_partitions_at_once(tmp_path, monkeypatch):
    env = _home(tmp_path)
    for key in ("MGQA_HOME", "DAGSTER_HOME"):
        monkeypatch.setenv(key, env[key])
    with dg.DagsterInstance.get() as instance:
        # the catalog the translations read, written once before the concurrent runs
        head = definitions.defs.resolve_job_def("build_questions_en").execute_in_process(
            instance=instance, asset_selection=[dg.AssetKey("templates")]
        )
        assert head.success
    procs = [
        subprocess.Popen(
            [sys.executable, str(RUNNER), "build_language", lang, *ASSETS],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for lang in LANGS
    ]
    outputs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert "Could not set lock" not in out + err
        assert p.returncode == 0, err[-3000:]
    run_ids = [out.strip().splitlines()[-1] for out, _ in outputs]
    with dg.DagsterInstance.get() as instance:
        runs = [instance.get_run_by_id(r) for r in run_ids]
        assert [r.status for r in runs] == [dg.DagsterRunStatus.SUCCESS] * 3
        assert sorted(r.tags["dagster/partition"] for r in runs) == sorted(LANGS)
        assert {r.job_name for r in runs} == {"build_language"}
        # every run ran both warehouse-writing steps of its partition
        assert [len(_step_windows(instance, r)) for r in run_ids] == [2, 2, 2]
        assert instance.event_log_storage.get_pool_limits()[0].name == WAREHOUSE_POOL
