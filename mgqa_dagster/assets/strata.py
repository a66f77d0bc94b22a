"""Strata: country and World Bank income tier, population-density tier, and the 4 x 3 strata
grid."""

import base64
import shutil
from pathlib import Path

import dagster as dg

from mgqa_dagster.assets.kg_build import kg_partitions
from mgqa_dagster.assets.kg_conversion import ENTITIES
from mgqa_dagster.data_quality import input_guards
from mgqa_dagster.data_quality import strata as checks
from mgqa_dagster.data_quality.checks import bound, check_specs, run_checks
from mgqa_dagster.resources.engine import EngineResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.sources import StrataInputsResource
from mgqa_dagster.resources.warehouse import WAREHOUSE_POOL, WarehouseResource, audited_asset
from mgqa_platform.files import sha256_file
from mgqa_platform.strata import countries as countries_lib
from mgqa_platform.strata import density, income, strata
from mgqa_platform.warehouse import partition_slices, registered, transaction, whole_tables


@dg.observable_source_asset(
    group_name="sources",
    description="Natural Earth admin-0 country polygons (50m bundled; 10m by configuration).",
)
def natural_earth_countries(strata_inputs: StrataInputsResource) -> dg.DataVersion:
    return dg.DataVersion(sha256_file(strata_inputs.countries_path))


@dg.observable_source_asset(
    group_name="sources",
    description="World Bank income classification (bundled FY2026 CSV, CLASS.xlsx or API JSON).",
)
def world_bank_income(strata_inputs: StrataInputsResource) -> dg.DataVersion:
    return dg.DataVersion(sha256_file(strata_inputs.income_path))


COUNTRIES = dg.AssetKey("countries")


@audited_asset(
    COUNTRIES,
    checks.COUNTRY_CHECKS + input_guards.COUNTRY_GUARDS,
    deps=[natural_earth_countries, world_bank_income],
    group_name="strata",
    kinds={"duckdb"},
    description="Country polygons with ISO3 (ISO_A3, else ISO_A3_EH, else ADM0_A3) and World "
    "Bank income tier.",
)
def countries(
    context: dg.AssetExecutionContext,
    strata_inputs: StrataInputsResource,
    warehouse: WarehouseResource,
):
    ne = countries_lib.load_countries(strata_inputs.countries_path)
    table = income.load_income(strata_inputs.income_path, strata_inputs.income_fiscal_year or None)
    guards = bound(
        input_guards.COUNTRY_GUARDS, degenerate_features=ne.attrs.get("degenerate_features", [])
    )
    with warehouse.get_connection() as con:

        def metadata(per_tier: dict) -> dict:
            notes = con.execute(
                "SELECT iso3, income_note "
                "FROM countries "
                "WHERE income_note IS NOT NULL "
                "ORDER BY iso3"
            ).fetchall()
            return {
                "dagster/row_count": len(ne),
                "countries_per_income_tier": dg.MetadataValue.json(
                    {str(k): v for k, v in per_tier.items()}
                ),
                "unclassified_policy": strata_inputs.unclassified_policy,
                "income_notes": dg.MetadataValue.json(dict(notes)),
                "income_source": Path(strata_inputs.income_path).name,
            }

        yield from warehouse.publish_audited(
            con,
            whole_tables("countries"),
            lambda c: countries_lib.write_countries(
                c, ne, table, strata_inputs.unclassified_policy
            ),
            asset_key=COUNTRIES,
            checks=checks.COUNTRY_CHECKS + guards,
            metadata=metadata,
        )


def _raster_path(strata_inputs: StrataInputsResource, paths: PathsResource) -> Path:
    if strata_inputs.population_raster:
        return Path(strata_inputs.population_raster)
    name = f"population-proxy-geonames-{strata_inputs.proxy_resolution_deg:g}deg.tif"
    return paths.strata_dir / name


@dg.asset(
    pool=WAREHOUSE_POOL,
    deps=[natural_earth_countries],
    group_name="strata",
    kinds={"geotiff"},
    description=(
        "The population raster behind the density tiers: the configured WorldPop GeoTIFF, "
        "or, in the embedded "
        "default, a PROXY surface of GeoNames city populations (not WorldPop) rasterized over land."
    ),
)
def population_raster(
    strata_inputs: StrataInputsResource, paths: PathsResource
) -> dg.MaterializeResult:
    path = _raster_path(strata_inputs, paths)
    if strata_inputs.population_raster:
        if not path.is_file():
            raise dg.Failure(
                f"population raster {path} not found (StrataInputsResource.population_raster)"
            )
        stats = {}
    else:
        stats = density.build_proxy_population_raster(
            path, strata_inputs.countries_path, strata_inputs.proxy_resolution_deg
        )
    label, is_proxy = density.raster_label(path)
    sha = sha256_file(path)
    return dg.MaterializeResult(
        metadata={
            "path": paths.portable(path),
            "label": label,
            "is_proxy": is_proxy,
            "sha256": sha,
            **{k: v for k, v in stats.items() if isinstance(v, (int, float, str))},
        },
        data_version=dg.DataVersion(sha),
    )


