"""The blocking gate ``questions_valid`` (issue 16, item 7) re-verifies the validity rules from the
stored records of ``questions_en``: each test writes questions the generator made on a tiny world,
breaks one rule in the stored state, and expects the gate to name it."""

from __future__ import annotations

import json

from mgqa_dagster.data_quality.questions import QUESTION_CHECKS, validity_problems
from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.generate import generate, write_questions
from tests import question_world as world
from tests.test_coverage import declare_box, two_clusters  # noqa: F401  (fixture)
from tests.test_triviality import cafes

CATALOG = load_catalog()
GATE = {c.name: c for c in QUESTION_CHECKS}["questions_valid"]


def rules(con) -> set[tuple[str, str]]:
    return {(p["sub_template_id"], p["rule"]) for p in validity_problems(con, CATALOG)}


def test_gate_is_blocking_and_passes_what_the_generator_keeps(con):
    cafes(con)
    write_questions(con, generate(con, CATALOG, ["worldkg"], only={"A01.1"}))
    assert GATE.blocking
    assert rules(con) == set()
    assert GATE.run(con, None).passed is True


def test_gate_finds_a_trivially_zero_distance(con):
    """Without the generator's triviality rules the 0.2 km pair stays; the gate names it."""
    cafes(con)
    gen = generate(con, CATALOG, ["worldkg"], only={"A01.1"}, non_trivial=False)
    write_questions(con, gen)
    assert ("A01.1", "trivial") in rules(con)
    assert GATE.run(con, None).passed is False


def test_gate_finds_a_support_beyond_a_shrunk_coverage(two_clusters):  # noqa: F811
    """B01 questions kept inside the declared box fail once the coverage shrinks to a point's
    neighbourhood: their discs now leave it."""
    con = two_clusters
    gen = generate(con, CATALOG, ["worldkg"], only={"B01.1"}, seed=5, non_trivial=False)
    write_questions(con, gen)
    assert gen.questions and {r for r in rules(con) if r[1] != "trivial"} == set()
    declare_box(con, bounds=(-51.26, -30.06, -51.24, -30.04))
    assert ("B01.1", "beyond_coverage") in rules(con)


def test_gate_finds_a_false_premise_that_is_not_refusable(con):
    """A stored false premise of an answerable kind (A09.1: a distance stays defined), or one
    without its reason, is named ``premise_not_refusable``."""
    cafes(con)
    write_questions(con, generate(con, CATALOG, ["worldkg"], only={"A01.1"}))
    qid = con.execute("SELECT min(question_id) FROM questions_en").fetchone()[0]
    bad = {"premise_kind": "presupposed_member"}  # no "why", and A01.1 has no refusable premise
    con.execute(
        """
        UPDATE questions_en
        SET false_premise = true, perturbation = ?
        WHERE question_id = ?
        """,
        [json.dumps(bad), qid],
    )
    assert ("A01.1", "premise_not_refusable") in rules(con)


def test_gate_finds_two_pieces_of_one_whole(con):
    """Two cited cafes of one name 11 m apart are one cafe (``mgqa_platform.kg.whole``): a stored
    question citing both is named ``pieces_of_one_whole``; 200 m apart they are two cafes."""
    cafes(con)
    world.add(con, "worldkg:8", "Cafe Oito", "cafe", "POINT(-51.3000 -30.1000)")
    world.add(con, "worldkg:9", "Cafe Oito", "cafe", "POINT(-51.3000 -30.1001)")
    world.add(con, "worldkg:10", "Cafe Oito", "cafe", "POINT(-51.3000 -30.1020)")
    write_questions(con, generate(con, CATALOG, ["worldkg"], only={"A01.1"}))
    qid = con.execute("SELECT min(question_id) FROM questions_en").fetchone()[0]

    def cite(*ids: str) -> set[tuple[str, str]]:
        con.execute(
            "UPDATE questions_en SET entity_subjects = ? WHERE question_id = ?",
            [json.dumps({i: i for i in ids}), qid],
        )
        return {r for r in rules(con) if r[1] == "pieces_of_one_whole"}

    assert cite("worldkg:8", "worldkg:10") == set()
    assert cite("worldkg:8", "worldkg:9") == {("A01.1", "pieces_of_one_whole")}
