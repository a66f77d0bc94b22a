"""Benchmark the N-Triples parse alone: pyoxigraph (``parse_file``) against DuckDB
(``parse_ntriples_duckdb``).

For each file (the cached WorldKG-style files of ``scripts/bench_conversion.py``, generated on first
use, and any ``--files``) every mode runs in its own subprocess and reports wall and CPU seconds
(its own and its worker processes'), then a content hash of the triples in file order and the bad
statements:

* ``pyoxigraph-2`` -- :func:`mgqa_platform.kg.rdf_stream.parse_file` with two worker processes, the
  parse the conversion uses now (the baseline of the ratios);
* ``duckdb-1``, ``duckdb-2`` -- :func:`mgqa_platform.kg.rdf_stream.parse_ntriples_duckdb` with 1 and
  2 DuckDB threads (the check that DuckDB can read the file line for line, the regular-expression
  pass, the pyoxigraph pass over the lines it leaves, all timed);
* ``rdflib`` -- ``rdflib.Graph().parse(path, format="nt")``, the issue's reference (skipped above
  ``--rdflib-max`` triples).

The parent prints a table with ratios against ``pyoxigraph-2`` and rdflib in the same run, and
``SAME`` or ``DIFFERENT`` for each DuckDB mode (its hash and bad statements against pyoxigraph's).
Exit code 1 when any result differs. See ``docs/benchmarks.md``.

Usage::

    .venv/bin/python scripts/bench_ntriples_parse.py --workdir /tmp/c10x/bench              # 1M
    .venv/bin/python scripts/bench_ntriples_parse.py --sizes 1000000 5000000 --rdflib-max 1000000
    .venv/bin/python scripts/bench_ntriples_parse.py --sizes --files .mgqa/kg/kwg/kwg-bundled.nt
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MODES = ("pyoxigraph-2", "duckdb-1", "duckdb-2", "rdflib")
BASELINE = "pyoxigraph-2"


def _cpu() -> float:
    """CPU seconds of this process and its finished children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _ordered_hash(con, sql: str) -> str:
    """A hash of the rows of ``sql`` (``s, p, o`` in order) that changes with any row or its
    position."""
    row = con.execute(
        f"SELECT count(*), sum(hash(n, s, p, o)::HUGEINT) FROM "
        f"(SELECT row_number() OVER () AS n, s, p, o FROM ({sql}))"
    ).fetchone()
    return f"{row[0]}:{row[1]}"


def child(mode: str, path: Path, scratch: Path) -> dict:
    """Run one measurement and return its report."""
    import duckdb

    from mgqa_platform.kg import rdf_stream

    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = true")
    out = scratch / mode
    cpu0, t0 = _cpu(), time.perf_counter()
    if mode == "rdflib":
        import rdflib

        g = rdflib.Graph()
        g.parse(str(path), format="nt")
        seconds, cpu = time.perf_counter() - t0, _cpu() - cpu0
        return {"seconds": seconds, "cpu_s": cpu, "triples": len(g)}
    left = None
    if mode == BASELINE:
        parts, triples, bad = rdf_stream.parse_file(path, out, workers=2)
        seconds, cpu = time.perf_counter() - t0, _cpu() - cpu0
        files = ", ".join("'" + str(p) + "'" for p in parts)
        sql = f"SELECT s, p, o FROM read_parquet([{files}])"
    else:
        res = rdf_stream.parse_ntriples_duckdb(con, path, out, threads=int(mode[-1]))
        seconds, cpu = time.perf_counter() - t0, _cpu() - cpu0
        if res is None:
            return {"seconds": seconds, "cpu_s": cpu, "triples": 0, "unreadable": True}
        parts, triples, bad = res
        sql = rdf_stream.lines_triples_sql(parts)
        left = con.execute("SELECT count(text) FROM read_parquet(?)", [str(parts[0])]).fetchone()[0]
    return {
        "seconds": seconds,
        "cpu_s": cpu,
        "triples": triples,
        "hash": _ordered_hash(con, sql),
        "bad": [[b.reason, b.line, b.detail, b.text, b.offset] for b in bad],
        "to_pyoxigraph": left,
    }


