"""The category lexicon: loading and validation, the words of tricky categories, and the rule that
only bindable categories are ever bound to a category role (candidates, and the blocking check on
``questions_en``)."""

from __future__ import annotations

import csv
import json

import duckdb
import pytest

from mgqa_platform import lexicon
from mgqa_platform.kg import osm_features, profiles
from mgqa_platform.questions import roles
from mgqa_platform.questions.catalog import default_catalog
from mgqa_platform.questions.executors import EXECUTORS
from tests import question_world as world

HEADER = "category,singular,plural,bindable,note\n"
VAGUE = (
    "amenity",
    "place",
    "shop",
    "building",
    "stop_position",
    "crossing",
    "railway",
    "highway",
    "man_made",
    "landuse",
    "leisure",
    "office",
)


def write(tmp_path, body: str, header: str = HEADER):
    path = tmp_path / "lexicon.csv"
    path.write_text(header + body, encoding="utf-8")
    return path


def test_parse_reads_words_and_bindable(tmp_path):
    path = write(tmp_path, "cafe,cafe,cafes,true,\nshop,shop,shops,false,too vague\n")
    got = lexicon.parse(path)
    assert got["cafe"] == lexicon.Entry("cafe", "cafe", "cafes", True, "")
    assert got["shop"].bindable is False and got["shop"].note == "too vague"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("cafe,cafe,cafes,true,\ncafe,café,cafés,true,\n", ":3: duplicate category 'cafe'"),
        ("cafe,,cafes,true,\n", ":2: empty singular"),
        ("cafe,cafe,,true,\n", ":2: empty plural"),
        (",cafe,cafes,true,\n", ":2: empty category"),
        (
            "cafe,cafe,cafes,yes,\n",
            ":2: bindable must be true or false, not 'yes' (category 'cafe')",
        ),
        (
            "cafe,cafe,cafes,true,\ncoffee,cafe,cafes,true,\n",
            "bindable categories 'cafe' and 'coffee' share the plural 'cafes'",
        ),
    ],
)
def test_parse_names_the_bad_row(tmp_path, body, message):
    path = write(tmp_path, body)
    with pytest.raises(lexicon.LexiconError) as err:
        lexicon.parse(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_parse_rejects_a_wrong_header(tmp_path):
    path = write(tmp_path, "cafe,cafe,cafes\n", header="category,singular,plural\n")
    with pytest.raises(lexicon.LexiconError, match="header must be"):
        lexicon.parse(path)


def test_same_plural_is_allowed_when_one_is_not_bindable(tmp_path):
    path = write(
        tmp_path, "artwork,artwork,artworks,true,\ntourism_artwork,artwork,artworks,false,\n"
    )
    assert set(lexicon.parse(path)) == {"artwork", "tourism_artwork"}


def test_bundled_lexicon_is_sorted_and_covers_every_category_the_builders_make():
    with open(lexicon.LEXICON_CSV, newline="", encoding="utf-8") as f:
        cats = [r["category"] for r in csv.DictReader(f)]
    assert cats == sorted(cats)
    tables = {fc.category for fc in osm_features.map_features().values()}
    tables |= set(osm_features.MAIN_KEYS) | set(profiles.kwg_categories().values())
    assert tables <= set(lexicon.entries())


@pytest.mark.parametrize(
    ("category", "singular", "plural"),
    [
        ("bureau_de_change", "bureau de change", "bureaux de change"),
        ("fast_food", "fast-food restaurant", "fast-food restaurants"),
        ("ngo", "NGO office", "NGO offices"),
        ("doctors", "doctor's practice", "doctors' practices"),
        ("place_of_worship", "place of worship", "places of worship"),
        ("water", "body of water", "bodies of water"),
        ("fuel", "fuel station", "fuel stations"),
        ("works", "factory", "factories"),
    ],
)
def test_tricky_words(category, singular, plural):
    assert (lexicon.noun(category), lexicon.label(category)) == (singular, plural)
    assert lexicon.bindable(category)


@pytest.mark.parametrize("category", [*VAGUE, "information", "emergency", "state", "stop"])
def test_vague_classes_are_not_bindable(category):
    assert category in lexicon.entries()
    assert not lexicon.bindable(category)


def test_a_category_missing_from_the_lexicon_names_but_never_binds():
    assert lexicon.noun("moon_base") == "moon base"
    assert not lexicon.bindable("moon_base")
    with pytest.raises(KeyError, match="moon_base"):
        lexicon.label("moon_base")


# ------------------------------------------------------------------------ binding


def point(i: int) -> str:
    """A point 100 m apart per step, east of (-51.22, -30.03) (lon/lat, EPSG:4326)."""
    return f"POINT({-51.2200 + 0.001 * i} {-30.0300 + 0.0005 * (i % 3)})"


@pytest.fixture
def mixed(con):
    """A WorldKG town: 12 members of the vague class ``amenity``, 4 cafes, 3 bus stops, two
    administrative regions around them, a road through them and an earthquake among them."""
    for i in range(12):
        world.add(con, f"worldkg:a{i}", f"Place {i}", "amenity", point(i))
    for i in range(4):
        world.add(con, f"worldkg:c{i}", f"Cafe {i}", "cafe", point(i + 0.5))
    for i in range(3):
        world.add(con, f"worldkg:b{i}", f"Stop {i}", "bus_stop", point(2 * i + 0.25))
    world.add(
        con,
        "worldkg:r1",
        "Centro",
        "administrative_region",
        "POLYGON((-51.225 -30.035, -51.205 -30.035, -51.205 -30.025, -51.225 -30.025, "
        "-51.225 -30.035))",
    )
    world.add(
        con,
        "worldkg:r2",
        "Bairro",
        "administrative_region",
        "POLYGON((-51.23 -30.04, -51.20 -30.04, -51.20 -30.02, -51.23 -30.02, -51.23 -30.04))",
    )
    world.add(con, "worldkg:l1", "Rua A", "road", "LINESTRING(-51.226 -30.0301, -51.204 -30.0299)")
    world.add(
        con,
        "worldkg:e1",
        "Earthquake",
        "earthquake",
        point(5.5),
        valid_from="2020-01-01T00:00:00Z",
        valid_to="2020-01-01T00:00:00Z",
        attributes={"magnitude": 4.5},
    )
    return con


def test_category_roles_skip_non_bindable_classes(mixed):
    world.pool(mixed)
    got = world.bindable(mixed, "category_poi")
    assert got == {"cafe": 4, "bus_stop": 3}  # amenity has 12 members and is never sampled


def test_no_executor_proposes_a_non_bindable_category(mixed):
    pool = world.pool(mixed)
    proposed: dict[str, set[str]] = {}
    for sub in default_catalog().sub_templates:
        cats = [r for r, t in sub.roles.items() if roles.is_category(t)]
        if not (sub.executor and cats):
            continue
        sql = EXECUTORS[sub.executor].candidates(sub, pool)
        assert roles.BINDABLE_TABLE in sql, f"{sub.id}: candidates ignore the lexicon"
        cur = mixed.execute(f"SELECT * FROM ({sql}) AS c")
        names = [d[0] for d in cur.description]
        for row in cur.fetchall():
            values = dict(zip(names, row, strict=True))
            proposed.setdefault(sub.id, set()).update(values[c] for c in cats)
    seen = set().union(*proposed.values())
    assert "amenity" not in seen
    assert seen <= set(lexicon.bindable_categories())
    assert "cafe" in seen and len(proposed) >= 5, proposed  # the test exercises real candidates


def test_gold_sql_does_not_read_the_lexicon():
    for sub in default_catalog().sub_templates:
        if sub.executor:
            assert roles.BINDABLE_TABLE not in EXECUTORS[sub.executor].gold_sql(sub), sub.id


# ---------------------------------------------------------------------- the check

CATEGORY_SUB = "B01.1"  # How many {category_A} are within {value} km of {entity_B}?


@pytest.mark.parametrize("bad", ["amenity", "moon_base"])
def test_check_fails_on_a_category_outside_the_bindable_lexicon(bad):
    from mgqa_dagster.data_quality.questions import QUESTION_CHECKS

    sub = default_catalog().sub_template(CATEGORY_SUB)
    assert roles.is_category(sub.roles["category_A"])
    check = {c.name: c for c in QUESTION_CHECKS}["category_words_in_lexicon"]
    assert check.blocking
    con = duckdb.connect()
    good = json.dumps({"category_A": "cafe", "entity_B": "worldkg:1"})
    wrong = json.dumps({"category_A": bad, "entity_B": "worldkg:1"})
    con.execute(
        """
        CREATE TABLE questions_en AS
        SELECT *
        FROM (VALUES ('q1', ?, ?), ('q2', ?, ?)) AS t(question_id, sub_template_id, bindings)
        """,
        [CATEGORY_SUB, good, CATEGORY_SUB, wrong],
    )
    assert check.run(con, None).passed is False
    con.execute("DELETE FROM questions_en WHERE question_id = 'q2'")
    assert check.run(con, None).passed is True
