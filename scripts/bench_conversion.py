"""Benchmark KG conversion against rdflib on generated WorldKG-style N-Triples files.

For each size (default 1M and 5M triples) a deterministic WorldKG-like N-Triples file is generated
(seeded, streamed to disk, cached in ``--workdir`` and reused), then each measurement runs in its
**own subprocess**, so that the peak memory reported is that measurement's alone:

* ``parse-only``     -- iterate :class:`mgqa_platform.kg.rdf_stream.RdfStreamReader` batches (one
  process);
* ``parse-parallel`` -- :func:`mgqa_platform.kg.rdf_stream.parse_file` with ``workers=max(2, CPUs)``
  (worker processes -> Parquet parts), the parser convert uses; skipped if the library has no
  ``parse_file``;
* ``convert``        -- full :func:`mgqa_platform.kg.convert.convert_kg` (``kg="worldkg"``) into a
  fresh DuckDB warehouse file in the work directory;
* ``rdflib``         -- ``rdflib.Graph().parse(path, format="nt")``, the reference.

Each child reports as JSON: wall seconds of the measured call (imports and warehouse setup
excluded), CPU seconds (its own plus its worker processes'), the peak RSS of the whole process tree
(sampled every 20 ms with psutil, since ``RUSAGE_SELF`` does not see worker processes) and its own
exact peak (``VmHWM``). The parent prints a table, throughput ratios against rdflib in the same run
(wall and CPU), the peak-RSS growth from the smallest to the largest size, and ``TARGET MET`` /
``TARGET MISSED`` lines for the issue's targets:

1. convert throughput >= 10x rdflib's throughput (at every size measured);
2. peak RSS of convert at the largest size <= 1.5x that at the smallest (memory does not grow with
   size).

The exit code is always 0 (it is a report). See ``docs/benchmarks.md``.

Usage::

    # 1M and 5M triples (~7 min on 2 cores)
    .venv/bin/python scripts/bench_conversion.py
    .venv/bin/python scripts/bench_conversion.py --quick         # 100k and 500k (smoke run, ~1 min)
    .venv/bin/python scripts/bench_conversion.py --sizes 2000000 --skip-rdflib
    # time + peak RSS per SQL statement
    .venv/bin/python scripts/bench_conversion.py --modes convert --trace
    # cProfile of convert (main process)
    .venv/bin/python scripts/bench_conversion.py --modes convert --profile
    .venv/bin/python scripts/bench_conversion.py --modes convert --duckdb-memory-limit 1GB
    # MGQA_PARSE_WORKERS=2
    .venv/bin/python scripts/bench_conversion.py --modes convert --parse-workers 2
"""

from __future__ import annotations

import argparse
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
GENERATOR_VERSION = 2
DEFAULT_SIZES = (1_000_000, 5_000_000)
QUICK_SIZES = (100_000, 500_000)
MODES = ("parse-only", "parse-parallel", "convert", "rdflib")

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
OSM_NODE = "https://www.openstreetmap.org/node/"
WIKIDATA_PAGE = "http://www.wikidata.org/wiki/"
_HOURS = ("Mo-Fr 08:00-18:00", "24/7", "Mo-Sa 09:00-20:00; Su off", "sunrise-sunset")

_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ren",
    "tor",
    "vel",
    "za",
    "ber",
    "chi",
    "dun",
    "el",
    "fa",
    "gor",
    "han",
    "is",
    "jo",
    "kel",
    "lun",
    "mar",
    "nor",
    "os",
    "pel",
    "quin",
    "ros",
    "sa",
    "tal",
    "ur",
    "vin",
    "wen",
    "yor",
    "zé",
    "mü",
    "ño",
    "ça",
    "ø",
)
_COMMON = (
    "Central",
    "Golden",
    "Royal",
    "Old Town",
    "Corner",
    "Blue",
    "Green",
    "Sunset",
    "Harbour",
    "Market",
    "Station",
    "Park",
    "River",
    "Hill",
    "Plaza",
    "Garden",
    "Bridge",
    "Lake",
    "Star",
    "Crown",
)
_STREETS = tuple(
    f"{a} {b}"
    for a in (
        "Main",
        "High",
        "Church",
        "Mill",
        "Station",
        "Park",
        "King",
        "Queen",
        "Bridge",
        "Market",
    )
    for b in ("Street", "Road", "Avenue", "Lane", "Way")
)


