"""The OSM snapshot sensor: a new PBF becomes a dynamic partition and rebuild requests."""

from __future__ import annotations

import shutil

import dagster as dg

from mgqa_dagster.assets.intake import osm_snapshot_partitions, osm_snapshot_sensor
from mgqa_dagster.resources.sources import InputsResource
from mgqa_platform.snapshots import describe_osm_pbf
from tests.conftest import write_tiny_pbf


def _tick(instance, watch, cursor=None):
    ctx = dg.build_sensor_context(
        instance=instance,
        cursor=cursor,
        resources={"inputs": InputsResource(osm_watch_dir=str(watch))},
    )
    return osm_snapshot_sensor(ctx)


def _apply(instance, result):
    for req in result.dynamic_partitions_requests:
        instance.add_dynamic_partitions(req.partitions_def_name, list(req.partition_keys))


def test_new_snapshot_registers_partition_and_requests_rebuild(tmp_path):
    watch = tmp_path / "watch"
    watch.mkdir()
    pbf = write_tiny_pbf(watch / "region-2026-11-01.osm.pbf")
    sid = describe_osm_pbf(pbf).snapshot_id
    with dg.instance_for_test() as instance:
        result = _tick(instance, watch)
        assert isinstance(result, dg.SensorResult)
        (add,) = result.dynamic_partitions_requests
        assert add.partitions_def_name == osm_snapshot_partitions.name and list(
            add.partition_keys
        ) == [sid]
        requested = sorted(
            (tuple(k.to_user_string() for k in r.asset_selection), r.partition_key)
            for r in result.run_requests
        )
        assert requested == [
            (("kg_native",), "osmh3kg"),
            (("kg_native",), "worldkg"),
            (("osm_snapshot",), sid),
        ]
        assert all(
            r.tags.get("mgqa/osm_snapshot") == sid
            for r in result.run_requests
            if r.partition_key != sid
        )
        _apply(instance, result)

        # same folder, next tick: nothing new, and the file is not re-hashed (cursor keeps
        # size/mtime)
        again = _tick(instance, watch, result.cursor)
        assert not again.run_requests and not again.dynamic_partitions_requests

        # a second snapshot lands: only it is registered and rebuilt
        second = write_tiny_pbf(watch / "region-2026-12-01.osm.pbf", incomplete_relation=False)
        sid2 = describe_osm_pbf(second).snapshot_id
        third = _tick(instance, watch, again.cursor)
        assert [list(r.partition_keys) for r in third.dynamic_partitions_requests] == [[sid2]]
        assert {
            r.tags.get("mgqa/osm_snapshot")
            for r in third.run_requests
            if r.partition_key in ("worldkg", "osmh3kg")
        } == {sid2}


