"""Benchmark the population -> H3 aggregation
(:func:`mgqa_platform.strata.density.aggregate_to_h3`).

A synthetic population raster with the geometry of the global WorldPop 1 km grid (EPSG:4326, 30
arc-second pixels, 43,200 columns from lon -180 to 180) is generated in ``--workdir``, but only
``--rows`` of its 18,720 rows (default 2,340 = 1/8), centred on the equator unless ``--top-lat``
says otherwise. The equator is the costliest latitude per row: a full-width band there crosses the
most H3 cells. About 60 % of the pixels are nodata (an "ocean" made of smooth sinusoids, not a real
coastline); land pixels hold seeded log-normal counts, 5 % of them 0. Tiled 256x256, deflate,
float32, nodata -3.4028234663852886e+38 (WorldPop's). Generated files are cached by name (generator
version, rows, top latitude, seed).

Every measurement runs in its **own subprocess**, so the peak RSS (``VmHWM``, imports included) is
that measurement's alone:

* ``imports``   -- import the libraries and the module only (the RSS floor);
* ``baseline``  -- the I/O floor: the same windowed ``rasterio`` reads as the aggregation, the same
  validity test (finite, >= 0, not nodata) and a ``numpy`` sum; no H3 work;
* ``aggregate`` -- ``aggregate_to_h3(raster, res=3, window_rows=W)``.

Each measurement runs ``--repeat`` times (default 3): the median time and the largest peak RSS are
reported. Runs: baseline and aggregate on the main raster with ``--window-rows`` (default 256),
aggregate with ``--alt-window-rows`` (default 64), and aggregate on a raster a quarter as tall (same
top latitude), to show that peak memory follows the window, not the raster's height. The script
prints a table, aggregation/baseline time ratios measured in the same run, the time extrapolated
linearly to the full 18,720 rows, and a consistency check (aggregated population == baseline sum).
Exit code 0 (it is a report). See ``docs/benchmark_density.md``.

Usage::

    .venv/bin/python scripts/bench_density.py                  # 2,340 rows (1/8 of the globe)
    .venv/bin/python scripts/bench_density.py --rows 585       # quick
    .venv/bin/python scripts/bench_density.py --rows 18720     # the full grid (~1.6 GB of GeoTIFF)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
GENERATOR_VERSION = 1
GLOBAL_COLS = 43_200
GLOBAL_ROWS = 18_720
PIXEL_DEG = 1.0 / 120.0
NODATA = -3.4028234663852886e38
BLOCK = 256


# --------------------------------------------------------------------------------------------------
# Synthetic raster
# --------------------------------------------------------------------------------------------------
def _land(lon, lat):
    """Smooth pseudo-continents: True on ~40 % of the pixels (41 % at the equator, 41 % over
    84N..72S)."""
    import numpy as np

    f = (
        np.sin(np.radians(lon) * 3.0 + 0.7)
        + np.sin(np.radians(lat) * 5.0 + np.radians(lon) * 2.0)
        + 0.5 * np.sin(np.radians(lon) * 11.0 - np.radians(lat) * 7.0 + 1.3)
    )
    return f > 0.25


def generate(path: Path, rows: int, top_lat: float, seed: int) -> Path:
    """Write the synthetic raster (see module docstring) unless it exists. Returns ``path``."""
    import numpy as np
    import rasterio
    from rasterio.transform import Affine
    from rasterio.windows import Window

    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    profile = {
        "driver": "GTiff",
        "dtype": "float32",
        "width": GLOBAL_COLS,
        "height": rows,
        "count": 1,
        "crs": "EPSG:4326",
        "transform": Affine(PIXEL_DEG, 0.0, -180.0, 0.0, -PIXEL_DEG, top_lat),
        "nodata": NODATA,
        "tiled": True,
        "blockxsize": BLOCK,
        "blockysize": BLOCK,
        "compress": "deflate",
        "BIGTIFF": "IF_SAFER",
    }
    rng = np.random.default_rng(seed)
    lon = -180.0 + (np.arange(GLOBAL_COLS) + 0.5) * PIXEL_DEG
    with rasterio.open(tmp, "w", **profile) as dst:
        for row0 in range(0, rows, BLOCK):
            n = min(BLOCK, rows - row0)
            lat = top_lat - (row0 + np.arange(n) + 0.5) * PIXEL_DEG
            land = _land(lon[None, :], lat[:, None])
            pop = rng.lognormal(mean=1.0, sigma=1.5, size=land.shape).astype(np.float32)
            pop[rng.random(land.shape) < 0.05] = 0.0
            dst.write(
                np.where(land, pop, np.float32(NODATA)), 1, window=Window(0, row0, GLOBAL_COLS, n)
            )
        dst.update_tags(
            MGQA_BENCH=f"synthetic v{GENERATOR_VERSION} rows={rows} top_lat={top_lat} seed={seed}"
        )
    os.replace(tmp, path)
    return path


# --------------------------------------------------------------------------------------------------
# Child measurements
# --------------------------------------------------------------------------------------------------
def _child(mode: str, raster: str, window_rows: int) -> dict:
    import numpy as np
    import rasterio
    from rasterio.windows import Window

    from mgqa_platform.strata import density

    out: dict = {"mode": mode, "raster": raster, "window_rows": window_rows}
    t0 = time.perf_counter()
    if mode == "baseline":
        total, valid_n, pixels = 0.0, 0, 0
        with rasterio.open(raster) as src:
            nodata = src.nodata
            for row0 in range(0, src.height, window_rows):
                n = min(window_rows, src.height - row0)
                a = src.read(1, window=Window(0, row0, src.width, n))
                valid = np.isfinite(a) & (a >= 0) & (a != np.float32(nodata))
                total += float(a[valid].astype(np.float64).sum())
                valid_n += int(np.count_nonzero(valid))
                pixels += a.size
        out.update(population=total, valid_pixels=valid_n, pixels=pixels)
    elif mode == "aggregate":
        table = density.aggregate_to_h3(raster, res=3, window_rows=window_rows)
        st = density.aggregation_stats(table)
        with rasterio.open(raster) as src:
            pixels = src.width * src.height
        out.update(
            population=float(np.sum(table["population"].to_numpy())),
            valid_pixels=int(np.sum(table["valid_pixels"].to_numpy())),
            pixels=pixels,
            cells=table.num_rows,
            edge_pixels=st["edge_pixels"],
            fallback_pixels=st["fallback_pixels"],
            relabelled_pixels=st["relabelled_pixels"],
        )
    elif mode != "imports":
        raise SystemExit(f"unknown mode {mode}")
    out["seconds"] = time.perf_counter() - t0
    out["maxrss_mib"] = _peak_rss_mib()
    return out


def _peak_rss_mib() -> float:
    """Peak RSS of this process in MiB: ``VmHWM`` from /proc (Linux), else ``ru_maxrss``.
    ``ru_maxrss`` alone would be wrong in a child: Linux carries the parent's value across fork and
    exec."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 1024.0 if sys.platform != "darwin" else rss / 2**20


