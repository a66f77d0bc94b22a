"""Benchmark KG conversion against rdflib on generated WorldKG-style N-Triples files.

For each size (default 1M and 5M triples) a deterministic WorldKG-like N-Triples file is generated
(streamed to disk, cached in ``--workdir``), then three measurements run, each in its **own
subprocess** so that the peak RSS reported is that measurement's alone:

* ``parse-only`` -- iterate :class:`mgqa_platform.kg.rdf_stream.RdfStreamReader` batches (our parser);
* ``convert``    -- full :func:`mgqa_platform.kg.convert.convert_kg` (``kg="worldkg"``) into a fresh
  DuckDB warehouse file in the work directory;
* ``rdflib``     -- ``rdflib.Graph().parse(path, format="nt")``, the reference.

Each child reports its own wall time and ``ru_maxrss`` (peak RSS, imports included) as JSON; the parent
prints a table, throughput ratios against rdflib in the same run, the RSS growth from the smallest to
the largest size, and ``TARGET MET`` / ``TARGET MISSED`` lines for the two targets of the issue:

1. convert throughput >= 10x rdflib's throughput (at every size measured);
2. peak RSS of convert at the largest size <= 1.5x that at the smallest (memory does not grow with
   file size).

The exit code is always 0 (it is a report). See ``docs/benchmarks.md``.

Usage::

    PYTHONPATH=. python scripts/bench_conversion.py                 # 1M and 5M triples
    PYTHONPATH=. python scripts/bench_conversion.py --quick         # 100k and 500k (smoke run)
    PYTHONPATH=. python scripts/bench_conversion.py --sizes 2000000 --skip-rdflib
    PYTHONPATH=. python scripts/bench_conversion.py --quick --profile   # + cProfile of convert
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
GENERATOR_VERSION = 1
DEFAULT_SIZES = (1_000_000, 5_000_000)
QUICK_SIZES = (100_000, 500_000)
MODES = ("parse-only", "convert", "rdflib")

# --------------------------------------------------------------------------------------------------
# Data generator
# --------------------------------------------------------------------------------------------------
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
WKG = "http://www.worldkg.org/resource/"
WKGS = "http://www.worldkg.org/schema/"
GEO_AS_WKT = "http://www.opengis.net/ont/geosparql#asWKT"
WKT_LITERAL = "http://www.opengis.net/ont/geosparql#wktLiteral"
SF_POINT = "http://www.opengis.net/ont/sf#Point"

_SYLLABLES = (
    "ka", "lo", "mi", "ren", "tor", "vel", "za", "ber", "chi", "dun", "el", "fa", "gor", "han", "is",
    "jo", "kel", "lun", "mar", "nor", "os", "pel", "quin", "ros", "sa", "tal", "ur", "vin", "wen", "yor",
    "zé", "mü", "ño", "ça", "ø",
)  # fmt: skip
_COMMON = (
    "Central", "Golden", "Royal", "Old Town", "Corner", "Blue", "Green", "Sunset", "Harbour", "Market",
    "Station", "Park", "River", "Hill", "Plaza", "Garden", "Bridge", "Lake", "Star", "Crown",
)  # fmt: skip
_STREETS = tuple(f"{a} {b}" for a in ("Main", "High", "Church", "Mill", "Station", "Park", "King", "Queen", "Bridge", "Market")
                 for b in ("Street", "Road", "Avenue", "Lane", "Way"))  # fmt: skip


def _features() -> list[tuple[str, str, str]]:
    """``(key property, tag value, value class)`` rows of the platform's OSM map-features table."""
    sys.path.insert(0, str(REPO_ROOT))
    from mgqa_platform.kg import osm_features

    out = []
    with open(REPO_ROOT / "mgqa_platform" / "data" / "osm_map_features.csv", newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            prop = osm_features.tag_property(r["key"])
            if prop and r["key"] in osm_features.MAIN_KEYS:
                out.append((prop, r["value"], r["value_class"]))
    return sorted(out)


def _lit(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


def _entity_lines(rng: random.Random, node_id: int, features: list, cls_label: dict) -> list[str]:
    """N-Triples lines of one WorldKG entity (7 to 9 triples, 8 on average)."""
    prop, value, cls = features[rng.randrange(len(features))]
    if rng.random() < 0.05:  # a small pool of very common names -> ambiguous display names
        name = f"{rng.choice(_COMMON)} {cls_label[cls]}"
    else:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3)))
        name = f"{word[:1].upper()}{word[1:]} {cls_label[cls]}"
    lon = round(rng.uniform(-180.0, 180.0), 7)
    lat = round(rng.uniform(-85.0, 85.0), 7)
    s = f"<{WKG}{node_id}>"
    geo = f"<{WKG}geo{node_id}>"
    lines = [
        f"{s} <{RDF_TYPE}> <{WKGS}{cls}> .",
        f"{s} <{RDFS_LABEL}> {_lit(name)} .",
        f"{s} <{WKGS}{prop}> {_lit(value)} .",
    ]
    if rng.random() < 0.6:
        lines.append(f"{s} <{WKGS}nameEn> {_lit(name)} .")
    if rng.random() < 0.1:
        lines.append(f"{s} <{WKGS}nameDe> {_lit(name + ' (de)')} .")
    if rng.random() < 0.3:
        lines.append(f"{s} <{WKGS}addrStreet> {_lit(rng.choice(_STREETS))} .")
    lines.append(f'{s} <{WKGS}osmLink> "https://www.openstreetmap.org/node/{node_id}" .')
    lines.append(f"{s} <{WKGS}spatialObject> {geo} .")
    lines.append(f"{geo} <{RDF_TYPE}> <{SF_POINT}> .")
    lines.append(f'{geo} <{GEO_AS_WKT}> "Point({lon!r} {lat!r})"^^<{WKT_LITERAL}> .')
    return lines