def test_half_copied_file_is_skipped_not_fatal(tmp_path):
    watch = tmp_path / "watch"
    watch.mkdir()
    good = write_tiny_pbf(tmp_path / "good.osm.pbf")
    data = good.read_bytes()
    (watch / "partial.osm.pbf").write_bytes(data[: len(data) // 3])
    with dg.instance_for_test() as instance:
        result = _tick(instance, watch)
        assert (
            not result.run_requests
        )  # the truncated file is reported and retried on the next tick
        shutil.copy(good, watch / "partial.osm.pbf")
        result = _tick(instance, watch, result.cursor)
        assert len(result.run_requests) == 3


#: The per-KG tables built from a KG's native file, in build order.
KG_TABLES = (
    "entities",
    "entity_labels",
    "entity_triples",
    "quarantine",
    "entity_country",
    "entity_density",
    "entity_strata",
)
LANGS = "eng fra ita por ron spa bul rus deu urd sqi ell jpn kat tur vie zho".split()


def test_rebuilt_kg_flows_downstream_through_automation():
    """After the sensor's kg_native[worldkg] run, eager conditions request the conversion and the
    strata of that KG only, then the coverage and the English questions over all KGs."""
    from mgqa_dagster import definitions

    with dg.instance_for_test() as instance:
        first = dg.evaluate_automation_conditions(defs=definitions.defs, instance=instance)
        for key in ("countries", "population_raster", "density_cells"):
            instance.report_runless_asset_event(dg.AssetMaterialization(key))
        for key in ("kg_native", *KG_TABLES):
            for kg in ("worldkg", "kwg", "osmh3kg"):
                instance.report_runless_asset_event(dg.AssetMaterialization(key, partition=kg))
        for key in (
            "strata_coverage",
            "templates",
            "questions_en",
            "split_small",
            "question_distribution",
            "eval_baselines",
            "eval_reference_solver",
            "evaluation_report",
        ):
            instance.report_runless_asset_event(dg.AssetMaterialization(key))
        for key in (
            "template_translations",
            "template_translations_resolved",
            "questions_localized",
            "questions_postedited",
            "release_questions",
        ):
            for lang in LANGS:
                instance.report_runless_asset_event(dg.AssetMaterialization(key, partition=lang))
        instance.report_runless_asset_event(dg.AssetMaterialization("release_card"))
        settled = dg.evaluate_automation_conditions(
            defs=definitions.defs, instance=instance, cursor=first.cursor
        )
        assert settled.total_requested == 0
        instance.report_runless_asset_event(
            dg.AssetMaterialization("kg_native", partition="worldkg")
        )
        tick = dg.evaluate_automation_conditions(
            defs=definitions.defs, instance=instance, cursor=settled.cursor
        )
        assert tick.get_requested_partitions(dg.AssetKey("entities")) == {"worldkg"}
        # eager conditions see that upstream partitions will be requested in the same tick: the
        # whole chain at once
        for key in ("entity_country", "entity_density", "entity_strata"):
            assert tick.get_requested_partitions(dg.AssetKey(key)) == {"worldkg"}, key
        # the coverage over all KGs follows once the KG's strata have landed
        for key in KG_TABLES:
            instance.report_runless_asset_event(dg.AssetMaterialization(key, partition="worldkg"))
        tick = dg.evaluate_automation_conditions(
            defs=definitions.defs, instance=instance, cursor=tick.cursor
        )
        assert tick.get_num_requested(dg.AssetKey("strata_coverage")) == 1
        # ... and so do the questions, regenerated over the new entities (the catalog did not
        # change)
        assert tick.get_num_requested(dg.AssetKey("questions_en")) == 1
        assert tick.get_num_requested(dg.AssetKey("split_small")) == 1
        assert tick.get_num_requested(dg.AssetKey("question_distribution")) == 1
        assert (
            tick.get_num_requested(dg.AssetKey("eval_baselines")) == 1
        )  # re-scored on the new questions
        assert tick.get_num_requested(dg.AssetKey("eval_reference_solver")) == 1
        # ... and once the new questions have landed, every language re-instantiates them (templates
        # unchanged): what the tail's conditions request when language_tail_automation is switched
        # on (this test evaluates every condition; the daemon only those of running sensors)
        instance.report_runless_asset_event(dg.AssetMaterialization("questions_en"))
        tick = dg.evaluate_automation_conditions(
            defs=definitions.defs, instance=instance, cursor=tick.cursor
        )
        assert tick.get_requested_partitions(dg.AssetKey("questions_localized")) == set(LANGS)
        # ... then post-edit and release them; the card waits until every language's files are
        # written
        assert tick.get_requested_partitions(dg.AssetKey("questions_postedited")) == set(LANGS)
        assert tick.get_requested_partitions(dg.AssetKey("release_questions")) == set(LANGS)
        assert tick.get_num_requested(dg.AssetKey("template_translations")) == 0
        assert tick.get_num_requested(dg.AssetKey("templates")) == 0


def test_observable_source_version_is_the_file_hash(tmp_path):
    from dagster._core.definitions.observe import (
        observe,  # not re-exported at the top level in 1.13
    )

    from mgqa_dagster.assets.intake import osm_pbf_files

    watch = tmp_path / "watch"
    watch.mkdir()
    write_tiny_pbf(watch / "a.osm.pbf")

    def version():
        res = observe(
            [osm_pbf_files], resources={"inputs": InputsResource(osm_watch_dir=str(watch))}
        )
        (obs,) = res.asset_observations_for_node("osm_pbf_files")
        return obs.tags["dagster/data_version"]

    v1 = version()
    assert v1 == version()  # same bytes, same version
    write_tiny_pbf(watch / "a.osm.pbf", incomplete_relation=False)
    assert version() != v1  # new bytes, new version
