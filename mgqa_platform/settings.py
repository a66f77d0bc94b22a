"""Constants: the repository, bundled sample and package data folders, and the KG names.

Nothing here reads the environment. Configurable locations and knobs are fields of the Dagster
resources (``mgqa_dagster/resources/``) and reach the library as arguments (docs/configuration.md).
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = REPO_ROOT / "data" / "sample"
PACKAGE_DATA = Path(__file__).resolve().parent / "data"

KGS: tuple[str, ...] = ("worldkg", "kwg", "osmh3kg")
OSM_DERIVED_KGS: tuple[str, ...] = ("worldkg", "osmh3kg")
