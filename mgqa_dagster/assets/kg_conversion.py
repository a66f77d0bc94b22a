"""KG conversion: each native KG into the common entity tables (one partition per KG)."""

import dagster as dg

from mgqa_dagster.assets.kg_build import kg_native, kg_partitions
from mgqa_dagster.data_quality import entities as entity_checks
from mgqa_dagster.data_quality import input_guards
from mgqa_dagster.data_quality.guards import audited_specs
from mgqa_dagster.resources.engine import EngineResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.sources import ConversionResource, StrataInputsResource
from mgqa_dagster.resources.warehouse import WAREHOUSE_POOL, WarehouseResource, blocks
from mgqa_platform import CODE_VERSION, snapshots
from mgqa_platform.kg import native
from mgqa_platform.kg.convert import ConversionResult, convert_kg
from mgqa_platform.kg.data_version import conversion_data_version
from mgqa_platform.strata.countries import country_names
from mgqa_platform.warehouse import Slice, partition_slices

ENTITIES = dg.AssetKey("entities")
_spec = dict(
    partitions_def=kg_partitions,
    group_name="kg_conversion",
    kinds={"duckdb"},
    deps=[kg_native],
    automation_condition=dg.AutomationCondition.eager(),
)


def conversion_slices(kg: str) -> tuple[Slice, ...]:
    """What converting ``kg`` replaces: its partition of the entity tables and of ``coverage``, its
    conversion quarantine (the build's stays) and its ``kg_files`` row (the conversion run)."""
    return (
        *partition_slices("kg", kg, "entities", "entity_labels", "entity_triples", "entity_parts"),
        Slice("coverage", "kg = ?", (kg,), guarded=False),
        Slice("quarantine", "kg = ? AND stage <> 'kg_build'", (kg,), guarded=False),
        Slice("kg_files", "kg = ?", (kg,)),
    )


@dg.multi_asset(
    pool=WAREHOUSE_POOL,
    specs=[
        dg.AssetSpec(
            ENTITIES,
            description="One row per entity per KG (docs/data_model.md): canonical and display "
            "names, category, valid EPSG:4326 geometry, representative point, "
            "H3 cells; pieces of roads, waterways and rail lines, and same-name stops and "
            "points close together, merged into whole features (their parts in entity_parts).",
            **_spec,
        ),
        dg.AssetSpec(
            "entity_labels",
            description="Labels per entity and language (ISO 639-3; 'und' = untagged KG label), "
            "aliases flagged.",
            **_spec,
        ),
        dg.AssetSpec(
            "entity_triples",
            description="The source triples of each entity "
            "(its own and its geometry/time/observation nodes), "
            "for citing gold triples.",
            **_spec,
        ),
        dg.AssetSpec(
            "quarantine",
            description="Rows that could not be converted, "
            "with stage and reason; never dropped silently.",
            **_spec,
        ),
    ],
    check_specs=audited_specs(
        ENTITIES, entity_checks.ENTITY_CHECKS + input_guards.ENTITY_GUARDS, kg_partitions
    ),
    can_subset=False,
    # the category tables and the memories' category words decide names too (kg/data_version.py)
    code_version=f"{CODE_VERSION}+{conversion_data_version()}",
)
def kg_entities(
    context: dg.AssetExecutionContext,
    conversion: ConversionResource,
    strata_inputs: StrataInputsResource,
    warehouse: WarehouseResource,
    paths: PathsResource,
    engine: EngineResource,
):
    kg = context.partition_key
    with warehouse.get_connection() as con:
        src = native.current(con, kg)
        if src is None:
            raise dg.Failure(
                f"no native file recorded for KG {kg!r}: materialize kg_native[{kg}] first"
            )

        def write(c):
            res = convert_kg(
                c,
                kg,
                src["path"],
                src["snapshot_id"],
                scratch_dir=paths.scratch_dir,
                parse_workers=conversion.parse_workers,
                country_names=country_names(strata_inputs.countries_path),
                accept=engine.conversion_stage(),
            )
            native.mark_converted(c, kg, context.run_id)
            return res, snapshots.ensure_coverage(c, kg, src["snapshot_id"])

        lineage = {
            "native_snapshot_id": src["snapshot_id"],
            "native_sha256": src["sha256"],
            "source_osm_snapshot": src["source_snapshot_id"] or "n/a",
        }

        def mark_failed(out) -> None:
            """A refused conversion: the snapshot it came from no longer wins."""
            if not out.published and src["source_snapshot_id"]:
                failed = sorted(r.check_name for r in out.results if blocks(r))
                snapshots.mark_failed(
                    con, src["source_snapshot_id"], f"entities[{kg}] failed {', '.join(failed)}"
                )

        res, _ = yield from warehouse.publish_audited(
            con,
            conversion_slices(kg),
            write,
            asset_key=ENTITIES,
            partition=kg,
            checks=entity_checks.entity_checks(conversion.entity_count_ranges())
            + input_guards.ENTITY_GUARDS,
            metadata=lambda value: _entities_metadata(lineage, *value),
            on_audit=mark_failed,
        )
        yield from _side_results(con, kg, lineage, res)


def _entities_metadata(lineage: dict, res: ConversionResult, coverage_method: str) -> dict:
    """The materialization metadata of ``entities[kg]``: lineage, counts and names by rule."""
    meta = res.metadata()
    return {
        **lineage,
        "dagster/row_count": res.entities,
        "entities_by_category_top20": dg.MetadataValue.json(meta["entities_by_category_top20"]),
        "entities_by_geom_kind": dg.MetadataValue.json(meta["entities_by_geom_kind"]),
        "names_disambiguated": res.disambiguated_names,
        "names_ambiguous": res.ambiguous_names,
        "names_by_rule": dg.MetadataValue.json(meta["names_by_rule"]),
        "coverage": coverage_method,
        "road_parts_merged": res.road_parts_merged,
        "roads_merged": res.roads_merged,
        "wholes_by_family": dg.MetadataValue.json(meta["wholes_by_family"]),
        "triples_staged": res.triples_staged,
    }


def _side_results(con, kg: str, lineage: dict, res: ConversionResult):
    """The materializations of the tables written beside ``entities[kg]``: its labels, its
    triples and its quarantine (the conversion's and the build's rows, by reason)."""
    build_quarantine = dict(
        con.execute(
            "SELECT reason, count(*) "
            "FROM quarantine "
            "WHERE kg = ? AND stage = 'kg_build' "
            "GROUP BY 1 "
            "ORDER BY 1",
            [kg],
        ).fetchall()
    )
    yield dg.MaterializeResult(
        asset_key="entity_labels", metadata={**lineage, "dagster/row_count": res.labels}
    )
    yield dg.MaterializeResult(
        asset_key="entity_triples",
        metadata={**lineage, "dagster/row_count": res.entity_triples},
    )
    yield dg.MaterializeResult(
        asset_key="quarantine",
        metadata={
            **lineage,
            "dagster/row_count": sum(res.quarantined.values()) + sum(build_quarantine.values()),
            "conversion_by_reason": dg.MetadataValue.json(dict(sorted(res.quarantined.items()))),
            "build_by_reason": dg.MetadataValue.json(build_quarantine),
        },
    )
