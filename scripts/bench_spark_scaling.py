"""Scaling benchmark of the Spark engine: the per-entity conversion stage and the strata join on
synthetic inputs at 1x, 10x and 50x the bundled sample, in local mode with 1 and 2 executor cores.

The input is the WorldKG KG of the bundled sample (built from ``data/sample/osm`` into the work
folder), pivoted once into its wide rows (one per subject, what the Spark stage reads). Copy ``k``
of those rows gets ``#x<k>`` subjects and ids and coordinates shifted by a seeded offset (at most
0.02 degrees), so every copy is new work with the sample's mix of points, lines and polygons.
For each (scale, cores) the script times, in a fresh Spark session:

* ``convert``: :class:`mgqa_platform.spark.convert.SparkConversion` (geometry, H3, attributes in
  ``mapInArrow``; the GeoParquet dataset ``kg=`` / ``h3_r0=``; the view read back by DuckDB);
* ``country``, ``density``, ``strata``: :class:`mgqa_platform.spark.strata.SparkStrata` over the
  converted entities (bundled Natural Earth 1:50m and World Bank table, the GeoNames proxy density
  surface).

It prints seconds per stage, rows per second, the ratio of each scale's time to that of the
smallest scale (ideal: the ratio of the scales), the speed-up of 2 cores over 1, and per stage the
least-squares slope (seconds per million entities) and fixed cost. Setup (generation, the DuckDB
pivot, loading the entities into the warehouse) is not timed; the start-up of each Spark session
(the JVM and one Python worker per core, reused by the stages) is printed apart (``start``), and so
is the 1-minute load average after each run (other work on the machine slows every stage). See
docs/spark.md.

Usage::

    .venv/bin/python scripts/bench_spark_scaling.py                 # 1x, 10x, 50x on 1 and 2 cores
    .venv/bin/python scripts/bench_spark_scaling.py --quick         # 1x and 2x (smoke run)
    .venv/bin/python scripts/bench_spark_scaling.py --scales 1 10 --cores 2
    .venv/bin/python scripts/bench_spark_scaling.py --master spark://host:7077 --scales 50
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mgqa_platform import warehouse
from mgqa_platform.kg import convert
from mgqa_platform.kg.worldkg_build import build_worldkg
from mgqa_platform.settings import SAMPLE_DIR
from mgqa_platform.spark.convert import SparkConversion
from mgqa_platform.spark.session import local_session
from mgqa_platform.spark.strata import SparkStrata
from mgqa_platform.strata import countries, density, income

SEED = 20
MAX_SHIFT_DEG = 0.02
_PAIR = re.compile(r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?) (-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")


def sample_wide_rows(work: Path) -> Path:
    """The wide rows of the bundled sample's WorldKG, captured from a real conversion."""
    out = work / "wide-1x.parquet"
    if out.exists():
        return out
    ttl = work / "worldkg-sample.ttl"
    build_worldkg(SAMPLE_DIR / "osm" / "mgqa-sample.osm.pbf", ttl)

    def capture(con, wide_sql, kg, scratch, quarantine):
        con.execute(f"COPY ({wide_sql} ORDER BY s) TO '{out}' (FORMAT parquet)")
        convert.accept_in_process(con, wide_sql, kg, scratch, quarantine)

    con = warehouse.connect(None)
    warehouse.ensure_schema(con)
    convert.convert_kg(con, "worldkg", ttl, "bench", scratch_dir=work, accept=capture)
    con.close()
    return out


def shift_wkt(wkt: str | None, dx: float, dy: float) -> str | None:
    """``wkt`` with every coordinate pair moved by (dx, dy)."""
    if wkt is None:
        return None
    return _PAIR.sub(lambda m: f"{float(m[1]) + dx!r} {float(m[2]) + dy!r}", wkt)


