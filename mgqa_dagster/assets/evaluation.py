"""Evaluation of reference systems on the released English questions: gold, majority baseline,
reference solver.

Model runs (OpenAI-compatible endpoints) are launched with ``mgqa evaluate --run`` and scored with
the same code; see docs/evaluation.md. Multilingual partitions join when the localized question
tables exist.
"""

import time

import dagster as dg

from mgqa_dagster.assets.questions import QUESTIONS_EN, SPLIT_SMALL
from mgqa_dagster.data_quality import evaluation as checks
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.warehouse import WAREHOUSE_POOL, WarehouseResource, audited_asset
from mgqa_platform import markdown
from mgqa_platform.evaluation import baseline, evaluate, report
from mgqa_platform.warehouse import Slice

EVAL_BASELINES = dg.AssetKey("eval_baselines")
EVAL_REFERENCE_SOLVER = dg.AssetKey("eval_reference_solver")
EVALUATION_REPORT = dg.AssetKey("evaluation_report")
LANG = "eng"


def _table(results: dict[tuple[str, str], dict]) -> str:
    cols = ("n", "em", "ne", "coverage", "em_covered", "frr", "nrr")

    def cell(v: object) -> str:
        return "–" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v)

    rows = [
        [system, split, *(cell(m[c]) for c in cols)]
        for (system, split), m in sorted(results.items())
    ]
    return "\n".join(markdown.table(["system", "split", *cols], rows)) + "\n"


#: What every evaluation asset shares: its group, and eager automation.
_evaluation = dict(group_name="evaluation", automation_condition=dg.AutomationCondition.eager())


@audited_asset(
    EVAL_BASELINES,
    checks.BASELINE_CHECKS,
    deps=[QUESTIONS_EN, SPLIT_SMALL],
    **_evaluation,
    kinds={"duckdb", "python"},
    description="Scores (Table 12) of the gold answers themselves (must be EM 100, NE 0) and of "
    "the majority-class "
    "baseline per sub-template, on the large and small English splits, in the `scores` table.",
)
def eval_baselines(warehouse: WarehouseResource):
    results = {}

    def write(con):
        for split in evaluate.SPLITS:
            questions = evaluate.load_questions(con, split, LANG)
            for system in ("gold", "majority"):
                rows = evaluate.score_rows(
                    system, split, LANG, questions, baseline.predictions_for(system, questions)
                )
                evaluate.write_scores(con, rows, system, split, LANG)
                results[(system, split)] = evaluate.summary(rows)

    scores = Slice("scores", "system IN ('gold', 'majority') AND lang = ?", (LANG,))
    with warehouse.get_connection() as con:
        yield from warehouse.publish_audited(
            con,
            (scores,),
            write,
            asset_key=EVAL_BASELINES,
            checks=checks.BASELINE_CHECKS,
            metadata=lambda _: {
                "dagster/row_count": sum(m["n"] + m["n_false_premise"] for m in results.values()),
                "metrics": dg.MetadataValue.md(_table(results)),
                "majority_em_small": results[("majority", "small")]["em"],
                "majority_em_large": results[("majority", "large")]["em"],
            },
        )


@audited_asset(
    EVAL_REFERENCE_SOLVER,
    checks.SOLVER_CHECKS,
    deps=[QUESTIONS_EN],
    **_evaluation,
    kinds={"duckdb", "python"},
    description="The compute-grounded reference solver recomputes every true-premise answer from "
    "its record alone "
    "(question, template, bindings, parameters, gold triples; no warehouse). Its EM "
    "measures whether the released "
    "golds are reproducible from the released triples; every miss is listed with its reason.",
)
def eval_reference_solver(paths: PathsResource, warehouse: WarehouseResource):
    with warehouse.get_connection() as con:
        questions = evaluate.load_questions(con, "large", LANG)
        t0 = time.perf_counter()
        preds = baseline.solver_predictions(questions)
        seconds = time.perf_counter() - t0
        rows = evaluate.score_rows("reference_solver", "large", LANG, questions, preds)
        scores = Slice(
            "scores", "system = 'reference_solver' AND split = 'large' AND lang = ?", (LANG,)
        )
        yield from warehouse.publish_audited(
            con,
            (scores,),
            lambda c: evaluate.write_scores(c, rows, "reference_solver", "large", LANG),
            asset_key=EVAL_REFERENCE_SOLVER,
            checks=checks.SOLVER_CHECKS,
            metadata=lambda _: _solver_metadata(paths, rows, len(questions), seconds),
        )


