"""The one place that assembles the MGQA code location: assets, checks, jobs, sensors, resources.

Loaded as the module ``mgqa_dagster.definitions`` by ``dagster dev -w workspace.yaml``, by the ``mgqa`` CLI and
by the tests. Every asset of :mod:`mgqa_dagster.assets` is found with ``load_assets_from_package_module``.
"""

from __future__ import annotations

import dagster as dg

from mgqa_dagster import assets
from mgqa_dagster.assets import evaluation, intake, kg_build, kg_conversion, multilingual, questions, release, strata
from mgqa_platform import settings
from mgqa_dagster.resources.llm import LLMResource, PostEditEnsembleResource, ensemble_from_env
from mgqa_dagster.resources.sources import InputsResource, KwgSourceResource, StrataInputsResource
from mgqa_dagster.resources.translator import TranslatorResource
from mgqa_dagster.resources.warehouse import WarehouseResource

ALL_ASSETS = dg.load_assets_from_package_module(assets)

#: What `mgqa build` materializes, in order: KG-independent strata inputs, then per KG partition the KG
#: build, conversion and strata, then the coverage over all KGs, then the template catalog and questions, then
#: the evaluation of the reference systems (gold, majority baseline, reference solver), then every language partition
#: (translation, post-edit resolution, re-instantiation, post-edit ensemble, release files), then the release card.
GLOBAL_STRATA = dg.AssetSelection.assets(strata.countries, strata.population_raster, strata.density_cells)
PER_KG = dg.AssetSelection.groups("kg_build", "kg_conversion") | dg.AssetSelection.assets(strata.entity_country, strata.entity_density, strata.entity_strata)
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
    """Resources from the environment (``EnvVar``) with sample defaults; tests pass overrides."""
    res = {
        "warehouse": WarehouseResource(database=dg.EnvVar("MGQA_WAREHOUSE").get_value(str(settings.default_warehouse_path()))),
        "inputs": InputsResource(
            osm_watch_dir=dg.EnvVar("MGQA_OSM_WATCH_DIR").get_value(str(settings.default_osm_watch_dir())),
            work_dir=str(settings.home()),
        ),
        "strata_inputs": StrataInputsResource(
            countries_path=dg.EnvVar("MGQA_COUNTRIES").get_value(str(settings.SAMPLE_DIR / "naturalearth" / "ne_50m_admin_0_countries.geojson")),
            income_path=dg.EnvVar("MGQA_INCOME").get_value(str(settings.SAMPLE_DIR / "worldbank" / "wb_income_fy2026.csv")),
            income_fiscal_year=dg.EnvVar("MGQA_INCOME_FISCAL_YEAR").get_value(""),
            unclassified_policy=dg.EnvVar("MGQA_UNCLASSIFIED_POLICY").get_value("previous"),
            population_raster=dg.EnvVar("MGQA_POPULATION_RASTER").get_value(""),
            work_dir=str(settings.home()),
            docs_map_path=dg.EnvVar("MGQA_DOCS_MAP_PATH").get_value(""),
        ),
        "translator": TranslatorResource(
            mode=dg.EnvVar("MGQA_TRANSLATOR").get_value("memory"),
            project_id=dg.EnvVar("MGQA_GOOGLE_PROJECT").get_value(""),
            location=dg.EnvVar("MGQA_GOOGLE_LOCATION").get_value("global"),
            model=dg.EnvVar("MGQA_GOOGLE_MODEL").get_value(""),
            endpoint=dg.EnvVar("MGQA_TRANSLATOR_ENDPOINT").get_value(""),
            memory_dir=dg.EnvVar("MGQA_TRANSLATION_MEMORY").get_value(""),
        ),
        "llm": LLMResource(
            base_url=dg.EnvVar("MGQA_LLM_BASE_URL").get_value(""),
            model=dg.EnvVar("MGQA_LLM_MODEL").get_value(""),
            api_key_env="MGQA_LLM_API_KEY",
        ),
        "ensemble": PostEditEnsembleResource(
            endpoints=ensemble_from_env(dg.EnvVar("MGQA_ENSEMBLE_ENDPOINTS").get_value("")),
            primary=dg.EnvVar("MGQA_ENSEMBLE_PRIMARY").get_value(""),
            with_rules=dg.EnvVar("MGQA_ENSEMBLE_WITH_RULES").get_value("0") in ("1", "true", "yes"),
            concurrency=int(dg.EnvVar("MGQA_ENSEMBLE_CONCURRENCY").get_value("4")),
        ),
        "kwg": KwgSourceResource(
            mode=dg.EnvVar("MGQA_KWG_MODE").get_value("bundled"),
            endpoint=dg.EnvVar("MGQA_KWG_ENDPOINT").get_value(""),
            token_env=dg.EnvVar("MGQA_KWG_TOKEN_ENV").get_value(""),
        ),
    }
    res.update(overrides)
    return res


defs = dg.Definitions(
    assets=ALL_ASSETS,
    jobs=[kg_job, strata_job, coverage_job, questions_job, evaluation_job, language_job, release_job, intake_job],
    sensors=[intake.osm_snapshot_sensor],
    resources=build_resources(),
)