def _features() -> list[tuple[str, str]]:
    """``(WorldKG class, class label)`` rows: the classes of our WorldKG class table
    (``worldkg_class_categories.csv``) whose (key, value) is in WorldKG's own class table, so that
    ``worldkg_build.py`` could have written them."""
    sys.path.insert(0, str(REPO_ROOT))
    from mgqa_platform.kg import profiles, worldkg_build

    written = set(worldkg_build.class_table().values())
    classes = sorted({r["worldkg_class"] for r in profiles.worldkg_classes()} & written)
    return [(c, " ".join(re.findall(r"[A-Z][a-z0-9]*", c)) or c) for c in classes]


def _property(key: str) -> str:
    """The ``wkgs:`` IRI of an OSM key of WorldKG's key list, named by WorldKG's rule."""
    from mgqa_platform.kg import worldkg_build

    assert key in worldkg_build.key_list(), key
    return f"<{WKGS}{worldkg_build.property_name(key)}>"


def _lit(s: str) -> str:
    return (
        '"'
        + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
        + '"'
    )


def _entity_lines(rng: random.Random, node_id: int, features: list, props: dict) -> list[str]:
    """N-Triples lines of one WorldKG entity as ``worldkg_build.py`` writes it (types first, then
    the properties sorted by predicate; 5 to 12 triples, 7.1 on average)."""
    cls, label = features[rng.randrange(len(features))]
    if rng.random() < 0.05:  # a small pool of very common names -> ambiguous display names
        name = f"{rng.choice(_COMMON)} {label}"
    else:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3)))
        name = f"{word[:1].upper()}{word[1:]} {label}"
    lon = round(rng.uniform(-180.0, 180.0), 7)
    lat = round(rng.uniform(-85.0, 85.0), 7)
    s = f"<{WKG}{node_id}>"
    geo = f"<{WKG}geo{node_id}>"
    classes = [cls]
    if rng.random() < 0.03:  # a second tag of a class key: WorldKG gives the node both classes
        classes.append(features[rng.randrange(len(features))][0])
    pairs = [(f"<{RDFS_LABEL}>", _lit(name))] if rng.random() < 0.9 else []
    if rng.random() < 0.5:
        pairs.append((props["name:en"], _lit(name)))
    if rng.random() < 0.1:
        pairs.append((props["name:de"], _lit(name + " (de)")))
    if rng.random() < 0.3:
        pairs.append((props["addr:housenumber"], _lit(str(rng.randint(1, 300)))))
    if rng.random() < 0.2:
        pairs.append((props["opening_hours"], _lit(rng.choice(_HOURS))))
    if rng.random() < 0.1:
        pairs.append((f"<{WKGS}wikidata>", f"<{WIKIDATA_PAGE}Q{rng.randint(1, 10**8)}>"))
    pairs.append((f"<{WKGS}osmLink>", f"<{OSM_NODE}{node_id}>"))
    pairs.append((f"<{WKGS}spatialObject>", geo))
    lines = [f"{s} <{RDF_TYPE}> <{WKGS}{c}> ." for c in sorted(set(classes))]
    lines += [f"{s} {p} {o} ." for p, o in sorted(pairs)]
    lines.append(f"{geo} <{RDF_TYPE}> <{SF_POINT}> .")
    lines.append(f'{geo} <{GEO_AS_WKT}> "Point({lon!r} {lat!r})"^^<{WKT_LITERAL}> .')
    return lines


def generate(path: Path, triples: int, seed: int) -> dict:
    """Write exactly ``triples`` N-Triples lines to ``path`` (streamed; only the last entity may be
    cut)."""
    features = _features()
    props = {k: _property(k) for k in ("name:en", "name:de", "addr:housenumber", "opening_hours")}
    rng = random.Random(seed)
    tmp = path.with_suffix(".nt.part")
    written = 0
    entities = 0
    node_id = 1_000_000
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        buf: list[str] = []
        while written < triples:
            node_id += rng.randint(1, 50)
            lines = _entity_lines(rng, node_id, features, props)
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
    return {
        "triples": written,
        "entities": entities,
        "bytes": path.stat().st_size,
        "seed": seed,
        "version": GENERATOR_VERSION,
    }


