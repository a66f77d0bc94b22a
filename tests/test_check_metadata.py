"""A failed check says what failed: the template ids, rows or entities, not only the failing
value (issue 19, item 5)."""

from __future__ import annotations

from mgqa_dagster.data_quality.questions import QUESTION_CHECKS
from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.generate import generate, write_questions
from tests.test_triviality import cafes

CATALOG = load_catalog()
YIELD = {c.name: c for c in QUESTION_CHECKS}["templates_yield_questions"]


def test_templates_yield_questions_names_the_templates_without_questions(con):
    """On a world where only A01 is generated, every other implemented template is named, E05
    among them, in the metadata the UI shows and in the first failure's rows."""
    cafes(con)
    write_questions(con, generate(con, CATALOG, ["worldkg"], only={"A01.1"}))
    res = YIELD.run(con, None)
    assert res.passed is False
    missing = res.metadata["templates_without_questions"].value.split(", ")
    implemented = sorted({s.tid for s in CATALOG.sub_templates if s.executor})
    assert "E05" in missing and "A01" not in missing
    assert missing == [t for t in implemented if t != "A01"]
    assert f"tid={missing[0]} questions=0" in res.metadata["failed_0"].value
    assert f"tid={missing[0]}" in res.description


def test_a_language_check_belongs_to_its_partition(tmp_path):
    """The checks of a language partition are recorded for that partition, so the UI shows them per
    language instead of one latest result for all 17."""
    import dagster as dg

    from mgqa_dagster import definitions
    from mgqa_dagster.resources.paths import PathsResource

    resources = definitions.build_resources(paths=PathsResource(home=str(tmp_path)))
    with dg.instance_for_test() as instance:
        for keys, partition in ((["templates"], None), (["template_translations"], "rus")):
            result = dg.materialize(
                definitions.ALL_ASSETS,
                selection=keys,
                partition_key=partition,
                resources=resources,
                instance=instance,
            )
            assert result.success
        evaluations = [
            e.asset_check_evaluation_data
            for e in result.all_events
            if e.event_type_value == "ASSET_CHECK_EVALUATION"
        ]
        assert {e.check_name for e in evaluations} == {
            "translations_cover_catalog",
            "placeholders_survive_translation",
            "rows_not_shrunk",
        }
        assert {e.partition for e in evaluations} == {"rus"}
