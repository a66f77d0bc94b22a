"""The version of the package data that decides converted entity rows besides the KG file itself.

Conversion reads more than the native file: the category tables (which class or tag is which
category, the category's English noun), the administrative regions' designations and, since
display names may carry a category word in any benchmark language, each translation memory's
category words (:func:`mgqa_platform.category_words.localized_nouns`).
A change to any of them can change names and so the release. :func:`conversion_data_version` digests
exactly those inputs, and the ``entities`` asset carries it in its code version, so that Dagster
shows the entity tables stale after such a change. The memories' template translations are not part
of it: they change questions, never entities.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from mgqa_platform.category_words import memory_category_words, memory_path
from mgqa_platform.languages import TARGETS
from mgqa_platform.settings import PACKAGE_DATA

#: The category tables conversion reads, relative to the package data folder.
CATEGORY_TABLES = (
    "category_lexicon.csv",
    "osm_map_features.csv",
    "kwg_categories.csv",
    "worldkg_class_categories.csv",
    "worldkg/Key_List.csv",
    "admin_designations.csv",  # an administrative region's designation (kg/designations.py)
)


def conversion_data_version(data_dir: Path = PACKAGE_DATA) -> str:
    """A 12-hex-digit SHA-256 digest of the category tables (:data:`CATEGORY_TABLES`) and of every
    target language's memory category words under ``data_dir``; the same bytes give the same
    digest."""
    h = hashlib.sha256()
    for name in CATEGORY_TABLES:
        h.update(name.encode())
        h.update((data_dir / name).read_bytes())
    for lang in TARGETS:
        words = memory_category_words(memory_path(lang, data_dir / "translations"))
        h.update(json.dumps([lang, words], ensure_ascii=False, sort_keys=True).encode())
    return h.hexdigest()[:12]
