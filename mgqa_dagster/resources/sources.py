"""Input locations and the KnowWhereGraph source (bundled crawl or a live SPARQL endpoint)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import dagster as dg

from mgqa_platform import settings


class InputsResource(dg.ConfigurableResource):
    """Where the raw inputs are and where native KG files are written.

    Defaults: the bundled sample (``data/sample``) and ``$MGQA_HOME`` (``.mgqa/``) for outputs.
    """

    osm_watch_dir: str = str(settings.SAMPLE_DIR / "osm")
    kwg_dir: str = str(settings.SAMPLE_DIR / "kwg")
    earthquakes_csv: str = str(settings.SAMPLE_DIR / "usgs" / "earthquakes_2015-12.csv")
    work_dir: str = str(settings.home())
    osmh3kg_h3_resolution: int = 9
    osmh3kg_max_cells_per_feature: int = 500

    def kg_dir(self, kg: str) -> Path:
        return Path(self.work_dir) / "kg" / kg

    def watched_pbfs(self) -> list[Path]:
        """The OSM snapshots in the watched folder (``*.osm.pbf``), sorted by name."""
        return sorted(Path(self.osm_watch_dir).glob("*.osm.pbf"))


class KwgSourceResource(dg.ConfigurableResource):
    """KnowWhereGraph input: ``bundled`` builds the crawl file from the bundled query results;
    ``sparql`` crawls a live endpoint (``MGQA_KWG_ENDPOINT``). For an endpoint that needs a bearer token,
    ``token_env`` names the environment variable holding it (``MGQA_KWG_TOKEN_ENV``); the token is read at
    request time and never stored or logged. Empty = no authentication."""

    mode: Literal["bundled", "sparql"] = "bundled"
    endpoint: str = ""
    token_env: str = ""
    page_size: int = 10_000


class StrataInputsResource(dg.ConfigurableResource):
    """Inputs of the strata stage. Defaults: the bundled sample; point them at the full-size files
    (Natural Earth 10m, the official CLASS.xlsx or API JSON, the global WorldPop 1 km GeoTIFF) by config.

    ``population_raster`` empty means: derive the GeoNames proxy surface (labelled as a proxy everywhere).
    ``unclassified_policy`` decides economies the World Bank did not classify: ``previous`` uses their last
    classification (bundled table), ``exclude`` leaves them without a tier (with the reason recorded).
    """

    countries_path: str = str(settings.SAMPLE_DIR / "naturalearth" / "ne_50m_admin_0_countries.geojson")
    income_path: str = str(settings.SAMPLE_DIR / "worldbank" / "wb_income_fy2026.csv")
    income_fiscal_year: str = ""  # e.g. 'FY2027' for an official CLASS.xlsx / API JSON (they do not state it)
    unclassified_policy: Literal["previous", "exclude"] = "previous"
    population_raster: str = ""
    proxy_resolution_deg: float = 0.1
    nearest_country_max_km: float = 25.0
    work_dir: str = str(settings.home())
    docs_map_path: str = ""  # when set, strata_coverage also copies its world map there