def replicate(base: Path, scale: int, work: Path) -> Path:
    """``scale`` copies of the wide rows at ``base``: copy 0 as it is, copy k with ``#x<k>`` ids
    and coordinates shifted by a seeded offset (per row)."""
    out = work / f"wide-{scale}x.parquet"
    if out.exists():
        return out
    rows = pq.read_table(base)
    rng = np.random.default_rng(SEED)
    with pq.ParquetWriter(out, rows.schema) as w:
        w.write_table(rows)
        for k in range(1, scale):
            tag = f"#x{k}"
            shifts = rng.uniform(-MAX_SHIFT_DEG, MAX_SHIFT_DEG, size=(rows.num_rows, 2))
            wkt = [
                shift_wkt(v, float(d[0]), float(d[1]))
                for v, d in zip(rows.column("wkt").to_pylist(), shifts, strict=True)
            ]
            copy = rows
            for col in ("s", "entity_id", "iri"):
                i = copy.schema.get_field_index(col)
                copy = copy.set_column(i, col, pc.binary_join_element_wise(copy[col], tag, ""))
            i = copy.schema.get_field_index("wkt")
            copy = copy.set_column(i, "wkt", pa.array(wkt, pa.string()))
            w.write_table(copy)
    return out


def strata_warehouse(work: Path):
    """A warehouse with the bundled countries and the proxy density cells (no entities yet)."""
    con = warehouse.connect(None)
    warehouse.ensure_schema(con)
    wb = income.load_income(SAMPLE_DIR / "worldbank" / "wb_income_fy2026.csv")
    countries.write_countries(con, countries.load_countries(), wb, "previous", None)
    raster = work / "proxy.tif"
    if not raster.exists():
        density.build_proxy_population_raster(raster, countries.NATURAL_EARTH_SAMPLE, 0.25)
    cells, _, _ = density.with_tiers(density.aggregate_to_h3(raster, res=3))
    with warehouse.registered(con, _cells=cells):
        con.execute(
            "INSERT INTO density_cells "
            "SELECT h3, population, valid_pixels, area_km2, density, tier "
            "FROM _cells ORDER BY h3"
        )
    return con


def load_entities(con) -> int:
    """The converted rows (``new_entities``) as the published ``entities`` of KG ``worldkg``."""
    con.execute("DELETE FROM entities")
    con.execute(
        """
        INSERT INTO entities (entity_id, kg, iri, name, display_name, name_unique, category, types,
                              geometry, geom_kind, lon, lat, h3, snapshot_id)
        SELECT entity_id, 'worldkg', iri, name, name, true, category, types,
               ST_GeomFromWKB(wkb), geom_kind, lon, lat, h3, 'bench'
        FROM new_entities
        """
    )
    return int(con.execute("SELECT count(*) FROM entities").fetchone()[0])


def _import_stages(batches):
    """``mapInArrow`` body of the warm-up: a Python worker with the stages' modules imported."""
    import mgqa_platform.spark.convert
    import mgqa_platform.spark.strata  # noqa: F401

    for batch in batches:
        yield pa.RecordBatch.from_pydict({"n": [batch.num_rows]})


def warm_up(spark) -> None:
    """Start the session's executors and one Python worker per core (workers are reused by the
    stages' tasks), so that no stage pays the start-up of the session."""
    n = spark.sparkContext.defaultParallelism
    spark.range(n).repartition(n).mapInArrow(_import_stages, "n bigint").collect()


def run_one(wide: Path, master: str, work: Path, con) -> dict[str, float]:
    """Seconds per stage for one input on one Spark master (a fresh session), the session's
    start-up (``start``) and the 1-minute load average of the machine after the run."""
    scratch = work / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    datasets = work / "datasets"
    t = time.perf_counter()
    spark = local_session(master, scratch)
    times = {}
    try:
        warm_up(spark)
        times["start"] = time.perf_counter() - t
        t = time.perf_counter()
        SparkConversion(spark, datasets)(
            con, f"SELECT * FROM read_parquet('{wide}')", "worldkg", scratch, []
        )
        times["convert"] = time.perf_counter() - t
        times["entities"] = load_entities(con)
        stages = SparkStrata(spark, datasets, scratch)
        for name, call in (
            ("country", lambda: stages.assign_countries(con, 25.0, "worldkg")),
            ("density", lambda: stages.assign_density(con, "worldkg")),
            ("strata", lambda: stages.assign_strata(con, "worldkg")),
        ):
            t = time.perf_counter()
            call()
            times[name] = time.perf_counter() - t
    finally:
        spark.stop()
    times["load"] = os.getloadavg()[0]
    return times