def _run_child(mode: str, raster: Path | str, window_rows: int) -> dict:
    env = dict(
        os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    )
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        mode,
        str(raster),
        str(window_rows),
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if res.returncode != 0:
        raise SystemExit(f"child {mode} failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    """Run the density benchmark (or, with ``--child``, one measurement in this process) and print
    its table and summary."""
    args = _parser().parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child[0], args.child[1], int(args.child[2]))))
        return 0
    rows = args.rows
    small_rows = max(1, rows // 4)
    top = args.top_lat if args.top_lat is not None else round(rows * PIXEL_DEG / 2.0, 6)
    if top > 90 or top - rows * PIXEL_DEG < -90:
        raise SystemExit(f"--rows {rows} with top latitude {top} leaves [-90, 90]")
    big, small = _rasters(args, rows, small_rows, top)
    results = _measure(args, big, small)
    _print_table(results, rows, small_rows)
    _print_summary(args, results, rows, small_rows, top)
    return 0


def _parser() -> argparse.ArgumentParser:
    """The benchmark's command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/mgqa-bench-density"))
    ap.add_argument(
        "--rows", type=int, default=GLOBAL_ROWS // 8, help="rows of the main raster (default 2340)"
    )
    ap.add_argument(
        "--top-lat", type=float, default=None, help="north edge (default: centred on the equator)"
    )
    ap.add_argument("--window-rows", type=int, default=256)
    ap.add_argument("--alt-window-rows", type=int, default=64)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--repeat", type=int, default=3, help="runs per measurement; the median time is reported"
    )
    ap.add_argument(
        "--child", nargs=3, metavar=("MODE", "RASTER", "WINDOW_ROWS"), help=argparse.SUPPRESS
    )
    return ap


