"""Benchmark: candidate generation from the KG's whole pool against the bounded pools of one (KG, stratum).

Runs the candidate step of the question generator (docs/questions.md, "Bounded candidate pools") on a copy
of a built warehouse, each mode in a child process of its own so that its peak RSS is its own:

- ``whole``: every sub-template's candidates over the pool of the whole KG (the generator before the
  bounded pools);
- ``bounded``: :func:`mgqa_platform.questions.generate.pooled_candidates`, what the generator does now;
- ``whole-local`` and ``bounded-local``: the same two, on the ``stratum_local`` executors only: what the
  memory of the candidate step becomes once no executor needs the whole KG's pool.

Each child prints seconds, peak RSS, the largest pool table it built (rows) and a hash of the candidate
tuples; the parent checks that both paths propose the same tuples and prints the ratios.

    PYTHONPATH=. .venv/bin/python scripts/bench_candidate_pools.py --warehouse .mgqa/warehouse.duckdb
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODES = ("whole", "bounded", "whole-local", "bounded-local")


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
        pooled_candidates,
    )
    from mgqa_platform.warehouse import connect

    con = connect(path)
    con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    subs = [
        s for t in default_catalog().templates for s in t.sub_templates if s.executor in EXECUTORS
    ]
    if mode.endswith("-local"):
        subs = [s for s in subs if EXECUTORS[s.executor].stratum_local]
    t0 = time.perf_counter()
    tuples, largest = [], 0
    for kg in settings.KGS:
        pool = Pool(kg, 20260101)
        if mode.startswith("whole"):
            create_pool(con, kg)
            cands = {s.id: candidate_rows(con, s, pool) for s in subs}
            largest = max(largest, con.execute("SELECT count(*) FROM pool").fetchone()[0])
        else:
            cands = pooled_candidates(con, subs, pool)
            sizes = con.execute(
                "SELECT max(n) FROM (SELECT count(*) AS n FROM entity_strata "
                "WHERE kg = ? AND stratum IS NOT NULL GROUP BY stratum)",
                [kg],
            ).fetchone()[0]
            cross = any(not EXECUTORS[s.executor].stratum_local for s in subs)
            whole = con.execute(
                "SELECT count(*) FROM entity_strata WHERE kg = ? AND stratum IS NOT NULL", [kg]
            ).fetchone()[0]
            largest = max(largest, whole if cross else sizes or 0)
        tuples += sorted(
            json.dumps([kg, sid, sorted(r.items())], default=str)
            for sid, rows in cands.items()
            for r in rows
        )
    seconds = time.perf_counter() - t0
    return {
        "mode": mode,
        "seconds": round(seconds, 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "largest_pool_rows": largest,
        "tuples": len(tuples),
        "sha256": hashlib.sha256("\n".join(sorted(tuples)).encode()).hexdigest()[:16],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", default=".mgqa/warehouse.duckdb", help="a built warehouse")
    ap.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.warehouse)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        results = {}
        for mode in MODES:
            copy = Path(tmp) / f"{mode}.duckdb"
            shutil.copyfile(
                args.warehouse, copy
            )  # the source warehouse is never opened for writing
            out = subprocess.run(
                [sys.executable, __file__, "--child", mode, "--warehouse", str(copy)],
                check=True,
                capture_output=True,
                text=True,
            )
            results[mode] = json.loads(out.stdout.strip().splitlines()[-1])
            copy.unlink()
    print("| mode | seconds | peak RSS (MiB) | largest pool (rows) | tuples | tuples sha256 |")
    print("|---|---:|---:|---:|---:|---|")
    for r in results.values():
        print(
            f"| {r['mode']} | {r['seconds']} | {r['peak_rss_mib']} | {r['largest_pool_rows']:,} "
            f"| {r['tuples']:,} | {r['sha256']} |"
        )
    for base, new in (("whole", "bounded"), ("whole-local", "bounded-local")):
        a, b = results[base], results[new]
        same = "same tuples" if a["sha256"] == b["sha256"] else "DIFFERENT TUPLES"
        print(
            f"{new} / {base}: time {b['seconds'] / a['seconds']:.2f}x, peak RSS "
            f"{b['peak_rss_mib'] / a['peak_rss_mib']:.2f}x, largest pool "
            f"{b['largest_pool_rows'] / a['largest_pool_rows']:.2f}x, {same}"
        )


if __name__ == "__main__":
    main()
