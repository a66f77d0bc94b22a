"""Run the reference solver over released question records and list every miss.

    .venv/bin/python scripts/solver_check.py [--questions FILE.parquet] [--sfid A] [--executor \
        distance.pair] [--misses 20]

Reads ``questions_en`` rows from a Parquet export (default: the warehouse at $MGQA_HOME, read-only),
solves the true-premise ones with :mod:`mgqa_platform.evaluation.solver`, scores each answer against
its gold (Table 12) and prints EM per sub-template, then up to ``--misses`` misses per sub-template.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict

import duckdb

from mgqa_dagster.resources.paths import PathsResource
from mgqa_platform.evaluation import solver
from mgqa_platform.questions import formats
from mgqa_platform.warehouse import fetch_dicts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", help="Parquet export of questions_en (default: the warehouse)")
    ap.add_argument("--sfid")
    ap.add_argument("--executor")
    ap.add_argument("--misses", type=int, default=5)
    a = ap.parse_args(argv)
    if a.questions:
        con = duckdb.connect()
    else:
        con = duckdb.connect(str(PathsResource().resolved().warehouse_path), read_only=True)
    src = f"read_parquet('{a.questions}')" if a.questions else "questions_en"
    where = ["NOT false_premise"]
    if a.sfid:
        where.append(f"sfid = '{a.sfid}'")
    if a.executor:
        where.append(f"split_part(executor, '@', 1) = '{a.executor}'")
    rows = fetch_dicts(
        con,
        f"""
        SELECT *
        FROM {src}
        WHERE {" AND ".join(where)}
        ORDER BY question_id
    """,
    )
    t0 = time.perf_counter()
    per: dict[str, list] = defaultdict(list)
    for q in rows:
        s = solver.solve(q)
        em = 0
        if s.answer is not None:
            em = formats.score(q["answer_format"], s.answer, json.loads(q["gold"]))[0]
        per[q["sub_template_id"]].append((em, q, s))
    dt = time.perf_counter() - t0
    total = sum(len(v) for v in per.values())
    hits = sum(em for v in per.values() for em, _, _ in v)
    for sub_id in sorted(per):
        v = per[sub_id]
        n_ok = sum(em for em, _, _ in v)
        print(
            f"{sub_id:8s} {v[0][1]['executor']:40s} EM {100 * n_ok / len(v):6.1f}  "
            f"({n_ok}/{len(v)})"
        )
        for _em, q, s in [x for x in v if not x[0]][: a.misses]:
            print(f"    MISS {q['question_id']} {q['text'][:110]!r}")
            print(
                f"         gold {q['gold'][:150]}  answer {json.dumps(s.answer)[:150]}  "
                f"reason {s.reason}"
            )
    print(
        f"reference solver: EM {100 * hits / max(total, 1):.2f} % over {total} "
        f"true-premise questions in {dt:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
