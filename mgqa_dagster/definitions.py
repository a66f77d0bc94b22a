"""The one place that assembles the MGQA code location: assets, checks, jobs, sensors, resources.

Loaded as the module ``mgqa_dagster.definitions`` by ``dagster dev -w workspace.yaml``, by the
``mgqa`` CLI and by the tests. Every asset of :mod:`mgqa_dagster.assets` is found with
``load_assets_from_package_module``.
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
from mgqa_dagster.resources.engine import EngineResource
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

#: The selections of the named jobs below; each asset is in exactly one of them.
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
SOURCES = dg.AssetSelection.assets(*(a.key for a in ALL_ASSETS if isinstance(a, dg.SourceAsset)))

#: Every job runs its steps in one process: resources are initialized once per run and no step pays
#: for a Python start of its own, so a run launched from the UI costs what `mgqa build` pays.
EXECUTOR = dg.in_process_executor


def _job(
    name: str, selection, description: str | None = None, **kwargs
) -> dg.UnresolvedAssetJobDefinition:
    """An asset job of ``selection`` on :data:`EXECUTOR`; ``kwargs``: its partitions."""
    return dg.define_asset_job(
        name, selection=selection, executor_def=EXECUTOR, description=description, **kwargs
    )


kg_job = _job(
    "build_kgs",
    PER_KG,
    partitions_def=kg_build.kg_partitions,
    description="Build one KG in its native format, convert it into the entity tables and "
    "stratify its entities (one run per KG partition).",
)
strata_job = _job(
    "build_strata_inputs",
    GLOBAL_STRATA,
    description="Countries with income tiers, the population raster and density cells "
    "(independent of the KGs).",
)
coverage_job = _job(
    "strata_coverage_report",
    COVERAGE,
    description="Count entities per income x density cell over all KGs and draw the strata world "
    "map.",
)
questions_job = _job(
    "build_questions_en",
    QUESTIONS,
    description="Load the template catalog, instantiate the English questions with "
    "execution-based gold over all KGs "
    "(with false premises and the multimodal slice), "
    "draw the small split and report the distribution.",
)
evaluation_job = _job(
    "evaluate_reference_systems",
    EVALUATION,
    description="Score the gold answers, the majority baseline and the compute-grounded "
    "reference solver on the English "
    "splits, and write the evaluation reports.",
)
language_job = _job(
    "build_language",
    LANGUAGE,
    partitions_def=multilingual.language_partitions,
    description="One language: translate the templates, resolve the human post-edits, "
    "re-instantiate every English "
    "question, post-edit it with the ensemble and write its release files "
    "(one run per language partition; English is a "
    "partition too).",
)
release_job = _job(
    "publish_release",
    RELEASE,
    description="Write the release's dataset card, attribution, "
    "entity sites GeoParquet and checksums over the languages "
    "written so far.",
)
intake_job = _job(
    "register_osm_snapshot",
    dg.AssetSelection.assets(intake.osm_snapshot),
    partitions_def=intake.osm_snapshot_partitions,
)
sources_job = _job(
    "observe_sources",
    SOURCES,
    description="Hash the inputs (OSM snapshots, KnowWhereGraph results, USGS catalog, "
    "country polygons, income "
    "classification): a changed "
    "input shows its downstream assets as stale.",
)

#: The pipeline as `mgqa build` walks it: each job over all its partitions (unless the command
#: narrows them), in this order. The last two are the language tail (LANGUAGE_TAIL).
BUILD_PLAN = (
    strata_job,
    kg_job,
    coverage_job,
    questions_job,
    evaluation_job,
    language_job,
    release_job,
)
#: The expensive tail of a rebuild: 17 language partitions and the release. Automation refreshes it
#: only while the `language_tail_automation` sensor is switched on (docs/configuration.md).
LANGUAGE_TAIL = (language_job, release_job)


def build_runs(
    narrow: dict[str, list[str]] | None = None, jobs: list[str] | None = None
) -> list[tuple[str, str | None]]:
    """The runs of `mgqa build` as ``(job name, partition key or None)``, in BUILD_PLAN order.

    ``jobs`` keeps only the named jobs; ``narrow`` maps a partitioned job's name to the partition
    keys to run (in the job's own partition order); any other partitioned job runs all its keys.
    """
    narrow = narrow or {}
    runs: list[tuple[str, str | None]] = []
    for job in BUILD_PLAN:
        if jobs is not None and job.name not in jobs:
            continue
        if job.partitions_def is None:
            runs.append((job.name, None))
            continue
        keys = job.partitions_def.get_partition_keys()
        wanted = narrow.get(job.name)
        runs += [(job.name, k) for k in keys if wanted is None or k in wanted]
    return runs


def _selection(jobs) -> dg.AssetSelection:
    """The union of the jobs' selections."""
    out = dg.AssetSelection.assets()
    for job in jobs:
        out = out | job.selection
    return out


#: Rebuilds by automation (eager conditions on the assets): a new KG file refreshes the conversion,
#: the strata, the coverage, the English questions and their evaluation by itself; the language tail
#: waits behind a sensor of its own that ships switched off.
snapshot_chain_automation = dg.AutomationConditionSensorDefinition(
    "snapshot_chain_automation",
    target=_selection(BUILD_PLAN[:5]),
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Refreshes conversion -> strata -> coverage -> English questions -> evaluation "
    "after a "
    "KG is rebuilt (e.g. by osm_snapshot_sensor). On by default.",
)
language_tail_automation = dg.AutomationConditionSensorDefinition(
    "language_tail_automation",
    target=_selection(LANGUAGE_TAIL),
    default_status=dg.DefaultSensorStatus.STOPPED,
    description="Refreshes the 17 language partitions and the release after the English questions "
    "change: 17 runs and a new release. Off by default; switch it on to let a new snapshot "
    "reach the "
    "release by itself (docs/configuration.md, Rebuilds).",
)
source_check_schedule = dg.ScheduleDefinition(
    name="source_check_schedule",
    job=sources_job,
    cron_schedule="0 3 * * *",
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Daily at 03:00: hash the input folders, "
    "so a changed KnowWhereGraph result or USGS "
    "catalog shows kg_native as stale (new PBFs are picked up by osm_snapshot_sensor every "
    "minute).",
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
        "engine": EngineResource(paths=paths),
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
    jobs=[*BUILD_PLAN, intake_job, sources_job],
    sensors=[intake.osm_snapshot_sensor, snapshot_chain_automation, language_tail_automation],
    schedules=[source_check_schedule],
    executor=EXECUTOR,
    resources=build_resources(),
)
