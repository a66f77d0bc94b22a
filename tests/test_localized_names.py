"""Entity names in the target languages: KG labels, Natural Earth countries, GeoNames places,
Simplified Chinese, and the count of inserted names localized."""

from __future__ import annotations

import json

import pytest

from mgqa_platform import warehouse
from mgqa_platform.kg import profiles
from mgqa_platform.languages import TARGETS
from mgqa_platform.multilingual import names, stage
from mgqa_platform.question_schema import QUESTION_SCHEMA, arrow_table
from mgqa_platform.questions.catalog import default_catalog
from tests.test_multilingual import _record

#: Andorra in every language Natural Earth names it (ron, bul, sqi and kat have no NAME_xx field)
ANDORRA = {
    "fra": "Andorre",
    "ita": "Andorra",
    "por": "Andorra",
    "spa": "Andorra",
    "rus": "Андорра",
    "deu": "Andorra",
    "urd": "انڈورا",
    "ell": "Ανδόρρα",
    "jpn": "アンドラ",
    "tur": "Andorra",
    "vie": "Andorra",
    "zho": "安道尔",
    "ron": None,
    "bul": None,
    "sqi": None,
    "kat": None,
}
#: Helsinki from the GeoNames alternate names, where the script identifies the language; urd has two
#: Urdu spellings (ambiguous), the Latin and Cyrillic languages none
HELSINKI = {
    "ell": "Ελσίνκι",
    "kat": "ჰელსინკი",
    "jpn": "ヘルシンキ",
    "zho": "赫尔辛基",
    **{lang: None for lang in TARGETS if lang not in {"ell", "kat", "jpn", "zho"}},
}


def _entity(**kw):
    e = {
        "entity_id": "worldkg:1",
        "name": "Helsinki",
        "category": "city",
        "lon": 24.94,
        "lat": 60.17,
        "wikidata": None,
        "iso3": "FIN",
    }
    e.update(kw)
    return e


def test_tables_cover_every_language():
    assert set(ANDORRA) == set(HELSINKI) == set(TARGETS)


def test_simplified_chinese():
    assert names.simplified("赫爾辛基") == "赫尔辛基"
    assert names.simplified("赫尔辛基") == "赫尔辛基" and names.simplified("Kamppi") == "Kamppi"


@pytest.mark.parametrize("lang", TARGETS)
def test_country_from_natural_earth(lang):
    andorra = _entity(name="Andorra", category="country", lon=1.57, lat=42.55, iso3="AND")
    found = names.localized_name(andorra, lang, None)
    assert found == (None if ANDORRA[lang] is None else (ANDORRA[lang], "naturalearth"))
    # another name matches only by its Wikidata id
    other = {**andorra, "name": "Principat d'Andorra"}
    assert names.localized_name(other, lang, None) is None
    assert names.localized_name({**other, "wikidata": "Q228"}, lang, None) == found
    # an OSM boundary of admin_level 2 is a country too; a region of level 4 is not
    boundary = {**andorra, "category": "administrative_region"}
    assert (
        names.localized_name({**boundary, "attributes": '{"admin_level": 2}'}, lang, None) == found
    )
    assert names.localized_name({**boundary, "attributes": {"admin_level": 4}}, lang, None) is None


@pytest.mark.parametrize("lang", TARGETS)
def test_populated_place_from_geonames_by_script(lang):
    found = names.localized_name(_entity(), lang, None)
    assert found == (None if HELSINKI[lang] is None else (HELSINKI[lang], "geonames"))


def test_geonames_match_needs_the_name_the_distance_and_the_country():
    assert names.geonames_match("Helsinki", 24.94, 60.17, "FIN")["geonameid"] == 658225
    assert names.geonames_match("helsinki ", 24.94, 60.17, None)["geonameid"] == 658225
    assert names.geonames_match("Helsinki", 25.10, 60.17, "FIN") is None  # ~9 km east
    assert names.geonames_match("Helsinki", 24.94, 60.17, "SWE") is None
    assert names.geonames_match("Kamppi-nowhere", 24.94, 60.17, "FIN") is None
    # only populated places are matched: a bus stop named like the city takes nothing
    assert names.localized_name(_entity(category="bus_stop"), "ell", None) is None


def test_script_identifies_only_some_languages():
    alternates = [
        "Хелсинки",
        "Хельсинки",
        "Ελσίνκι",
        "ヘルシンキ",
        "赫爾辛基",
        "赫尔辛基",
        "ہلسنکی",
    ]
    assert names.script_candidates(alternates, "zho") == ["赫尔辛基"]
    assert names.script_candidates(alternates, "urd") == ["ہلسنکی"]
    assert names.script_candidates(["هلسنكي", "ھێلسینکی"], "urd") == []  # Arabic, Kurdish
    assert names.script_candidates(["東京"], "jpn") == []  # Han alone may be Chinese
    assert names.script_candidates(alternates, "rus") == names.script_candidates(alternates, "bul")
    assert names.script_candidates(alternates, "rus") == []
    assert names.geonames_name(["ہلسنکی", "ہیلسنکی"], "urd") is None