def _solver_metadata(paths: PathsResource, rows: list[dict], questions: int, seconds: float):
    """The materialization metadata of ``eval_reference_solver``; writes the misses' report
    (``reports/reference_solver_misses.md``) that it points at."""
    misses = [r for r in rows if not r["false_premise"] and r["em"] < 1]
    reasons: dict[str, int] = {}
    for r in misses:
        key = (r["detail"] or "wrong_answer").split(":", 1)[0]
        reasons[key] = reasons.get(key, 0) + 1
    per_sub: dict[str, list[int]] = {}
    for r in rows:
        if not r["false_premise"]:
            per_sub.setdefault(r["sub_template_id"], [0, 0])
            per_sub[r["sub_template_id"]][0] += int(r["em"])
            per_sub[r["sub_template_id"]][1] += 1
    worst = sorted((100.0 * a / b, s) for s, (a, b) in per_sub.items() if a < b)
    text = "| question | sub-template | reason |\n|---|---|---|\n" + "\n".join(
        f"| {r['question_id']} | {r['sub_template_id']} | {r['detail'] or 'wrong answer'} |"
        for r in misses[:200]
    )
    out = paths.reports_dir / "reference_solver_misses.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f"# Reference solver misses ({len(misses)})\n\n{text}\n", encoding="utf-8")
    m = evaluate.summary(rows)
    return {
        "dagster/row_count": len(rows),
        "em": m["em"],
        "true_premise_questions": m["n"],
        "misses": len(misses),
        "misses_by_reason": dg.MetadataValue.json(dict(sorted(reasons.items()))),
        "sub_templates_below_100": dg.MetadataValue.json({s: round(v, 1) for v, s in worst}),
        "misses_table": dg.MetadataValue.md(text),
        "path": paths.portable(out),
        "questions_per_second": round(questions / seconds, 1) if seconds else None,
    }


@dg.asset(
    pool=WAREHOUSE_POOL,
    key=EVALUATION_REPORT,
    deps=[EVAL_BASELINES, EVAL_REFERENCE_SOLVER],
    **_evaluation,
    kinds={"markdown", "matplotlib"},
    description="Markdown and PNG reports (EM/NE by SFID, answer format, KG, "
    "income and density tier standardized to "
    "the SFID mix, language) for every scored (system, split) in `scores`, "
    "under $MGQA_HOME/reports/evaluation/.",
)
def evaluation_report(paths: PathsResource, warehouse: WarehouseResource) -> dg.MaterializeResult:
    written = {}
    with warehouse.get_connection() as con:
        slices = con.execute("SELECT DISTINCT system, split FROM scores ORDER BY ALL").fetchall()
        for system, split in slices:
            rows = evaluate.read_scores(con, system, split)
            out = paths.reports_dir / "evaluation" / f"{system}-{split}"
            written[f"{system}-{split}"] = paths.portable(
                report.write_report(rows, out, f"{system} on the {split} split")["report"]
            ).value
    majority = paths.reports_dir / "evaluation" / "majority-small" / "report.md"
    return dg.MaterializeResult(
        metadata={
            "reports": dg.MetadataValue.json(written),
            "majority_small": dg.MetadataValue.md(
                markdown.embed_images(majority.read_text(encoding="utf-8"), majority.parent)
            )
            if majority.exists()
            else "",
        }
    )