DENSITY_CELLS = dg.AssetKey("density_cells")


def _write_density(con, cells, breaks: list) -> None:
    """Replace ``density_cells`` by ``cells`` (ordered by cell) and ``density_breaks`` by
    ``breaks``."""
    with registered(con, _cells=cells), transaction(con):
        con.execute("DELETE FROM density_cells")
        con.execute("""
            INSERT INTO density_cells
            SELECT h3, population, valid_pixels, area_km2, density, tier
            FROM _cells
            ORDER BY h3
        """)
        con.execute("DELETE FROM density_breaks")
        con.execute("INSERT INTO density_breaks VALUES (?, ?, ?, ?, ?, ?, ?)", breaks)


@audited_asset(
    DENSITY_CELLS,
    checks.DENSITY_CHECKS,
    deps=[population_raster],
    group_name="strata",
    kinds={"duckdb", "h3"},
    description="Population aggregated to H3 resolution-3 cells (pixel-centre rule) and binned "
    "at the global 33rd/67th percentiles.",
)
def density_cells(
    strata_inputs: StrataInputsResource, paths: PathsResource, warehouse: WarehouseResource
):
    path = _raster_path(strata_inputs, paths)
    table, p33, p67 = density.with_tiers(density.aggregate_to_h3(path, res=3))
    label, is_proxy = density.raster_label(path)
    breaks = [str(path), sha256_file(path), is_proxy, label, p33, p67, table.num_rows]
    with warehouse.get_connection() as con:

        def metadata(_: None) -> dict:
            tiers = con.execute("""
            SELECT tier, count(*)
            FROM density_cells
            GROUP BY 1
            ORDER BY 1
        """).fetchall()
            return {
                "dagster/row_count": table.num_rows,
                "p33_people_per_km2": p33,
                "p67_people_per_km2": p67,
                "cells_per_tier": dg.MetadataValue.json(dict(tiers)),
                "raster_label": label,
                "is_proxy": is_proxy,
                **density.aggregation_stats(table),
            }

        yield from warehouse.publish_audited(
            con,
            whole_tables("density_cells", "density_breaks"),
            lambda c: _write_density(c, table, breaks),
            asset_key=DENSITY_CELLS,
            checks=checks.DENSITY_CHECKS,
            metadata=metadata,
        )


_per_kg = dict(
    partitions_def=kg_partitions,
    group_name="strata",
    kinds={"duckdb"},
    automation_condition=dg.AutomationCondition.eager(),
)
ENTITY_COUNTRY = dg.AssetKey("entity_country")


def _publish_kg_slice(
    warehouse: WarehouseResource, kg: str, key: dg.AssetKey, write, checks, metadata
):
    """The body of a per-KG strata asset: replace the KG's slice of the asset's table (named as
    its key) by ``write``, audited by ``checks``, materialized with ``metadata``."""
    with warehouse.get_connection() as con:
        yield from warehouse.publish_audited(
            con,
            partition_slices("kg", kg, key.path[-1]),
            write,
            asset_key=key,
            partition=kg,
            checks=checks,
            metadata=metadata,
        )


@audited_asset(
    ENTITY_COUNTRY,
    checks.ENTITY_COUNTRY_CHECKS + input_guards.COUNTRY_SHARE_GUARDS,
    deps=[ENTITIES, COUNTRIES],
    description="Country of each entity's representative point: within a polygon, "
    "else the nearest country within the configured distance, "
    "else unassigned with a reason.",
    **_per_kg,
)
def entity_country(
    context: dg.AssetExecutionContext,
    strata_inputs: StrataInputsResource,
    warehouse: WarehouseResource,
    engine: EngineResource,
):
    kg = context.partition_key
    max_km = strata_inputs.nearest_country_max_km
    share = bound(input_guards.COUNTRY_SHARE_GUARDS, minimum=strata_inputs.min_country_share)
    yield from _publish_kg_slice(
        warehouse,
        kg,
        ENTITY_COUNTRY,
        lambda c: engine.assign_countries(c, max_km, kg),
        checks.ENTITY_COUNTRY_CHECKS + share,
        lambda res: {
            "dagster/row_count": res["entities"],
            "by_method": dg.MetadataValue.json(res["methods"]),
            "top_countries": dg.MetadataValue.json(res["top_iso3"]),
            "nearest_max_km": max_km,
        },
    )


