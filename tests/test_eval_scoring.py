"""Scoring runs: alias resolution, prediction statuses, the paper's aggregate metrics, baselines and
reports."""

from __future__ import annotations

import json

import pytest

from mgqa_platform.evaluation import baseline, evaluate, report
from mgqa_platform.evaluation.scoring import AliasStore, aggregate, resolve_entities, score_question
from mgqa_platform.questions import formats


def record(
    qid,
    fmt,
    gold,
    *,
    sub="A01.1",
    sfid="A",
    fp=False,
    aliases=None,
    income="HIC",
    density="high",
    kg="worldkg",
):
    return {
        "question_id": qid,
        "lang": "eng",
        "kg": kg,
        "sfid": sfid,
        "tid": sub[:3],
        "sub_template_id": sub,
        "answer_format": fmt,
        "text": f"question {qid}",
        "gold": json.dumps(gold),
        "gold_aliases": json.dumps(aliases or {}),
        "bindings": "{}",
        "parameters": "{}",
        "executor": "x@1",
        "gold_triples": "[]",
        "entity_subjects": "{}",
        "false_premise": fp,
        "multimodal": False,
        "income_tier": income,
        "density_tier": density,
        "country_iso3": "FIN",
    }


SET_GOLD = formats.entity_set(
    ["w:1", "w:2", "w:3"], ["Poste de santé", "poste de santé", "Café Regatta"]
)
SET_Q = record(
    "qset",
    "set",
    SET_GOLD,
    aliases={
        "w:1": ["Poste de santé", "Health post 1"],
        "w:2": ["poste de santé"],
        "w:3": ["Café Regatta", "Regatta", "Cafe Regatta (Helsinki)"],
    },
)


def answered(answer):
    return {"status": "answered", "answer": answer}


def test_alias_store_resolves_any_accepted_name_after_normalisation():
    store = AliasStore.of_question(SET_Q)
    assert store.resolve("  REGATTA ") == {"w:3"}
    assert store.resolve("ｃａｆé regatta") == {"w:3"}  # NFKC folds full-width letters
    assert store.resolve("poste de santé") == {"w:1", "w:2"}  # a shared name denotes both
    assert store.resolve("Kiasma") == set()


def test_a_name_two_gold_entities_share_names_both_in_a_set():
    # names cannot tell apart two gold entities that bear one name: the name once (or twice) names
    # both
    for names in (["poste de santé", "regatta"], ["poste de santé", "Poste de santé", "regatta"]):
        assert score_question(SET_Q, answered({"names": names})).em == 1.0
    # a name of one gold entity only still misses the other
    one = score_question(SET_Q, answered({"names": ["Health post 1", "Regatta"]}))
    assert one.em == 0.0 and one.ne == pytest.approx(1 / 3)
    # an answer without the shared name misses both of its entities
    missing = score_question(SET_Q, answered({"names": ["Regatta"]}))
    assert missing.em == 0.0 and missing.ne == pytest.approx(2 / 3)
    extra = score_question(
        SET_Q, answered({"names": ["Health post 1", "poste de santé", "Regatta", "Kiasma"]})
    )
    assert extra.em == 0.0 and extra.ne == pytest.approx(
        1 - 3 / 4
    )  # Jaccard 3/4: the unknown name is a wrong item


def test_entity_name_ties_accepted_and_only_first_answer_counts():
    q = record(
        "qe",
        "entity_name",
        formats.entity_name(["w:1", "w:2"], ["Alpha", "Beta"]),
        aliases={"w:2": ["Beta", "Bêta"]},
    )
    assert score_question(q, answered({"names": ["bêta"]})).em == 1.0  # a tie member under an alias
    assert (
        score_question(q, answered({"names": ["Gamma", "Alpha"]})).em == 0.0
    )  # the first answer is wrong
    assert resolve_entities(
        "entity_name", {"names": ["Gamma"]}, json.loads(q["gold"]), AliasStore.of_question(q)
    ) == {"entity_ids": ["unresolved:gamma"]}


