"""Post-edit resolution: annotation import, rules, judges (LLM against a local fake server, offline
twin), Table 9 statistics. Fixtures under tests/fixtures/annotations/ are synthetic (see the README
there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import CHRF

from mgqa_platform.llm import ChatClient
from mgqa_platform.multilingual.agreement import agreement, chrf, ordinal_alpha, weighted_kappa
from mgqa_platform.multilingual.annotations import (
    CORRECT,
    INCORRECT,
    LABELS,
    PHRASING,
    REASONS,
    Annotation,
    annotation_file,
    load_annotations,
    norm,
    parse_label,
    parse_reasons,
)
from mgqa_platform.multilingual.judge import (
    JUDGE_SCHEMA,
    JudgeChoice,
    JudgeError,
    LLMJudge,
    OfflineJudge,
)
from mgqa_platform.multilingual.resolution import report_markdown, resolve
from tests.fake_openai import FakeOpenAI, Reply, user_text

FIX = Path(__file__).parent / "fixtures" / "annotations"

ENGLISH = {
    "A01.1.v1": "What is the distance between {entity_A} and {entity_B}?",
    "A01.1.v2": "How far apart are {entity_A} and {entity_B}?",
    "A01.1.v3": "How many kilometres separate {entity_A} from {entity_B}?",
    "A01.2.v1": "In kilometres, how far is the settlement {entity_A} from {entity_B}?",
    "A01.2.v2": "Measured along the Earth's surface, "
    "what distance lies between {entity_A} and {entity_B}?",
    "A01.3.v1": "What is the shortest distance from {entity_A} to {entity_B}?",
    "A01.3.v2": "How far is {entity_A} from the closest point of {entity_B}?",
    "A01.3.v3": "At its nearest, how close does {entity_B} come to {entity_A}?",
    "A02.1.v1": "How far {direction} is {entity_A} from {entity_B}?",
    "A02.1.v2": "Is {entity_A} {direction} of {entity_B}?",
}
MT_FRA = {
    "A01.1.v1": "Quelle est la distance entre {entity_A} et {entity_B} ?",
    "A01.1.v2": "À quelle distance sont {entity_A} et {entity_B} ?",
    "A01.1.v3": "Combien de kilomètres séparent {entity_A} à {entity_B} ?",
    "A01.2.v1": "En kilomètres, à quelle distance se trouve la ville {entity_A} de {entity_B} ?",
    "A01.2.v2": "Mesurée le long de la surface de la Terre, "
    "quelle distance se situe entre {entity_A} et {entity_B} ?",
    "A01.3.v1": "Quelle est la distance la plus courte de {entity_A} à {entity_B} ?",
    "A01.3.v2": "Quelle est la distance de {entity_A} au point le plus proche de {entity_B} ?",
    "A01.3.v3": "Au plus près, à quelle distance {entity_B} s'approche-t-il de {entity_A} ?",
    "A02.1.v1": "À quelle distance {direction} se trouve {entity_A} de {entity_B} ?",
    "A02.1.v2": "{entity_A} est-il {direction} de {entity_B} ?",
}
MT_DEU = {
    "A01.1.v1": "Wie groß ist die Entfernung zwischen {entity_A} und {entity_B}?",
    "A01.1.v2": "Wie weit sind {entity_A} und {entity_B} auseinander?",
    "A01.3.v1": "Was ist die kürzeste Entfernung von {entity_A} nach {entity_B}?",
    "A01.3.v2": "Wie weit ist {entity_A} von dem nächsten Punkt von {entity_B}?",
}
FRA_CORR = {  # the annotators' corrections, as stored (normalised)
    "v2": "À quelle distance l'un de l'autre se trouvent {entity_A} et {entity_B} ?",
    "v3_b": "Combien de kilomètres séparent {entity_A} et {entity_B} ?",
    "12v1_b": "En kilomètres, à quelle distance la localité {entity_A} se trouve-t-elle de "
    "{entity_B} ?",
    "12v2_a": "Mesurée à la surface de la Terre, quelle distance sépare {entity_A} et {entity_B} ?",
    "13v1_a": "Quelle est la plus courte distance entre {entity_A} et {entity_B} ?",
    "13v1_b": "Quelle est la distance minimale de {entity_A} à {entity_B} ?",
    "13v2_a": "À quelle distance {entity_A} se trouve-t-il du point le plus proche de {entity_B} ?",
    "13v2_b": "À quelle distance se trouve {entity_A} du point le plus proche de {entity_B} ?",
    "21v1_a": "À quelle distance vers le {direction} se trouve {entity_A} par rapport à "
    "{entity_B} ?",
}


def fra():
    return load_annotations(FIX / "fra.csv", "fra", set(MT_FRA), mt=MT_FRA)


def by_id(resolutions):
    return {r.variant_id: r for r in resolutions}


# -- labels, reasons, normalisation ----------------------------------------------------------------
def test_label_and_reason_spellings():
    for s in ("Correct", "correct", " CORRECT ", "0", "c"):
        assert parse_label(s) == CORRECT
    for s in (
        "Phrasing improvement",
        "phrasing",
        "Correct – Phrasing Improvement Needed",
        "Correct - Phrasing improvement needed",
        "phrasing_improvement",
        "1",
    ):
        assert parse_label(s) == PHRASING, s
    for s in ("Incorrect", "INCORRECT", "2"):
        assert parse_label(s) == INCORRECT
    assert parse_label("Maybe") is None and parse_label("") is None
    assert LABELS == (CORRECT, PHRASING, INCORRECT)
    assert parse_reasons("Word choice / vocabulary; Gram.;W.O.; word_choice") == (
        ("word_choice", "grammar", "word_order"),
        [],
    )
    assert parse_reasons(["Mean.", "Info.", "Spat.", "Plh."]) == (
        ("meaning", "information", "spatial_relation", "placeholders"),
        [],
    )
    assert parse_reasons("typo; meaning") == (("meaning",), ["typo"])
    assert set(REASONS[PHRASING]) == {"word_choice", "grammar", "register", "word_order"}
    assert set(REASONS[INCORRECT]) == {"meaning", "information", "spatial_relation", "placeholders"}
    assert norm("A\u0300  la\tcarte \n") == "\u00c0 la carte"


# -- import ----------------------------------------------------------------------------------------
def test_csv_import_quarantines_bad_rows_with_reasons():
    anns, rej = fra()
    assert [(r.line, r.reason) for r in rej] == [
        (8, "duplicate"),
        (12, "unknown_reason"),
        (17, "unknown_label"),
        (18, "missing_correction"),
        (19, "malformed_row"),
        (20, "correct_with_edits"),
        (21, "unknown_variant"),
        (22, "missing_field"),
        (23, "more_than_two_annotators"),
    ]
    assert rej[0].row["variant_id"] == "A01.1.v3" and rej[0].row["annotator"] == "ann_a"
    assert len(anns) == 17
    a = {(x.variant_id, x.annotator): x for x in anns}
    # the prefilled "Correct" row equal to the MT is accepted, without text
    assert a[("A01.1.v1", "ann_b")].label == CORRECT and a[("A01.1.v1", "ann_b")].corrected is None
    # decomposed accent + doubled/trailing spaces are normalised on import
    assert (
        a[("A01.1.v2", "ann_a")].corrected == FRA_CORR["v2"] == a[("A01.1.v2", "ann_b")].corrected
    )
    assert a[("A01.1.v2", "ann_b")].label == PHRASING and a[("A01.1.v2", "ann_b")].reasons == (
        "word_choice",
    )
    assert a[("A01.2.v1", "ann_b")].reasons == ("word_order", "register")
    assert a[("A01.3.v2", "ann_b")].reasons == ("meaning", "information")
    assert all(x.lang == "fra" for x in anns)


def test_prefilled_correct_row_rejected_without_mt_and_unknown_variants():
    anns, rej = load_annotations(FIX / "fra.csv", "fra", set(MT_FRA))
    assert (3, "correct_with_edits") in [(r.line, r.reason) for r in rej]
    anns, rej = load_annotations(FIX / "fra.csv", "fra", {"A01.1.v1"})
    assert {x.variant_id for x in anns} == {"A01.1.v1"}
    assert sum(r.reason == "unknown_variant" for r in rej) > 10


def test_jsonl_import():
    anns, rej = load_annotations(FIX / "deu.jsonl", "deu", set(MT_DEU), mt=MT_DEU)
    assert [(r.line, r.reason) for r in rej] == [
        (7, "conflicting_duplicate"),
        (8, "bad_json"),
        (10, "conflicting_duplicate"),
        (11, "wrong_language"),
    ]
    a = {(x.variant_id, x.annotator): x for x in anns}
    assert len(anns) == 7
    assert a[("A01.1.v2", "x1")].reasons == ("word_choice", "grammar")
    assert a[("A01.1.v2", "x2")].corrected == a[("A01.1.v2", "x1")].corrected
    assert a[("A01.3.v1", "x1")].label == INCORRECT
    assert ("A01.3.v2", "x1") not in a


def test_missing_file_and_bad_files(tmp_path):
    assert load_annotations(tmp_path / "nope.csv", "fra", set(MT_FRA)) == ([], [])
    assert load_annotations(None, "fra", set(MT_FRA)) == ([], [])
    assert annotation_file(FIX, "fra") == FIX / "fra.csv"
    assert annotation_file(FIX, "ita") is None
    (tmp_path / "ita.csv").write_text("variant_id,annotator,label\n", encoding="utf-8")
    with pytest.raises(ValueError, match="missing column"):
        load_annotations(tmp_path / "ita.csv", "ita", set())
    (tmp_path / "ita.csv").write_bytes(
        b"variant_id,annotator,label,corrected,reasons\nA,b,\xe9,,\n"
    )
    with pytest.raises(ValueError, match="UTF-8"):
        load_annotations(tmp_path / "ita.csv", "ita", set())
    with pytest.raises(ValueError):
        load_annotations(tmp_path / "ita.csv", "xxx", set())


# -- rules -----------------------------------------------------------------------------------------
def test_rules_cover_every_method_with_offline_judge():
    anns, _ = fra()
    judge = OfflineJudge()
    res = resolve("fra", ENGLISH, MT_FRA, anns, judge=judge)
    assert [r.variant_id for r in res] == sorted(MT_FRA)
    r = by_id(res)
    got = {v: (x.method, x.status, x.source) for v, x in r.items()}
    assert got == {
        "A01.1.v1": ("keep_original", "resolved", "mt"),
        "A01.1.v2": ("identical_correction", "resolved", "annotator1"),
        "A01.1.v3": ("stricter_wins", "resolved", "annotator2"),
        "A01.2.v1": ("one_sided", "resolved", "annotator2"),
        "A01.2.v2": ("one_sided", "resolved", "annotator1"),
        "A01.3.v1": ("judge", "resolved", r["A01.3.v1"].source),
        "A01.3.v2": ("judge", "resolved", r["A01.3.v2"].source),
        "A01.3.v3": ("unreviewed", "unreviewed", "mt"),
        "A02.1.v1": (
            "stricter_wins",
            "resolved",
            "annotator1",
        ),  # stricter text breaks {entity_A}: fallback
        "A02.1.v2": (
            "one_sided",
            "needs_review",
            "mt",
        ),  # the only correction breaks slots: MT kept
    }
    assert r["A01.1.v1"].text == MT_FRA["A01.1.v1"] and r["A01.3.v3"].text == MT_FRA["A01.3.v3"]
    assert r["A01.1.v2"].text == FRA_CORR["v2"]
    assert r["A01.1.v3"].text == FRA_CORR["v3_b"] and r["A01.1.v3"].labels == (PHRASING, INCORRECT)
    assert r["A01.2.v1"].text == FRA_CORR["12v1_b"]
    assert r["A01.2.v2"].text == FRA_CORR["12v2_a"] and r["A01.2.v2"].labels == (INCORRECT,)
    assert r["A02.1.v1"].text == FRA_CORR["21v1_a"] and "missing:{entity_A}" in r["A02.1.v1"].detail
    assert (
        r["A02.1.v2"].text == MT_FRA["A02.1.v2"] and "duplicated:{entity_A}" in r["A02.1.v2"].detail
    )
    assert r["A01.1.v1"].annotators == ("ann_a", "ann_b")
    assert judge.calls == 2
    # the offline judge: equal slots; the candidate closer to the MT by chrF wins, and says so
    for v, (c1, c2) in {"A01.3.v1": ("13v1_a", "13v1_b"), "A01.3.v2": ("13v2_a", "13v2_b")}.items():
        s1, s2 = (CHRF().sentence_score(FRA_CORR[c], [MT_FRA[v]]).score for c in (c1, c2))
        want = FRA_CORR[c1] if s1 > s2 else FRA_CORR[c2]
        assert r[v].text == want and r[v].rationale.startswith("smaller edit")


def test_no_annotations_everything_unreviewed_with_mt():
    anns, rej = load_annotations(FIX / "missing" / "fra.csv", "fra", set(MT_FRA))
    res = resolve("fra", ENGLISH, MT_FRA, anns)
    assert all(r.method == "unreviewed" and r.status == "unreviewed" for r in res)
    assert [r.text for r in res] == [MT_FRA[v] for v in sorted(MT_FRA)]
    stats = agreement("fra", anns, MT_FRA, res)
    assert stats["n_annotated"] == 0 and stats["alpha"] is None and stats["kappa"] is None
    assert stats["chrf"] is None and stats["pct_judge"] is None
    md = report_markdown("fra", res, stats, rej)
    assert "No annotations for this language" in md


def test_without_judge_disagreements_need_review():
    anns, _ = fra()
    r = by_id(resolve("fra", ENGLISH, MT_FRA, anns))
    for v in ("A01.3.v1", "A01.3.v2"):
        assert (r[v].method, r[v].status, r[v].text) == ("judge", "needs_review", MT_FRA[v])
        assert "no judge" in r[v].detail
    assert r["A01.1.v3"].status == "resolved"  # rules still decide


class ScriptedJudge:
    def __init__(self, choice):
        self.choice = choice

    def choose(self, lang, english, mt, first, second, key):
        if self.choice == "error":
            raise JudgeError("not_json")
        return JudgeChoice(self.choice, "scripted")


def _pair(c1, c2, label=PHRASING):
    return [
        Annotation("fra", "A01.1.v1", "a", label, c1, ()),
        Annotation("fra", "A01.1.v1", "b", label, c2, ()),
    ]


def test_judge_outcomes_and_placeholder_fallbacks():
    en, mt = {"A01.1.v1": ENGLISH["A01.1.v1"]}, {"A01.1.v1": MT_FRA["A01.1.v1"]}
    good1 = "Quelle distance sépare {entity_A} et {entity_B} ?"
    good2 = "Quelle distance y a-t-il entre {entity_A} et {entity_B} ?"
    bad = "Quelle distance sépare {entité_A} et {entity_B} ?"

    def one(anns, choice):
        return resolve("fra", en, mt, anns, judge=ScriptedJudge(choice))[0]

    r = one(_pair(good1, good2), "equivalent")
    assert (r.text, r.source, r.judge_choice, r.status) == (
        good1,
        "annotator1",
        "equivalent",
        "resolved",
    )
    assert "annotator 1" in r.detail
    assert one(_pair(good1, good2), "second").text == good2
    assert one(_pair(good1, good2), "first").text == good1
    r = one(
        _pair(bad, good2), "equivalent"
    )  # equivalent, but annotator 1 breaks a slot: the other one
    assert (r.text, r.status, r.source) == (good2, "resolved", "annotator2")
    r = one(_pair(good1, bad), "second")
    assert (r.text, r.status) == (good1, "resolved")
    r = one(_pair(bad, bad.replace("sépare", "entre")), "first")
    assert (r.text, r.status, r.method) == (mt["A01.1.v1"], "needs_review", "judge")
    r = one(_pair(good1, good2), "error")
    assert (r.text, r.status) == (
        mt["A01.1.v1"],
        "needs_review",
    ) and "judge reply rejected" in r.detail


def test_resolve_rejects_inconsistent_input():
    with pytest.raises(ValueError, match="English"):
        resolve("fra", {}, MT_FRA, [])
    bad = [Annotation("deu", "A01.1.v1", "a", CORRECT, None, ())]
    with pytest.raises(ValueError):
        resolve("fra", ENGLISH, MT_FRA, bad)
    three = _pair("x", "y") + [Annotation("fra", "A01.1.v1", "c", CORRECT, None, ())]
    with pytest.raises(ValueError, match="more than two"):
        resolve("fra", ENGLISH, MT_FRA, three)


@pytest.mark.parametrize(
    ("first", "second", "choice", "rule"),
    [
        (
            "Quelle {entité_A} et {entity_B} ?",
            "Quelle est la distance de {entity_A} à {entity_B} ?",
            "second",
            "placeholder integrity",
        ),
        (
            "Quel écart sépare {entity_A} de {entity_B} ?",
            "Quelle est la distance entre {entity_A} et {entity_B} ?!",
            "second",
            "smaller edit",
        ),
        (
            "Distance {entity_A} {entity_B} ?",
            "Distance {entity_A} {entity_B} ?",
            "first",
            "annotator order",
        ),
    ],
    ids=["placeholders", "smaller-edit", "tie"],
)
def test_offline_judge_rules(first, second, choice, rule):
    c = OfflineJudge().choose("fra", ENGLISH["A01.1.v1"], MT_FRA["A01.1.v1"], first, second, "k")
    assert c.choice == choice and c.rationale.startswith(rule)


# -- LLM judge against a local fake OpenAI server --------------------------------------------------
def _judge(srv, **kw):
    return LLMJudge(
        ChatClient(srv.base_url, "judge-model", max_retries=0, sleep=lambda s: None), **kw
    )


def _cands(req):
    return json.loads(req.body["messages"][1]["content"])


def _keys_by_order(judge, n=40):
    keys = [f"fra:K{i}" for i in range(n)]
    return (
        [k for k in keys if judge.order(k) == ("first", "second")],
        [k for k in keys if judge.order(k) == ("second", "first")],
    )


def test_llm_judge_agreeing_reply_and_prompt():
    with FakeOpenAI() as srv:
        srv.push(
            Reply(
                json.dumps(
                    {"choice": "equivalent", "rationale": "Both keep the slots and the meaning."}
                )
            )
        )
        anns, _ = fra()
        only = [a for a in anns if a.variant_id == "A01.3.v1"]
        judge = _judge(srv)
        r = resolve("fra", ENGLISH, MT_FRA, only, judge=judge)
        r = by_id(r)["A01.3.v1"]
        assert (r.text, r.status, r.judge_choice) == (FRA_CORR["13v1_a"], "resolved", "equivalent")
        assert r.rationale == "Both keep the slots and the meaning."
        (req,) = srv.requests
        body = req.body
        assert body["response_format"]["json_schema"]["schema"] == JUDGE_SCHEMA
        assert body["response_format"]["json_schema"]["strict"] is True
        shown = _cands(req)
        assert shown["english_template"] == ENGLISH["A01.3.v1"]
        assert shown["machine_translation"] == MT_FRA["A01.3.v1"]
        assert {shown["A"], shown["B"]} == {FRA_CORR["13v1_a"], FRA_CORR["13v1_b"]}
        text = user_text(req)
        assert "French" in text and "ann_a" not in text and "ann_b" not in text  # anonymised
        assert judge.calls == 1 and judge.errors == 0 and judge.usage["total_tokens"] == 15


def test_llm_judge_b_maps_back_through_shuffled_order():
    reply = Reply(json.dumps({"choice": "B", "rationale": "B keeps the relation."}))
    with FakeOpenAI(handler=lambda req: reply) as srv:
        judge = _judge(srv)
        straight, swapped = _keys_by_order(judge)
        assert straight and swapped  # both orders occur
        first, second = "FIRST {entity_A} {entity_B}", "SECOND {entity_A} {entity_B}"
        for key, order, shown_as_b in (
            (swapped[0], ("second", "first"), first),
            (straight[0], ("first", "second"), second),
        ):
            c = judge.choose("fra", ENGLISH["A01.1.v1"], MT_FRA["A01.1.v1"], first, second, key)
            # the model always answers "B": the candidate shown second in this key's order
            assert c.order == order and c.choice == order[1]
            assert _cands(srv.requests[-1])["B"] == shown_as_b


def test_llm_judge_picks_what_it_saw_in_full_resolution():
    def pick_a_if_minimale(req):
        shown = _cands(req)
        return Reply(
            json.dumps(
                {
                    "choice": "A"
                    if "minimale" in shown["A"] or "se trouve {" in shown["A"]
                    else "B",
                    "rationale": "Clearer wording.",
                }
            )
        )

    with FakeOpenAI(handler=pick_a_if_minimale) as srv:
        anns, _ = fra()
        r = by_id(resolve("fra", ENGLISH, MT_FRA, anns, judge=_judge(srv)))
        assert r["A01.3.v1"].text == FRA_CORR["13v1_b"] and r["A01.3.v1"].judge_choice == "second"
        assert r["A01.3.v2"].text == FRA_CORR["13v2_b"] and r["A01.3.v2"].judge_choice == "second"
        assert len(srv.requests) == 2  # only the two items the rules could not settle


@pytest.mark.parametrize(
    "content",
    [
        "I think A is better.",  # not JSON
        '{"choice": "C", "rationale": "x"}',  # not in the enum
        '{"choice": "A"}',  # no rationale
        # the judge must never supply text: an extra field is a schema violation, and the text is
        # not used
        '{"choice": "A", "rationale": "A is better.", '
        '"text": "Une traduction inventée {entity_A} {entity_B} ?"}',
    ],
)
def test_llm_judge_bad_reply_needs_review_with_mt(content):
    with FakeOpenAI() as srv:
        srv.push(Reply(content))
        anns, _ = fra()
        only = [a for a in anns if a.variant_id == "A01.3.v1"]
        judge = _judge(srv)
        (r,) = [
            x
            for x in resolve("fra", ENGLISH, MT_FRA, only, judge=judge)
            if x.variant_id == "A01.3.v1"
        ]
        assert (r.text, r.status, r.method) == (MT_FRA["A01.3.v1"], "needs_review", "judge")
        assert "inventée" not in r.text and judge.errors == 1
        with pytest.raises(JudgeError):
            srv.push(Reply(content))
            judge.choose("fra", "e {entity_A} {entity_B}", "m", "a", "b", "fra:x")


def test_seeded_order_is_stable_across_runs():
    keys = [f"fra:A0{i}.1.v1" for i in range(1, 10)]
    here = [LLMJudge(None, seed=7).order(k) for k in keys]
    assert here == [LLMJudge(None, seed=7).order(k) for k in keys]
    code = (
        "import json,sys; from mgqa_platform.multilingual.judge import LLMJudge; "
        "print(json.dumps([LLMJudge(None, seed=7).order(k) for k in json.loads(sys.argv[1])]))"
    )
    env = dict(
        os.environ, PYTHONHASHSEED="12345", PYTHONPATH=str(Path(__file__).resolve().parents[1])
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(keys)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert [tuple(x) for x in json.loads(out)] == here
    other = [LLMJudge(None, seed=8).order(k) for k in keys]
    assert other != here or len(set(here)) == 1


# -- statistics ------------------------------------------------------------------------------------
def test_weighted_kappa_worked_examples():
    # Cohen's kappa textbook 2x2 example (yes/yes 20, yes/no 5, no/yes 10, no/no 15): p_o 0.7, p_e
    # 0.5 -> 0.4; with two categories the linear weights give plain kappa.
    pairs = [(0, 0)] * 20 + [(0, 1)] * 5 + [(1, 0)] * 10 + [(1, 1)] * 15
    assert weighted_kappa(pairs, k=2) == pytest.approx(0.4)
    # 3x3 worked by hand (n = 100), rows rater 1, columns rater 2:
    #   [[30, 5, 2], [6, 20, 4], [1, 7, 25]]; row sums 37/30/33, column sums 37/32/31.
    #   observed weighted disagreement = (0.5 * (5+6+4+7) + 1 * (2+1)) / 100 = 0.14
    #   expected = (0.5 * (37*32 + 30*37 + 30*31 + 33*32) + 1 * (37*31 + 33*37)) / 100^2 = 0.4508
    #   kappa_w = 1 - 0.14 / 0.4508 = 111/161
    table = [[30, 5, 2], [6, 20, 4], [1, 7, 25]]
    pairs = [(i, j) for i in range(3) for j in range(3) for _ in range(table[i][j])]
    assert weighted_kappa(pairs) == pytest.approx(float(Fraction(111, 161)))
    assert weighted_kappa([(0, 0), (1, 1), (2, 2)]) == 1.0
    assert weighted_kappa([(1, 1), (1, 1)]) is None and weighted_kappa([]) is None


def test_ordinal_alpha_package_example_and_hand():
    # the krippendorff package's own documented example (ordinal, values 1..5 -> 0.815)
    nan = None
    data = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
    units = [[None if row[j] is None else row[j] - 1 for row in data] for j in range(12)]
    assert round(ordinal_alpha(units, k=5), 3) == 0.815
    # by hand: units (0,0), (1,1), (0,1): n0 = n1 = 3, n = 6, delta^2(0,1) = (3+3 - 3)^2 = 9,
    # D_o = 2 * 9 = 18, D_e = 2 * 3 * 3 * 9 = 162, alpha = 1 - (n-1) D_o / D_e = 1 - 90/162 = 4/9
    assert ordinal_alpha([[0, 0], [1, 1], [0, 1]]) == pytest.approx(4 / 9)
    assert ordinal_alpha([[0, 0], [0, 0]]) is None and ordinal_alpha([[0, None]]) is None
    assert not np.isnan(ordinal_alpha([[0, 1], [1, 2], [2, 2]]))


def test_chrf_identical_strings_is_100():
    s = ["Quelle est la distance entre {entity_A} et {entity_B} ?", "Wie weit?"]
    assert chrf(s, s) == 100.0
    assert 0 < chrf(["Quelle distance ?"], ["Quelle est la distance ?"]) < 100


def test_table9_row_by_hand_fra():
    anns, rej = fra()
    res = resolve("fra", ENGLISH, MT_FRA, anns, judge=OfflineJudge())
    s = agreement("fra", anns, MT_FRA, res)
    # labels (ann_a, ann_b): v1.1 C/C, v1.2 P/P, v1.3 P/I, v2.1 C/P, v2.2 I/-, v3.1 P/P, v3.2 I/I,
    # v3.3 -/-, A02 v1 P/I, A02 v2 C/I -> 17 decisions: 4 Correct, 7 Phrasing, 6 Incorrect
    assert (s["n_items"], s["n_annotated"], s["n_paired"], s["n_decisions"]) == (10, 9, 8, 17)
    assert s["pct_correct"] == pytest.approx(100 * 4 / 17)
    assert s["pct_phrasing"] == pytest.approx(100 * 7 / 17)
    assert s["pct_incorrect"] == pytest.approx(100 * 6 / 17)
    assert s["correction_rate"] == pytest.approx(100 * 8 / 9)
    assert s["exact_agreement"] == pytest.approx(50.0)  # CC PP PP II of 8 pairs
    # pairs (0,0) (1,1) (1,2) (0,1) (1,1) (2,2) (1,2) (0,2): rows 3/4/1, columns 1/3/4;
    # observed = (0.5*3 + 1)/8 = 20/64, expected = 29/64 -> kappa = 1 - 20/29 = 9/29
    assert s["kappa"] == pytest.approx(9 / 29)
    paired = [[0, 0], [1, 1], [1, 2], [0, 1], [1, 1], [2, 2], [1, 2], [0, 2]]
    assert s["alpha"] == pytest.approx(ordinal_alpha(paired))  # the single annotation adds nothing
    reviewed = [r for r in res if r.status != "unreviewed"]
    assert len(reviewed) == 9
    want = (
        CHRF()
        .corpus_score([r.text for r in reviewed], [[MT_FRA[r.variant_id] for r in reviewed]])
        .score
    )
    assert s["chrf"] == pytest.approx(want) and 50 < s["chrf"] < 100
    assert s["pct_judge"] == pytest.approx(100 * 2 / 9)
    assert s["methods"] == {
        "unreviewed": 1,
        "keep_original": 1,
        "identical_correction": 1,
        "stricter_wins": 2,
        "one_sided": 3,
        "judge": 2,
    }
    assert s["pairwise"] == {
        "both_correct": 1,
        "same_correction": 1,
        "one_correct": 2,
        "different_corrections": 4,
        "incomplete": 2,
    }
    assert s["reasons"]["word_choice"] == 4 and "(none)" not in s["reasons"]
    md = report_markdown("fra", res, s, rej, judge_info={"judge": "offline", "calls": 2})
    assert "# Post-edit resolution: French (fra)" in md
    assert "| stricter_wins | 2 |" in md and "| judge | 2 |" in md
    assert "## Needs review (1)" in md and "| A02.1.v2 | one_sided |" in md
    assert (
        "## Rejected annotation rows (9)" in md
        and "| 19 | malformed_row | A01.3.v3 | ann_b |" in md
    )
    assert "| 10 | 9 | 23.5 | 41.2 | 88.9 | 50.0 |" in md


def test_second_language_deu_end_to_end():
    en = {k: ENGLISH[k] for k in MT_DEU}
    anns, rej = load_annotations(FIX / "deu.jsonl", "deu", set(MT_DEU), mt=MT_DEU)
    res = by_id(resolve("deu", en, MT_DEU, anns, judge=OfflineJudge()))
    assert {v: r.method for v, r in res.items()} == {
        "A01.1.v1": "keep_original",
        "A01.1.v2": "identical_correction",
        "A01.3.v1": "judge",
        "A01.3.v2": "one_sided",
    }
    assert res["A01.1.v2"].text == "Wie weit liegen {entity_A} und {entity_B} auseinander?"
    assert (
        res["A01.3.v2"].text
        == "Wie weit liegt {entity_A} vom nächsten Punkt von {entity_B} entfernt?"
    )
    s = agreement("deu", anns, MT_DEU, list(res.values()))
    assert s["exact_agreement"] == 100.0 and s["pct_judge"] == 25.0
    assert s["kappa"] == pytest.approx(1.0) and s["alpha"] == pytest.approx(1.0)
