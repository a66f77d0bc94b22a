"""Data-quality checks of the template catalog and the English questions (GX suites over computed columns).

The Python-level facts (does this gold validate against its format? does the stored query still give the
same gold?) are computed per row first and judged by the suite, so a failure lists example rows.
"""

from __future__ import annotations

import json
import random

import dagster as dg
import pandas as pd

from data_quality import gx_runner as gx
from data_quality.checks import Check, result
from mgqa_platform.questions import formats
from mgqa_platform.questions.catalog import SFIDS, default_catalog
from mgqa_platform.questions.generate import replay

EXPECTED_TIDS = 65
REPLAYS_PER_SUB_TEMPLATE = 2


def _catalog_complete(con, _):
    df = con.execute("SELECT sfid, count(DISTINCT tid) AS tids, count(DISTINCT sub_template_id) AS subs, count(*) AS variants FROM templates GROUP BY sfid").df()
    total = int(df["tids"].sum()) if len(df) else 0
    outcome = gx.run_suite(df, "template_catalog", gx.in_set("sfid", SFIDS) + gx.values_between("tids", 1, None) + gx.row_count_between(len(SFIDS), len(SFIDS)))
    ok = outcome.success and total == EXPECTED_TIDS
    r = result(outcome, extra={"tids": total, "sub_templates": int(df["subs"].sum()) if len(df) else 0, "variants": int(df["variants"].sum()) if len(df) else 0})
    if ok:
        return r
    return dg.AssetCheckResult(passed=False, severity=r.severity, description=f"{total} top-level templates, expected {EXPECTED_TIDS}; " + (r.description or ""), metadata=r.metadata)


def _gold_valid(row) -> bool:
    try:
        gold = json.loads(row.gold)
        return formats.canonical(row.answer_format, gold) == gold
    except (formats.GoldError, ValueError, TypeError, KeyError):
        return False


def _golds_validate(con, _):
    df = con.execute("SELECT question_id, answer_format, gold FROM questions_en").df()
    df["gold_valid"] = [_gold_valid(r) for r in df.itertuples()]
    exps = gx.unique_ids("question_id") + gx.in_set("answer_format", formats.FORMATS) + gx.in_set("gold_valid", [True])
    return result(gx.run_suite(df, "questions_gold_valid", exps))


def _no_duplicates(con, _):
    df = con.execute("SELECT text || ' ⟶ ' || CAST(gold AS VARCHAR) AS question_and_gold FROM questions_en").df()
    return result(gx.run_suite(df, "questions_unique", gx.unique_ids("question_and_gold")))


def _provenance(con, _):
    df = con.execute(
        "SELECT question_id, query, executor, json_array_length(gold_triples) AS gold_triples, len(snapshot_ids) AS snapshots, "
        "json_array_length(json_keys(bindings)) AS bindings FROM questions_en"
    ).df()
    exps = gx.non_empty_strings(["query", "executor"]) + gx.values_between("gold_triples", 1, None) + gx.values_between("snapshots", 1, None)
    exps += gx.values_between("bindings", 1, None)
    return result(gx.run_suite(df, "questions_provenance", exps))


def _replays(con, _):
    """Re-run the stored query of a seeded sample of questions (per sub-template) and compare the gold."""
    cur = con.execute("SELECT * FROM questions_en ORDER BY question_id")
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    by_sub: dict[str, list[dict]] = {}
    for r in rows:
        by_sub.setdefault(r["sub_template_id"], []).append(r)
    rng = random.Random(0)
    picked = [q for sub in sorted(by_sub) for q in rng.sample(by_sub[sub], min(REPLAYS_PER_SUB_TEMPLATE, len(by_sub[sub])))]
    catalog = default_catalog()
    out = []
    for q in picked:
        try:
            same = replay(con, catalog, q) == json.loads(q["gold"])
        except Exception as exc:  # a replay that fails is a failed check row, with the error kept
            same, q = False, {**q, "question_id": f"{q['question_id']} ({type(exc).__name__}: {exc})"[:200]}
        out.append({"question_id": q["question_id"], "sub_template_id": q["sub_template_id"], "reproduces": same})
    df = pd.DataFrame(out, columns=["question_id", "sub_template_id", "reproduces"])
    return result(gx.run_suite(df, "questions_replay", gx.in_set("reproduces", [True])), extra={"replayed": len(df)})


def _every_implemented_template_yields(con, _):
    implemented = {s.tid for s in default_catalog().sub_templates if s.executor}
    have = dict(con.execute("SELECT tid, count(*) FROM questions_en GROUP BY tid").fetchall())
    df = pd.DataFrame({"tid": sorted(implemented), "questions": [int(have.get(t, 0)) for t in sorted(implemented)]})
    return result(gx.run_suite(df, "templates_yield", gx.values_between("questions", 1, None)), warn=True)


TEMPLATE_CHECKS = (Check("catalog_complete", True, "all 14 SFIDs and 65 top-level templates are in the catalog", _catalog_complete),)
QUESTION_CHECKS = (
    Check("gold_validates", True, "every gold is canonical for its answer format (formats.canonical); ids unique", _golds_validate),
    Check("no_duplicate_question_gold", True, "no two rows share (question text, gold)", _no_duplicates),
    Check("query_and_gold_triples", True, "every question has a query, an executor, bindings, >= 1 gold triple and a snapshot id", _provenance),
    Check("gold_replays", True, f"re-running the stored query of {REPLAYS_PER_SUB_TEMPLATE} seeded questions per sub-template reproduces the gold", _replays),
    Check("templates_yield_questions", False, "every template with an executor yields at least one question on these inputs", _every_implemented_template_yields),
)
