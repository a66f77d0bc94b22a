"""KG builds: each KG in its native format (WorldKG Turtle, OSMH3KG Parquet, KnowWhereGraph crawl)."""

from pathlib import Path

import dagster as dg

from mgqa_dagster.assets.intake import kwg_query_results, osm_snapshot, usgs_earthquakes
from mgqa_dagster.data_quality import kwg_shacl
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.sources import InputsResource, KwgSourceResource
from mgqa_dagster.resources.warehouse import WarehouseResource
from mgqa_platform import snapshots
from mgqa_platform.kg import native
from mgqa_platform.kg.kwg_crawl import build_kwg_crawl, read_county_polygon
from mgqa_platform.kg.osmh3kg_build import build_osmh3kg
from mgqa_platform.kg.sparql import SparqlCrawler, kwg_queries
from mgqa_platform.kg.worldkg_build import BuildReport, build_worldkg
from mgqa_platform.settings import KGS

kg_partitions = dg.StaticPartitionsDefinition(list(KGS))
KG_NATIVE = dg.AssetKey("kg_native")


def _build_osm_kg(
    kg: str, snap: snapshots.Snapshot, inputs: InputsResource, paths: PathsResource
) -> tuple[Path, BuildReport]:
    out = native.native_path(paths.kg_dir(kg), kg, snap.snapshot_id)
    if kg == "worldkg":
        return out, build_worldkg(snap.path, out)
    date = (snap.osm_timestamp or "")[:10]
    return out, build_osmh3kg(
        snap.path,
        out,
        date=date,
        h3_res=inputs.osmh3kg_h3_resolution,
        max_cells=inputs.osmh3kg_max_cells_per_feature,
    )


def _kwg_coverage(inputs: InputsResource, kwg: KwgSourceResource) -> list[snapshots.CoveragePart]:
    """The bundled crawl covers its crawl region, Santa Barbara County; a live crawl declares none
    (conversion falls back to the hull of its entities)."""
    if kwg.mode == "sparql":
        return []
    county = read_county_polygon(Path(inputs.kwg_dir) / "SB_County.shp")
    return [snapshots.CoveragePart("SB_County.shp", "crawl_region", "all features", county)]


def _build_kwg(
    inputs: InputsResource, kwg: KwgSourceResource, paths: PathsResource
) -> tuple[Path, BuildReport]:
    if kwg.mode == "sparql":
        if not kwg.endpoint:
            raise ValueError(
                "KwgSourceResource.mode is 'sparql' but no endpoint is configured (MGQA_KWG_ENDPOINT)"
            )
        out = paths.kg_dir("kwg") / "kwg-sparql-crawl.nt"
        stats = SparqlCrawler(
            kwg.endpoint, page_size=kwg.page_size, token_env=kwg.token_env or None
        ).crawl(kwg_queries(kwg.region), out)
        report = BuildReport()
        for k, v in stats.items():
            if isinstance(v, int):
                report.add(k, v)
        return out, report
    out = native.native_path(paths.kg_dir("kwg"), "kwg", "bundled")
    return out, build_kwg_crawl(Path(inputs.kwg_dir), Path(inputs.earthquakes_csv), out)


@dg.asset(
    partitions_def=kg_partitions,
    ins={
        "osm_snapshot": dg.AssetIn(
            partition_mapping=dg.LastPartitionMapping(), dagster_type=dg.Nothing
        )
    },
    deps=[kwg_query_results, usgs_earthquakes],
    group_name="kg_build",
    kinds={"rdf", "parquet", "osm"},
    check_specs=[kwg_shacl.check_spec(KG_NATIVE)],
    description=(
        "Each KG in its native format, built as the real KG is made: WorldKG Turtle and OSMH3KG Parquet "
        "from the latest OSM snapshot, KnowWhereGraph from its crawl. Skipped elements go to quarantine; "
        "the area the snapshot holds completely (the coverage file beside the PBF, the KWG crawl "
        "region) goes to the coverage table."
    ),
)
def kg_native(
    context: dg.AssetExecutionContext,
    inputs: InputsResource,
    kwg: KwgSourceResource,
    paths: PathsResource,
    warehouse: WarehouseResource,
) -> dg.MaterializeResult:
    kg = context.partition_key
    source_id = None
    if kg == "kwg":
        path, report = _build_kwg(inputs, kwg, paths)
        coverage = _kwg_coverage(inputs, kwg)
    else:
        source_id = context.run.tags.get(
            "mgqa/osm_snapshot"
        ) or context.asset_partition_key_for_input("osm_snapshot")
        with warehouse.get_connection() as con:
            snap = snapshots.resolve_osm_snapshot(con, source_id, inputs.watched_pbfs())
        path, report = _build_osm_kg(kg, snap, inputs, paths)
        coverage = snapshots.read_coverage(snap.path)
    with warehouse.get_connection() as con:
        info = native.record(con, kg, path, source_id, report, context.run_id)
        snapshots.record_coverage(con, kg, info["snapshot_id"], coverage)
    meta = {
        "kg": kg,
        "snapshot_id": info["snapshot_id"],
        "source_osm_snapshot": source_id or "n/a",
        "path": dg.MetadataValue.path(str(path)),
        "sha256": info["sha256"],
        "bytes": info["bytes"],
        "skipped_total": len(report.skipped),
        "coverage_parts": dg.MetadataValue.json(
            [f"{c.part} ({c.method}; {c.complete_for})" for c in coverage]
        ),
        "build_counts": dg.MetadataValue.json(dict(sorted(report.counts.items()))),
    }
    return dg.MaterializeResult(
        metadata=meta,
        data_version=dg.DataVersion(info["sha256"]),
        check_results=[kwg_shacl.check_result(KG_NATIVE, kg, path)],
    )


__all__ = ["kg_native", "kg_partitions", "osm_snapshot"]
