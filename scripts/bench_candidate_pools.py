"""Benchmark: candidate generation from the KG's whole pool against the bounded pools of groups of
strata.

Runs the candidate step of the question generator (docs/questions.md, "Bounded candidate pools") on
a copy of a built warehouse, each mode in a child process of its own so that its peak RSS is its
own:

- ``whole``: every sub-template's candidates over the pool of the whole KG (the generator before the
  bounded pools);
- ``bounded``: :func:`mgqa_platform.questions.generate.pooled_candidates`, what the generator does
  now;
- ``whole-local`` and ``bounded-local``: the same two, on the ``stratum_local`` and ``cell_local``
  executors only: what the memory of the candidate step becomes once no executor needs the whole
  KG's pool;
- ``fp-whole`` and ``fp-bounded``: the replacements of the false-premise step for every true
  question of an eligible sub-template in the warehouse's ``questions_en``, searched in the pool of
  the whole KG (before) and per (KG, stratum) in the neighbourhood of the anchors
  (:func:`mgqa_platform.questions.false_premise.stratum_replacements`, now);
- ``gold-whole`` and ``gold-bounded``: the gold batch of every sub-template, ``t`` bound to its true
  questions in ``questions_en``, run as ``gold_sql`` on the whole entity table (before) and as
  :func:`mgqa_platform.questions.executor.gold_query` on the rows it can read (now); "largest pool"
  is then the most ``entities`` rows one batch can see.

Each child prints wall and CPU seconds (all threads) of the step, peak RSS, the largest pool table
it built (rows) and a hash of what it computed (tuples, replacements or gold rows); the parent
checks that both paths of a pair agree and prints the ratios. ``--modes`` picks the pairs to run
(all by default); ``--repeat N`` runs every mode N times in rounds and keeps the fewest seconds of
each (the seconds of one run move with the load of a shared machine, CPU seconds less than wall
seconds).

    .venv/bin/python scripts/bench_candidate_pools.py --warehouse .mgqa/warehouse.duckdb
    .venv/bin/python scripts/bench_candidate_pools.py --modes fp-whole fp-bounded gold-whole \
        gold-bounded
    .venv/bin/python scripts/bench_candidate_pools.py --modes whole-local bounded-local --repeat 3
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

MODES = (
    "whole",
    "bounded",
    "whole-local",
    "bounded-local",
    "fp-whole",
    "fp-bounded",
    "gold-whole",
    "gold-bounded",
)
SEED = 20260101
PAIRS = (
    ("whole", "bounded"),
    ("whole-local", "bounded-local"),
    ("fp-whole", "fp-bounded"),
    ("gold-whole", "gold-bounded"),
)


#: Seconds of the measured step in this process: wall clock and CPU (every thread of the process).
CLOCK = {"wall": 0.0, "cpu": 0.0}


@contextlib.contextmanager
def _timed() -> Iterator[None]:
    """Add the wall and CPU seconds of the block to :data:`CLOCK`."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        CLOCK["wall"] += time.perf_counter() - wall
        CLOCK["cpu"] += time.process_time() - cpu


def _true_questions(con) -> list[dict]:
    """The true questions of ``questions_en`` (no false premise, no multimodal twin), as dicts."""
    cur = con.execute(
        "SELECT * FROM questions_en WHERE NOT false_premise AND NOT multimodal ORDER BY question_id"
    )
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def _false_premise(con, mode: str) -> tuple[list[str], int, str]:
    """Replacements of every eligible true question, whole-KG pool or per stratum (the search
    timed); (lines, largest pool, no note)."""
    from mgqa_platform import settings
    from mgqa_platform.questions import false_premise
    from mgqa_platform.questions.catalog import default_catalog
    from mgqa_platform.questions.execution import create_pool

    subs = {s.id: s for s in false_premise.eligible(default_catalog())}
    questions = [q for q in _true_questions(con) if q["sub_template_id"] in subs]
    lines, largest = [], 0
    for kg in settings.KGS:
        mine = [q for q in questions if q["kg"] == kg]
        if not mine:
            continue
        if mode == "fp-whole":
            with _timed():
                create_pool(con, kg)
                found = {}
                for sub_id, sub in subs.items():
                    group = [q for q in mine if q["sub_template_id"] == sub_id]
                    found.update(false_premise.nearest_replacements(con, sub, group))
            largest = max(largest, con.execute("SELECT count(*) FROM pool").fetchone()[0])
        else:
            with _timed():
                found = false_premise.stratum_replacements(con, kg, subs, mine)
            for stratum in sorted({q["stratum"] for q in mine}):  # the pools it built, measured
                anchors = [
                    json.loads(q["bindings"])[false_premise.anchor_role(subs[q["sub_template_id"]])]
                    for q in mine
                    if q["stratum"] == stratum
                ]
                largest = max(largest, false_premise.create_neighbourhood_pool(con, kg, anchors))
        lines += [json.dumps([qid, found[qid]], default=str) for qid in sorted(found)]
    return lines, largest, ""


