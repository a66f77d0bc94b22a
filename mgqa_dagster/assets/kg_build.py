"""KG builds: each KG in its native format (WorldKG Turtle, OSMH3KG Parquet, KnowWhereGraph
crawl)."""

import shutil
from pathlib import Path

import dagster as dg
import pyoxigraph

from mgqa_dagster.assets.intake import (
    kwg_query_results,
    osm_snapshot,
    osm_snapshot_partitions,
    usgs_earthquakes,
)
from mgqa_dagster.data_quality import guards, kwg_shacl
from mgqa_dagster.data_quality.checks import Check
from mgqa_dagster.resources.engine import EngineResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.sources import InputsResource, KwgSourceResource
from mgqa_dagster.resources.warehouse import WAREHOUSE_POOL, WarehouseResource
from mgqa_platform import snapshots
from mgqa_platform.files import atomic_path
from mgqa_platform.kg import native, osm_reader, osmh3kg_table
from mgqa_platform.kg.kwg_fixture import build_kwg_fixture, read_county_polygon
from mgqa_platform.kg.kwg_store import crawl_store
from mgqa_platform.kg.osmh3kg_build import build_osmh3kg
from mgqa_platform.kg.sparql import DEFAULT_KWG_REGION, SparqlCrawler, kwg_queries
from mgqa_platform.kg.usgs_events import build_usgs_events
from mgqa_platform.kg.worldkg_build import BuildReport, build_worldkg
from mgqa_platform.settings import KGS
from mgqa_platform.warehouse import Slice

kg_partitions = dg.StaticPartitionsDefinition(list(KGS))
KG_NATIVE = dg.AssetKey("kg_native")


def _build_osm_kg(
    kg: str,
    snap: snapshots.Snapshot,
    inputs: InputsResource,
    paths: PathsResource,
    engine: EngineResource,
) -> tuple[Path, BuildReport]:
    out = native.native_path(paths.kg_dir(kg), kg, snap.snapshot_id)
    try:
        if kg == "worldkg":
            return out, build_worldkg(snap.path, out)
        return out, build_osmh3kg(
            snap.path,
            out,
            fallback_date=inputs.osmh3kg_snapshot_date or None,
            h3_res=inputs.osmh3kg_h3_resolution,
            stage=engine.osmh3kg_stage(),
        )
    except UnicodeDecodeError as e:  # pyosmium reading a corrupt string: name the file
        raise osm_reader.not_utf8(snap.path, e) from e


def _register_preferred(con, snapshot_id: str | None, inputs: InputsResource) -> None:
    """Register the snapshot a sensor run asks for (``mgqa/osm_snapshot`` tag) when its registration
    run has not happened yet; a file intake refuses is recorded as rejected and not built."""
    if snapshot_id is None or snapshots.lookup(con, snapshot_id) is not None:
        return
    try:
        snapshots.resolve_osm_snapshot(con, snapshot_id, inputs.watched_pbfs())
    except (LookupError, snapshots.OsmSnapshotError):
        return  # choose_osm_snapshot falls back to the newest usable one


def _worldkg_dump(inputs: InputsResource) -> tuple[Path, BuildReport]:
    """The real WorldKG dump of ``InputsResource.worldkg_dump``, registered as it is (no copy)."""
    path = Path(inputs.worldkg_dump)
    if not path.is_file():
        raise FileNotFoundError(
            f"MGQA_WORLDKG_DUMP={inputs.worldkg_dump!r}: no such file (a WorldKG Turtle dump)"
        )
    report = BuildReport()
    report.add("dump_files")
    return path, report


def _osmh3kg_table(inputs: InputsResource) -> tuple[Path, BuildReport]:
    """A real OSMH3KG table registered as it is (``MGQA_OSMH3KG_TABLE``): nothing is built."""
    path = Path(inputs.osmh3kg_table)
    report = BuildReport()
    report.add("table_files", len(osmh3kg_table.table_files(path).files))
    return path, report


