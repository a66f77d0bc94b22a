"""Benchmark question generation: questions per second on the sample and on a synthetic table 10x
larger.

Input: a built warehouse (``mgqa build``; default ``$MGQA_HOME/warehouse.duckdb``, else ``.mgqa``).
The script copies it to ``--workdir`` twice:

* ``sample``   -- the warehouse as built (the baseline, measured in the same run);
* ``x<N>``     -- every entity replicated N times (default 10): copy k of an entity gets the id
  suffix ``~k``, its geometry shifted by ``k * 0.0005`` degrees east and north (about 50 m per step,
  so strata and neighbourhoods hold), the representative point and H3 cells recomputed from the
  shifted point, and its strata row, labels and source triples copied. The set of templates, the
  seed and the cap (30 per cell) are unchanged, so the number of questions stays roughly the same
  while every candidate pool and spatial join grows N-fold.

Each measurement runs :func:`mgqa_platform.questions.generate.generate` over the three KGs
``--repeat`` times (default 2) in this process and reports the best time, questions/s, and the ratio
of time against the baseline. Usage::

    .venv/bin/python scripts/bench_questions.py            # sample and 10x
    .venv/bin/python scripts/bench_questions.py --factor 3 # quicker

See docs/benchmark_questions.md.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

import h3

from mgqa_dagster.resources.paths import PathsResource
from mgqa_platform import markdown, settings, warehouse
from mgqa_platform.questions.catalog import default_catalog
from mgqa_platform.questions.generate import generate

STEP_DEG = 0.0005


def replicate(path: Path, factor: int) -> None:
    """Replicate every entity ``factor`` times in place (copy 0 is the original)."""
    con = warehouse.connect(path)
    try:
        con.execute(f"CREATE TEMP TABLE k AS SELECT range AS k FROM range(1, {factor})")
        con.execute(
            f"""CREATE TEMP TABLE extra AS SELECT e.* REPLACE (
                    e.entity_id || '~' || k.k AS entity_id,
                    e.display_name || ' ~' || k.k AS display_name,
                    ST_Translate(e.geometry, k.k * {STEP_DEG}, k.k * {STEP_DEG}) AS geometry,
                    e.lon + k.k * {STEP_DEG} AS lon, e.lat + k.k * {STEP_DEG} AS lat)
                FROM entities e CROSS JOIN k"""
        )
        rows = con.execute("SELECT entity_id, lon, lat FROM extra").fetchall()
        cells = [
            (eid, [h3.latlng_to_cell(lat, lon, r) for r in (3, 5, 7, 9)]) for eid, lon, lat in rows
        ]
        con.execute("CREATE TEMP TABLE cells (entity_id VARCHAR, h3 VARCHAR[])")
        _insert_cells(con, cells)
        con.execute(
            "INSERT INTO entities "
            "SELECT x.* REPLACE (c.h3 AS h3) "
            "FROM extra x "
            "JOIN cells c USING (entity_id)"
        )
        con.execute(
            "INSERT INTO entity_strata "
            "SELECT s.* REPLACE (s.entity_id || '~' || k.k AS entity_id) "
            "FROM entity_strata s "
            "CROSS JOIN k"
        )
        con.execute(
            "INSERT INTO entity_labels "
            "SELECT l.* REPLACE (l.entity_id || '~' || k.k AS entity_id) "
            "FROM entity_labels l "
            "CROSS JOIN k"
        )
        con.execute(
            "INSERT INTO entity_triples "
            "SELECT t.* REPLACE (t.entity_id || '~' || k.k AS entity_id) "
            "FROM entity_triples t "
            "CROSS JOIN k"
        )
        con.execute("CHECKPOINT")
    finally:
        con.close()


def _insert_cells(con, cells) -> None:
    import pyarrow as pa

    tbl = pa.table({"entity_id": [c[0] for c in cells], "h3": [c[1] for c in cells]})
    with warehouse.registered(con, _cells=tbl):
        con.execute("INSERT INTO cells SELECT * FROM _cells")


def measure(path: Path, repeat: int) -> tuple[int, float, int]:
    con = warehouse.connect(path)
    try:
        entities = con.execute("SELECT count(*) FROM entities").fetchone()[0]
        best, n = float("inf"), 0
        for _ in range(repeat):
            t0 = time.perf_counter()
            gen = generate(con, default_catalog(), settings.KGS)
            best = min(best, time.perf_counter() - t0)
            n = len(gen.questions)
        return n, best, entities
    finally:
        con.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warehouse", type=Path, default=PathsResource().resolved().warehouse_path)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/mgqa-bench-questions"))
    ap.add_argument("--factor", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    if not args.warehouse.exists():
        raise SystemExit(f"no warehouse at {args.warehouse}; run `mgqa build` first")
    args.workdir.mkdir(parents=True, exist_ok=True)
    base = args.workdir / "sample.duckdb"
    big = args.workdir / f"x{args.factor}.duckdb"
    shutil.copyfile(args.warehouse, base)
    shutil.copyfile(args.warehouse, big)
    t0 = time.perf_counter()
    replicate(big, args.factor)
    print(f"built the x{args.factor} warehouse in {time.perf_counter() - t0:.1f} s")
    results = {"sample": measure(base, args.repeat), f"x{args.factor}": measure(big, args.repeat)}
    b_n, b_t, b_e = results["sample"]
    header = ["input", "entities", "questions", "best time (s)", "questions/s"]
    header.append("time ratio vs sample")
    rows = [
        (name, f"{e:,}", f"{n:,}", f"{t:.2f}", f"{n / t:,.1f}", f"{t / b_t:.2f}x")
        for name, (n, t, e) in results.items()
    ]
    print("\n".join(markdown.table(header, rows, "lrrrrr")))


if __name__ == "__main__":
    main()