def generate(path: Path, triples: int, seed: int) -> dict:
    """Write exactly ``triples`` N-Triples lines to ``path`` (streamed; only the last entity may be cut)."""
    features = _features()
    cls_label = {cls: " ".join(re.findall(r"[A-Z][a-z0-9]*", cls)) or cls for _, _, cls in features}
    rng = random.Random(seed)
    tmp = path.with_suffix(".nt.part")
    written = 0
    entities = 0
    node_id = 1_000_000
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        buf: list[str] = []
        while written < triples:
            node_id += rng.randint(1, 50)
            lines = _entity_lines(rng, node_id, features, cls_label)
            lines = lines[: triples - written]
            buf.extend(lines)
            written += len(lines)
            entities += 1
            if len(buf) >= 50_000:
                f.write("\n".join(buf) + "\n")
                buf = []
        if buf:
            f.write("\n".join(buf) + "\n")
    os.replace(tmp, path)
    return {"triples": written, "entities": entities, "bytes": path.stat().st_size, "seed": seed, "version": GENERATOR_VERSION}


def dataset(workdir: Path, triples: int, seed: int) -> tuple[Path, dict]:
    """The cached file for ``triples`` (generated on first use; reused when its sidecar matches)."""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"worldkg-{triples}-seed{seed}-v{GENERATOR_VERSION}.nt"
    meta_path = path.with_suffix(".json")
    if path.is_file() and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        if meta.get("triples") == triples and meta.get("bytes") == path.stat().st_size and meta.get("version") == GENERATOR_VERSION:
            print(f"[gen] reusing {path} ({meta['bytes'] / 2**20:.0f} MiB, {meta['entities']:,} entities)", flush=True)
            return path, meta
    t0 = time.perf_counter()
    meta = generate(path, triples, seed)
    meta["generate_s"] = round(time.perf_counter() - t0, 1)
    meta_path.write_text(json.dumps(meta))
    print(f"[gen] wrote {path} ({meta['bytes'] / 2**20:.0f} MiB, {meta['entities']:,} entities) in {meta['generate_s']}s", flush=True)
    return path, meta


