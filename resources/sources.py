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
    ``sparql`` crawls a live endpoint (``MGQA_KWG_ENDPOINT``), with an optional bearer token read from
    the environment variable named by ``token_env`` at request time (never stored or logged)."""

    mode: Literal["bundled", "sparql"] = "bundled"
    endpoint: str = ""
    token_env: str = "MGQA_KWG_TOKEN"
    page_size: int = 10_000
