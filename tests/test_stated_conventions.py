"""Stated conventions (questions/stated.py): every convention that decides a gold is in the question
text, in English and in every translation memory; a filter that removes nothing is not rendered;
polygon-category counts leave the country out; A06's "in" includes the boundary."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from mgqa_platform.evaluation.facts import Entity
from mgqa_platform.evaluation.solver.distance import is_country
from mgqa_platform.multilingual import memory
from mgqa_platform.questions import roles, stated
from mgqa_platform.questions.catalog import CATALOG_DIR, CatalogError, load_catalog
from mgqa_platform.questions.executors.distance import in_polygon_sql

CAT = load_catalog()
COMPACT = {"measure": "compactness"}


def test_a_compactness_comparison_must_name_its_score():
    assert stated.required(COMPACT, {}) == {"compactness"}
    assert stated.problems(COMPACT, {}, {}, ["Is {entity_A} more compact than {entity_B}?"]) == [
        "deciding convention 'compactness' is not stated"
    ]
    said = {"compactness": "Polsby-Popper"}
    assert stated.problems(COMPACT, {}, said, ["Is A more compact (Polsby-Popper) than B?"]) == []
    assert stated.problems(COMPACT, {}, said, ["ok Polsby-Popper", "Is A more compact?"]) == [
        "v2 does not state 'Polsby-Popper'"
    ]


def test_a_ranking_by_shape_parameter_must_name_both_scores():
    params = {"attribute_A": ["compactness", "elongation"]}
    assert stated.required({}, params) == {"compactness", "elongation"}


def test_the_pass_by_buffer_is_stated_with_its_value_in_metres():
    conv = {"buffer_m": 200}
    assert stated.required(conv, {}) == {"buffer"}
    wrong = {"buffer": {"en": "within 100 m", "kept": "100 m"}}
    assert stated.problems(conv, {}, wrong, ["X? within 100 m"]) == [
        "stated buffer must say '200 m'"
    ]
    right = {"buffer": {"en": "within 200 m", "kept": "200 m"}}
    assert stated.problems(conv, {}, right, ["X? Anything within 200 m of it counts."]) == []


def test_a_point_event_states_its_impact_radius_in_km():
    conv = {"impact_radius_km": 10}
    assert stated.required(conv, {}) == {"impact_radius"}
    assert stated.problems(conv, {}, {}, ["Which parishes were affected by Q?"]) == [
        "deciding convention 'impact_radius' is not stated"
    ]
    wrong = {"impact_radius": {"en": "within 5 km", "kept": "5 km"}}
    assert "stated impact_radius must say '10 km'" in stated.problems(
        conv, {}, wrong, ["within 5 km"]
    )


@pytest.mark.parametrize(
    "conventions,name",
    [
        ({"countries": "Natural Earth"}, "border_source"),
        ({"simplification": "Douglas-Peucker"}, "simplification"),
        ({"boundary": "covers"}, "boundary"),
    ],
)
def test_border_source_simplification_and_boundary_rule_are_deciding(conventions, name):
    assert stated.required(conventions, {}) == {name}


def test_a_region_count_must_exclude_the_country_or_state_it():
    roles_ = {"category_A": "category_polygon", "entity_B": "extended"}
    ex = "topology.count_intersecting"
    assert stated.country_problems(ex, roles_, {}, {}) != []
    assert stated.country_problems(ex, roles_, {"countries_excluded": "yes"}, {}) == []
    line_roles = {"category_A": "category_line", "entity_B": "extended"}
    assert stated.country_problems(ex, line_roles, {}, {}) == []


def test_a_self_filled_time_period_is_never_rendered():
    assert stated.vacuous_problems(["time_period"], ["How far was {event_A} in {time_period}?"])
    assert stated.vacuous_problems(["time_period"], ["How far was {event_A}?"]) == []


def test_the_catalog_states_every_deciding_convention():
    expected = {
        "K02.1": {"compactness"},
        "K03.2": {"elongation"},
        "F02.2": {"compactness", "elongation"},
        "D03.1": {"buffer"},
        "D04.2": {"buffer"},
        "A05.1": {"border_source"},
        "A06.1": {"boundary"},
        "K05.3": {"simplification"},
        "I02.2": {"impact_radius"},
        "I03.3": {"impact_radius"},
    }
    for sid, names in expected.items():
        sub = CAT.sub_template(sid)
        assert stated.required(sub.conventions, sub.parameters) == names, sid
        assert set(sub.stated) >= names, sid
    for sid in ("C04.2", "C05.2", "D01.1", "D01.2", "D02.1", "D02.2"):
        assert CAT.sub_template(sid).conventions.get("countries_excluded"), sid
    for sid in ("A03.1", "A03.2", "I01.1", "I01.2", "I01.3"):
        sub = CAT.sub_template(sid)
        assert "time_period" in sub.extras
        assert all("{time_period}" not in v.text for v in sub.variants), sid


def test_the_catalog_loader_rejects_a_variant_that_drops_the_stated_words(tmp_path):
    d = tmp_path / "templates"
    shutil.copytree(CATALOG_DIR, d)
    k = d / "K.yaml"
    note = " Compactness is the Polsby-Popper score 4π·area/perimeter² (1 for a circle)."
    text = k.read_text()
    assert note in text
    k.write_text(text.replace(note, "", 1))
    with pytest.raises(CatalogError, match="K02.1: v1 does not state 'Polsby-Popper'"):
        load_catalog(d)


def test_every_memory_keeps_the_stated_value():
    sub = CAT.sub_template("D03.1")
    vid = sub.variants[0].id
    assert stated.kept_words(sub.stated) == ["100"]
    for lang, unit in (("fra", "100 m"), ("rus", "100 м"), ("ell", "100 μέτρων")):
        tm = memory.load(lang)
        assert memory.kept_problems(tm, {vid: ["100"]}) == []
        assert unit in tm.variants[vid]["text"]  # the unit in the language's own script
    dropped = dict(tm.variants)
    dropped[vid] = {**dropped[vid], "text": dropped[vid]["text"].replace("100", "εκατό")}
    assert memory.kept_problems(replace(tm, variants=dropped), {vid: ["100"]}) == [
        f"{vid}: drops stated '100'"
    ]


def test_a_stored_question_is_re_verified():
    said = {"buffer": {"en": "within 100 m", "kept": "100 m"}}
    assert (
        stated.record_problems(
            said, {}, "Which shops? Anything within 100 m of it counts.", set(), set()
        )
        == []
    )
    assert stated.record_problems(said, {}, "Which shops does X pass by?", set(), set()) == [
        stated.UNSTATED
    ]
    conv = {"countries_excluded": "yes"}
    assert stated.record_problems({}, conv, "q", {"r/9407"}, {"r/9407"}) == [stated.COUNTRY_COUNTED]


def test_countries_are_left_out_of_region_members(con):
    con.execute(
        "CREATE TABLE ents AS SELECT * FROM (VALUES ('andorra', '{\"admin_level\": \"2\"}'), "
        "('parish', '{\"admin_level\": \"7\"}'), ('park', '{}')) t(entity_id, attributes)"
    )

    def kept(conventions):
        sql = f"SELECT entity_id FROM ents e WHERE {roles.not_country_sql(conventions, 'e')}"
        return sorted(r[0] for r in con.execute(sql).fetchall())

    assert kept({}) == ["andorra", "parish", "park"]
    assert kept({"countries_excluded": "yes"}) == ["parish", "park"]


def test_a06_counts_a_member_on_the_boundary_as_inside(con):
    sub = CAT.sub_template("A06.1")
    con.execute(
        "CREATE TABLE g AS SELECT ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))') AS geometry"
    )
    con.execute("CREATE TABLE m AS SELECT 1.0 AS lon, 0.5 AS lat")  # on the east edge
    on_edge = f"SELECT {in_polygon_sql(sub, 'g', 'm')} FROM g, m"
    assert con.execute(on_edge).fetchone()[0] is True
    strict = replace(sub, conventions={k: v for k, v in sub.conventions.items() if k != "boundary"})
    assert (
        con.execute(f"SELECT {in_polygon_sql(strict, 'g', 'm')} FROM g, m").fetchone()[0] is False
    )


def test_the_solver_recognises_a_country_by_its_admin_level():
    assert is_country(Entity("r/9407", "r/9407", attributes={"admin_level": ["2"]}))
    assert not is_country(Entity("r/1", "r/1", attributes={"admin_level": ["7"]}))


def test_rules_are_counted_per_question():
    counts = stated.rule_counts(CAT.sub_templates, {"D03.1": 3, "A03.2": 2, "C04.2": 4, "B01.1": 9})
    assert counts == {"countries_excluded": 4, "stated:buffer": 3, "vacuous_time_filter": 2}