def dataset(workdir: Path, triples: int, seed: int) -> tuple[Path, dict]:
    """The cached file for ``triples`` (generated on first use; reused when its sidecar matches)."""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"worldkg-{triples}-seed{seed}-v{GENERATOR_VERSION}.nt"
    meta_path = path.with_suffix(".json")
    if path.is_file() and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        if (
            meta.get("triples") == triples
            and meta.get("bytes") == path.stat().st_size
            and meta.get("version") == GENERATOR_VERSION
        ):
            print(
                f"[gen] reusing {path} ({meta['bytes'] / 2**20:.0f} MiB, "
                f"{meta['entities']:,} entities)",
                flush=True,
            )
            return path, meta
    t0 = time.perf_counter()
    meta = generate(path, triples, seed)
    meta["generate_s"] = round(time.perf_counter() - t0, 1)
    meta_path.write_text(json.dumps(meta))
    print(
        f"[gen] wrote {path} ({meta['bytes'] / 2**20:.0f} MiB, "
        f"{meta['entities']:,} entities) in {meta['generate_s']}s",
        flush=True,
    )
    return path, meta


# --------------------------------------------------------------------------------------------------
# Child measurements (one per process)
# --------------------------------------------------------------------------------------------------
#: convert.py functions timed as phases when they exist (the library may rename them; missing ones
#: are skipped)
PHASE_FUNCS = ("_stage", "_facts", "_grouped", "_build_batch", "_finish")


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _hwm_mib() -> float:
    """Peak RSS of this process (``VmHWM``). Not ``ru_maxrss``: Linux carries the parent's
    high-water mark across fork/vfork + exec, so a child's ``ru_maxrss`` is at least the parent's
    RSS at spawn time."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # fallback (KiB on Linux)


class _RssSampler:
    """Background thread sampling the RSS of this process **and all its descendants** (conversion
    may use worker processes, which ``RUSAGE_SELF`` does not see). Keeps the overall peak and the
    peak per label."""

    def __init__(self, interval: float = 0.02) -> None:
        import threading

        import psutil

        self._psutil = psutil
        self._me = psutil.Process()
        self.interval = interval
        self.stack: list[str] = []  # labels of the sections running now (outermost first)
        self.peak = 0.0
        self.peaks: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def tree_rss_mib(self) -> float:
        total = 0
        procs = [self._me]
        try:
            procs += self._me.children(recursive=True)
        except self._psutil.Error:
            pass
        for pr in procs:
            try:
                total += pr.memory_info().rss
            except self._psutil.Error:
                pass
        return total / 2**20

    def _run(self) -> None:
        while not self._stop.is_set():
            r = self.tree_rss_mib()
            self.peak = max(self.peak, r)
            for label in list(self.stack):
                if r > self.peaks.get(label, 0.0):
                    self.peaks[label] = r
            self._stop.wait(self.interval)

    def push(self, label: str) -> None:
        self.stack.append(label)

    def pop(self) -> None:
        self.stack.pop()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _child_parse_only(path: Path, out: dict, sampler: _RssSampler) -> None:
    from mgqa_platform.kg.rdf_stream import RdfStreamReader

    t0 = time.perf_counter()
    reader = RdfStreamReader(path)
    n = 0
    for batch in reader.batches():
        n += batch.num_rows
    out["seconds"] = time.perf_counter() - t0
    out["triples"] = n
    out["bad_statements"] = len(reader.bad)


def _child_parse_parallel(path: Path, out: dict, workdir: Path, sampler: _RssSampler) -> None:
    import shutil

    from mgqa_platform.kg import rdf_stream

    if not hasattr(rdf_stream, "parse_file"):
        raise SystemExit("rdf_stream.parse_file does not exist in this version of the library")
    import inspect

    target = workdir / f"parsed-{os.getpid()}"
    kwargs = {}
    params = inspect.signature(rdf_stream.parse_file).parameters
    if (
        "workers" in params
    ):  # parallel on purpose: workers may be opt-in in the library (MGQA_PARSE_WORKERS)
        kwargs["workers"] = max(2, min(os.cpu_count() or 1, 4))
        out["workers"] = kwargs["workers"]
    t0 = time.perf_counter()
    try:
        parts, n, bad = rdf_stream.parse_file(path, target, **kwargs)
        out["seconds"] = time.perf_counter() - t0
        out["triples"] = n
        out["bad_statements"] = len(bad)
        out["parts"] = len(parts)
        out["parquet_mib"] = round(sum(p.stat().st_size for p in parts) / 2**20)
    finally:
        shutil.rmtree(target, ignore_errors=True)


class _TracedConnection:
    """Delegates to a DuckDB connection; times every statement (execute + fetch) and its peak tree
    RSS."""

    def __init__(self, con, sampler: _RssSampler, stats: dict) -> None:
        self._con, self._sampler, self._stats = con, sampler, stats

    def _timed(self, label: str, fn, *a, count: bool = False, **k):
        self._sampler.push(label)
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            st = self._stats.setdefault(label, {"calls": 0, "seconds": 0.0})
            st["calls"] += int(count)
            st["seconds"] += time.perf_counter() - t
            self._sampler.pop()

    def execute(self, sql: str, params=None):
        label = "SQL " + " ".join(sql.split())[:100]
        self._timed(
            label, self._con.execute, sql, *([params] if params is not None else []), count=True
        )
        outer = self

        class _Result:
            def __getattr__(
                self, name
            ):  # fetchone / fetchall / fetch_arrow_table / fetch_record_batch ...
                fn = getattr(outer._con, name)
                if not callable(fn):
                    return fn
                return lambda *a, **k: outer._timed(label, fn, *a, **k)

        return _Result()

    def __getattr__(self, name):
        return getattr(self._con, name)


def _child_convert(
    path: Path,
    out: dict,
    workdir: Path,
    sampler: _RssSampler,
    profile: bool,
    trace: bool,
    memory_limit: str | None,
) -> None:
    """One convert run in this process: a fresh warehouse under ``workdir``, convert's phases
    timed, the run recorded into ``out`` (with ``--trace``, each statement; with ``--profile``,
    the top functions); the warehouse is removed afterwards."""
    from mgqa_platform.kg import convert

    con, db = _bench_warehouse(workdir, memory_limit, out)
    phases = _time_phases(convert, sampler)
    trace_stats: dict[str, dict] = {}
    raw_con = con
    if trace:
        con = _TracedConnection(raw_con, sampler, trace_stats)
    kwargs = _convert_kwargs(convert, workdir, out)
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    t0 = time.perf_counter()
    try:
        res = convert.convert_kg(con, "worldkg", path, "bench-snapshot", **kwargs)
    except BaseException:
        raw_con.close()
        _remove_db(db)
        raise
    out["seconds"] = time.perf_counter() - t0
    if profiler is not None:
        profiler.disable()
        out.update(_profile_report(profiler))
    _record_convert(out, res, phases, sampler, trace_stats if trace else None)
    try:
        out["duckdb_memory_end"] = raw_con.execute(
            "SELECT tag, round(memory_usage_bytes / 2**20) AS mib, "
            "round(temporary_storage_bytes / 2**20) AS tmp_mib "
            "FROM duckdb_memory() WHERE memory_usage_bytes > 0 OR temporary_storage_bytes > 0"
        ).fetchall()
    except Exception as e:
        out["duckdb_memory_end"] = str(e)
    raw_con.close()
    out["db_mib"] = round(db.stat().st_size / 2**20)
    _remove_db(db)


def _remove_db(db: Path) -> None:
    """Remove the benchmark's warehouse file and its WAL."""
    for p in (db, Path(str(db) + ".wal")):
        p.unlink(missing_ok=True)