def test_statuses_refusals_and_false_premises():
    tp = record("q1", "distance", formats.distance_km(12.0))
    fp = record("q2", "distance", formats.REJECTION, fp=True)
    assert score_question(tp, answered({"value": 12.4, "unit": "km"})).em == 1.0
    r = score_question(tp, {"status": "refused", "answer": formats.REJECTION})
    assert (r.em, r.ne, r.refused, r.covered) == (0.0, 1.0, True, False)
    # a rejection given as an "answered" answer is a refusal too
    assert score_question(tp, answered(formats.REJECTION)).refused
    # "none of them" to a set question rejects its premise that some member exists: right on a false
    # premise, a refusal on a true one; an empty list is no rejection for another format
    fp_set = record("q3", "set", formats.REJECTION, fp=True)
    tp_set = record("q4", "set", formats.entity_set(["w:1"], ["Alpha"]))
    for empty in ({"entity_ids": [], "names": []}, {"names": []}):
        assert score_question(fp_set, answered(empty)).em == 1.0
        assert score_question(tp_set, answered(empty)).refused
    assert score_question(fp_set, answered({"names": ["Alpha"]})).em == 0.0
    fp_name = record("q5", "entity_name", formats.REJECTION, fp=True)
    assert score_question(fp_name, answered({"names": []})).em == 0.0
    assert score_question(fp, {"status": "refused", "answer": formats.REJECTION}).em == 1.0
    assert score_question(fp, answered({"value": 3.0, "unit": "km"})).em == 0.0
    bad = score_question(tp, answered({"value": "twelve"}))
    assert (bad.status, bad.covered, bad.em, bad.ne) == ("format_error", False, 0.0, 1.0)
    assert score_question(tp, None).detail == "missing_prediction"
    assert score_question(tp, {"status": "teleported"}).status == "format_error"


def _row(em, ne=None, *, fp=False, status="answered", refused=False, covered=None, premise=False):
    return {
        "false_premise": fp,
        "status": status,
        "refused": refused,
        "covered": (status == "answered") if covered is None else covered,
        "em": float(em),
        "ne": float(1 - em if ne is None else ne),
        "premise_template": premise,
    }


def test_aggregate_metrics_by_hand():
    rows = [
        _row(1),
        _row(0, 0.5),
        _row(1, 0.0, premise=True),  # 3 answered: 2 right
        _row(
            0, 1.0, status="refused", refused=True, premise=True
        ),  # a false refusal on a premise template
        _row(0, 1.0, status="format_error"),
        _row(0, 1.0, status="budget_exhausted"),  # not a refusal: out of the FRR denominator
        _row(0, 1.0, status="skipped"),  # out of everything
        _row(1, 0.0, fp=True, status="refused", refused=True),
        _row(0, 1.0, fp=True),
        _row(0, 1.0, fp=True, status="budget_exhausted"),
    ]
    m = aggregate(rows)
    assert m.n == 6 and m.n_false_premise == 3
    assert m.em == pytest.approx(100 * 2 / 6)
    assert m.ne == pytest.approx(100 * (0 + 0.5 + 0 + 1 + 1 + 1) / 6)
    assert m.coverage == pytest.approx(100 * 3 / 6) and m.em_covered == pytest.approx(100 * 2 / 3)
    assert m.em == pytest.approx(m.coverage * m.em_covered / 100)  # EM = Cov x EM_cov
    assert m.frr == pytest.approx(100 * 1 / 5)
    assert m.nrr == pytest.approx(100 * 1 / 2)
    assert m.frr_premise_templates == pytest.approx(50.0)


def test_majority_baseline_per_sub_template_with_deterministic_ties():
    qs = [
        record("a1", "boolean", {"value": True}, sub="C01.1"),
        record("a2", "boolean", {"value": False}, sub="C01.1"),
        record("a3", "boolean", {"value": False}, sub="C01.1"),
        record("a4", "boolean", formats.REJECTION, sub="C01.1", fp=True),
        record("a5", "boolean", formats.REJECTION, sub="C01.1", fp=True),
        record("a6", "boolean", formats.REJECTION, sub="C01.1", fp=True),
        record("b1", "count", {"value": 3}, sub="B01.2"),
        record("b2", "count", {"value": 2}, sub="B01.2"),
    ]
    best = baseline.majority_answers(qs)
    assert best == {
        "C01.1": {"value": False},
        "B01.2": {"value": 2},
    }  # rejections never count; tie -> smallest JSON
    rows = evaluate.score_rows("majority", "large", "eng", qs, baseline.majority_predictions(qs))
    m = aggregate(rows)
    assert (m.coverage, m.frr, m.nrr) == (100.0, 0.0, 0.0)
    assert m.em == pytest.approx(
        100 * 3 / 5
    )  # a2, a3 and b2; b1 misses: d = 1 is not < tau = max(1, 0.05 * 3)


