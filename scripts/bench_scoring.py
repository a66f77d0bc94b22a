"""Scoring throughput on the paper's large-split size: 46,060 predictions.

    .venv/bin/python scripts/bench_scoring.py [--n 46060] [--warehouse PATH]

The built sample's questions (``mgqa build`` first) are cycled to ``--n`` records with distinct ids,
and a seeded mix of predictions is written as a run file: exact golds, numbers off by 0-20 %, entity
names given by an alias, wrong cells, refusals and malformed answers. Measured in the same process,
best of 3:

* baseline: read the JSONL and compare each answer with its gold by dict equality (the I/O and JSON
  floor);
* scoring: read the JSONL and score every prediction (Table 12, alias resolution, statuses);
* aggregation: metrics overall and per breakdown (the report's tables, no PNGs).

It prints each time, predictions/s and the ratio to the baseline, and the peak RSS.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from mgqa_dagster.resources.paths import PathsResource
from mgqa_platform.evaluation import evaluate, report
from mgqa_platform.evaluation.runner import load_predictions


def _perturb(q: dict, rng: random.Random) -> dict:
    gold = json.loads(q["gold"])
    roll = rng.random()
    if roll < 0.05:
        return {"status": "refused", "answer": {"rejected": True}}
    if roll < 0.08:
        return {"status": "format_error", "answer": None, "detail": "not_json"}
    if roll < 0.10:
        return {"status": "answered", "answer": {"value": "garbled"}}
    answer = dict(gold)
    if (
        "value" in gold
        and isinstance(gold["value"], (int, float))
        and not isinstance(gold["value"], bool)
        and roll < 0.6
    ):
        answer["value"] = round(gold["value"] * (1 + rng.uniform(-0.2, 0.2)), 3)
    elif "names" in gold:
        aliases = json.loads(q["gold_aliases"] or "{}")
        answer = {
            "names": [
                rng.choice(aliases.get(i, [n])) for i, n in zip(gold["entity_ids"], gold["names"])
            ]
        }
    elif "lon" in gold and roll < 0.6:
        answer = {
            "lon": gold["lon"] + rng.uniform(-0.2, 0.2),
            "lat": gold["lat"] + rng.uniform(-0.2, 0.2),
        }
    return {"status": "answered", "answer": answer}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=46_060)
    ap.add_argument("--warehouse", default=str(PathsResource().resolved().warehouse_path))
    a = ap.parse_args(argv)
    with duckdb.connect(a.warehouse, read_only=True) as con:
        base = evaluate.load_questions(con, "large")
    if not base:
        print("no questions: run `mgqa build` first", file=sys.stderr)
        return 2
    rng = random.Random(20260101)
    questions = [
        dict(base[i % len(base)], question_id=f"{base[i % len(base)]['question_id']}-{i}")
        for i in range(a.n)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "predictions.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for q in questions:
                f.write(json.dumps({"question_id": q["question_id"], **_perturb(q, rng)}) + "\n")
        golds = {q["question_id"]: json.loads(q["gold"]) for q in questions}

        def run_baseline():
            preds = load_predictions(path)
            return sum(p.get("answer") == golds[qid] for qid, p in preds.items())

        def run_scoring():
            return evaluate.score_rows("bench", "large", "eng", questions, load_predictions(path))

        def best(fn):
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                out = fn()
                times.append(time.perf_counter() - t0)
            return min(times), out

        t_base, _ = best(run_baseline)
        t_score, rows = best(run_scoring)
        t_agg, _ = best(
            lambda: (
                [report.by_group(rows, k) for k, _ in report.BREAKDOWNS]
                + [report.standardized(rows, "income_tier")]
            )
        )
    m = evaluate.summary(rows)
    print(
        f"{a.n} predictions over {len(base)} distinct sample questions; EM {m['em']:.1f}, "
        f"NE {m['ne']:.1f}, coverage {m['coverage']:.1f}"
    )
    print(
        f"baseline (read + dict equality): {t_base:6.2f} s  {a.n / t_base:9.0f} "
        "predictions/s  1.00x"
    )
    print(
        f"scoring (read + Table 12):       {t_score:6.2f} s  {a.n / t_score:9.0f} "
        f"predictions/s  {t_score / t_base:.2f}x baseline"
    )
    print(
        f"aggregation (all breakdowns):    {t_agg:6.2f} s  {a.n / t_agg:9.0f} rows/s       "
        f"  {t_agg / t_base:.2f}x baseline"
    )
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