# --------------------------------------------------------------------------------------------------
# Child measurements (one per process)
# --------------------------------------------------------------------------------------------------
def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _child_parse_only(path: Path, out: dict) -> None:
    from mgqa_platform.kg.rdf_stream import RdfStreamReader

    out["rss_before_mib"] = _rss_mib()
    t0 = time.perf_counter()
    reader = RdfStreamReader(path)
    n = 0
    for batch in reader.batches():
        n += batch.num_rows
    out["seconds"] = time.perf_counter() - t0
    out["triples"] = n
    out["bad_statements"] = len(reader.bad)


class _RssSampler:
    """Background thread: the peak RSS seen while each labelled section runs (sampled every 10 ms)."""

    def __init__(self) -> None:
        import threading

        self.label = "python"
        self.peaks: dict[str, float] = {}
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop:
            r = _rss_mib()
            if r > self.peaks.get(self.label, 0.0):
                self.peaks[self.label] = r
            time.sleep(0.01)


class _TracedConnection:
    """Delegates to a DuckDB connection; times every statement (execute + fetch) and its peak RSS."""

    def __init__(self, con, sampler: _RssSampler, stats: dict) -> None:
        self._con, self._sampler, self._stats = con, sampler, stats

    def _timed(self, label: str, fn, *a, count: bool = False):
        prev = self._sampler.label
        self._sampler.label = label
        t = time.perf_counter()
        try:
            return fn(*a)
        finally:
            st = self._stats.setdefault(label, {"calls": 0, "seconds": 0.0})
            st["calls"] += int(count)
            st["seconds"] += time.perf_counter() - t
            self._sampler.label = prev

    def execute(self, sql: str, params=None):
        label = "SQL " + " ".join(sql.split())[:90]
        self._timed(label, self._con.execute, sql, *([params] if params is not None else []), count=True)
        outer = self

        class _Result:
            def fetchone(self):
                return outer._timed(label, outer._con.fetchone)

            def fetchall(self):
                return outer._timed(label, outer._con.fetchall)

            def fetch_arrow_table(self):
                return outer._timed(label, outer._con.fetch_arrow_table)

        return _Result()

    def __getattr__(self, name):
        return getattr(self._con, name)


def _trace_python(stats: dict, sampler: _RssSampler) -> None:
    """Time the per-entity Python steps of convert_kg by wrapping module functions in this process."""
    from mgqa_platform import geometry
    from mgqa_platform.kg import convert

    def wrap(mod, name, label):
        fn = getattr(mod, name)

        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                st = stats.setdefault(label, {"calls": 0, "seconds": 0.0})
                st["calls"] += 1
                st["seconds"] += time.perf_counter() - t

        setattr(mod, name, wrapper)

    wrap(geometry, "parse_wkt", "py geometry.parse_wkt")
    wrap(geometry, "representative_lonlat", "py geometry.representative_lonlat")
    wrap(geometry, "point_cell", "py geometry.point_cell (h3)")
    wrap(geometry, "geom_kind", "py geometry.geom_kind")
    import pyarrow as pa

    orig_from_pylist = pa.Table.from_pylist

    def from_pylist(*a, **k):
        t = time.perf_counter()
        try:
            return orig_from_pylist(*a, **k)
        finally:
            st = stats.setdefault("py pa.Table.from_pylist", {"calls": 0, "seconds": 0.0})
            st["calls"] += 1
            st["seconds"] += time.perf_counter() - t

    convert.pa = type("pa_proxy", (), {"Table": type("T", (), {"from_pylist": staticmethod(from_pylist)})})
    _ = sampler