@pytest.mark.parametrize("lang", TARGETS)
def test_kg_label_comes_first(lang):
    found = names.localized_name(_entity(), lang, "Helsingfors-kg")
    assert found == ("Helsingfors-kg", "kg")


def test_zho_kg_label_is_made_simplified():
    assert names.localized_name(_entity(), "zho", "赫爾辛基") == ("赫尔辛基", "kg")


def test_localized_names_counts_sources():
    ents = [
        _entity(),
        _entity(entity_id="worldkg:2", name="Andorra", category="country", iso3="AND"),
        _entity(entity_id="worldkg:3", name="Kamppi", category="suburb"),
    ]
    labels, sources = names.localized_names(ents, "ell", {"worldkg:3": "Καμπί"})
    assert labels == {"worldkg:1": "Ελσίνκι", "worldkg:2": "Ανδόρρα", "worldkg:3": "Καμπί"}
    assert sources == {"geonames": 1, "naturalearth": 1, "kg": 1}
    labels, sources = names.localized_names(ents, "sqi", {})
    assert labels == {} and not sources


def test_name_stats_counts_inserted_names_and_fallbacks():
    phrase = "le lieu montré sur l'image"
    rows = [
        {"text_marked": "De {Helsinki} à {Andorre} ?", "fallbacks": json.dumps(["label:entity_A"])},
        {"text_marked": "{Le lieu montré sur l'image} est-il à {Kamppi} ?", "fallbacks": "[]"},
        {"text_marked": "Combien de bureaux de poste ?", "fallbacks": '["category:category_A"]'},
    ]
    assert names.name_stats(rows, phrase) == {
        "inserted": 3,
        "localized": 2,
        "fallback": 1,
        "share": 0.6667,
    }
    assert names.name_stats([], phrase)["share"] == 0.0


def test_name_zh_hans_labels_zho():
    tags = {r["tag"]: r["lang"] for r in profiles.lookup_tables()["lk_name_langs"].to_pylist()}
    assert tags["name:zh-Hans"] == tags["name:zh"] == "zho" and "name:zh-Hant" not in tags


def test_stage_localizes_names_and_reports_the_share():
    """``stage.localize_language`` on a one-question warehouse: the zho KG label (Traditional) comes
    out Simplified, Greek takes the GeoNames name, Albanian falls back to the English name
    (recorded)."""
    cat = default_catalog()
    variant = cat.sub_template("B01.2").variants[0]
    record = {
        **dict.fromkeys(QUESTION_SCHEMA.names),
        **_record(
            tid="B01",
            variant_id=variant.id,
            executor="x@1",
            query="SELECT 1",
            gold_triples="[]",
            entity_subjects="{}",
            false_premise=False,
        ),
    }
    template = "{category_A} {value} {entity_B}"
    with warehouse.session(None) as con:
        warehouse.ensure_schema(con)
        with warehouse.registered(con, _q=arrow_table(QUESTION_SCHEMA, [record])):
            con.execute("INSERT INTO questions_en BY NAME SELECT * FROM _q")
        con.execute(
            """INSERT INTO entities (entity_id, kg, iri, name, display_name, name_unique, category,
                   types, geometry, geom_kind, lon, lat, h3, snapshot_id)
            VALUES ('worldkg:1', 'worldkg', 'x', 'Helsinki', 'Helsinki', true, 'city', [],
                    ST_Point(24.94, 60.17), 'point', 24.94, 60.17, [], 's')"""
        )
        con.execute(
            "INSERT INTO entity_country VALUES ('worldkg:1', 'worldkg', 'FIN', 'within', 0, NULL)"
        )
        con.execute(
            "INSERT INTO entity_labels VALUES ('worldkg:1', 'worldkg', 'zho', '赫爾辛基', false)"
        )
        out = {}
        for lang in ("zho", "ell", "sqi"):
            con.execute(
                """INSERT INTO template_translations_resolved
                VALUES (?, ?, 'B01.2', ?, ?, 'memory', 'draft', '[]', NULL)""",
                [lang, variant.id, variant.text, template],
            )
            r = stage.localize_language(con, cat, lang)
            (text,) = con.execute(
                "SELECT text FROM questions_localized WHERE lang = ?", [lang]
            ).fetchone()
            out[lang] = (text.split(" ")[-1], r["label_sources"], r["names_localized"])
            assert stage.names_localized(con, lang) == r["names_localized"]
    assert out["zho"] == (
        "赫尔辛基",
        {"kg": 1},
        {"inserted": 1, "localized": 1, "fallback": 0, "share": 1.0},
    )
    assert out["ell"][:2] == ("Ελσίνκι", {"geonames": 1})
    assert out["sqi"] == (
        "Helsinki",
        {},
        {"inserted": 1, "localized": 0, "fallback": 1, "share": 0.0},
    )