def _bench_warehouse(workdir: Path, memory_limit: str | None, out: dict):
    """A fresh warehouse of this process under ``workdir`` (schema ensured, ``memory_limit`` set
    when given) and its path; records DuckDB's settings and MGQA_PARSE_WORKERS into ``out``."""
    from mgqa_platform import warehouse

    db = workdir / f"bench-{os.getpid()}.duckdb"
    _remove_db(db)
    con = warehouse.connect(db)
    warehouse.ensure_schema(con)
    if memory_limit:
        con.execute(f"SET memory_limit = '{memory_limit}'")
    out["duckdb_memory_limit"] = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    out["duckdb_threads"] = con.execute("SELECT current_setting('threads')").fetchone()[0]
    out["MGQA_PARSE_WORKERS"] = os.environ.get("MGQA_PARSE_WORKERS")
    return con, db


def _time_phases(convert, sampler: _RssSampler) -> dict[str, dict]:
    """Wrap convert's internal steps (:data:`PHASE_FUNCS`) in this process only (no library edits;
    best effort); returns phase -> {calls, seconds}, filled as they run."""
    import inspect

    phases: dict[str, dict] = {}

    def timed_phase(name, fn):
        def wrapper(*a, **k):
            sampler.push(name)
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                st = phases.setdefault(name, {"calls": 0, "seconds": 0.0})
                st["calls"] += 1
                st["seconds"] += time.perf_counter() - t
                sampler.pop()

        return wrapper

    for name in PHASE_FUNCS:
        fn = getattr(convert, name, None)
        if inspect.isfunction(fn):
            setattr(convert, name, timed_phase(name, fn))
    return phases