def _child_convert(path: Path, out: dict, workdir: Path, profile: bool, trace: bool = False, memory_limit: str | None = None) -> None:
    import dataclasses

    from mgqa_platform import warehouse
    from mgqa_platform.kg import convert, profiles

    db = workdir / f"bench-{os.getpid()}.duckdb"
    for p in (db, Path(str(db) + ".wal")):
        p.unlink(missing_ok=True)
    con = warehouse.connect(db)
    warehouse.ensure_schema(con)
    if memory_limit:
        con.execute(f"SET memory_limit = '{memory_limit}'")
    out["duckdb_memory_limit"] = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    raw_con = con
    trace_stats: dict[str, dict] = {}
    sampler = None
    if trace:
        sampler = _RssSampler()
        con = _TracedConnection(raw_con, sampler, trace_stats)
        _trace_python(trace_stats, sampler)

    # Per-stage timings and RSS, by wrapping module attributes in this process only (no library edits).
    phases: dict[str, dict] = {}

    def timed(name, fn):
        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                phases[name] = {"seconds": round(time.perf_counter() - t, 2), "rss_after_mib": round(_rss_mib()), "peak_so_far_mib": round(_peak_mib())}

        return wrapper

    build_time = [0.0]
    prof = profiles.PROFILES["worldkg"]
    orig_build = prof.build

    def timed_build(rec):
        t = time.perf_counter()
        try:
            return orig_build(rec)
        finally:
            build_time[0] += time.perf_counter() - t

    convert.profiles.PROFILES["worldkg"] = dataclasses.replace(prof, build=timed_build)
    convert._stage = timed("stage (parse + insert)", convert._stage)
    convert._finish = timed("finish (disambiguate + triples + write)", convert._finish)

    out["rss_before_mib"] = _rss_mib()
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    t0 = time.perf_counter()
    res = convert.convert_kg(con, "worldkg", path, "bench-snapshot")
    out["seconds"] = time.perf_counter() - t0
    if profiler is not None:
        import io
        import pstats

        profiler.disable()
        s = io.StringIO()
        pstats.Stats(profiler, stream=s).sort_stats("cumulative").print_stats(25)
        s2 = io.StringIO()
        pstats.Stats(profiler, stream=s2).sort_stats("tottime").print_stats(20)
        out["cprofile_cumulative"] = s.getvalue()
        out["cprofile_tottime"] = s2.getvalue()
    out["triples"] = res.triples_staged
    out["entities"] = res.entities
    out["labels"] = res.labels
    out["entity_triples"] = res.entity_triples
    out["quarantined"] = dict(res.quarantined)
    out["ambiguous_names"] = res.ambiguous_names
    stage_s = phases.get("stage (parse + insert)", {}).get("seconds", 0.0)
    finish_s = phases.get("finish (disambiguate + triples + write)", {}).get("seconds", 0.0)
    out["phases"] = phases
    out["profile_build_s"] = round(build_time[0], 2)
    out["group_profile_geometry_s"] = round(out["seconds"] - stage_s - finish_s, 2)
    if sampler is not None:
        sampler.stop = True
        for label, peak in sampler.peaks.items():
            trace_stats.setdefault(label, {"calls": 0, "seconds": 0.0})["peak_rss_mib"] = round(peak)
        out["trace"] = trace_stats
    con = raw_con
    try:
        out["duckdb_memory"] = con.execute(
            "SELECT tag, round(memory_usage_bytes / 2**20) AS mib, round(temporary_storage_bytes / 2**20) AS tmp_mib "
            "FROM duckdb_memory() WHERE memory_usage_bytes > 0 OR temporary_storage_bytes > 0"
        ).fetchall()
    except Exception as e:  # noqa: BLE001 - diagnostic only
        out["duckdb_memory"] = str(e)
    con.close()
    out["db_mib"] = round(db.stat().st_size / 2**20)
    for p in (db, Path(str(db) + ".wal")):
        p.unlink(missing_ok=True)


def _child_rdflib(path: Path, out: dict) -> None:
    import rdflib

    out["rss_before_mib"] = _rss_mib()
    t0 = time.perf_counter()
    g = rdflib.Graph()
    g.parse(str(path), format="nt")
    out["seconds"] = time.perf_counter() - t0
    out["triples"] = len(g)


def child_main(mode: str, path: Path, workdir: Path, profile: bool, trace: bool = False, memory_limit: str | None = None) -> None:
    sys.path.insert(0, str(REPO_ROOT))
    out: dict = {"mode": mode, "path": str(path)}
    if mode == "parse-only":
        _child_parse_only(path, out)
    elif mode == "convert":
        _child_convert(path, out, workdir, profile, trace, memory_limit)
    elif mode == "rdflib":
        _child_rdflib(path, out)
    else:
        raise SystemExit(f"unknown mode {mode}")
    out["peak_rss_mib"] = _peak_mib()
    print("BENCH_RESULT " + json.dumps(out), flush=True)