def _gold(con, mode: str) -> tuple[list[str], int, str]:
    """Gold rows of every sub-template's batch of true questions, whole table or neighbourhood (the
    gold queries timed); (lines, most ``entities`` rows one batch run on a neighbourhood can read
    (the whole table in ``gold-whole``), a note: how many batches ran on a neighbourhood and, in
    ``gold-bounded``, the rows of each KG's ``gold_rows`` table, built once per KG and timed)."""
    from mgqa_platform.questions.catalog import default_catalog
    from mgqa_platform.questions.execution import create_gold_rows
    from mgqa_platform.questions.executor import gold_query
    from mgqa_platform.questions.executors import EXECUTORS
    from mgqa_platform.questions.generate import bound_ids
    from mgqa_platform.warehouse import registered

    catalog = default_catalog()
    whole_rows = con.execute("SELECT count(*) FROM entities").fetchone()[0]
    by_key: dict = {}
    for q in _true_questions(con):
        by_key.setdefault((q["kg"], q["sub_template_id"]), []).append(q)
    lines, largest, bounded = [], 0, 0
    batches = {key: _batch(catalog, key, group) for key, group in sorted(by_key.items())}
    rows, kg_rows = None, {}
    for (kg, sub_id), group in sorted(by_key.items()):
        sub = catalog.sub_template(sub_id)
        executor = EXECUTORS[sub.executor]
        t = batches[(kg, sub_id)]
        if mode == "gold-bounded" and kg not in kg_rows:  # what the generator builds once per KG
            subs = [catalog.sub_template(s) for k, s in by_key if k == kg]
            cands = {s: batches[(k, s)].to_pylist() for k, s in by_key if k == kg}
            with _timed():
                rows = create_gold_rows(con, bound_ids(subs, cands))
            kg_rows[kg] = con.execute(f"SELECT count(*) FROM {rows}").fetchone()[0]
        sql = executor.gold_sql(sub) if mode == "gold-whole" else gold_query(executor, sub, rows)
        with registered(con, t=t):
            with _timed():
                found = con.execute(f"SELECT * FROM ({sql}) AS q ORDER BY row_id").fetchall()
            seen = whole_rows
            if sql.startswith("WITH entities AS ("):
                cte = sql.split("\n", 1)[0][len("WITH entities AS (") : -1]
                seen = con.execute(f"SELECT count(*) FROM ({cte})").fetchone()[0]
        if seen < whole_rows:
            largest, bounded = max(largest, seen), bounded + 1
        lines += [
            json.dumps([kg, sub_id, group[r[0]]["question_id"], r[1:]], default=str) for r in found
        ]
    note = f"{bounded} of {len(by_key)} batches on a neighbourhood, {whole_rows:,} entity rows" + (
        f", bound rows per KG (gold_rows): {kg_rows}" if kg_rows else ""
    )
    return lines, largest if mode == "gold-bounded" else whole_rows, note


def _batch(catalog, key: tuple[str, str], group: list[dict]):
    """The relation ``t`` of the (KG, sub-template) ``key`` bound to its true questions
    ``group``."""
    import pyarrow as pa

    from mgqa_platform.questions.execution import arrow_column
    from mgqa_platform.questions.executor import t_columns

    kg, sub_id = key
    sub = catalog.sub_template(sub_id)
    rows = []
    for i, q in enumerate(group):
        values = {**json.loads(q["bindings"]), **json.loads(q["parameters"])}
        rows.append({"row_id": i, "kg": kg, **{c: values[c] for c in t_columns(sub)[2:]}})
    return pa.table({c: arrow_column([r[c] for r in rows]) for c in t_columns(sub)})


def _child(mode: str, path: str) -> dict:
    """Run one mode on the warehouse at ``path``; the measures as a dict."""
    from mgqa_platform import settings
    from mgqa_platform.questions.catalog import default_catalog
    from mgqa_platform.questions.execution import create_pool
    from mgqa_platform.questions.executor import Pool
    from mgqa_platform.questions.executors import EXECUTORS
    from mgqa_platform.questions.generate import (
        MEMORY_LIMIT,
        candidate_rows,
        is_bounded,
        pooled_candidates,
    )
    from mgqa_platform.warehouse import connect

    con = connect(path)
    con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    if mode.startswith(("fp-", "gold-")):
        run = _false_premise if mode.startswith("fp-") else _gold
        lines, largest, note = run(con, mode)
        return _measures(mode, largest, lines, note)
    subs = [
        s for t in default_catalog().templates for s in t.sub_templates if s.executor in EXECUTORS
    ]
    if mode.endswith("-local"):
        subs = [s for s in subs if is_bounded(EXECUTORS[s.executor])]
    tuples, largest = [], 0
    for kg in settings.KGS:
        pool = Pool(kg, SEED)
        with _timed():
            if mode.startswith("whole"):
                create_pool(con, kg)
                cands = {s.id: candidate_rows(con, s, pool) for s in subs}
            else:
                cands = pooled_candidates(con, subs, pool)
        largest = max(largest, _largest_pool(con, kg, subs, whole=mode.startswith("whole")))
        tuples += sorted(
            json.dumps([kg, sid, sorted(r.items())], default=str)
            for sid, rows in cands.items()
            for r in rows
        )
    return _measures(mode, largest, tuples)


