"""Where things live: the repository, the bundled sample and the working directory.

All locations can be overridden by environment variables so that the same code runs on the
full-size inputs by configuration alone (see ``docs/configuration.md``).
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = REPO_ROOT / "data" / "sample"
PACKAGE_DATA = Path(__file__).resolve().parent / "data"

KGS: tuple[str, ...] = ("worldkg", "kwg", "osmh3kg")
OSM_DERIVED_KGS: tuple[str, ...] = ("worldkg", "osmh3kg")


def home() -> Path:
    """The working directory for generated files (warehouse, KG files). ``MGQA_HOME`` overrides."""
    return Path(os.environ.get("MGQA_HOME", REPO_ROOT / ".mgqa")).resolve()


def default_warehouse_path() -> Path:
    return Path(os.environ.get("MGQA_WAREHOUSE", home() / "warehouse.duckdb")).resolve()


def default_osm_watch_dir() -> Path:
    return Path(os.environ.get("MGQA_OSM_WATCH_DIR", SAMPLE_DIR / "osm")).resolve()


def annotations_dir() -> Path:
    """Where human post-edit exports live (``<lang>.csv`` / ``<lang>.jsonl``); ``MGQA_ANNOTATIONS_DIR`` overrides.
    The sample ships none: translations stay unreviewed until annotators deliver."""
    return Path(os.environ.get("MGQA_ANNOTATIONS_DIR", REPO_ROOT / "data" / "annotations")).resolve()


def release_dir() -> Path:
    """Where the release is written (Parquet per language and split, dataset card, entity sites GeoParquet);
    ``MGQA_RELEASE_DIR`` overrides. Default ``$MGQA_HOME/release``."""
    return Path(os.environ.get("MGQA_RELEASE_DIR", home() / "release")).resolve()
