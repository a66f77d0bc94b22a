"""Where the platform writes and reads its own files: one resource, nested in every resource that
needs a folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import dagster as dg

from mgqa_dagster.resources.env import EnvConfigurableResource
from mgqa_platform.files import portable_path
from mgqa_platform.settings import REPO_ROOT


class PathsResource(EnvConfigurableResource):
    """The working directory and the folders derived from it.

    Every path property is absolute. Empty ``warehouse`` and ``release_dir`` mean their place under
    ``home``; the other folders (native KG files, strata rasters, reports, caches, model runs, the
    CLI's Dagster home) always live under ``home``.
    """

    home: Annotated[str, dg.EnvVar("MGQA_HOME")] = str(REPO_ROOT / ".mgqa")
    warehouse: Annotated[str, dg.EnvVar("MGQA_WAREHOUSE")] = ""
    release_dir: Annotated[str, dg.EnvVar("MGQA_RELEASE_DIR")] = ""
    annotations_dir: Annotated[str, dg.EnvVar("MGQA_ANNOTATIONS_DIR")] = str(
        REPO_ROOT / "data" / "annotations"
    )

    @property
    def home_path(self) -> Path:
        return Path(self.home).resolve()

    @property
    def warehouse_path(self) -> Path:
        """The DuckDB warehouse file (default ``<home>/warehouse.duckdb``)."""
        if self.warehouse:
            return Path(self.warehouse).resolve()
        return self.home_path / "warehouse.duckdb"

    @property
    def release_path(self) -> Path:
        """The release folder (default ``<home>/release``)."""
        return Path(self.release_dir).resolve() if self.release_dir else self.home_path / "release"

    @property
    def annotations_path(self) -> Path:
        """Human post-edit exports ``<lang>.csv`` / ``<lang>.jsonl`` (none bundled)."""
        return Path(self.annotations_dir).resolve()

    @property
    def reports_dir(self) -> Path:
        return self.home_path / "reports"

    @property
    def strata_dir(self) -> Path:
        """Derived rasters and the strata world map."""
        return self.home_path / "strata"

    @property
    def runs_dir(self) -> Path:
        """Model runs of ``mgqa evaluate --run``."""
        return self.home_path / "runs"

    @property
    def scratch_dir(self) -> Path:
        """Intermediate files of a run (conversion's Parquet parts); ``mgqa build`` empties it on
        start, so a killed run leaves nothing behind for long."""
        return self.home_path / "scratch"

    @property
    def dagster_home(self) -> Path:
        """The Dagster instance ``mgqa build`` uses when ``DAGSTER_HOME`` is unset."""
        return self.home_path / "dagster"

    def kg_dir(self, kg: str) -> Path:
        """Where the native files of one KG are written."""
        return self.home_path / "kg" / kg

    @property
    def postedit_cache_dir(self) -> Path:
        """The post-edit ensemble's reply cache."""
        return self.home_path / "cache" / "postedit"

    def portable(self, path: str | Path) -> dg.MetadataValue:
        """``path`` as asset metadata that reads the same on another machine: relative to
        ``home`` (``$MGQA_HOME/...``) or to the repository, else absolute."""
        return dg.MetadataValue.path(portable_path(path, self.home_path, REPO_ROOT))