# --------------------------------------------------------------------------------------------------
# Parent
# --------------------------------------------------------------------------------------------------
def run_child(mode: str, path: Path, workdir: Path, profile: bool, timeout: float | None, trace: bool = False, memory_limit: str | None = None) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", mode, "--child-path", str(path), "--workdir", str(workdir)]
    if profile and mode == "convert":
        cmd.append("--profile")
    if trace and mode == "convert":
        cmd.append("--trace")
    if memory_limit and mode == "convert":
        cmd += ["--duckdb-memory-limit", memory_limit]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"mode": mode, "error": f"timed out after {timeout}s"}
    wall = time.perf_counter() - t0
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("BENCH_RESULT "):
            res = json.loads(line[len("BENCH_RESULT ") :])
            res["process_wall_s"] = wall
            return res
    tail = (proc.stderr or proc.stdout)[-2000:]
    return {"mode": mode, "error": f"exit {proc.returncode}: {tail.strip().splitlines()[-1] if tail.strip() else 'no output'}", "stderr_tail": tail}


def fmt_row(size: int, r: dict) -> str:
    if "error" in r:
        return f"{size:>10,}  {r['mode']:<11}  ERROR {r['error']}"
    tps = r["triples"] / r["seconds"] if r["seconds"] else float("nan")
    return f"{size:>10,}  {r['mode']:<11}  {r['seconds']:>9.2f}  {tps:>12,.0f}  {r['peak_rss_mib']:>13,.0f}  {r['rss_before_mib']:>11,.0f}"