STAGES = ("convert", "country", "density", "strata")


def report(results: dict[tuple[int, str], dict], scales: list[int], masters: list[str]) -> None:
    """Print the table (seconds per stage, rows/s, scaling against the smallest scale, session
    start-up and load average), the 2-core speed-up and the per-stage linear fit."""
    print()
    head = (
        f"| scale | master | entities | {' | '.join(STAGES)} | total s | rows/s | vs smallest "
        "| start s | load |"
    )
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for master in masters:
        first = None
        for scale in scales:
            r = results[(scale, master)]
            total = sum(r[s] for s in STAGES)
            first = first or (scale, total)
            ratio = (total / first[1]) / (scale / first[0])
            print(
                f"| {scale}x | {master} | {r['entities']:,} | "
                + " | ".join(f"{r[s]:.1f}" for s in STAGES)
                + f" | {total:.1f} | {r['entities'] / total:,.0f} | {total / first[1]:.2f}"
                f" (x{ratio:.2f} of linear) | {r['start']:.1f} | {r['load']:.1f} |"
            )
    if len(masters) == 2:
        for scale in scales:
            one, two = (sum(results[(scale, m)][s] for s in STAGES) for m in masters)
            print(f"speed-up {masters[1]} over {masters[0]} at {scale}x: {one / two:.2f}")
    if len(scales) > 1:
        print()
        print("| master | stage | slope s per 1M entities | fixed s |")
        print("|---|---|---:|---:|")
        for master in masters:
            for stage in (*STAGES, "total"):
                slope, fixed = fit(results, scales, master, stage)
                print(f"| {master} | {stage} | {slope:.1f} | {fixed:.1f} |")


def fit(
    results: dict[tuple[int, str], dict], scales: list[int], master: str, stage: str
) -> tuple[float, float]:
    """Least-squares line through (entities, seconds) of ``stage`` (or the ``total``) on
    ``master``: (seconds per million entities, fixed seconds)."""
    runs = [results[(scale, master)] for scale in scales]
    n = np.array([r["entities"] for r in runs], dtype=float) / 1e6
    stages = STAGES if stage == "total" else (stage,)
    secs = np.array([sum(r[s] for s in stages) for r in runs])
    slope, fixed = np.polyfit(n, secs, 1)
    return float(slope), float(fixed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10, 50])
    ap.add_argument("--cores", type=int, nargs="+", default=[1, 2], help="local[N] masters")
    ap.add_argument("--master", nargs="+", default=None, help="Spark master URLs (not --cores)")
    ap.add_argument("--quick", action="store_true", help="scales 1 and 2 (smoke run)")
    ap.add_argument("--workdir", type=Path, default=None, help="keep generated inputs here")
    args = ap.parse_args(argv)
    scales = [1, 2] if args.quick else sorted(args.scales)
    masters = args.master or [f"local[{n}]" for n in args.cores]
    work = args.workdir or Path(tempfile.mkdtemp(prefix="mgqa-bench-spark-"))
    work.mkdir(parents=True, exist_ok=True)
    base = sample_wide_rows(work)
    con = strata_warehouse(work)
    results = {}
    for scale in scales:
        wide = replicate(base, scale, work)
        for master in masters:
            results[(scale, master)] = run_one(wide, master, work, con)
            r = results[(scale, master)]
            print(
                f"{scale}x {master}: " + ", ".join(f"{s} {r[s]:.1f}s" for s in STAGES), flush=True
            )
    report(results, scales, masters)
    if args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
