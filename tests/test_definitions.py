"""Snapshot of the code location: asset keys, groups, partitions, checks, jobs and sensors."""

from __future__ import annotations

import json

import dagster as dg
import yaml

from mgqa_dagster import definitions, spec_snapshot
from mgqa_dagster.cli import INSTANCE_CONFIG
from mgqa_dagster.resources.warehouse import WAREHOUSE_POOL
from mgqa_platform import question_schema as schema


def test_definitions_match_the_committed_snapshot():
    """Asset keys, groups, partitions, parents, automation, pools, checks, jobs, sensors, schedules
    and the build plan are the committed snapshot; after an intended change rewrite it with
    `.venv/bin/python -m mgqa_dagster.spec_snapshot --write` and review the diff."""
    committed = json.loads(spec_snapshot.SNAPSHOT_PATH.read_text())
    now = spec_snapshot.current()
    for part in ("assets", "checks", "jobs", "build_plan", "sensors", "schedules"):
        assert now[part] == committed[part], (
            f"{part} differ from {spec_snapshot.SNAPSHOT_PATH.name}"
        )
    assert spec_snapshot.render(now) == spec_snapshot.SNAPSHOT_PATH.read_text()


def test_snapshot_sees_a_change():
    """The snapshot is sensitive to what it claims to pin: a renamed job, a dropped check, another
    pool, a lost automation condition each change it."""
    before = spec_snapshot.snapshot(definitions.defs, definitions.BUILD_PLAN)
    renamed = dg.define_asset_job("build_kgs_renamed", selection=definitions.PER_KG)
    other = dg.Definitions(
        assets=definitions.ALL_ASSETS,
        jobs=[renamed],
        resources=definitions.build_resources(),
    )
    after = spec_snapshot.snapshot(other, definitions.BUILD_PLAN)
    assert after["assets"] == before["assets"]
    assert "build_kgs_renamed" in after["jobs"] and "build_kgs" not in after["jobs"]
    assert after["sensors"] != before["sensors"]

    @dg.asset(pool="elsewhere", automation_condition=None, key="templates")
    def other_templates():
        """Stands in for the catalog asset with another pool and no condition."""

    swapped = [
        a
        for a in definitions.ALL_ASSETS
        if not isinstance(a, dg.AssetsDefinition) or dg.AssetKey("templates") not in a.keys
    ]
    changed = spec_snapshot.snapshot(
        dg.Definitions(assets=[*swapped, other_templates], resources=definitions.build_resources()),
        definitions.BUILD_PLAN,
    )
    assert changed["assets"]["templates"]["pool"] == "elsewhere"
    assert changed["assets"]["templates"]["automation"] is None
    assert before["assets"]["templates"]["automation"] == "eager"
    assert not any(k.startswith("templates:") for k in changed["checks"])


def test_build_plan_covers_every_asset_once():
    """`mgqa build` walks BUILD_PLAN: together with the intake job its jobs materialize every asset
    of the code location exactly once, each job in one process."""
    graph = definitions.defs.resolve_asset_graph()
    covered: list[dg.AssetKey] = []
    for job in (*definitions.BUILD_PLAN, definitions.intake_job):
        resolved = definitions.defs.resolve_job_def(job.name)
        covered += resolved.asset_layer.executable_asset_keys
        assert resolved.executor_def is dg.in_process_executor
    assert sorted(covered) == sorted(graph.materializable_asset_keys)
    assert definitions.LANGUAGE_TAIL == definitions.BUILD_PLAN[-2:]


def test_build_runs_follow_the_plan_and_its_partitions():
    runs = definitions.build_runs()
    assert [name for name, _ in runs][:2] == ["build_strata_inputs", "build_kgs"]
    assert [p for name, p in runs if name == "build_kgs"] == ["worldkg", "kwg", "osmh3kg"]
    langs = [p for name, p in runs if name == "build_language"]
    assert langs == definitions.multilingual.language_partitions.get_partition_keys()
    assert runs[-1] == ("publish_release", None)
    narrowed = definitions.build_runs(
        {"build_kgs": ["osmh3kg"], "build_language": ["zho", "fra"]},
        ["build_kgs", "build_language"],
    )
    # the partitions keep the job's own order, not the order asked in
    assert narrowed == [
        ("build_kgs", "osmh3kg"),
        ("build_language", "fra"),
        ("build_language", "zho"),
    ]


def test_only_the_first_two_jobs_take_the_engine():
    """The engine resource (MGQA_ENGINE: DuckDB or Spark) reaches the assets of the strata inputs'
    and the KG jobs only; every later asset reads their tables and files, whichever engine wrote
    them. So equal tables and KG files after those two jobs give an equal release, and the
    two-engine test (tests/e2e/test_spark_equality_e2e.py) builds only them on Spark."""
    graph = definitions.defs.resolve_asset_graph()
    takers = {
        k
        for k in graph.materializable_asset_keys
        if "engine" in graph.get(k).assets_def.required_resource_keys
    }
    first_two = set()
    for job in definitions.BUILD_PLAN[:2]:
        first_two |= set(
            definitions.defs.resolve_job_def(job.name).asset_layer.executable_asset_keys
        )
    assert [j.name for j in definitions.BUILD_PLAN[:2]] == ["build_strata_inputs", "build_kgs"]
    assert takers and takers <= first_two, sorted(k.to_user_string() for k in takers - first_two)
    assert {k.to_user_string() for k in takers} >= {"entities", "entity_strata"}