def _convert_kwargs(convert, workdir: Path, out: dict) -> dict:
    """The keyword arguments of ``convert_kg`` that this library version takes: the scratch folder
    and the parser workers (from MGQA_PARSE_WORKERS)."""
    import inspect

    params = inspect.signature(convert.convert_kg).parameters
    kwargs = {}
    if "scratch_dir" in params:
        kwargs["scratch_dir"] = str(workdir)
    if out["MGQA_PARSE_WORKERS"] and "parse_workers" in params:
        kwargs["parse_workers"] = int(out["MGQA_PARSE_WORKERS"])  # an argument of the library
    return kwargs


def _profile_report(profiler) -> dict[str, str]:
    """The top functions of a cProfile run, by cumulative and by own time."""
    import io
    import pstats

    s1, s2 = io.StringIO(), io.StringIO()
    pstats.Stats(profiler, stream=s1).sort_stats("cumulative").print_stats(25)
    pstats.Stats(profiler, stream=s2).sort_stats("tottime").print_stats(20)
    return {"cprofile_cumulative": s1.getvalue(), "cprofile_tottime": s2.getvalue()}


def _record_convert(
    out: dict, res, phases: dict, sampler: _RssSampler, trace_stats: dict | None
) -> None:
    """Record the conversion's counts, its phases with their peak RSS and (when traced) each
    statement's time and peak into ``out``."""
    out["triples"] = res.triples_staged
    out["entities"] = res.entities
    out["labels"] = res.labels
    out["entity_triples"] = res.entity_triples
    out["quarantined"] = dict(res.quarantined)
    out["ambiguous_names"] = res.ambiguous_names
    out["phases"] = {
        k: {
            "calls": v["calls"],
            "seconds": round(v["seconds"], 2),
            "peak_tree_rss_mib": round(sampler.peaks.get(k, 0)),
        }
        for k, v in phases.items()
    }
    if trace_stats is not None:
        for label, st in trace_stats.items():
            st["seconds"] = round(st["seconds"], 3)
            st["peak_tree_rss_mib"] = round(sampler.peaks.get(label, 0))
        out["trace"] = trace_stats


def _child_rdflib(path: Path, out: dict, sampler: _RssSampler) -> None:
    import rdflib

    t0 = time.perf_counter()
    g = rdflib.Graph()
    g.parse(str(path), format="nt")
    out["seconds"] = time.perf_counter() - t0
    out["triples"] = len(g)


def child_main(
    mode: str,
    path: Path,
    workdir: Path,
    profile: bool = False,
    trace: bool = False,
    memory_limit: str | None = None,
) -> None:
    sys.path.insert(0, str(REPO_ROOT))
    out: dict = {"mode": mode, "path": str(path)}
    sampler = _RssSampler()
    out["rss_before_mib"] = _rss_mib()
    out["loadavg_before"] = os.getloadavg()[0]
    cpu0 = os.times()
    if mode == "parse-only":
        _child_parse_only(path, out, sampler)
    elif mode == "parse-parallel":
        _child_parse_parallel(path, out, workdir, sampler)
    elif mode == "convert":
        _child_convert(path, out, workdir, sampler, profile, trace, memory_limit)
    elif mode == "rdflib":
        _child_rdflib(path, out, sampler)
    else:
        raise SystemExit(f"unknown mode {mode}")
    cpu1 = os.times()
    out["loadavg_after"] = os.getloadavg()[0]
    sampler.stop()
    # CPU seconds of this process and its (waited-for) worker processes, setup included
    out["cpu_s"] = round(
        (cpu1.user - cpu0.user)
        + (cpu1.system - cpu0.system)
        + (cpu1.children_user - cpu0.children_user)
        + (cpu1.children_system - cpu0.children_system),
        2,
    )
    out["self_hwm_mib"] = _hwm_mib()
    out["tree_peak_sampled_mib"] = round(sampler.peak)
    # headline: the larger of the exact peak of this process and the sampled peak of the whole
    # process tree
    out["peak_rss_mib"] = max(out["self_hwm_mib"], sampler.peak)
    print("BENCH_RESULT " + json.dumps(out), flush=True)


