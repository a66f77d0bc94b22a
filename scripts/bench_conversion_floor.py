"""The floor of the KG conversion on one machine: the parts of ``convert_kg`` no rewrite of the SQL
around them can remove, timed alone on the benchmark's N-Triples file (docs/benchmarks.md,
"The floor at 1M").

In one process, each step after the previous one, with wall and CPU seconds (this process and its
threads):

* ``convert``: the whole :func:`mgqa_platform.kg.convert.convert_kg` into a fresh warehouse;
* ``parse``: :func:`mgqa_platform.kg.rdf_stream.parse_ntriples_duckdb` alone (DuckDB's line reader
  and the exact regular expression, one thread, Parquet out);
* ``writes``: the rows ``convert`` wrote to ``entities``, ``entity_labels`` and ``entity_triples``,
  read back from Parquet files in their physical order and inserted into a second fresh warehouse
  in one transaction (the same bytes DuckDB compresses and writes at the end of a conversion);
* ``h3``: :func:`mgqa_platform.kg.convert._point_cells` of every entity's representative point
  (h3 has no vectorized call: one Python call per point and resolution);
* ``name rules``: :func:`mgqa_platform.kg.names.name_entities` over every entity (Python).

It prints each step, the sum of the floor steps and, when ``--rdflib-seconds`` gives the rdflib
parse time of the same file (from ``scripts/bench_conversion.py``), the best ratio to rdflib that a
conversion made of these parts alone could reach.

Usage::

    .venv/bin/python scripts/bench_conversion_floor.py --workdir /tmp/mgqa-bench --triples 1000000
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "scripts"))

import bench_conversion  # noqa: E402  (the generator of the benchmark's files)

from mgqa_platform import warehouse  # noqa: E402
from mgqa_platform.category_words import localized_nouns  # noqa: E402
from mgqa_platform.kg import convert, names, rdf_stream  # noqa: E402

WRITTEN = ("entities", "entity_labels", "entity_triples")


def timed(label: str, fn, results: dict) -> object:
    """Run ``fn()``; record and print its wall and CPU seconds under ``label``."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    results[label] = (time.perf_counter() - t, time.process_time() - c)
    print(f"{label:<12} {results[label][0]:7.2f} s wall {results[label][1]:7.2f} s CPU", flush=True)
    return out


def fresh_warehouse(path: Path):
    """A new warehouse file at ``path`` with the schema."""
    for p in (path, Path(f"{path}.wal")):
        p.unlink(missing_ok=True)
    con = warehouse.connect(path)
    warehouse.ensure_schema(con)
    return con


def export_written(con, out: Path) -> dict[str, Path]:
    """The rows of :data:`WRITTEN`, in their physical order, as Parquet files under ``out``."""
    files = {}
    con.execute("SET preserve_insertion_order = true")
    for table in WRITTEN:
        files[table] = out / f"{table}.parquet"
        con.execute(f"COPY {table} TO '{files[table]}' (FORMAT parquet)")
    return files


def write_all(con, files: dict[str, Path]) -> None:
    """Insert the exported rows in their order, in one transaction."""
    con.execute("SET preserve_insertion_order = true")
    with warehouse.transaction(con):
        for table, f in files.items():
            con.execute(f"INSERT INTO {table} SELECT * FROM read_parquet('{f}')")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/mgqa-bench"))
    ap.add_argument("--triples", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--rdflib-seconds", type=float, help="rdflib's parse of the same file")
    args = ap.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    path, _ = bench_conversion.dataset(args.workdir, args.triples, args.seed)
    print(f"# {path} ({args.triples:,} triples), load {os.getloadavg()[0]:.1f}", flush=True)
    scratch = Path(tempfile.mkdtemp(prefix="floor-", dir=args.workdir))
    results: dict[str, tuple[float, float]] = {}
    try:
        con = fresh_warehouse(scratch / "convert.duckdb")
        timed("convert", lambda: convert.convert_kg(con, "worldkg", path, "s", scratch), results)
        files = export_written(con, scratch)
        points = con.execute("SELECT lon, lat FROM entities ORDER BY entity_id").fetchall()
        rules_in = [
            names.Entity(eid, name, category, valid_from, {}, ())
            for eid, name, category, valid_from in con.execute(
                "SELECT entity_id, name, category, valid_from FROM entities ORDER BY entity_id"
            ).fetchall()
        ]
        con.close()
        parse_con = warehouse.connect(scratch / "parse.duckdb")
        timed(
            "parse",
            lambda: rdf_stream.parse_ntriples_duckdb(parse_con, path, scratch / "parsed"),
            results,
        )
        parse_con.close()
        out = fresh_warehouse(scratch / "writes.duckdb")
        timed("writes", lambda: write_all(out, files), results)
        out.close()
        lons, lats = [p[0] for p in points], [p[1] for p in points]
        timed("h3", lambda: convert._point_cells(lons, lats), results)
        nouns = convert._category_nouns(sorted({e.category for e in rules_in}))
        words = names.category_words(nouns.values(), nouns, localized_nouns(nouns))
        timed(
            "name rules",
            lambda: names.name_entities(rules_in, words, frozenset(), convert.PLACE_CATEGORIES),
            results,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    floor = [results[k] for k in ("parse", "writes", "h3", "name rules")]
    wall, cpu = sum(f[0] for f in floor), sum(f[1] for f in floor)
    print(f"{'floor':<12} {wall:7.2f} s wall {cpu:7.2f} s CPU (parse + writes + h3 + name rules)")
    if args.rdflib_seconds:
        for label, seconds in (("floor", wall), ("convert", results["convert"][0])):
            print(f"{label} vs rdflib: {args.rdflib_seconds / seconds:.2f}x")
    print(f"load after {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
