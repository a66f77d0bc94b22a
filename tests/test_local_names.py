"""Names a local would use: an administrative region by its designation ("the parish of La
Massana"), never "La Massana (administrative region)", in every language where its grammar is
certain; transit stops without their stop numbers and direction codes, the original kept as an
alias; the blocking check ``regions_by_designation``."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mgqa_platform.kg import designations, names
from mgqa_platform.kg.convert import convert_kg
from mgqa_platform.multilingual import instantiate
from mgqa_platform.multilingual import names as ml_names
from mgqa_platform.multilingual.memory import load as load_memory
from tests import question_world as world
from tests.test_conversion import osmh3kg_rows, rows

SQUARE = "MULTIPOLYGON (((1.4 42.5, 1.5 42.5, 1.5 42.6, 1.4 42.6, 1.4 42.5)))"


# ------------------------------------------------------------------------------------ stop names
@pytest.mark.parametrize(
    ("name", "stripped"),
    [
        ("166 Roc de Sant Miquel", "Roc de Sant Miquel"),
        ("5555 Estació Nacional d'Autobusos", "Estació Nacional d'Autobusos"),
        ("Getúlio Vargas - 2 C/B", "Getúlio Vargas"),
        ("Estados Unidos B/C", "Estados Unidos"),
        ("14 Bis B/C", "14 Bis"),  # a number that is part of the name stays
    ],
)
def test_stop_name_drops_stop_numbers_and_direction_codes(name, stripped):
    assert names.stop_name(name) == stripped


@pytest.mark.parametrize(
    "name",
    ["Roc de Sant Miquel", "3ª Perimetral / Ipiranga", "Rautatientori, laituri 6", "123 B/C"],
)
def test_stop_name_keeps_names_without_codes_and_codes_alone(name):
    assert names.stop_name(name) is None


def test_stop_code_rule_renames_stops_only_and_keeps_the_original_as_alias():
    words = names.category_words([], [])
    stop = names.Entity("osm:1", "166 Roc de Sant Miquel", "platform")
    cafe = names.Entity("osm:2", "166 Roc de Sant Miquel", "cafe")
    got = names.name_entities([stop, cafe], words, frozenset(), frozenset())
    assert (got[0].base, got[0].rule, got[0].aliases) == (
        "Roc de Sant Miquel",
        "stop_code",
        ("166 Roc de Sant Miquel",),
    )
    assert (got[1].base, got[1].rule) == ("166 Roc de Sant Miquel", None)
    assert "stop_code" in names.RULES


# ---------------------------------------------------------------------------------- designations
def test_designation_from_tags_then_the_reviewed_table():
    assert designations.country_of({"ISO3166-2": "AD-04"}) == "AD"
    assert designations.english_pattern({"ISO3166-2": "AD-04"}, 7) == "the parish of {name}"
    assert designations.english_pattern({"border_type": "county"}, 7) == "the county of {name}"
    assert designations.english_pattern({"ISO3166-2": "AD-04"}, 9) is None
    assert designations.english_pattern({}, 7) is None


def test_designated_name_skips_names_that_already_carry_the_word():
    assert names.designated_name("La Massana", "the parish of {name}") == "the parish of La Massana"
    assert names.designated_name("Santa Barbara County", "{name} County") is None
    assert names.designated_name("La Massana", None) is None


def test_every_table_row_has_an_english_pattern_and_only_known_languages():
    from mgqa_platform.languages import LANGUAGES

    table = designations.load()
    assert table and all("{name}" in row["eng"] for row in table.values())
    assert {lang for row in table.values() for lang in row} <= set(LANGUAGES)


def _andorra(tmp_path, iso: bool = True):
    """A parish and a town of the same name, as in the Andorra sample."""
    parish = {"rdf:type": "administrative", "name": "La Massana", "admin_level": "7"}
    if iso:
        parish["ISO3166-2"] = "AD-04"
    entities = {
        "relation/2804757": parish,
        "node/64954563": {"rdf:type": "town", "name": "La Massana"},
    }
    wkts = {"relation/2804757": SQUARE, "node/64954563": "POINT (1.45 42.55)"}
    table = osmh3kg_rows(entities, wkts)
    town_class = pa.table(
        {
            "subject": ["town"],
            "predicate": ["rdfs:subClassOf"],
            "object": ["place"],
            "date": ["2021-06-22"],
        }
    )
    p = tmp_path / "o.parquet"
    pq.write_table(pa.concat_tables([table, town_class]), p)
    return p


def test_a_parish_whose_name_a_town_shares_is_named_by_its_designation(con, tmp_path):
    res = convert_kg(con, "osmh3kg", _andorra(tmp_path), "s")
    got = {
        r["entity_id"]: (r["display_name"], r["name_rule"])
        for r in rows(con, "SELECT entity_id, display_name, name_rule FROM entities")
    }
    assert got["osmh3kg:relation/2804757"] == ("the parish of La Massana", "admin_designation")
    assert got["osmh3kg:node/64954563"] == ("La Massana (town)", None)
    assert res.metadata()["names_by_rule"]["admin_designation"] == {"entities": 1, "excluded": 0}


def test_a_shared_region_name_without_a_designation_is_never_tagged_nor_bound(con, tmp_path):
    res = convert_kg(con, "osmh3kg", _andorra(tmp_path, iso=False), "s")
    (r,) = rows(
        con,
        "SELECT display_name, name_unique, name_rule FROM entities "
        "WHERE entity_id LIKE '%relation%'",
    )
    assert (r["display_name"], r["name_unique"], r["name_rule"]) == (
        "La Massana",
        False,
        "admin_undesignated",
    )
    assert res.metadata()["names_by_rule"]["admin_undesignated"] == {"entities": 1, "excluded": 1}


def test_designations_render_in_each_language_or_the_name_alone():
    found = ml_names.display_designation("La Massana", "the parish of La Massana")
    assert found is not None
    assert found.render_in("fra") == "la paroisse de La Massana"
    assert found.render_in("spa") == "la parroquia de La Massana"
    assert found.render_in("jpn") == "La Massana"  # no certain form: the name alone
    assert ml_names.display_designation("La Massana", "La Massana (town)") is None
    encamp = ml_names.display_designation("Encamp", "the parish of Encamp")
    assert encamp.render_in("fra") == "la paroisse d'Encamp"  # "de" elides before a vowel
    assert encamp.render_in("spa") == "la parroquia de Encamp"
    name, said = instantiate.fallback_name("the parish of La Massana", found, load_memory("fra"))
    assert (name, said) == ("la paroisse de La Massana", True)


# ----------------------------------------------------------------------------------------- check
@pytest.mark.parametrize(
    "text",
    [
        "Is Hotel Sol within La Massana (administrative region)?",
        "How far is 166 Roc de Sant Miquel from Hotel Sol?",
    ],
)
def test_check_fails_a_region_tag_or_a_coded_stop_name(text):
    con = duckdb.connect()
    con.execute(
        """
        CREATE TABLE entities AS
        SELECT *
        FROM (VALUES ('166 Roc de Sant Miquel', 'platform'), ('Roc de Sant Miquel', 'bus_stop'))
            AS t(display_name, category)
        """
    )
    clean = "Is Hotel Sol within the parish of La Massana, near Roc de Sant Miquel?"
    world.assert_text_check_catches(
        world.question_check("regions_by_designation"), con, clean, text
    )


def test_a_readers_qualifier_is_said_in_each_language_with_its_word():
    found = ml_names.display_qualifier("Helsinki", "the Helsinki tram stop", "tram_stop")
    assert found == ml_names.Qualified("Helsinki", "tram_stop")
    tm = load_memory("fra")
    name, said = instantiate.fallback_name("the Helsinki tram stop", found, tm)
    assert said and name == f"Helsinki ({tm.singular('tram_stop')})"
    assert ml_names.reader_qualifier("the Helsinki tram stop", "bus_stop") is None


def test_summary_counts_names_by_rule():
    from mgqa_platform import report

    con = duckdb.connect()
    con.execute(
        """
        CREATE TABLE entities AS
        SELECT *
        FROM (VALUES
            ('osmh3kg', 'admin_designation', true),
            ('osmh3kg', 'stop_code', true),
            ('osmh3kg', 'stop_code', false),
            ('osmh3kg', NULL, true)
        ) AS t(kg, name_rule, name_unique)
        """
    )
    assert report._names_by_rule(con)[1] == (
        "  osmh3kg    admin_designation 1 (0), stop_code 2 (1)"
    )
