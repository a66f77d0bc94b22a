"""The one place that assembles the MGQA code location: assets, checks, jobs, sensors, resources.

Loaded by ``dagster dev -w workspace.yaml``, by the ``mgqa`` CLI and by the tests.
"""

from __future__ import annotations

import dagster as dg

from assets import intake, kg_build, kg_conversion
from mgqa_platform import settings
from resources.sources import InputsResource, KwgSourceResource
from resources.warehouse import WarehouseResource

ALL_ASSETS = [
    intake.osm_pbf_files,
    intake.kwg_query_results,
    intake.usgs_earthquakes,
    intake.osm_snapshot,
    kg_build.kg_native,
    kg_conversion.kg_entities,
]

kg_job = dg.define_asset_job(
    "build_kgs",
    selection=dg.AssetSelection.groups("kg_build", "kg_conversion"),
    partitions_def=kg_build.kg_partitions,
    description="Build one KG in its native format and convert it into the entity tables (one run per KG partition).",
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
        "kwg": KwgSourceResource(
            mode=dg.EnvVar("MGQA_KWG_MODE").get_value("bundled"),
            endpoint=dg.EnvVar("MGQA_KWG_ENDPOINT").get_value(""),
        ),
    }
    res.update(overrides)
    return res


defs = dg.Definitions(
    assets=ALL_ASSETS,
    jobs=[kg_job, intake_job],
    sensors=[intake.osm_snapshot_sensor],
    resources=build_resources(),
)