def _rasters(args: argparse.Namespace, rows: int, small_rows: int, top: float) -> tuple[Path, Path]:
    """The synthetic rasters of ``rows`` and ``small_rows`` rows from latitude ``top`` (generated,
    or reused from ``--workdir``)."""
    print(f"generating (or reusing) rasters in {args.workdir} ...", flush=True)
    t = time.perf_counter()
    big = generate(
        args.workdir / f"synthetic-v{GENERATOR_VERSION}-{rows}r-top{top:g}-s{args.seed}.tif",
        rows,
        top,
        args.seed,
    )
    small = generate(
        args.workdir / f"synthetic-v{GENERATOR_VERSION}-{small_rows}r-top{top:g}-s{args.seed}.tif",
        small_rows,
        top,
        args.seed,
    )
    print(
        f"  ready in {time.perf_counter() - t:.1f} s: {big.name} "
        f"({big.stat().st_size / 2**20:.0f} MiB), "
        f"{small.name} ({small.stat().st_size / 2**20:.0f} MiB)"
    )

    return big, small


def _measure(args: argparse.Namespace, big: Path, small: Path) -> list[dict]:
    """The six measurements (imports, baseline and aggregate on both rasters, the alternative
    window), each the median of ``--repeat`` child runs with the largest peak RSS."""
    runs = [
        ("imports", big, args.window_rows),
        ("baseline", big, args.window_rows),
        ("aggregate", big, args.window_rows),
        ("aggregate", big, args.alt_window_rows),
        ("baseline", small, args.window_rows),
        ("aggregate", small, args.window_rows),
    ]
    results = []
    for mode, raster, w in runs:
        reps = [_run_child(mode, raster, w) for _ in range(max(1, args.repeat))]
        times = sorted(x["seconds"] for x in reps)
        r = dict(
            reps[0], seconds=times[len(times) // 2], maxrss_mib=max(x["maxrss_mib"] for x in reps)
        )
        results.append(r)
        print(
            f"  {mode:<9} {Path(raster).name:<44} window {w:>4}: {r['seconds']:7.2f} s "
            f"(runs: {', '.join(f'{t:.2f}' for t in times)}), peak RSS {r['maxrss_mib']:7.0f} MiB",
            flush=True,
        )

    return results


def _print_table(results: list[dict], rows: int, small_rows: int) -> None:
    """The table of the measurements, with each aggregate's time against its baseline."""
    imports, base_big, agg_big, agg_alt, base_small, agg_small = results
    print()
    print(
        f"{'measurement':<34} {'rows':>6} {'window':>6} {'seconds':>8} {'Mpx/s':>7} "
        f"{'peak RSS MiB':>12} {'x baseline':>10}"
    )
    for label, r, nrows, base in (
        ("imports only", imports, rows, None),
        ("baseline (read + validity + sum)", base_big, rows, None),
        ("aggregate_to_h3", agg_big, rows, base_big),
        ("aggregate_to_h3 (alt window)", agg_alt, rows, base_big),
        ("baseline, 1/4 height", base_small, small_rows, None),
        ("aggregate_to_h3, 1/4 height", agg_small, small_rows, base_small),
    ):
        mpx = r.get("pixels", 0) / r["seconds"] / 1e6 if r.get("pixels") else float("nan")
        ratio = f"{r['seconds'] / base['seconds']:10.2f}" if base else f"{'':>10}"
        print(
            f"{label:<34} {nrows:>6} {r['window_rows']:>6} {r['seconds']:8.2f} {mpx:7.1f} "
            f"{r['maxrss_mib']:12.0f} {ratio}"
        )


def _print_summary(
    args: argparse.Namespace, results: list[dict], rows: int, small_rows: int, top: float
) -> None:
    """Pixels and cells, the full grid's time (measured or extrapolated), the consistency of the
    aggregate with the baseline and the memory figures."""
    imports, base_big, agg_big, agg_alt, base_small, agg_small = results
    print()
    scale = GLOBAL_ROWS / rows
    print(
        f"pixels: {agg_big['pixels']:,} ({agg_big['valid_pixels']:,} valid, "
        f"{agg_big['valid_pixels'] / agg_big['pixels']:.1%}); "
        f"cells: {agg_big['cells']:,}; edge re-checks: {agg_big['edge_pixels']:,} "
        f"({agg_big['edge_pixels'] / max(agg_big['valid_pixels'], 1):.3%} of valid), "
        f"relabelled: {agg_big['relabelled_pixels']:,}, "
        f"fallback: {agg_big['fallback_pixels']:,}"
    )
    if rows == GLOBAL_ROWS:
        print(
            f"full grid ({GLOBAL_ROWS:,} rows, lat {top:g}..{top - rows * PIXEL_DEG:g}) measured: "
            f"aggregate {agg_big['seconds']:.0f} s, baseline {base_big['seconds']:.0f} s"
        )
    else:
        print(
            f"full grid ({GLOBAL_ROWS:,} rows) extrapolated linearly from {rows:,} rows at "
            f"lat {top:g}..{top - rows * PIXEL_DEG:g}: "
            f"aggregate {agg_big['seconds'] * scale:.0f} s "
            f"({agg_big['seconds'] * scale / 60:.1f} min), "
            f"baseline {base_big['seconds'] * scale:.0f} s"
        )
    rel = abs(agg_big["population"] - base_big["population"]) / max(base_big["population"], 1.0)
    same_px = agg_big["valid_pixels"] == base_big["valid_pixels"]
    print(
        f"consistency: population aggregated {agg_big['population']:.6e} vs baseline "
        f"{base_big['population']:.6e} "
        f"(relative difference {rel:.1e}); valid pixels equal: {same_px}"
    )
    if small_rows < 2 * args.window_rows:
        print(
            f"note: the 1/4-height raster ({small_rows} rows) is under two windows tall, "
            "so its peak RSS is that of a "
            f"smaller band, not a like-for-like comparison; use --rows >= {8 * args.window_rows}"
        )
    print(
        f"memory: peak RSS {agg_big['maxrss_mib']:.0f} MiB at {rows} rows vs "
        f"{agg_small['maxrss_mib']:.0f} MiB at {small_rows} rows "
        f"(x{agg_big['maxrss_mib'] / agg_small['maxrss_mib']:.2f} for "
        f"x{rows / small_rows:.0f} the rows); "
        f"window {args.window_rows}: {agg_big['maxrss_mib']:.0f} MiB vs window "
        f"{args.alt_window_rows}: {agg_alt['maxrss_mib']:.0f} MiB; "
        f"imports alone {imports['maxrss_mib']:.0f} MiB"
    )


if __name__ == "__main__":
    sys.exit(main())
