"""Snapshot of the code location: asset keys, groups, partitions, checks, jobs and sensors."""

from __future__ import annotations

import dagster as dg

from mgqa_dagster import definitions
from mgqa_platform.questions import schema


def test_asset_graph_snapshot():
    graph = definitions.defs.resolve_asset_graph()
    keys = sorted(k.to_user_string() for k in graph.get_all_asset_keys())
    assert keys == sorted(
        [
            "osm_pbf_files",
            "kwg_query_results",
            "usgs_earthquakes",
            "osm_snapshot",
            "kg_native",
            "entities",
            "entity_labels",
            "entity_triples",
            "quarantine",
            "natural_earth_countries",
            "world_bank_income",
            "countries",
            "population_raster",
            "density_cells",
            "entity_country",
            "entity_density",
            "entity_strata",
            "strata_coverage",
            "templates",
            "questions_en",
            "question_discards",
            "split_small",
            "question_distribution",
            "eval_baselines",
            "eval_reference_solver",
            "evaluation_report",
            "template_translations",
            "template_translations_resolved",
            "annotation_agreement",
            "questions_localized",
            "questions_postedited",
            "ensemble_edit_log",
            "ensemble_stats",
            "release_questions",
            "release_card",
        ]
    )
    groups = {k.to_user_string(): graph.get(k).group_name for k in graph.materializable_asset_keys}
    assert groups == {
        "osm_snapshot": "intake",
        "kg_native": "kg_build",
        "entities": "kg_conversion",
        "entity_labels": "kg_conversion",
        "entity_triples": "kg_conversion",
        "quarantine": "kg_conversion",
        "countries": "strata",
        "population_raster": "strata",
        "density_cells": "strata",
        "entity_country": "strata",
        "entity_density": "strata",
        "entity_strata": "strata",
        "strata_coverage": "strata",
        "templates": "questions",
        "questions_en": "questions",
        "question_discards": "questions",
        "split_small": "questions",
        "question_distribution": "questions",
        "eval_baselines": "evaluation",
        "eval_reference_solver": "evaluation",
        "evaluation_report": "evaluation",
        "template_translations": "multilingual",
        "template_translations_resolved": "multilingual",
        "annotation_agreement": "multilingual",
        "questions_localized": "multilingual",
        "questions_postedited": "multilingual",
        "ensemble_edit_log": "multilingual",
        "ensemble_stats": "multilingual",
        "release_questions": "release",
        "release_card": "release",
    }
    # lineage: conversion <- native KG <- latest OSM snapshot + the KWG inputs
    parents = {
        k.to_user_string() for k in graph.get(definitions.kg_build.kg_native.key).parent_keys
    }
    assert parents == {"osm_snapshot", "kwg_query_results", "usgs_earthquakes"}
    # questions <- catalog + every KG partition of the strata
    assert {k.to_user_string() for k in graph.get(dg.AssetKey("questions_en")).parent_keys} == {
        "templates",
        "entity_strata",
    }
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
    # evaluation <- the released questions (and the small split for the baselines)
    assert {k.to_user_string() for k in graph.get(dg.AssetKey("eval_baselines")).parent_keys} == {
        "questions_en",
        "split_small",
    }
    assert {
        k.to_user_string() for k in graph.get(dg.AssetKey("evaluation_report")).parent_keys
    } == {"eval_baselines", "eval_reference_solver"}
    # languages: catalog -> translations -> resolved -> re-instantiated English questions, one partition per language
    assert {
        k.to_user_string() for k in graph.get(dg.AssetKey("questions_localized")).parent_keys
    } == {"template_translations_resolved", "questions_en"}
    # ... -> post-edit ensemble -> release files per language -> the card over all languages (unpartitioned)
    assert {
        k.to_user_string() for k in graph.get(dg.AssetKey("questions_postedited")).parent_keys
    } == {"questions_localized"}
    assert {
        k.to_user_string() for k in graph.get(dg.AssetKey("release_questions")).parent_keys
    } == {"questions_postedited", "split_small"}
    assert {k.to_user_string() for k in graph.get(dg.AssetKey("release_card")).parent_keys} == {
        "release_questions"
    }
    assert graph.get(dg.AssetKey("release_card")).partitions_def is None
    paper = "eng fra ita por ron spa bul rus deu urd sqi ell jpn kat tur vie zho".split()
    for key in (
        "template_translations",
        "template_translations_resolved",
        "annotation_agreement",
        "questions_localized",
        "questions_postedited",
        "ensemble_edit_log",
        "ensemble_stats",
        "release_questions",
    ):
        assert graph.get(dg.AssetKey(key)).partitions_def.get_partition_keys() == paper


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


def test_checks_partitions_jobs_sensors():
    graph = definitions.defs.resolve_asset_graph()
    checks = sorted(c.name for c in graph.asset_check_keys)
    assert checks == sorted(
        [
            "unique_entity_ids",
            "valid_geometries",
            "non_empty_names",
            "known_categories",
            "entity_count_in_range",
            "display_names_unique",
            "road_parts_resolve",
            "kwg_shacl",
            "countries_valid",
            "tercile_breaks_increasing",
            "density_tiers_valid",
            "country_or_reason",
            "strata_domains",
            "all_income_tiers_present",
            "catalog_complete",
            "gold_validates",
            "no_duplicate_question_gold",
            "no_coordinates_or_ids_in_text",
            "category_words_in_lexicon",
            "query_and_gold_triples",
            "gold_replays",
            "templates_yield_questions",
            "questions_valid",
            "false_premises_are_false",
            "false_premise_share",
            "multimodal_slice_valid",
            "small_split_cells",
            "gold_scores_perfect",
            "scores_complete",
            "reference_solver_misses_explained",
            "translations_cover_catalog",
            "placeholders_survive_translation",
            "resolved_cover_catalog",
            "resolved_placeholders_intact",
            "every_english_question_localized",
            "localized_text_filled",
            "labels_in_script",
            "grammar_detectors",
            "every_localized_question_postedited",
            "entity_names_untouched",
            "edits_logged",
            "member_replies_valid",
            "grammar_detectors_postedited",
            "release_matches_warehouse",
            "release_same_questions_as_english",
            "release_files_match_warehouse",
            "release_verified",
            "release_all_languages",
            "entity_sites_cover_bindings",
            "geometry_bounds",
            "country_polygons_sound",
            "country_share",
            "stratum_share",
            *["rows_not_shrunk"] * len(WRITE_AUDIT_PUBLISH),
        ]
    )
    guarded = {
        k.asset_key.to_user_string() for k in graph.asset_check_keys if k.name == "rows_not_shrunk"
    }
    assert guarded == set(WRITE_AUDIT_PUBLISH)
    # the strata of an entity depend on its country and its density cell
    parents = {k.to_user_string() for k in graph.get(dg.AssetKey("entity_strata")).parent_keys}
    assert parents == {"entity_country", "entity_density", "countries"}
    assert definitions.kg_build.kg_partitions.get_partition_keys() == ["worldkg", "kwg", "osmh3kg"]
    assert {j.name for j in definitions.defs.jobs} >= {
        "build_kgs",
        "build_strata_inputs",
        "strata_coverage_report",
        "build_questions_en",
        "evaluate_reference_systems",
        "build_language",
        "publish_release",
        "register_osm_snapshot",
    }
    assert [s.name for s in definitions.defs.sensors] == ["osm_snapshot_sensor"]


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