def test_gold_as_prediction_scores_perfectly_for_every_format():
    golds = {
        "boolean": {"value": "plausibly"},
        "entity_name": formats.entity_name(["w:1"], ["A"]),
        "predefined": formats.predefined("NE", formats.OPTION_SETS["cardinal8"]),
        "set": SET_GOLD,
        "grid_cell": formats.h3_cell("8928308280fffff"),
        "geohash": formats.geohash("u4pruyd"),
        "composite_cell": formats.composite_cell("8928308280fffff", "89c25"),
        "distance": formats.distance_km(1.5),
        "area": formats.area_km2(0.02),
        "count": formats.count(4),
        "ratio": formats.ratio(0.25),
        "point": formats.point(24.9, 60.2),
        "polar": formats.polar(359.0, 3.0),
        "bbox": formats.bbox(24.9, 60.1, 25.0, 60.2),
        "date": formats.date("2016-06"),
    }
    assert set(golds) == set(formats.FORMATS)
    qs = [record(f"q{i}", fmt, g) for i, (fmt, g) in enumerate(golds.items())] + [
        record("qfp", "point", formats.REJECTION, fp=True)
    ]
    rows = evaluate.score_rows("gold", "large", "eng", qs, baseline.gold_predictions(qs))
    m = aggregate(rows)
    assert (m.em, m.ne, m.coverage, m.frr, m.nrr) == (100.0, 0.0, 100.0, 0.0, 100.0)


def test_income_tier_standardized_to_the_sfid_mix():
    # overall mix: A 3 questions, B 1. HIC answers every A and misses B; LIC has only B questions,
    # all right.
    rows = [
        dict(_row(1), sfid="A", income_tier="HIC"),
        dict(_row(1), sfid="A", income_tier="HIC"),
        dict(_row(1), sfid="A", income_tier="HIC"),
        dict(_row(0), sfid="B", income_tier="HIC"),
        dict(_row(1), sfid="B", income_tier="LIC"),
    ]
    std = report.standardized(rows, "income_tier")
    assert std["HIC"] == pytest.approx(100 * (0.6 * 1.0 + 0.4 * 0.0))  # weights A 3/5, B 2/5
    assert std["LIC"] == pytest.approx(100.0)  # only B present: renormalised over the SFIDs it has


def test_report_renders_markdown_and_pngs_deterministically(tmp_path):
    qs = [
        record(
            f"q{i}",
            "distance",
            formats.distance_km(10.0 + i),
            sfid="AB"[i % 2],
            income=("HIC", "LIC")[i % 2],
        )
        for i in range(6)
    ]
    preds = {q["question_id"]: answered({"value": 10.0, "unit": "km"}) for q in qs}
    rows = evaluate.score_rows("toy", "small", "eng", qs, preds)
    first = report.write_report(rows, tmp_path / "a", "toy on the small split")
    second = report.write_report(rows, tmp_path / "b", "toy on the small split")
    md = first["report"].read_text(encoding="utf-8")
    assert (
        "## Spatial function (SFID)" in md
        and "Standardized to the overall SFID mix" in md
        and "![Income tier](income_tier.png)" in md
    )
    for key in ("sfid", "answer_format", "kg", "income_tier", "density_tier", "lang"):
        data = first[key].read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert data == second[key].read_bytes()


def test_scores_slice_is_replaced_atomically_and_read_back(tmp_path):
    from mgqa_platform import warehouse

    qs = [
        record("q1", "count", formats.count(3)),
        record("q2", "count", formats.REJECTION, fp=True),
    ]
    with warehouse.session(tmp_path / "w.duckdb") as con:
        warehouse.ensure_schema(con)
        for _ in range(2):  # re-scoring the same slice replaces it
            rows = evaluate.score_rows("sys", "large", "eng", qs, {"q1": answered({"value": 3})})
            assert evaluate.write_scores(con, rows, "sys", "large", "eng") == 2
        other = evaluate.score_rows("other", "large", "eng", qs, {})
        evaluate.write_scores(con, other, "other", "large", "eng")
        back = evaluate.read_scores(con, "sys", "large")
        assert [(r["question_id"], r["status"], r["em"]) for r in back] == [
            ("q1", "answered", 1.0),
            ("q2", "harness_error", 0.0),
        ]
        assert back[1]["detail"] == "missing_prediction"
        assert con.execute("SELECT count(*) FROM scores").fetchone()[0] == 4