def test_every_writer_is_in_the_warehouse_pool():
    """Every materializable asset opens the warehouse read-write, so each is in the one pool the
    instance config gives a single slot (mgqa_dagster/dagster.yaml)."""
    graph = definitions.defs.resolve_asset_graph()
    pools = {graph.get(k).assets_def.op.pool for k in graph.materializable_asset_keys}
    assert pools == {WAREHOUSE_POOL}
    config = yaml.safe_load(INSTANCE_CONFIG.read_text())
    assert config["concurrency"]["pools"] == {"default_limit": 1, "granularity": "op"}
    assert config["concurrency"]["runs"]["max_concurrent_runs"] >= 1


def test_rebuild_policy_is_explicit():
    """The chain a new snapshot refreshes is automated by a sensor that runs by default; the
    17-language tail and the release only by a sensor that ships switched off and says so."""
    graph = definitions.defs.resolve_asset_graph()
    chain = definitions.snapshot_chain_automation
    tail = definitions.language_tail_automation
    assert chain.default_status == dg.DefaultSensorStatus.RUNNING
    assert tail.default_status == dg.DefaultSensorStatus.STOPPED
    chain_keys = chain.asset_selection.resolve(graph)
    tail_keys = tail.asset_selection.resolve(graph)
    assert not chain_keys & tail_keys
    for key in ("entities", "entity_strata", "questions_en"):
        assert dg.AssetKey(key) in chain_keys
        assert graph.get(dg.AssetKey(key)).automation_condition is not None
    for key in ("questions_postedited", "release_questions", "release_card"):
        assert dg.AssetKey(key) in tail_keys
    assert "Off by default" in tail.description
    assert (
        "language_tail_automation"
        in definitions.defs.get_assets_def(dg.AssetKey("release_card")).descriptions_by_key[
            dg.AssetKey("release_card")
        ]
    )


def test_asset_semantics():
    """What the snapshot cannot say by names: side tables share their writer, the question tables'
    column schema is the declared record, and the side tables partition like their writer."""
    graph = definitions.defs.resolve_asset_graph()
    # side tables: declared next to the asset whose stage writes them, partitioned like it,
    # downstream of it
    side = {
        "question_discards": "questions_en",
        "annotation_agreement": "template_translations_resolved",
        "ensemble_edit_log": "questions_postedited",
        "ensemble_stats": "questions_postedited",
    }
    for key, writer in side.items():
        node, writer_node = graph.get(dg.AssetKey(key)), graph.get(dg.AssetKey(writer))
        assert {k.to_user_string() for k in node.parent_keys} == {writer}
        assert node.partitions_def == writer_node.partitions_def
        writes = definitions.defs.get_assets_def(dg.AssetKey(writer))
        assert definitions.defs.get_assets_def(dg.AssetKey(key)) is writes
    # the question tables' column schema in the UI is the declared record
    tables = {
        "questions_en": schema.QUESTION_SCHEMA,
        "questions_localized": schema.LOCALIZED_SCHEMA,
        "questions_postedited": schema.POSTEDITED_SCHEMA,
    }
    for key, table in tables.items():
        columns = graph.get(dg.AssetKey(key)).metadata["dagster/column_schema"].columns
        assert [(c.name, c.type) for c in columns] == [(f.name, schema.sql_type(f)) for f in table]
        assert all(c.description for c in columns)


#: The assets that write warehouse tables through write-audit-publish, each with the volume guard.
WRITE_AUDIT_PUBLISH = (
    "kg_native",
    "entities",
    "countries",
    "density_cells",
    "entity_country",
    "entity_density",
    "entity_strata",
    "templates",
    "questions_en",
    "split_small",
    "eval_baselines",
    "eval_reference_solver",
    "template_translations",
    "template_translations_resolved",
    "questions_localized",
    "questions_postedited",
    "release_questions",
)


def test_every_warehouse_writer_is_audited_with_the_volume_guard():
    graph = definitions.defs.resolve_asset_graph()
    guarded = {
        k.asset_key.to_user_string() for k in graph.asset_check_keys if k.name == "rows_not_shrunk"
    }
    assert guarded == set(WRITE_AUDIT_PUBLISH)


def test_workspace_loads_like_dagster_dev(tmp_path):
    """`dagster dev -w workspace.yaml` loads the code location the same way this validation does."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]  # the repository root, where workspace.yaml lives
    env = {
        "PATH": str(Path(sys.executable).parent),
        "DAGSTER_HOME": str(tmp_path),
        "HOME": str(tmp_path),
    }
    (tmp_path / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    proc = subprocess.run(
        [sys.executable, "-m", "dagster", "definitions", "validate", "-w", "workspace.yaml"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Validation successful for code location mgqa_platform" in proc.stderr + proc.stdout
