"""The category words of the target languages: the singular and plural that each translation
memory (``mgqa_platform/data/translations/<lang>.json``, its ``categories`` section) gives a
category.

Conversion reads them to find a category word inside a local name (:mod:`mgqa_platform.kg.names`),
and its data version digests them (:mod:`mgqa_platform.kg.data_version`). This module reads only the
``categories`` section of each memory; the memory as a translator is
:mod:`mgqa_platform.multilingual.memory`, one layer up. It imports no stage.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from mgqa_platform.languages import TARGETS, language
from mgqa_platform.settings import PACKAGE_DATA

#: The folder of the bundled translation memories, one ``<lang>.json`` per target language.
TM_DIR = PACKAGE_DATA / "translations"


def memory_path(lang: str, directory: Path = TM_DIR) -> Path:
    """The translation memory file of target language ``lang`` under ``directory``."""
    return Path(directory) / f"{language(lang).code}.json"


def _categories(path: Path) -> dict[str, dict]:
    """The ``categories`` section of the memory file ``path``; ``{}`` when the file is absent."""
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8")).get("categories", {})


#: :func:`_categories` read once per path: conversion asks for the words once per KG.
_cached_categories = lru_cache(maxsize=32)(_categories)


def memory_category_words(path: Path) -> dict[str, list[str | None]]:
    """Category -> [singular, plural] of one translation memory file (``{}`` when it is absent),
    sorted by category."""
    return {c: [e.get("singular"), e.get("text")] for c, e in sorted(_categories(path).items())}


def localized_nouns(categories: Iterable[str], directory: Path = TM_DIR) -> dict[str, list[str]]:
    """Category -> its singular and plural in every target language's memory under ``directory``
    (languages in :data:`~mgqa_platform.languages.TARGETS` order, singular first, absent words
    left out): the words a local name uses for the category."""
    tables = [_cached_categories(memory_path(lang, directory)) for lang in TARGETS]
    out = {}
    for c in categories:
        entries = [t[c] for t in tables if c in t]
        out[c] = [w for e in entries for w in (e.get("singular"), e["text"]) if w]
    return out