# --------------------------------------------------------------------------------------------------
# Parent
# --------------------------------------------------------------------------------------------------
def run_child(
    mode: str,
    path: Path,
    workdir: Path,
    profile: bool,
    timeout: float | None,
    trace: bool = False,
    memory_limit: str | None = None,
    parse_workers: int | None = None,
) -> dict:
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        mode,
        "--child-path",
        str(path),
        "--workdir",
        str(workdir),
    ]
    if profile and mode == "convert":
        cmd.append("--profile")
    if trace and mode == "convert":
        cmd.append("--trace")
    if memory_limit and mode == "convert":
        cmd += ["--duckdb-memory-limit", memory_limit]
    env = dict(os.environ)
    if parse_workers is not None and mode == "convert":
        env["MGQA_PARSE_WORKERS"] = str(parse_workers)
    env["PYTHONPATH"] = str(REPO_ROOT) + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
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
    tail = (proc.stderr or proc.stdout)[-3000:]
    lines = tail.strip().splitlines()
    errors = [ln for ln in lines if re.match(r"^[\w.]*(Error|Exception)\b", ln)]
    msg = (errors or lines or ["no output"])[-1]
    return {"mode": mode, "error": f"exit {proc.returncode}: {msg[:300]}", "stderr_tail": tail}


def _library_version() -> str:
    """Git commit of the repository, and whether mgqa_platform/ has uncommitted changes (results
    depend on it)."""

    def git(*args: str) -> str:
        cmd = ["git", "-C", str(REPO_ROOT), *args]
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()

    try:
        sha = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "mgqa_platform")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"git {sha}" + (" + uncommitted changes in mgqa_platform/" if dirty else "")


def fmt_row(size: int, r: dict) -> str:
    if "error" in r:
        return f"{size:>10,}  {r['mode']:<14}  ERROR {r['error']}"
    tps = r["triples"] / r["seconds"] if r["seconds"] else float("nan")
    return (
        f"{size:>10,}  {r['mode']:<14}  {r['seconds']:>8.2f}  {tps:>10,.0f}  "
        f"{r['cpu_s']:>7.1f}  {r['peak_rss_mib']:>9,.0f}"
        f"  {r['self_hwm_mib']:>9,.0f}  {r['loadavg_before']:>5.1f}/{r['loadavg_after']:<5.1f}"
    )


HEADER = (
    f"{'triples':>10}  {'mode':<14}  {'seconds':>8}  {'triples/s':>10}  {'CPU s':>7}  "
    f"{'peak RSS':>9}  {'self HWM':>9}  {'load 1m':>11}\n"
    f"{'':>10}  {'':<14}  {'':>8}  {'':>10}  {'':>7}  {'MiB tree':>9}  {'MiB':>9}  "
    f"{'before/after':>11}"
)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (or, with ``--child``, one measurement in this process) and print the
    report; ``--json`` also writes the results."""
    args = _parser().parse_args(argv)
    if args.child:
        child_main(
            args.child,
            args.child_path,
            args.workdir,
            args.profile,
            args.trace,
            args.duckdb_memory_limit,
        )
        return 0
    sizes = sorted(args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES))
    modes = [m for m in MODES if m in args.modes and not (m == "rdflib" and args.skip_rdflib)]
    if "parse-parallel" in modes:
        sys.path.insert(0, str(REPO_ROOT))
        from mgqa_platform.kg import rdf_stream

        if not hasattr(rdf_stream, "parse_file"):
            modes.remove("parse-parallel")
    print(
        f"# KG conversion benchmark: sizes {sizes}, modes {modes}, workdir {args.workdir}, "
        f"{os.cpu_count()} CPUs",
        flush=True,
    )
    print(f"# library: {_library_version()}; python {sys.version.split()[0]}", flush=True)
    results = _measure(args, sizes, modes)
    _print_results(results, sizes, modes)
    speedups = _print_ratios(results, sizes, modes)
    growth = _print_growth(results, sizes, modes)
    _print_targets(sizes, modes, speedups, growth)
    if args.json:
        args.json.write_text(
            json.dumps({str(k): v for k, v in results.items()}, indent=2, default=str)
        )
    return 0


def _parser() -> argparse.ArgumentParser:
    """The benchmark's command line."""
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=None,
        help="file sizes in triples (default: 1000000 5000000)",
    )
    ap.add_argument("--quick", action="store_true", help="sizes 100000 and 500000 (fast smoke run)")
    ap.add_argument(
        "--workdir",
        type=Path,
        default=Path("/tmp/mgqa-bench"),
        help="where generated files and the scratch warehouse live",
    )
    ap.add_argument("--skip-rdflib", action="store_true", help="do not run the rdflib reference")
    ap.add_argument(
        "--modes",
        nargs="+",
        choices=MODES,
        default=list(MODES),
        help="measurements to run (default: all; parse-parallel is skipped if "
        "rdf_stream.parse_file does not exist)",
    )
    ap.add_argument("--seed", type=int, default=42, help="generator seed (default 42)")
    ap.add_argument(
        "--profile",
        action="store_true",
        help="cProfile the convert run(s) and print the top functions",
    )
    ap.add_argument(
        "--trace",
        action="store_true",
        help="time each SQL statement / Python step of convert and its peak RSS",
    )
    ap.add_argument(
        "--duckdb-memory-limit",
        default=None,
        help="override the warehouse memory_limit for convert (e.g. 1GB); default: library config",
    )
    ap.add_argument(
        "--parse-workers",
        type=int,
        default=None,
        help="set MGQA_PARSE_WORKERS for convert (parser worker processes); default: the "
        "library's default",
    )
    ap.add_argument(
        "--timeout", type=float, default=None, help="per-measurement timeout in seconds"
    )
    ap.add_argument(
        "--json", type=Path, default=None, help="also write all results to this JSON file"
    )
    ap.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    ap.add_argument("--child-path", type=Path, help=argparse.SUPPRESS)
    return ap