ENTITY_DENSITY = dg.AssetKey("entity_density")


@audited_asset(
    ENTITY_DENSITY,
    (),
    deps=[ENTITIES, DENSITY_CELLS],
    description="Density tier of each entity's resolution-3 H3 cell.",
    **_per_kg,
)
def entity_density(
    context: dg.AssetExecutionContext, warehouse: WarehouseResource, engine: EngineResource
):
    kg = context.partition_key
    yield from _publish_kg_slice(
        warehouse,
        kg,
        ENTITY_DENSITY,
        lambda c: engine.assign_density(c, kg),
        (),
        lambda tiers: {
            "dagster/row_count": sum(tiers.values()),
            "by_tier": dg.MetadataValue.json(tiers),
        },
    )


ENTITY_STRATA = dg.AssetKey("entity_strata")


@audited_asset(
    ENTITY_STRATA,
    checks.STRATA_CHECKS + input_guards.STRATUM_SHARE_GUARDS,
    deps=[ENTITY_COUNTRY, ENTITY_DENSITY, COUNTRIES],
    description="Stratum of each entity: World Bank income tier x density tier (4 x 3 grid), "
    "or a reason.",
    **_per_kg,
)
def entity_strata(
    context: dg.AssetExecutionContext,
    strata_inputs: StrataInputsResource,
    warehouse: WarehouseResource,
    engine: EngineResource,
):
    kg = context.partition_key
    share = bound(input_guards.STRATUM_SHARE_GUARDS, minimum=strata_inputs.min_stratum_share)
    yield from _publish_kg_slice(
        warehouse,
        kg,
        ENTITY_STRATA,
        lambda c: engine.assign_strata(c, kg),
        checks.STRATA_CHECKS + share,
        lambda per: {
            "dagster/row_count": sum(per.values()),
            "by_stratum": dg.MetadataValue.json(per),
        },
    )


STRATA_COVERAGE = dg.AssetKey("strata_coverage")


@dg.asset(
    pool=WAREHOUSE_POOL,
    key=STRATA_COVERAGE,
    deps=[dg.AssetDep(ENTITY_STRATA, partition_mapping=dg.AllPartitionMapping())],
    group_name="strata",
    automation_condition=dg.AutomationCondition.eager(),
    kinds={"duckdb", "png"},
    check_specs=check_specs(STRATA_COVERAGE, checks.COVERAGE_CHECKS),
    description="Coverage of the strata grid over all KGs "
    "(entities and countries per cell, tier shares) and a world map of entity sites "
    "by income tier.",
)
def strata_coverage(
    strata_inputs: StrataInputsResource, paths: PathsResource, warehouse: WarehouseResource
):
    out = paths.strata_dir / "entity_sites_by_income.png"
    with warehouse.get_connection() as con:
        cov = strata.coverage(con)
        (label, is_proxy) = con.execute(
            "SELECT label, is_proxy FROM density_breaks"
        ).fetchone() or ("?", True)
        title = "MGQA entity sites by World Bank income tier (FY2026)" + (
            " - density tiers from a proxy surface" if is_proxy else ""
        )
        sites = strata.world_map_png(con, out, title)
        if strata_inputs.docs_map_path:  # e.g. docs/strata_map.png, refreshed by maintainers
            shutil.copyfile(out, strata_inputs.docs_map_path)
        png = base64.b64encode(out.read_bytes()).decode()
        yield dg.MaterializeResult(
            metadata={
                "strata_grid": dg.MetadataValue.md(strata.grid_markdown(cov)),
                "income_share": dg.MetadataValue.json(cov["income_share"]),
                "density_share": dg.MetadataValue.json(cov["density_share"]),
                "countries_per_income_tier": dg.MetadataValue.json(
                    cov["countries_per_income_tier"]
                ),
                "without_stratum_by_reason": dg.MetadataValue.json(
                    cov["without_stratum_by_reason"]
                ),
                "entity_sites_per_income_tier": dg.MetadataValue.json(sites),
                "density_raster": f"{label}" + (" (PROXY, not WorldPop)" if is_proxy else ""),
                "map": dg.MetadataValue.md(
                    f"![entity sites by income tier](data:image/png;base64,{png})"
                ),
                "map_path": paths.portable(out),
            }
        )
        yield from run_checks(con, None, STRATA_COVERAGE, checks.COVERAGE_CHECKS)
