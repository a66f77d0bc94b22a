"""Input locations, the KnowWhereGraph source (bundled crawl or a live SPARQL endpoint) and the
knobs of KG conversion."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import dagster as dg

from mgqa_dagster.resources.env import EnvConfigurableResource
from mgqa_platform.kg.sparql import DEFAULT_KWG_REGION
from mgqa_platform.settings import SAMPLE_DIR


class InputsResource(EnvConfigurableResource):
    """Where the raw inputs are. Defaults: the bundled sample (``data/sample``). Native KG files are
    written under ``PathsResource.kg_dir``.

    WorldKG: ``worldkg_dump`` (``MGQA_WORLDKG_DUMP``) is a real WorldKG Turtle dump to read as the
    WorldKG native file instead of building one from the OSM snapshot (empty: build).

    OSMH3KG: ``osmh3kg_table`` (``MGQA_OSMH3KG_TABLE``) points at a real OSMH3KG table (Parquet file
    or folder, Delta folder, CSV parts) that is registered instead of a build; empty = build from
    the OSM snapshot at grid level ``osmh3kg_h3_resolution``. ``osmh3kg_snapshot_date``
    (``MGQA_OSMH3KG_SNAPSHOT_DATE``) is the date on every row when the PBF header has no replication
    timestamp (default: the bundled sample's, 2021-06-22, its Andorra extract's timestamp; empty =
    such a PBF is an error)."""

    osm_watch_dir: Annotated[str, dg.EnvVar("MGQA_OSM_WATCH_DIR")] = str(SAMPLE_DIR / "osm")
    worldkg_dump: Annotated[str, dg.EnvVar("MGQA_WORLDKG_DUMP")] = ""
    kwg_dir: str = str(SAMPLE_DIR / "kwg")
    earthquakes_csv: str = str(SAMPLE_DIR / "usgs" / "earthquakes_2015-12.csv")
    osmh3kg_h3_resolution: int = 9
    osmh3kg_snapshot_date: Annotated[str, dg.EnvVar("MGQA_OSMH3KG_SNAPSHOT_DATE")] = "2021-06-22"
    osmh3kg_table: Annotated[str, dg.EnvVar("MGQA_OSMH3KG_TABLE")] = ""

    def watched_pbfs(self) -> list[Path]:
        """The OSM snapshots in the watched folder (``*.osm.pbf``), sorted by name."""
        return sorted(Path(self.osm_watch_dir).glob("*.osm.pbf"))


class KwgSourceResource(EnvConfigurableResource):
    """KnowWhereGraph input: ``bundled`` builds the crawl file from the bundled query results;
    ``sparql`` crawls a live endpoint (``MGQA_KWG_ENDPOINT``). For an endpoint that needs a bearer
    token, ``token_env`` names the environment variable holding it (``MGQA_KWG_TOKEN_ENV``); the
    token is read at request time and never stored or logged. Empty = no authentication. ``region``
    is the KWG administrative region a ``sparql`` crawl fetches (``MGQA_KWG_REGION``, full IRI;
    default Santa Barbara County, the region of the bundled sample). ``file`` registers a crawl made
    elsewhere as it is: ``crawl_file`` (``MGQA_KWG_CRAWL_FILE``), an N-Triples or Turtle file such
    as a crawl of the live endpoint or ``kwg_store.select_results_to_ntriples`` of saved query
    results."""

    mode: Annotated[Literal["bundled", "sparql", "file"], dg.EnvVar("MGQA_KWG_MODE")] = "bundled"
    crawl_file: Annotated[str, dg.EnvVar("MGQA_KWG_CRAWL_FILE")] = ""
    endpoint: Annotated[str, dg.EnvVar("MGQA_KWG_ENDPOINT")] = ""
    token_env: Annotated[str, dg.EnvVar("MGQA_KWG_TOKEN_ENV")] = ""
    region: Annotated[str, dg.EnvVar("MGQA_KWG_REGION")] = DEFAULT_KWG_REGION
    page_size: int = 10_000


class ConversionResource(EnvConfigurableResource):
    """Knobs of KG conversion: N-Triples parser processes (0: the CPU count, at most 4) and the
    entity count range per KG that the ``entity_count_in_range`` check expects, as JSON
    ``{"kg": [min, max]}`` (empty: the bundled sample's ranges)."""

    parse_workers: Annotated[int, dg.EnvVar("MGQA_PARSE_WORKERS")] = 0
    expected_entity_counts: Annotated[str, dg.EnvVar("MGQA_EXPECTED_ENTITY_COUNTS")] = ""

    def entity_count_ranges(self) -> dict[str, tuple[int, int]] | None:
        """The configured ranges, or None for the sample's."""
        if not self.expected_entity_counts:
            return None
        ranges = json.loads(self.expected_entity_counts)
        return {kg: (int(lo), int(hi)) for kg, (lo, hi) in ranges.items()}


class StrataInputsResource(EnvConfigurableResource):
    """Inputs of the strata stage. Defaults: the bundled sample; point them at the full-size files
    (Natural Earth 10m, the official CLASS.xlsx or API JSON, the global WorldPop 1 km GeoTIFF) by
    config.

    ``population_raster`` empty means: derive the GeoNames proxy surface (labelled as a proxy
    everywhere). ``unclassified_policy`` decides economies the World Bank did not classify:
    ``previous`` uses their last classification (bundled table), ``exclude`` leaves them without a
    tier (with the reason recorded). ``income_fiscal_year`` names the year of an official CLASS.xlsx
    / API JSON (e.g. ``FY2027``; they do not state it). ``docs_map_path``, when set, is where
    ``strata_coverage`` also copies its world map. ``min_country_share`` and ``min_stratum_share``
    are the least shares of a KG's entities with a country and with a stratum that the blocking
    checks ``country_share`` and ``stratum_share`` accept (docs/data_quality.md, "Input guards").
    """

    countries_path: Annotated[str, dg.EnvVar("MGQA_COUNTRIES")] = str(
        SAMPLE_DIR / "naturalearth" / "ne_50m_admin_0_countries.geojson"
    )
    income_path: Annotated[str, dg.EnvVar("MGQA_INCOME")] = str(
        SAMPLE_DIR / "worldbank" / "wb_income_fy2026.csv"
    )
    income_fiscal_year: Annotated[str, dg.EnvVar("MGQA_INCOME_FISCAL_YEAR")] = ""
    unclassified_policy: Annotated[
        Literal["previous", "exclude"], dg.EnvVar("MGQA_UNCLASSIFIED_POLICY")
    ] = "previous"
    population_raster: Annotated[str, dg.EnvVar("MGQA_POPULATION_RASTER")] = ""
    proxy_resolution_deg: float = 0.1
    nearest_country_max_km: float = 25.0
    docs_map_path: Annotated[str, dg.EnvVar("MGQA_DOCS_MAP_PATH")] = ""
    min_country_share: Annotated[float, dg.EnvVar("MGQA_MIN_COUNTRY_SHARE")] = 0.8
    min_stratum_share: Annotated[float, dg.EnvVar("MGQA_MIN_STRATUM_SHARE")] = 0.8