def _measure(args: argparse.Namespace, sizes: list[int], modes: list[str]) -> dict:
    """Size -> mode -> the measurement of a child process (and ``_meta``: the generated file's)."""
    results: dict[int, dict[str, dict]] = {}
    for size in sizes:
        path, meta = dataset(args.workdir, size, args.seed)
        results[size] = {"_meta": meta}
        for mode in modes:
            print(f"[run] {size:,} triples, {mode} ...", flush=True)
            r = run_child(
                mode,
                path,
                args.workdir,
                args.profile,
                args.timeout,
                args.trace,
                args.duckdb_memory_limit,
                args.parse_workers,
            )
            results[size][mode] = r
            print("      " + fmt_row(size, r).strip(), flush=True)
            if mode == "convert" and "error" not in r:
                _print_convert_detail(r, args.profile)
            if "error" in r and r.get("stderr_tail"):
                print(r["stderr_tail"], flush=True)
    return results


def _print_convert_detail(r: dict, profile: bool) -> None:
    """The phases, counts, settings and (with ``--trace``/``--profile``) the statements and the
    profile of one convert run."""
    accounted = sum(v["seconds"] for v in r["phases"].values())
    ph = "; ".join(
        f"{k} {v['seconds']}s x{v['calls']} (peak {v['peak_tree_rss_mib']} MiB)"
        for k, v in r["phases"].items()
    )
    print(
        f"      convert phases: {ph}; outside these functions {r['seconds'] - accounted:.2f}s",
        flush=True,
    )
    print(
        f"      entities {r['entities']:,}, labels {r['labels']:,}, "
        f"entity_triples {r['entity_triples']:,}, "
        f"quarantined {r['quarantined']}, ambiguous names {r['ambiguous_names']:,}, "
        f"warehouse {r['db_mib']} MiB; "
        f"duckdb memory_limit {r.get('duckdb_memory_limit')}, threads {r.get('duckdb_threads')}, "
        f"MGQA_PARSE_WORKERS={r.get('MGQA_PARSE_WORKERS') or '(unset)'}",
        flush=True,
    )
    if r.get("trace"):
        print(f"      {'seconds':>8} {'calls':>6} {'peak MiB':>9}  statement", flush=True)
        for label, st in sorted(r["trace"].items(), key=lambda kv: -kv[1]["seconds"]):
            if st["seconds"] >= 0.01:
                pk = st["peak_tree_rss_mib"] or "<sample"
                print(
                    f"      {st['seconds']:>8.2f} {st['calls']:>6} {pk:>9}  {label}",
                    flush=True,
                )
    if profile:
        print(r.get("cprofile_cumulative", ""), flush=True)
        print(r.get("cprofile_tottime", ""), flush=True)


def _print_results(results: dict, sizes: list[int], modes: list[str]) -> None:
    """The table of every measurement, and a warning when the machine was busy."""
    print()
    print("## Results")
    print(HEADER)
    for size in sizes:
        for mode in modes:
            print(fmt_row(size, results[size][mode]))

    loads = [
        r.get(k, 0.0)
        for size in sizes
        for m, r in results[size].items()
        if m != "_meta"
        for k in ("loadavg_before", "loadavg_after")
    ]
    if loads and max(loads) > 1.5 * (
        os.cpu_count() or 1
    ):  # our own children account for up to ~cpu_count
        print(
            f"WARNING: the machine was busy (1-min load average up to {max(loads):.1f} on "
            f"{os.cpu_count()} CPUs): "
            "timings are pessimistic and noisy; re-run on an idle machine for reference numbers."
        )