HEADER = f"{'triples':>10}  {'mode':<11}  {'seconds':>9}  {'triples/s':>12}  {'peak RSS MiB':>13}  {'RSS@start':>11}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=None, help="file sizes in triples (default: 1000000 5000000)")
    ap.add_argument("--quick", action="store_true", help="sizes 100000 and 500000 (fast smoke run)")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/mgqa-bench"), help="where generated files and the scratch warehouse live")
    ap.add_argument("--skip-rdflib", action="store_true", help="do not run the rdflib reference")
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES), help="measurements to run (default: all)")
    ap.add_argument("--seed", type=int, default=42, help="generator seed (default 42)")
    ap.add_argument("--profile", action="store_true", help="cProfile the convert run(s) and print the top functions")
    ap.add_argument("--trace", action="store_true", help="time each SQL statement / Python step of convert and its peak RSS")
    ap.add_argument("--duckdb-memory-limit", default=None, help="override the warehouse memory_limit for convert (e.g. 1GB); default: library config")
    ap.add_argument("--timeout", type=float, default=None, help="per-measurement timeout in seconds")
    ap.add_argument("--json", type=Path, default=None, help="also write all results to this JSON file")
    ap.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    ap.add_argument("--child-path", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        child_main(args.child, args.child_path, args.workdir, args.profile, args.trace, args.duckdb_memory_limit)
        return 0

    sizes = sorted(args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES))
    modes = [m for m in MODES if m in args.modes and not (m == "rdflib" and args.skip_rdflib)]
    print(f"# KG conversion benchmark: sizes {sizes}, modes {modes}, workdir {args.workdir}, {os.cpu_count()} CPUs", flush=True)

    results: dict[int, dict[str, dict]] = {}
    for size in sizes:
        path, meta = dataset(args.workdir, size, args.seed)
        results[size] = {"_meta": meta}
        for mode in modes:
            print(f"[run] {size:,} triples, {mode} ...", flush=True)
            r = run_child(mode, path, args.workdir, args.profile, args.timeout, args.trace, args.duckdb_memory_limit)
            results[size][mode] = r
            print("      " + fmt_row(size, r).strip(), flush=True)
            if mode == "convert" and "error" not in r:
                ph = "; ".join(f"{k} {v['seconds']}s (RSS after {v['rss_after_mib']} MiB)" for k, v in r["phases"].items())
                print(f"      convert phases: {ph}; group+profile+geometry {r['group_profile_geometry_s']}s "
                      f"(of which profile.build {r['profile_build_s']}s)", flush=True)  # fmt: skip
                print(f"      entities {r['entities']:,}, labels {r['labels']:,}, entity_triples {r['entity_triples']:,}, "
                      f"quarantined {r['quarantined']}, ambiguous names {r['ambiguous_names']:,}, warehouse {r['db_mib']} MiB", flush=True)  # fmt: skip
                print(f"      duckdb memory_limit {r.get('duckdb_memory_limit')}; duckdb_memory() at end: {r.get('duckdb_memory')}", flush=True)
                if r.get("trace"):
                    print(f"      {'seconds':>8} {'calls':>7} {'peak RSS MiB':>12}  step", flush=True)
                    for label, st in sorted(r["trace"].items(), key=lambda kv: -kv[1]["seconds"]):
                        pk = st.get("peak_rss_mib")
                        print(f"      {st['seconds']:>8.2f} {st['calls']:>7} {pk if pk is not None else '':>12}  {label}", flush=True)
                if args.profile:
                    print(r.get("cprofile_cumulative", ""), flush=True)
                    print(r.get("cprofile_tottime", ""), flush=True)
            if "error" in r and r.get("stderr_tail"):
                print(r["stderr_tail"], flush=True)

    # ---- report
    print()
    print("## Results")
    print(HEADER)
    for size in sizes:
        for mode in modes:
            print(fmt_row(size, results[size][mode]))

    def tps(size: int, mode: str) -> float | None:
        r = results[size].get(mode)
        if not r or "error" in r or not r.get("seconds"):
            return None
        return r["triples"] / r["seconds"]

    def peak(size: int, mode: str) -> float | None:
        r = results[size].get(mode)
        return None if not r or "error" in r else r["peak_rss_mib"]

    print()
    print("## Throughput vs rdflib (same run)")
    speedups: dict[int, float | None] = {}
    for size in sizes:
        ref = tps(size, "rdflib")
        parts = []
        for mode in ("parse-only", "convert"):
            t = tps(size, mode)
            ratio = t / ref if (t and ref) else None
            if mode == "convert":
                speedups[size] = ratio
            parts.append(f"{mode} {ratio:.2f}x" if ratio else f"{mode} n/a")
        print(f"{size:>10,}: " + ", ".join(parts))

    print()
    lo, hi = sizes[0], sizes[-1]
    print(f"## Peak RSS growth ({hi:,} vs {lo:,} triples, file {hi / lo:.1f}x larger)")
    growth: dict[str, float | None] = {}
    for mode in modes:
        a, b = peak(lo, mode), peak(hi, mode)
        growth[mode] = b / a if (a and b) else None
        print(f"{mode:<11}: {a if a else float('nan'):,.0f} -> {b if b else float('nan'):,.0f} MiB = "
              + (f"{growth[mode]:.2f}x" if growth[mode] else "n/a"))  # fmt: skip

    print()
    if "rdflib" not in modes or "convert" not in modes:
        print("TARGET SKIPPED: convert throughput >= 10x rdflib (needs both convert and rdflib runs)")
    elif all(v is not None and v >= 10 for v in speedups.values()):
        print("TARGET MET: convert throughput >= 10x rdflib at every size (" + ", ".join(f"{s:,}: {v:.2f}x" for s, v in speedups.items()) + ")")
    else:
        print("TARGET MISSED: convert throughput >= 10x rdflib ("
              + ", ".join(f"{s:,}: " + (f"{v:.2f}x" if v else "n/a") for s, v in speedups.items()) + ")")  # fmt: skip
    g = growth.get("convert")
    if "convert" not in modes or len(sizes) < 2:
        print("TARGET SKIPPED: convert peak RSS at largest size <= 1.5x smallest (needs convert at two sizes)")
    elif g is not None and g <= 1.5:
        print(f"TARGET MET: convert peak RSS {hi:,} vs {lo:,} = {g:.2f}x <= 1.5x")
    else:
        print(f"TARGET MISSED: convert peak RSS {hi:,} vs {lo:,} = " + (f"{g:.2f}x" if g else "n/a") + " > 1.5x")

    if args.json:
        args.json.write_text(json.dumps({str(k): v for k, v in results.items()}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
