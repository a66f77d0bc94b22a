"""Snapshot intake: observable source assets (data version = file hash), the ``osm_snapshot``
dynamic partitions, and the sensor that turns a new PBF in the watched folder into a rebuild."""

import hashlib
import json
from pathlib import Path

import dagster as dg

from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.sources import InputsResource
from mgqa_dagster.resources.warehouse import WAREHOUSE_POOL, WarehouseResource
from mgqa_platform import snapshots
from mgqa_platform.files import sha256_file
from mgqa_platform.settings import OSM_DERIVED_KGS

osm_snapshot_partitions = dg.DynamicPartitionsDefinition(name="osm_snapshot")


def _folder_version(files: list[Path]) -> str:
    """One hash over (name, sha256) of each file: changes iff any file's bytes or the file set
    change."""
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.name.encode())
        h.update(sha256_file(f).encode())
    return h.hexdigest()


@dg.observable_source_asset(
    group_name="sources",
    description="OSM PBF snapshots in the watched folder (MGQA_OSM_WATCH_DIR).",
)
def osm_pbf_files(inputs: InputsResource) -> dg.DataVersion:
    return dg.DataVersion(_folder_version(inputs.watched_pbfs()))


@dg.observable_source_asset(
    group_name="sources",
    description="KnowWhereGraph query results bundled with the sample (CSV + county shapefile).",
)
def kwg_query_results(inputs: InputsResource) -> dg.DataVersion:
    return dg.DataVersion(
        _folder_version([p for p in Path(inputs.kwg_dir).iterdir() if p.is_file()])
    )


@dg.observable_source_asset(
    group_name="sources",
    description="USGS ComCat earthquake catalog CSV (hazard events for KnowWhereGraph).",
)
def usgs_earthquakes(inputs: InputsResource) -> dg.DataVersion:
    return dg.DataVersion(sha256_file(inputs.earthquakes_csv))


@dg.asset(
    pool=WAREHOUSE_POOL,
    partitions_def=osm_snapshot_partitions,
    deps=[osm_pbf_files],
    group_name="intake",
    kinds={"duckdb", "osm"},
    description="Registers one OSM PBF snapshot (id = '<stem>-<sha256[:12]>') in the `snapshots` "
    "table.",
)
def osm_snapshot(
    context: dg.AssetExecutionContext,
    inputs: InputsResource,
    paths: PathsResource,
    warehouse: WarehouseResource,
) -> dg.MaterializeResult:
    with warehouse.get_connection() as con:
        snap = snapshots.resolve_osm_snapshot(con, context.partition_key, inputs.watched_pbfs())
    return dg.MaterializeResult(
        metadata={**snap.as_metadata(), "path": paths.portable(snap.path)},
        data_version=dg.DataVersion(snap.sha256),
    )


@dg.sensor(
    name="osm_snapshot_sensor",
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    asset_selection=dg.AssetSelection.assets("osm_snapshot", "kg_native"),
    description="Watches the OSM folder; a new PBF becomes an osm_snapshot partition and "
    "rebuilds the OSM-derived KGs.",
)
def osm_snapshot_sensor(
    context: dg.SensorEvaluationContext, inputs: InputsResource
) -> dg.SensorResult | dg.SkipReason:
    # cursor: {"<file name>": [size, mtime_ns, snapshot_id]} so unchanged files are not re-hashed
    seen: dict[str, list] = json.loads(context.cursor) if context.cursor else {}
    known = set(context.instance.get_dynamic_partitions(osm_snapshot_partitions.name))
    new_ids: list[str] = []
    for pbf in inputs.watched_pbfs():
        st = pbf.stat()
        prev = seen.get(pbf.name)
        if prev and prev[0] == st.st_size and prev[1] == st.st_mtime_ns:
            sid = prev[2]
        else:
            try:
                sid = snapshots.describe_osm_pbf(pbf).snapshot_id
            except (
                snapshots.OsmSnapshotError
            ) as e:  # a half-copied or corrupt file: report, retry next tick
                context.log.warning(f"skipping unreadable OSM snapshot {pbf.name}: {e}")
                continue
            seen[pbf.name] = [st.st_size, st.st_mtime_ns, sid]
        if sid not in known and sid not in new_ids:
            new_ids.append(sid)
    cursor = json.dumps(seen, sort_keys=True)
    if not new_ids:
        return dg.SensorResult(skip_reason=dg.SkipReason("no new OSM snapshot"), cursor=cursor)
    latest = new_ids[-1]
    runs = [
        dg.RunRequest(
            run_key=f"register:{sid}",
            asset_selection=[dg.AssetKey("osm_snapshot")],
            partition_key=sid,
        )
        for sid in new_ids
    ]
    runs += [
        dg.RunRequest(
            run_key=f"rebuild:{latest}:{kg}",
            asset_selection=[dg.AssetKey("kg_native")],
            partition_key=kg,
            tags={"mgqa/osm_snapshot": latest},
        )
        for kg in OSM_DERIVED_KGS
    ]
    return dg.SensorResult(
        run_requests=runs,
        dynamic_partitions_requests=[osm_snapshot_partitions.build_add_request(new_ids)],
        cursor=cursor,
    )