def _print_ratios(results: dict, sizes: list[int], modes: list[str]) -> dict[int, float | None]:
    """Throughput and CPU time against rdflib per size; returns convert's throughput ratio per
    size."""

    def tps(size: int, mode: str) -> float | None:
        r = results[size].get(mode)
        if not r or "error" in r or not r.get("seconds"):
            return None
        return r["triples"] / r["seconds"]

    print()
    print("## Throughput vs rdflib (same run)")
    speedups: dict[int, float | None] = {}
    for size in sizes:
        ref = tps(size, "rdflib")
        parts = []
        for mode in ("parse-only", "parse-parallel", "convert"):
            if mode not in modes:
                continue
            t = tps(size, mode)
            ratio = t / ref if (t and ref) else None
            if mode == "convert":
                speedups[size] = ratio
            parts.append(f"{mode} {ratio:.2f}x" if ratio else f"{mode} n/a")
        print(f"{size:>10,}: " + ", ".join(parts))
    print()
    print(
        "## CPU time vs rdflib (rdflib CPU s / ours; robust to a busy machine, ignores parallelism)"
    )
    for size in sizes:
        ref = results[size].get("rdflib")
        if not ref or "error" in ref:
            continue
        parts = []
        for mode in ("parse-only", "parse-parallel", "convert"):
            r = results[size].get(mode)
            if r and "error" not in r and r.get("cpu_s"):
                parts.append(f"{mode} {ref['cpu_s'] / r['cpu_s']:.2f}x")
        print(f"{size:>10,}: " + ", ".join(parts))

    return speedups


def _peak(results: dict, size: int, mode: str) -> float | None:
    """The peak RSS of one measurement (None when it failed or did not run)."""
    r = results[size].get(mode)
    return None if not r or "error" in r else r["peak_rss_mib"]


def _print_growth(results: dict, sizes: list[int], modes: list[str]) -> dict[str, float | None]:
    """Peak RSS growth from the smallest to the largest size per mode; returns it."""
    print()
    lo, hi = sizes[0], sizes[-1]
    print(f"## Peak RSS growth ({hi:,} vs {lo:,} triples, file {hi / lo:.1f}x larger)")
    growth: dict[str, float | None] = {}
    for mode in modes:
        a, b = _peak(results, lo, mode), _peak(results, hi, mode)
        growth[mode] = b / a if (a and b) else None
        print(
            f"{mode:<14}: {a if a else float('nan'):,.0f} -> {b if b else float('nan'):,.0f} MiB = "
            + (f"{growth[mode]:.2f}x" if growth[mode] else "n/a")
        )

    return growth


def _print_targets(
    sizes: list[int],
    modes: list[str],
    speedups: dict[int, float | None],
    growth: dict[str, float | None],
) -> None:
    """Whether the two targets (convert >= 10x rdflib, peak RSS growth <= 1.5x) were met."""
    lo, hi = sizes[0], sizes[-1]
    print()
    if "rdflib" not in modes or "convert" not in modes:
        print(
            "TARGET SKIPPED: convert throughput >= 10x rdflib (needs both convert and rdflib runs)"
        )
    elif all(v is not None and v >= 10 for v in speedups.values()):
        print(
            "TARGET MET: convert throughput >= 10x rdflib at every size ("
            + ", ".join(f"{s:,}: {v:.2f}x" for s, v in speedups.items())
            + ")"
        )
    else:
        print(
            "TARGET MISSED: convert throughput >= 10x rdflib ("
            + ", ".join(f"{s:,}: " + (f"{v:.2f}x" if v else "n/a") for s, v in speedups.items())
            + ")"
        )
    g = growth.get("convert")
    if "convert" not in modes or len(sizes) < 2:
        print(
            "TARGET SKIPPED: convert peak RSS at largest size <= 1.5x smallest "
            "(needs convert at two sizes)"
        )
    elif g is not None and g <= 1.5:
        print(f"TARGET MET: convert peak RSS {hi:,} vs {lo:,} = {g:.2f}x <= 1.5x")
    else:
        print(
            f"TARGET MISSED: convert peak RSS {hi:,} vs {lo:,} = "
            + (f"{g:.2f}x" if g else "n/a")
            + " > 1.5x"
        )


if __name__ == "__main__":
    sys.exit(main())
