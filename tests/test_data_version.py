"""The entities asset's code version follows the package data that decides converted rows."""

from __future__ import annotations

import json
import shutil

import dagster as dg

from mgqa_dagster.definitions import defs
from mgqa_platform import CODE_VERSION
from mgqa_platform.kg.data_version import conversion_data_version
from mgqa_platform.settings import PACKAGE_DATA


def _copy_data(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(PACKAGE_DATA, data, ignore=shutil.ignore_patterns("templates", "shapes"))
    return data


def _edit_memory(data, lang, edit):
    path = data / "translations" / f"{lang}.json"
    tm = json.loads(path.read_text(encoding="utf-8"))
    edit(tm)
    path.write_text(json.dumps(tm, ensure_ascii=False, indent=1), encoding="utf-8")


def test_category_words_and_tables_change_the_version_templates_do_not(tmp_path):
    data = _copy_data(tmp_path)
    base = conversion_data_version(data)
    assert base == conversion_data_version(PACKAGE_DATA)  # a copy: the same bytes, the same digest
    # a template translation changes questions, not entities
    _edit_memory(data, "fra", lambda tm: tm["variants"]["J02.1.v2"].update(text="Autre texte ?"))
    assert conversion_data_version(data) == base
    # a category's singular is a word a French display name may carry
    _edit_memory(
        data, "fra", lambda tm: tm["categories"]["clinic"].update(singular="centre de soins")
    )
    changed = conversion_data_version(data)
    assert changed != base
    # so is a row of a category table
    lexicon = data / "category_lexicon.csv"
    lexicon.write_text(lexicon.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert conversion_data_version(data) not in (base, changed)


def test_the_entities_asset_carries_the_version():
    spec = defs.resolve_all_asset_specs()
    versions = {s.key: s.code_version for s in spec}
    assert versions[dg.AssetKey("entities")] == f"{CODE_VERSION}+{conversion_data_version()}"
