"""The categories the sample's questions use that no memory had (issue 18): every memory has them,
in its language, with the gender and the forms its templates ask for; Urdu and Greek templates write
km in their script."""

from __future__ import annotations

import csv
import re
from collections import Counter

import pytest

from mgqa_platform.languages import TARGETS
from mgqa_platform.multilingual import memory

ADDED = """
    administrative_region stream water river retail drain rail apartments peak speed_camera
    fire_station water_point internet_cafe department_store seafood viewpoint second_hand shelter
    tyres wine nature_reserve paint fountain coffee public_transport_station garden railway_crossing
    motorcycle tree theme_park""".split()
LATIN = {"bul", "ell", "jpn", "kat", "rus", "urd", "zho"}


def english_plurals() -> dict[str, str]:
    """The English plural label of every category of the lexicon."""
    with open("mgqa_platform/data/category_lexicon.csv", encoding="utf-8") as f:
        return {row["category"]: row["plural"] for row in csv.DictReader(f)}


def usual_form_keys(tm: memory.TranslationMemory) -> set[str]:
    """The forms most categories of a memory carry (the keys its templates ask for)."""
    keys = Counter(tuple(sorted(e.get("forms", {}))) for e in tm.categories.values())
    return set(keys.most_common(1)[0][0])


@pytest.mark.parametrize("lang", TARGETS)
def test_the_added_categories_are_in_the_language(lang):
    tm = memory.load(lang)
    english = english_plurals()
    for key in ADDED:
        entry = tm.categories[key]
        assert entry["source"] == english[key]
        assert entry["text"] and entry["text"].lower() != english[key], (key, entry)
        if lang in LATIN:
            assert not re.search(r"[A-Za-z]{2,}", entry["text"]), (key, entry)


@pytest.mark.parametrize("lang", TARGETS)
def test_the_added_categories_carry_the_gender_and_forms_of_the_others(lang):
    tm = memory.load(lang)
    genders = {e.get("gender") for k, e in tm.categories.items() if k not in ADDED}
    # or a class the language's agreement tables know (Romanian: trees are its one masculine plural)
    genders |= {g for table in tm.grammar.get("agree", {}).values() for g in table if g != "*"}
    forms = usual_form_keys(tm)
    for key in ADDED:
        entry = tm.categories[key]
        assert entry.get("gender") in genders, (key, entry)
        assert set(entry.get("forms", {})) == forms, (key, entry)


@pytest.mark.parametrize(
    ("lang", "key", "spec", "text"),
    [
        ("spa", "administrative_region", "How_many", "Cuántas regiones administrativas"),
        ("por", "tree", "def", "as árvores"),
        ("ita", "peak", "all", "tutte le cime"),
        ("ita", "tree", "def", "gli alberi"),
        ("fra", "river", "which", "quelles rivières"),
        ("deu", "stream", "which_of", "welcher der Bäche"),
        ("rus", "fire_station", "which_of", "какая из пожарных частей"),
        ("rus", "theme_park", "gen", "тематических парков"),
        ("ell", "garden", "how_many_acc", "πόσους κήπους"),
        ("urd", "peak", "how_many", "کتنی چوٹیاں"),
        ("bul", "tree", "def", "дърветата"),
        ("kat", "river", "sg", "მდინარე"),
    ],
)
def test_an_added_category_agrees(lang, key, spec, text):
    assert format(memory.load(lang).nouns()[key], spec) == text


@pytest.mark.parametrize(("lang", "km"), [("urd", "کلو میٹر"), ("ell", "χλμ.")])
def test_kilometres_in_the_script_of_the_language(lang, km):
    texts = [v["text"] for v in memory.load(lang).variants.values()]
    assert not [t for t in texts if re.search(r"(?<!\w)km(?!\w)", t)]
    assert any(f"{{value}} {km}" in t for t in texts)
    assert not [t for t in texts if "χλμ.." in t]


def test_urdu_compass_points_in_urdu():
    texts = [v["text"] for k, v in memory.load("urd").variants.items() if k.startswith("J04")]
    assert not [t for t in texts if re.search(r"(?<![{\w])[A-Z]{1,2}(?=[،)\s])", t)]
    assert any("شمال مشرق" in t for t in texts)