def _largest_pool(con, kg: str, subs: list, whole: bool) -> int:
    """Rows of the largest pool table the candidate step builds for ``kg``: the KG's pool when any
    of ``subs`` needs it (or in a ``whole`` mode), else the largest neighbourhood of a group of
    strata."""
    from mgqa_platform.questions.execution import (
        create_cell_pool,
        create_pool,
        create_pool_samples,
    )
    from mgqa_platform.questions.executor import Pool
    from mgqa_platform.questions.executors import EXECUTORS
    from mgqa_platform.questions.generate import (
        POOL_ROWS,
        is_bounded,
        stratum_groups,
        stratum_sizes,
    )

    if whole or not all(is_bounded(EXECUTORS[s.executor]) for s in subs):
        create_pool(con, kg)
        return con.execute("SELECT count(*) FROM pool").fetchone()[0]
    samples = {x for s in subs for x in EXECUTORS[s.executor].cell_samples(s)}
    sampled = create_pool_samples(con, Pool(kg, SEED), tuple(sorted(samples)))
    groups = stratum_groups(stratum_sizes(con, kg), POOL_ROWS)
    return max((create_cell_pool(con, kg, g, sampled) for g in groups), default=0)


def _measures(mode: str, largest: int, lines: list[str], note: str = "") -> dict:
    """What a child prints: wall and CPU seconds (:data:`CLOCK`), peak RSS, largest pool, how many
    lines, their hash, a note."""
    return {
        "note": note,
        "mode": mode,
        "seconds": round(CLOCK["wall"], 2),
        "cpu_seconds": round(CLOCK["cpu"], 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "largest_pool_rows": largest,
        "tuples": len(lines),
        "sha256": hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()[:16],
    }


def _run_rounds(warehouse: str, modes: list[str], repeat: int) -> dict[str, dict]:
    """Run every mode ``repeat`` times, in rounds (each round runs all modes once, so that a change
    in the machine's load reaches both paths of a pair), each run in a child process on its own copy
    of ``warehouse``. Mode -> the measures of its first run with the fewest wall and the fewest CPU
    seconds of its runs and the largest peak RSS; raises ``RuntimeError`` when two runs of a mode
    compute different lines."""
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeat):
            for mode in modes:
                copy = Path(tmp) / f"{mode}.duckdb"
                shutil.copyfile(warehouse, copy)  # the source is never opened for writing
                out = subprocess.run(
                    [sys.executable, __file__, "--child", mode, "--warehouse", str(copy)],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                copy.unlink()
                r = json.loads(out.stdout.strip().splitlines()[-1])
                best = results.setdefault(mode, r)
                if r["sha256"] != best["sha256"]:
                    raise RuntimeError(f"{mode}: two runs computed different lines")
                best["seconds"] = min(best["seconds"], r["seconds"])
                best["cpu_seconds"] = min(best["cpu_seconds"], r["cpu_seconds"])
                best["peak_rss_mib"] = max(best["peak_rss_mib"], r["peak_rss_mib"])
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", default=".mgqa/warehouse.duckdb", help="a built warehouse")
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES), help="modes to run")
    ap.add_argument(
        "--repeat", type=int, default=1, help="rounds over the modes; the fastest of each is kept"
    )
    ap.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.warehouse)))
        return
    results = _run_rounds(args.warehouse, args.modes, args.repeat)
    print(
        "| mode | seconds | CPU seconds | peak RSS (MiB) | largest pool (rows) | lines | sha256 |"
    )
    print("|---|---:|---:|---:|---:|---:|---|")
    for r in results.values():
        print(
            f"| {r['mode']} | {r['seconds']} | {r['cpu_seconds']} | {r['peak_rss_mib']} "
            f"| {r['largest_pool_rows']:,} | {r['tuples']:,} | {r['sha256']} |"
        )
    for r in results.values():
        if r["note"]:
            print(f"{r['mode']}: {r['note']}")
    for base, new in PAIRS:
        if base not in results or new not in results:
            continue
        a, b = results[base], results[new]
        same = "same lines" if a["sha256"] == b["sha256"] else "DIFFERENT LINES"
        print(
            f"{new} / {base}: time {b['seconds'] / a['seconds']:.2f}x, CPU "
            f"{b['cpu_seconds'] / a['cpu_seconds']:.2f}x, peak RSS "
            f"{b['peak_rss_mib'] / a['peak_rss_mib']:.2f}x, largest pool "
            f"{b['largest_pool_rows'] / a['largest_pool_rows']:.2f}x, {same}"
        )


if __name__ == "__main__":
    main()
