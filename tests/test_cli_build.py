"""`mgqa build` walks the named jobs of the code location: its runs are the UI's jobs (findable and
re-executable there), in BUILD_PLAN order, narrowed by its options."""

from __future__ import annotations

import argparse

import dagster as dg

from mgqa_dagster import cli, definitions


def _args(**kw) -> argparse.Namespace:
    base = dict(kg=["worldkg", "kwg", "osmh3kg"], lang=None, job=None, skip_languages=False)
    return argparse.Namespace(**{**base, **kw})


def test_options_narrow_the_plan():
    narrow, jobs = cli.build_narrowing(_args(kg=["kwg"], lang=["jpn"]))
    runs = definitions.build_runs(narrow, jobs)
    assert [p for j, p in runs if j == "build_kgs"] == ["kwg"]
    assert [p for j, p in runs if j == "build_language"] == ["jpn"]
    narrow, jobs = cli.build_narrowing(_args(skip_languages=True))
    names = [j for j, _ in definitions.build_runs(narrow, jobs)]
    assert names[-1] == "evaluate_reference_systems"
    assert not {"build_language", "publish_release"} & set(names)
    narrow, jobs = cli.build_narrowing(_args(job=["build_language", "publish_release"]))
    names = [j for j, _ in definitions.build_runs(narrow, jobs)]
    assert names == ["build_language"] * 17 + ["publish_release"]


def test_build_runs_named_jobs_on_the_home_instance(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MGQA_HOME", str(tmp_path / "home"))
    # unset, so the command picks $MGQA_HOME/dagster (and sets it; the monkeypatch undoes that)
    monkeypatch.setenv("DAGSTER_HOME", "")
    monkeypatch.delenv("DAGSTER_HOME")
    assert cli.main(["build", "--job", "build_strata_inputs"]) == 0
    out = capsys.readouterr().out
    assert "built build_strata_inputs: ok (run " in out
    dagster_home = tmp_path / "home" / "dagster"
    assert (dagster_home / "dagster.yaml").read_text() == cli.INSTANCE_CONFIG.read_text()
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        runs = instance.get_runs()
        assert [r.job_name for r in runs] == ["build_strata_inputs"]
        assert runs[0].status == dg.DagsterRunStatus.SUCCESS
        # the run can be launched again from its origin, as the UI's re-execute does
        assert runs[0].job_code_origin is not None
        assert runs[0].job_code_origin.job_name == "build_strata_inputs"