def run_child(mode: str, path: Path, scratch: Path) -> dict:
    """One measurement in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(path), str(scratch)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{mode} on {path} failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _bench_module():
    spec = importlib.util.spec_from_file_location(
        "bench_conversion", REPO_ROOT / "scripts" / "bench_conversion.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def measure(path: Path, modes: list[str], scratch: Path) -> dict[str, dict]:
    """Every mode on ``path``, printed as it finishes."""
    results = {}
    for mode in modes:
        load = os.getloadavg()[0]
        r = run_child(mode, path, scratch / path.stem)
        r["load"] = f"{load:.1f}/{os.getloadavg()[0]:.1f}"
        results[mode] = r
        print(
            f"[run] {path.name} {mode}: {r['seconds']:.2f} s, {r['cpu_s']:.2f} CPU s, "
            f"{r['triples']:,} triples, load {r['load']}",
            flush=True,
        )
        shutil.rmtree(scratch / path.stem / mode, ignore_errors=True)
    return results


def report(name: str, results: dict[str, dict]) -> bool:
    """Print the table of one file; return whether every DuckDB mode gave pyoxigraph's result."""
    base = results[BASELINE]
    ref = results.get("rdflib")
    print(f"\n### {name}\n")
    print(
        "| mode | seconds | CPU s | triples/s | vs pyoxigraph-2 (wall / CPU) | vs rdflib "
        "(wall) | same |"
    )
    print("|---|---:|---:|---:|---|---:|---|")
    same_all = True
    for mode, r in results.items():
        tps = r["triples"] / r["seconds"] if r["seconds"] else 0.0
        vs = f"{base['seconds'] / r['seconds']:.2f}x / {base['cpu_s'] / r['cpu_s']:.2f}x"
        vr = f"{ref['seconds'] / r['seconds']:.1f}x" if ref else "-"
        same = "-"
        if mode.startswith("duckdb"):
            ok = not r.get("unreadable") and (r["hash"], r["bad"]) == (base["hash"], base["bad"])
            same = "SAME" if ok else ("UNREADABLE" if r.get("unreadable") else "DIFFERENT")
            same_all &= ok
            same += f" ({r.get('to_pyoxigraph', 0):,} lines to pyoxigraph)"
        print(
            f"| {mode} | {r['seconds']:.2f} | {r['cpu_s']:.2f} | {tps:,.0f} | {vs} | {vr} "
            f"| {same} |"
        )
    print(
        f"\n(bad statements: {len(base.get('bad', []))}; load 1m before/after: "
        + ", ".join(f"{m} {r['load']}" for m, r in results.items())
        + ")"
    )
    return same_all


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="*", default=[1_000_000])
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "mgqa-bench")
    ap.add_argument("--files", type=Path, nargs="*", default=[], help="more .nt files (no rdflib)")
    ap.add_argument("--rdflib-max", type=int, default=1_000_000, help="no rdflib above this size")
    ap.add_argument("--child", nargs=3, metavar=("MODE", "PATH", "SCRATCH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        mode, path, scratch = args.child
        print(json.dumps(child(mode, Path(path), Path(scratch))))
        return 0
    bench = _bench_module() if args.sizes else None
    jobs = []
    for size in args.sizes:
        path, _ = bench.dataset(args.workdir, size, args.seed)
        jobs.append((f"{size:,} triples ({path.name})", path, size <= args.rdflib_max))
    jobs += [(str(f), f, False) for f in args.files]
    scratch = Path(tempfile.mkdtemp(prefix="bench-nt-", dir=args.workdir if args.sizes else None))
    ok = True
    try:
        for name, path, with_rdflib in jobs:
            modes = [m for m in MODES if with_rdflib or m != "rdflib"]
            ok &= report(name, measure(path, modes, scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("\nALL SAME" if ok else "\nSOME RESULTS DIFFER")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
