"""Display names: disambiguated as a local would (category word, street, both), never with
coordinates or ids; an entity whose name stays ambiguous is flagged and never bound where its name
must identify it, but still counted as a category member. The name rules themselves:
tests/test_name_rules.py."""

from __future__ import annotations

import re

import duckdb
import pytest

from mgqa_platform.kg.convert import convert_kg
from tests import question_world as world
from tests.test_conversion import PREFIXES, rows, wkg_node

BASE = (-51.2200, -30.0300)  # lon, lat (EPSG:4326) of the first entity; the others lie 100 m apart


def street(name: str) -> str:
    return f' ;\n    wkgs:addrStreet "{name}"'


#: entity number -> (name, (rdf class, main key, value), street or None)
ENTITIES = {
    1: ("Café Sol", ("Cafe", "amenity", "cafe"), "Rua A"),
    2: ("Café Sol", ("Cafe", "amenity", "cafe"), "Rua B"),
    3: ("Café Lua", ("Cafe", "amenity", "cafe"), "Rua C"),
    4: ("Café Lua", ("Cafe", "amenity", "cafe"), "Rua C"),
    5: ("Helsinki", ("TramStop", "railway", "tram_stop"), None),
    6: ("Helsinki", ("City", "place", "city"), None),
    7: ("Mercado", ("Cafe", "amenity", "cafe"), "Rua D"),
    8: ("Mercado", ("Cafe", "amenity", "cafe"), "Rua E"),
    9: ("Mercado", ("Pharmacy", "amenity", "pharmacy"), "Rua D"),
    10: ("Mercado", ("Pharmacy", "amenity", "pharmacy"), "Rua E"),
    11: ("Padaria Única", ("Cafe", "amenity", "cafe"), "Rua A"),
}
EXPECTED = {
    1: ("Café Sol (Rua A)", True),  # same category: told apart by street
    2: ("Café Sol (Rua B)", True),
    3: ("Café Lua", False),  # same name, same street, same category: nothing tells them apart
    4: ("Café Lua", False),
    5: ("the Helsinki tram stop", True),  # a city's name on a POI: always the category word
    6: ("Helsinki", True),  # the city keeps its name
    7: ("Mercado (cafe, Rua D)", True),  # neither category nor street alone: both
    8: ("Mercado (cafe, Rua E)", True),
    9: ("Mercado (pharmacy, Rua D)", True),
    10: ("Mercado (pharmacy, Rua E)", True),
    11: ("Padaria Única", True),  # unique name: as is
}
AMBIGUOUS = {"worldkg:3", "worldkg:4"}


def point(i: int) -> str:
    return f"POINT({BASE[0] + 0.001 * i} {BASE[1]})"


@pytest.fixture
def town(con, tmp_path):
    """The converted WorldKG town of :data:`ENTITIES`, every entity in stratum UMC/high."""
    ttl = tmp_path / "town.ttl"
    ttl.write_text(
        PREFIXES
        + "".join(
            wkg_node(i, name, point(i), cls, street(st) if st else "")
            for i, (name, (cls, _key, _value), st) in ENTITIES.items()
        ),
        encoding="utf-8",
    )
    res = convert_kg(con, "worldkg", ttl, "snap-1")
    con.execute(
        """
        INSERT INTO entity_strata
        SELECT entity_id, kg, 'BRA', 'UMC', 'high', NULL, 'UMC/high', NULL
        FROM entities
        """
    )
    return con, res


def test_display_names_take_the_first_unique_form_and_flag_the_rest(town):
    con, res = town
    got = {
        r["entity_id"]: (r["display_name"], r["name_unique"])
        for r in rows(con, "SELECT entity_id, display_name, name_unique FROM entities")
    }
    assert got == {f"worldkg:{i}": want for i, want in EXPECTED.items()}
    assert not any(re.search(r"-?\d+\.\d+, -?\d+\.\d+|#|worldkg", d) for d, _ in got.values())
    assert (res.ambiguous_names, res.disambiguated_names) == (2, 7)
    meta = res.metadata()
    assert (meta["names_ambiguous"], meta["names_disambiguated"]) == (2, 7)
    assert meta["names_by_rule"] == {
        "ambiguous": {"entities": 2, "excluded": 2},
        "place_name_on_poi": {"entities": 1, "excluded": 0},
    }


def test_ambiguous_entities_are_never_bound_as_entity_roles(town):
    con, _ = town
    pool = world.pool(con)
    bound = {
        r[0] for r in con.execute(f"SELECT entity_id FROM ({pool.sample('poi', 's')})").fetchall()
    }
    unique_points = {f"worldkg:{i}" for i, (_, ok) in EXPECTED.items() if ok}
    assert bound == unique_points and not bound & AMBIGUOUS


def test_ambiguous_entities_still_count_as_category_members(town):
    con, _ = town
    world.pool(con)
    members = world.bindable(con, "category_poi")
    assert members["cafe"] == 7  # Café Lua twice among them
    # B01.1 (how many cafes within 5 km of Padaria Única?) counts and cites both Café Lua
    outcome = world.run(
        con, "B01.1", kg="worldkg", category_A="cafe", entity_B="worldkg:11", value=5
    )
    assert outcome.gold == {"value": 6} and AMBIGUOUS <= set(outcome.evidence)


CLEAN = "How far is Café Sol (Rua A) from the Helsinki tram stop, in km (2 decimals)?"
LEAKS = [
    "Is Levuma (6.5079, -10.8415) or Joe farther from Kperkor?",
    "How far is Café Central (Rua B, -30.0350, -51.2100) from Mercado?",
    "Which cell holds Bus stop #node/5148502368?",
    "Is Old Mill #way/77 inside Parque?",
    "Does Centro #relation/12 touch Bairro Sul?",
    "How long is Main Road #road.U101.174?",
    "How far is POINT from Mercado?",
    "Does UNNAMED (1985) intersect Parque?",
    "Which cafes are within 2 km of unnamed road?",
    "Is Fixme north of Mercado?",
    "How far is No name from Mercado?",
    "Is N/A inside Bairro Sul?",
]
#: Texts that look close to a bad form but are fine: "point" as a word, names containing one.
NEAR_MISSES = [
    "What is the nearest point of Rua A to Mercado?",
    "In how many points do Rua A and Rua B intersect?",
    "How far is Pointe Noire from Unnamedville?",
]


@pytest.mark.parametrize("text", LEAKS)
def test_question_text_check_catches_coordinates_ids_and_placeholders(text):
    check = world.question_check("no_coordinates_or_ids_in_text")
    world.assert_text_check_catches(check, duckdb.connect(), CLEAN, text)


def test_question_text_check_passes_words_that_only_look_like_placeholders():
    check = world.question_check("no_coordinates_or_ids_in_text")
    con = duckdb.connect()
    con.execute(
        """
        CREATE TABLE questions_en AS
        SELECT *
        FROM (VALUES ('q1', ?), ('q2', ?), ('q3', ?), ('q4', ?)) AS t(question_id, text)
        """,
        [CLEAN, *NEAR_MISSES],
    )
    assert check.run(con, None).passed is True
