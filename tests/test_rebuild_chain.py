"""A new OSM snapshot rebuilds the chain by itself: the snapshot sensor's runs, then the automation
sensor that ships running (conversion -> strata -> coverage -> English questions), each tick
evaluated as the daemon evaluates it and its requests run for real on a tiny home. The language
tail is not in that sensor's target; it waits behind the one that ships switched off."""

from __future__ import annotations

import json
from collections import defaultdict

import dagster as dg

from mgqa_dagster import definitions
from mgqa_dagster.assets.intake import osm_snapshot_sensor
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.sources import (
    ConversionResource,
    InputsResource,
    KwgSourceResource,
    StrataInputsResource,
)
from mgqa_platform import warehouse
from mgqa_platform.kg.kwg_store import crawl_store
from mgqa_platform.kg.sparql import DEFAULT_KWG_REGION
from mgqa_platform.snapshots import describe_osm_pbf
from tests.conftest import write_tiny_pbf
from tests.fake_sparql import KWG_SHAPED

QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
#: The first build: the strata inputs, three KGs (two from the tiny PBF, a KWG crawl of the
#: KWG-shaped fixture), the coverage and the English questions.
FIRST = ("build_strata_inputs", "build_kgs", "strata_coverage_report", "build_questions_en")


def _resources(tmp_path, watch):
    """The code location's resources on a tiny home: the watched folder, a KWG crawl of the
    KWG-shaped fixture, entity count ranges that admit a tiny town, and share guards that admit a KG
    whose entities lie outside the bundled countries."""
    crawl = tmp_path / "kwg-crawl.nt"
    crawl_store(KWG_SHAPED, DEFAULT_KWG_REGION, crawl)
    counts = {kg: [0, 100] for kg in ("worldkg", "osmh3kg", "kwg")}
    return definitions.build_resources(
        paths=PathsResource(home=str(tmp_path / "home")),
        inputs=InputsResource(osm_watch_dir=str(watch)),
        kwg=KwgSourceResource(mode="file", crawl_file=str(crawl)),
        conversion=ConversionResource(expected_entity_counts=json.dumps(counts)),
        strata_inputs=StrataInputsResource(min_country_share=0.0, min_stratum_share=0.0),
    )


def _run(defs, instance, job: str, partition: str | None, keys=None) -> None:
    """One run of a named job (narrowed to ``keys`` when given), which must succeed."""
    result = defs.resolve_job_def(job).execute_in_process(
        instance=instance,
        partition_key=partition,
        asset_selection=keys,
        run_config=QUIET,
        raise_on_error=False,
    )
    assert result.success, (job, partition, keys)


def _run_requests(defs, instance, requests: dict) -> None:
    """Run what an automation tick requested, one run per (job, partition) as the daemon would."""
    by_run = defaultdict(list)
    for key, partitions in requests.items():
        job = next(
            j.name
            for j in definitions.BUILD_PLAN
            if key in defs.resolve_job_def(j.name).asset_layer.executable_asset_keys
        )
        for partition in partitions:
            by_run[(job, partition)].append(key)
    for (job, partition), keys in sorted(by_run.items(), key=lambda i: (i[0][0], i[0][1] or "")):
        _run(defs, instance, job, partition, keys)


def _tick(defs, instance, selection, cursor):
    """One automation tick over ``selection``: its requests as {asset key: partitions}."""
    result = dg.evaluate_automation_conditions(
        defs=defs, instance=instance, asset_selection=selection, cursor=cursor
    )
    graph = defs.resolve_asset_graph()
    requests = {
        k: result.get_requested_partitions(k)
        for k in selection.resolve(graph)
        if result.get_num_requested(k)
    }
    return requests, result.cursor


def test_a_dropped_pbf_rebuilds_through_to_the_questions(tmp_path):
    watch = tmp_path / "watch"
    watch.mkdir()
    write_tiny_pbf(watch / "town-2026-11.osm.pbf")
    resources = _resources(tmp_path, watch)
    defs = dg.Definitions(
        assets=definitions.ALL_ASSETS,
        jobs=[*definitions.BUILD_PLAN, definitions.intake_job],
        resources=resources,
    )
    chain = definitions.snapshot_chain_automation.asset_selection
    tail = definitions.language_tail_automation.asset_selection
    with dg.instance_for_test() as instance:
        first_id = describe_osm_pbf(watch / "town-2026-11.osm.pbf").snapshot_id
        instance.add_dynamic_partitions("osm_snapshot", [first_id])
        _run(defs, instance, "register_osm_snapshot", first_id)
        for job, partition in definitions.build_runs(jobs=list(FIRST)):
            _run(defs, instance, job, partition)
        _, cursor = _tick(defs, instance, chain, None)

        # a new snapshot lands in the watched folder; the sensor registers it and rebuilds the KGs
        write_tiny_pbf(watch / "town-2026-12.osm.pbf", incomplete_relation=False)
        second_id = describe_osm_pbf(watch / "town-2026-12.osm.pbf").snapshot_id
        sensed = osm_snapshot_sensor(
            dg.build_sensor_context(instance=instance, resources={"inputs": resources["inputs"]})
        )
        for req in sensed.dynamic_partitions_requests:
            instance.add_dynamic_partitions(req.partitions_def_name, list(req.partition_keys))
        for req in sensed.run_requests:
            _run(
                defs,
                instance,
                "register_osm_snapshot" if req.partition_key == second_id else "build_kgs",
                req.partition_key,
                list(req.asset_selection),
            )

        # the automation ticks: conversion and strata of the rebuilt KGs, then coverage and
        # questions
        seen: dict[dg.AssetKey, set] = defaultdict(set)
        for _ in range(4):
            requests, cursor = _tick(defs, instance, chain, cursor)
            if not requests:
                break
            for key, partitions in requests.items():
                seen[key] |= set(partitions)
            _run_requests(defs, instance, requests)
        for key in ("entities", "entity_country", "entity_density", "entity_strata"):
            assert seen[dg.AssetKey(key)] == {"worldkg", "osmh3kg"}, key
        for key in ("strata_coverage", "questions_en", "split_small", "eval_baselines"):
            assert seen[dg.AssetKey(key)] == {None}, key
        # ... and the language tail waits for its own sensor, which ships switched off
        for key in tail.resolve(defs.resolve_asset_graph()):
            assert instance.get_latest_materialization_event(key) is None, key

    with warehouse.session(tmp_path / "home" / "warehouse.duckdb", read_only=True) as con:
        files = dict(con.execute("SELECT kg, source_snapshot_id FROM kg_files").fetchall())
        converted = con.execute(  # the KGs whose entities come from the new snapshot's files
            "SELECT DISTINCT e.kg FROM entities e JOIN kg_files f USING (kg, snapshot_id) "
            "WHERE f.source_snapshot_id = ?",
            [second_id],
        ).fetchall()
        questions = con.execute("SELECT count(*) FROM questions_en").fetchone()[0]
    assert files["worldkg"] == files["osmh3kg"] == second_id
    assert sorted(r[0] for r in converted) == ["osmh3kg", "worldkg"]
    assert questions > 0
