"""The one place that assembles the MGQA code location: assets, checks, jobs, sensors, resources.

Loaded as the module ``mgqa_dagster.definitions`` by ``dagster dev -w workspace.yaml``, by the ``mgqa`` CLI and
by the tests. Every asset of :mod:`mgqa_dagster.assets` is found with ``load_assets_from_package_module``.
"""

from __future__ import annotations

import dagster as dg

from mgqa_dagster import assets
from mgqa_dagster.assets import (
    intake,
    kg_build,
    multilingual,
    release,
    strata,
)
from mgqa_dagster.resources.llm import LLMResource, PostEditEnsembleResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.sources import (
    ConversionResource,
    InputsResource,
    KwgSourceResource,
    StrataInputsResource,
)
from mgqa_dagster.resources.translator import TranslatorResource
from mgqa_dagster.resources.warehouse import WarehouseResource

ALL_ASSETS = dg.load_assets_from_package_module(assets)

#: What `mgqa build` materializes, in order: KG-independent strata inputs, then per KG partition the KG
#: build, conversion and strata, then the coverage over all KGs, then the template catalog and questions, then
#: the evaluation of the reference systems (gold, majority baseline, reference solver), then every language partition
#: (translation, post-edit resolution, re-instantiation, post-edit ensemble, release files), then the release card.
GLOBAL_STRATA = dg.AssetSelection.assets(
    strata.countries, strata.population_raster, strata.density_cells
)
PER_KG = dg.AssetSelection.groups("kg_build", "kg_conversion") | dg.AssetSelection.assets(
    strata.entity_country, strata.entity_density, strata.entity_strata
)
COVERAGE = dg.AssetSelection.assets(strata.strata_coverage)
QUESTIONS = dg.AssetSelection.groups("questions")
EVALUATION = dg.AssetSelection.groups("evaluation")
MULTILINGUAL = dg.AssetSelection.groups("multilingual")
LANGUAGE = MULTILINGUAL | dg.AssetSelection.assets(release.release_questions)
RELEASE = dg.AssetSelection.assets(release.release_card)

kg_job = dg.define_asset_job(
    "build_kgs",
    selection=PER_KG,
    partitions_def=kg_build.kg_partitions,
    description="Build one KG in its native format, convert it into the entity tables and stratify its entities (one run per KG partition).",
)
strata_job = dg.define_asset_job(
    "build_strata_inputs",
    selection=GLOBAL_STRATA,
    description="Countries with income tiers, the population raster and density cells (independent of the KGs).",
)
coverage_job = dg.define_asset_job("strata_coverage_report", selection=COVERAGE)
questions_job = dg.define_asset_job(
    "build_questions_en",
    selection=QUESTIONS,
    description="Load the template catalog, instantiate the English questions with execution-based gold over all KGs "
    "(with false premises and the multimodal slice), draw the small split and report the distribution.",
)
evaluation_job = dg.define_asset_job(
    "evaluate_reference_systems",
    selection=EVALUATION,
    description="Score the gold answers, the majority baseline and the compute-grounded reference solver on the English "
    "splits, and write the evaluation reports.",
)
language_job = dg.define_asset_job(
    "build_language",
    selection=LANGUAGE,
    partitions_def=multilingual.language_partitions,
    description="One language: translate the templates, resolve the human post-edits, re-instantiate every English "
    "question, post-edit it with the ensemble and write its release files (one run per language partition; English is a "
    "partition too).",
)
release_job = dg.define_asset_job(
    "publish_release",
    selection=RELEASE,
    description="Write the release's dataset card, attribution, entity sites GeoParquet and checksums over the languages "
    "written so far (runs by itself once every language partition is released).",
)
intake_job = dg.define_asset_job(
    "register_osm_snapshot",
    selection=dg.AssetSelection.assets(intake.osm_snapshot),
    partitions_def=intake.osm_snapshot_partitions,
)


def build_resources(**overrides) -> dict:
    """The code location's resources; tests pass overrides.

    Nothing here reads the environment: the fields bound to ``MGQA_*`` variables are read when a
    run initializes each resource (:mod:`mgqa_dagster.resources.env`). One :class:`PathsResource`
    is shared by every resource that needs a folder; an override of ``paths`` applies to them too.
    """
    paths = overrides.pop("paths", None) or PathsResource()
    res = {
        "paths": paths,
        "warehouse": WarehouseResource(paths=paths),
        "inputs": InputsResource(),
        "conversion": ConversionResource(),
        "strata_inputs": StrataInputsResource(),
        "translator": TranslatorResource(),
        "llm": LLMResource(),
        "ensemble": PostEditEnsembleResource(paths=paths),
        "kwg": KwgSourceResource(),
    }
    res.update(overrides)
    return res


defs = dg.Definitions(
    assets=ALL_ASSETS,
    jobs=[
        kg_job,
        strata_job,
        coverage_job,
        questions_job,
        evaluation_job,
        language_job,
        release_job,
        intake_job,
    ],
    sensors=[intake.osm_snapshot_sensor],
    resources=build_resources(),
)