def _kwg_coverage(inputs: InputsResource, kwg: KwgSourceResource) -> list[snapshots.CoveragePart]:
    """The bundled crawl covers its crawl region, Santa Barbara County; a live crawl or a registered
    crawl file declares none (conversion falls back to the hull of its entities)."""
    if kwg.mode != "bundled":
        return []
    county = read_county_polygon(Path(inputs.kwg_dir) / "SB_County.shp")
    return [snapshots.CoveragePart("SB_County.shp", "crawl_region", "all features", county)]


def _build_kwg(
    inputs: InputsResource, kwg: KwgSourceResource, paths: PathsResource
) -> tuple[Path, BuildReport]:
    if kwg.mode == "sparql":
        if not kwg.endpoint:
            raise ValueError(
                "KwgSourceResource.mode is 'sparql' but no endpoint is configured "
                "(MGQA_KWG_ENDPOINT)"
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
    if kwg.mode == "file":
        return _kwg_crawl_file(kwg)
    return _build_bundled_kwg(inputs, paths.kg_dir("kwg"))


def _kwg_crawl_file(kwg: KwgSourceResource) -> tuple[Path, BuildReport]:
    """A KnowWhereGraph crawl made elsewhere (``MGQA_KWG_CRAWL_FILE``), registered as it is (no
    copy)."""
    path = Path(kwg.crawl_file)
    if not path.is_file() or path.suffix.lower() not in (".nt", ".ttl"):
        raise FileNotFoundError(
            f"MGQA_KWG_CRAWL_FILE={kwg.crawl_file!r}: no such .nt or .ttl file (MGQA_KWG_MODE=file "
            "registers a KnowWhereGraph crawl file)"
        )
    report = BuildReport()
    report.add("crawl_files")
    return path, report


def _build_bundled_kwg(inputs: InputsResource, kg_dir: Path) -> tuple[Path, BuildReport]:
    """Bundled mode, built as a live crawl is: the bundled query results become a KWG-shaped graph
    (:func:`build_kwg_fixture`), which is loaded into a local pyoxigraph store and crawled with the
    very queries a live endpoint gets (:func:`crawl_store`, Santa Barbara County). The USGS
    catalog's own event graph (not KWG data: :func:`build_usgs_events`) follows the crawl in the one
    native N-Triples file. Build counts and skipped rows of the three steps go into one report."""
    fixture, events = kg_dir / "kwg-fixture.ttl", kg_dir / "usgs-events.ttl"
    crawl = kg_dir / "kwg-fixture-crawl.nt"
    report = build_kwg_fixture(Path(inputs.kwg_dir), fixture)
    for key, n in crawl_store(fixture, DEFAULT_KWG_REGION, crawl).items():
        if isinstance(n, int):
            report.add(f"crawl_{key}", n)
    usgs = build_usgs_events(Path(inputs.earthquakes_csv), events)
    for key, n in usgs.counts.items():
        report.add(f"usgs_{key}", n)
    report.skipped += usgs.skipped
    out = native.native_path(kg_dir, "kwg", "bundled")
    with atomic_path(out) as tmp, open(tmp, "wb") as dst:
        with open(crawl, "rb") as src:
            shutil.copyfileobj(src, dst)
        dst.write(
            pyoxigraph.serialize(
                pyoxigraph.parse(path=events, format=pyoxigraph.RdfFormat.TURTLE),
                format=pyoxigraph.RdfFormat.N_TRIPLES,
            )
        )
    return out, report


@dg.asset(
    pool=WAREHOUSE_POOL,
    partitions_def=kg_partitions,
    ins={
        "osm_snapshot": dg.AssetIn(
            partition_mapping=dg.LastPartitionMapping(), dagster_type=dg.Nothing
        )
    },
    deps=[kwg_query_results, usgs_earthquakes],
    group_name="kg_build",
    kinds={"rdf", "parquet", "osm"},
    check_specs=[
        kwg_shacl.check_spec(KG_NATIVE, kg_partitions),
        guards.spec(KG_NATIVE, kg_partitions),
    ],
    description=(
        "Each KG in its native format, built as the real KG is made: WorldKG Turtle and "
        "OSMH3KG Parquet "
        "from the OSM snapshot that wins (the pinned one, else the newest usable; `mgqa snapshots "
        "list`) (or a real WorldKG dump, MGQA_WORLDKG_DUMP, and a real OSMH3KG "
        "table, MGQA_OSMH3KG_TABLE), KnowWhereGraph from its crawl. Skipped elements go to "
        "quarantine; "
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
    engine: EngineResource,
):
    kg = context.partition_key
    source_id = None
    if kg == "kwg":
        path, report = _build_kwg(inputs, kwg, paths)
        coverage = _kwg_coverage(inputs, kwg)
    elif kg == "worldkg" and inputs.worldkg_dump:
        path, report = _worldkg_dump(inputs)
        coverage = []  # a dump declares none: conversion falls back to the hull of its entities
    elif kg == "osmh3kg" and inputs.osmh3kg_table:
        path, report = _osmh3kg_table(inputs)
        coverage = []  # a real table declares none: conversion falls back to its entities' hull
    else:
        with warehouse.get_connection() as con:
            _register_preferred(con, context.run.tags.get("mgqa/osm_snapshot"), inputs)
            snap = snapshots.choose_osm_snapshot(
                con,
                context.instance.get_dynamic_partitions(osm_snapshot_partitions.name),
                preferred=context.run.tags.get("mgqa/osm_snapshot"),
            )
        source_id = snap.snapshot_id
        if context.run.tags.get("mgqa/osm_snapshot", source_id) != source_id:
            context.log.warning(
                f"OSM snapshot {context.run.tags['mgqa/osm_snapshot']} is not the one that wins "
                f"(another is pinned, or it is not usable: `mgqa snapshots list`); "
                f"building from {source_id}"
            )
        try:
            path, report = _build_osm_kg(kg, snap, inputs, paths, engine)
        except Exception as e:  # a snapshot that cannot be built never wins again
            with warehouse.get_connection() as con:
                snapshots.mark_failed(con, source_id, f"kg_native[{kg}]: {e}".splitlines()[0])
            raise
        coverage = snapshots.read_coverage(snap.path)

    def write(con):
        info = native.record(con, kg, path, source_id, report, context.run_id)
        snapshots.record_coverage(con, kg, info["snapshot_id"], coverage)
        return info

    shacl = Check(
        kwg_shacl.CHECK_NAME,
        True,
        kwg_shacl.DESCRIPTION,
        lambda _con, partition: kwg_shacl.check_result(KG_NATIVE, partition, path),
    )
    with warehouse.get_connection() as con:
        out = warehouse.write_audited(
            con, native_slices(kg), write, asset_key=KG_NATIVE, partition=kg, checks=(shacl,)
        )
    yield from out.refused()
    info = out.value
    meta = {
        "kg": kg,
        "snapshot_id": info["snapshot_id"],
        "source_osm_snapshot": source_id or "n/a",
        "path": paths.portable(path),
        "sha256": info["sha256"],
        "bytes": info["bytes"],
        "skipped_total": len(report.skipped),
        "coverage_parts": dg.MetadataValue.json(
            [f"{c.part} ({c.method}; {c.complete_for})" for c in coverage]
        ),
        "build_counts": dg.MetadataValue.json(dict(sorted(report.counts.items()))),
    }
    yield dg.MaterializeResult(metadata=meta, data_version=dg.DataVersion(info["sha256"]))
    yield from out.results


def native_slices(kg: str) -> tuple[Slice, ...]:
    """What building ``kg`` replaces: its ``kg_files`` row, its file history (the build adds the new
    file's row), its build quarantine and its coverage."""
    return (
        Slice("kg_files", "kg = ?", (kg,)),
        Slice("kg_file_history", "kg = ?", (kg,)),
        Slice("quarantine", "kg = ? AND stage = 'kg_build'", (kg,), guarded=False),
        Slice("coverage", "kg = ?", (kg,), guarded=False),
    )


__all__ = ["kg_native", "kg_partitions", "osm_snapshot"]
