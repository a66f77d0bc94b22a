"""Two different entities of a question never read the same in any language: the blocking check
``distinct_entities_distinct_names`` on ``questions_localized``, on questions written into a
warehouse."""

from __future__ import annotations

import json

import pytest

from mgqa_dagster.data_quality.multilingual import LOCALIZED_CHECKS
from mgqa_platform import warehouse
from mgqa_platform.languages import TARGETS
from mgqa_platform.multilingual import instantiate, memory, names
from mgqa_platform.multilingual.ensemble import spans
from mgqa_platform.question_schema import LOCALIZED_SCHEMA, QUESTION_SCHEMA, arrow_table
from mgqa_platform.questions.catalog import default_catalog
from tests.test_multilingual import _record

(CHECK,) = [c for c in LOCALIZED_CHECKS if c.name == "distinct_entities_distinct_names"]


def _write(con, question_id: str, bindings: dict, text_marked: str) -> None:
    """One English question of A01.1 (two name slots) and its French row with ``text_marked``."""
    variant = default_catalog().sub_template("A01.1").variants[0]
    english = {
        **dict.fromkeys(QUESTION_SCHEMA.names),
        **_record(
            question_id=question_id,
            sub_template_id="A01.1",
            variant_id=variant.id,
            bindings=json.dumps(bindings),
            parameters="{}",
        ),
        "tid": "A01",
        "executor": "x@1",
        "query": "SELECT 1",
        "gold_triples": "[]",
        "entity_subjects": "{}",
        "false_premise": False,
    }
    french = {
        "lang": "fra",
        "question_id": question_id,
        "text": text_marked.replace("{", "").replace("}", ""),
        "text_marked": text_marked,
        "template_text": "Quelle est la distance entre {entity_A} et {entity_B} ?",
        "template_status": "unreviewed",
        "fallbacks": "[]",
    }
    with warehouse.registered(con, _q=arrow_table(QUESTION_SCHEMA, [english])):
        con.execute("INSERT INTO questions_en BY NAME SELECT * FROM _q")
    with warehouse.registered(con, _l=arrow_table(LOCALIZED_SCHEMA, [french])):
        con.execute("INSERT INTO questions_localized BY NAME SELECT * FROM _l")


def test_the_check_fails_on_two_entities_with_one_name(con):
    two = {"entity_A": "k:1", "entity_B": "k:2"}
    _write(con, "q1", two, "Quelle est la distance entre {Ambohipo} et {Ambohipo (quartier)} ?")
    # one entity in both slots is one name
    _write(con, "q2", {"entity_A": "k:1", "entity_B": "k:1"}, "Entre {Isalo} et {Isalo} ?")
    assert CHECK.run(con, "fra").passed
    # "X (neighbourhood)" and "X (city quarter)" both said "X (quartier)"; case and spaces do not
    # count
    _write(
        con,
        "q3",
        two,
        "Quelle est la distance entre {Ambohipo (quartier)} et {ambohipo  (Quartier)} ?",
    )
    failed = CHECK.run(con, "fra")
    assert not failed.passed and CHECK.blocking
    assert failed.metadata["same_name_questions"].value == 1
    assert "q3" in json.loads(failed.metadata["examples"].value)


@pytest.mark.parametrize("lang", TARGETS)
def test_a_neighbourhood_and_a_city_quarter_of_one_name_stay_apart(lang):
    """Re-instantiated with the bundled memory of every language, two entities whose English display
    names differ only by their category word ("Ambohipo (neighbourhood)", "Ambohipo (city quarter)")
    are two names, each said in the language: every memory has a word of its own for each (fra, por,
    sqi and urd had one word for both), so neither has to give way to English."""
    cat = default_catalog()
    vid = cat.sub_template("A01.1").variants[0].id
    tm = memory.load(lang)
    record = _record(
        sub_template_id="A01.1",
        variant_id=vid,
        bindings=json.dumps({"entity_A": "k:1", "entity_B": "k:2"}),
        parameters="{}",
    )
    (row,), used = instantiate.localize(
        [record],
        lang,
        {vid: (tm.variants[vid]["text"], "unreviewed")},
        tm,
        {},
        {"k:1": "Ambohipo (neighbourhood)", "k:2": "Ambohipo (city quarter)"},
        cat,
        qualifiers={
            "k:1": names.Qualified("Ambohipo", "neighbourhood"),
            "k:2": names.Qualified("Ambohipo", "quarter"),
        },
    )
    first, second = spans(row["text_marked"])
    assert first.casefold() != second.casefold(), row["text_marked"]
    assert "unique" not in used and tm.singular("neighbourhood") != tm.singular("quarter")
